"""PettingZoo AEC environment: 4-player relay Owaré (rules ``"oware4"``).

    from awale.pettingzoo import oware4_v0
    env = oware4_v0.env(render_mode="ansi")
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from awale.pettingzoo import aec

RULES = "oware4"


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (see :func:`awale.pettingzoo.env`)."""
    return aec.env(rules=kwargs.pop("rules", RULES), **kwargs)


def raw_env(**kwargs: Any) -> aec.raw_env:
    """The unwrapped environment (see :class:`awale.pettingzoo.raw_env`)."""
    return aec.raw_env(rules=kwargs.pop("rules", RULES), **kwargs)

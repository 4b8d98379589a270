"""PettingZoo AEC environments for every preset, 2 to 6 players.

The PettingZoo way: ``env()`` is the wrapped environment, ``raw_env`` the bare one, and one
module per preset (``abapa_v0``, ``awale_v0``, ``wari_v0``, ``openspiel_v0``, ``oware2_v0``,
``oware3_v0``, ``oware4_v0``, ``oware6_v0``: one per entry of the engine's preset table,
generated at import) fixes the rules::

    from awale.pettingzoo import oware4_v0
    env = oware4_v0.env()
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else env.action_space(agent).sample(mask)
        env.step(action)

``env(rules="oware:players=3,max_plies=400")`` takes any rules spec.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
import typing
from typing import Any

from pettingzoo import AECEnv

from awale import _core
from awale.pettingzoo import aec
from awale.pettingzoo.aec import env, raw_env


def _preset_module(spec: str, title: str, summary: str) -> types.ModuleType:
    """The module ``awale.pettingzoo.<spec>_v0``: ``env`` and ``raw_env`` with rules ``spec``."""
    name = f"{__name__}.{spec}_v0"
    module = types.ModuleType(
        name,
        f"PettingZoo AEC environment: {title} (rules ``{spec!r}``): {summary}\n\n"
        f"    from awale.pettingzoo import {spec}_v0\n"
        f"    env = {spec}_v0.env(render_mode=\"ansi\")\n",
    )

    def make_env(**kwargs: Any) -> AECEnv:
        """The wrapped environment (see :func:`awale.pettingzoo.env`)."""
        return aec.env(rules=kwargs.pop("rules", spec), **kwargs)

    def make_raw_env(**kwargs: Any) -> aec.raw_env:
        """The unwrapped environment (see :class:`awale.pettingzoo.raw_env`)."""
        return aec.raw_env(rules=kwargs.pop("rules", spec), **kwargs)

    for f, short in ((make_env, "env"), (make_raw_env, "raw_env")):
        # Resolved here: the generated module has none of the names the annotations use.
        f.__annotations__ = typing.get_type_hints(f)
        f.__name__ = f.__qualname__ = short
        f.__module__ = name
    # A spec, so that `importlib.util.find_spec` (and documentation tools) find the module.
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    module.RULES = spec  # type: ignore[attr-defined]
    module.env = make_env  # type: ignore[attr-defined]
    module.raw_env = make_raw_env  # type: ignore[attr-defined]
    module.__all__ = ["RULES", "env", "raw_env"]  # type: ignore[attr-defined]
    return module


#: The per-preset modules, by preset spec (``"abapa"``: ``awale.pettingzoo.abapa_v0``).
ENVIRONMENTS: dict[str, types.ModuleType] = {}

for _spec, _title, _summary in _core.presets():
    _module = _preset_module(_spec, _title, _summary)
    sys.modules[_module.__name__] = _module
    globals()[f"{_spec}_v0"] = _module
    ENVIRONMENTS[_spec] = _module

__all__ = ["env", "raw_env", "ENVIRONMENTS"] + [f"{s}_v0" for s in ENVIRONMENTS]

"""The scorecard: an agent's rating on a published, fixed scale (``awale scorecard`` in Python).

A protocol (version 1, compiled into the extension) fixes, for each rule set, anchor agents with
fixed ratings (``random`` = 0, greedy, alpha-beta depths 2 to 10, the shipped baseline...), a
seed, random openings and the games against each anchor. :func:`scorecard` plays the agent
against every anchor and fits its rating with the anchors pinned: a number with a 95% interval
that anyone can compare with another card of the same ``protocol_id``::

    import awale
    card = awale.scorecard("alphabeta:depth=5", rules="abapa")
    print(card.rating, card.interval, card.protocol_id)
    card = awale.scorecard(lambda state: state.legal_moves()[0], rules="abapa")
    card = awale.scorecard(awale.sb3.agent(model, obs="onehot:16"), rules="abapa")  # SB3
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from awale import _core
from awale.tournament import _folder_arg, _progress


class Scorecard:
    """A scorecard: the agent's rating on the protocol's scale and how it was obtained.

    Attributes: ``agent``, ``rules``, ``rating``, ``lower``, ``upper`` (the 95% interval),
    ``stderr``, ``protocol_id``, ``protocol_version``, ``games``, ``complete``, ``ms_per_move``,
    ``anchors`` (a list of dicts: ``spec``, ``rating``, ``games``, ``wins``, ``draws``,
    ``losses``, ``score``, ``ms_per_move``) and ``endgame`` (a dict, or None without tables).
    """

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data
        for k, v in data.items():
            setattr(self, k, v)

    @property
    def interval(self) -> Tuple[float, float]:
        """The 95% interval ``(lower, upper)``."""
        return (self._data["lower"], self._data["upper"])

    def to_dict(self) -> Dict[str, Any]:
        """The card as ``scorecard.json`` holds it."""
        return dict(self._data)

    def to_markdown(self) -> str:
        """The card as a Markdown page (what ``scorecard.md`` holds)."""
        return _core.scorecard_markdown(json.dumps(self._data))

    def __repr__(self) -> str:
        return (
            f"Scorecard({self._data['agent']!r}: {self._data['rating']:.0f} "
            f"[{self._data['lower']:.0f}, {self._data['upper']:.0f}], "
            f"protocol {self._data['protocol_id']})"
        )

    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"]) -> "Scorecard":
        """Reads a ``scorecard.json``; a card of another protocol version raises ValueError
        naming both versions (ratings of two versions are on different scales)."""
        with open(os.fspath(path), encoding="utf-8") as f:
            text = f.read()
        try:
            _core.scorecard_markdown(text)  # the Rust reader's checks: format and version
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)!s}: {e}") from None
        return Scorecard(json.loads(text))


#: The version of the protocol this build rates with.
PROTOCOL_VERSION = 1


def scorecard(
    agent: Any,
    rules: str = "abapa",
    *,
    out: Union[str, "os.PathLike[str]", None] = None,
    threads: int = 0,
    tables: Union[str, "os.PathLike[str]", None] = None,
    protocol: Optional[str] = None,
    obs: str = "compact",
    progress: Union[bool, Callable[[int, int], Any]] = False,
) -> Scorecard:
    """Rates ``agent`` with the scorecard protocol of ``rules``.

    Args:
        agent: a spec string (``"alphabeta:depth=5"``, ``"nn:baseline=abapa"``), a path to a
            network file (rated as ``nn:path=FILE``), a Python agent as in
            :func:`awale.tournament` (an object with ``select(state) -> house``, such as
            :class:`awale.SearchAgent` or :class:`awale.ObservationAgent` for a policy trained
            on observations, or a function of an :class:`awale.State`), or a
            ``(name, agent)`` tuple.
        rules: one of the protocol's rule sets: ``abapa``, ``awale``, ``wari``, ``oware3``,
            ``oware4``, ``oware6``.
        out: a folder for ``scorecard.json``, ``scorecard.md`` and the games: the same call
            again resumes.
        threads: game threads (0: one per core).
        tables: a folder of endgame tables (12 seeds) for the endgame yardstick.
        protocol: the text of another protocol file (TOML, the layout of the built-in one),
            e.g. a small one for a test.
        obs: the observation encoding given to a deprecated ``(observation, mask)`` callable
            (an :class:`awale.ObservationAgent` carries its own).
        progress: True for a progress bar, or a function ``(done, scheduled)``.

    Raises:
        ValueError: an unknown rule set or agent spec, an ``out`` folder holding a card of
            another protocol, an agent that returned an illegal move (named in the message).
        TypeError: arguments of the wrong type.
    """
    if not isinstance(rules, str):
        raise TypeError(f"rules must be a rule set name (str), got {type(rules).__name__}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be an int >= 0, got {threads!r}")
    if protocol is not None and not isinstance(protocol, str):
        raise TypeError(f"protocol must be the text of a protocol file, got {type(protocol).__name__}")
    if isinstance(agent, os.PathLike):
        agent = os.fspath(agent)
    out = _folder_arg(out)
    tables = _folder_arg(tables, "tables")
    with _progress(progress, "scorecard") as callback:
        text = _core.run_scorecard(
            agent,
            rules=rules,
            out=out,
            threads=threads,
            tables=tables,
            protocol=protocol,
            obs=obs,
            progress=callback,
        )
    return Scorecard(json.loads(text))


def baselines() -> List[Dict[str, Any]]:
    """The manifests of the networks shipped with awale (each plays as
    ``nn:baseline=NAME``; :meth:`awale.Network.baseline` loads one): name, rules, recipe, seed,
    commit, machine, wall time, iterations, positions, SHA-256 of the weights, default search
    and measured strength."""
    return json.loads(_core.baseline_manifests())

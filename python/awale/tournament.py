"""Tournaments between built-in agents and Python agents, rated by Elo.

:func:`tournament` plays a round-robin (or a gauntlet) on the Rust engine, the same as the
``awale tournament`` command: paired random openings played from every seat, games in parallel
(results do not depend on ``threads``), maximum-likelihood Elo ratings with 95% intervals, and
with ``out=`` every game saved at once so that an interrupted run resumes. It returns a
:class:`TournamentResult`.

Example::

    import awale

    def leftmost(state):                # an agent: a function of an awale.State
        return state.legal_moves()[0]   # returns a house (0-based in the mover's row)

    result = awale.tournament(
        ["random", "greedy", "alphabeta:depth=4", ("leftmost", leftmost)],
        rules="abapa", games=20, seed=0,
    )
    print(result.table())
    result.ratings[0]["name"]           # the strongest agent
    result.crosstable                   # (n, n) points of row against column, in result.names order

Python agents (an object with ``select(state) -> house``, or a function of a state; see
:mod:`awale.agents`) are called one at a time (per agent) while built-in agents play in
parallel, so an agent that keeps state between calls, or releases the GIL inside (an SB3
``model.predict``), is safe with any ``threads``. An agent that is safe to call from several
threads at once says so with an attribute ``thread_safe = True`` and is then called in parallel.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from awale import _core
from awale.agents import AgentLike

if TYPE_CHECKING:
    from awale._core import _GameRun

__all__ = ["tournament", "TournamentResult", "AgentCallable", "AgentArg"]

#: A Python agent: an object with ``select(state) -> house`` or a function of an
#: :class:`awale.State` returning a house (the ``(observation, mask)`` form is deprecated).
AgentCallable = AgentLike
#: An agent argument: a spec string, a Python agent, or a ``(name, agent)`` tuple.
AgentArg = Union[str, AgentLike, Tuple[str, Union[AgentLike, str]]]


#: The keys of each ``TournamentResult.ratings`` entry, in order.
_RATING_KEYS = ("name", "elo", "low", "high", "games", "wins", "draws", "losses", "score")


def _count(name: str, value: Any, minimum: int) -> int:
    """An int argument of at least ``minimum`` (TypeError / ValueError otherwise)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    v = int(value.__index__())
    if v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {v}")
    if v >= 2**32 and name in ("openings", "max_plies"):
        raise ValueError(f"{name} must be below 2**32, got {v}")
    return v


def _on_ray(backend: Any, shard: Any, limit: Any, workers: Any) -> bool:
    """Whether ``backend`` is ``"ray"`` (else ``"local"``), checked with the arguments that
    only one of them takes: Ray shards the games itself (no ``shard`` or ``limit``), and
    ``workers`` is for Ray only."""
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if backend == "ray":
        if shard is not None or limit is not None:
            raise ValueError("backend='ray' shards the games itself: give no shard or limit")
        return True
    if workers is not None:
        raise ValueError("workers is for backend='ray'")
    return False


def _shard_arg(shard: Any) -> Optional[Tuple[int, int]]:
    """A ``(k, n)`` pair of ints of at least 0 (TypeError / ValueError otherwise), or None;
    the Rust side checks ``k < n``."""
    if shard is None:
        return None
    if (
        not isinstance(shard, (tuple, list))
        or len(shard) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in shard)
    ):
        raise TypeError(f"shard must be a (k, n) pair of ints, got {shard!r}")
    if shard[0] < 0 or shard[1] < 0:
        raise ValueError(f"shard {tuple(shard)}: k must be 0 to n-1 and n at least 1")
    return (int(shard[0]), int(shard[1]))


def _game_run(run: Dict[str, Any], limit: Any = None, shard: Any = None) -> "_GameRun":
    """The game run of :func:`tournament`, :func:`awale.match` and :func:`awale.ladder` as
    ``_core`` takes it (``run=``): ``run`` holds their keywords ``games``, ``openings``,
    ``seed``, ``threads`` and ``max_plies`` (the ones a Ray run forwards too), with ``limit``
    and ``shard``. Only types and signs are checked here (TypeError / ValueError); the values
    are checked by the Rust ``GameRunConfig``, as on the command line."""
    if run["seed"] is None:
        raise TypeError("seed must be an int (the same seed gives the same games)")
    return {
        "games": _count("games", run["games"], 0),
        "openings": _count("openings", run["openings"], 0),
        "seed": run["seed"],
        "threads": _count("threads", run["threads"], 0),
        "max_plies": _count("max_plies", run["max_plies"], 0),
        "limit": None if limit is None else _count("limit", limit, 0),
        "shard": _shard_arg(shard),
    }


def _folder_arg(out: Any, name: str = "out") -> Optional[str]:
    """A folder path as a str, or None (TypeError for anything else)."""
    if out is None:
        return None
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"{name} must be a folder path, got {type(out).__name__}")
    path = os.fspath(out)
    return os.fsdecode(path) if isinstance(path, bytes) else path


def _progress_arg(
    progress: Any, what: str = "tournament"
) -> Tuple[Optional["_Progress"], Optional[Callable[[int, int], Any]]]:
    """``progress=``: True draws a bar (returned, to close), a function is called as it is."""
    if callable(progress):
        return None, progress
    if isinstance(progress, (bool, int)) or progress is None:
        if progress:
            bar = _Progress(what)
            return bar, bar
        return None, None
    raise TypeError(f"progress must be a bool or a function, got {type(progress).__name__}")


@contextlib.contextmanager
def _progress(
    progress: Any, what: str = "tournament"
) -> Iterator[Optional[Callable[[int, int], Any]]]:
    """``progress=`` around one run: gives the callback to hand to the run (``None``, the
    caller's function, or a bar) and closes the bar however the run ends."""
    bar, callback = _progress_arg(progress, what)
    try:
        yield callback
    finally:
        if bar is not None:
            bar.close()


class _Progress:
    """A progress bar: tqdm's when it is installed, else one line rewritten on stderr."""

    def __init__(self, what: str = "tournament") -> None:
        self._what = what
        self._bar: Any = None
        self._last = -1
        try:
            from tqdm.auto import tqdm  # type: ignore

            self._tqdm: Any = tqdm
        except Exception:  # noqa: BLE001 - any import failure: fall back to plain text
            self._tqdm = None

    def __call__(self, done: int, total: int) -> None:
        if self._tqdm is not None:
            if self._bar is None:
                self._bar = self._tqdm(total=total, initial=done, unit="game", desc=self._what)
            else:
                self._bar.update(done - self._bar.n)
            return
        if done != self._last:
            self._last = done
            sys.stderr.write(f"\r{self._what}: {done}/{total} games")
            sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._last >= 0:
            sys.stderr.write("\n")
            sys.stderr.flush()


class TournamentResult:
    """The outcome of :func:`tournament` (also built by :meth:`from_dict`).

    Attributes:
        names: the agents in crosstable order (entry order; a new gauntlet agent comes first).
        ratings: one dict per agent, strongest first: ``name``, ``elo``, ``low`` and ``high``
            (95% interval; None when the ratings could not be fitted), ``games`` (pairwise
            results counted), ``wins``, ``draws``, ``losses`` and ``score`` (points per result).
        crosstable: ``(n, n)`` float array: points (win 1, draw 1/2) of row against column.
        wins, draws: ``(n, n)`` int arrays: games row won against column, games drawn.
        los: ``(n, n)`` likelihood that row is stronger than column (NaN on the diagonal, and
            everywhere when there are no ratings).
        games: games played; ``games_scheduled``, ``complete`` (all played), ``stopped`` (the
            ``progress`` callback stopped the run before it played all its games; the same
            call with ``out=`` resumes it).
        first_places: in games of three or more players, one dict per agent (crosstable order):
            ``name``, ``games``, ``won`` (alone), ``shared`` (first places shared), ``share``
            (of the wins; a first place shared by k counts 1/k), ``fair_share`` (1/players),
            ``lower`` and ``upper`` (95% interval of ``share``); empty for 2-player games. With
            three or more players the ratings are the placing rating of the finishing orders
            (``awale::ratings::placing``: Plackett–Luce, intervals that count each game once).
        time_per_move: mean milliseconds per move of each agent in the games this call played
            (not those resumed from ``out=``, nor those played on Ray workers); the clock, not
            a result: left out of ``to_dict()`` and of ``==``.
        rules, format, gauntlet, anchor, anchor_rating, elo_error, end_reasons, mean_plies.
        records: the game records (``awale.Game.from_record`` replays them); ``game_results``
            the games as dicts (seats, scores, points, end, plies, record, forfeit: ``None`` or
            the ``seat`` that lost by forfeit and the ``reason``, for engines in other processes).
    """

    def __init__(self, data: Dict[str, Any]) -> None:
        # The clock is not a result: it stays out of `to_dict` and of equality, which hold
        # what the seeds determine.
        self._data = {k: v for k, v in data.items() if k != "time_per_move"}
        self.names: List[str] = list(data["names"])
        self.ratings: List[Dict[str, Any]] = [
            {k: r.get(k) for k in _RATING_KEYS} for r in data["ratings"]
        ]
        n = len(self.names)
        self.wins: np.ndarray = np.asarray(data["wins"], dtype=np.int64).reshape(n, n)
        self.draws: np.ndarray = np.asarray(data["draws"], dtype=np.int64).reshape(n, n)
        self.crosstable: np.ndarray = self.wins + 0.5 * self.draws
        self.los: np.ndarray = np.array(
            [[np.nan if x is None else float(x) for x in row] for row in data["los"]],
            dtype=np.float64,
        ).reshape(n, n)
        self.games: int = int(data["games"])
        self.games_scheduled: int = int(data["games_scheduled"])
        self.complete: bool = bool(data["complete"])
        self.stopped: bool = bool(data.get("stopped", False))
        self.rules: str = data["rules"]
        self.format: str = data["format"]
        self.gauntlet: Optional[str] = data.get("gauntlet")
        self.anchor: Optional[str] = data.get("anchor")
        self.anchor_rating: float = float(data.get("anchor_rating", 0.0))
        self.elo_error: Optional[str] = data.get("elo_error")
        self.end_reasons: Dict[str, int] = dict(data.get("end_reasons", {}))
        self.mean_plies: float = float(data.get("mean_plies", 0.0))
        self.first_places: List[Dict[str, Any]] = [dict(f) for f in data.get("first_places", [])]
        self.time_per_move: Dict[str, float] = {
            k: float(v) for k, v in data.get("time_per_move", {}).items()
        }
        self.game_results: List[Dict[str, Any]] = [dict(g) for g in data.get("game_results", [])]

    @property
    def records(self) -> List[str]:
        """The game records, by game index (``awale.Game.from_record(text)`` replays one)."""
        return [g["record"] for g in self.game_results]

    def elo(self, name: str) -> Optional[float]:
        """The rating of agent ``name`` (None without ratings); KeyError for unknown names."""
        for r in self.ratings:
            if r["name"] == name:
                return None if r["elo"] is None else float(r["elo"])
        raise KeyError(f"no agent named {name!r} (agents: {', '.join(self.names)})")

    def table(self) -> str:
        """The standings, crosstable and likelihood of superiority as text (as the CLI prints)."""
        return str(self._data["table"])

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain JSON-able data (``TournamentResult.from_dict`` reads it back)."""
        d: Dict[str, Any] = json.loads(json.dumps(self._data))
        d["crosstable"] = self.crosstable.tolist()
        return d

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "TournamentResult":
        """A result from :meth:`to_dict`'s data (e.g. after ``json.dump`` / ``json.load``)."""
        return cls(data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TournamentResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        top = self.ratings[0] if self.ratings else None
        best = ""
        if top is not None:
            elo = "-" if top["elo"] is None else f"{top['elo']:.0f}"
            best = f"; top: {top['name']} (elo {elo})"
        return (
            f"<TournamentResult {self.format} under {self.rules}: {len(self.names)} agents, "
            f"{self.games}/{self.games_scheduled} games{best}>"
        )

    def __str__(self) -> str:
        return self.table()


def tournament(
    agents: Union[str, Sequence[AgentArg]],
    rules: Union[str, "_core.Rules"] = "abapa",
    games: int = 20,
    openings: int = 4,
    seed: int = 0,
    threads: int = 0,
    max_plies: int = 0,
    gauntlet: Optional[AgentArg] = None,
    anchor: Optional[str] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    obs: str = "compact",
    progress: Union[bool, Callable[[int, int], Any]] = False,
    *,
    anchor_rating: float = 0.0,
    limit: Optional[int] = None,
    shard: Optional[tuple[int, int]] = None,
    backend: str = "local",
    workers: Optional[int] = None,
) -> TournamentResult:
    """Plays a tournament between agents and rates them by Elo.

    Args:
        agents: a list of agents, each a spec string (``"random"``, ``"greedy"``,
            ``"alphabeta:depth=4"``, ``"mcts:sims=200"``; ``name=`` renames one), a Python agent
            (an object with ``select(state) -> house``, such as :class:`awale.Agent`,
            :class:`awale.SearchAgent` or :class:`awale.ObservationAgent`, named by its
            ``name`` attribute; or a function of an :class:`awale.State` returning a house,
            named ``"python_<i>"`` after its position), or a ``(name, agent)`` tuple; or one
            comma-separated spec string as the CLI takes. A Python agent is called by one
            thread at a time unless it has an attribute ``thread_safe = True``. A callable
            ``(observation, mask) -> house`` (two required parameters) still plays, with a
            ``DeprecationWarning``: wrap it in :class:`awale.ObservationAgent`.
        rules: a rules spec or ``awale.Rules`` (multi-player rules such as ``"oware3"`` work).
        games: games per pairing (best a multiple of 2, or of twice the number of players
            with 3 or more: each opening is played in every seat of both seating orders).
        openings: random plies of each opening (the same openings for every pairing).
        seed: the tournament seed: the same seed gives the same games.
        threads: worker threads (0: one per core); results do not depend on it.
        max_plies: cut games off after this many plies, scored by the stores (0: the rules').
        gauntlet: play only the pairings that include this agent (a listed agent's name, or an
            agent in any of the forms above, added first if new; an unnamed function is
            ``"python_gauntlet"``).
        anchor: the agent whose rating is fixed (default ``random`` if it plays, else the first).
        out: a folder for ``games.jsonl`` (every finished game, appended at once) and the result
            files; the same call again resumes, playing only the missing games.
        obs: the observation encoding given to deprecated ``(observation, mask)`` callables:
            ``"compact"``, ``"onehot[:L]"`` or ``"thermometer[:L]"`` (an
            :class:`awale.ObservationAgent` carries its own).
        progress: True for a progress bar (tqdm when installed, else a line on stderr), or a
            function ``(games_done, games_scheduled)`` called as games finish (``games_done``
            counts the games of earlier runs in ``out``). The function returning ``False``
            stops the run: the games in play are abandoned, the finished ones kept (and saved
            in ``out``), and the result so far is returned with ``stopped`` set; an exception
            it raises stops the run the same way and is raised.
        anchor_rating: the anchor's rating.
        limit: play at most this many new games in this call (resume later with ``out``).
        shard: ``(k, n)``: play only the games whose index is ``k`` modulo ``n`` (one machine's
            share); the ``games.jsonl`` of all ``n`` shards joined in one ``out`` folder resume
            into the whole tournament.
        backend: ``"local"`` (Rust threads) or ``"ray"``: the games are sharded over
            ``workers`` Ray tasks (default: the cluster's CPUs) across a Ray cluster (the
            one ``ray.init()`` connected to, or a local one), then joined; the result equals a
            local run's game for game. Needs ``pip install 'awale[ray]'``.
        workers: Ray tasks (shards) with ``backend="ray"``.

    Returns:
        a :class:`TournamentResult`.

    Raises:
        ValueError: a bad spec, rules, name or setting, an ``out`` folder that holds a different
            tournament, or an agent that returned an illegal house (the message names the
            agent, the game and the ply; with several failures, those of the failing game with
            the lowest index, whatever ``threads``).
        TypeError: arguments of the wrong type, or an agent that returned a non-int.
        RuntimeError: an agent raised; its exception is the ``__cause__``.

    Games run on Rust threads; Python agents are called with the GIL held, so they should be
    quick, and one call at a time per agent unless it declares ``thread_safe = True`` (set it
    only when concurrent calls cannot interfere, e.g. a pure function that releases the GIL).
    Results do not depend on ``threads`` as long as agents are pure functions of their
    arguments. Ctrl-C stops the tournament cleanly and raises ``KeyboardInterrupt`` (finished
    games stay in ``out``; the same call resumes).
    """
    run = dict(games=games, openings=openings, seed=seed, threads=threads, max_plies=max_plies)
    if _on_ray(backend, shard, limit, workers):
        from awale.distributed import ray_tournament

        return ray_tournament(
            agents, workers=workers, rules=rules, gauntlet=gauntlet, anchor=anchor, out=out,
            obs=obs, progress=progress, anchor_rating=anchor_rating, **run,
        )
    if isinstance(agents, (bytes, bytearray)):
        raise TypeError("agents must be a list of specs, agents or (name, agent) tuples")
    if not isinstance(agents, str):
        if not hasattr(agents, "__iter__"):
            raise TypeError(
                "agents must be a list of specs, agents or (name, agent) tuples, "
                f"got {type(agents).__name__}"
            )
        agents = list(agents)
    game_run = _game_run(run, limit, shard)
    if anchor is not None and not isinstance(anchor, str):
        raise TypeError(f"anchor must be an agent name (str), got {type(anchor).__name__}")
    if not isinstance(obs, str):
        raise TypeError(f"obs must be an encoding name (str), got {type(obs).__name__}")
    if isinstance(anchor_rating, bool) or not isinstance(anchor_rating, (int, float)):
        raise TypeError(f"anchor_rating must be a number, got {type(anchor_rating).__name__}")
    out = _folder_arg(out)
    with _progress(progress) as callback:
        text = _core.run_tournament(
            agents,
            rules=rules,
            run=game_run,
            gauntlet=gauntlet,
            anchor=anchor,
            anchor_rating=float(anchor_rating),
            out=out,
            obs=obs,
            progress=callback,
        )
    return TournamentResult(json.loads(text))

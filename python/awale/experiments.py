"""Experiments that decide: :func:`match` (two agents, a fixed number of games or fishtest's
sequential probability ratio test) and :func:`ladder` (the network generations of training
runs and anchor agents on one Elo scale), the same as ``awale match`` and ``awale ladder``.

Example::

    import awale

    # Is depth 4 at least 30 Elo stronger than depth 3? Stops as soon as the test knows.
    r = awale.match("alphabeta:depth=4", "alphabeta:depth=3",
                    sprt="elo0=0,elo1=30", games=2000, out="runs/d4-vs-d3")
    r.verdict        # "H1 accepted", "H0 accepted", "inconclusive" (reached games) ...
    r.llr, r.bounds  # the log-likelihood ratio and its (overshoot-corrected) bounds
    r.elo, r.elo_low, r.elo_high, r.los

    # Strength over a run (needs the extension built with the trainer):
    lad = awale.ladder(["runs/abapa"], anchors="alphabeta:depth=2,alphabeta:depth=4",
                       out="runs/abapa-ladder", plot="runs/abapa-ladder/ladder.png")
    lad.entries[0]   # {"run", "name", "iteration", "positions", "seconds", "elo", "low", ...}
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from awale import _core
from awale.tournament import _count, _folder_arg, _game_run, _on_ray, _progress

__all__ = ["match", "MatchResult", "ladder", "LadderResult"]


def _sprt_arg(sprt: Any) -> Optional[str]:
    """``sprt=``: None, a string ``"elo0=0,elo1=5[,alpha=..,beta=..,model=..]"``, a
    ``(elo0, elo1)`` pair, or a dict with those keys."""
    if sprt is None or isinstance(sprt, str):
        return sprt
    if isinstance(sprt, dict):
        return ",".join(f"{k}={v}" for k, v in sprt.items())
    if isinstance(sprt, (tuple, list)) and len(sprt) == 2:
        return f"elo0={sprt[0]},elo1={sprt[1]}"
    raise TypeError(
        "sprt must be 'elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]', an (elo0, elo1) pair or a "
        f"dict, got {type(sprt).__name__}"
    )


class MatchResult:
    """The outcome of :func:`match`; the statistics are the first agent's.

    Attributes:
        agents: the two names. verdict: ``"H1 accepted"`` / ``"H0 accepted"`` (an SPRT
        decided), ``"inconclusive"`` (an SPRT that reached ``games``), ``"complete"`` (a
        fixed-games match played out) or ``"in progress"`` (stopped or limited; resume with the
        same call). pairs, games: counted (two games per opening, pairs in index order up to
        the decision). pentanomial: counts of pairs worth 0, ½, 1, 1½, 2 points. wins, draws,
        losses, score. elo, elo_low, elo_high (95%), elo_error (half the interval), los.
        sprt (the settings as a dict, or None), llr, bounds. games_played (in the folder,
        counted or not), games_scheduled, rules, game_results (dicts with the records).
    """

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data
        self.agents: Tuple[str, str] = (data["agents"][0], data["agents"][1])
        self.rules: str = data["rules"]
        self.verdict: str = data["verdict"]
        self.pairs: int = int(data["pairs"])
        self.games: int = int(data["games"])
        self.pentanomial: List[int] = list(data["pentanomial"])
        self.wins: int = int(data["wins"])
        self.draws: int = int(data["draws"])
        self.losses: int = int(data["losses"])
        self.score: float = float(data["score"])
        e = data["elo"]
        self.elo: float = float(e["elo"])
        self.elo_low: float = float(e["low"])
        self.elo_high: float = float(e["high"])
        self.elo_error: float = float(e["error"])
        self.los: float = float(e["los"])
        self.sprt: Optional[Dict[str, Any]] = data.get("sprt")
        self.llr: Optional[float] = data.get("llr")
        b = data.get("bounds")
        self.bounds: Optional[Tuple[float, float]] = None if b is None else (b[0], b[1])
        self.games_played: int = int(data["games_played"])
        self.games_scheduled: int = int(data["games_scheduled"])
        self.game_results: List[Dict[str, Any]] = list(data.get("game_results", []))

    @property
    def decided(self) -> bool:
        """An SPRT accepted one of its hypotheses."""
        return self.verdict.endswith("accepted")

    def to_dict(self) -> Dict[str, Any]:
        """The report as a dict (as ``match.json``, plus the games)."""
        return dict(self._data)

    def __repr__(self) -> str:
        a, b = self.agents
        return (
            f"MatchResult({a} vs {b}: {self.verdict}, {self.games} games, "
            f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}])"
        )


def match(
    a: Any,
    b: Any,
    *,
    rules: Any = "abapa",
    sprt: Any = None,
    games: int = 1000,
    openings: int = 4,
    seed: int = 0,
    threads: int = 0,
    max_plies: int = 0,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    obs: str = "compact",
    limit: Optional[int] = None,
    shard: Optional[Tuple[int, int]] = None,
    progress: Any = False,
    backend: str = "local",
    workers: Optional[int] = None,
) -> MatchResult:
    """Plays ``a`` against ``b`` (specs, Python agents — an object with ``select(state)`` or a
    function of an :class:`awale.State` — or ``(name, agent)`` tuples, as in
    :func:`awale.tournament`) on paired openings: each opening twice with the
    seats swapped; statistics on pentanomial counts of pairs.

    Args:
        sprt: None for a fixed number of games (Elo, 95% interval, LOS); else the sequential
            test of fishtest, ``"elo0=0,elo1=5[,alpha=0.05,beta=0.05,model=logistic]"`` (or an
            ``(elo0, elo1)`` pair, or a dict), which stops as soon as it decides.
        games: games at most (even). out: a folder: every game is saved as it ends and the same
            call resumes. limit: play at most this many new games now. shard: ``(k, n)``, play
            only games ``k mod n``. backend: ``"local"`` or ``"ray"`` (``workers`` tasks; an SPRT
            plays in rounds and decides as a local match would).

    Raises:
        ValueError (``awale.TournamentError``): bad bounds, an odd ``games``, rules for more
            than two players, agents of other rules, a folder holding another match.
        TypeError: arguments of the wrong type.
    """
    sprt = _sprt_arg(sprt)
    run = dict(games=games, openings=openings, seed=seed, threads=threads, max_plies=max_plies)
    if _on_ray(backend, shard, limit, workers):
        from awale.distributed import ray_run

        return ray_run(
            "match", (a, b), workers=workers, rules=rules, sprt=sprt, out=out, obs=obs,
            progress=progress, **run,
        )
    game_run = _game_run(run, limit, shard)
    with _progress(progress, "match") as callback:
        text = _core.run_match(
            a,
            b,
            rules=rules,
            run=game_run,
            sprt=sprt,
            out=_folder_arg(out),
            obs=obs,
            progress=callback,
        )
    return MatchResult(json.loads(text))


class LadderResult:
    """The outcome of :func:`ladder`.

    Attributes:
        entries: one dict per player, the generations of each run by iteration then the
            anchors: ``run``, ``name``, ``spec``, ``iteration``, ``selfplay_games``,
            ``positions``, ``train_steps``, ``seconds`` (None for anchors), ``elo``, ``low``,
            ``high`` (95%), ``games``.
        pairings, games (played), games_scheduled, complete, stopped, out.
    """

    def __init__(self, data: Dict[str, Any], out: str) -> None:
        self.entries: List[Dict[str, Any]] = list(data["entries"])
        self.pairings: int = int(data["pairings"])
        self.games: int = int(data["games"])
        self.games_scheduled: int = int(data["games_scheduled"])
        self.complete: bool = bool(data["complete"])
        self.stopped: bool = bool(data["stopped"])
        self.out = out
        self._table: str = data["table"]

    def table(self) -> str:
        """The ladder as text (as the CLI prints)."""
        return self._table

    def runs(self) -> Dict[str, List[Dict[str, Any]]]:
        """The generations by run label."""
        out: Dict[str, List[Dict[str, Any]]] = {}
        for e in self.entries:
            if e["iteration"] is not None:
                out.setdefault(e["run"], []).append(e)
        return out

    def plot(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Draws Elo against iteration, wall time and self-play positions (one line per run,
        the anchors as dashed lines) into ``path`` (PNG, SVG, PDF: matplotlib's choice by the
        extension). Needs matplotlib (``pip install matplotlib``), which awale does not install."""
        _need_matplotlib()
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter

        ticks = FuncFormatter(lambda v, _pos: _tick_label(v))
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
        xs = [("iteration", "iteration"), ("seconds", "wall time (s)"),
              ("positions", "self-play positions")]
        anchors = [e for e in self.entries if e["iteration"] is None and e["elo"] is not None]
        for ax, (key, label) in zip(axes, xs):
            for run, gens in self.runs().items():
                pts = [(g[key], g["elo"], g["low"], g["high"]) for g in gens if g["elo"] is not None]
                if not pts:
                    continue
                x = [p[0] for p in pts]
                y = [p[1] for p in pts]
                line = ax.plot(x, y, marker="o", label=run)[0]
                ax.fill_between(x, [p[2] for p in pts], [p[3] for p in pts],
                                color=line.get_color(), alpha=0.15)
            for e in anchors:
                # Named in the right margin, clear of the curves.
                ax.axhline(e["elo"], color="grey", linestyle="--", linewidth=0.8)
                ax.annotate(e["name"], (1, e["elo"]), xycoords=("axes fraction", "data"),
                            xytext=(4, 0), textcoords="offset points", fontsize=8,
                            color="grey", ha="left", va="center", annotation_clip=False)
            ax.xaxis.set_major_formatter(ticks)
            ax.yaxis.set_major_formatter(ticks)
            ax.set_xlabel(label)
            ax.set_ylabel("Elo")
            ax.set_title(f"Elo against {label}")
            ax.grid(alpha=0.3)
        axes[0].legend(loc="lower right")
        fig.tight_layout(w_pad=6)
        fig.savefig(os.fspath(path), dpi=110, bbox_inches="tight")
        plt.close(fig)

    def __repr__(self) -> str:
        return (
            f"LadderResult({len(self.entries)} players, {self.pairings} pairings, "
            f"{self.games}/{self.games_scheduled} games)"
        )


def _need_matplotlib() -> None:
    """ImportError naming the package and the extra when matplotlib is missing (the ladder's
    ``plot=``; awale does not install it)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise ImportError(
            "the ladder's plot= (LadderResult.plot) draws with matplotlib, which is not "
            "installed: pip install matplotlib (or the extra: pip install \"awale[notebooks]\"); "
            "OUT/ladder.svg is drawn without it",
            name="matplotlib",
        )


def _tick_label(v: float) -> str:
    """An axis tick: an integer where the value is one (``1,000``, not ``1000.0``), thousands
    grouped below 10,000, then ``400k``, ``1.5M`` (as ``ladder.svg``'s)."""

    def trim(x: float) -> str:
        t = f"{x:.1f}"
        return t[:-2] if t.endswith(".0") else t

    a = abs(v)
    if a >= 1e6:
        return f"{trim(v / 1e6)}M"
    if a >= 1e4:
        return f"{trim(v / 1e3)}k"
    if abs(v - round(v)) > 1e-6 * max(a, 1.0):
        return f"{v:.3g}"  # a fraction (wall time of a short run): 0.25, 2.5
    return f"{int(round(v)):,}"


def ladder(
    runs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    *,
    out: Union[str, "os.PathLike[str]"],
    anchors: Union[str, Sequence[Any]] = (),
    games: int = 20,
    sims: int = 64,
    openings: int = 4,
    max_plies: int = 0,
    seed: int = 0,
    threads: int = 0,
    limit: Optional[int] = None,
    shard: Optional[Tuple[int, int]] = None,
    progress: Any = False,
    plot: Optional[Union[str, "os.PathLike[str]"]] = None,
    backend: str = "local",
    workers: Optional[int] = None,
) -> LadderResult:
    """Rates the network generations of one or more training runs (``awale train`` with
    ``checkpoint.generations_every``) and ``anchors`` (agent specs, or any agent a tournament
    takes: a Python agent plays under its name, one word; locally, not on Ray) on one Elo
    scale, as ``awale ladder``: each generation plays the next two of its run and every anchor, so the
    cost grows linearly with the generations. Resumable (``out``), on every core, or on Ray
    (``backend="ray"``). Writes ``ladder.csv``, ``ladder.json``, ``ladder.svg`` and
    TensorBoard scalars in ``out``; with ``plot=``, also a matplotlib picture there (needs
    matplotlib, which awale does not install: ``ImportError`` before any game without it).

    Needs the extension built with the trainer (``--features train``).

    Raises:
        ValueError (``awale.ConfigError``): a folder without generations, runs of different
            rules, a bad anchor spec, an odd ``games``.
        NotImplementedError: an extension built without the trainer.
        ImportError: ``plot=`` without matplotlib.
    """
    if plot is not None:
        _need_matplotlib()  # before the games, not after them
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    run_list = [_folder_arg(r, "a run") for r in runs]
    if not run_list:
        raise ValueError("ladder needs at least one run folder")
    anchor_list: Any = anchors if isinstance(anchors, str) else list(anchors)
    out_path = _folder_arg(out)
    run = dict(games=games, openings=openings, seed=seed, threads=threads, max_plies=max_plies)
    if _on_ray(backend, shard, limit, workers):
        from awale.distributed import ray_run

        if not isinstance(anchors, str):
            if not all(isinstance(a, str) for a in anchor_list):
                raise ValueError(
                    "a ladder on Ray takes anchors as spec strings: a Python agent plays "
                    "in the local backend only"
                )
            anchors = ",".join(anchor_list)

        result = ray_run(
            "ladder", (run_list,), workers=workers, out=out_path, anchors=anchors, sims=sims,
            progress=progress, **run,
        )
    else:
        game_run = _game_run(run, limit, shard)
        with _progress(progress, "ladder") as callback:
            text = _core.run_ladder(
                run_list,
                anchors=anchor_list,
                out=out_path,
                sims=_count("sims", sims, 1),
                run=game_run,
                progress=callback,
            )
        result = LadderResult(json.loads(text), str(out_path))
    if plot is not None:
        result.plot(plot)
    return result

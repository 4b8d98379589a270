"""Tournaments, matches and ladders on a Ray cluster (``backend="ray"`` of
:func:`awale.tournament`, :func:`awale.match` and :func:`awale.ladder`).

The schedule is cut into shards (game ``i`` goes to shard ``i mod n``); each Ray task plays
one shard with the Rust engine (``shard=(k, n)``) in a folder of its own and returns its
``games.jsonl`` lines; the driver joins them in one folder and resumes there, which loads every
game, plays none and writes the results. The games and the table are those of a local run with
the same seed (agents with a time limit aside). Games already in ``out`` are not played again: a
stopped Ray run resumes like a local one.

A match with a sequential test (``sprt=``) is played in rounds, as fishtest's workers play
batches: each round every task plays its next ``games_per_task`` games, the driver joins them
and asks the test, which counts complete pairs in index order (the same decision as a local
match), and stops at the first round that decides.

**Faults.** A task whose worker process or node dies is run again by Ray (up to
three times, ``TASK_RETRIES``; each shard's games depend only on the seed, so the rerun plays
the same games) and the results equal a local run's. A shard lost more often than that stops
the run with :class:`awale.TournamentError` naming it; the games already joined stay in
``out``, and the same call resumes from them. An agent that raises stops the run at once.

Needs ``pip install 'awale[ray]'``. The driver connects to the cluster ``ray.init()`` was
called for, or starts a local one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple

#: How many times Ray runs a shard's task again when its worker process or node dies.
TASK_RETRIES = 3


def _play_shard(
    call: str, args: Tuple[Any, ...], k: int, n: int, kwargs: dict, manifest: str, played: str
) -> str:
    """A Ray task: plays shard ``k`` of ``n`` of ``awale.<call>(*args, ...)`` (after the games
    in ``played``) in a folder of its own holding the driver's manifest, and returns the new
    ``games.jsonl`` lines."""
    import awale

    with tempfile.TemporaryDirectory() as d:
        Path(d, "tournament.json").write_text(manifest)
        Path(d, "games.jsonl").write_text(played)
        getattr(awale, call)(*args, out=d, shard=(k, n), **kwargs)
        text = Path(d, "games.jsonl").read_text()
    return text[len(played):]


def _lines(ray: Any, ref: Any, k: int, n: int, out: Any) -> str:
    """The games of shard ``k`` of ``n``; a shard whose workers kept dying stops the run with
    :class:`awale.TournamentError` (the games already joined stay in ``out``)."""
    from awale import _core

    lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError)
    try:
        text: str = ray.get(ref)
        return text
    except lost as e:
        first = (str(e).strip().splitlines() or [""])[0]
        keep = (f"the games already played are in {os.fspath(out)}, and the same call resumes "
                "from them" if out is not None else "give out= to keep the games played and "
                "resume from them")
        raise _core.TournamentError(
            f"shard {k} of {n}: its worker died {TASK_RETRIES + 1} times (last: "
            f"{type(e).__name__}: {first}); {keep}"
        ) from e


def ray_run(
    call: str,
    args: Tuple[Any, ...],
    *,
    workers: Optional[int] = None,
    out: Any = None,
    progress: Any = False,
    threads: int = 0,
    games_per_task: int = 16,
    **kwargs: Any,
):
    """The Ray backend of ``awale.<call>`` (``"tournament"``, ``"match"`` or ``"ladder"``):
    the same arguments (``args`` the positional ones), plus ``workers``."""
    try:
        import ray
    except ImportError:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'awale[ray]' (or pip install ray)"
        ) from None
    import awale

    fn = getattr(awale, call)
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        workers = max(1, int(ray.available_resources().get("CPU", 1)))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    folder = tempfile.TemporaryDirectory() if out is None else None
    d: str = folder.name if folder is not None else os.fspath(out)
    try:
        # Writes (or checks) the manifest and plays nothing: the games already there stay.
        fn(*args, out=d, limit=0, threads=1, **kwargs)
        jsonl = Path(d, "games.jsonl")
        played = jsonl.read_text() if jsonl.exists() else ""
        if played and not played.endswith("\n"):
            # A line torn by a crash: dropped (its game is played again), as a local run does.
            played = played[: played.rfind("\n") + 1]
            jsonl.write_text(played)
        # Run again when the worker dies (not when an agent raises: that would fail again).
        task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(
            _play_shard)
        # One thread per task: the tasks are the parallelism.
        shard_kwargs = dict(kwargs, threads=1)
        sequential = call == "match" and kwargs.get("sprt") is not None
        if sequential:
            shard_kwargs["limit"] = games_per_task
        manifest = Path(d, "tournament.json").read_text()
        while True:
            refs = [
                task.remote(call, args, k, workers, shard_kwargs, manifest, played)
                for k in range(workers)
            ]
            pending = list(refs)
            with jsonl.open("a") as f:
                while pending:
                    ready, pending = ray.wait(pending, num_returns=1)
                    f.write(_lines(ray, ready[0], refs.index(ready[0]), workers, out))
                    f.flush()
            if not sequential:
                break
            state = fn(*args, out=d, limit=0, threads=1, **kwargs)
            if state.verdict != "in progress" or state.games_played >= state.games_scheduled:
                break
            played = jsonl.read_text()
        return fn(*args, out=d, threads=threads, progress=False, **kwargs)
    finally:
        if folder is not None:
            folder.cleanup()


def ray_tournament(agents: Any, **kwargs: Any):
    """The Ray backend of :func:`awale.tournament` (same arguments, plus ``workers``)."""
    if not isinstance(agents, str):
        agents = list(agents)  # one pickled list for every task (the CLI's string form stays)
    return ray_run("tournament", (agents,), **kwargs)


__all__: Sequence[str] = ["ray_run", "ray_tournament"]

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

Needs ``pip install 'awale[ray]'``. The driver connects to the cluster ``ray.init()`` was
called for, or starts a local one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple


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
        task = ray.remote(num_cpus=1)(_play_shard)
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
                    f.write(ray.get(ready[0]))
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

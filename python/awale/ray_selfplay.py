"""The Rust self-play trainer on a Ray cluster: self-play workers as Ray actors, one learner.

The run's self-play is ``selfplay.threads`` *shards* (see ``awale::az::remote``). Each worker
actor (:class:`SelfPlayActor`, ``num_cpus`` = its shards) holds an
:class:`awale._core.SelfPlayWorker` for a contiguous range of shards. The learner actor runs
the trainer itself (:func:`awale.training.train`, the loop of ``awale train``) with a
:class:`RaySelfPlay` as its self-play: every iteration it puts the network's weights in Ray's
object store once, each worker plays its shards' share of the iteration's positions with them,
and the learner joins the reports in shard order, trains, evaluates and writes checkpoints,
TensorBoard logs and reports to ``out`` as a local run does. Before each checkpoint the workers'
games in progress are gathered into it.

Because each shard plays exactly what it would play in a local run, a Ray run with ``W``
workers of ``T`` threads makes, bit for bit, the run of ``awale train --threads W*T`` with the
same config: its checkpoint plays as ``nn:path=...`` and resumes with ``awale train`` (or on
Ray again, with any number of workers for the same shard count). The learner and the workers
alternate (self-play, then gradient steps), like the local trainer.

Needs Ray (``pip install 'awale[ray]'``) and an extension built with the trainer
(``awale.training.HAS_TRAINER``: the wheel has it) on every node.
The learner runs on the driver's node (so ``out`` is a folder there) unless it asks for a GPU
(``learner_gpus``), when it goes where Ray finds one and ``out`` should be on a shared file
system. See ``docs/scaling.md`` and ``training/ray_selfplay.py``.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from awale import _core


class SelfPlayActor:
    """A Ray actor (made by :func:`train_on_ray` with ``ray.remote``) playing some shards."""

    def __init__(self, config: str, shards: Tuple[int, int]) -> None:
        self.worker = _core.SelfPlayWorker(config, shards)

    def start(self, games: bytes) -> None:
        self.worker.start(games)

    def play(self, weights: bytes, version: int, positions: int) -> bytes:
        return self.worker.play(weights, version, positions)

    def games(self) -> bytes:
        return self.worker.games()


class RaySelfPlay:
    """The learner's view of the worker actors (the ``selfplay=`` of
    :func:`awale.training.train`): ``submit`` puts the weights in the object store once and
    starts every worker's share of an iteration; ``collect`` waits for them and returns their
    reports in shard order."""

    def __init__(self, workers: Sequence[Any]) -> None:
        self.workers = list(workers)
        self.pending: Optional[List[Any]] = None

    def start(self, games: bytes) -> None:
        import ray

        ref = ray.put(games)
        ray.get([w.start.remote(ref) for w in self.workers])

    def submit(self, weights: bytes, version: int, positions: int) -> None:
        import ray

        ref = ray.put(weights)
        self.pending = [w.play.remote(ref, version, positions) for w in self.workers]

    def collect(self) -> List[bytes]:
        import ray

        pending, self.pending = self.pending, None
        if pending is None:
            raise RuntimeError("collect() without submit()")
        return ray.get(pending)

    def games(self) -> List[bytes]:
        import ray

        return ray.get([w.games.remote() for w in self.workers])


class Learner:
    """A Ray actor (made by :func:`train_on_ray`) running the trainer with Ray workers."""

    def run(self, config: str, out: str, workers: Sequence[Any], fresh: bool,
            final_eval: bool) -> dict:
        summary = _core.train(
            config, out, fresh=fresh, progress=False, final_eval=final_eval,
            selfplay=RaySelfPlay(workers),
        )
        summary["checkpoint"] = os.fspath(summary["checkpoint"])
        return summary


def train_on_ray(
    config: Optional[str] = None,
    out: Optional[str] = None,
    *,
    workers: Optional[int] = None,
    threads_per_worker: int = 1,
    overrides: Iterable[str] = (),
    fresh: bool = False,
    final_eval: bool = True,
    learner_cpus: float = 0,
    learner_gpus: float = 0,
) -> dict:
    """Trains with self-play workers on Ray (see the module docs) and returns the summary of
    :func:`awale.training.train`.

    Args:
        config: a training config file (TOML), or None for the built-in tiny config.
        out: the run's folder on the learner's node (default ``runs/NAME``); a checkpoint
            there is resumed unless ``fresh``.
        workers: worker actors (default: the cluster's CPUs over ``threads_per_worker``).
        threads_per_worker: shards, and threads, of each worker. The run has
            ``workers * threads_per_worker`` shards (``selfplay.threads``), which fixes its
            games: the same config and shard count give the same run.
        overrides: ``"section.key=value"`` settings, as ``awale train --set``.
        fresh: start over even if ``out`` has a checkpoint.
        final_eval: play the config's final evaluation at the end (on the learner).
        learner_cpus: CPUs Ray reserves for the learner (default 0: it trains while the
            workers wait, and waits while they play).
        learner_gpus: GPUs for the learner (its extension must be built with ``train-cuda``).

    Raises:
        ImportError: Ray is not installed.
        NotImplementedError: the extension has no trainer.
        ValueError: a bad config or argument (:class:`awale.ConfigError`).
    """
    try:
        import ray
    except ImportError:
        raise ImportError(
            "train_on_ray needs Ray: pip install 'awale[ray]' (or pip install ray)"
        ) from None
    if not _core.HAS_TRAINER:
        raise NotImplementedError(
            "this build of awale has no trainer (burn): build the extension with the `train` "
            "feature (maturin build --release --features python,cli,train) on every node; see "
            "docs/scaling.md"
        )
    for name, v in (("threads_per_worker", threads_per_worker), ("workers", workers)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise _core.ConfigError(f"{name} must be a positive int, got {v!r}")
    for name, f in (("learner_cpus", learner_cpus), ("learner_gpus", learner_gpus)):
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not f >= 0:
            raise _core.ConfigError(f"{name} must be a number >= 0, got {f!r}")
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        workers = max(1, cpus // threads_per_worker)
    shards = workers * threads_per_worker
    have = ray.cluster_resources().get("CPU", 0)
    if shards + learner_cpus > have:
        # Every actor must start before the first iteration: on a fixed cluster this waits
        # forever; an autoscaling one starts them as its nodes join.
        warnings.warn(
            f"{workers} workers of {threads_per_worker} threads and a learner of "
            f"{learner_cpus} CPUs need {shards + learner_cpus:g} CPUs; the cluster has "
            f"{have:g} now, so the run waits until nodes join",
            RuntimeWarning,
            stacklevel=2,
        )
    text = _core.train_config(
        None if config is None else os.fspath(config),
        [*overrides, f"selfplay.threads={shards}"],
    )
    # The learner's folder as an absolute path (a Ray actor's working folder is not the
    # driver's): runs/NAME by default, as for `awale train`.
    if out is None:
        out = _core.default_run_folder(text)
    out = os.path.abspath(os.fspath(out))
    actor = ray.remote(num_cpus=threads_per_worker)(SelfPlayActor)
    handles: List[Any] = [
        actor.remote(text, _core.worker_shards(k, workers, shards)) for k in range(workers)
    ]
    options: dict = {"num_cpus": learner_cpus, "num_gpus": learner_gpus}
    if not learner_gpus:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.get_runtime_context().get_node_id()
        options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(here, soft=False)
    learner: Any = ray.remote(Learner).options(**options).remote()
    try:
        summary: dict = ray.get(learner.run.remote(text, out, handles, fresh, final_eval))
        return summary
    finally:
        for h in [learner, *handles]:
            ray.kill(h)


__all__: Sequence[str] = ["Learner", "RaySelfPlay", "SelfPlayActor", "train_on_ray"]

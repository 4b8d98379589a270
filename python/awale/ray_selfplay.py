"""The Rust self-play trainer on a Ray cluster: self-play workers as Ray actors, one learner,
and a run that survives the loss of workers and nodes.

The run's self-play is ``selfplay.threads`` *shards* (see ``awale::az::remote``), dealt to
``workers`` fixed *parts* (contiguous shard ranges). Each worker actor (:class:`SelfPlayActor`,
``num_cpus`` = its shards) holds an :class:`awale._core.SelfPlayWorker` per part it plays. The
learner actor runs the trainer itself (:func:`awale.training.train`, the loop of ``awale
train``) with a :class:`RaySelfPlay` as its self-play: every iteration it puts the network's
weights in Ray's object store once, each part plays its share of the iteration's positions with
them, and the learner joins the reports in shard order, trains, evaluates and writes
checkpoints, TensorBoard logs and reports to ``out`` as a local run does.

Because each shard plays exactly what it would play in a local run, a Ray run with ``W``
workers of ``T`` threads makes, bit for bit, the run of ``awale train --threads W*T`` with the
same config: its checkpoint plays as ``nn:path=...`` and resumes with ``awale train`` (or on
Ray again, with any number of workers for the same shard count). The learner and the workers
alternate (self-play, then gradient steps), like the local trainer.

**Faults.** With every report a part also sends its games in progress, which the learner keeps:
a shard's games depend only on them and the weights, so a part whose worker dies (its process
killed, its node gone) is started again from them on a new actor (or, when the cluster has no
room for one, on the surviving worker with the fewest parts) and replays the lost iteration
exactly; the run ends with the network, replay buffer and counters of the undisturbed run.
A part that fails ``max_failures`` times in a row, or a run with no worker left, stops with
:class:`awale.TrainingError` after saving the run as it stood after the last complete
iteration (the same command resumes it). A worker that raises (a bug, bad weights) stops the
run with that exception: replaying it would fail again. A learner that dies is started again
(``learner_restarts``) and resumes from the last checkpoint in ``out``. See docs/scaling.md.

Needs Ray (``pip install 'awale[ray]'``) and an extension built with the trainer
(``awale.training.HAS_TRAINER``: the wheel has it) on every node.
The learner runs on the driver's node (so ``out`` is a folder there) unless it asks for a GPU
(``learner_gpus``), when it goes where Ray finds one and ``out`` should be on a shared file
system. See ``docs/scaling.md`` and ``awale.recipes.ray_selfplay``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Type

from awale import _core

#: Seconds a lost worker's replacement waits for Ray to show the CPU its death freed (Ray's
#: resource view lags a death by a moment); without room by then, a survivor takes its parts.
ROOM_WAIT = 2.0

def _lost_errors() -> Tuple[Type[BaseException], ...]:
    """The errors that mean a worker (its process or its node) is gone, not that it failed:
    its part is started again elsewhere and replays. Anything else a worker raises stops the
    run."""
    import ray.exceptions as rx

    return (rx.RayActorError, rx.ObjectLostError, rx.NodeDiedError, rx.WorkerCrashedError)


class SelfPlayActor:
    """A Ray actor (made by :func:`train_on_ray` with ``ray.remote``) playing parts of a run's
    self-play: one :class:`awale._core.SelfPlayWorker` per part (a shard range) it was given."""

    def __init__(self, config: str) -> None:
        self.config = config
        self.parts: Dict[int, Any] = {}

    def pid(self) -> int:
        """The actor's process id (it answers once it has started)."""
        return os.getpid()

    def take(self, part: int, shards: Tuple[int, int], games: bytes) -> bytes:
        """Plays part ``part`` (shards ``shards``) from now on, from ``games`` (the run's games
        in progress, or the part's own); returns the part's games in progress."""
        worker = _core.SelfPlayWorker(self.config, (int(shards[0]), int(shards[1])))
        worker.start(games)
        self.parts[part] = worker
        return worker.games()

    def play(self, part: int, weights: bytes, version: int, positions: int,
             restore: Optional[Tuple[Tuple[int, int], bytes]] = None
             ) -> Tuple[bytes, bytes, float]:
        """Plays part ``part``'s share of ``positions`` (first taking it, ``restore = (shards,
        games)``, when it comes from a lost worker); returns its report, its games in progress
        after it (what the learner keeps to replay the part elsewhere) and the seconds it took
        here."""
        t0 = time.perf_counter()
        if restore is not None:
            self.take(part, *restore)
        worker = self.parts[part]
        report = worker.play(weights, version, positions)
        return report, worker.games(), time.perf_counter() - t0


class RaySelfPlay:
    """The learner's view of the workers (the ``selfplay=`` of :func:`awale.training.train`):
    ``submit`` puts the weights in the object store once and starts every part's share of an
    iteration; ``collect`` waits for them and returns their reports in shard order, replaying
    on another actor any part whose worker was lost; ``games`` returns the games in progress the
    learner holds (each part's, after the last iteration collected).

    Args:
        config: the run's config (TOML text).
        parts: the shard ranges, one per part, in shard order.
        actors: the worker actors, actor ``k`` playing part ``k`` at the start.
        make_actor: starts a new worker actor (a replacement).
        max_failures: how many times in a row one part may be lost before the run stops.
        restart_timeout: seconds a replacement actor may take to start when no worker
            survives (at most 5 while one does: the part then goes to a survivor).
    """

    def __init__(
        self,
        config: str,
        parts: Sequence[Tuple[int, int]],
        actors: Sequence[Any],
        make_actor: Callable[[], Any],
        *,
        max_failures: int = 3,
        restart_timeout: float = 30.0,
    ) -> None:
        if len(parts) != len(actors):
            raise ValueError(f"{len(parts)} parts for {len(actors)} actors")
        self.config = config
        self.parts = [tuple(p) for p in parts]
        self.owner: List[Any] = list(actors)
        self.make_actor = make_actor
        self.max_failures = max_failures
        self.restart_timeout = restart_timeout
        #: Each part's games in progress after the last iteration collected.
        self.held: List[Optional[bytes]] = [None] * len(parts)
        #: The run's games in progress of this session's start (a part not yet held starts
        #: from them).
        self.origin: Any = None
        #: (weights ref, version, positions) of the iteration submitted and not collected.
        self.pending: Optional[Tuple[Any, int, int]] = None
        self.refs: Dict[int, Any] = {}
        #: One entry per lost part: what happened and where it went.
        self.failures: List[dict] = []
        self.dead: set = set()
        #: Totals over the iterations collected: the bytes that crossed (weights out, reports
        #: and games in progress back), the seconds of ``ray.put``, of each round from submit to
        #: the last report, and of its slowest part's self-play on its worker (the difference
        #: is Ray's cost and the wait for results).
        self.traffic: Dict[str, float] = dict.fromkeys(
            ("iterations", "weights_bytes", "report_bytes", "games_bytes", "put_secs",
             "round_secs", "slowest_part_secs"), 0)
        self.submitted = 0.0

    # -- the protocol of awale::az::remote::RemoteSelfPlay ------------------------------------

    def start(self, games: bytes) -> None:
        import ray

        self.origin = ray.put(games)
        self.held = [None] * len(self.parts)
        for k, games_k in self._each(self._take_call).items():
            self.held[k] = games_k

    def submit(self, weights: bytes, version: int, positions: int) -> None:
        import ray

        t0 = time.perf_counter()
        self.pending = (ray.put(weights), version, positions)
        self.traffic["put_secs"] += time.perf_counter() - t0
        self.traffic["weights_bytes"] += len(weights)
        self.submitted = time.perf_counter()
        self.refs = {k: self._play_call(k, self.owner[k]) for k in range(len(self.parts))}

    def collect(self) -> List[bytes]:
        if self.pending is None:
            raise RuntimeError("collect() without submit()")
        try:
            done = self._each(self._play_call, self.refs)
        finally:
            self.pending, self.refs = None, {}
        reports = []
        t = self.traffic
        t["iterations"] += 1
        t["round_secs"] += time.perf_counter() - self.submitted
        t["slowest_part_secs"] += max(secs for _, _, secs in done.values())
        for k in range(len(self.parts)):
            report, games, _ = done[k]
            reports.append(report)
            self.held[k] = games
            t["report_bytes"] += len(report)
            t["games_bytes"] += len(games)
        return reports

    def games(self) -> List[bytes]:
        missing = [self.parts[k] for k, g in enumerate(self.held) if g is None]
        if missing:
            raise RuntimeError(f"no games in progress held for shards {missing}")
        return list(self.held)  # type: ignore[arg-type]

    # -- faults --------------------------------------------------------------------------------

    def _source(self, k: int) -> Any:
        """What part ``k`` starts from: its games held, or the session's."""
        return self.held[k] if self.held[k] is not None else self.origin

    def _take_call(self, k: int, actor: Any, restore: bool = False) -> Any:
        return actor.take.remote(k, self.parts[k], self._source(k))

    def _play_call(self, k: int, actor: Any, restore: bool = False) -> Any:
        assert self.pending is not None
        weights, version, positions = self.pending
        again = (self.parts[k], self._source(k)) if restore else None
        return actor.play.remote(k, weights, version, positions, again)

    def _each(self, call: Callable[..., Any],
              refs: Optional[Dict[int, Any]] = None) -> Dict[int, Any]:
        """Every part's result of ``call(k, actor, restore)`` (already started in ``refs``),
        each lost part started again on another actor (``restore=True``) and called again."""
        import ray

        refs = dict(refs) if refs else {k: call(k, self.owner[k]) for k in range(len(self.parts))}
        results: Dict[int, Any] = {}
        lost_in_a_row = [0] * len(self.parts)
        started: Dict[int, Tuple[float, dict]] = {}
        while refs:
            by_ref = {r: k for k, r in refs.items()}
            ready, _ = ray.wait(list(refs.values()), num_returns=1)
            k = by_ref[ready[0]]
            del refs[k]
            try:
                results[k] = ray.get(ready[0])
                if k in started:
                    t0, entry = started.pop(k)
                    entry["replay_secs"] = round(time.monotonic() - t0, 3)
            except _lost_errors() as e:
                lost_in_a_row[k] += 1
                t0 = time.monotonic()
                actor = self._relocate(k, e, lost_in_a_row[k])
                started[k] = (t0, self.failures[-1])
                refs[k] = call(k, actor, True)
        return results

    def _relocate(self, k: int, error: BaseException, times: int) -> Any:
        """The actor that plays part ``k`` from now on, its worker lost: a new one when the
        cluster has room for it, else the surviving worker with the fewest parts."""
        import ray

        a, b = self.parts[k]
        text = str(error).strip().splitlines()
        what = f"{type(error).__name__}" + (f": {text[0]}" if text else "")
        if times > self.max_failures:
            raise _core.TrainingError(
                f"the self-play of shards {a}..{b} was lost {times} times in a row (last: "
                f"{what}); the run stops (max_failures={self.max_failures})"
            )
        self.dead.add(self.owner[k]._actor_id.hex())
        ray.kill(self.owner[k])  # if only unreachable, it must not come back holding shards
        entry: dict = {"part": k, "shards": (a, b), "error": what, "attempt": times}
        self.failures.append(entry)
        alive = self._survivors()
        # A new actor when the cluster has room for one (its CPUs came back, a node joined);
        # with no survivor, one is tried anyway (Ray's view of free CPUs lags a death), for up
        # to restart_timeout seconds. With survivors, it gets 5 s at most: Ray may place it on
        # a node just lost and not yet known dead, and a survivor can take the part meanwhile.
        actor = self._new_actor(must=not alive)
        wait = self.restart_timeout if not alive else min(self.restart_timeout, 5.0)
        if actor is not None:
            try:
                ray.get(actor.pid.remote(), timeout=wait)
                entry["to"] = "a new worker"
            except Exception:  # it did not start in time (or died): a survivor takes the part
                ray.kill(actor)
                actor = None
        if actor is None:
            alive = self._survivors()
            if not alive:
                raise _core.TrainingError(
                    f"no self-play worker left for shards {a}..{b} (last loss: {what}), and "
                    f"none could be started within {self.restart_timeout:g} s; the run stops"
                )
            actor = alive[0]
            entry["to"] = "a surviving worker"
        self.owner[k] = actor
        print(f"awale: the self-play of shards {a}..{b} was lost ({what}); replayed on "
              f"{entry['to']}", file=sys.stderr, flush=True)
        return actor

    def _new_actor(self, must: bool = False) -> Any:
        """A new worker actor, or None when the cluster shows no room for one (unless
        ``must``). Ray's view of free CPUs lags a death (the killed worker's CPU shows free a
        moment later): the room is looked for during ``ROOM_WAIT`` seconds."""
        import ray

        try:
            need = float(getattr(self.make_actor, "cpus", 1))
            if not must:
                deadline = time.monotonic() + ROOM_WAIT
                while ray.available_resources().get("CPU", 0) < need:
                    if time.monotonic() >= deadline:
                        return None
                    time.sleep(0.05)
            return self.make_actor()
        except Exception:
            return None

    def _survivors(self) -> List[Any]:
        """The live workers, fewest parts first."""
        seen: Dict[str, Tuple[int, Any]] = {}
        for actor in self.owner:
            key = actor._actor_id.hex()
            if key not in self.dead:
                n, _ = seen.get(key, (0, actor))
                seen[key] = (n + 1, actor)
        return [a for _, a in sorted(seen.values(), key=lambda x: x[0])]


class Learner:
    """A Ray actor (made by :func:`train_on_ray`) running the trainer with Ray workers."""

    def run(self, config: str, out: str, workers: Sequence[Any], fresh: bool,
            final_eval: bool, threads_per_worker: int = 1, max_failures: int = 3,
            restart_timeout: float = 30.0) -> dict:
        shards = len(workers) * threads_per_worker
        parts = [_core.worker_shards(k, len(workers), shards) for k in range(len(workers))]
        selfplay = RaySelfPlay(config, parts, workers,
                               _actor_factory(config, threads_per_worker),
                               max_failures=max_failures, restart_timeout=restart_timeout)
        summary = _core.train(
            config, out, fresh=fresh, progress=False, final_eval=final_eval,
            selfplay=selfplay,
        )
        summary["checkpoint"] = os.fspath(summary["checkpoint"])
        summary["worker_failures"] = selfplay.failures
        summary["ray_traffic"] = selfplay.traffic
        return summary


def _actor_factory(config: str, threads_per_worker: int) -> Callable[[], Any]:
    """Starts a worker actor of ``threads_per_worker`` CPUs for ``config``."""
    import ray

    actor_class = ray.remote(num_cpus=threads_per_worker, max_restarts=0)(SelfPlayActor)

    def make() -> Any:
        return actor_class.remote(config)

    make.cpus = threads_per_worker  # type: ignore[attr-defined]
    return make


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
    max_failures: int = 3,
    restart_timeout: float = 30.0,
    learner_restarts: int = 1,
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
        max_failures: how many times in a row the same part (a worker's shards) may be lost
            before the run stops (each loss is replayed on another actor).
        restart_timeout: seconds a replacement worker may take to start when no worker
            survives, before the run stops (at most 5 s while one does: its shards then go to
            a surviving worker).
        learner_restarts: how many times a learner that dies is started again; it resumes from
            the last checkpoint in ``out`` (what it did since is played again, the same way).

    The summary has ``worker_failures``: one entry per lost part (its shards, the error, where
    it was replayed and how long that took). ``learner_restarts`` counts the learner's restarts.

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
    for name, v, least in (("threads_per_worker", threads_per_worker, 1),
                           ("workers", workers, 1), ("max_failures", max_failures, 1),
                           ("learner_restarts", learner_restarts, 0)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < least):
            raise _core.ConfigError(f"{name} must be an int >= {least}, got {v!r}")
    for name, f in (("learner_cpus", learner_cpus), ("learner_gpus", learner_gpus),
                    ("restart_timeout", restart_timeout)):
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
    make = _actor_factory(text, threads_per_worker)
    handles: List[Any] = [make() for _ in range(workers)]
    options: dict = {"num_cpus": learner_cpus, "num_gpus": learner_gpus, "max_restarts": 0}
    if not learner_gpus:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.get_runtime_context().get_node_id()
        options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(here, soft=False)
    ckpt = os.path.join(out, "checkpoint.ckpt")
    before = _stamp(ckpt)
    restarts = 0
    learners: List[Any] = []
    try:
        while True:
            learner: Any = ray.remote(Learner).options(**options).remote()
            learners.append(learner)
            try:
                summary: dict = ray.get(learner.run.remote(
                    text, out, handles, fresh, final_eval, threads_per_worker, max_failures,
                    restart_timeout))
            except ray.exceptions.RayActorError as e:
                if restarts >= learner_restarts:
                    raise _core.TrainingError(
                        f"the learner died {restarts + 1} times (last: {e}); the last "
                        f"checkpoint in {out} holds the run (the same call resumes it)"
                    ) from e
                restarts += 1
                # It resumes from the checkpoint it wrote; a fresh run that wrote none yet
                # starts over again.
                fresh = fresh and _stamp(ckpt) == before
                warnings.warn(f"the learner died ({str(e).splitlines()[0]}); started again, "
                              f"from {'the start' if fresh else ckpt}", RuntimeWarning,
                              stacklevel=2)
                continue
            summary["learner_restarts"] = restarts
            return summary
    finally:
        for h in [*learners, *handles]:
            ray.kill(h)


def _stamp(path: str) -> Optional[Tuple[int, int]]:
    """A file's modification time and size (None when it does not exist)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size)


__all__: Sequence[str] = ["Learner", "RaySelfPlay", "SelfPlayActor", "train_on_ray"]

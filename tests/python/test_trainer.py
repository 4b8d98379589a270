"""The Rust self-play trainer from Python and its self-play on Ray (issue 15).

Every build: ``train_config``, ``worker_shards`` and ``checkpoint_info`` work and refuse bad
input with the reason; without the trainer, ``train`` and ``SelfPlayWorker`` say how to get it.

A build with the trainer (``HAS_TRAINER``: the wheel has it; CI sets ``AWALE_TRAINER=1``, so a
missing trainer or Ray fails instead of skipping): a two-worker Ray run on a local instance (``ray.init(num_cpus=2)``) makes
exactly the checkpoint of a local two-thread run, the ``nn`` agent plays from it, ``awale
train`` resumes it, and bad workers are refused with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import awale
from awale import _core
from awale.training import HAS_TRAINER, checkpoint_info, train, train_config, worker_shards

WANT_TRAINER = os.environ.get("AWALE_TRAINER") == "1"

#: A run of a few seconds: a small network, short searches, two iterations, no evaluation.
MICRO = [
    "network.hidden=[32]",
    "network.observation=compact",
    "search.sims=8",
    "search.fast_sims=2",
    "selfplay.concurrent_games=8",
    "selfplay.positions_per_iteration=48",
    "selfplay.max_plies=120",
    "training.iterations=2",
    "training.batch_size=16",
    "training.steps_per_iteration=3",
    "training.min_replay=16",
    "training.warmup_steps=2",
    "eval.opponents=[]",
    "checkpoint.every=1",
]

needs_trainer = pytest.mark.skipif(
    not HAS_TRAINER and not WANT_TRAINER,
    reason="needs an extension built with the trainer (maturin build --features python,cli,train)",
)


def test_the_trainer_is_there_when_ci_says_so():
    if WANT_TRAINER:
        assert HAS_TRAINER, "AWALE_TRAINER=1 but this extension was built without `train`"


def test_train_config_applies_overrides_and_refuses_bad_ones(tmp_path):
    text = train_config(None, ["training.iterations=3", "selfplay.threads=4"])
    assert 'name = "tiny"' in text and "iterations = 3" in text and "threads = 4" in text
    # A file, then a key that does not exist, a bad value and a missing file.
    path = tmp_path / "c.toml"
    path.write_text(text)
    assert train_config(str(path)) == text
    with pytest.raises(awale.ConfigError, match="nope"):
        train_config(None, ["training.nope=1"])
    with pytest.raises(awale.ConfigError):
        train_config(None, ["training.iterations=-3"])
    with pytest.raises(awale.ConfigError, match="KEY=VALUE"):
        train_config(None, ["training.iterations"])
    with pytest.raises(OSError, match="missing.toml"):
        train_config(str(tmp_path / "missing.toml"))
    # A built-in recipe by name, as `awale train --config abapa` (the wheel has no training/).
    recipe = Path(__file__).resolve().parents[2] / "training" / "abapa.toml"
    assert train_config("abapa") == train_config(str(recipe))
    assert 'name = "abapa"' in train_config("abapa", ["training.iterations=3"])
    # Where a run goes by default, as `awale train`: runs/NAME.
    assert Path(_core.default_run_folder(text)) == Path("runs") / "tiny"
    assert Path(_core.default_run_folder(train_config(None, ["name=other"]))) == Path("runs/other")


def test_worker_shards_deal_contiguous_ranges():
    assert [worker_shards(k, 3, 8) for k in range(3)] == [(0, 3), (3, 6), (6, 8)]
    for bad in [(3, 3, 8), (0, 0, 8), (0, 4, 3)]:
        with pytest.raises(awale.ConfigError, match="worker"):
            worker_shards(*bad)


def test_checkpoint_info_refuses_what_is_not_a_checkpoint(tmp_path):
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"PK\x03\x04 not a checkpoint at all")
    with pytest.raises(awale.TrainingError, match="not an awale checkpoint"):
        checkpoint_info(junk)
    with pytest.raises(OSError):
        checkpoint_info(tmp_path / "missing.ckpt")


@pytest.mark.skipif(HAS_TRAINER, reason="this build has the trainer")
def test_without_the_trainer_train_says_how_to_get_it(tmp_path):
    with pytest.raises(NotImplementedError, match="features python,cli,train"):
        train(None, tmp_path / "run", overrides=MICRO)
    text = train_config(None, ["selfplay.threads=2"])
    with pytest.raises(NotImplementedError, match="features python,cli,train"):
        _core.SelfPlayWorker(text, (0, 1))


@needs_trainer
def test_a_worker_refuses_bad_shards_and_bad_weights():
    text = train_config(None, [*MICRO, "selfplay.threads=2"])
    with pytest.raises(awale.ConfigError, match="shards"):
        _core.SelfPlayWorker(text, (1, 3))
    with pytest.raises(awale.ConfigError, match="selfplay.threads"):
        _core.SelfPlayWorker(train_config(None, MICRO), (0, 1))
    w = _core.SelfPlayWorker(text, (0, 1))
    assert w.shards == (0, 1)
    with pytest.raises(awale.TrainingError):
        w.play(b"not a network", 0, 8)
    with pytest.raises(awale.TrainingError):
        w.start(b"junk")
    with pytest.raises(TypeError):
        w.play("a str is not bytes", 0, 8)


class _Broken:
    """Self-play workers that answer wrongly."""

    def __init__(self, answer):
        self.answer = answer

    def start(self, games):
        pass

    def submit(self, weights, version, positions):
        pass

    def collect(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def games(self):
        return []


@needs_trainer
def test_a_run_with_bad_workers_stops_with_the_reason(tmp_path):
    cfg = train_config(None, [*MICRO, "selfplay.threads=2"])
    with pytest.raises(TypeError, match="list of bytes"):
        _core.train(cfg, str(tmp_path / "a"), selfplay=_Broken(["not bytes"]))
    with pytest.raises(awale.TrainingError, match="bad magic"):
        _core.train(cfg, str(tmp_path / "b"), selfplay=_Broken([b"junk"]))
    with pytest.raises(awale.TrainingError, match="shards 0..0 of 2"):
        _core.train(cfg, str(tmp_path / "c"), selfplay=_Broken([]))
    with pytest.raises(KeyError, match="a worker died"):
        _core.train(cfg, str(tmp_path / "d"), selfplay=_Broken(KeyError("a worker died")))
    with pytest.raises(awale.ConfigError, match="selfplay.threads"):
        _core.train(train_config(None, MICRO), str(tmp_path / "e"), selfplay=_Broken([]))
    # Nothing was written past the folder's config: no checkpoint of a run that did not train.
    assert not (tmp_path / "b" / "checkpoint.ckpt").exists()


def _same_run(a: dict, b: dict) -> None:
    # Every part, the optimiser's state too (its CRC is over its contents in name order: burn
    # writes the record's map in hash order).
    for k in ("model_crc32", "optimizer_crc32", "replay_crc32", "selfplay_crc32", "rng_crc32",
              "iteration", "train_steps", "games", "positions", "moves", "fingerprint"):
        assert a[k] == b[k], k


@needs_trainer
def test_ray_self_play_makes_the_local_runs_checkpoint_and_it_plays_and_resumes(ray, tmp_path):
    from awale.ray_selfplay import train_on_ray

    summary = train_on_ray(None, str(tmp_path / "ray"), workers=2, threads_per_worker=1,
                           overrides=MICRO, final_eval=False)
    assert summary["iterations"] == 2 and summary["positions"] >= 96 and not summary["resumed"]
    ckpt = tmp_path / "ray" / "checkpoint.ckpt"
    assert Path(summary["checkpoint"]) == ckpt
    info = checkpoint_info(ckpt)
    assert info["selfplay_threads"] == 2
    # The same run, bit for bit, as a local run with two threads.
    local = train(None, tmp_path / "local", overrides=[*MICRO, "selfplay.threads=2"],
                  final_eval=False)
    assert local["iterations"] == 2
    _same_run(info, checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))
    # TensorBoard logs and the run's config are in the folder, as for `awale train`.
    assert (tmp_path / "ray" / "config.toml").exists()
    assert any(p.name.startswith("events.out.tfevents") for p in (tmp_path / "ray").rglob("*"))

    # The network plays as an `nn` agent.
    result = awale.tournament([f"nn:path={ckpt},sims=4", "random"], games=2, seed=1)
    assert result.games == 2

    # `awale train` resumes it (one more iteration), like the local run's checkpoint.
    cli = [sys.executable, "-m", "awale", "train", "--no-progress", "--no-eval",
           "--config", str(tmp_path / "ray" / "config.toml"), "--out"]
    for folder in ("ray", "local"):
        done = subprocess.run([*cli, str(tmp_path / folder), "--set", "training.iterations=3"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    a, b = (checkpoint_info(tmp_path / f / "checkpoint.ckpt") for f in ("ray", "local"))
    assert a["iteration"] == 3
    _same_run(a, b)

    # And on Ray again, with one worker of two threads (the same two shards): one more
    # iteration, still the local run.
    train_on_ray(None, str(tmp_path / "ray"), workers=1, threads_per_worker=2,
                 overrides=[*MICRO, "training.iterations=4"], final_eval=False)
    train(None, tmp_path / "local", overrides=[*MICRO, "selfplay.threads=2",
                                               "training.iterations=4"], final_eval=False)
    _same_run(checkpoint_info(tmp_path / "ray" / "checkpoint.ckpt"),
              checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))


#: A Ray cluster of three nodes on this machine (`ray.cluster_utils.Cluster`): a head with no
#: CPU (the driver and the learner) and two one-CPU nodes, so each worker is on a node of its
#: own and the weights and reports cross object stores, as on a real cluster.
MULTI_NODE = """
import json, os, sys
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
import ray
from ray.cluster_utils import Cluster
from awale.ray_selfplay import train_on_ray

out, overrides = sys.argv[1], json.loads(sys.argv[2])
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
for _ in range(2):
    cluster.add_node(num_cpus=1)
ray.init(address=cluster.address, log_to_driver=False)
cluster.wait_for_nodes()
s = train_on_ray(None, out, workers=2, overrides=overrides, final_eval=False)
print(json.dumps({"nodes": sum(n["Alive"] for n in ray.nodes()), "iterations": s["iterations"]}))
ray.shutdown()
cluster.shutdown()
"""


@needs_trainer
def test_ray_self_play_with_workers_on_other_ray_nodes(ray, tmp_path):
    import json

    script = tmp_path / "multi_node.py"
    script.write_text(MULTI_NODE)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "ray"), json.dumps(MICRO)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"nodes": 3, "iterations": 2}
    train(None, tmp_path / "local", overrides=[*MICRO, "selfplay.threads=2"], final_eval=False)
    _same_run(checkpoint_info(tmp_path / "ray" / "checkpoint.ckpt"),
              checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))


@needs_trainer
def test_overlapped_ray_self_play_is_reproducible(ray, tmp_path):
    """With ``selfplay.overlap`` the workers play while the learner trains: another run than
    the local one, but the same every time, and it plays as an ``nn`` agent."""
    from awale.ray_selfplay import train_on_ray

    sets = [*MICRO, "selfplay.overlap=true", "training.iterations=3", "checkpoint.every=2"]
    for name in ("a", "b"):
        train_on_ray(None, str(tmp_path / name), workers=2, overrides=sets, final_eval=False)
    a, b = (checkpoint_info(tmp_path / n / "checkpoint.ckpt") for n in ("a", "b"))
    _same_run(a, b)
    assert a["iteration"] == 3
    train(None, tmp_path / "local", overrides=[*sets, "selfplay.threads=2"], final_eval=False)
    assert checkpoint_info(tmp_path / "local" / "checkpoint.ckpt")["model_crc32"] != a["model_crc32"]


@needs_trainer
def test_train_on_ray_refuses_bad_arguments(ray, tmp_path):
    from awale.ray_selfplay import train_on_ray

    for bad in [dict(workers=0), dict(threads_per_worker=True), dict(learner_gpus=-1)]:
        with pytest.raises(awale.ConfigError):
            train_on_ray(None, str(tmp_path / "x"), overrides=MICRO, **bad)
    with pytest.raises(awale.ConfigError, match="nope"):
        train_on_ray(None, str(tmp_path / "x"), workers=1, overrides=["training.nope=1"])
    # More CPUs than the cluster has: a warning (the actors would wait for nodes), then the
    # refused config stops it before any actor starts.
    with pytest.warns(RuntimeWarning, match="need 8 CPUs; the cluster has 2"):
        with pytest.raises(awale.ConfigError, match="nope"):
            train_on_ray(None, str(tmp_path / "x"), workers=4, threads_per_worker=2,
                         overrides=["training.nope=1"])


@needs_trainer
def test_the_ray_driver_script_trains_and_plays_its_tournament(ray, tmp_path):
    """`awale.recipes.ray_selfplay --fast` in a process of its own (with its own local Ray)."""
    done = subprocess.run(
        [sys.executable, "-m", "awale.recipes.ray_selfplay", "--fast", "--cpus", "2",
         "--workers", "2", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 iterations" in done.stdout, done.stdout
    assert "gauntlet of nn:path=" in done.stdout, done.stdout
    assert checkpoint_info(tmp_path / "run" / "checkpoint.ckpt")["selfplay_threads"] == 2


@needs_trainer
def test_the_readme_trainer_block_runs(ray, tmp_path, monkeypatch):
    """python/README.md's trainer block (skipped by test_readme.py in the default build)."""
    import re

    readme = Path(__file__).resolve().parents[2] / "python" / "README.md"
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
              if b.startswith("# needs the trainer")]
    assert blocks
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "python/README.md", "exec"), {"__name__": "__readme__"})


# -- faults (issue 43) -----------------------------------------------------------------------


@needs_trainer
def test_chaos_runs_with_workers_killed_end_with_the_undisturbed_checkpoint(ray, tmp_path):
    """`training/ray_chaos.py`: a three-node cluster on this machine (a head with no CPU, two
    one-CPU worker nodes), three runs of 100 iterations, each with a self-play actor's process
    or node killed at a random moment: every run ends with the local run's checkpoint, bit for
    bit."""
    import json

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "training" / "ray_chaos.py"), "--runs", "3", "--kills", "1",
         "--iterations", "100", "--seed", "3", "--json", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"], done.stdout
    assert len(summary["runs"]) == 3 and all(r["same"] for r in summary["runs"])
    assert all(len(r["kills"]) == 1 for r in summary["runs"]), done.stdout
    # A kill lands during self-play (and is replayed) unless it falls in the last instants.
    assert sum(len(r["replayed"]) for r in summary["runs"]) >= 2, done.stdout


def _dying_selfplay(config: str, workers: int, die: Any, cpus: float = 1) -> Any:
    """A RaySelfPlay over actors whose process exits when ``die(part, version)`` (a worker
    lost for good, e.g. a machine that crashes on that shard every time)."""
    import ray

    from awale.ray_selfplay import RaySelfPlay, SelfPlayActor

    class Dying(SelfPlayActor):
        def play(self, part, weights, version, positions, restore=None):
            if die(part, version):
                os._exit(1)
            return super().play(part, weights, version, positions, restore)

    first = ray.remote(num_cpus=1, max_restarts=0)(Dying)
    replacement = ray.remote(num_cpus=cpus, max_restarts=0)(Dying)

    def make() -> Any:
        return replacement.remote(config)

    make.cpus = cpus  # type: ignore[attr-defined]
    parts = [_core.worker_shards(k, workers, workers) for k in range(workers)]
    actors = [first.remote(config) for _ in range(workers)]
    return RaySelfPlay(config, parts, actors, make, max_failures=2, restart_timeout=5)


def _kill_actors(selfplay: Any) -> None:
    """Ends a RaySelfPlay's actors (a test's: the next test needs the CPUs they hold)."""
    import ray

    for actor in selfplay.owner:
        ray.kill(actor)


@needs_trainer
def test_a_part_that_keeps_dying_stops_the_run_saved_and_the_same_command_resumes(ray,
                                                                                  tmp_path):
    """Shard 1 dies at every try of iteration 3: after ``max_failures`` replays the run stops
    with the cause, and its checkpoint holds the run after iteration 2 (written whole, though
    ``checkpoint.every`` would have written none before the end); the run then resumes on
    healthy workers and ends with the local run's checkpoint."""
    from awale.ray_selfplay import train_on_ray

    sets = [*MICRO, "training.iterations=4", "checkpoint.every=0", "selfplay.threads=2"]
    cfg = train_config(None, sets)
    out = tmp_path / "ray"
    selfplay = _dying_selfplay(cfg, 2, lambda part, version: part == 1 and version == 2)
    try:
        with pytest.raises(awale.TrainingError, match=r"shards 1..2 was lost 3 times in a row"):
            _core.train(cfg, str(out), final_eval=False, selfplay=selfplay)
    finally:
        _kill_actors(selfplay)
    assert [f["attempt"] for f in selfplay.failures] == [1, 2]
    assert checkpoint_info(out / "checkpoint.ckpt")["iteration"] == 2
    assert not [p for p in out.iterdir() if p.name.startswith("checkpoint.ckpt.")]  # no temp file
    summary = train_on_ray(None, str(out), workers=2, overrides=sets, final_eval=False)
    assert summary["resumed"] and summary["iterations"] == 4 and not summary["worker_failures"]
    train(None, tmp_path / "local", overrides=sets, final_eval=False)
    _same_run(checkpoint_info(out / "checkpoint.ckpt"),
              checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))


@needs_trainer
def test_lost_workers_move_to_the_survivors_and_with_none_left_the_run_stops(ray, tmp_path):
    """With no room for new actors (they need 99 CPUs), a lost part goes to the surviving
    worker and the run is still the local one; when every worker dies, the run stops, saying
    that no worker is left, with the run saved after its last complete iteration."""
    sets = [*MICRO, "training.iterations=3", "selfplay.threads=2"]
    cfg = train_config(None, sets)
    def die_once(part: int, version: int) -> bool:  # in the actor: a file marks the death
        mark = tmp_path / "died"
        if part == 0 and version == 1 and not mark.exists():
            mark.write_text("")
            return True
        return False

    selfplay = _dying_selfplay(cfg, 2, die_once, cpus=99)
    try:
        _core.train(cfg, str(tmp_path / "moved"), final_eval=False, selfplay=selfplay)
    finally:
        _kill_actors(selfplay)
    assert [(f["shards"], f["to"]) for f in selfplay.failures] == [((0, 1), "a surviving worker")]
    assert "replay_secs" in selfplay.failures[0]
    train(None, tmp_path / "local", overrides=sets, final_eval=False)
    _same_run(checkpoint_info(tmp_path / "moved" / "checkpoint.ckpt"),
              checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))

    selfplay = _dying_selfplay(cfg, 2, lambda part, version: version == 1, cpus=99)
    try:
        with pytest.raises(awale.TrainingError, match="no self-play worker left"):
            _core.train(cfg, str(tmp_path / "none"), final_eval=False, selfplay=selfplay)
    finally:
        _kill_actors(selfplay)
    assert checkpoint_info(tmp_path / "none" / "checkpoint.ckpt")["iteration"] == 1


@needs_trainer
def test_train_on_ray_refuses_bad_fault_settings(ray, tmp_path):
    from awale.ray_selfplay import train_on_ray

    for bad in [dict(max_failures=0), dict(learner_restarts=-1), dict(restart_timeout=-1.0),
                dict(learner_restarts=True)]:
        with pytest.raises(awale.ConfigError):
            train_on_ray(None, str(tmp_path / "x"), workers=1, overrides=MICRO, **bad)


@needs_trainer
def test_a_learner_that_dies_is_started_again_from_its_checkpoint(ray, tmp_path):
    """The learner's process killed after its first checkpoint: ``train_on_ray`` starts a new
    learner, which resumes from that checkpoint (the iterations since are played again, the
    same way), and the run ends with the local run's checkpoint."""
    import threading
    import time

    from conftest import our_ray_processes

    from awale.ray_selfplay import train_on_ray

    sets = [*MICRO, "training.iterations=30", "checkpoint.every=5"]
    out = tmp_path / "ray"
    box: dict = {}

    def run() -> None:
        try:
            box["summary"] = train_on_ray(None, str(out), workers=2, overrides=sets,
                                          final_eval=False)
        except Exception as e:  # checked below
            box["error"] = e

    job = threading.Thread(target=run)
    job.start()
    killed = False
    while job.is_alive() and not killed:
        if (out / "checkpoint.ckpt").exists():
            for pid in our_ray_processes("Learner"):
                os.kill(pid, 9)
                killed = True
        time.sleep(0.005)
    job.join()
    assert killed and "error" not in box, box
    assert box["summary"]["learner_restarts"] == 1 and box["summary"]["resumed"]
    train(None, tmp_path / "local", overrides=[*sets, "selfplay.threads=2"], final_eval=False)
    _same_run(checkpoint_info(out / "checkpoint.ckpt"),
              checkpoint_info(tmp_path / "local" / "checkpoint.ckpt"))

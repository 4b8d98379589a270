#!/usr/bin/env python3
"""Chaos runs of self-play on Ray: workers killed at random moments, the run must not notice.

Starts a Ray cluster on this machine (``ray.cluster_utils.Cluster``: a head with no CPU for the
driver and the learner, ``--nodes`` worker nodes of one CPU each), trains a tiny config locally
once (the reference: ``awale.training.train`` with as many threads as the Ray run has shards),
then on Ray once undisturbed (its wall time sets the window of the kills; with ``--overlap`` its
checkpoint is the reference) and ``--runs`` more times, each with ``--kills`` kills at moments drawn uniformly over its first 60%:

- ``pid``: a self-play actor's process gets SIGKILL (its CPU comes back: a new actor replaces it);
- ``node``: the node of a self-play actor is removed from the cluster (a fresh node joins after
  it, so the next kill has a target; until then the survivor plays the lost shards);
- ``mixed``: one or the other, at random.

Every run must end with the reference's checkpoint (network, replay buffer, games in progress,
generators, counters: ``checkpoint_info``'s checksums). Only processes and nodes this script
started are killed. Prints one line per run and, with ``--json``, a summary.

    python training/ray_chaos.py                                      # 3 runs, one kill each
    python training/ray_chaos.py --runs 1 --kills 25 --iterations 3000 --seed 2  # the long run by hand
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
from typing import Optional
from pathlib import Path

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

#: A run of a few seconds: a small network, short searches, a checkpoint every 4 iterations.
TINY = [
    "network.hidden=[32]",
    "network.observation=compact",
    "search.sims=8",
    "search.fast_sims=2",
    "selfplay.concurrent_games=8",
    "selfplay.positions_per_iteration=48",
    "selfplay.max_plies=120",
    "training.batch_size=16",
    "training.steps_per_iteration=3",
    "training.min_replay=16",
    "training.warmup_steps=2",
    "eval.opponents=[]",
    "checkpoint.every=4",
]

#: What two runs must share: checkpoint_info's checksums and counters.
SAME = ("model_crc32", "replay_crc32", "selfplay_crc32", "rng_crc32", "iteration",
        "train_steps", "games", "positions", "moves", "fingerprint")


def self_play_actors() -> list:
    """The live self-play actors of this cluster: (pid, node id) each. Ray's state API
    (``ray.util.state.list_actors``) needs the dashboard (``ray[default]``); without it, the
    same table is read from Ray's control store."""
    try:
        import ray.util.state as state_api

        actors = state_api.list_actors(
            filters=[("class_name", "=", "SelfPlayActor"), ("state", "=", "ALIVE")],
            raise_on_missing_output=False,
        )
        return [(a.pid, a.node_id) for a in actors if a.pid]
    except Exception:
        import ray._private.state as gcs

        return [(a["Pid"], a["Address"]["NodeID"]) for a in gcs.actors().values()
                if a["ActorClassName"] == "SelfPlayActor" and a["State"] == "ALIVE"
                and a.get("Pid")]


class Run(threading.Thread):
    """``train_on_ray(**kwargs)`` on a thread of its own (the main thread kills: Ray adds nodes
    from the main thread only)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(daemon=True)
        self.kwargs = kwargs
        self.summary: dict = {}
        self.error: Optional[BaseException] = None

    def run(self) -> None:
        from awale.ray_selfplay import train_on_ray

        try:
            self.summary = train_on_ray(**self.kwargs)
        except BaseException as e:  # reported by the main thread
            self.error = e


def kill_during(run: Run, cluster, nodes: list, moments: list, mode: str,
                rng: random.Random) -> list:
    """Starts ``run`` and kills at ``moments`` (seconds after its start) while it goes on;
    returns what was killed, when. A removed node is replaced by a fresh one at once."""
    log: list = []
    t0 = time.monotonic()
    run.start()
    for at in moments:
        while run.is_alive() and time.monotonic() - t0 < at:
            time.sleep(0.01)
        targets: list = []
        while run.is_alive() and not targets:  # the actors may be starting
            try:
                targets = self_play_actors()
            except Exception:
                targets = []
            if not targets:
                time.sleep(0.05)
        if not run.is_alive():
            break
        pid, node_id = rng.choice(targets)
        how = mode if mode != "mixed" else rng.choice(["pid", "node"])
        ours = {n.node_id: n for n in nodes}
        when = round(time.monotonic() - t0, 2)
        if how == "node" and node_id in ours:
            node = ours[node_id]
            cluster.remove_node(node, allow_graceful=False)
            nodes.remove(node)
            nodes.append(cluster.add_node(num_cpus=1))
            log.append({"at": when, "kill": "node"})
        else:
            try:
                os.kill(pid, signal.SIGKILL)  # a process of this script's cluster
            except ProcessLookupError:  # it had just died (a stale table): another target
                moments.insert(moments.index(at) + 1, at)
                continue
            log.append({"at": when, "kill": "pid"})
    run.join()
    return log


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs with kills (default 3)")
    p.add_argument("--kills", type=int, default=1, help="kills per run (default 1)")
    p.add_argument("--iterations", type=int, default=8, help="iterations per run (default 8)")
    p.add_argument("--nodes", type=int, default=2, help="worker nodes of one CPU (default 2)")
    p.add_argument("--mode", choices=["pid", "node", "mixed"], default="mixed",
                   help="what a kill does (default: pid or node at random)")
    p.add_argument("--seed", type=int, default=1, help="the kills' moments and targets")
    p.add_argument("--restart-timeout", type=float, default=5.0,
                   help="train_on_ray's restart_timeout (default 5 s: a replacement that Ray "
                        "places on a node just removed, not yet known dead, is given up sooner)")
    p.add_argument("--max-failures", type=int, default=3,
                   help="train_on_ray's max_failures: losses in a row of one part before the "
                        "run stops (default 3; kills every second or two can exceed it)")
    p.add_argument("--out", default=None, help="a folder for the runs (default: a temporary one)")
    p.add_argument("--overlap", action="store_true",
                   help="selfplay.overlap: the reference is then the undisturbed Ray run (an "
                        "overlapped run is not the local one, but the same every time)")
    p.add_argument("--json", action="store_true", help="print a JSON summary last")
    args = p.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    from awale.ray_selfplay import train_on_ray
    from awale.training import checkpoint_info, train

    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory() if args.out is None else None
    out = Path(tmp.name if tmp else args.out)
    sets = [*TINY, f"training.iterations={args.iterations}"]
    if args.overlap:
        sets.append("selfplay.overlap=true")
    workers = args.nodes

    t = time.monotonic()
    train(None, out / "local", overrides=[*sets, f"selfplay.threads={workers}"],
          final_eval=False, fresh=True)
    want = {k: checkpoint_info(out / "local" / "checkpoint.ckpt")[k] for k in SAME}
    local_secs = time.monotonic() - t

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    nodes = [cluster.add_node(num_cpus=1) for _ in range(args.nodes)]
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    rows = []
    ok = True
    try:
        t = time.monotonic()
        s = train_on_ray(None, str(out / "calm"), workers=workers, overrides=sets,
                         final_eval=False, fresh=True)
        calm_secs = time.monotonic() - t
        calm = {k: checkpoint_info(out / "calm" / "checkpoint.ckpt")[k] for k in SAME}
        calm_same = calm == want
        if args.overlap:  # another run than the local one: the undisturbed one is the reference
            calm_same, want = calm != want, calm
        ok &= calm_same  # (a replay there, e.g. a worker timed out under load, is harmless)
        verdict = ("the reference (overlap: not the local run, as expected)" if args.overlap
                   else "the local run's checkpoint")
        print(f"undisturbed: {calm_secs:.1f} s (local {local_secs:.1f} s), "
              f"{verdict if calm_same else 'NOT ' + verdict}, "
              f"{len(s['worker_failures'])} parts replayed", flush=True)
        for run in range(args.runs):
            # Within the first 60% of the undisturbed run's time: a run can be faster than it
            # (the machine's load varies), and a kill after the end tests nothing.
            moments = sorted(rng.uniform(0.05, 0.6) * calm_secs for _ in range(args.kills))
            job = Run(config=None, out=str(out / f"run{run}"), workers=workers,
                      overrides=sets, final_eval=False, fresh=True,
                      max_failures=args.max_failures, restart_timeout=args.restart_timeout)
            t = time.monotonic()
            kills = kill_during(job, cluster, nodes, moments, args.mode, rng)
            secs = time.monotonic() - t
            if job.error is not None:
                raise job.error
            s = job.summary
            got = {k: checkpoint_info(out / f"run{run}" / "checkpoint.ckpt")[k] for k in SAME}
            same = got == want
            ok &= same
            row = {
                "run": run, "secs": round(secs, 2), "undisturbed_secs": round(calm_secs, 2),
                "kills": kills, "replayed": s["worker_failures"], "same": same,
            }
            rows.append(row)
            moved = ", ".join(f"{f['shards'][0]}..{f['shards'][1]} to {f['to']}"
                              f" ({f.get('replay_secs', '?')} s)" for f in s["worker_failures"])
            shown = ", ".join(f"{k['kill']} at {k['at']} s" for k in kills) or "none"
            print(f"run {run}: {len(kills)} kills ({shown}), "
                  f"{len(s['worker_failures'])} parts replayed [{moved}], {secs:.1f} s, "
                  f"{'same' if same else 'DIFFERENT'} checkpoint", flush=True)
            # Back to full strength for the next run: the killed nodes were replaced.
            cluster.wait_for_nodes()
    finally:
        ray.shutdown()
        cluster.shutdown()
        if tmp:
            tmp.cleanup()
    if args.json:
        print(json.dumps({"ok": ok, "undisturbed_secs": round(calm_secs, 2), "runs": rows}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

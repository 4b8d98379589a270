#!/usr/bin/env python3
"""The Rust AlphaZero-style trainer with its self-play on Ray actors (``awale.ray_selfplay``).

Self-play workers are Ray actors running the Rust self-play (``awale._core.SelfPlayWorker``);
a learner actor trains the network (the loop of ``awale train``: replay buffer, gradient
steps, evaluations, checkpoints, TensorBoard logs in ``--out``) and sends each iteration's
weights to the workers through Ray's object store. A run with W workers of T threads is, bit
for bit, ``awale train --threads W*T`` with the same config: its checkpoint plays as
``nn:path=OUT/checkpoint.ckpt`` and resumes with ``awale train`` or with this script (any W
and T with the same W*T). At the end the network plays the built-in agents through
``awale.tournament``.

A worker whose process or node dies is replaced (or its shards go to a surviving worker) and
its share of the iteration is replayed from the games in progress the learner holds: the run
ends as if nothing happened (``training/ray_chaos.py`` checks it). A worker lost
``--max-failures`` times in a row, or none left, stops the run after saving it; a learner that
dies is started again from its last checkpoint (``--learner-restarts``).

    python -m awale.recipes.ray_selfplay --fast                           # smoke run (CI), seconds
    python -m awale.recipes.ray_selfplay --config abapa --workers 8 --threads-per-worker 2
    python -m awale.recipes.ray_selfplay --address auto --config abapa --workers 32
    tensorboard --logdir runs/                                       # the curves

Needs ``pip install 'awale[ray]'`` and, on every node, an awale extension built with the
trainer (``maturin build --release --features python,cli,train``; ``train-cuda`` for a GPU learner).
See docs/scaling.md.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray

import awale
from awale.ray_selfplay import train_on_ray

#: --fast: a few seconds (a small network, short searches, two iterations).
FAST = [
    "network.hidden=[32]",
    "network.observation=compact",
    "search.sims=8",
    "search.fast_sims=2",
    "selfplay.concurrent_games=8",
    "selfplay.positions_per_iteration=64",
    "training.iterations=2",
    "training.batch_size=16",
    "training.steps_per_iteration=4",
    "training.min_replay=16",
    "eval.every=0",
    "eval.opponents=[]",
]


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--config", default=None,
                   help="training config: a TOML file or a built-in name (abapa, wari, ...; "
                        "as `awale train --config`); default: the built-in tiny config")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. --set training.iterations=10 (repeatable)")
    p.add_argument("--out", default=None, help="the run's folder (default runs/NAME)")
    p.add_argument("--workers", type=int, default=None,
                   help="self-play actors (default: the cluster's CPUs / threads per worker)")
    p.add_argument("--threads-per-worker", type=int, default=1,
                   help="shards (threads) per worker; the run has workers x this many shards")
    p.add_argument("--overlap", action="store_true",
                   help="workers play the next iteration while the learner trains "
                        "(selfplay.overlap: positions one iteration staler)")
    p.add_argument("--learner-cpus", type=float, default=0,
                   help="CPUs Ray reserves for the learner (give some with --overlap)")
    p.add_argument("--learner-gpus", type=float, default=0,
                   help="GPUs for the learner (needs an extension built with train-cuda)")
    p.add_argument("--fresh", action="store_true", help="start over even if --out has a checkpoint")
    p.add_argument("--max-failures", type=int, default=3,
                   help="times in a row a worker's shards may be lost before the run stops "
                        "(each loss is replayed elsewhere; default 3)")
    p.add_argument("--restart-timeout", type=float, default=30.0,
                   help="seconds a replacement worker may take to start when no worker "
                        "survives (at most 5 while one does: its shards go there; default 30)")
    p.add_argument("--learner-restarts", type=int, default=1,
                   help="times a learner that dies is started again from its last checkpoint "
                        "(default 1)")
    p.add_argument("--address", default=None,
                   help="a Ray cluster to join (e.g. auto); default: a local one")
    p.add_argument("--cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    p.add_argument("--games", type=int, default=20,
                   help="games per opponent in the closing tournament (0: none)")
    p.add_argument("--opponents", default="random,greedy,alphabeta:depth=2",
                   help="the closing tournament's opponents")
    p.add_argument("--sims", type=int, default=32, help="the network's simulations per move there")
    p.add_argument("--fast", action="store_true", help="a seconds-long smoke run (CI)")
    args = p.parse_args()

    overrides = list(args.set)
    if args.overlap:
        overrides.append("selfplay.overlap=true")
    if args.fast:
        overrides = FAST + overrides
        args.games = min(args.games, 2)
        args.sims = min(args.sims, 4)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False)
    print(f"ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
          f"{ray.cluster_resources().get('GPU', 0):.0f} GPUs")
    t0 = time.time()
    summary = train_on_ray(
        args.config, args.out, workers=args.workers,
        threads_per_worker=args.threads_per_worker, overrides=overrides, fresh=args.fresh,
        learner_cpus=args.learner_cpus, learner_gpus=args.learner_gpus,
        final_eval=not args.fast, max_failures=args.max_failures,
        restart_timeout=args.restart_timeout, learner_restarts=args.learner_restarts,
    )
    secs = time.time() - t0
    print(f"{summary['iterations']} iterations, {summary['games']} games, "
          f"{summary['positions']} positions, {summary['moves_per_sec']:.0f} self-play moves/s, "
          f"{secs:.1f} s{' (resumed)' if summary['resumed'] else ''}")
    print(f"checkpoint: {summary['checkpoint']}")
    lost = summary["worker_failures"]
    if lost or summary["learner_restarts"]:
        print(f"faults: {len(lost)} lost shares of an iteration replayed, "
              f"{summary['learner_restarts']} learner restarts")
        for f in lost:
            a, b = f["shards"]
            print(f"  shards {a}..{b}: {f['error']}; replayed on {f['to']} "
                  f"in {f.get('replay_secs', '?')} s")
    if summary.get("final_eval"):
        for name, score, w, d, l in summary["final_eval"]["results"]:
            print(f"  final evaluation vs {name}: {100 * score:.1f}% (+{w} ={d} -{l})")
    if args.games > 0:
        agents = [f"nn:path={summary['checkpoint']},sims={args.sims}",
                  *args.opponents.split(",")]
        result = awale.tournament(agents, gauntlet=agents[0], games=args.games, seed=2026)
        print(result)
    ray.shutdown()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How far self-play on Ray scales: the costs of one iteration's parts, measured here, and the
speed-up of W workers that they predict (docs/scaling.md, "How far it scales").

Measured on this machine, for a training config (default ``training/abapa.toml``, no
evaluation):

1. the trainer with its self-play workers in the same process (two parts played in turn), with
   and without its gradient steps: the self-play time of an iteration on one core (``T_sp``),
   the learner's gradient steps (``T_learn``) and its time besides (``T_outside``: serialising
   the weights, decoding and checking the reports, the bookkeeping);
2. the same iterations on a local Ray (``--cpus``, 2 workers of one thread): what crossed per
   iteration (the weights out; the reports and, for faults, every part's games in progress
   back), the seconds of ``ray.put``, and of each round beyond its slowest part's self-play
   (Ray's cost per round);
3. Ray's cost of one actor call (a no-op round trip, ``--calls`` of them), and of moving the
   weights to an actor through the object store.

Then the model, for W single-core workers (``selfplay.threads = W``, the iteration's positions
dealt evenly), one iteration:

    T(W) = T_put + W * t_call + T_sp / W + T_net(W) + T_outside + T_learn / g

with ``T_net(W)`` the bytes through the learner's network link at ``--link-gbps`` (the reports
and games of every part, and the weights once per worker: the conservative case where every
worker pulls them from the learner's node) and ``g`` the learner's speed-up on a GPU. With
``selfplay.overlap`` the workers play while the learner trains: ``T(W) = max(T_learn / g +
T_outside, the rest)``. The speed-up is ``(T_sp + T_learn) / T(W)`` (the local trainer on one
core). Prints the measured inputs, then the table.

    python benches/bench_ray_scaling.py                 # abapa.toml, 6 iterations each
    python benches/bench_ray_scaling.py --iterations 12 --link-gbps 25
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="training/abapa.toml")
    p.add_argument("--iterations", type=int, default=6)
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray (default 2)")
    p.add_argument("--calls", type=int, default=400, help="no-op actor calls to time")
    p.add_argument("--link-gbps", type=float, default=10.0,
                   help="the learner's network link in the model (default 10 Gb/s)")
    p.add_argument("--gpu-speedup", type=float, default=10.0,
                   help="g of the model's GPU rows: the learner's gradient steps g times faster")
    args = p.parse_args()

    import ray

    from awale.ray_selfplay import train_on_ray
    from awale.training import train

    n = args.iterations
    base = [f"training.iterations={n}", "training.min_replay=1", "eval.every=0",
            "eval.opponents=[]", "checkpoint.every=0", "checkpoint.generations_every=0",
            "training.max_minutes=0"]
    with tempfile.TemporaryDirectory() as d:
        # In-process workers: the self-play on one core (the parts played in turn) and the
        # learner's own time, with and without its gradient steps.
        sp_a, with_steps = learner_run(args.config, base, os.path.join(d, "a"), steps=True)
        sp_b, t_outside = learner_run(args.config, base, os.path.join(d, "b"), steps=False)
        t_sp = (sp_a + sp_b) / 2
        t_learn = max(with_steps - t_outside, 0.0)

        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
        workers = min(2, args.cpus)
        t = time.perf_counter()
        s = train_on_ray(args.config, os.path.join(d, "ray"), workers=workers, overrides=base,
                         final_eval=False, fresh=True)
        ray_secs = time.perf_counter() - t
        tr = s["ray_traffic"]
        it = tr["iterations"]
        weights = tr["weights_bytes"] / it
        report = tr["report_bytes"] / it
        games = tr["games_bytes"] / it  # every part's own games: the run's, whatever W
        positions = s["positions"] / s["iterations"]
        t_put = tr["put_secs"] / it
        t_round_extra = (tr["round_secs"] - tr["slowest_part_secs"]) / it

        @ray.remote(num_cpus=0)
        class Echo:
            def ping(self) -> int:
                return 0

            def size(self, b: bytes) -> int:
                return len(b)

        actors = [Echo.remote() for _ in range(2)]  # type: ignore[attr-defined]
        ray.get([a.ping.remote() for a in actors])
        t = time.perf_counter()
        for _ in range(args.calls // 2):
            ray.get([a.ping.remote() for a in actors])
        t_call = (time.perf_counter() - t) / args.calls
        blob = os.urandom(int(weights))
        t = time.perf_counter()
        for _ in range(20):
            ray.get(actors[0].size.remote(ray.put(blob)))
        t_weights_local = (time.perf_counter() - t) / 20
        ray.shutdown()

    link = args.link_gbps * 1e9 / 8
    print(f"config {args.config}: {positions:.0f} positions per iteration, {n} iterations")
    print(f"  T_sp (self-play, one core)       {t_sp * 1e3:9.1f} ms per iteration")
    print(f"  T_learn (gradient steps)          {t_learn * 1e3:9.1f} ms")
    print(f"  weights                           {weights / 1e3:9.1f} kB; put {t_put * 1e3:.2f} ms;"
          f" to an actor here {t_weights_local * 1e3:.2f} ms")
    print(f"  reports                           {report / 1e3:9.1f} kB per iteration "
          f"({report / max(positions, 1):.0f} B per position)")
    print(f"  games in progress (all parts)     {games / 1e3:9.1f} kB per iteration "
          f"({games / ray_games(args.config):.0f} B per game in progress)")
    print(f"  Ray per round beyond self-play    {t_round_extra * 1e3:9.2f} ms ({workers} workers)")
    print(f"  learner beyond its steps          {t_outside * 1e3:9.2f} ms (weights out, reports in)")
    print(f"  one actor call                    {t_call * 1e3:9.3f} ms")
    print(f"  Ray run: {ray_secs:.1f} s for {n} iterations "
          f"(local one core {(t_sp + t_learn) * n:.1f} s)")
    print()

    def t_iter(w: int, overlap: bool, g: float) -> float:
        net = (report + games + weights * w) / link
        play = t_put + w * t_call + t_sp / w + net
        learn = t_learn / g + t_outside
        return max(play, learn) if overlap else play + learn

    one = t_sp + t_learn
    cols = [("CPU learner", False, 1.0), ("CPU, overlap", True, 1.0),
            (f"GPU learner (g={args.gpu_speedup:g})", False, args.gpu_speedup),
            ("GPU, overlap", True, args.gpu_speedup)]
    print("| W | " + " | ".join(c for c, _, _ in cols) + " | self-play share (CPU) |")
    print("|---|" + "---|" * (len(cols) + 1))
    for w in [1, 2, 4, 8, 16, 32, 64, 128, 256]:
        cells = [f"{one / t_iter(w, o, g):.1f}×" for _, o, g in cols]
        share = (t_sp / w) / t_iter(w, False, 1.0)
        print(f"| {w} | " + " | ".join(cells) + f" | {100 * share:.0f}% |")
    limit = one / (t_learn + t_outside)
    print(f"\nceiling without overlap, CPU learner: {limit:.1f}× "
          f"(the learner's {1e3 * (t_learn + t_outside):.0f} ms per iteration); "
          f"learner-bound from W ≈ {t_sp / max(t_learn + t_outside, 1e-9):.0f}")
    total = report + games + 256 * weights
    print(f"bytes per iteration at W=256: {total / 1e6:.1f} MB "
          f"({total / link * 1e3:.0f} ms at {args.link_gbps:g} Gb/s)")


class InProcess:
    """Self-play workers in this process (the ``selfplay=`` protocol of ``_core.train``),
    timing their play: what the learner spends besides is its own cost."""

    def __init__(self, config: str, parts: list) -> None:
        from awale import _core

        self.workers = [_core.SelfPlayWorker(config, p) for p in parts]
        self.secs = 0.0
        self.held: list = []

    def start(self, games: bytes) -> None:
        for w in self.workers:
            w.start(games)
        self.held = [w.games() for w in self.workers]

    def submit(self, weights: bytes, version: int, positions: int) -> None:
        self.job = (weights, version, positions)

    def collect(self) -> list:
        t = time.perf_counter()
        reports = [w.play(*self.job) for w in self.workers]
        self.held = [w.games() for w in self.workers]
        self.secs += time.perf_counter() - t
        return reports

    def games(self) -> list:
        return self.held


def learner_run(config: str, base: list, out: str, steps: bool) -> tuple:
    """A run with in-process workers (two parts): its self-play seconds per iteration on one
    core, and the learner's seconds per iteration besides (its gradient steps if ``steps``,
    serialising the weights, decoding the reports, the bookkeeping)."""
    from awale import _core
    from awale.training import train_config

    extra = [] if steps else ["training.steps_per_iteration=0"]
    text = train_config(config, [*base, *extra, "selfplay.threads=2"])
    workers = InProcess(text, [(0, 1), (1, 2)])
    n = int(next(x for x in base if x.startswith("training.iterations=")).split("=")[1])
    t = time.perf_counter()
    _core.train(text, out, fresh=True, final_eval=False, selfplay=workers)
    return workers.secs / n, (time.perf_counter() - t - workers.secs) / n


def ray_games(config: str) -> float:
    """The run's games in progress (``selfplay.concurrent_games``)."""
    from awale.training import train_config

    for line in train_config(config).splitlines():
        if line.strip().startswith("concurrent_games"):
            return int(line.split("=")[1])
    return math.nan


if __name__ == "__main__":
    main()

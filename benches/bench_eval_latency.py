"""What an evaluator's fixed cost per call costs self-play (docs/performance.md, "An evaluator that
pays per call").

A GPU's launch and copy, or a trip through Python, cost a fixed time per call whatever its size.
This benchmark stands in for one with a thread-safe evaluator that sleeps a fixed time per call
(the GIL released, as during a GPU's work) and returns uniform logits and values 0, and runs
:class:`awale.SelfPlay` (abapa, the search of training/abapa.toml) with it, for each sleep, in
two modes side by side:

- **per thread** (``eval_batch=0``): each self-play thread calls the evaluator with its own
  games' leaves and waits for it;
- **gathered** (``eval_batch=N``, default a quarter of the games): the leaves of every thread
  go to evaluator threads of their own in calls of at most N, each thread with as many batches
  in flight as calls a round (``awale::search::gather`` in the crate).

Each measurement first plays until the games of the first wave have ended (self-play then turns
out positions at a steady rate), then times ``play(positions)``. Rounds alternate the settings;
the table gives medians, and each sleep's cost against the same mode at 0 ms.

    python benches/bench_eval_latency.py                      # 4,096 games, 2 threads, 0/2/8 ms
    python benches/bench_eval_latency.py --games 16384 --sleep-ms 0 8 --rounds 3
    python benches/bench_eval_latency.py --threads 8 --eval-batch 2048 --sleep-ms 0

Needs only numpy and the awale wheel.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import awale

#: The search and self-play keys of training/abapa.toml.
RECIPE = dict(
    kind="gumbel", sims=64, fast_sims=16, full_search_prob=0.25, gumbel_actions=6,
    gumbel_c_visit=50.0, gumbel_c_scale=0.1, max_plies=300, temperature=1.0,
    temperature_plies=16, temperature_final=0.0, random_opening_plies=2,
)


class Sleeper:
    """Uniform logits, values 0, after sleeping ``ms`` milliseconds a call (the GIL released)."""

    thread_safe = True

    def __init__(self, ms: float) -> None:
        self.seconds = ms / 1000.0
        self.calls = 0
        self.rows = 0

    def __call__(self, obs: np.ndarray, mask: np.ndarray):
        if self.seconds > 0:
            time.sleep(self.seconds)
        self.calls += 1
        self.rows += len(obs)
        return np.zeros(mask.shape, np.float32), np.zeros(len(obs), np.float32)


def measure(games: int, threads: int, eval_batch: int, ms: float, positions: int) -> dict:
    ev = Sleeper(ms)
    sp = awale.SelfPlay("abapa", ev, games=games, threads=threads, seed=1, eval_batch=eval_batch,
                        **RECIPE)
    # The first wave of games ends together: play through it before timing.
    sp.play(max(games // 4, 1))
    ev.calls, ev.rows = 0, 0
    t = time.perf_counter()
    d = sp.play(positions)
    wall = time.perf_counter() - t
    st = d["stats"]
    return {
        "positions_per_second": st["positions"] / wall,
        "moves_per_second": st["moves"] / wall,
        "leaves_per_call": ev.rows / max(ev.calls, 1),
        "calls": ev.calls,
        "busy": st.get("evaluator_busy"),
        "wall": wall,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4096, help="games in flight")
    p.add_argument("--threads", type=int, default=2, help="self-play threads")
    p.add_argument("--eval-batch", type=int, default=None,
                   help="leaves per call of the gathered mode (default: a quarter of the games: "
                        "four batches in flight, four calls a round)")
    p.add_argument("--sleep-ms", type=float, nargs="*", default=[0.0, 2.0, 8.0])
    p.add_argument("--positions", type=int, default=None,
                   help="positions timed per measurement (default: the games / 2)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--modes", nargs="*", default=["per-thread", "gathered"],
                   choices=["per-thread", "gathered"])
    a = p.parse_args()
    eval_batch = a.eval_batch or max(a.games // 4, 1)
    positions = a.positions or max(a.games // 2, 64)
    modes = {"per-thread": 0, "gathered": eval_batch}
    runs: dict[tuple[str, float], list[dict]] = {}
    for r in range(a.rounds):
        for ms in a.sleep_ms:
            for mode in a.modes:
                m = measure(a.games, a.threads, modes[mode], ms, positions)
                runs.setdefault((mode, ms), []).append(m)
                busy = "" if m["busy"] is None else f", evaluator busy {100 * m['busy']:.0f}%"
                print(f"round {r + 1}: {mode:10} {ms:4.1f} ms: {m['positions_per_second']:7.0f} "
                      f"positions/s, {m['moves_per_second']:7.0f} moves/s, "
                      f"{m['leaves_per_call']:7.0f} leaves/call{busy} ({m['wall']:.1f} s)",
                      flush=True)
    print(f"\n{a.games} games, {a.threads} threads, gathered eval_batch={eval_batch}, "
          f"{positions} positions a measurement, medians of {a.rounds}:\n")
    print("| mode | sleep per call | positions/s | moves/s | leaves per call | cost vs 0 ms |")
    print("|---|---|---|---|---|---|")
    for mode in a.modes:
        base = None
        for ms in a.sleep_ms:
            rs = runs[(mode, ms)]
            pos = statistics.median(x["positions_per_second"] for x in rs)
            mov = statistics.median(x["moves_per_second"] for x in rs)
            leaves = statistics.median(x["leaves_per_call"] for x in rs)
            if ms == 0:
                base = mov
            cost = "" if base is None or ms == 0 else f"{100 * (1 - mov / base):.0f}%"
            print(f"| {mode} | {ms:g} ms | {pos:,.0f} | {mov:,.0f} | {leaves:,.0f} | {cost} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

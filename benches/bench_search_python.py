"""Self-play with a Python evaluator against the Rust trainer's, side by side (docs/performance.md,
"Search from Python").

Each round measures, in turn:

- **rust**: ``awale bench selfplay --config training/abapa.toml --threads T`` (the trainer's
  self-play: its burn network of the recipe's shape, untrained);
- **python**: :class:`awale.SelfPlay` with the same search settings and a PyTorch network of the
  same shape (``awale.torch.new_network``, onehot:16, 256 x 256), ``T`` self-play threads, one
  torch thread per evaluation, the evaluator declared thread-safe (as ``awale.recipes.az_torch``);

and prints the positions per second of each and their ratio (the median over rounds). Then a
table over batch sizes (concurrent games / threads) with the cost of one evaluator call: the
time inside the callable, and the rest of the wall time per call (the binding and the trees).

    python benches/bench_search_python.py                 # 3 rounds of 8,192 positions, T = 2
    python benches/bench_search_python.py --rounds 5 --threads 1

Needs torch and safetensors, and the ``awale`` command of the same build (``--awale PATH``;
default: the one on PATH, the wheel's console script).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

import awale
import awale.torch as awale_torch

ROOT = Path(__file__).resolve().parents[1]
#: The search and self-play keys of training/abapa.toml.
RECIPE = dict(
    kind="gumbel", sims=64, fast_sims=16, full_search_prob=0.25, gumbel_actions=6,
    gumbel_c_visit=50.0, gumbel_c_scale=0.1, max_plies=300, temperature=1.0,
    temperature_plies=16, temperature_final=0.0, random_opening_plies=2,
)


def rust_round(awale_bin: str, threads: int, positions: int) -> float:
    out = subprocess.run(
        [awale_bin, "bench", "selfplay", "--config", str(ROOT / "training" / "abapa.toml"),
         "--threads", str(threads), "--positions", str(positions), "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    row = json.loads(out.strip().splitlines()[-1])
    return float(row["positions_per_second"])


class Timed:
    """A torch evaluator that records its calls and the time spent inside them."""

    def __init__(self, net: torch.nn.Module, noop: bool = False) -> None:
        self.net, self.noop = net, noop
        self.calls, self.inside, self.rows = 0, 0.0, 0
        self.thread_safe = True

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, mask: np.ndarray):
        t = time.perf_counter()
        if self.noop:
            out = (np.zeros(mask.shape, np.float32), np.zeros(len(obs), np.float32))
        else:
            logits, values = self.net(torch.from_numpy(obs))
            out = (logits.numpy(), values.numpy())
        self.inside += time.perf_counter() - t
        self.calls += 1
        self.rows += len(obs)
        return out


def python_round(threads: int, positions: int, games: int, noop: bool = False):
    net = awale_torch.new_network("abapa", [256, 256], "onehot:16").eval()
    ev = Timed(net, noop)
    sp = awale.SelfPlay("abapa", ev, games=games, threads=threads, seed=1, encoding="onehot:16",
                        **RECIPE)
    torch.set_num_threads(1)
    sp.play(max(positions // 10, 64))  # warm-up, as `awale bench selfplay`
    ev.calls, ev.inside, ev.rows = 0, 0.0, 0
    t = time.perf_counter()
    d = sp.play(positions)
    wall = time.perf_counter() - t
    return {
        "positions_per_second": d["stats"]["positions"] / wall,
        "calls": ev.calls,
        "mean_batch": ev.rows / max(ev.calls, 1),
        "inside_us": 1e6 * ev.inside / max(ev.calls, 1),
        "outside_us": 1e6 * max(wall * threads - ev.inside, 0.0) / max(ev.calls, 1),
        "wall": wall,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--positions", type=int, default=8192)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--awale", default=shutil.which("awale") or "awale", help="the awale command")
    p.add_argument("--batches", type=int, nargs="*", default=[16, 32, 64, 128, 256],
                   help="batch sizes (games per thread) of the table")
    a = p.parse_args()
    default_threads = torch.get_num_threads()
    rust, py, ratios = [], [], []
    for r in range(a.rounds):
        torch.set_num_threads(default_threads)
        x = rust_round(a.awale, a.threads, a.positions)
        y = python_round(a.threads, a.positions, 256)["positions_per_second"]
        rust.append(x)
        py.append(y)
        ratios.append(y / x)
        print(f"round {r + 1}: rust {x:.0f} positions/s, python {y:.0f} positions/s, ratio {y / x:.2f}",
              flush=True)
    print(f"\nmedian over {a.rounds} rounds, {a.threads} self-play threads: rust "
          f"{statistics.median(rust):.0f} positions/s, python {statistics.median(py):.0f} "
          f"positions/s, python/rust {statistics.median(ratios):.2f} "
          f"(range {min(ratios):.2f}-{max(ratios):.2f})\n")
    print("| batch (games / thread) | evaluator | positions/s | calls | µs inside the callable per call | µs outside per call (binding + trees, per thread) |")
    print("|---|---|---|---|---|---|")
    for b in a.batches:
        for noop in (True, False):
            m = python_round(a.threads, a.positions, b * a.threads, noop)
            what = "no-op (zeros)" if noop else "torch 256x256"
            print(f"| {m['mean_batch']:.0f} | {what} | {m['positions_per_second']:.0f} | {m['calls']} "
                  f"| {m['inside_us']:.0f} | {m['outside_us']:.0f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Python-side speed: `AwaleVectorEnv` vs Gymnasium's `SyncVectorEnv` over `AwaleEnv` vs
OpenSpiel's `oware`, all driven the same way from Python, in one run.

Every contender plays the same game (the `openspiel` rules: abapa with the remaining seeds
swept to their owners at every end, which is OpenSpiel's `oware`) in self-play, on N boards at
once, with uniformly random legal moves chosen in Python from the legal-move masks, reading
every board's observation at every step and starting a new game wherever one ends:

- `AwaleVectorEnv(N)`: one `step(actions)` per step for all boards (one Rust call, GIL
  released); actions drawn with NumPy from `info["action_mask"]`; observations copied out
  (the default) and, in a second column, with `copy=False`.
- `SyncVectorEnv` over N `AwaleEnv`s: Gymnasium's own vectorisation of the single-board env,
  with the same NumPy action draw.
- OpenSpiel: N `pyspiel` states in a Python loop: `legal_actions()`, `random.choice`,
  `apply_action`, `observation_tensor()`, and a new state when one is terminal.

Rates are board-steps (moves) per second of wall-clock time; each configuration runs for
`--seconds` per round and keeps its best round (rounds alternate the contenders so that all see
the same machine load). AwaleVectorEnv runs with each `--threads` count (its outputs do not
depend on it); the CPU-time ratio uses the first count (1 thread: the whole step runs on the
calling thread, so CPU time is robust to other load on the machine). Prints a markdown table; `--check` exits 1 unless AwaleVectorEnv is at
least `--floor` (30) times OpenSpiel's loop at the largest board count.

Usage (from the repository root, in a venv with the package and open-spiel installed):

    pip install ".[bench]"            # or: maturin develop --release && pip install open-spiel
    python benches/bench_python.py                      # 1, 64, 4096 boards
    python benches/bench_python.py --boards 1,64,4096 --seconds 3 --rounds 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

import numpy as np


class Clock:
    """Wall-clock and CPU time of a measurement; rates are board-steps per second of each."""

    def __init__(self):
        self.w0, self.c0 = time.perf_counter(), time.process_time()

    def rates(self, board_steps):
        wall = time.perf_counter() - self.w0
        cpu = max(time.process_time() - self.c0, 1e-9)
        return board_steps / wall, board_steps / cpu


def drive_vector_env(env, n, seconds, seed):
    """Random legal moves (NumPy, from the masks in `info`) until `seconds` have passed."""
    from awale import sample_legal

    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    steps = 0
    sink = 0.0
    clock = Clock()
    deadline = time.perf_counter() + seconds
    while True:
        for _ in range(8):
            actions = sample_legal(info["action_mask"], rng)
            obs, reward, terminated, truncated, info = env.step(actions)
            sink += obs[0, 0]
        steps += 8
        if time.perf_counter() >= deadline:
            break
    return clock.rates(steps * n)


def bench_awale(n, seconds, seed, copy, threads, rules):
    """AwaleVectorEnv: one Rust call per step for all boards."""
    from awale import AwaleVectorEnv

    env = AwaleVectorEnv(n, rules, opponent="self", copy=copy, threads=threads)
    return drive_vector_env(env, n, seconds, seed)


def bench_sync(n, seconds, seed, rules):
    """Gymnasium's SyncVectorEnv over N AwaleEnv."""
    import gymnasium as gym

    from awale import AwaleEnv

    env = gym.vector.SyncVectorEnv([lambda: AwaleEnv(rules, opponent="self")] * n)
    return drive_vector_env(env, n, seconds, seed)


def bench_openspiel(n, seconds, seed):
    """N OpenSpiel `oware` states driven from Python, one board at a time."""
    import pyspiel

    game = pyspiel.load_game("oware")
    rng = random.Random(seed)
    choice = rng.choice
    states = [game.new_initial_state() for _ in range(n)]
    steps = 0
    sink = 0.0
    clock = Clock()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for i in range(n):
            s = states[i]
            s.apply_action(choice(s.legal_actions()))
            if s.is_terminal():
                s = states[i] = game.new_initial_state()
            sink += s.observation_tensor()[0]
        steps += 1
    return clock.rates(steps * n)


def fmt(x):
    if x is None:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", default="1,64,4096", help="board counts, comma-separated")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    ap.add_argument("--rounds", type=int, default=2, help="rounds (the best is kept)")
    ap.add_argument("--rules", default="openspiel", help="awale rules (openspiel = OpenSpiel's oware)")
    ap.add_argument(
        "--threads", default="1,2", help="AwaleVectorEnv simulator threads, comma-separated"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-sync", action="store_true", help="skip SyncVectorEnv")
    ap.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--floor", type=float, default=30.0, help="required ratio vs OpenSpiel")
    ap.add_argument("--check", action="store_true", help="exit 1 below the floor")
    args = ap.parse_args()

    boards = [int(b) for b in args.boards.split(",") if b.strip()]
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    have_openspiel = not args.no_openspiel
    if have_openspiel:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            print("pyspiel is not installed (pip install open-spiel): OpenSpiel skipped", file=sys.stderr)
            have_openspiel = False

    best: dict[tuple[str, int], tuple[float, float]] = {}

    def keep(key, value):
        old = best.get(key, (0.0, 0.0))
        best[key] = (max(old[0], value[0]), max(old[1], value[1]))

    for r in range(args.rounds):
        for n in boards:
            seed = args.seed + r
            for t in threads:
                keep(("awale", t, n), bench_awale(n, args.seconds, seed, True, t, args.rules))
            keep(("awale_nocopy", n), bench_awale(n, args.seconds, seed, False, threads[0], args.rules))
            if not args.no_sync:
                keep(("sync", n), bench_sync(n, args.seconds, seed, args.rules))
            if have_openspiel:
                keep(("openspiel", n), bench_openspiel(n, args.seconds, seed))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    print(
        f"\nboard-steps/s of wall-clock time (random legal moves, self-play, observations read), "
        f"rules `{args.rules}`, best of {args.rounds} x {args.seconds:g} s; "
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}\n"
    )
    head = " | ".join(f"AwaleVectorEnv {t} thread{'s' if t != 1 else ''}" for t in threads)
    print(
        f"| boards | {head} | AwaleVectorEnv copy=False ({threads[0]}) | "
        "SyncVectorEnv(AwaleEnv) | OpenSpiel loop | best vs OpenSpiel (wall / CPU) | "
        "vs SyncVectorEnv |"
    )
    print("|---:" * (len(threads) + 6) + "|")
    rows = []
    for n in boards:
        per_thread = {t: best[("awale", t, n)] for t in threads}
        one_wall, one_cpu = per_thread[threads[0]]
        a = max(w for w, _ in per_thread.values())
        nc, _ = best[("awale_nocopy", n)]
        s, _ = best.get(("sync", n), (None, None))
        o, o_cpu = best.get(("openspiel", n), (None, None))
        ro = a / o if o else None
        ro_cpu = one_cpu / o_cpu if o_cpu else None  # CPU time is meaningful for 1 thread
        rs = one_wall / s if s else None
        rows.append(
            dict(
                boards=n,
                awale={str(t): w for t, (w, _) in per_thread.items()},
                awale_cpu_first_threads=one_cpu,
                awale_nocopy=nc,
                sync=s,
                openspiel=o,
                openspiel_cpu=o_cpu,
                vs_openspiel=ro,
                vs_openspiel_cpu=ro_cpu,
                vs_sync=rs,
            )
        )
        ratio = "n/a" if ro is None else f"{ro:.1f}x / {ro_cpu:.1f}x"
        cells = " | ".join(fmt(per_thread[t][0]) for t in threads)
        print(
            f"| {n} | {cells} | {fmt(nc)} | {fmt(s)} | {fmt(o)} | {ratio} | "
            f"{'n/a' if rs is None else f'{rs:.1f}x'} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), rows=rows), f, indent=2)
    last = rows[-1]
    if last["vs_openspiel"] is not None:
        ratio = max(last["vs_openspiel"], last["vs_openspiel_cpu"])
        ok = ratio >= args.floor
        print(
            f"\nfloor: {args.floor:g}x OpenSpiel at {last['boards']} boards: {ratio:.1f}x "
            f"(the better of wall-clock and CPU time) -> {'PASS' if ok else 'FAIL'}"
        )
        if args.check and not ok:
            sys.exit(1)


if __name__ == "__main__":
    main()

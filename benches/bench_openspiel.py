#!/usr/bin/env python3
"""Single-board speed: OpenSpiel's `oware` driven from Python vs `awale bench engine`.

Both play uniformly random legal moves, one thread, in the same run, alternating rounds so that
both see the same machine load:

- OpenSpiel, the way an RL user drives it from Python: `legal_actions()`, a random pick,
  `apply_action()`, `is_terminal()`; and the same with `observation_tensor()` read at every
  step (the `+obs` variant).
- `awale bench engine --rules openspiel` (the same game: abapa with the remaining seeds swept to
  their owners at every end), plus `abapa` and any `--rules` given.

Rates are moves per second of wall-clock time and, in brackets, per second of CPU time (more
robust on a loaded machine). The ratio is awale's rate over OpenSpiel's plain Python loop.

Usage (from the repository root; needs a Python with `pyspiel`, e.g. /opt/osvenv/bin/python):

    cargo build --release
    /opt/osvenv/bin/python benches/bench_openspiel.py                # defaults below
    /opt/osvenv/bin/python benches/bench_openspiel.py --os-moves 500000 --awale-moves 20000000 \\
        --rounds 3 --rules openspiel,abapa,awale --json
"""

import argparse
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time


def openspiel_loop(moves, seed, observe):
    """Plays random games of OpenSpiel's oware until `moves` moves; returns (moves, games,
    wall seconds, cpu seconds)."""
    import pyspiel  # imported here so that --help works without it

    game = pyspiel.load_game("oware")
    rng = random.Random(seed)
    choice = rng.choice
    played = games = 0
    sink = 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    while played < moves:
        state = game.new_initial_state()
        while not state.is_terminal():
            if observe:
                sink += state.observation_tensor()[0]
            state.apply_action(choice(state.legal_actions()))
            played += 1
        games += 1
    return played, games, time.perf_counter() - t0, time.process_time() - c0


def awale_engine(binary, rules, moves, seed):
    """Runs `awale bench engine`; returns (moves, games, wall seconds, cpu seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [binary, "bench", "engine", "--rules", rules, "--moves", str(moves), "--seed", str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = re.search(r"(\d+) moves in (\d+) games, ([\d.]+) s", out)
    if not m:
        sys.exit(f"unexpected output of {binary} bench engine: {out!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(m.group(1)), int(m.group(2)), float(m.group(3)), cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--awale", default="target/release/awale", help="the awale binary")
    ap.add_argument("--rules", default="openspiel,abapa", help="awale rule sets, comma-separated")
    ap.add_argument("--os-moves", type=int, default=300_000, help="moves per OpenSpiel round")
    ap.add_argument("--awale-moves", type=int, default=20_000_000, help="moves per awale round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (median reported)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-obs", action="store_true", help="skip the observation_tensor variant")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if not os.path.exists(args.awale):
        sys.exit(f"{args.awale} not found: run `cargo build --release` first (or pass --awale)")

    runs = {"openspiel (python)": []}
    if not args.no_obs:
        runs["openspiel (python) +obs"] = []
    specs = [r for r in args.rules.split(",") if r]
    for spec in specs:
        runs[f"awale {spec}"] = []
    for rnd in range(args.rounds):
        seed = args.seed + rnd
        runs["openspiel (python)"].append(openspiel_loop(args.os_moves, seed, False))
        if not args.no_obs:
            runs["openspiel (python) +obs"].append(openspiel_loop(args.os_moves, seed, True))
        for spec in specs:
            runs[f"awale {spec}"].append(awale_engine(args.awale, spec, args.awale_moves, seed))

    def rate(samples, which):
        return statistics.median(s[0] / s[which] for s in samples)

    base_wall = rate(runs["openspiel (python)"], 2)
    base_cpu = rate(runs["openspiel (python)"], 3)
    result = {
        "load_average": os.getloadavg(),
        "rounds": args.rounds,
        "engines": {
            name: {
                "moves_per_s": rate(s, 2),
                "moves_per_cpu_s": rate(s, 3),
                "plies_per_game": sum(x[0] for x in s) / max(1, sum(x[1] for x in s)),
                "ratio": rate(s, 2) / base_wall,
                "ratio_cpu": rate(s, 3) / base_cpu,
            }
            for name, s in runs.items()
        },
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in result['load_average'])}, "
          f"median of {args.rounds} alternating rounds, 1 thread each")
    print(f"{'engine':28} {'moves/s':>12} {'(cpu time)':>12} {'plies/game':>11} {'ratio':>9}"
          f" {'(cpu time)':>11}")
    for name, r in result["engines"].items():
        print(f"{name:28} {r['moves_per_s'] / 1e6:10.3f} M {r['moves_per_cpu_s'] / 1e6:10.3f} M "
              f"{r['plies_per_game']:11.1f} {r['ratio']:8.1f}x {r['ratio_cpu']:10.1f}x")


if __name__ == "__main__":
    main()

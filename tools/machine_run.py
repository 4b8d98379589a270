#!/usr/bin/env python3
"""A training recipe on a bigger machine, from build to results, in resumed chunks.

Builds `awale` (or takes --bin), trains CONFIG into OUT in chunks of at most CHUNK minutes
(each chunk is `awale train` resumed from OUT/checkpoint.ckpt with a time cap that grows by
CHUNK, so that a machine lent for 10 minutes at a time can run a 20-minute recipe), then
evaluates the network against a BASELINE network (400 paired games by default, openings and
seed unlike the run's), against alphabeta:depth=10 (both networks), and on the endgame
yardstick (share of optimal moves on 1,000 positions of at most 12 seeds, the network without
search or tables), and collects everything into OUT/machine_results.json and a Markdown table.

    # everything, on the machine (a GPU build needs `--features train-cuda`):
    python3 tools/machine_run.py --config training/abapa-16core.toml --out runs/abapa-16core \
        --baseline runs/abapa/checkpoint.ckpt
    # one step or one chunk at a time (each call under 10 minutes):
    python3 tools/machine_run.py ... --steps train --chunk 1
    python3 tools/machine_run.py ... --steps train --chunk 2
    python3 tools/machine_run.py ... --steps evaluate,collect
    # what it would run, without running anything:
    python3 tools/machine_run.py ... --dry-run

Only the standard library. The figures of docs/training.md ("Sizing a run to a machine") come
from it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

STEPS = ("build", "train", "evaluate", "collect")


def config_value(config: Path, section: str, key: str, default=None):
    """A scalar of the recipe's TOML (`[section] key = value`), without a TOML library."""
    current = ""
    for raw in config.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == section and "=" in line:
            k, v = (p.strip() for p in line.split("=", 1))
            if k == key:
                return v.strip('"')
    return default


class Runner:
    """Runs (or, with --dry-run, prints) commands, with a log of what ran and how long."""

    def __init__(self, dry_run: bool, log: list):
        self.dry_run = dry_run
        self.log = log

    def run(self, cmd: list, timeout: float | None = None, capture: bool = False) -> str:
        text = " ".join(shlex.quote(str(c)) for c in cmd)
        print(f"$ {text}", flush=True)
        if self.dry_run:
            self.log.append({"command": text, "dry_run": True})
            return ""
        t0 = time.time()
        try:
            done = subprocess.run([str(c) for c in cmd], timeout=timeout, text=True,
                                  stdout=subprocess.PIPE if capture else None)
            rc = done.returncode
            out = done.stdout or ""
        except subprocess.TimeoutExpired as e:
            rc, out = 124, (e.stdout or "") if isinstance(e.stdout, str) else ""
        self.log.append({"command": text, "rc": rc, "seconds": round(time.time() - t0, 1)})
        if capture:
            print(out, end="", flush=True)
        if rc not in (0, 124):
            raise SystemExit(f"machine_run: the command failed ({rc}): {text}")
        return out


def build(args, r: Runner) -> Path:
    if args.bin:
        return Path(args.bin)
    feature = "train-cuda" if args.gpu else "train"
    r.run(["cargo", "build", "--release", "--features", feature])
    return Path("target/release/awale")


def checkpoint_iteration(out: Path) -> int:
    """The last iteration the run logged (0 before the first)."""
    metrics = out / "metrics.jsonl"
    if not metrics.exists():
        return 0
    last = 0
    for line in metrics.read_text().splitlines():
        try:
            last = max(last, int(json.loads(line).get("step", 0)))
        except ValueError:
            pass
    return last


def setting(args, section: str, key: str, default: str) -> str:
    """A key of the recipe, as `--set` overrides it."""
    value = config_value(args.config, section, key, default)
    for s in args.set:
        k, _, v = s.partition("=")
        if k.strip() == f"{section}.{key}":
            value = v.strip()
    return value


def train(args, r: Runner, binary: Path):
    iterations = int(setting(args, "training", "iterations", "0"))
    total = float(setting(args, "training", "max_minutes", "0")) or args.chunk_minutes * 3
    chunks = max(1, math.ceil(total / args.chunk_minutes))
    which = [args.chunk] if args.chunk else range(1, chunks + 1)
    for k in which:
        if k < 1 or k > chunks:
            raise SystemExit(f"machine_run: --chunk {k}: the recipe has chunks 1 to {chunks}")
        if not args.dry_run and checkpoint_iteration(args.out) >= iterations > 0:
            print(f"== the run has its {iterations} iterations: chunk {k} has nothing to do")
            break
        cap = min(total, k * args.chunk_minutes)
        print(f"== chunk {k}/{chunks}: training up to {cap:g} minutes of the run's time", flush=True)
        cmd = [binary, "train", "--config", args.config, "--out", args.out, "--no-eval",
               "--no-progress", "--set", f"training.max_minutes={cap:g}"]
        cmd += [x for s in args.set for x in ("--set", s)]
        # The chunk's own guard: its time cap plus a margin for start-up and the last iteration.
        r.run(cmd, timeout=(args.chunk_minutes + 1.5) * 60)


def evaluate(args, r: Runner, binary: Path):
    rules = config_value(args.config, "", "rules") or "abapa"
    net = args.out / "checkpoint.ckpt"
    base = args.baseline
    sims = args.sims
    ev = args.out / "machine_eval"
    common = ["--openings", "6", "--seed", str(args.eval_seed), "--threads", str(args.threads),
              "--no-progress", "--rules", rules]
    spec = lambda path, name, s=sims: f"nn:path={path},sims={s},name={name}"
    if base:
        r.run([binary, "tournament", "--agents", f"{spec(base, 'baseline')},{spec(net, 'network')}",
               "--games", str(args.games), "--out", ev / "head_to_head", *common])
    for who, path in [("network", net)] + ([("baseline", base)] if base else []):
        r.run([binary, "tournament", "--agents", f"alphabeta:depth={args.depth},{spec(path, who)}",
               "--games", str(args.depth_games), "--out", ev / f"{who}_vs_depth{args.depth}", *common])
    tables = Path(args.tables)
    n = args.yardstick_seeds
    if not (tables / f"{rules.split(':')[0]}-{n:02}.awtb").exists():
        r.run([binary, "tablebase", "build", "--rules", rules.split(":")[0], "--max-seeds", str(n),
               "--out", tables, "--threads", str(args.threads)])
    agents = [spec(net, "network", 1)] + ([spec(base, "baseline", 1)] if base else [])
    out = r.run([binary, "tablebase", "accuracy", "--rules", rules.split(":")[0], "--max-seeds", str(n),
                 "--positions", str(args.yardstick_positions), "--seed", "1", "--dir", tables, "--agents", ",".join(agents)],
                capture=True)
    if not args.dry_run:
        (ev / "yardstick.txt").parent.mkdir(parents=True, exist_ok=True)
        (ev / "yardstick.txt").write_text(out)


def score(results: Path, me: str, other: str):
    """(wins, draws, losses, score) of `me` against `other` in a tournament's results.json."""
    d = json.loads(results.read_text())
    m = d["matchups"]
    i, j = m["names"].index(me), m["names"].index(other)
    w, dr, l = m["wins"][i][j], m["draws"][i][j], m["wins"][j][i]
    n = w + dr + l
    return {"wins": w, "draws": dr, "losses": l, "score": (w + dr / 2) / n if n else None}


def collect(args):
    ev = args.out / "machine_eval"
    result = {"config": str(args.config), "out": str(args.out), "baseline": args.baseline,
              "iterations": checkpoint_iteration(args.out)}
    h2h = ev / "head_to_head" / "results.json"
    if h2h.exists():
        result["vs_baseline"] = score(h2h, "network", "baseline")
    for who in ("network", "baseline"):
        f = ev / f"{who}_vs_depth{args.depth}" / "results.json"
        if f.exists():
            result[f"{who}_vs_depth{args.depth}"] = score(f, who, f"alphabeta:depth={args.depth}")
    yard = ev / "yardstick.txt"
    if yard.exists():
        for line in yard.read_text().splitlines():
            m = re.match(r"(network|baseline)\s+([\d.]+)%", line.strip())
            if m:
                result[f"{m.group(1)}_optimal"] = float(m.group(2)) / 100
    (args.out / "machine_results.json").write_text(json.dumps(result, indent=2))
    pct = lambda x: "–" if x is None else f"{100 * x:.1f}%"
    print(f"| run | iterations | vs baseline | vs depth {args.depth} | baseline vs depth {args.depth} "
          f"| yardstick | baseline's yardstick |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {args.config} | {result['iterations']} "
          f"| {pct(result.get('vs_baseline', {}).get('score'))} "
          f"| {pct(result.get(f'network_vs_depth{args.depth}', {}).get('score'))} "
          f"| {pct(result.get(f'baseline_vs_depth{args.depth}', {}).get('score'))} "
          f"| {pct(result.get('network_optimal'))} | {pct(result.get('baseline_optimal'))} |")
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, required=True, help="the recipe (TOML)")
    ap.add_argument("--out", type=Path, required=True, help="the run's folder")
    ap.add_argument("--baseline", help="the network to beat (a checkpoint), e.g. the 2-core recipe's")
    ap.add_argument("--bin", help="a built awale (with the train feature); default: build it")
    ap.add_argument("--gpu", action="store_true", help="build with --features train-cuda")
    ap.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {','.join(STEPS)}")
    ap.add_argument("--chunk", type=int, help="run only this chunk of the training (1, 2, ...)")
    ap.add_argument("--chunk-minutes", type=float, default=8.0, help="the most training time of one chunk")
    ap.add_argument("--set", action="append", default=[], help="a config override for awale train (repeatable)")
    ap.add_argument("--games", type=int, default=400, help="paired games against the baseline")
    ap.add_argument("--depth", type=int, default=10, help="the alpha-beta depth both networks play")
    ap.add_argument("--depth-games", type=int, default=200, help="games against alpha-beta, per network")
    ap.add_argument("--sims", type=int, default=128, help="the networks' simulations in games")
    ap.add_argument("--eval-seed", type=int, default=4242, help="the tournaments' seed (unlike the run's)")
    ap.add_argument("--yardstick-seeds", type=int, default=12, help="most seeds of the yardstick's positions")
    ap.add_argument("--yardstick-positions", type=int, default=1000, help="positions of the endgame yardstick")
    ap.add_argument("--tables", default="tablebases", help="folder of the endgame tables (built if missing)")
    ap.add_argument("--threads", type=int, default=0, help="threads of the evaluation (0: every core)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    args = ap.parse_args(argv)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    for s in steps:
        if s not in STEPS:
            ap.error(f"--steps: unknown step '{s}' (of {', '.join(STEPS)})")
    if not args.config.exists():
        ap.error(f"--config {args.config}: no such file")
    if args.chunk_minutes <= 0 or args.chunk_minutes > 9:
        ap.error("--chunk-minutes must be above 0 and at most 9 (a chunk runs under 10 minutes)")
    if "evaluate" in steps and args.baseline and not args.dry_run and not Path(args.baseline).exists():
        ap.error(f"--baseline {args.baseline}: no such checkpoint")
    log: list = []
    r = Runner(args.dry_run, log)
    binary = Path(args.bin) if args.bin else Path("target/release/awale")
    t0 = time.time()
    if "build" in steps:
        binary = build(args, r)
    if "train" in steps:
        train(args, r, binary)
    if "evaluate" in steps:
        evaluate(args, r, binary)
    if "collect" in steps and not args.dry_run:
        collect(args)
    if not args.dry_run:
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "machine_run.log.jsonl", "a") as f:
            for entry in log:
                f.write(json.dumps(entry) + "\n")
    print(f"== machine_run: {', '.join(steps)} in {time.time() - t0:.0f} s"
          + (" (dry run: nothing ran)" if args.dry_run else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Packs a finished training run as a shipped baseline: baselines/NAME.safetensors and
baselines/NAME.toml (the manifest that src/network/baseline.rs compiles in).

    python3 tools/baseline_manifest.py --bin target/release/awale --run runs/abapa-raised \
        --log runs/abapa-raised.log --name abapa-v1 --recipe training/abapa-raised.toml \
        --commit $(git rev-parse HEAD) --sims 128 --search puct --replay 100 \
        [--strength strength.json]

The log is what `awale train --no-progress` printed (its closing summary gives the iterations,
games, positions, self-play speed and wall time). --strength names a JSON list of
{"opponent", "games", "score", "elo", "elo_lower", "elo_upper", "command"[, "note"]} entries (the
measurements of docs/baselines.md); the script adds them as [[strength]] tables. The replay hash
is that of the run's own generation at --replay iterations (RUN/generations/gen-NNNNNN.ckpt):
`awale baseline replay NAME` (and the CI test) replays the recipe that far and compares.
"""
import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--run", required=True, type=Path)
    ap.add_argument("--log", required=True, type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--commit", required=True)
    ap.add_argument("--machine", default="this project's 2-core development machine (2 CPU cores, 24 GiB), release build, --features train")
    ap.add_argument("--sims", type=int, required=True)
    ap.add_argument("--search", required=True)
    ap.add_argument("--reuse-tree", action="store_true", help="the search keeps its tree from move to move ([play] reuse_tree)")
    ap.add_argument("--replay", type=int, required=True)
    ap.add_argument("--strength", type=Path)
    ap.add_argument("--out", type=Path, default=Path("baselines"))
    ap.add_argument("--wall", type=float, help="wall time in seconds (a resumed run: the parts' sum)")
    ap.add_argument("--command", help="the command that trained it (default: from the recipe and --set)")
    a = ap.parse_args()

    log = a.log.read_text()
    m = re.search(r"(\d+) iterations, (\d+) gradient steps, (\d+) self-play games, (\d+) training positions", log)
    if not m:
        sys.exit(f"{a.log}: no closing summary")
    iterations, _, games, positions = map(int, m.groups())
    moves = float(re.search(r"self-play: (\d+) moves/s", log).group(1))
    wall = a.wall if a.wall is not None else float(re.search(r"wall time: ([\d.]+) s", log).group(1))
    cfg = (a.run / "config.toml").read_text()
    seed = int(re.search(r"^seed = (\d+)", cfg, re.M).group(1))
    threads = int(re.search(r"^threads = (\d+)", cfg, re.M).group(1))
    rules = re.search(r'^rules = "([^"]+)"', cfg, re.M).group(1)

    a.out.mkdir(parents=True, exist_ok=True)
    weights = a.out / f"{a.name}.safetensors"
    subprocess.run([a.bin, "network", "export", str(a.run / "checkpoint.ckpt"), "--out", str(weights)],
                   check=True, stdout=subprocess.DEVNULL)
    sha = hashlib.sha256(weights.read_bytes()).hexdigest()
    gen = a.run / "generations" / f"gen-{a.replay:06d}.ckpt"
    info = json.loads(subprocess.run([a.bin, "network", "info", str(gen), "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    command = a.command or (f"awale train --config {Path(a.recipe).stem}" + "".join(f" --set {s}" for s in a.set))

    lines = [
        f"# The baseline {a.name}: written by tools/baseline_manifest.py from the run that made it.",
        f"name = {toml_str(a.name)}",
        f"rules = {toml_str(rules)}",
        f"recipe = {toml_str(a.recipe)}",
        f"set = {json.dumps(a.set)}",
        f"seed = {seed}",
        f"threads = {threads}",
        f"commit = {toml_str(a.commit)}",
        f"machine = {toml_str(a.machine)}",
        f"command = {toml_str(command)}",
        f"wall_secs = {wall}",
        f"iterations = {iterations}",
        f"positions = {positions}",
        f"games = {games}",
        f"moves_per_sec = {moves}",
        f"sha256 = {toml_str(sha)}",
        "",
        "[play]",
        f"sims = {a.sims}",
        f"search = {toml_str(a.search)}",
    ] + (["reuse_tree = true"] if a.reuse_tree else []) + [
        "",
        "[replay]",
        f"iterations = {a.replay}",
        f"params_sha256 = {toml_str(info['params_sha256'])}",
    ]
    if a.strength:
        for s in json.loads(a.strength.read_text()):
            lines += ["", "[[strength]]"]
            for k in ("opponent", "games", "score", "elo", "elo_lower", "elo_upper", "command", "note"):
                if k not in s:
                    continue
                v = s[k]
                if k in ("score", "elo", "elo_lower", "elo_upper"):
                    v = float(v)
                lines.append(f"{k} = {toml_str(v) if isinstance(v, str) else v}")
    (a.out / f"{a.name}.toml").write_text("\n".join(lines) + "\n")
    print(f"wrote {weights} ({weights.stat().st_size} bytes, sha256 {sha[:12]}…) and {a.out / (a.name + '.toml')}")


if __name__ == "__main__":
    main()

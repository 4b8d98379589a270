"""`tools/machine_run.py`, the script that runs a recipe on a bigger machine in resumed chunks
and evaluates it against a baseline network: its plan (--dry-run: the build, the chunks with
growing time caps under 10 minutes each, the tournaments and the yardstick), its refusals, and
its CPU path for real on the tiny config (train, evaluate, collect) with the train build of
the binary (AWALE_BIN), small everywhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "machine_run.py"


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_the_plan_of_the_16_core_recipe(tmp_path):
    done = run("--config", "training/abapa-16core.toml", "--out", tmp_path / "run",
               "--baseline", "runs/abapa/checkpoint.ckpt", "--dry-run")
    assert done.returncode == 0, done.stderr
    lines = [l[2:] for l in done.stdout.splitlines() if l.startswith("$ ")]
    assert lines[0] == "cargo build --release --features train"
    chunks = [l for l in lines if " train --config " in l]
    # 19 minutes in chunks of at most 8: caps 8, 16, 19, each resumed in the same folder.
    assert [c.rsplit("training.max_minutes=", 1)[1] for c in chunks] == ["8", "16", "19"]
    assert all("--no-eval" in c and str(tmp_path / "run") in c for c in chunks)
    tournaments = [l for l in lines if " tournament " in l]
    assert len(tournaments) == 3
    assert "name=baseline" in tournaments[0] and "--games 400" in tournaments[0]
    assert "--seed 4242" in tournaments[0]
    assert all("alphabeta:depth=10" in t for t in tournaments[1:])
    assert any(" tablebase accuracy " in l and "sims=1,name=network" in l for l in lines)
    assert not (tmp_path / "run").exists(), "a dry run writes nothing"


def test_the_gpu_build_and_one_chunk(tmp_path):
    done = run("--config", "training/abapa-gpu.toml", "--out", tmp_path / "run", "--gpu",
               "--steps", "build,train", "--chunk", "2", "--dry-run")
    assert done.returncode == 0, done.stderr
    lines = [l[2:] for l in done.stdout.splitlines() if l.startswith("$ ")]
    assert lines[0] == "cargo build --release --features train-cuda"
    assert len(lines) == 2 and lines[1].endswith("training.max_minutes=16")


@pytest.mark.parametrize("args, reason", [
    (["--steps", "train,fly"], "unknown step 'fly'"),
    (["--chunk-minutes", "12"], "at most 9"),
    (["--chunk", "9"], "chunks 1 to 3"),
])
def test_bad_arguments_are_refused(tmp_path, args, reason):
    done = run("--config", "training/abapa-16core.toml", "--out", tmp_path / "run", "--dry-run", *args)
    assert done.returncode != 0
    assert reason in done.stderr + done.stdout


def test_the_cpu_path_for_real_on_the_tiny_config(tmp_path, awale_bin):
    binary = awale_bin
    config = tmp_path / "tiny.toml"
    shutil.copy(ROOT / "training" / "tiny.toml", config)
    common = ["--config", config, "--bin", binary, "--threads", "2"]
    base = tmp_path / "base"
    done = run(*common, "--out", base, "--steps", "train", "--set", "training.iterations=4")
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "run"
    done = run(*common, "--out", out, "--steps", "train,evaluate,collect", "--chunk-minutes", "1",
               "--set", "training.iterations=6", "--baseline", base / "checkpoint.ckpt",
               "--games", "4", "--depth", "2", "--depth-games", "4", "--sims", "4",
               "--yardstick-seeds", "5", "--yardstick-positions", "50", "--tables", tmp_path / "tb")
    assert done.returncode == 0, done.stdout + done.stderr
    # Chunk 2 and 3 find the run finished.
    assert done.stdout.count("has nothing to do") == 1
    result = json.loads((out / "machine_results.json").read_text())
    assert result["iterations"] == 6
    vs = result["vs_baseline"]
    assert vs["wins"] + vs["draws"] + vs["losses"] == 4
    assert 0 <= result["network_vs_depth2"]["score"] <= 1
    assert 0 <= result["baseline_vs_depth2"]["score"] <= 1
    assert 0 < result["network_optimal"] <= 1 and 0 < result["baseline_optimal"] <= 1
    assert "| vs baseline |" in done.stdout
    log = [json.loads(l) for l in (out / "machine_run.log.jsonl").read_text().splitlines()]
    assert all(entry["rc"] == 0 for entry in log)

#!/usr/bin/env bash
# Self-play from Python on a GPU against the same machine's CPU cores (docs/performance.md,
# "A GPU that pays"): the one prepared script for a lent GPU machine, which has Python with
# torch, numpy and safetensors but no Rust. Build here, carry the wheels, run there:
#
#   mkdir -p shared/gpu-wheels
#   pip wheel --no-deps . -w shared/gpu-wheels               # the awale wheel (on a Rust machine)
#   pip download gymnasium pettingzoo cloudpickle farama-notifications --no-deps -d shared/gpu-wheels
#   bash benches/gpu_selfplay.sh shared/gpu-wheels           # on the GPU machine; results in $OUT
#
# It runs, each for SECONDS (default 66) of training after its start:
#   1. awale.recipes.az_torch --device cuda, every thread's leaves gathered (--eval-batch GAMES/2),
#      with nvidia-smi sampling the GPU's busy share once a second;
#   2. the same run with --device cpu on every core (--eval-batch 0, each thread its own calls),
#      the same network (--hidden 512 512 512) and search;
#   3. the forward pass of awale.torch.Evaluator in fp32, tf32 and bf16 on one batch: time per
#      call and the largest difference from fp32 (whether the faster precisions keep the results).
# and prints one table. Environment: GAMES (2048), THREADS (14), SECONDS (66), POSITIONS (8192).
set -euo pipefail
WHEELS="${1:?usage: gpu_selfplay.sh WHEEL_FOLDER}"
OUT="${OUT:-$(mktemp -d)}"
GAMES="${GAMES:-2048}"
THREADS="${THREADS:-14}"
SECONDS_EACH="${SECONDS:-66}"
POSITIONS="${POSITIONS:-8192}"
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --no-index --find-links "$WHEELS" awale gymnasium pettingzoo
python3 -c "import torch; assert torch.cuda.is_available(), 'no CUDA GPU'; print(torch.__version__, torch.cuda.get_device_name(0))"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
MINUTES=$(python3 -c "print($SECONDS_EACH / 60)")
COMMON=(--hidden 512 512 512 --games "$GAMES" --threads "$THREADS" --positions-per-iteration "$POSITIONS"
        --batch-size 1024 --min-replay "$POSITIONS" --max-minutes "$MINUTES" --final-games 0
        --eval-every 0 --generations-every 0)

nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -l 1 > "$OUT/gpu-busy.txt" &
SMI=$!
python3 -m awale.recipes.az_torch --device cuda --out "$OUT/cuda" "${COMMON[@]}" 2>&1 | tail -3
kill "$SMI" 2>/dev/null || true
python3 -m awale.recipes.az_torch --device cpu --torch-threads "$(nproc)" --out "$OUT/cpu" "${COMMON[@]}" 2>&1 | tail -3

python3 - "$OUT" <<'EOF'
import json, statistics, sys, time
import numpy as np, torch
import awale, awale.torch as at

out = sys.argv[1]
def rows(d):
    return [json.loads(l) for l in open(f"{out}/{d}/metrics.jsonl")][1:]  # the first holds the start
print("\n| device | self-play positions/s | moves/s | leaves per call | network busy (its calls) | gradient steps/s |")
print("|---|---|---|---|---|---|")
rate = {}
for d in ("cuda", "cpu"):
    r = rows(d)
    play = sum(x["selfplay_s"] for x in r)
    learn = sum(x["learn_s"] for x in r)
    pos = sum(x["positions_per_s"] * x["selfplay_s"] for x in r) / max(play, 1e-9)
    mov = sum(x["moves_per_s"] * x["selfplay_s"] for x in r) / max(play, 1e-9)
    busy = [x["evaluator_busy"] for x in r if x.get("evaluator_busy") is not None]
    rate[d] = pos
    print(f"| {d} | {pos:,.0f} | {mov:,.0f} | {statistics.median(x['mean_batch'] for x in r):,.0f} | "
          f"{'' if not busy else f'{100 * statistics.median(busy):.0f}%'} | "
          f"{sum(1 for x in r if 'loss' in x) * 40 / max(learn, 1e-9):.0f} |")
util = [float(x) for x in open(f"{out}/gpu-busy.txt").read().split() if x.strip()]
print(f"\ncuda / cpu self-play: {rate['cuda'] / max(rate['cpu'], 1e-9):.2f}x; nvidia-smi utilization "
      f"median {statistics.median(util) if util else float('nan'):.0f}% over {len(util)} s")

net = at.new_network("abapa", [512, 512, 512], "onehot:16")
x = np.random.default_rng(0).random((2048, net.header["input"]), dtype=np.float32)
mask = np.ones((2048, 6), bool)
ref = None
print("\n| precision | ms a call of 2,048 | largest |logit - fp32| | largest |value - fp32| |")
print("|---|---|---|---|")
for p in ("fp32", "tf32", "bf16"):
    ev = at.Evaluator(net, "cuda", precision=p)
    for _ in range(5):
        ev(x, mask)
    t = time.perf_counter()
    for _ in range(50):
        l, v = ev(x, mask)
    ms = 1000 * (time.perf_counter() - t) / 50
    if ref is None:
        ref = (l, v)
    print(f"| {p} | {ms:.3f} | {np.abs(l - ref[0]).max():.2e} | {np.abs(v - ref[1]).max():.2e} |")
EOF
echo "results: $OUT"

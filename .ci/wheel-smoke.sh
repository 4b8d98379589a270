#!/usr/bin/env bash
# Installs a built wheel into a fresh venv on a PATH without any Rust toolchain and runs it as a
# user would: a Gymnasium make/step, a PettingZoo api_test, a tournament, the `awale` command
# (console script and `python -m awale`), `awale train` (the tiny config), a tournament with the
# trained network (`nn:`), `awale.Network.predict` on the env's scaled observations, and
# `awale serve` answering one request, and the recipes and example bot shipped in the wheel
# (`python -m awale.recipes.NAME`, `python -m awale.examples.uci_bot`).
#
#   bash .ci/wheel-smoke.sh dist/awale-0.1.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
#
# PYTHON picks the interpreter that makes the venv (default: python3 found on the current PATH).
set -euo pipefail

if [[ $# -ne 1 || ! -f "$1" ]]; then
  echo "usage: $0 WHEEL" >&2
  exit 2
fi
WHEEL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
PY="$(command -v "${PYTHON:-python3}")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
START=$SECONDS

"$PY" -m venv "$TMP/venv"
VENV="$TMP/venv"
# From here on: the venv and the system's directories only (no ~/.cargo/bin, no rustup).
export PATH="$VENV/bin:/usr/bin:/bin"
unset CARGO_HOME RUSTUP_HOME CARGO_TARGET_DIR
if command -v cargo > /dev/null 2>&1 || command -v rustc > /dev/null 2>&1; then
  echo "error: a Rust toolchain is on PATH ($(command -v cargo rustc | head -n 1)): the smoke test must run without one" >&2
  exit 1
fi
cd "$TMP"   # not the checkout: `import awale` must find the installed package

echo "== install $(basename "$WHEEL") (no cargo on PATH)"
t=$SECONDS
python -m pip install --quiet --disable-pip-version-check "$WHEEL"
echo "   installed in $((SECONDS - t)) s"

echo "== Gymnasium make/step, vector env, PettingZoo api_test"
python - <<'PYEOF'
import gymnasium as gym
import numpy as np
import awale
from pettingzoo.test import api_test
from awale.pettingzoo import env as aec_env

env = gym.make("awale/Abapa-v0")
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
for _ in range(50):
    obs, reward, terminated, truncated, info = env.step(int(awale.sample_legal(info["action_mask"], rng)))
    if terminated or truncated:
        obs, info = env.reset()
envs = gym.make_vec("awale/Abapa-v0", num_envs=8, vectorization_mode="vector_entry_point")
obs, info = envs.reset(seed=0)
obs, reward, terminated, truncated, info = envs.step(awale.sample_legal(info["action_mask"], rng))
assert obs.shape[0] == 8
api_test(aec_env(rules="oware3"), num_cycles=50)
print(f"   awale {awale.__version__}: gymnasium, vector env and pettingzoo api_test ok")
PYEOF

echo "== tournament (Python API)"
python -c "
import awale
r = awale.tournament('random,greedy', games=4, seed=1)
print('  ', type(r).__name__, 'ok')
"

echo "== every shipped baseline from the installed wheel: a legal game, its manifest's hash"
python - <<'PYEOF'
import os, tempfile
import awale
names = [m["name"] for m in awale.baselines()]
assert {"abapa-v1", "awale-v1", "wari-v1", "oware3-v1", "oware4-v1", "oware6-v1"} <= set(names), names
for m in awale.baselines():
    rules = m["rules"]
    players = 2 if not rules.startswith("oware") else int(rules[5:])
    specs = [f"nn:baseline={m['name']},sims=4"] + ["random"] * (players - 1)
    r = awale.tournament([(f"base{i}" if i else "baseline", s) for i, s in enumerate(specs)],
                         rules=rules, games=players, seed=1, max_plies=80)
    assert r.games == players, (m["name"], r.games)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "n.safetensors")
        awale.Network.baseline(m["name"]).export_safetensors(out)
    assert awale.Network.baseline(m["name"]).rules.players == players
print(f"   {len(names)} baselines played legal games: {', '.join(names)}")
PYEOF
awale baseline list > "$TMP/baselines.txt"
grep -q abapa-v1 "$TMP/baselines.txt"

echo "== the awale command"
awale --version
awale rules > "$TMP/rules.txt"
grep -q abapa "$TMP/rules.txt"
awale tournament --agents random,greedy --games 2
python -m awale --version

echo "== the recipes and the example bot from the installed wheel (no torch, sb3 or ray here)"
# Every recipe file is in the wheel; the two whose --help needs no extra run as modules.
python - "$WHEEL" <<'PYEOF'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
want = {f"awale/recipes/{r}.py" for r in ["__init__", "az_torch", "maskable_ppo", "plot_metrics",
        "ppo_selfplay", "ray_selfplay", "rllib_selfplay", "torch_dlpack", "torchrl_ppo"]}
want |= {"awale/examples/__init__.py", "awale/examples/uci_bot.py"}
assert want <= names, sorted(want - names)
print(f"   {len(want)} recipe and example files in the wheel")
PYEOF
python -m awale.recipes.maskable_ppo --help > "$TMP/recipe-help.txt"
grep -q -- "--timesteps" "$TMP/recipe-help.txt" || { cat "$TMP/recipe-help.txt"; exit 1; }
python -m awale.recipes.plot_metrics --help > "$TMP/plot-help.txt"
grep -q -- "--prefix" "$TMP/plot-help.txt" || { cat "$TMP/plot-help.txt"; exit 1; }
printf 'uci\nposition startpos moves C\ngo movetime 100\nquit\n' | python -m awale.examples.uci_bot > "$TMP/bot.txt"
grep -q "^bestmove" "$TMP/bot.txt" || { cat "$TMP/bot.txt"; exit 1; }
# On the command line a spec list is split at spaces: the bot is named by its file.
BOT=$(python -c 'import awale.examples.uci_bot as b; print(b.__file__)')
awale tournament --agents "engine:cmd=$VENV/bin/python,args=$BOT,name=bot,random" \
  --games 2 --no-progress > "$TMP/bot-tournament.txt"
grep -q "bot" "$TMP/bot-tournament.txt" || { cat "$TMP/bot-tournament.txt"; exit 1; }
echo "   python -m awale.recipes.maskable_ppo --help, plot_metrics --help, awale.examples.uci_bot ok"

echo "== awale train (tiny), the network in a tournament and from Python"
t=$SECONDS
awale train --config tiny --out "$TMP/run" --no-progress > "$TMP/train.log" 2>&1 || { cat "$TMP/train.log"; exit 1; }
test -f "$TMP/run/checkpoint.ckpt"
# The recipes are built in by name (the wheel has no training/ folder); an unknown name lists them.
# Output goes to files before grep: `| grep -q` stops reading at the first match, and the closed
# pipe ends awale with status 141 (as it ends cat), which pipefail counts as a failure.
awale train --config abapa --print-config > "$TMP/abapa.toml"
grep -q 'name = "abapa"' "$TMP/abapa.toml" || { cat "$TMP/abapa.toml"; exit 1; }
if awale train --config abapx > "$TMP/bad.log" 2>&1; then echo "--config abapx ran" >&2; exit 1; fi
grep -q "oware3" "$TMP/bad.log" || { cat "$TMP/bad.log"; exit 1; }
awale tournament --agents "nn:path=$TMP/run/checkpoint.ckpt,sims=8,name=net,random" --games 2 --no-progress \
  > "$TMP/nn-tournament.txt"
grep -q "net" "$TMP/nn-tournament.txt" || { cat "$TMP/nn-tournament.txt"; exit 1; }
python - "$TMP/run/checkpoint.ckpt" <<'PYEOF'
import sys
import numpy as np
import awale
net = awale.Network(sys.argv[1])
env = awale.AwaleEnv("abapa", obs=net.encoding, obs_scale="network")
obs, info = env.reset(seed=0)
np.testing.assert_array_equal(obs, net.encode(env.state))
logits, values = net.predict(obs[None, :])
assert logits.shape == (1, net.actions) and values.shape == (1, net.values)
r = awale.tournament([f"nn:path={sys.argv[1]},sims=8", "random"], games=2, seed=1)
assert r.games == 2
print(f"   {net!r}: predict ok, value {values[0, 0]:+.3f}")
PYEOF
echo "   train, nn tournament and Network in $((SECONDS - t)) s"

echo "== awale serve answers a request"
awale serve --port 0 > "$TMP/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$TMP/serve.log" 2>/dev/null && break
  sleep 0.1
done
URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$TMP/serve.log" | head -n 1)
python -c "
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1].rstrip('/') + '/api/agents', timeout=10) as r:
    assert r.status == 200, r.status
    body = json.load(r)
print('   GET /api/agents:', r.status, len(body) if hasattr(body, '__len__') else body)
" "$URL" || { kill "$SERVE_PID"; cat "$TMP/serve.log"; exit 1; }
kill "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
set +e
awale no-such-command > /dev/null 2>&1
code=$?
set -e
if [[ $code -ne 2 ]]; then
  echo "error: a usage error exited with $code, expected 2 (as the Rust binary)" >&2
  exit 1
fi
echo "== wheel smoke test passed in $((SECONDS - START)) s"

#!/usr/bin/env bash
# Builds what a release publishes into dist/:
#   - the abi3 wheel for Linux x86_64, manylinux2014 (glibc 2.17: RHEL/CentOS 7+, Ubuntu 18.04+),
#     cross-linked with zig so the build machine's newer glibc does not leak into the wheel;
#   - the source distribution (sdist).
# Then checks the wheel with auditwheel and prints each file's size and the wheel's tags.
#
#   bash scripts/build-dist.sh                 # tools in a venv under ~/.cache/awale/dist-venv
#   AWALE_DIST_VENV=/path/to/venv bash scripts/build-dist.sh
#
# Needs Rust (rustup's stable toolchain) and Python 3.9+; installs maturin, ziglang and auditwheel
# into the venv. The wheel carries the extension built with features `python,cli,serve,train`
# (pyproject.toml), so `pip install` gives the `awale` command with every subcommand, the
# trainer included. See docs/releasing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${AWALE_DIST_VENV:-$HOME/.cache/awale/dist-venv}"
PY="${PYTHON:-python3}"
OUT=dist
START=$SECONDS

if [[ ! -x "$VENV/bin/python" ]]; then
  "$PY" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import maturin, ziglang, auditwheel" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet "maturin>=1.9.4,<2" ziglang auditwheel
fi
export PATH="$VENV/bin:$PATH"

rm -rf "$OUT"
mkdir -p "$OUT"

echo "== wheel: maturin build --release --zig --compatibility manylinux2014 (x86_64, abi3)"
maturin build --release --zig --compatibility manylinux2014 --out "$OUT"

echo "== sdist: maturin sdist"
maturin sdist --out "$OUT"

shopt -s nullglob
wheels=("$OUT"/awale-*.whl)
sdists=("$OUT"/awale-*.tar.gz)
if [[ ${#wheels[@]} -ne 1 || ${#sdists[@]} -ne 1 ]]; then
  echo "error: expected one wheel and one sdist in $OUT, found: $(ls "$OUT")" >&2
  exit 1
fi
wheel="${wheels[0]}"

echo "== auditwheel show"
auditwheel show "$wheel" | tee "$OUT/auditwheel.txt"
if ! grep -q 'manylinux_2_17_x86_64' "$OUT/auditwheel.txt"; then
  echo "error: the wheel is not manylinux_2_17 (manylinux2014) compatible" >&2
  exit 1
fi

echo "== contents"
"$VENV/bin/python" - "$wheel" <<'PYEOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for need in ("LICENSE-MIT", "LICENSE-APACHE"):
    if not any(n.endswith("/" + need) for n in names):
        sys.exit(f"error: {need} is not in the wheel")
if not any(n.endswith("entry_points.txt") for n in names):
    sys.exit("error: no entry_points.txt (the `awale` console script) in the wheel")
print(f"{len(names)} files, licences and entry points present")
PYEOF

echo "== dist/"
for f in "$wheel" "${sdists[0]}"; do
  printf '%8d bytes  %s\n' "$(stat -c %s "$f")" "$(basename "$f")"
done
tags="$(basename "$wheel" .whl | cut -d- -f3-)"
echo "wheel tags: $tags"
echo "== done in $((SECONDS - START)) s"

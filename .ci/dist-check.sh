#!/usr/bin/env bash
# Distribution checks that need no wheel build (a minute or two; the integrator wires it into CI):
#   1. .github/workflows/release.yml against the GitHub workflow schema (check-jsonschema's
#      built-in `vendor.github-workflows`; actionlint cannot be installed here). The workflow
#      itself never runs here: see docs/releasing.md.
#   2. `cargo package --list`: the crate's files; fails when notebooks, images, run data, Python
#      files, CI files or anything outside the reviewed include list slip in, or when a licence
#      is missing.
#   3. `pip install --dry-run` of the package with each extra in a throwaway venv: every extra
#      resolves (nothing is downloaded beyond metadata; torch is gigabytes). Needs the index;
#      AWALE_DIST_SKIP_RESOLVE=1 skips this step (offline machines).
#
#   bash .ci/dist-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
START=$SECONDS

echo "== 1. release workflow against the workflow schema"
"$PY" -m venv "$TMP/tools"
"$TMP/tools/bin/python" -m pip install --quiet check-jsonschema
"$TMP/tools/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/release.yml
echo "   ($((SECONDS - START)) s)"

echo "== 2. cargo package --list"
cargo package --list --allow-dirty --quiet > "$TMP/files.txt"
count=$(wc -l < "$TMP/files.txt")
echo "   $count files"
for need in LICENSE-MIT LICENSE-APACHE README.md Cargo.toml src/lib.rs; do
  grep -qx "$need" "$TMP/files.txt" || { echo "error: $need is not in the crate" >&2; exit 1; }
done
# Only what the include list allows (Cargo adds Cargo.toml.orig, Cargo.lock and .cargo_vcs_info.json).
bad=$(grep -Ev '^(src/.*\.rs|src/serve/(page\.(html|js|css)|openapi\.json)|benches/(engine|batch)\.rs|training/[a-z0-9_-]+\.toml|baselines/[a-z0-9-]+\.(toml|safetensors)|scorecard/v[0-9]+\.toml|LICENSE-(MIT|APACHE)|README\.md|CHANGELOG\.md|Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json)$' "$TMP/files.txt" || true)
if [[ -n "$bad" ]]; then
  echo "error: unexpected files in the crate:" >&2
  echo "$bad" >&2
  exit 1
fi
# Every file the sources compile in from beside them (include_str!/include_bytes! of a plain
# file name) must ship, or the published crate does not build.
for f in $(grep -rhoE 'include_(str|bytes)!\("[a-z][^"/]*"\)' src | sed -E 's/.*\("([^"]+)"\)/\1/' | sort -u); do
  for path in $(cd src && find . -name "$f" | sed 's|^\./|src/|'); do
    grep -qx "$path" "$TMP/files.txt" || { echo "error: $path is compiled in but not in the crate" >&2; exit 1; }
  done
done
if grep -Eq '\.(ipynb|png|jpg|svg|jsonl|py|pyi)$|^(notebooks|runs|docs/img|python|tests)/' "$TMP/files.txt"; then
  echo "error: notebooks, images, run data, tests or Python files in the crate" >&2
  exit 1
fi
# A ceiling against files the include list lets in by mistake (the checks above name the kinds):
# the crate is the source files, 153 at issue 42 and 163 after the search's split (issue 51),
# the baselines' 12 files (issue 50), the recipes and the packaging files: 201 at issue 51.
if (( count > 240 )); then
  echo "error: $count files in the crate (more than 240): review the include list in Cargo.toml" >&2
  exit 1
fi
echo "   ($((SECONDS - START)) s)"

if [[ "${AWALE_DIST_SKIP_RESOLVE:-0}" == "1" ]]; then
  echo "== 3. extras: skipped (AWALE_DIST_SKIP_RESOLVE=1)"
else
  echo "== 3. every extra resolves (pip install --dry-run in a throwaway venv)"
  "$PY" -m venv "$TMP/resolve"
  "$TMP/resolve/bin/python" -m pip install --quiet --upgrade pip
  extras=$("$TMP/tools/bin/python" - <<'PYEOF'
import pathlib
try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib
data = tomllib.loads(pathlib.Path("pyproject.toml").read_text())
print(" ".join(sorted(data["project"]["optional-dependencies"])))
PYEOF
)
  for extra in $extras; do
    # The package's dependencies plus the extra's requirements, `awale[x]` self-references
    # expanded here (awale itself is not on the index yet, and building it needs Rust).
    reqs=$("$TMP/tools/bin/python" - "$extra" <<'PYEOF'
import sys, pathlib, re
try:
    import tomllib
except ModuleNotFoundError:
    import tomli as tomllib
proj = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
extras = proj["optional-dependencies"]
out, todo, seen = list(proj["dependencies"]), [sys.argv[1]], set()
while todo:
    e = todo.pop()
    if e in seen:
        continue
    seen.add(e)
    for r in extras[e]:
        m = re.fullmatch(r"awale\[([^\]]+)\]", r.replace(" ", ""))
        if m:
            todo.extend(m.group(1).split(","))
        else:
            out.append(r)
print("\n".join(out))
PYEOF
)
    t=$SECONDS
    mapfile -t req_list <<< "$reqs"
    if ! "$TMP/resolve/bin/python" -m pip install --quiet --dry-run --ignore-installed \
        "${req_list[@]}" > "$TMP/extra-$extra.log" 2>&1; then
      echo "error: extra [$extra] does not resolve:" >&2
      cat "$TMP/extra-$extra.log" >&2
      exit 1
    fi
    echo "   [$extra] resolves ($((SECONDS - t)) s)"
  done
fi

echo "== dist checks passed in $((SECONDS - START)) s"

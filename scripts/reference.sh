#!/usr/bin/env bash
# Builds the API reference into target/reference/ (AWALE_REFERENCE_DIR): the crate's, by
# `cargo doc` with the features docs.rs builds, and the Python package's, by pdoc
# (scripts/reference_python.py), with an index page that links both and the guides in docs/.
# Warnings are errors: an undocumented public item, a broken or private intra-doc link, a pdoc
# warning, an unresolved cross-reference or a broken link of the pages fails the build.
#
#   bash scripts/reference.sh            # both halves
#   bash scripts/reference.sh rust       # the crate's only (no Python needed)
#   bash scripts/reference.sh python     # the package's only
#
# The Python half documents the `awale` that $PYTHON (default python3) imports: install the
# package first (`pip install ".[sb3,torch]"` or the wheel) and pdoc (`pip install "pdoc>=16,<17"`).
set -euo pipefail
cd "$(dirname "$0")/.."

WHAT="${1:-all}"
OUT="${AWALE_REFERENCE_DIR:-target/reference}"
PY="${PYTHON:-python3}"
case "$WHAT" in
  all | rust | python) ;;
  *) echo "usage: bash scripts/reference.sh [all|rust|python]" >&2; exit 2 ;;
esac
mkdir -p "$OUT"

if [[ "$WHAT" != python ]]; then
  # The features docs.rs builds (Cargo.toml's [package.metadata.docs.rs], with the defaults);
  # `missing_docs` is a lint of the crate (src/lib.rs), the intra-doc link lints are rustdoc's.
  RUSTDOCFLAGS="${RUSTDOCFLAGS:-} -D warnings" cargo doc --no-deps --features python,train
  rm -rf "$OUT/rust"
  cp -r "${CARGO_TARGET_DIR:-target}/doc" "$OUT/rust"
fi

if [[ "$WHAT" != rust ]]; then
  rm -rf "$OUT/python"
  # Run from outside the source tree, so that the installed package is the one documented.
  OUT_ABS="$(mkdir -p "$OUT" && cd "$OUT" && pwd)"
  (cd /tmp && "$PY" "$OLDPWD/scripts/reference_python.py" "$OUT_ABS/python")
fi

# The index: both halves (whichever are built) and the guides, read in place from docs/.
DOCS_REL="$(realpath --relative-to="$OUT" docs)"
{
  echo '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>awale: API reference</title></head>'
  echo '<body><h1>awale: API reference</h1><ul>'
  [[ -f "$OUT/rust/awale/index.html" ]] &&
    echo '<li><a href="rust/awale/index.html">Rust: the <code>awale</code> crate</a> (features cli, serve, python, train)</li>'
  [[ -f "$OUT/python/awale.html" ]] &&
    echo '<li><a href="python/awale.html">Python: the <code>awale</code> package</a> (<a href="python/index.html">every module</a>)</li>'
  echo '</ul><h2>Guides</h2><ul>'
  for f in docs/*.md; do
    title="$(sed -n 's/^# //p' "$f" | head -n 1 | sed 's/&/\&amp;/g; s/</\&lt;/g')"
    echo "<li><a href=\"$DOCS_REL/$(basename "$f")\">${title:-$(basename "$f")}</a></li>"
  done
  echo '</ul></body></html>'
} > "$OUT/index.html"
echo "reference: $OUT/index.html"

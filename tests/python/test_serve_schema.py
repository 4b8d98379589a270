"""`awale serve` against its own OpenAPI document, by schemathesis: generated requests to every
route (valid and invalid, then stateful sequences that create a game and play it through the
document's links) on 127.0.0.1, a bounded number of examples with a fixed seed. Checks: no 5xx,
only documented status codes and content types, every answer matching its schema (so every
4xx carries a non-empty ``{"error": reason}``). Skipped (failed under ``CI=true``) without the
binary (``AWALE_BIN``) or schemathesis.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CI = os.environ.get("CI", "").lower() == "true"


def _need(what: str):
    if CI:
        pytest.fail(f"{what} is missing (CI installs it)")
    pytest.skip(f"{what} is missing")


def test_every_route_matches_the_openapi_document(tmp_path):
    binary = os.environ.get("AWALE_BIN")
    if not binary or not Path(binary).exists():
        _need("the awale binary with `serve` (AWALE_BIN)")
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which(
        "schemathesis"
    )
    if st is None:
        _need("schemathesis")
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--move-time-ms", "500"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("awale serve: listening on http://127.0.0.1:"), line
        url = line.split()[-1]
        run = subprocess.run(
            [st, "run", f"{url}api/openapi.json", "--checks", "all",
             "--exclude-checks", "positive_data_acceptance", "--max-examples", "30",
             "--phases", "examples,coverage,fuzzing,stateful",
             "--seed", "1", "--workers", "1", "--request-timeout", "20",
             "--report-dir", str(tmp_path)],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        assert "passed" in run.stdout
        assert proc.poll() is None, "the server died"
    finally:
        proc.kill()
        proc.wait()

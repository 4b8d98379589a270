"""The load test of `awale serve` (`tools/serve_load.py`) in small: 20 clients playing whole
games against instant agents and 2 asking for the costliest agent the policy allows, for 5
seconds on 127.0.0.1. It must end by itself with the server alive, no 5xx but 503, and no
client error. The figures of docs/play.md come from the full run (200 clients, release build).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_small_load_runs_clean(tmp_path, awale_bin):
    binary = awale_bin
    out = tmp_path / "load.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "serve_load.py"), "--bin", binary,
         "--clients", "20", "--costly", "2", "--seconds", "5", "--move-time-ms", "500",
         "--json", str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(out.read_text())
    assert result["server_alive"]
    assert result["games_finished"] > 0
    assert result["requests"] > 100
    assert all(int(code) < 500 or code == "503" for code in result["statuses"]), result
    assert result["peak_threads"] and result["peak_rss_mib"] > 0
    assert result["probe_requests"] > 10 and result["probe_p99_ms"] > 0

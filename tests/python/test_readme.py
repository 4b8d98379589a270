"""Every ```python block of python/README.md runs as written (in a temporary folder), so the
newcomer's walk through Gymnasium, PettingZoo, SB3, TorchRL, PyTorch and the endgame tables
stays true. A block whose package is missing is skipped, or fails under ``CI=true``."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "python" / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
CI = os.environ.get("CI", "").lower() == "true"
#: Blocks that need RLlib (its own venv) start with this comment; tests/python/test_rllib.py runs them.
RLLIB_MARK = "# needs ray[rllib]"
#: Blocks that need the extension built with the trainer; tests/python/test_trainer.py runs them.
TRAINER_MARK = "# needs the trainer"


def _needs(code: str) -> list[str]:
    mods = set(re.findall(r"^\s*(?:from|import)\s+([a-zA-Z_][\w]*)", code, re.M))
    for line in re.findall(r"^\s*import\s+(.+)$", code, re.M):
        mods.update(m.strip().split()[0] for m in line.split(","))
    return sorted(m for m in mods if importlib.util.find_spec(m) is None)


def test_the_readme_has_the_walkthrough():
    text = "\n".join(BLOCKS)
    for needle in ["gym.make(", "awale.pettingzoo.env(", "MaskablePPO", "GymWrapper", "from_dlpack",
                   "Tablebase", "AwaleMultiAgentEnv"]:
        assert needle in text, needle


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch):
    code = BLOCKS[index]
    if code.startswith(RLLIB_MARK):
        pytest.skip("an RLlib block: tests/python/test_rllib.py runs it in the RLlib venv")
    if code.startswith(TRAINER_MARK):
        pytest.skip("a trainer block: tests/python/test_trainer.py runs it with the trainer build")
    missing = _needs(code)
    if missing:
        if CI:
            pytest.fail(f"block {index} needs {missing} (CI installs them)")
        pytest.skip(f"needs {missing}")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"python/README.md block {index}", "exec"), {"__name__": "__readme__"})

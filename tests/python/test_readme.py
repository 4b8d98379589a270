"""Every ```python block of the docs a newcomer reads (python/README.md, docs/observations.md)
runs as written (in a temporary folder), so the walk through Gymnasium, PettingZoo, SB3, TorchRL,
PyTorch and the endgame tables, and the observation page's claims, stay true. A block whose
package is missing is skipped, or fails under ``CI=true``."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The pages whose Python blocks run, relative to the repository's root.
DOCS = ["python/README.md", "docs/observations.md"]


def _blocks(doc: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S)


README = ROOT / "python" / "README.md"
BLOCKS = _blocks("python/README.md")
#: (page, index in the page, code) of every block of every page of DOCS.
ALL_BLOCKS = [(doc, i, code) for doc in DOCS for i, code in enumerate(_blocks(doc))]
CI = os.environ.get("CI", "").lower() == "true"
#: Blocks that need RLlib (its own venv) start with this comment; tests/python/test_rllib.py runs them.
RLLIB_MARK = "# needs ray[rllib]"
#: Blocks that need the extension built with the trainer; tests/python/test_trainer.py runs them.
TRAINER_MARK = "# needs the trainer"
#: The SB3 "train, save, load, scorecard" block (50,000 steps and the published protocol's 1,600
#: games); tests/python/test_sb3.py runs it with fewer steps and a small protocol.
SB3_CARD_MARK = "# sb3: train, save, load, scorecard"


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


def test_every_doc_has_python_blocks():
    for doc in DOCS:
        assert _blocks(doc), f"{doc} has no ```python block"


@pytest.mark.parametrize(
    "doc,index,code", ALL_BLOCKS, ids=[f"{doc}-{i}" for doc, i, _ in ALL_BLOCKS]
)
def test_doc_block_runs(doc, index, code, tmp_path, monkeypatch):
    if code.startswith(RLLIB_MARK):
        pytest.skip("an RLlib block: tests/python/test_rllib.py runs it in the RLlib venv")
    if code.startswith(TRAINER_MARK):
        pytest.skip("a trainer block: tests/python/test_trainer.py runs it with the trainer build")
    if code.startswith(SB3_CARD_MARK):
        pytest.skip("the SB3 card block: tests/python/test_sb3.py runs it, smaller")
    missing = _needs(code)
    if missing:
        if CI:
            pytest.fail(f"{doc} block {index} needs {missing} (CI installs them)")
        pytest.skip(f"needs {missing}")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{doc} block {index}", "exec"), {"__name__": "__readme__"})

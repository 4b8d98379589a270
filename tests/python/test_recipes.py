"""The training recipes and the notebooks, run end to end in fast mode (what CI executes).

- every recipe runs as a module of the package (`python -m awale.recipes.NAME --help`, its
  packages installed), and importing `awale`, `awale.recipes` or `awale.examples` imports none of
  torch, sb3, ray, torchrl or matplotlib; the example bot answers the protocol;
- `awale.recipes.ppo_selfplay --fast` (needs torch) and `awale.recipes.maskable_ppo --fast` (needs
  sb3-contrib): each trains for a few seconds, logs, and plays its final tournament;
  `awale.recipes.torchrl_ppo --fast` (needs torchrl) trains and plays its greedy policy;
  `awale.recipes.torch_dlpack --fast` (needs torch) trains through DLPack and plays a tournament.
- every `notebooks/*.ipynb`, executed with nbclient under `AWALE_FAST=1` (needs nbclient,
  nbformat, ipykernel and matplotlib; the training notebook also torch).
- the committed notebooks themselves: executed, without errors, with PNG plots in their outputs.

A missing package skips the test that needs it, saying which.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def need(*modules: str) -> None:
    """Skips the test unless every module can be imported."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (pip install {' '.join(missing)})")


def run_recipe(recipe: str, logdir: Path, *extra: str) -> str:
    """Runs ``python -m awale.recipes.RECIPE --fast`` (the module the wheel ships)."""
    cmd = [sys.executable, "-m", f"awale.recipes.{recipe}", "--fast", "--logdir", str(logdir)]
    proc = subprocess.run(
        [*cmd, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"{recipe} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def check_tournament(out: str, name: str, logdir: Path) -> None:
    for opponent in ("random", "greedy"):
        assert f"{name} vs {opponent}: win" in out, out[-2000:]
    result = json.loads((logdir / "tournament" / "results.json").read_text())
    assert result, "the tournament wrote its results"
    if importlib.util.find_spec("tensorboard") is not None:
        assert list(logdir.rglob("events.out.tfevents.*")), "no TensorBoard event file"


def test_ppo_selfplay_fast(tmp_path):
    need("torch")
    logdir = tmp_path / "ppo"
    out = run_recipe("ppo_selfplay", logdir)
    assert "trained" in out and "moves/s" in out
    rows = [json.loads(line) for line in (logdir / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) > 10
    assert any("eval/win_rate_vs_greedy" in r for r in rows)
    last = [r for r in rows if "eval/win_rate_vs_random" in r][-1]
    # A few seconds of training already beat the random agent most of the time.
    assert last["eval/win_rate_vs_random"] > 0.6, last
    check_tournament(out, "ppo", logdir)


def test_torchrl_ppo_fast(tmp_path):
    """TorchRL's collector, GAE and clipped PPO loss over `obs_mode="dict"` (the mask in the
    observation); the fast run trains for a few seconds and plays the greedy policy."""
    need("torch", "torchrl")
    out = run_recipe("torchrl_ppo", tmp_path / "torchrl")
    assert "frames 4000:" in out and "greedy policy against random" in out, out[-2000:]


def test_ppo_selfplay_multiplayer(tmp_path):
    """Self-play works with more than two seats (one learner, snapshots in the others)."""
    need("torch")
    logdir = tmp_path / "ppo3"
    out = run_recipe(
        "ppo_selfplay", logdir, "--rules", "oware3", "--total-steps", "20000",
        "--tournament-games", "6",
    )  # fmt: skip
    assert "trained" in out
    check_tournament(out, "ppo", logdir)


def test_maskable_ppo_fast(tmp_path):
    need("torch", "stable_baselines3", "sb3_contrib")
    logdir = tmp_path / "mppo"
    out = run_recipe("maskable_ppo", logdir)
    assert "trained" in out and "steps/s" in out
    check_tournament(out, "maskable_ppo", logdir)


def _kernel(tmp_path: Path, monkeypatch) -> str:
    """A kernelspec for this interpreter, so that the notebooks run in the test's venv."""
    kernels = tmp_path / "jupyter" / "kernels" / "awale-test"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "awale tests",
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return "awale-test"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_fast_mode(path, tmp_path, monkeypatch):
    need("nbclient", "nbformat", "ipykernel", "matplotlib")
    if "training" in path.stem:
        need("torch")
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("AWALE_FAST", "1")
    monkeypatch.setenv("AWALE_RUNS_DIR", str(tmp_path / "runs"))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=900,
        kernel_name=_kernel(tmp_path, monkeypatch),
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert images, f"{path.name} drew no plot"


def test_notebooks_exist():
    names = {p.stem for p in NOTEBOOKS}
    for prefix in ("01_quickstart", "02_training", "03_tournament", "04_rules"):
        assert prefix in names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_notebook_has_outputs(path):
    """The notebooks are committed executed: every code cell ran, none failed, and the plots
    are embedded as PNG."""
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c.get("execution_count") for c in code), "not executed"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], "a cell failed"
    assert any("image/png" in o.get("data", {}) for o in outputs), "no PNG plot"


def test_torch_dlpack_fast(tmp_path):
    """The plain PyTorch loop: observations through DLPack (no copy on the CPU), an n-step
    actor-critic, then a tournament of its greedy policy."""
    need("torch")
    logdir = tmp_path / "dlpack"
    out = run_recipe("torch_dlpack", logdir)
    assert "trained 60 updates" in out and "a2c" in out, out[-2000:]
    rows = [json.loads(line) for line in (logdir / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["episodes"] > 100
    assert json.loads((logdir / "tournament" / "results.json").read_text())


def test_az_torch_fast(tmp_path):
    """AlphaZero in PyTorch over the Rust search: trains, keeps generations that the Rust side
    plays and rates, logs, and plays its final match."""
    need("torch", "safetensors")
    if not awale_has_trainer():
        pytest.skip("needs an extension built with the trainer (the wheel has it)")
    out = tmp_path / "az"
    proc = subprocess.run(
        [sys.executable, "-m", "awale.recipes.az_torch", "--fast", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, f"az_torch failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "moves/s" in proc.stdout and "final:" in proc.stdout and "leaves/call" in proc.stdout
    import torch

    if not torch.cuda.is_available():
        # A GPU asked for where there is none: the reason, at once, before any work.
        bad = subprocess.run(
            [sys.executable, "-m", "awale.recipes.az_torch", "--fast", "--device", "cuda",
             "--out", str(tmp_path / "nogpu")],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )
        assert bad.returncode == 1 and "sees no CUDA GPU" in bad.stderr, bad.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["iteration"] == 4 and summary["train_steps"] > 0
    assert summary["final"]["games"] == 4 and 0.0 <= summary["final"]["score"] <= 1.0
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and any("eval" in r for r in rows)
    gens = sorted(p.name for p in (out / "generations").glob("gen-*.safetensors"))
    assert gens[0] == "gen-000000.safetensors" and gens[-1] == "gen-000004.safetensors"
    if importlib.util.find_spec("tensorboard") is not None:
        assert list(out.rglob("events.out.tfevents.*")), "no TensorBoard event file"
    import awale

    # The generations are what `awale ladder` rates, and each plays as an nn: agent.
    ladder = awale.ladder(out, out=tmp_path / "ladder", anchors=["random"], games=2, sims=2)
    gens = ladder.runs()["az"]
    assert [g["iteration"] for g in gens] == [0, 2, 4], gens
    assert gens[-1]["train_steps"] == summary["train_steps"] and ladder.complete
    net = awale.Network(out / "network.safetensors")
    assert net.hidden == [32] and net.encoding == "onehot:16"


def awale_has_trainer() -> bool:
    import awale

    return bool(awale._core.HAS_TRAINER)


#: Every recipe module of the package and the packages its `--help` needs (its imports).
RECIPES = {
    "ppo_selfplay": ("torch",),
    "maskable_ppo": (),  # torch and sb3 are imported by `train`, not at import
    "torchrl_ppo": ("torch", "torchrl"),
    "torch_dlpack": ("torch",),
    "az_torch": ("torch",),
    "rllib_selfplay": ("ray", "torch", "tree"),
    "ray_selfplay": ("ray",),
    "plot_metrics": (),  # matplotlib is imported when it draws
}


def test_every_recipe_module_is_listed():
    shipped = {p.stem for p in (ROOT / "python" / "awale" / "recipes").glob("*.py")} - {"__init__"}
    assert shipped == set(RECIPES)
    assert {p.name for p in (ROOT / "training").glob("*.py")} == {"ray_chaos.py"}


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_a_recipe_runs_as_a_module(recipe):
    """`python -m awale.recipes.NAME --help` from outside the repository (the installed package)."""
    need(*RECIPES[recipe])
    proc = subprocess.run(
        [sys.executable, "-m", f"awale.recipes.{recipe}", "--help"],
        cwd=Path(tempfile.gettempdir()), capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("usage:") and "--help" in proc.stdout, proc.stdout[:500]


def test_importing_awale_and_its_recipe_packages_imports_no_heavy_package():
    code = (
        "import sys, awale, awale.recipes, awale.examples, awale.recipes.maskable_ppo, "
        "awale.recipes.plot_metrics\n"
        "heavy = sorted({'torch', 'stable_baselines3', 'sb3_contrib', 'ray', 'torchrl', "
        "'matplotlib'} & set(sys.modules))\n"
        "print(heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[]"


def test_the_example_bot_answers_the_protocol():
    """`python -m awale.examples.uci_bot`, fed the docstring's session (tests/python/test_engines.py
    plays it in tournaments)."""
    proc = subprocess.run(
        [sys.executable, "-m", "awale.examples.uci_bot"],
        input="uci\nposition startpos moves C\ngo movetime 100\nquit\n",
        cwd=Path(tempfile.gettempdir()), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "uciok" in proc.stdout and "bestmove" in proc.stdout, proc.stdout

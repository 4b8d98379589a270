"""Distribution: one version everywhere, the `awale` command of the wheel, the wheel's licences.

- Cargo.toml's version is `awale.__version__`, the installed distribution's version and what
  `awale --version` prints.
- The console script (and `python -m awale`) runs the Rust binary's command line: `awale rules`,
  `awale tournament`, clap's `--help`/`--version` and exit statuses.
- With `AWALE_WHEEL=path/to/awale-*.whl`, the wheel holds both licence files, the console script's
  entry point and Cargo.toml's version. Without it the test skips, except under `CI=true`, where
  it fails (CI must point it at the wheel it built).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import List

import pytest

import awale
from awale import _core
from awale.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def cargo_version() -> str:
    """The `version` of Cargo.toml's [package] table (the one source of the version)."""
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    found = re.search(r'^version\s*=\s*"([^"]+)"', package, re.MULTILINE)
    assert found, "no version in Cargo.toml's [package]"
    return found.group(1)


def awale_command() -> List[str]:
    """The installed console script: next to this interpreter (a venv not on PATH), else PATH."""
    bindir = Path(sys.executable).parent
    for name in ("awale", "awale.exe"):
        if (bindir / name).is_file():
            return [str(bindir / name)]
    found = shutil.which("awale")
    assert found, "the `awale` console script is not installed (pyproject [project.scripts])"
    return [found]


def run(cmd: List[str], cwd: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_one_version_everywhere(tmp_path: Path) -> None:
    version = cargo_version()
    assert awale.__version__ == version
    assert _core.__version__ == version
    assert metadata.version("awale") == version
    done = run(awale_command() + ["--version"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"awale {version}"


def test_console_script_is_declared() -> None:
    scripts = [ep for ep in metadata.entry_points(group="console_scripts") if ep.name == "awale"]
    assert [ep.value for ep in scripts] == ["awale.__main__:main"]


def test_awale_rules(tmp_path: Path) -> None:
    done = run(awale_command() + ["rules"], tmp_path)
    assert done.returncode == 0, done.stderr
    for preset in awale.PRESETS:
        assert preset in done.stdout


def test_awale_tournament(tmp_path: Path) -> None:
    args = ["tournament", "--agents", "random,greedy", "--games", "2"]
    done = run(awale_command() + args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "random" in done.stdout and "greedy" in done.stdout


def test_python_dash_m_awale(tmp_path: Path) -> None:
    done = run([sys.executable, "-m", "awale", "--version"], tmp_path)
    assert done.returncode == 0, done.stderr
    # clap names the program `awale`, not `__main__.py`.
    assert done.stdout.strip() == f"awale {cargo_version()}"
    done = run([sys.executable, "-m", "awale", "--help"], tmp_path)
    assert done.returncode == 0
    assert "Usage: awale" in done.stdout and "tournament" in done.stdout


def test_exit_statuses_match_the_binary(tmp_path: Path) -> None:
    # A usage error: clap's message on stderr, status 2.
    done = run(awale_command() + ["no-such-command"], tmp_path)
    assert done.returncode == 2
    assert "error" in done.stderr and "Usage: awale" in done.stderr
    # A failing subcommand: `error: ...` on stderr, status 2, as `src/main.rs` does.
    done = run(awale_command() + ["show", "abapa 1,2,3 nonsense"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    # The wheel has every subcommand: `train`, `serve` and `network` among them; a bad config
    # of `train` is a failing subcommand like any other.
    done = run(awale_command() + ["--help"], tmp_path)
    for sub in ("train", "serve", "network", "ladder"):
        assert f"\n  {sub} " in done.stdout, sub
    done = run(awale_command() + ["train", "--config", "no-such-config.toml"], tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    assert "no-such-config.toml" in done.stderr


def test_a_closed_stdout_ends_the_command_quietly(tmp_path: Path) -> None:
    # `awale rules | head -1` and `| grep -q`: the reader goes away, the command stops with
    # status 141 as `cat` does, with nothing on stderr (it was a PanicException and a
    # backtrace). The read end is closed before the command starts.
    for args in (["rules"], ["tournament", "--agents", "random,greedy", "--games", "2"]):
        for command in (awale_command(), [sys.executable, "-m", "awale"]):
            read, write = os.pipe()
            os.close(read)
            try:
                done = subprocess.run(
                    command + args, stdout=write, stderr=subprocess.PIPE, text=True,
                    cwd=tmp_path, timeout=120,
                )
            finally:
                os.close(write)
            assert done.returncode == 141, (command, args, done.stderr)
            assert done.stderr == "", (command, args)


def test_main_in_process(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capfd.readouterr().out.strip() == f"awale {cargo_version()}"
    assert main(["rules", "abapa"]) == 0
    assert "abapa" in capfd.readouterr().out
    assert main(["perft", "not-a-depth"]) == 2
    assert "error" in capfd.readouterr().err


def test_main_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError):
        _core.main("rules")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _core.main([1, 2])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        main(["rules", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        main("rules")


def test_wheel_contents() -> None:
    wheel = os.environ.get("AWALE_WHEEL")
    if not wheel:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but AWALE_WHEEL does not name the wheel this run built")
        pytest.skip("set AWALE_WHEEL to a built wheel (scripts/build-dist.sh writes dist/)")
    path = Path(wheel)
    assert path.is_file(), f"AWALE_WHEEL={wheel} is not a file"
    name, version = path.name.split("-")[:2]
    assert (name, version) == ("awale", cargo_version())
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        dist_info = f"awale-{version}.dist-info/"
        for licence in ("LICENSE-MIT", "LICENSE-APACHE"):
            inside = [n for n in names if n.startswith(dist_info) and n.endswith("/" + licence)]
            assert inside, f"{licence} is not in {path.name}"
            text = zf.read(inside[0]).decode("utf-8")
            assert text == (ROOT / licence).read_text(encoding="utf-8")
        entry_points = zf.read(dist_info + "entry_points.txt").decode("utf-8")
        assert re.search(r"^awale\s*=\s*awale\.__main__:main$", entry_points, re.MULTILINE)
        wheel_metadata = zf.read(dist_info + "METADATA").decode("utf-8")
        assert f"\nVersion: {version}\n" in wheel_metadata
        # The recipes and examples ship as modules of the package (python -m awale.recipes.NAME),
        # the same files as in the repository.
        shipped = [f for folder in ("recipes", "examples")
                   for f in sorted((ROOT / "python" / "awale" / folder).glob("*.py"))]
        assert len(shipped) > 2, shipped
        for f in shipped:
            inside = f"awale/{f.parent.name}/{f.name}"
            assert inside in names, f"{inside} is not in {path.name}"
            assert zf.read(inside) == f.read_bytes(), inside

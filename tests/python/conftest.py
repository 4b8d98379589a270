"""Shared helpers of the Python test suite (run with `pytest tests/python`)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import awale

#: Every preset, as rules specs.
PRESETS = list(awale.PRESETS)


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a 0/1 mask (any action on all-zero rows)."""
    scores = rng.random(mask.shape) * (mask > 0)
    return scores.argmax(axis=-1)


def our_ray_processes(title: str) -> list[int]:
    """The processes titled ``ray::<title>`` (a Ray task or actor running) that descend from
    this test process, i.e. of the Ray instance the test started: the only ones a test kills."""
    from pathlib import Path

    def parent(pid: int) -> int:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[1])

    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "cmdline").read_bytes().startswith(f"ray::{title}".encode()):
                continue
            pid = int(entry.name)
            while pid > 1 and pid != me:
                pid = parent(pid)
        except (OSError, ValueError):
            continue
        if pid == me:
            found.append(int(entry.name))
    return found


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(scope="module")
def ray():
    """A local Ray instance of 2 CPUs for a test module (skipped without Ray; under ``CI=true``,
    which installs it, a missing Ray fails)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("ray is missing (CI installs it)")
        pytest.skip("needs ray (pip install 'awale[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def awale_bin() -> str:
    """The `awale` binary of the train build (``AWALE_BIN``, set by ``.ci/test``): skipped
    without it, failed under ``CI=true``, which builds it."""
    from pathlib import Path

    binary = os.environ.get("AWALE_BIN")
    if not binary or not Path(binary).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("the awale binary (AWALE_BIN) is missing (CI builds it)")
        pytest.skip("the awale binary (AWALE_BIN) is missing")
    return binary

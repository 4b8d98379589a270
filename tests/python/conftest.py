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

"""Shared helpers of the Python test suite (run with `pytest tests/python`)."""

from __future__ import annotations

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

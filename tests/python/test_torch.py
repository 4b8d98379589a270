"""Observations to PyTorch without a copy on the CPU (DLPack), then one pinned, non-blocking copy
to a GPU when there is one (python/README.md, "To PyTorch without copies")."""

from __future__ import annotations

import os

import numpy as np
import pytest

import awale

try:
    import torch
except ImportError:  # pragma: no cover - torch comes with stable-baselines3 in CI
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip("torch is not installed", allow_module_level=True)


def test_dlpack_shares_the_simulators_buffers() -> None:
    envs = awale.AwaleVectorEnv(8, "abapa", copy=False)
    obs, info = envs.reset(seed=0)
    t = torch.from_dlpack(obs)
    mask = torch.from_dlpack(info["action_mask"])
    assert t.data_ptr() == obs.__array_interface__["data"][0]  # no copy
    assert t.dtype == torch.float32 and tuple(t.shape) == obs.shape
    assert mask.dtype == torch.int8
    # The buffers are the simulator's: the next step overwrites what the tensor shows.
    obs2, *_ = envs.step(info["action_mask"].argmax(axis=1))
    assert torch.equal(t, torch.from_numpy(np.array(obs2)))
    # Masked logits on the CPU, straight from the shared mask.
    logits = torch.zeros(mask.shape).masked_fill(mask == 0, float("-inf"))
    assert torch.isfinite(logits).any(dim=1).all()
    envs.close()


def test_batch_buffers_are_dlpack_capsules_too() -> None:
    b = awale.Batch("abapa", 4, obs_dtype="uint8")
    b.reset(0)
    t = torch.from_dlpack(b.obs)
    assert t.dtype == torch.uint8 and t.data_ptr() == b.obs.__array_interface__["data"][0]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU on this machine")
def test_one_pinned_copy_to_the_gpu() -> None:  # pragma: no cover - needs a GPU
    envs = awale.AwaleVectorEnv(1024, "abapa", copy=False)
    obs, _ = envs.reset(seed=0)
    pinned = torch.empty(obs.shape, dtype=torch.float32).pin_memory()
    pinned.copy_(torch.from_dlpack(obs))
    on_gpu = pinned.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(on_gpu.cpu(), pinned)

"""TorchRL: `GymWrapper` over `AwaleEnv(obs_mode="dict")` passes `check_env_specs`, and a masked
policy plays whole episodes through `rollout` (python/README.md, "TorchRL")."""

from __future__ import annotations

import os

import pytest

import awale

try:
    import torch
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs
except ImportError:  # pragma: no cover - CI installs torchrl
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip("torchrl is not installed (pip install 'awale[torchrl]')", allow_module_level=True)


def masked_random(td):
    """Samples a legal house from the mask the observation carries."""
    mask = td["action_mask"].bool()
    logits = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
    td["action"] = torch.distributions.Categorical(logits=logits).sample()
    return td


@pytest.mark.parametrize("preset", ["abapa", "wari", "oware3"])
def test_torchrl_gym_wrapper_checks_and_rolls_out(preset):
    env = GymWrapper(
        awale.AwaleEnv(preset, illegal="loss", obs_mode="dict"),
        categorical_action_encoding=True,
    )
    check_env_specs(env)
    assert set(env.observation_spec.keys()) == {"observation", "action_mask"}
    env.set_seed(0)
    roll = env.rollout(2000, policy=masked_random, break_when_any_done=True)
    assert bool(roll["next", "done"][-1])  # the game ended
    assert not bool(roll["next", "done"][:-1].any())
    final = float(roll["next", "reward"][-1])
    assert final in (-1.0, 0.0, 1.0)
    # Every action the policy took was legal: no illegal-move loss (`illegal="loss"` would end
    # the game at once with -1; here the game ran its course).
    masks = roll["action_mask"].bool()
    taken = roll["action"]
    assert bool(masks.gather(1, taken.unsqueeze(1)).all())

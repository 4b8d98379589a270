"""The Stable-Baselines3 adapter; MaskablePPO trains on it (skipped without sb3-contrib)."""

from __future__ import annotations

import json

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

import awale  # noqa: E402
from awale.sb3 import AwaleSB3VecEnv  # noqa: E402

from conftest import random_legal  # noqa: E402


def test_vec_env_conventions(rng):
    env = AwaleSB3VecEnv(16, "abapa", opponent="random", seed=0)
    assert is_masking_supported(env)
    obs = env.reset()
    assert obs.shape == (16, 16) and obs.dtype == np.float32
    ends = 0
    for _ in range(300):
        masks = get_action_masks(env)
        assert masks.shape == (16, 6) and masks.dtype == bool and masks.any(axis=1).all()
        obs, rewards, dones, infos = env.step(random_legal(rng, masks))
        assert rewards.dtype == np.float32 and len(infos) == 16
        for i in np.flatnonzero(dones):
            ends += 1
            assert infos[i]["terminal_observation"].shape == (16,)
            assert infos[i]["episode"]["r"] == rewards[i] and infos[i]["episode"]["l"] > 0
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ends > 16


def test_seeded_resets_repeat():
    env = AwaleSB3VecEnv(8, "oware3", opponent="random", opening=2)
    env.seed(5)
    a = env.reset()
    env.seed(5)
    np.testing.assert_array_equal(env.reset(), a)


def test_maskable_ppo_trains():
    from sb3_contrib import MaskablePPO

    env = AwaleSB3VecEnv(8, "abapa", opponent="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu"
    )
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(8), actions].all()


@pytest.mark.parametrize("preset", awale.PRESETS)
def test_sb3_env_checker_passes_with_illegal_loss(preset):
    """SB3's checker steps random actions without the mask: `illegal="loss"` (python/README.md,
    "Env checkers") makes an illegal one lose the game instead of raising."""
    import warnings

    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sb3_check_env(awale.AwaleEnv(preset, illegal="loss"), warn=True)


#: The first line of python/README.md's "train, save, load, scorecard" block.
CARD_MARK = "# sb3: train, save, load, scorecard"

#: A small protocol (two built-in anchors, 4 games each) for the block's scorecard.
SMALL_PROTOCOL = """version = 1
[[rules]]
rules = "abapa"
seed = 7
openings = 2
games = 4
prior_draws = 1.0
anchors = [{ spec = "random", rating = 0.0 }, { spec = "greedy", rating = 300.0 }]
"""


def test_the_readme_trains_saves_loads_and_rates_in_five_lines(tmp_path, monkeypatch):
    """python/README.md's five lines as written, but for 256 steps and a small protocol (the
    published one plays 1,600 games): the model is saved, loaded, and its card written."""
    import functools
    import re
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "python" / "README.md"
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
              if b.startswith(CARD_MARK)]
    assert len(blocks) == 1
    code = blocks[0]
    lines = [line for line in code.splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 5, lines
    assert code.count(".learn(50_000)") == 1
    code = code.replace(".learn(50_000)", ".learn(256)")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(awale, "scorecard", functools.partial(awale.scorecard, protocol=SMALL_PROTOCOL))
    exec(compile(code, "python/README.md", "exec"), {"__name__": "__readme__"})
    assert (tmp_path / "ppo_abapa.zip").is_file()
    card = json.loads((tmp_path / "ppo_card" / "scorecard.json").read_text())
    assert card["agent"] == "ppo" and card["complete"] and card["games"] == 8, card

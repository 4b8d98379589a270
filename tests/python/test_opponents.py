"""Any agent spec as the opponent of the environments (issue 14): harder than random, checked by
Gymnasium, reproducible whatever the thread count, pickled, and clear errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import awale
from awale import AwaleEnv, AwaleVectorEnv


def _mean_return(opponent: str, episodes: int = 60) -> float:
    """The mean final reward of one fixed random policy against `opponent`."""
    envs = AwaleVectorEnv(episodes, "abapa", opponent=opponent, threads=2)
    obs, info = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    done = np.zeros(episodes, bool)
    total = np.zeros(episodes)
    for _ in range(400):
        scores = rng.random(info["action_mask"].shape) * (info["action_mask"] > 0)
        obs, r, te, tr, info = envs.step(scores.argmax(axis=1))
        total += np.where(done, 0.0, r)
        done |= te | tr
        if done.all():
            break
    envs.close()
    assert done.all()
    return float(total.mean())


def test_alphabeta_opponent_is_harder_than_random() -> None:
    against_random = _mean_return("random")
    against_alphabeta = _mean_return("alphabeta:depth=2")
    assert against_alphabeta < against_random - 0.5, (against_random, against_alphabeta)
    assert against_alphabeta < -0.6


@pytest.mark.parametrize(
    "opponent", ["alphabeta:depth=2", "mcts:sims=20", "greedy", "random:seed=4"]
)
def test_agent_opponents_pass_the_env_checker(opponent: str) -> None:
    env = AwaleEnv("abapa", opponent=opponent)
    assert env.opponent == opponent
    check_env(env, skip_render_check=True)


def test_agent_opponents_are_reproducible_whatever_the_threads() -> None:
    def run(threads: int) -> np.ndarray:
        b = awale.Batch("abapa", 16, opponent="mcts:sims=30", threads=threads, seed=9)
        b.reset()
        rng = np.random.default_rng(1)
        out = []
        for _ in range(30):
            mask = b.mask
            out.append(b.obs.copy())
            b.step((rng.random(mask.shape) * (mask > 0)).argmax(axis=1))
        return np.stack(out)

    np.testing.assert_array_equal(run(1), run(3))


def test_agent_opponents_pickle() -> None:
    env = AwaleEnv("abapa", opponent="alphabeta:depth=2,name=ab2")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    back = pickle.loads(pickle.dumps(env))
    assert back.opponent == "alphabeta:depth=2,name=ab2"
    a = back.step(int(np.flatnonzero(back.action_masks())[0]))
    b = env.step(int(np.flatnonzero(env.action_masks())[0]))
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize(
    "opponent, match",
    [
        ("alphazero", "self, random, capture, greedy"),
        ("alphabeta:dpeth=2", "unknown option 'dpeth'"),
        ("perfect", "fallback_depth"),
        ("alphabeta:depth=0", "depth"),
    ],
)
def test_bad_agent_opponents_are_refused(opponent: str, match: str) -> None:
    with pytest.raises(awale.ConfigError, match=match):
        AwaleEnv("abapa", opponent=opponent)

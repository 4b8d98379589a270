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


def test_a_python_callable_is_an_opponent() -> None:
    calls = []

    def leftmost(state: awale.State) -> int:
        calls.append(state.to_move)
        return state.legal_moves()[0]

    env = AwaleEnv("abapa", opponent=leftmost)
    assert env.opponent == "python:test_a_python_callable_is_an_opponent.<locals>.leftmost"
    check_env(env, skip_render_check=True)
    assert calls and set(calls) == {1}  # it plays North only
    # On 3 threads, every board's opponent moves go through the callable, one at a time.
    envs = AwaleVectorEnv(64, "oware3", opponent=leftmost, threads=3)
    calls.clear()
    obs, info = envs.reset(seed=0)
    for _ in range(20):
        obs, *_rest, info = envs.step(info["action_mask"].argmax(axis=1))
    assert len(calls) >= 64 * 20
    envs.close()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(awale.Batch("abapa", 2, opponent=leftmost))


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        (lambda s: 17, ValueError, "returned house 17, which is not a legal move"),
        (lambda s: "A", TypeError, "must return a house"),
        (lambda s: True, TypeError, "returned a bool"),
        (lambda s: 1 / 0, ZeroDivisionError, "division"),
    ],
)
def test_a_failing_callable_opponent_raises_from_the_call(bad, exc, match) -> None:
    env = AwaleEnv("abapa", opponent=bad, learner_seat=0)
    env.reset(seed=0)
    with pytest.raises(exc, match=match):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    # The batch is usable again after a reset with a working opponent... the env is not:
    # build a new one. A vector env with the opponent moving first raises at reset.
    with pytest.raises(exc, match=match):
        AwaleVectorEnv(4, "abapa", opponent=bad, learner_seat=1).reset(seed=0)


def test_opponent_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="function of a State"):
        AwaleEnv("abapa", opponent=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="function of a State"):
        awale.Batch("abapa", 2, opponent=3)  # type: ignore[arg-type]


LEAGUE = ["random", "greedy", "alphabeta:depth=2"]


def test_a_league_draws_one_member_per_episode() -> None:
    env = AwaleEnv("abapa", opponent=LEAGUE)
    assert env.opponent == "league:random|greedy|alphabeta:depth=2"
    seen = []
    for seed in range(60):
        obs, info = env.reset(seed=seed)
        member = info["opponent"]
        assert member in LEAGUE
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, r, te, tr, info = env.step(action)
            assert info["opponent"] == member  # the same member all episode
            done = te or tr
        seen.append(member)
    assert set(seen) == set(LEAGUE), seen
    # The same seed draws the same member.
    assert env.reset(seed=5)[1]["opponent"] == seen[5]
    # Against the league a fixed policy does better than against its strongest member alone.
    assert _mean_return(LEAGUE) > _mean_return("alphabeta:depth=2")
    check_env(AwaleEnv("abapa", opponent=LEAGUE), skip_render_check=True)


def test_a_league_in_the_vector_env_is_reproducible_and_pickles() -> None:
    def run(threads: int) -> tuple[np.ndarray, np.ndarray]:
        envs = AwaleVectorEnv(64, "abapa", opponent=tuple(LEAGUE), threads=threads)
        obs, info = envs.reset(seed=1)
        members = [info["opponent_member"].copy()]
        for _ in range(50):
            obs, r, te, tr, info = envs.step(awale.sample_legal(info["action_mask"], np.random.default_rng(0)))
            members.append(info["opponent_member"].copy())
        envs.close()
        return obs, np.array(members)

    obs1, m1 = run(1)
    obs2, m2 = run(4)
    assert np.array_equal(obs1, obs2) and np.array_equal(m1, m2)
    assert set(np.unique(m1)) == {0, 1, 2}
    env = AwaleEnv("abapa", opponent=LEAGUE)
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    twin = pickle.loads(pickle.dumps(env))
    assert twin.opponent == env.opponent
    a = int(np.flatnonzero(env.action_masks())[0])
    assert np.array_equal(env.step(a)[0], twin.step(a)[0])


@pytest.mark.parametrize(
    "opponent, exc, match",
    [
        ([], ValueError, "1 to 255 members"),
        (["random", "self"], ValueError, "not 'self'"),
        (["random", "wizard"], ValueError, "wizard"),
        (["random", 3], TypeError, "league's members are names"),
        (["random", "a|b"], ValueError, "cannot contain"),
    ],
)
def test_bad_leagues_are_refused(opponent, exc, match) -> None:
    with pytest.raises(exc, match=match):
        AwaleEnv("abapa", opponent=opponent)

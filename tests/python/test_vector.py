"""`AwaleVectorEnv`: the three autoreset modes (checked against Gymnasium's own SyncVectorEnv
over `AwaleEnv`), seeding, masks, copies, pickling and errors."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import awale
from awale import AwaleEnv, AwaleVectorEnv

from conftest import random_legal

N = 4
STEPS = 300


def _pair(mode):
    """Ours and Gymnasium's reference over the same deterministic game (abapa self-play: no
    randomness but the actions)."""
    ours = AwaleVectorEnv(N, "abapa", opponent="self", autoreset_mode=mode)
    ref = SyncVectorEnv(
        [lambda: AwaleEnv("abapa", opponent="self")] * N,
        autoreset_mode=ours.autoreset_mode,
    )
    return ours, ref


def test_next_step_matches_sync_vector_env(rng):
    ours, ref = _pair(AutoresetMode.NEXT_STEP)
    assert ours.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    o1, i1 = ours.reset(seed=0)
    o2, i2 = ref.reset(seed=0)
    np.testing.assert_array_equal(o1, o2)
    ends = 0
    pending = np.zeros(N, dtype=bool)
    for _ in range(STEPS):
        actions = random_legal(rng, i1["action_mask"])
        o1, r1, te1, tr1, i1 = ours.step(actions)
        o2, r2, te2, tr2, i2 = ref.step(actions)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(te1, te2)
        np.testing.assert_array_equal(tr1, tr2)
        done = te1 | tr1
        # Boards waiting for their reset accept any action: their mask allows every house.
        np.testing.assert_array_equal(i1["action_mask"][~done], i2["action_mask"][~done])
        assert (i1["action_mask"][done] == 1).all()
        # The step after an end is the reset: zero reward, flags false.
        assert (r1[pending] == 0).all() and not done[pending].any()
        if done.any():
            ends += done.sum()
            np.testing.assert_array_equal(i1["_episode_length"], done)
            np.testing.assert_array_equal(
                i1["episode_length"][done], i2["episode_length"][done]
            )
            np.testing.assert_array_equal(i1["rewards"][done], i2["rewards"][done])
        pending = done
    assert ends >= N


def test_same_step_matches_sync_vector_env(rng):
    ours, ref = _pair("same_step")
    assert ours.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    o1, i1 = ours.reset(seed=0)
    ref.reset(seed=0)
    ends = 0
    for _ in range(STEPS):
        actions = random_legal(rng, i1["action_mask"])
        o1, r1, te1, tr1, i1 = ours.step(actions)
        o2, r2, te2, tr2, i2 = ref.step(actions)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(te1, te2)
        np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
        done = te1 | tr1
        assert i1["action_mask"].any(axis=1).all()  # never an empty mask
        if done.any():
            ends += done.sum()
            np.testing.assert_array_equal(i1["_final_obs"], i2["_final_obs"])
            for k in np.flatnonzero(done):
                np.testing.assert_array_equal(i1["final_obs"][k], i2["final_obs"][k])
            assert all(i1["final_obs"][k] is None for k in np.flatnonzero(~done))
            fi1, fi2 = i1["final_info"], i2["final_info"]
            np.testing.assert_array_equal(fi1["_episode_length"], done)
            np.testing.assert_array_equal(
                fi1["episode_length"][done], fi2["episode_length"][done]
            )
            np.testing.assert_array_equal(
                fi1["episode_scores"][done], fi2["episode_scores"][done]
            )
        else:
            assert "final_obs" not in i1
    assert ends >= N


def test_disabled_matches_sync_vector_env(rng):
    ours, ref = _pair(AutoresetMode.DISABLED)
    o1, i1 = ours.reset(seed=0)
    ref.reset(seed=0)
    ends = 0
    for _ in range(STEPS):
        actions = random_legal(rng, i1["action_mask"])
        o1, r1, te1, tr1, i1 = ours.step(actions)
        o2, r2, te2, tr2, i2 = ref.step(actions)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(te1, te2)
        done = te1 | tr1
        if done.any():
            ends += done.sum()
            assert not i1["action_mask"][done].any()  # over: nothing is legal
            # Stepping an ended board before resetting it is an error, and changes nothing.
            with pytest.raises(ValueError, match="episode is over"):
                ours.step(random_legal(rng, i1["action_mask"]))
            o1, i1 = ours.reset(options={"reset_mask": done})
            o2, i2 = ref.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(o1, o2)
    assert ends >= N


def _trajectory(env, seed, steps=80):
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, r, te, tr, info = env.step(random_legal(rng, info["action_mask"]))
        out += [obs, r[:, None], te[:, None], tr[:, None]]
        if env.autoreset_mode == AutoresetMode.DISABLED and (te | tr).any():
            obs, info = env.reset(options={"reset_mask": te | tr})
            out.append(obs)
    return np.concatenate(out, axis=1)


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_seeding(mode):
    kw = dict(opponent="random", opening=(0, 5), autoreset_mode=mode)
    env = AwaleVectorEnv(16, "oware4", **kw)
    a = _trajectory(env, 123)
    b = _trajectory(env, 123)
    c = _trajectory(AwaleVectorEnv(16, "oware4", **kw), 123)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    d = _trajectory(env, 124)
    assert not np.array_equal(a, d)
    # Boards draw from their own streams: they differ from each other.
    assert len({row.tobytes() for row in a}) > 1


def test_threads_do_not_change_outputs():
    kw = dict(opponent="greedy", opening=4)
    a = _trajectory(AwaleVectorEnv(700, "abapa", threads=1, **kw), 9, steps=30)
    b = _trajectory(AwaleVectorEnv(700, "abapa", threads=2, **kw), 9, steps=30)
    np.testing.assert_array_equal(a, b)


def test_masks_and_illegal_actions(rng):
    env = AwaleVectorEnv(64, "wari", opponent="random")
    obs, info = env.reset(seed=1)
    for _ in range(20):
        mask = info["action_mask"]
        np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
        assert mask.dtype == np.int8 and mask.shape == (64, 6)
        obs, r, te, tr, info = env.step(random_legal(rng, mask))
    mask = info["action_mask"]
    bad = np.argmin(mask, axis=1)
    rows = np.flatnonzero(mask[np.arange(64), bad] == 0)
    assert rows.size > 0
    with pytest.raises(ValueError, match=f"board {rows[0]}: action {bad[rows[0]]} is not legal"):
        env.step(np.where(mask[np.arange(64), bad] == 0, bad, random_legal(rng, mask)))


def test_spaces_and_make_vec():
    for env_id in awale.ENV_IDS:
        env = gym.make_vec(env_id, num_envs=5, vectorization_mode="vector_entry_point")
        assert isinstance(env, AwaleVectorEnv)
        h = env.rules.houses
        assert env.single_action_space == gym.spaces.Discrete(h)
        assert env.action_space == gym.spaces.MultiDiscrete([h] * 5)
        assert env.observation_space.shape == (5, env.rules.obs_dim())
        obs, info = env.reset(seed=0)
        assert obs in env.observation_space
        assert env.action_space.contains(random_legal(np.random.default_rng(0), info["action_mask"]))
    env = gym.make_vec(
        "awale/Oware6-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.SAME_STEP,
        obs="onehot:4",
        obs_dtype="uint8",
    )
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.dtype == np.uint8
    assert env.reset(seed=0)[0].shape == (3, 12 * 4 + 12)


def test_copy_semantics(rng):
    env = AwaleVectorEnv(8, opponent="self")
    o0, info = env.reset(seed=0)
    o1, r1, *_ = env.step(random_legal(rng, info["action_mask"]))
    assert not np.shares_memory(o0, o1)
    fast = AwaleVectorEnv(8, opponent="self", copy=False)
    v0, info = fast.reset(seed=0)
    v1, *_ = fast.step(random_legal(rng, info["action_mask"]))
    assert v0 is v1 and v1 is fast.batch.obs


def test_pickle_mid_run(rng):
    env = AwaleVectorEnv(32, "oware3", opponent="greedy", autoreset_mode="same_step")
    obs, info = env.reset(seed=4)
    for _ in range(10):
        obs, *_, info = env.step(random_legal(rng, info["action_mask"]))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.autoreset_mode == AutoresetMode.SAME_STEP
    for _ in range(50):
        a = random_legal(rng, info["action_mask"])
        x, y = env.step(a), clone.step(a)
        for u, v in zip(x[:4], y[:4]):
            np.testing.assert_array_equal(u, v)
        info = x[4]


@pytest.mark.parametrize(
    "actions, exc",
    [
        (np.zeros(4), TypeError),
        (np.zeros((4, 1), dtype=np.int64), ValueError),
        (np.zeros(3, dtype=np.int64), ValueError),
        (np.full(4, 6), ValueError),
        (np.full(4, -1), ValueError),
        ([0.5, 1, 2, 3], TypeError),
    ],
)
def test_bad_actions(actions, exc):
    env = AwaleVectorEnv(4, opponent="self")
    env.reset(seed=0)
    with pytest.raises(exc):
        env.step(actions)


def test_bad_arguments():
    env = AwaleVectorEnv(4)
    with pytest.raises(TypeError, match="one int seed"):
        env.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-5)
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(seed=1, options={"reset_mask": np.ones(4, dtype=bool)})
    with pytest.raises(TypeError, match="bool"):
        env.reset(options={"reset_mask": np.ones(4)})
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"mode": 1})
    with pytest.raises(ValueError, match="autoreset_mode"):
        AwaleVectorEnv(4, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="num_boards"):
        AwaleVectorEnv(0)
    with pytest.raises(ValueError, match="unknown rules preset"):
        AwaleVectorEnv(2, "abapaa")


def test_render():
    env = AwaleVectorEnv(2, render_mode="ansi")
    env.reset(seed=0)
    boards = env.render()
    assert len(boards) == 2 and all("South" in b for b in boards)


@pytest.mark.parametrize("n", [1, 64, 4096])
def test_sample_legal_is_uniform_over_legal_moves(n):
    rng = np.random.default_rng(0)
    mask = np.zeros((n, 6), dtype=np.int8)
    mask[:, [0, 2, 5]] = 1
    counts = np.zeros(6)
    for _ in range(max(1, 24000 // n)):
        a = awale.sample_legal(mask, rng)
        assert a.shape == (n,)
        counts += np.bincount(a, minlength=6)
    freq = counts / counts.sum()
    assert set(np.flatnonzero(counts)) == {0, 2, 5}
    np.testing.assert_allclose(freq[[0, 2, 5]], 1 / 3, atol=0.02)
    assert awale.sample_legal(np.array([0, 0, 0, 1, 0, 0], dtype=np.int8), rng) == 3


@pytest.mark.parametrize("n", [1, 300])
def test_sample_legal_refuses_a_row_without_legal_moves(n):
    rng = np.random.default_rng(0)
    mask = np.ones((n, 6), dtype=np.int8)
    mask[n - 1] = 0
    with pytest.raises(ValueError, match=f"row\\(s\\) {n - 1} of the mask"):
        awale.sample_legal(mask, rng)
    with pytest.raises(ValueError, match="no legal action"):
        awale.sample_legal(np.zeros(6, dtype=np.int8), rng)
    with pytest.raises(ValueError, match="shape"):
        awale.sample_legal(np.ones((2, 2, 6), dtype=np.int8), rng)


def test_step_before_reset_and_after_close_are_refused():
    env = AwaleVectorEnv(2, "abapa")
    with pytest.raises(gym.error.ResetNeeded, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(gym.error.ResetNeeded, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(2, dtype=bool)})
    env.reset(seed=0)
    env.step(env.action_masks().argmax(axis=1))
    env.close()
    env.close()  # twice is harmless
    with pytest.raises(gym.error.ClosedEnvironmentError, match="closed"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(gym.error.ClosedEnvironmentError):
        env.reset(seed=0)


def test_subpackages_import_with_awale():
    import subprocess
    import sys

    code = (
        "import awale; "
        "e = awale.pettingzoo.env(rules='abapa'); e.reset(seed=0); "
        "print(type(e).__name__, awale.sb3.AwaleSB3VecEnv.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "AwaleSB3VecEnv" in out.stdout
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        awale.nope  # type: ignore[attr-defined]

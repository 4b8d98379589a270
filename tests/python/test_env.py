"""`AwaleEnv`: Gymnasium's env checker, registration, masks, rewards, errors, copies, pickling."""

from __future__ import annotations

import os
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import awale
from awale import AwaleEnv

from conftest import random_legal


def test_check_env_default():
    check_env(AwaleEnv(), skip_render_check=True)


@pytest.mark.parametrize("env_id", awale.ENV_IDS)
def test_check_env_every_registered_preset(env_id):
    # Against a random opponent the agent's first position may have empty houses, and
    # check_env plays unmasked random actions: let an illegal one lose instead of raising.
    env = gym.make(env_id, illegal="loss")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(opponent="self"),
        dict(opponent="greedy", learner_seat=1),
        dict(obs="onehot:8", obs_dtype="uint8"),
        dict(obs="thermometer", opening=(2, 6)),
    ],
)
def test_check_env_variants(kwargs):
    check_env(AwaleEnv(**kwargs), skip_render_check=True)


def test_ids_are_registered():
    assert awale.ENV_IDS == [
        "awale/Abapa-v0",
        "awale/Awale-v0",
        "awale/Wari-v0",
        "awale/OpenSpiel-v0",
        "awale/Oware2-v0",
        "awale/Oware3-v0",
        "awale/Oware4-v0",
        "awale/Oware6-v0",
    ]
    env = gym.make("awale/Oware3-v0")
    assert env.unwrapped.rules.players == 3
    assert env.action_space == gym.spaces.Discrete(4)


def test_render_modes():
    env = AwaleEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "South (A-F) to move" in text and "|  4 |" in text
    with pytest.raises(ValueError, match="render_mode"):
        AwaleEnv(render_mode="pixels")


def test_render_human_prints(capsys):
    env = gym.make("awale/Oware4-v0", render_mode="human")
    env.reset(seed=1)
    assert "store" in capsys.readouterr().out


def test_episode_against_random_opponent(rng):
    env = AwaleEnv("abapa", opponent="random")
    obs, info = env.reset(seed=7)
    assert obs.shape == (16,) and obs.dtype == np.float32
    assert info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
    total, steps = 0.0, 0
    while True:
        assert obs[-2] == 1.0  # the agent (seat 0) is always to move
        action = env.action_space.sample(mask=info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        if terminated or truncated:
            break
        assert reward == 0.0
    assert reward in (-1.0, 0.0, 1.0)
    assert info["episode_length"] == steps
    assert sum(info["episode_scores"]) <= 48
    assert info["rewards"][0] == reward
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_self_play_reward_goes_to_the_mover(rng):
    env = AwaleEnv("abapa", opponent="self")
    obs, info = env.reset(seed=3)
    while True:
        mover = info["to_move"]
        action = int(random_legal(rng, info["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert reward == info["rewards"][mover]
            break


def test_illegal_actions():
    env = AwaleEnv("abapa", opponent="self")
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    with pytest.raises(ValueError, match="action 0 is not legal: .*empty"):
        env.step(0)
    lose = AwaleEnv("abapa", opponent="self", illegal="loss")
    lose.reset(seed=0)
    lose.step(0)
    lose.step(0)
    _, reward, terminated, truncated, info = lose.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)


@pytest.mark.parametrize(
    "action, exc",
    [
        (6, ValueError),
        (-1, ValueError),
        (1.0, TypeError),
        (True, TypeError),
        ("a", TypeError),
        (np.array([1, 2]), ValueError),
        (np.array([1.0]), TypeError),
    ],
)
def test_bad_actions(action, exc):
    env = AwaleEnv()
    env.reset(seed=0)
    with pytest.raises(exc):
        env.step(action)
    # numpy scalars and one-element arrays are fine
    env.step(np.int64(1))
    env.step(np.array([2]))


@pytest.mark.parametrize("seed, exc", [(-1, ValueError), (2**64, ValueError), (1.5, TypeError), ("0", TypeError), (True, TypeError)])
def test_bad_seeds(seed, exc):
    with pytest.raises(exc, match="seed"):
        AwaleEnv().reset(seed=seed)


def test_bad_options():
    with pytest.raises(ValueError, match="unknown rules preset"):
        gym.make("awale/Abapa-v0", rules="abapaa")
    with pytest.raises(ValueError, match="unknown option"):
        AwaleEnv("abapa:speed=3")
    with pytest.raises(ValueError, match="opponent"):
        AwaleEnv(opponent="alphazero")
    with pytest.raises(ValueError, match="encoding"):
        AwaleEnv(obs="pixels")


def _trajectory(env, seed, steps=60):
    obs, info = env.reset(seed=seed)
    out = [obs.copy()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        a = int(random_legal(rng, info["action_mask"]))
        obs, r, te, tr, info = env.step(a)
        out.append(np.append(obs, [r, te, tr]))
        if te or tr:
            obs, info = env.reset()
            out.append(obs.copy())
    return np.concatenate(out)


def test_seeding_is_reproducible():
    env = AwaleEnv("oware3", opponent="random", opening=(0, 4))
    a, b = _trajectory(env, 11), _trajectory(env, 11)
    np.testing.assert_array_equal(a, b)
    other = _trajectory(env, 12)
    assert a.shape != other.shape or not np.array_equal(a, other)


def test_copy_semantics():
    env = AwaleEnv(opponent="self")
    obs0, _ = env.reset(seed=0)
    obs1, *_ = env.step(0)
    assert not np.shares_memory(obs0, obs1) and not np.array_equal(obs0, obs1)
    view = AwaleEnv(opponent="self", copy=False)
    v0, _ = view.reset(seed=0)
    kept = v0.copy()
    view.step(0)
    np.testing.assert_array_equal(v0, obs1)  # overwritten in place
    assert not np.array_equal(v0, kept)


def test_pickle_mid_episode(rng):
    env = AwaleEnv("wari", opponent="greedy", opening=3)
    obs, info = env.reset(seed=5)
    for _ in range(5):
        obs, *_, info = env.step(int(random_legal(rng, info["action_mask"])))
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(30):
        a = int(random_legal(rng, info["action_mask"]))
        r1 = env.step(a)
        r2 = clone.step(a)
        np.testing.assert_array_equal(r1[0], r2[0])
        assert r1[1:4] == r2[1:4]
        info = r1[4]
        if r1[2] or r1[3]:
            break


def test_sync_vector_env_over_awale_env():
    envs = gym.make_vec("awale/Abapa-v0", num_envs=3, vectorization_mode="sync")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, 16) and info["action_mask"].shape == (3, 6)
    obs, *_ = envs.step(np.array([0, 1, 2]))
    envs.close()


def test_async_vector_env_in_subprocesses():
    """AwaleEnv pickles into worker processes (Gymnasium's AsyncVectorEnv)."""
    envs = gym.vector.AsyncVectorEnv([lambda: AwaleEnv("oware3", opponent="greedy")] * 2)
    try:
        obs, info = envs.reset(seed=3)
        assert obs.shape == (2, 18)
        for _ in range(5):
            actions = random_legal(np.random.default_rng(0), info["action_mask"])
            obs, reward, terminated, truncated, info = envs.step(actions)
    finally:
        envs.close()


def test_dict_observations_carry_the_mask():
    env = AwaleEnv("abapa", obs_mode="dict")
    assert isinstance(env.observation_space, gym.spaces.Dict)
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=2)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    assert env.observation_space.contains(obs)
    plain = AwaleEnv("abapa")
    plain_obs, _ = plain.reset(seed=2)
    np.testing.assert_array_equal(obs["observation"], plain_obs)
    with pytest.raises(ValueError, match="obs_mode must be one of array, dict"):
        AwaleEnv(obs_mode="tuple")
    with pytest.raises(TypeError, match="obs_mode must be a str"):
        AwaleEnv(obs_mode=1)  # type: ignore[arg-type]


def test_dict_observations_in_the_vector_env():
    from gymnasium.vector import AutoresetMode

    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        envs = awale.AwaleVectorEnv(3, "abapa", obs_mode="dict", autoreset_mode=mode)
        obs, info = envs.reset(seed=1)
        assert obs["observation"].shape == (3, envs.single_observation_space["observation"].shape[0])
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        assert envs.observation_space.contains(obs)
        for _ in range(300):
            obs, r, te, tr, info = envs.step(obs["action_mask"].argmax(axis=1))
            assert envs.observation_space.contains(obs)
            if mode == AutoresetMode.SAME_STEP and "final_obs" in info:
                i = int(np.flatnonzero(info["_final_obs"])[0])
                assert set(info["final_obs"][i]) == {"observation", "action_mask"}
                break
        envs.close()


def test_rgb_array_render_and_sb3_make_vec_env():
    env = AwaleEnv("abapa", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert not np.array_equal(env.render(), frame)  # the seeds moved
    check_env(env)  # the render check included
    three = AwaleEnv("oware3", render_mode="rgb_array")
    three.reset(seed=0)
    assert three.render().shape[0] > frame.shape[0]  # one row per player
    vec = awale.AwaleVectorEnv(2, "abapa", render_mode="rgb_array")
    vec.reset(seed=0)
    frames = vec.render()
    assert len(frames) == 2 and frames[0].shape == frame.shape
    sb3 = pytest.importorskip("stable_baselines3")
    venv = sb3.common.env_util.make_vec_env("awale/Abapa-v0", n_envs=4)
    venv.reset()
    assert venv.render_mode is None or venv.render_mode == "rgb_array"
    images = venv.get_images()
    assert len(images) == 4


def test_record_video_writes_a_file(tmp_path):
    if os.environ.get("CI", "").lower() != "true":  # CI installs it: a missing one fails
        pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gym.make("awale/Oware3-v0", render_mode="rgb_array"),
        video_folder=str(tmp_path),
        episode_trigger=lambda e: True,
        disable_logger=True,
    )
    obs, info = env.reset(seed=0)
    for _ in range(500):
        obs, r, te, tr, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if te or tr:
            break
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000

"""PettingZoo AEC environments: `api_test` and `seed_test` for every preset and player count,
observations, rewards, illegal moves and pickling."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import awale
from awale import pettingzoo as azp

from conftest import random_legal

SPECS = list(awale.PRESETS) + ["oware:players=3,max_plies=30", "wari:max_plies=20"]


@pytest.fixture(autouse=True)
def _quiet():
    # api_test warns that Dict observation spaces "probably should be" Box, as for every
    # classic PettingZoo game with action masks.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("name", list(azp.ENVIRONMENTS))
def test_api_test_every_preset_module(name):
    module = azp.ENVIRONMENTS[name]
    api_test(module.env(), num_cycles=1000)
    api_test(module.raw_env(), num_cycles=1000)
    seed_test(module.env, num_cycles=500)
    seed_test(module.raw_env, num_cycles=500)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("obs", ["compact", "onehot:6"])
def test_api_test_any_rules(spec, obs):
    api_test(azp.env(rules=spec, obs=obs), num_cycles=1000)
    seed_test(lambda: azp.env(rules=spec, obs=obs, obs_dtype="uint8"), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_agents_and_spaces(players):
    env = azp.raw_env(rules=f"oware:players={players}")
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    assert env.metadata["name"] == f"awale_oware{players}_v0"
    space = env.observation_space("player_0")
    assert set(space.spaces) == {"observation", "action_mask"}
    assert space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == 12 // players


@pytest.mark.parametrize("spec", SPECS)
def test_full_games(spec, rng):
    env = azp.raw_env(rules=spec)
    for seed in range(3):
        env.reset(seed=seed)
        returns = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, info = env.last()
            returns[agent] += reward
            seat = env.agent_name_mapping[agent]
            game = env.game
            np.testing.assert_array_equal(
                obs["observation"], game.observation(perspective=seat)
            )
            if term or trunc:
                env.step(None)
                continue
            assert game.to_move == seat
            np.testing.assert_array_equal(obs["action_mask"], game.action_mask())
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            env.step(int(random_legal(rng, obs["action_mask"])))
        assert env.agents == []
        if game.status == "ended":
            assert [returns[a] for a in env.possible_agents] == game.returns()
            assert max(returns.values()) >= 0
        else:
            assert game.status == "truncated"
            assert set(returns.values()) == {0.0}


def test_illegal_moves():
    raw = azp.raw_env(rules="abapa")
    raw.reset(seed=0)
    raw.step(0)
    raw.step(0)
    with pytest.raises(ValueError, match="player_0: illegal move: house 0"):
        raw.step(0)
    with pytest.raises(ValueError, match="out of range"):
        raw.step(7)
    wrapped = azp.env(rules="abapa")
    wrapped.reset(seed=0)
    wrapped.step(0)
    wrapped.step(0)
    wrapped.step(0)  # illegal: player_0 loses
    assert wrapped.terminations["player_0"] and wrapped.rewards["player_0"] == -1


def test_seeds():
    firsts = set()
    for seed in range(30):
        env = azp.raw_env(rules="oware6")
        env.reset(seed=seed)
        firsts.add(env.agent_selection)
    assert len(firsts) > 3
    with pytest.raises(ValueError, match="seed"):
        azp.raw_env().reset(seed=-1)
    with pytest.raises(TypeError, match="seed"):
        azp.raw_env().reset(seed="x")


def test_render_and_pickle(rng):
    env = azp.raw_env(rules="oware4", render_mode="ansi")
    env.reset(seed=3)
    assert "store" in env.render()
    for _ in range(5):
        env.step(int(random_legal(rng, env.observe(env.agent_selection)["action_mask"])))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.game.position() == env.game.position()
    assert clone.agent_selection == env.agent_selection
    with pytest.raises(ValueError, match="render_mode"):
        azp.raw_env(render_mode="rgb_array")

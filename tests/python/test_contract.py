"""The contracts that issue 12 ties to the engine: typed exceptions built from the engine's
errors, one meaning of each opponent name, the preset table, the shared env spec, and the
caller's view (observations, masks, rewards) identical in Rust and in Python."""

from __future__ import annotations

import importlib
import pickle
import sys

import gymnasium as gym
import numpy as np
import pytest

import awale
from awale import AwaleEnv, AwaleVectorEnv, Batch, Game, Rules

# ---------------------------------------------------------------------------------------------
# Typed exceptions


def test_exception_hierarchy():
    for cls in (
        awale.RulesError,
        awale.IllegalActionError,
        awale.GameOverError,
        awale.ParseError,
        awale.ConfigError,
        awale.AgentError,
        awale.TournamentError,
    ):
        assert issubclass(cls, awale.AwaleError)
    assert issubclass(awale.AwaleError, ValueError)
    # Raised from Python, the attributes default to None.
    e = awale.IllegalActionError("made by hand")
    assert e.board is None and e.action is None and e.reason is None


def test_batch_illegal_action_carries_board_and_action():
    b = Batch("abapa", 2, seed=0)
    b.step(np.array([0, 0]))
    b.step(np.array([0, 0]))  # South's house 0 is now empty
    with pytest.raises(awale.IllegalActionError) as info:
        b.step(np.array([1, 0]))
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.board, e.action, e.player) == (1, 0, None)
    assert e.reason == "is not legal: the house is empty"
    assert str(e) == "board 1: action 0 is not legal: the house is empty"
    with pytest.raises(awale.IllegalActionError) as info:
        b.step(np.array([1, 9]))
    assert (info.value.board, info.value.action) == (1, 9)
    assert "out of range 0..5" in str(info.value)
    with pytest.raises(awale.IllegalActionError) as info:
        b.step(np.array([-3, 1], dtype=np.int8))
    assert (info.value.board, info.value.action) == (0, -3)


def test_single_env_reports_the_action_without_a_board():
    env = AwaleEnv("abapa", opponent="self")
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    with pytest.raises(awale.IllegalActionError) as info:
        env.step(0)
    e = info.value
    assert e.board is None and e.action == 0 and "empty" in e.reason
    assert str(e) == "action 0 is not legal: the house is empty"


@pytest.mark.parametrize("action", [7, -1, np.int64(6), np.array([9])])
def test_an_action_out_of_range_is_an_illegal_action_error_in_every_flavour(action):
    """AwaleEnv, the vector env and PettingZoo all raise awale.IllegalActionError (a
    ValueError) for a house that does not exist (docs/observations.md, "Actions")."""
    value = int(np.asarray(action).reshape(()))
    env = AwaleEnv("abapa", opponent="self")
    env.reset(seed=0)
    with pytest.raises(awale.IllegalActionError) as info:
        env.step(action)
    e = info.value
    assert isinstance(e, ValueError) and e.board is None
    assert (e.action, e.reason) == (value, "is out of range 0..5"), vars(e)
    assert "out of range" in str(e)
    env.step(0)  # the env goes on after the refused action

    venv = AwaleVectorEnv(2, opponent="self")
    venv.reset(seed=0)
    with pytest.raises(awale.IllegalActionError) as info:
        venv.step(np.array([0, value]))
    assert (info.value.board, info.value.action) == (1, value)

    from awale.pettingzoo import raw_env

    pz = raw_env(rules="abapa")
    pz.reset(seed=0)
    with pytest.raises(awale.IllegalActionError) as info:
        pz.step(action)
    assert info.value.action == value and info.value.board is None


def test_game_errors_are_typed():
    g = Game("abapa")
    g.apply(0)
    g.apply(0)
    with pytest.raises(awale.IllegalActionError) as info:
        g.apply(0)
    assert (info.value.player, info.value.action, info.value.board) == (0, 0, None)
    with pytest.raises(awale.RulesError, match="unknown rules preset"):
        Rules("abapaa")
    with pytest.raises(awale.RulesError) as info:
        Rules("abapa:colour=red")
    assert info.value.option is not None
    with pytest.raises(awale.ParseError) as info:
        awale.parse_position("abapa 1,2,3")
    assert info.value.text == "abapa 1,2,3" and info.value.reason


def test_episode_over_and_config_errors():
    b = Batch("abapa:max_plies=2", 1, reset_mode="disabled")
    b.step([0])
    b.step([0])
    with pytest.raises(awale.GameOverError) as info:
        b.step([0])
    assert info.value.board == 0
    assert "reset_boards" not in str(info.value)  # no method the envs' users never call
    with pytest.raises(awale.ConfigError) as info:
        Batch("abapa", 2, opponent="alphazero")
    assert not str(info.value).startswith("bad batch input")
    assert "self, random, capture, greedy" in str(info.value)
    with pytest.raises(ValueError, match=r"boards 0\.\.1"):
        Batch("abapa", 2).state(2)


def test_exceptions_pickle():
    try:
        Batch("abapa", 2, opponent="nobody")
    except awale.ConfigError as e:
        again = pickle.loads(pickle.dumps(e))
        assert type(again) is awale.ConfigError and str(again) == str(e)


# ---------------------------------------------------------------------------------------------
# Opponents: capture and greedy


@pytest.mark.parametrize("opponent", ["self", "random", "capture", "greedy"])
def test_every_opponent_name_is_accepted(opponent):
    env = AwaleVectorEnv(4, "oware3", opponent=opponent, learner_seat=1)
    assert env.opponent == opponent
    obs, info = env.reset(seed=1)
    for _ in range(50):
        actions = info["action_mask"].argmax(axis=1)
        obs, r, te, tr, info = env.step(actions)


def test_capture_and_greedy_differ():
    # Over many games the two rules make different choices somewhere.
    def trace(opponent):
        b = Batch("oware4", 16, opponent=opponent, seed=3)
        out = []
        for _ in range(200):
            b.step(b.mask.argmax(axis=1))
            out.append(b.obs.copy())
        return np.concatenate(out)

    assert not np.array_equal(trace("capture"), trace("greedy"))


# ---------------------------------------------------------------------------------------------
# The preset table


def test_presets_come_from_the_engine_table():
    table = awale._core.presets()
    assert [spec for spec, _, _ in table] == list(awale.PRESETS)
    for spec, title, summary in table:
        assert summary and title
        assert f"awale/{title}-v0" in awale.ENV_IDS
        assert gym.spec(f"awale/{title}-v0").kwargs["rules"] == spec
    assert "awale/OpenSpiel-v0" in awale.ENV_IDS and "awale/Oware3-v0" in awale.ENV_IDS


def test_pettingzoo_modules_are_generated():
    pz = pytest.importorskip("awale.pettingzoo")
    for spec, _, _ in awale._core.presets():
        module = importlib.import_module(f"awale.pettingzoo.{spec}_v0")
        assert sys.modules[f"awale.pettingzoo.{spec}_v0"] is module
        assert pz.ENVIRONMENTS[spec] is module and module.RULES == spec
        env = module.env()
        env.reset(seed=0)
        assert env.unwrapped.rules == Rules(spec)
    from awale.pettingzoo import oware4_v0

    assert oware4_v0.raw_env().rules.players == 4


# ---------------------------------------------------------------------------------------------
# One validated env spec


def test_env_spec_validates_once_for_every_env():
    spec = awale.EnvSpec(rules="wari", opponent="capture", obs_dtype=np.uint8).validate()
    assert spec.rules == Rules("wari") and spec.obs_dtype == "uint8"
    assert spec.observation_space().shape == (Rules("wari").obs_dim(),)
    for bad, exc in [
        (dict(rules=3), TypeError),
        (dict(opponent=1), TypeError),
        (dict(learner_seat="0"), TypeError),
        (dict(obs="pixels"), ValueError),
        (dict(obs_dtype="float64"), ValueError),
        (dict(render_mode="rgb"), ValueError),
    ]:
        with pytest.raises(exc):
            awale.EnvSpec(**bad).validate()
    assert AwaleEnv("wari", opponent="capture").env_spec.opponent == "capture"
    assert AwaleVectorEnv(2, "wari").env_spec.rules == Rules("wari")


# ---------------------------------------------------------------------------------------------
# The caller's view is the Rust batch's: the digests of tests/batch.rs


#: `CALLER_VIEW_DIGESTS` of tests/batch.rs: (opponent, learner seat, FNV-1a digest).
CALLER_VIEW_DIGESTS = [("random", 1, 0x2F02C0F09BB9F51B), ("self", 0, 0xA769B7364E44AB81)]


def _fnv1a(h: int, data: bytes) -> int:
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@pytest.mark.parametrize("opponent, seat, expected", CALLER_VIEW_DIGESTS)
def test_vector_env_gives_the_rust_batch_view(opponent, seat, expected):
    env = AwaleVectorEnv(8, "abapa", opponent=opponent, learner_seat=seat, opening=(0, 4))
    obs, info = env.reset(seed=7)
    h = 0xCBF29CE484222325
    for _ in range(300):
        actions = info["action_mask"].argmax(axis=1)
        obs, reward, te, tr, info = env.step(actions)
        h = _fnv1a(h, obs.astype("<f4").tobytes())
        h = _fnv1a(h, info["action_mask"].astype(np.uint8).tobytes())
        h = _fnv1a(h, reward.astype("<f4").tobytes())
        h = _fnv1a(h, (te.astype(np.uint8) | (tr.astype(np.uint8) << 1)).tobytes())
    assert h == expected, hex(h)

"""Hypothesis property tests: the envs' constructors with random keyword arguments, ``step``
with arbitrary actions, pickling round trips and the position parser. Bad input must raise
ValueError or TypeError (or a subclass), never crash the interpreter or raise anything else.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import awale  # noqa: E402
from awale import AwaleEnv, AwaleVectorEnv  # noqa: E402
from awale.pettingzoo.aec import raw_env  # noqa: E402

# Keep the whole file under ~30 s: 200 examples each, no deadline (first calls build tables).
FAST = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

#: The errors bad input may raise.
BAD_INPUT = (ValueError, TypeError)

# Values of every kind, valid and not, for any keyword argument.
junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.binary(max_size=4),
    st.tuples(st.integers(-5, 20), st.integers(-5, 20)),
    st.lists(st.integers(-3, 10), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)

rules_specs = st.one_of(
    st.sampled_from(list(awale.PRESETS)),
    st.sampled_from(
        [
            "abapa:max_plies=20",
            "oware:players=3,seeds=2",
            "awale:houses=4",
            "wari:max_plies=0",
            "oware:players=7",
            "abapa:seeds=300",
            "abapa:",
            ":",
            "abapa:max_plies=-1",
        ]
    ),
    st.text(max_size=25),
)

env_kwargs = {
    "rules": st.one_of(rules_specs, junk),
    "opponent": st.one_of(st.sampled_from(["random", "greedy", "self", "alphabeta"]), junk),
    "learner_seat": st.one_of(st.integers(-2, 7), junk),
    "obs": st.one_of(
        st.sampled_from(["compact", "onehot", "onehot:8", "thermometer:4", "onehot:0", "x"]),
        junk,
    ),
    "obs_dtype": st.one_of(st.sampled_from(["float32", "uint8", np.float32, "int64"]), junk),
    "opening": st.one_of(st.integers(-3, 12), st.tuples(st.integers(-3, 9), st.integers(-3, 9)), junk),
    "illegal": st.one_of(st.sampled_from(["error", "loss", "ignore"]), junk),
    "render_mode": st.one_of(st.sampled_from([None, "ansi", "human", "rgb_array"]), junk),
}


def some_kwargs(extra: dict | None = None):
    """A random subset of the keyword arguments, each with a random value."""
    fields = dict(env_kwargs, **(extra or {}))
    return st.fixed_dictionaries({}, optional=fields)


def build(factory, kwargs):
    """Builds an env; bad arguments must raise ValueError/TypeError (returns None then)."""
    try:
        return factory(**kwargs)
    except BAD_INPUT:
        return None


actions = st.one_of(
    st.integers(-(2**65), 2**65),
    st.integers(-2, 8),
    st.booleans(),
    st.none(),
    st.floats(),
    st.text(max_size=3),
    st.builds(np.int64, st.integers(-10, 10)),
    st.builds(lambda v: np.array([v]), st.integers(-3, 8)),
    st.builds(lambda v: np.array([v, v]), st.integers(0, 5)),
    st.builds(lambda v: np.array([v], dtype=np.float32), st.floats(0, 5)),
)


@FAST
@given(some_kwargs(), st.lists(actions, max_size=12), st.integers(0, 2**32))
def test_awale_env_bad_kwargs_and_actions(kwargs, acts, seed):
    env = build(AwaleEnv, kwargs)
    if env is None:
        return
    obs, info = env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    for a in acts:
        try:
            obs, reward, terminated, truncated, info = env.step(a)
        except BAD_INPUT:
            continue
        assert env.observation_space.contains(obs)
        assert -1.0 <= reward <= 1.0
        if terminated or truncated:
            env.reset()
    # Pickling round trip: the copy continues like the original.
    copy = pickle.loads(pickle.dumps(env))
    mask = env.action_masks()
    assert np.array_equal(copy.action_masks(), mask)
    if mask.any() and not env._needs_reset:
        a = int(np.flatnonzero(mask)[0])
        r1 = env.step(a)
        r2 = copy.step(a)
        assert np.array_equal(r1[0], r2[0]) and r1[1:4] == r2[1:4]


@FAST
@given(
    some_kwargs(
        {
            "num_envs": st.one_of(st.integers(-2, 5), junk),
            "threads": st.one_of(st.integers(-1, 3), junk),
            "autoreset_mode": st.one_of(
                st.sampled_from(["next_step", "same_step", "disabled", "NextStep"]), junk
            ),
        }
    ),
    st.lists(st.one_of(st.lists(st.integers(-3, 8), max_size=6), actions), max_size=6),
)
def test_vector_env_bad_kwargs_and_actions(kwargs, acts):
    env = build(AwaleVectorEnv, kwargs)
    if env is None:
        return
    try:
        env.reset(seed=1)
        for a in acts:
            try:
                env.step(a if not isinstance(a, list) else np.array(a))
            except BAD_INPUT:
                continue
        copy = pickle.loads(pickle.dumps(env))
        assert copy.num_envs == env.num_envs
    finally:
        env.close()


@FAST
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "rules": env_kwargs["rules"],
            "obs": env_kwargs["obs"],
            "obs_dtype": env_kwargs["obs_dtype"],
            "render_mode": env_kwargs["render_mode"],
        },
    ),
    st.lists(actions, max_size=10),
)
def test_pettingzoo_bad_kwargs_and_actions(kwargs, acts):
    env = build(raw_env, kwargs)
    if env is None:
        return
    env.reset(seed=3)
    for a in acts:
        if not env.agents:
            break
        try:
            env.step(a)
        except BAD_INPUT:
            continue
    copy = pickle.loads(pickle.dumps(env))
    assert copy.agents == env.agents


# Positions: "<rules> <row>/<row>... <stores> <to move> [<ply>]" and near misses.
cells = st.integers(-2, 60).map(str) | st.sampled_from(["", "x", "4.5", "99999999999"])
position_text = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda r, rows, stores, mover, ply: f"{r} {rows} {stores} {mover}{ply}",
        rules_specs,
        st.lists(st.lists(cells, min_size=0, max_size=7).map(",".join), max_size=4).map("/".join),
        st.lists(cells, max_size=4).map(",".join),
        st.integers(-1, 7),
        st.one_of(st.just(""), st.integers(-1, 10**12).map(lambda p: f" {p}")),
    ),
)


@FAST
@given(position_text)
@example("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0")
@example("awale 0,0,0,0,0,2/2,0,2,2,0,0 23,17 0")
@example("oware3 4,4,4,4/4,4,4,4/4,4,4,4 0,0,0 2 7")
def test_position_parser_never_crashes(text):
    try:
        state = awale.parse_position(text)
    except BAD_INPUT:
        return
    # A parsed position prints back to text that parses to the same position.
    again = awale.parse_position(state.to_text())
    assert again.to_text() == state.to_text()
    assert sum(state.pits) + sum(state.scores) == state.rules.total_seeds
    assert pickle.loads(pickle.dumps(state)).to_text() == state.to_text()
    for house in range(-1, 8):
        s = state.copy()
        legal = house in state.legal_moves()
        try:
            s.apply(house)
            assert legal, f"{text!r}: house {house} applied but not legal"
        except BAD_INPUT:
            assert not legal, f"{text!r}: legal house {house} refused"


@FAST
@given(st.one_of(junk, st.text(max_size=30)))
def test_rules_and_state_constructors(value):
    for ctor in (awale.Rules, awale.State, awale.Game):
        try:
            ctor(value)
        except BAD_INPUT:
            pass


@FAST
@given(st.sampled_from(list(awale.PRESETS)), st.lists(st.integers(0, 5), max_size=40))
def test_game_pickle_round_trip(spec, moves):
    game = awale.Game(spec)
    for m in moves:
        legal = game.legal_moves()
        if not legal:
            break
        game.apply(legal[m % len(legal)])
    copy = pickle.loads(pickle.dumps(game))
    assert copy.record() == game.record()
    assert copy.position() == game.position()
    assert awale.Game.from_record(game.record()).position() == game.position()


#: Rules that build, for the spaces test.
valid_rules = st.sampled_from(
    list(awale.PRESETS)
    + ["abapa:houses=8,seeds=3", "oware:players=4,houses=2", "oware:players=3,seeds=2"]
)
encodings = st.one_of(
    st.just("compact"),
    st.builds(
        lambda kind, levels: f"{kind}:{levels}",
        st.sampled_from(["onehot", "thermometer"]),
        st.integers(1, 20),
    ),
)


@settings(FAST, max_examples=60)
@given(
    valid_rules,
    encodings,
    st.sampled_from(["raw", "network"]),
    st.sampled_from(["float32", "uint8"]),
    st.sampled_from(["array", "dict"]),
    st.integers(0, 2**32),
)
def test_observations_lie_within_the_declared_spaces(spec, obs, scale, dtype, mode, seed):
    """For random options and random play, every observation has the shape and dtype the
    engine declares (``awale._core.env_spaces``) and lies within its bounds; the envs' spaces
    are built from that declaration."""
    options = dict(obs=obs, obs_scale=scale, obs_dtype=dtype)
    if scale == "network" and dtype == "uint8":
        with pytest.raises(ValueError, match="float32"):
            awale._core.env_spaces(rules=spec, **options)
        return
    declared = awale._core.env_spaces(rules=spec, **options)
    envs = AwaleVectorEnv(4, spec, obs_mode=mode, opponent="random", **options)
    assert envs.batch.spaces.obs_shape == declared.obs_shape == (envs.rules.obs_dim(obs),)
    assert declared.n_actions == envs.rules.houses == envs.single_action_space.n
    space = envs.single_observation_space
    box = space["observation"] if mode == "dict" else space
    assert box.shape == declared.obs_shape and box.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(box.low, declared.obs_low)
    np.testing.assert_array_equal(box.high, declared.obs_high)
    rng = np.random.default_rng(seed)
    got, info = envs.reset(seed=seed)
    for _ in range(40):
        assert got in envs.observation_space
        rows = got["observation"] if mode == "dict" else got
        assert rows.dtype == np.dtype(dtype) and rows.shape == (4, *declared.obs_shape)
        assert (rows >= declared.obs_low).all() and (rows <= declared.obs_high).all()
        mask = (got["action_mask"] if mode == "dict" else info["action_mask"]).copy()
        mask[~mask.any(axis=1)] = 1  # a board waiting for its reset ignores its action
        got, _, _, _, info = envs.step(awale.sample_legal(mask, rng))

"""The engine wrappers of `awale._core`: Rules, State, Game, Batch; errors and pickling; a Python
replay of batch-played games through `Game` matches the batch engine move for move."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import awale
from awale import Batch, Game, Rules, State

from conftest import PRESETS, random_legal


def test_rules_parse_and_round_trip():
    r = Rules("oware:players=3")
    assert (r.players, r.houses, r.pits, r.total_seeds) == (3, 4, 12, 48)
    assert str(r) == "oware3" and r.name == "oware3" and r.preset == "oware"
    assert Rules("oware3") == r and hash(Rules("oware3")) == hash(r)
    assert pickle.loads(pickle.dumps(r)) == r
    assert Rules("abapa").obs_dim() == 16 and Rules("abapa").obs_dim("onehot") == 196
    r = Rules("wari:max_plies=300")
    assert r.max_plies == 300 and r.options()["max_plies"] == "300"
    assert sorted(PRESETS) == sorted(spec for spec, _, _ in awale._core.presets())


@pytest.mark.parametrize(
    "spec, words",
    [
        ("abapaa", "unknown rules preset 'abapaa'"),
        ("abapa:colour=red", "unknown option 'colour'"),
        ("abapa:grand_slam=maybe", "grand_slam=maybe"),
        ("oware:players=5", "players"),
    ],
)
def test_bad_rules_raise_value_error(spec, words):
    with pytest.raises(ValueError, match=words):
        Rules(spec)


def test_state_known_moves():
    s = State()
    assert s.pits == [4] * 12 and s.scores == [0, 0] and s.to_move == 0
    assert s.legal_moves() == list(range(6)) and s.legal_mask() == 0b111111
    assert s.apply(2) == 0
    assert s.pits == [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4] and s.to_move == 1 and s.ply == 1
    # South's F (2 seeds) reaches b and takes a=2, b=3.
    s = State("abapa 1,0,0,0,0,2/1,2,8,0,0,0 20,14 0")
    assert s.apply(5) == 5
    assert s.scores == [25, 14] and s.status == "ended" and s.end_reason == "threshold"
    assert s.returns() == [1.0, -1.0] and s.winners() == [0] and s.legal_moves() == []
    assert "South wins" in s.render()
    assert State(s.to_text()).pits == s.pits


def test_state_errors():
    with pytest.raises(ValueError, match="49 seeds"):
        State("abapa 4,4,4,4,4,4/4,4,4,4,4,5 0,0 0")
    s = State("abapa 0,4,4,4,4,4/4,4,4,4,4,8 0,0 0")
    with pytest.raises(ValueError, match="illegal move: house 0"):
        s.apply(0)
    with pytest.raises(ValueError, match="out of range"):
        s.apply(6)
    with pytest.raises(ValueError, match="out of range"):
        s.apply(-1)
    with pytest.raises(TypeError):
        s.apply(1.0)
    with pytest.raises(TypeError):
        s.apply(True)


def test_state_pickles_exactly():
    s = State("oware3")
    s.apply(1)
    t = pickle.loads(pickle.dumps(s))
    assert t == s and t.to_text() == s.to_text()
    assert copy.deepcopy(s) == s


def test_observation_layout_and_perspective():
    s = State()
    s.apply(2)  # now player 1 moves
    np.testing.assert_array_equal(
        s.observation("compact", dtype="uint8"),
        [5, 4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 0, 0, 0, 1],
    )
    np.testing.assert_array_equal(
        s.observation("compact", perspective=0),
        [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 0, 0, 1, 0],
    )
    assert s.observation("onehot:8").shape == (12 * 8 + 4,)
    with pytest.raises(ValueError, match="perspective 2"):
        s.observation(perspective=2)
    with pytest.raises(ValueError, match="unknown observation encoding"):
        s.observation("pixels")


@pytest.mark.parametrize("spec", PRESETS)
@pytest.mark.parametrize("enc", ["compact", "onehot:5", "thermometer:7"])
def test_explicit_perspective_of_the_mover_matches_the_engine(spec, enc, rng):
    g = Game(spec, seed=3)
    while not g.is_over:
        for dtype in ("float32", "uint8"):
            np.testing.assert_array_equal(
                g.observation(enc, dtype=dtype),
                g.observation(enc, perspective=g.to_move, dtype=dtype),
            )
        g.apply(int(rng.choice(g.legal_moves())))


def test_game_moves_record_and_pickle():
    g = Game("abapa")
    assert g.apply(2) == 0
    assert g.apply_move("f") == 5
    assert g.moves == [2, 5] and g.to_move == 0
    rec = g.record()
    assert "C f" in rec
    h = Game.from_record(rec)
    assert h.position() == g.position() and h.moves == g.moves
    p = pickle.loads(pickle.dumps(g))
    assert p.position() == g.position() and p.moves == g.moves
    assert Game(position="abapa 1,0,0,0,0,2/1,2,8,0,0,0 20,14 0").legal_moves() == [0, 5]
    with pytest.raises(TypeError):
        Game("abapa", position="abapa")
    with pytest.raises(ValueError, match="illegal"):
        Game(position="abapa 0,4,4,4,4,4/4,4,4,4,4,8 0,0 0").apply(0)
    with pytest.raises(ValueError):
        Game("abapa", seed=-1)


def test_game_seed_draws_the_first_player():
    firsts = {Game("oware4", seed=s).to_move for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert Game("oware4", seed=7).to_move == Game("oware4", seed=7).to_move


@pytest.mark.parametrize("spec", PRESETS + ["wari:max_plies=40", "oware3:max_plies=25"])
def test_python_replay_matches_the_batch_engine(spec, rng):
    """Boards played by the batch (self-play, random legal moves) are replayed move by move in
    a Python-driven `Game`: same positions, observations, masks, ends and scores."""
    n = 16
    batch = Batch(spec, n, reset_mode="next_step", seed=99)
    games = [Game(position=batch.state(i).to_text()) for i in range(n)]  # the batch's starts
    live = np.ones(n, dtype=bool)
    ended = 0
    for _ in range(400):
        if not live.any():
            break
        actions = random_legal(rng, batch.mask)
        before = batch.to_move.copy()
        batch.step(actions)
        for i in np.flatnonzero(live):
            g = games[i]
            assert g.to_move == before[i]
            g.apply(int(actions[i]))
            st = batch.state(i)
            assert g.pits == st.pits and g.scores == st.scores and g.ply == st.ply
            assert g.status == st.status and g.end_reason == st.end_reason
            np.testing.assert_array_equal(batch.obs[i], g.observation())
            if g.is_over:
                ended += 1
                live[i] = False
                assert batch.terminated[i] == (g.status == "ended")
                assert batch.truncated[i] == (g.status == "truncated")
                np.testing.assert_array_equal(batch.rewards[i], g.returns())
                assert list(batch.episode_scores[i]) == g.scores
                assert batch.episode_length[i] == len(g.moves)
                assert Game.from_record(g.record()).position() == g.position()
            else:
                assert g.to_move == batch.to_move[i]
                np.testing.assert_array_equal(batch.mask[i], g.action_mask())
                assert batch.rewards[i].tolist() == [0.0] * g.players
    assert ended == n


def test_batch_arrays_and_errors(rng):
    b = Batch("abapa", 4, seed=3)
    assert b.obs.shape == (4, 16) and b.obs.dtype == np.float32
    assert b.mask.dtype == np.int8 and b.mask.shape == (4, 6)
    assert b.rewards.shape == (4, 2) and b.reward.shape == (4,)
    obs_buffer, first = b.obs, b.obs.copy()
    b.step(np.array([0, 1, 2, 3], dtype=np.uint8))
    assert b.obs is obs_buffer  # the batch's own array, overwritten in place
    assert not np.array_equal(obs_buffer, first)
    np.testing.assert_array_equal(b.to_move, [1, 1, 1, 1])
    b.step([0, 0, 0, 0])  # a list of ints
    strided = np.repeat(random_legal(rng, b.mask).astype(np.int32), 2)[::2]
    assert not strided.flags.c_contiguous
    b.step(strided)
    with pytest.raises(TypeError, match="float64"):
        b.step(np.zeros(4))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        b.step(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="out of range"):
        b.step(np.array([0, 9, 0, 0]))
    with pytest.raises(TypeError):
        b.step("abcd")
    with pytest.raises(ValueError, match="board"):
        Batch("abapa", 1).state(1)


def test_batch_illegal_actions_name_the_board_and_change_nothing():
    b = Batch("abapa", 2, seed=0)
    b.step(np.array([0, 0]))
    b.step(np.array([0, 0]))  # North plays a
    snap = b.snapshot()
    with pytest.raises(ValueError, match="board 0: action 0 is not legal"):
        b.step(np.array([0, 1]))
    assert b.snapshot() == snap


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(num_boards=0), ValueError, "num_boards"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=1.5), TypeError, "seed"),
        (dict(seed=2**64), ValueError, "seed"),
        (dict(rules="nope"), ValueError, "unknown rules preset"),
        (dict(rules=5), TypeError, "rules"),
        (dict(obs="pixels"), ValueError, "observation"),
        (dict(obs_dtype="int16"), ValueError, "dtype"),
        (dict(reset_mode="sometimes"), ValueError, "reset mode"),
        (dict(opponent="alphazero"), ValueError, "opponent"),
        (dict(opponent="random", learner_seat=2), ValueError, "seat"),
        (dict(illegal="maybe"), ValueError, "illegal"),
        (dict(opening=(5, 2)), ValueError, "opening"),
        (dict(threads=-1), ValueError, "threads"),
    ],
)
def test_batch_bad_arguments(kwargs, exc, words):
    with pytest.raises(exc, match=words):
        Batch(**kwargs)


def test_batch_seeding_snapshot_and_pickle(rng):
    a = Batch("oware4", 32, opponent="random", opening=(0, 6), seed=5)
    b = Batch("oware4", 32, opponent="random", opening=(0, 6), seed=6)
    assert not np.array_equal(a.obs, b.obs)
    b.reset(5)
    np.testing.assert_array_equal(a.obs, b.obs)
    assert a.snapshot() == b.snapshot()
    for _ in range(30):
        acts = random_legal(rng, a.mask)
        a.step(acts)
        b.step(acts)
        np.testing.assert_array_equal(a.obs, b.obs)
    c = pickle.loads(pickle.dumps(a))
    d = copy.deepcopy(a)
    for _ in range(30):
        acts = random_legal(rng, a.mask)
        for x in (a, c, d):
            x.step(acts)
        np.testing.assert_array_equal(a.obs, c.obs)
        np.testing.assert_array_equal(a.reward, d.reward)
        np.testing.assert_array_equal(a.mask, c.mask)


def test_batch_outputs_do_not_depend_on_threads(rng):
    one = Batch("abapa", 600, opponent="greedy", opening=4, seed=1, threads=1)
    two = Batch("abapa", 600, opponent="greedy", opening=4, seed=1, threads=2)
    for _ in range(40):
        acts = random_legal(rng, one.mask)
        one.step(acts)
        two.step(acts)
        np.testing.assert_array_equal(one.obs, two.obs)
        np.testing.assert_array_equal(one.reward, two.reward)


def test_read_only_buffers_are_refused():
    b = Batch("abapa", 2)
    b.obs.flags.writeable = False
    with pytest.raises(ValueError, match="obs"):
        b.step([0, 0])

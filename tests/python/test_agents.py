"""One Python agent everywhere: the same agent (a function of an ``awale.State``, or an object
with ``select(state)``) plays in a tournament, a match, a scorecard, as an env's opponent, in
``Tablebase.accuracy`` and ``awale.play``, and gives the same games in each form; the old
``(observation, mask)`` callable still plays with a ``DeprecationWarning``; an observation-based
policy goes through ``awale.ObservationAgent`` (and ``awale.sb3.agent``), which encodes the
state as the env does."""

from __future__ import annotations

import importlib.util
import os
import warnings

import numpy as np
import pytest

import awale
from awale.training import HAS_TRAINER

TINY = """
version = 1
[[rules]]
rules = "abapa"
seed = 7
openings = 4
games = 4
prior_draws = 1.0
anchors = [{ spec = "random", rating = 0.0 }, { spec = "greedy", rating = 300.0 }]
"""


def last_legal(state):
    """A function of the state: the rightmost legal house."""
    return state.legal_moves()[-1]


class LastLegal:
    """An object with select(state) and a name."""

    name = "last"

    def select(self, state):
        return state.legal_moves()[-1]


def last_legal_obs(obs, mask):
    """The same agent in the deprecated form."""
    return int(np.flatnonzero(mask)[-1])


def _records(result):
    return [g["record"] for g in result.game_results]


def test_every_form_gives_the_same_tournament():
    def run(agent):
        return awale.tournament([("x", agent), "greedy", "random"], games=4, seed=3, threads=2)

    base = run(last_legal)
    assert run(LastLegal()).to_dict() == base.to_dict()
    assert run(awale.ObservationAgent(last_legal_obs)).to_dict() == base.to_dict()
    with pytest.warns(DeprecationWarning, match="ObservationAgent"):
        old = run(last_legal_obs)
    assert old.to_dict() == base.to_dict()
    # An object's name attribute names it; a plain function is python_<i>.
    r = awale.tournament([LastLegal(), last_legal], games=2, seed=0)
    assert r.names == ["last", "python_1"]


def test_new_forms_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        awale.tournament([last_legal, LastLegal(), awale.Agent("greedy")], games=2, seed=0)


def test_every_form_gives_the_same_match():
    base = awale.match(("x", last_legal), "greedy", games=4, seed=1)
    assert _records(awale.match(("x", LastLegal()), "greedy", games=4, seed=1)) == _records(base)
    with pytest.warns(DeprecationWarning):
        old = awale.match(("x", last_legal_obs), "greedy", games=4, seed=1)
    assert _records(old) == _records(base)


def test_every_form_gives_the_same_scorecard():
    base = awale.scorecard(("x", last_legal), rules="abapa", protocol=TINY)
    obj = awale.scorecard(("x", LastLegal()), rules="abapa", protocol=TINY)
    with pytest.warns(DeprecationWarning):
        old = awale.scorecard(("x", last_legal_obs), rules="abapa", protocol=TINY)
    assert base.rating == obj.rating == old.rating
    assert base.games == 8


def _trajectory(opponent):
    env = awale.AwaleEnv("abapa", opponent=opponent, learner_seat=1)
    obs, info = env.reset(seed=5)
    seen = [obs.tolist()]
    done = False
    while not done:
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, term, trunc, info = env.step(a)
        seen.append(obs.tolist())
        done = term or trunc
    return seen


def test_every_form_is_the_same_env_opponent():
    base = _trajectory(last_legal)
    assert _trajectory(LastLegal()) == base
    assert _trajectory(awale.ObservationAgent(last_legal_obs)) == base
    with pytest.warns(DeprecationWarning):
        assert _trajectory(last_legal_obs) == base
    # An awale.Agent plays as its spec.
    env = awale.AwaleEnv("abapa", opponent=awale.Agent("greedy"))
    assert env.opponent == "greedy"
    assert _trajectory(awale.Agent("greedy")) == _trajectory("greedy")
    env = awale.AwaleEnv("abapa", opponent=LastLegal())
    assert env.opponent == "python:last"


def test_every_form_scores_the_same_endgame_accuracy():
    table = awale.Tablebase.build("abapa", max_seeds=5, threads=1)
    positions = table.endgame_positions(count=20, seed=2)
    base = table.accuracy(last_legal, positions)
    assert table.accuracy(LastLegal(), positions) == base
    assert table.accuracy(awale.Agent("alphabeta:depth=2", table.rules), positions)["positions"] == 20
    with pytest.warns(DeprecationWarning):
        assert table.accuracy(last_legal_obs, positions) == base
    with pytest.raises(awale.IllegalActionError, match="choose returned house 17"):
        table.accuracy(lambda s: 17, positions)


def _play(opponent):
    moves = iter(["a", "b", "c", "q"])
    return awale.play(opponent, input=lambda p: next(moves), output=lambda s: None).moves


def test_every_form_plays_a_person():
    base = _play(last_legal)
    assert len(base) >= 4
    assert _play(LastLegal()) == base
    with pytest.warns(DeprecationWarning):
        assert _play(last_legal_obs) == base
    assert _play("alphabeta:depth=2") == _play(awale.Agent("alphabeta:depth=2"))
    with pytest.raises(awale.IllegalActionError, match="opponent returned house 9"):
        _play(lambda s: 9)


class Seeded:
    """An object with select and reset(seed): a random legal move from its own generator."""

    name = "seeded"

    def __init__(self):
        self.seeds = []
        self.rng = np.random.default_rng(0)

    def reset(self, seed):
        self.seeds.append(seed)
        self.rng = np.random.default_rng(seed)

    def select(self, state):
        return int(self.rng.choice(state.legal_moves()))


def test_reset_is_called_before_each_game_with_its_seed():
    a, b, t = Seeded(), Seeded(), Seeded()
    ra = awale.tournament([a, "greedy"], games=4, seed=5, threads=1)
    rb = awale.tournament([b, "greedy"], games=4, seed=5, threads=1)
    awale.tournament([t, "greedy"], games=4, seed=5, threads=2)
    # once a game, each with a seed of its own that the run's seed decides, whatever the thread
    # count; one game at a time (threads=1), a stateful agent replays its games exactly
    assert len(a.seeds) == 4 and len(set(a.seeds)) == 4
    assert sorted(a.seeds) == sorted(b.seeds) == sorted(t.seeds)
    assert _records(ra) == _records(rb)
    c = Seeded()
    awale.tournament([c, "greedy"], games=4, seed=6, threads=1)
    assert sorted(c.seeds) != sorted(a.seeds)


def test_a_reset_that_raises_fails_the_agent_with_the_reason():
    class Broken(Seeded):
        name = "broken"

        def reset(self, seed):
            raise ZeroDivisionError("no reset")

    with pytest.raises(RuntimeError, match=r"agent 'broken' failed: .*reset\(seed\) raised "
                       r"ZeroDivisionError: no reset") as info:
        awale.tournament([Broken(), "random"], games=2, threads=1)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_a_non_agent_is_a_clear_type_error():
    with pytest.raises(TypeError, match=r"select\(state\)"):
        awale.tournament([3, "random"], games=2)
    with pytest.raises(TypeError, match=r"select\(state\)"):
        awale.scorecard(object(), protocol=TINY)


def test_observation_agent_sees_what_the_env_gives():
    env = awale.AwaleEnv("abapa", obs="onehot:16", obs_scale="network", opponent="random")
    agent = awale.ObservationAgent(lambda o, m: 0, obs="onehot:16", scale="network")
    obs, info = env.reset(seed=1)
    for _ in range(6):
        o, m = agent.observe(env.state)
        np.testing.assert_array_equal(o, obs)
        np.testing.assert_array_equal(m, info["action_mask"])
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term or trunc:
            break


def test_observation_agent_masks_scores_and_checks_its_arguments():
    # Houses 0 to 3 are empty: the best scores are on illegal houses, the best legal is 4.
    state = awale.State("abapa 0,0,0,0,1,1/1,1,0,0,0,0 22,22 0")
    scores = np.arange(6, dtype=np.float32)[::-1].copy()
    agent = awale.ObservationAgent(lambda o, m: scores)
    assert agent.select(state) == 4
    assert agent.name is None and "lambda" in repr(agent)
    assert awale.ObservationAgent(lambda o, m: 4, name="four").select(state) == 4
    with pytest.raises(ValueError):
        awale.ObservationAgent(lambda o, m: 0, obs="onehot:zz")
    with pytest.raises(TypeError):
        awale.ObservationAgent(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int house"):
        awale.ObservationAgent(lambda o, m: 1.5).select(state)


@pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is None, reason="needs stable-baselines3"
)
def test_sb3_agent_plays_what_predict_plays():
    from stable_baselines3 import PPO

    from awale.sb3 import AwaleSB3VecEnv

    venv = AwaleSB3VecEnv(2, "abapa", obs="onehot:16", opponent="random", seed=0)
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=32, seed=0, device="cpu")
    agent = awale.sb3.agent(model, obs="onehot:16")
    env = awale.AwaleEnv("abapa", obs="onehot:16", opponent="random")
    obs, info = env.reset(seed=2)
    checked = 0
    for _ in range(20):
        predicted, _ = model.predict(obs, deterministic=True)
        mine = agent.select(env.state)
        if info["action_mask"][int(predicted)]:
            assert mine == int(predicted)
            checked += 1
        else:
            assert info["action_mask"][mine]
        obs, _, term, trunc, info = env.step(mine)
        if term or trunc:
            obs, info = env.reset()
    assert checked > 0
    # The wrong encoding is a clear error naming obs=.
    with pytest.raises(ValueError, match="obs="):
        awale.sb3.agent(model).select(awale.State("abapa"))
    r = awale.tournament([("ppo", agent), "random"], games=2)
    assert r.games == 2


WANT_TRAINER = os.environ.get("AWALE_TRAINER") == "1"


@pytest.mark.skipif(not HAS_TRAINER and not WANT_TRAINER,
                    reason="needs an extension built with the trainer")
def test_a_network_is_an_agent_in_one_line():
    """python/README.md's one-liners for an awale.Network: its search, its spec, its raw policy."""
    net = awale.Network.baseline("abapa-v1")
    raw = awale.ObservationAgent(lambda o, m: net.predict(o)[0], obs=net.encoding,
                                 scale="network", name="raw")
    search = awale.SearchAgent(net, sims=8, name="search")
    r = awale.tournament([raw, search, "nn:baseline=abapa-v1,sims=8", "random"], games=2, seed=0)
    assert r.games == 12
    # the raw policy is the network's argmax over legal houses, from the mover's view
    state = awale.State("abapa")
    logits = net.predict(net.encode(state))[0]
    legal = state.legal_moves()
    assert raw.select(state) == max(legal, key=lambda h: logits[h])

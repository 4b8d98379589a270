"""The Rust search from Python (python/README.md "Search from Python"): ``awale.search``,
``awale.SelfPlay``, ``awale.SearchAgent``, ``awale.torch.new_network``.

- the search's arrays (visits, policy target, action, values) and their invariants;
- reproducible from a seed, whatever the batch size;
- equivalence: a Python evaluator wrapping an ``awale.Network`` gives the same visit counts,
  policies and moves as the Rust search over the same network (and as the ``nn:`` agent);
- every bad input (evaluator outputs of the wrong shape, dtype, NaN, infinities, values out of
  range, an evaluator that raises; bad arguments) is a ``ValueError``/``TypeError`` or the
  evaluator's own exception; Ctrl-C stops a long search;
- self-play arrays, and a search agent in tournaments and matches.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import awale
from awale.training import HAS_TRAINER, train

WANT_TRAINER = os.environ.get("AWALE_TRAINER", "") == "1"
needs_trainer = pytest.mark.skipif(
    not HAS_TRAINER and not WANT_TRAINER,
    reason="needs an extension built with the trainer (the wheel has it)",
)


def positions(rules: str, n: int, seed: int = 0) -> list[awale.State]:
    """Positions of random games (openings, middles and endings), none finished."""
    rng = np.random.default_rng(seed)
    out: list[awale.State] = []
    g = awale.Game(rules)
    while len(out) < n:
        if g.is_over:
            g = awale.Game(rules)
            continue
        out.append(g.state)
        g.apply(int(rng.choice(g.legal_moves())))
    return out


def uniform(obs: np.ndarray, mask: np.ndarray):
    return np.zeros(mask.shape, np.float32), np.zeros(len(obs), np.float32)


def linear(obs: np.ndarray, mask: np.ndarray):
    """A deterministic evaluator that depends on the position (a fixed random projection)."""
    w = np.random.default_rng(7).normal(size=(obs.shape[1], mask.shape[1] + 1)).astype(np.float32)
    y = obs @ w
    return y[:, :-1], np.tanh(y[:, -1])


# --- the search's arrays --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["gumbel", "puct", "uct"])
def test_the_arrays_of_a_search(kind):
    states = positions("abapa", 12)
    r = awale.search(states, linear, sims=48, kind=kind, seed=1)
    n, a = len(states), 6
    assert len(r) == n and r.visits.shape == (n, a) and r.visits.dtype == np.int32
    assert r.policy.shape == (n, a) and r.policy.dtype == np.float32
    assert r.action.shape == (n,) and r.action.dtype == np.int64
    assert r.value.shape == (n,) and r.values.shape == (n, 2)
    legal = np.array([[h in s.legal_moves() for h in range(a)] for s in states])
    np.testing.assert_array_equal(r.legal, legal)
    np.testing.assert_allclose(r.policy.sum(1), 1.0, atol=1e-5)
    assert (r.policy[~legal] == 0).all() and (r.visits[~legal] == 0).all()
    assert legal[np.arange(n), r.action].all()
    many = legal.sum(1) > 1
    assert (r.visits.sum(1)[many] == 48).all()
    np.testing.assert_allclose(r.values[:, 0], r.value)
    np.testing.assert_allclose(r.values[:, 1], -r.value, atol=1e-6)
    assert (np.abs(r.values) <= 1).all()
    assert r.evaluations >= n and r.batches >= 48


def test_a_win_in_one_is_found_by_every_evaluator():
    # House F captures 5 and reaches 25 seeds: an immediate win (the mcts agent's doc example).
    s = awale.parse_position("abapa 1,0,0,0,0,2/1,2,5,0,0,0 20,17 0")
    for evaluate in (uniform, "uniform", "playout"):
        for kind in ("puct", "uct"):
            r = awale.search([s], evaluate, sims=200, kind=kind)
            assert r.action[0] == 5, (evaluate, kind, r.visits)


def test_the_batch_size_does_not_change_the_results_and_a_seed_reproduces_them():
    states = positions("abapa", 10, seed=3)
    a = awale.search(states, linear, sims=32, noise=True, seed=5)
    b = awale.search(states, linear, sims=32, noise=True, seed=5, eval_batch=3)
    c = awale.search(states, linear, sims=32, noise=True, seed=6)
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.policy, b.policy)
    assert a.batches < b.batches
    assert not np.array_equal(a.visits, c.visits)


def test_a_batch_is_every_tree_s_leaf_at_once():
    sizes: list[int] = []

    def record(obs, mask):
        sizes.append(len(obs))
        return uniform(obs, mask)

    awale.search(positions("abapa", 16), record, sims=8)
    assert max(sizes) == 16
    sizes.clear()
    awale.search(positions("abapa", 16), record, sims=8, eval_batch=5)
    assert max(sizes) == 5


def test_a_vector_env_s_boards_are_searched():
    env = awale.AwaleVectorEnv(4, "abapa", opponent="self")
    env.reset(seed=0)
    r = awale.search(env, uniform, sims=8)
    assert len(r) == 4


def test_three_player_values_are_every_player_s():
    states = positions("oware3", 6)

    def three(obs, mask):
        v = np.zeros((len(obs), 3), np.float32)
        v[:, 0] = 0.5  # the mover thinks it leads
        v[:, 1:] = -0.25
        return np.zeros(mask.shape, np.float32), v

    r = awale.search(states, three, sims=16)
    assert r.values.shape == (6, 3)
    with pytest.raises(ValueError, match=r"values of shape \(6,\)"):
        awale.search(states, uniform, sims=4)


def test_observations_are_the_chosen_encoding_and_scale():
    s = awale.State("abapa")
    seen = {}

    def look(obs, mask):
        seen.setdefault("obs", obs.copy())  # the first call: the root
        return uniform(obs, mask)

    awale.search([s], look, sims=1, encoding="onehot:16")
    np.testing.assert_allclose(seen["obs"][0], s.observation("onehot:16") * awale.input_scale("abapa", "onehot:16"))
    seen.clear()
    awale.search([s], look, sims=1, obs_scale="raw")
    np.testing.assert_allclose(seen["obs"][0], s.observation("compact"))


# --- bad input ------------------------------------------------------------------------------


def bad(logits=None, values=None):
    def f(obs, mask):
        n, a = mask.shape
        l_ = np.zeros((n, a), np.float32) if logits is None else logits(n, a)
        v = np.zeros(n, np.float32) if values is None else values(n, a)
        return l_, v

    return f


@pytest.mark.parametrize(
    "evaluate, error, words",
    [
        (bad(logits=lambda n, a: np.zeros((n, a + 1))), ValueError, r"logits of shape \(\d+, 7\): expected"),
        (bad(logits=lambda n, a: np.zeros(n)), ValueError, "logits of shape"),
        (bad(values=lambda n, a: np.zeros((n, 3))), ValueError, "values of shape"),
        (bad(logits=lambda n, a: np.zeros((n, a), np.int64)), TypeError, "logits of dtype int64"),
        (bad(values=lambda n, a: np.zeros(n, bool)), TypeError, "values of dtype"),
        (bad(logits=lambda n, a: np.full((n, a), np.nan)), ValueError, "NaN"),
        (bad(logits=lambda n, a: np.full((n, a), np.inf)), ValueError, "inf"),
        (bad(logits=lambda n, a: np.full((n, a), -np.inf)), ValueError, "finite at legal"),
        (bad(values=lambda n, a: np.full(n, np.nan)), ValueError, r"in \[-1, 1\]"),
        (bad(values=lambda n, a: np.full(n, np.inf)), ValueError, r"in \[-1, 1\]"),
        (bad(values=lambda n, a: np.full(n, 1.5)), ValueError, r"values\[0\] = 1.5"),
        (lambda o, m: None, TypeError, "must return a pair"),
        (lambda o, m: (np.zeros(m.shape),), TypeError, "must return a pair"),
        (lambda o, m: ("ab", np.zeros(len(o))), TypeError, "logits of dtype"),
        (lambda o, m: 1 / 0, ZeroDivisionError, "division by zero"),
        (lambda o: 0, TypeError, "positional argument"),
    ],
)
def test_a_bad_evaluator_is_an_error_that_says_why(evaluate, error, words):
    with pytest.raises(error, match=words):
        awale.search(positions("abapa", 3), evaluate, sims=4)
    # The interpreter is fine, and the next search too.
    assert awale.search(positions("abapa", 3), uniform, sims=4).visits.sum() > 0


def test_anything_at_illegal_actions_is_ignored():
    states = [s for s in positions("abapa", 40) if len(s.legal_moves()) < 6][:3]
    assert states
    uniform = awale.search(states, lambda obs, mask: (np.zeros(mask.shape), np.zeros(len(obs))),
                           sims=8, seed=1)
    for junk in (-np.inf, np.inf, np.nan, 1e30):
        def masked(obs, mask, junk=junk):
            return np.where(mask, 0.0, junk), np.zeros(len(obs))

        r = awale.search(states, masked, sims=8, seed=1)
        assert (r.visits == uniform.visits).all(), junk
    # A bad entry at a legal action is named with the position's legal actions.
    s = states[0]
    legal = s.legal_moves()

    def nan_at_legal(obs, mask):
        logits = np.zeros(mask.shape)
        logits[0, legal[0]] = np.nan
        return logits, np.zeros(len(obs))

    with pytest.raises(ValueError, match=rf"logits\[0, {legal[0]}\] = NaN.*legal actions: "):
        awale.search([s], nan_at_legal, sims=4)


def test_bad_arguments_are_value_or_type_errors():
    s = awale.State("abapa")
    with pytest.raises(TypeError, match="evaluate must be a callable"):
        awale.search([s], 3, sims=4)
    with pytest.raises(ValueError, match="not a built-in evaluator"):
        awale.search([s], "nope", sims=4)
    with pytest.raises(ValueError, match="states is empty"):
        awale.search([], uniform)
    with pytest.raises(TypeError, match=r"states\[1\] must be an awale.State"):
        awale.search([s, 3], uniform)
    with pytest.raises(ValueError, match="one rule set per call"):
        awale.search([s, awale.State("wari")], uniform)
    with pytest.raises(ValueError, match="sims must be from 1"):
        awale.search([s], uniform, sims=0)
    with pytest.raises(ValueError, match="eval_batch must be from 1"):
        awale.search([s], uniform, eval_batch=0)
    # The former name still works, with a warning that names the new one.
    with pytest.warns(DeprecationWarning, match="batch_size is now called eval_batch"):
        awale.search([s], uniform, sims=4, batch_size=2)
    with pytest.raises(TypeError, match="give eval_batch only"):
        awale.search([s], uniform, eval_batch=2, batch_size=2)
    with pytest.raises(ValueError, match="seed"):
        awale.search([s], uniform, seed=-1)
    with pytest.raises(ValueError, match="temperature"):
        awale.search([s], uniform, temperature=float("nan"))
    with pytest.raises(awale.ConfigError, match="unknown search option 'c_pucts'"):
        awale.search([s], uniform, c_pucts=1.0)
    with pytest.raises(awale.ConfigError, match="self-play setting"):
        awale.search([s], uniform, fast_sims=3)
    # The names before 0.9 say their new name.
    with pytest.raises(awale.ConfigError, match="simulations is now called sims"):
        awale.SelfPlay("abapa", uniform, simulations=4)
    with pytest.raises(awale.ConfigError, match=r"search.c_puct must not be negative, got -1"):
        awale.search([s], uniform, kind="puct", c_puct=-1.0)
    # The one constraint that failed, and no TOML internals (a line of a file, --set).
    with pytest.raises(awale.ConfigError, match="search.gumbel_actions must be at least 1") as e:
        awale.search([s], uniform, gumbel_actions=0)
    assert "c_uct" not in str(e.value)
    with pytest.raises(awale.ConfigError, match="nope") as e:
        awale.search([s], uniform, kind="nope")
    assert "option kind" in str(e.value), str(e.value)
    for internal in ("TOML", "line", "--set"):
        assert internal not in str(e.value), str(e.value)
    with pytest.raises(awale.ConfigError, match="option gumbel_actions") as e:
        awale.search([s], uniform, gumbel_actions=-2)
    with pytest.raises(TypeError, match="c_puct must be"):
        awale.search([s], uniform, c_puct=[1])
    with pytest.raises(ValueError, match="obs_scale"):
        awale.search([s], uniform, obs_scale="big")
    with pytest.raises(ValueError, match="encoding"):
        awale.search([s], uniform, encoding="bogus")
    g = awale.Game("abapa")
    while not g.is_over:
        g.apply(g.legal_moves()[0])
    with pytest.raises(awale.ConfigError, match="finished game"):
        awale.search([g.state], uniform)


def test_ctrl_c_stops_a_long_search_within_a_second():
    def interrupt_soon():
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGINT)

    for evaluate in (uniform, "uniform"):
        t = threading.Thread(target=interrupt_soon)
        t.start()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            awale.search(positions("abapa", 8), evaluate, sims=10**8)
        t.join()
        assert time.monotonic() - start < 5.0  # 0.3 s, then at most ~0.2 s (a loose bound)


# --- self-play -------------------------------------------------------------------------------


def test_self_play_pickles_as_its_settings():
    import pickle

    sp = awale.SelfPlay("abapa", linear, games=4, seed=5, sims=8, fast_sims=4,
                        encoding="compact")
    again = pickle.loads(pickle.dumps(sp))
    assert (again.config, again.encoding, again.threads) == (sp.config, sp.encoding, sp.threads)
    # The copy starts afresh: with the same seed, the same games.
    a, b = sp.play(30), again.play(30)
    np.testing.assert_array_equal(a["obs"], b["obs"])
    np.testing.assert_array_equal(a["policy"], b["policy"])
    with pytest.raises(Exception, match="pickle|lambda"):
        pickle.dumps(awale.SelfPlay("abapa", lambda o, m: linear(o, m), games=2))


def test_self_play_hands_back_training_arrays():
    sp = awale.SelfPlay("abapa", linear, games=8, seed=2, sims=16, fast_sims=4)
    d = sp.play(100)
    m = len(d["obs"])
    assert m >= 100 and d["obs"].shape == (m, 16) and d["obs"].dtype == np.float32
    assert d["mask"].shape == (m, 6) and d["mask"].dtype == np.bool_
    np.testing.assert_allclose(d["policy"].sum(1), 1.0, atol=1e-5)
    assert (d["policy"][~d["mask"]] == 0).all()
    assert d["value"].shape == (m, 2)
    np.testing.assert_allclose(d["value"][:, 1], -d["value"][:, 0])
    assert set(np.unique(d["value"][:, 0])) <= {-1.0, 0.0, 1.0}
    assert (np.abs(d["score"]) <= 1).all()
    st = d["stats"]
    assert st["positions"] == m and st["games"] > 0 and st["max_batch"] == 8
    # Reproducible from the seed.
    again = awale.SelfPlay("abapa", linear, games=8, seed=2, sims=16, fast_sims=4)
    np.testing.assert_array_equal(again.play(100)["policy"], d["policy"])
    assert "sims = 16" in sp.config


def test_self_play_with_threads_and_a_bad_evaluator():
    sp = awale.SelfPlay("oware3", uniform_three := (lambda o, m: (np.zeros(m.shape), np.zeros((len(o), 3)))),
                        games=6, threads=2, sims=8, fast_sims=8)
    d = sp.play(30)
    assert d["value"].shape[1] == 3 and sp.threads == 2
    del uniform_three
    boom = awale.SelfPlay("abapa", lambda o, m: 1 / 0, games=4)
    with pytest.raises(ZeroDivisionError):
        boom.play(10)
    with pytest.raises(awale.ConfigError, match="fast_sims must not exceed"):
        awale.SelfPlay("abapa", uniform, sims=4, fast_sims=8)
    with pytest.raises(ValueError, match="games must be from 1"):
        awale.SelfPlay("abapa", uniform, games=0)


def test_gathered_self_play_makes_few_large_calls_and_the_same_games_whatever_their_size():
    calls = []

    def recording(obs: np.ndarray, mask: np.ndarray):
        calls.append(len(obs))
        return linear(obs, mask)

    recording.thread_safe = True  # type: ignore[attr-defined]
    runs = []
    for eval_batch in (3, 16, 1000):
        calls.clear()
        sp = awale.SelfPlay("abapa", recording, games=16, threads=4, seed=7, sims=8, fast_sims=4,
                            eval_batch=eval_batch)
        assert sp.eval_batch == eval_batch and "eval_batch=" in repr(sp)
        d = sp.play(40)
        st = d["stats"]
        assert st["positions"] >= 40 and len(d["obs"]) == st["positions"]
        assert max(calls) <= eval_batch and st["batches"] == len(calls)
        # Every thread's leaves meet in a call: 16 games in two halves of 8 leaves.
        if eval_batch >= 8:
            assert set(calls) == {8}, calls
        assert 0.0 <= st["evaluator_busy"] <= 1.0 and st["evaluator_secs"] >= 0.0
        assert st["mean_batch"] == pytest.approx(st["evaluations"] / st["batches"])
        runs.append(d)
    for d in runs[1:]:
        for k in ("obs", "policy", "value", "score"):
            np.testing.assert_array_equal(d[k], runs[0][k])
    with pytest.raises(awale.ConfigError, match="eval_batch"):
        awale.SelfPlay("abapa", uniform, eval_batch=-1)
    boom = awale.SelfPlay("abapa", lambda o, m: 1 / 0, games=8, threads=2, eval_batch=4)
    with pytest.raises(ZeroDivisionError):
        boom.play(10)


# --- search agents -----------------------------------------------------------------------------


def test_a_search_agent_plays_in_tournaments_and_matches():
    agent = awale.SearchAgent("playout", sims=64, name="playout64", kind="puct")
    result = awale.tournament(["random", agent], games=4, seed=0)
    assert "playout64" in result.names
    assert result.crosstable[result.names.index("playout64")][result.names.index("random")] >= 3
    m = awale.match(("searcher", awale.SearchAgent(linear, sims=8)), "random", games=2)
    assert m.games == 2
    s = awale.State("abapa")
    assert agent.select(s) in s.legal_moves()
    assert agent.analyse(s).visits.sum() == 64


def test_a_search_agent_pickles_as_the_call_that_makes_it():
    import pickle

    for agent in (awale.SearchAgent("playout", sims=32, name="p32", seed=3, kind="puct"),
                  awale.SearchAgent(linear, sims=16, encoding="compact")):
        again = pickle.loads(pickle.dumps(agent))
        assert (again.name, again.sims, again.config) == (agent.name, agent.sims, agent.config)
        s = awale.State("abapa")
        assert (again.analyse(s).visits == agent.analyse(s).visits).all()
    # An unpicklable evaluator (a lambda) says so, as pickle does.
    with pytest.raises(Exception, match="pickle|lambda"):
        pickle.dumps(awale.SearchAgent(lambda o, m: uniform(o, m), sims=4))


def test_a_failing_search_agent_stops_the_tournament_with_its_error():
    agent = awale.SearchAgent(lambda o, m: 1 / 0, sims=4, name="boom")
    with pytest.raises(Exception) as e:
        awale.tournament(["random", agent], games=2)
    chain = [e.value, e.value.__cause__]
    assert any(isinstance(x, ZeroDivisionError) for x in chain), chain


# --- equivalence with the Rust search over the same network -------------------------------------


@pytest.fixture(scope="module")
def nets(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("search-nets")
    micro = [
        "training.iterations=2",
        "selfplay.positions_per_iteration=64",
        "selfplay.concurrent_games=8",
        "selfplay.threads=1",
        "training.batch_size=16",
        "training.min_replay=16",
        "training.warmup_steps=2",
        "eval.opponents=[]",
    ]
    out = {}
    for name, extra in [("abapa", []), ("oware3", ["rules=oware3"])]:
        train(None, root / name, overrides=micro + extra, final_eval=False)
        out[name] = root / name / "checkpoint.ckpt"
    return out


@needs_trainer
@pytest.mark.parametrize("game, kind", [("abapa", "gumbel"), ("abapa", "puct"), ("oware3", "gumbel")])
def test_a_python_evaluator_over_a_network_gives_the_rust_search_s_visits(nets, game, kind):
    net = awale.Network(nets[game])
    states = positions(game, 16, seed=11)

    def wrapped(obs, mask):
        return net.predict(obs)

    rust = awale.search(states, net, sims=40, kind=kind, seed=4)
    py = awale.search(states, wrapped, sims=40, kind=kind, seed=4, encoding=net.encoding, eval_batch=5)
    np.testing.assert_array_equal(py.visits, rust.visits)
    np.testing.assert_array_equal(py.action, rust.action)
    np.testing.assert_allclose(py.policy, rust.policy, rtol=1e-6)
    np.testing.assert_allclose(py.values, rust.values, rtol=1e-5, atol=1e-6)


@needs_trainer
def test_a_search_agent_over_a_network_plays_the_nn_agent_s_moves(nets):
    net = awale.Network(nets["abapa"])
    agent = awale.SearchAgent(lambda o, m: net.predict(o), sims=24, encoding=net.encoding)
    spec = f"nn:path={nets['abapa']},sims=24"
    a = awale.tournament([("net", agent), "random"], games=4, seed=9)
    b = awale.tournament([("net", spec), "random"], games=4, seed=9)
    assert a.records == b.records
    with pytest.raises(ValueError, match="encoding"):
        awale.search([awale.State("abapa")], net, encoding="compact")
    with pytest.raises(ValueError, match="the network plays"):
        awale.search([awale.State("wari")], net)


@needs_trainer
def test_a_new_pytorch_network_saves_as_a_file_the_rust_side_plays(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import awale.torch as at

    model = at.new_network("abapa", [32, 16], "onehot:16")
    path = tmp_path / "gen-000003.safetensors"
    at.save(model, path, counters={"iteration": 3, "games": 5, "positions": 70, "train_steps": 9})
    net = awale.Network(path)
    assert net.hidden == [32, 16] and net.encoding == "onehot:16"
    states = positions("abapa", 5)
    obs = net.encode(states)
    with torch.no_grad():
        logits, values = model(torch.from_numpy(obs))
    rl, rv = net.predict(obs)
    np.testing.assert_allclose(rl, logits.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rv, values.numpy(), rtol=1e-4, atol=1e-5)
    result = awale.tournament([f"nn:path={path},sims=4", "random"], games=2)
    assert len(result.records) == 2
    with pytest.raises(awale.ConfigError):
        at.new_network("abapa", [0])
    with pytest.raises(ValueError, match="counters lack"):
        at.save(model, tmp_path / "x.safetensors", counters={"iteration": 1})


def test_a_person_plays_a_search_agent():
    moves = iter(["z", "9", "a", "q"])
    shown: list[str] = []
    agent = awale.SearchAgent("playout", sims=16)
    g = awale.play(agent, input=lambda prompt: next(moves), output=shown.append)
    assert len(g.moves) == 2  # the person's "a", the agent's answer; then "q"
    assert any("not a legal move" in s for s in shown)
    assert any("player 1 plays" in s for s in shown)
    with pytest.raises(ValueError, match="seat"):
        awale.play(agent, you=2)
    with pytest.raises(TypeError, match="opponent must be"):
        awale.play(3, input=lambda p: "a", output=lambda s: None)
    # hint and undo, as at `awale play`: undo takes back the agent's answer and the move.
    moves = iter(["undo", "hint", "a", "undo", "b", "q"])
    shown = []
    g = awale.play(agent, input=lambda prompt: next(moves), output=shown.append)
    assert any("nothing to undo" in s for s in shown)
    assert any(s.startswith("hint: ") and "depth" in s for s in shown), shown
    assert len(g.moves) == 2 and g.moves[0] == 1  # "a" taken back, then "b" and the answer


def test_a_game_takes_moves_back_and_gives_hints():
    g = awale.Game("abapa")
    for h in (2, 3, 0):
        g.apply(h)
    g.undo(2)
    assert g.moves == [2]
    with pytest.raises(ValueError, match="cannot take back 2 moves: 1 played"):
        g.undo(2)
    h = g.hint(move_time_ms=500)
    assert h["house"] in g.legal_moves() and h["move"] == g.state.move_text(h["house"])
    assert "depth" in h["summary"] and h["unit"] == "seeds"
    three = awale.Game("oware3")
    assert three.hint(move_time_ms=200)["house"] in three.legal_moves()

"""`awale.tournament`: built-in agents and Python callables, reproducibility (seed, threads),
errors naming the agent, gauntlets, multi-player rules, resumable output folders, results."""

from __future__ import annotations

import _thread
import json
import pickle
import threading
import time

import numpy as np
import pytest

import awale
from awale import Game, Rules, TournamentResult

RATING_KEYS = ["name", "elo", "low", "high", "games", "wins", "draws", "losses", "score"]
OUT_FILES = {
    "tournament.json",
    "games.jsonl",
    "results.json",
    "ratings.csv",
    "crosstable.csv",
    "los.csv",
    "games.csv",
}


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    """Always the leftmost legal house."""
    return int(np.flatnonzero(mask)[0])


def test_builtin_tournament_is_reproducible_and_thread_independent():
    agents = ["random", "greedy", "alphabeta:depth=2", "mcts:sims=30"]
    a = awale.tournament(agents, games=4, seed=3, threads=1)
    b = awale.tournament(agents, games=4, seed=3, threads=2)
    c = awale.tournament(agents, games=4, seed=3)
    assert isinstance(a, TournamentResult)
    assert a.to_dict() == b.to_dict() == c.to_dict()
    assert a.ratings == b.ratings and a.records == b.records
    assert np.array_equal(a.crosstable, b.crosstable)
    d = awale.tournament(agents, games=4, seed=4, threads=2)
    assert d.records != a.records
    assert a.games == a.games_scheduled == 6 * 4 and a.complete


def test_result_fields():
    r = awale.tournament(["random", "greedy", "alphabeta:depth=3"], games=6, seed=1)
    n = 3
    assert r.names == ["random", "greedy", "alphabeta:depth=3"]
    assert [list(x) for x in r.ratings] == [RATING_KEYS] * n
    elos = [x["elo"] for x in r.ratings]
    assert elos == sorted(elos, reverse=True)
    assert r.anchor == "random" and r.elo("random") == 0.0
    for x in r.ratings:
        assert x["low"] <= x["elo"] <= x["high"]
        assert x["games"] == x["wins"] + x["draws"] + x["losses"] == 12
    assert r.crosstable.shape == (n, n) and r.crosstable.dtype == np.float64
    assert np.array_equal(r.crosstable, r.wins + 0.5 * r.draws)
    # Every pair met 6 times: points of the two sides add up to 6.
    off = ~np.eye(n, dtype=bool)
    assert np.allclose((r.crosstable + r.crosstable.T)[off], 6.0)
    assert r.los.shape == (n, n) and np.isnan(np.diag(r.los)).all()
    assert np.allclose((r.los + r.los.T)[off], 1.0)
    assert r.games == 18 and len(r.records) == 18 and len(r.game_results) == 18
    assert r.rules == "abapa" and r.format == "round-robin" and r.gauntlet is None
    for text, g in zip(r.records, r.game_results):
        game = Game.from_record(text)
        assert game.is_over and game.scores == g["scores"] and len(game.moves) == g["plies"]
    table = r.table()
    assert "alphabeta:depth=3" in table and "crosstable" in table and str(r) == table
    assert "18/18 games" in repr(r)
    # JSON and pickle round trips.
    d = json.loads(json.dumps(r.to_dict()))
    assert TournamentResult.from_dict(d) == r
    assert d["crosstable"] == r.crosstable.tolist()
    assert pickle.loads(pickle.dumps(r)) == r


def test_first_legal_callable_loses_to_alphabeta():
    r = awale.tournament([first_legal, "alphabeta:depth=4"], games=8, seed=0)
    assert r.names == ["python_0", "alphabeta:depth=4"]
    ab, me = r.names.index("alphabeta:depth=4"), r.names.index("python_0")
    assert r.crosstable[ab, me] >= 7 and r.crosstable[ab, me] > r.crosstable[me, ab]
    assert r.ratings[0]["name"] == "alphabeta:depth=4"
    assert r.elo("alphabeta:depth=4") > r.elo("python_0")


def test_callables_are_named_and_thread_independent():
    agents = [("lefty", first_legal), "random", first_legal, ("rand2", "random")]
    a = awale.tournament(agents, games=4, seed=9, threads=1)
    b = awale.tournament(agents, games=4, seed=9, threads=2)
    assert a.names == ["lefty", "random", "python_2", "rand2"]
    assert a.to_dict() == b.to_dict()


def test_callable_sees_mover_view_observation_and_mask():
    seen = []

    def agent(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        return first_legal(obs, mask)

    awale.tournament(["greedy", agent], games=2, seed=0, threads=2)
    assert seen
    houses, dim = Rules("abapa").houses, Rules("abapa").obs_dim()
    for obs, mask in seen:
        assert obs.dtype == np.float32 and obs.shape == (dim,)
        assert mask.dtype == np.int8 and mask.shape == (houses,) and mask.any()
        # The mover's own row comes first: a legal house holds seeds.
        assert (obs[:houses][mask == 1] > 0).all()
        # The seat one-hot (compact tail) names the mover.
        assert obs[-2:].sum() == 1.0
    seen.clear()
    awale.tournament(["greedy", agent], games=2, obs="onehot", seed=0)
    assert seen[0][0].shape == (Rules("abapa").obs_dim("onehot"),)


def test_multi_player_rules_with_callables():
    r = awale.tournament(
        [first_legal, "random", "greedy", "mcts:sims=20"], rules="oware3", games=3, seed=2
    )
    assert r.rules == "oware3" and len(r.names) == 4
    assert r.games == 4 * 3 and r.crosstable.shape == (4, 4)
    assert all(Game.from_record(t).players == 3 for t in r.records)
    assert all(len(g["seats"]) == 3 for g in r.game_results)
    # First places, the measure of strength with three players, from the games themselves.
    by_name = {f["name"]: f for f in r.first_places}
    assert sorted(by_name) == sorted(r.names)
    for name, f in by_name.items():
        mine = [g for g in r.game_results if name in g["seats"]]
        won = shared = 0
        share = 0.0
        for g in mine:
            top = max(g["scores"])
            leaders = g["scores"].count(top)
            if g["scores"][g["seats"].index(name)] == top:
                share += 1 / leaders
                won += leaders == 1
                shared += leaders > 1
        assert (f["games"], f["won"], f["shared"]) == (len(mine), won, shared)
        assert abs(f["share"] - share / len(mine)) < 1e-12
        assert abs(f["fair_share"] - 1 / 3) < 1e-12
        assert f["lower"] <= f["share"] <= f["upper"]
    assert "first places" in r.table()
    assert awale.tournament(["random", "greedy"], games=2).first_places == []
    # The placing rating: every agent rated, intervals around all but the anchor's.
    assert all(x["elo"] is not None for x in r.ratings)
    assert all(x["low"] < x["elo"] < x["high"] for x in r.ratings if x["name"] != r.anchor)
    # Each agent's time per move in the games this call played.
    assert sorted(r.time_per_move) == sorted(r.names)
    assert all(ms >= 0.0 for ms in r.time_per_move.values())
    assert "time_per_move" not in r.to_dict()  # the clock is not a result


def test_gauntlet():
    r = awale.tournament(["random", "greedy"], gauntlet="alphabeta:depth=2", games=4)
    assert r.names == ["alphabeta:depth=2", "random", "greedy"]
    assert r.gauntlet == "alphabeta:depth=2" and r.games == 8
    assert r.crosstable[1, 2] == r.crosstable[2, 1] == 0
    # By name of a listed agent, or the same callable object.
    r = awale.tournament(["random", "greedy", ("me", first_legal)], gauntlet="me", games=2)
    assert r.names == ["random", "greedy", "me"] and r.gauntlet == "me" and r.games == 4
    r = awale.tournament([first_legal, "random", "greedy"], gauntlet=first_legal, games=2)
    assert r.gauntlet == "python_0" and r.games == 4
    r = awale.tournament(["random", "greedy"], gauntlet=first_legal, games=2)
    assert r.names[0] == "python_gauntlet" and r.games == 4


@pytest.mark.parametrize("threads", [1, 2])
def test_callable_that_raises_names_the_agent(threads):
    def boom(obs, mask):
        raise ZeroDivisionError("no luck")

    # With several threads the game that is reported first may not be the one that failed first,
    # and the game index can then be missing; the agent, ply and exception are always named.
    game = r"game \d+, " if threads == 1 else r"(game \d+, )?"
    with pytest.raises(RuntimeError, match=r"agent 'boom' failed: " + game + r"ply \d+: raised "
                       r"ZeroDivisionError: no luck") as info:
        awale.tournament(["random", ("boom", boom)], games=4, threads=threads)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_callable_bad_returns_name_the_agent():
    with pytest.raises(ValueError, match=r"agent 'python_1' failed: .*returned house 99, which "
                       r"is not a legal move"):
        awale.tournament(["random", lambda o, m: 99], games=2)
    with pytest.raises(ValueError, match=r"agent 'python_1' failed: .*returned house -1"):
        awale.tournament(["random", lambda o, m: -1], games=2)
    # An empty house is not legal either.
    with pytest.raises(ValueError, match=r"agent 'empty' failed: .*not a legal move"):
        awale.tournament(
            ["random", ("empty", lambda o, m: int(np.flatnonzero(m == 0)[0]) if (m == 0).any()
                        else 99)],
            games=2,
        )
    with pytest.raises(TypeError, match=r"agent 'python_0' failed: .*returned 'x' \(str\)"):
        awale.tournament([lambda o, m: "x", "random"], games=2)
    with pytest.raises(TypeError, match=r"returned 1.0 \(float\)"):
        awale.tournament([lambda o, m: 1.0, "random"], games=2)
    # NumPy integers are fine.
    r = awale.tournament([lambda o, m: np.int64(np.argmax(m)), "random"], games=2)
    assert r.games == 2


@pytest.mark.parametrize(
    "agents, kwargs, error, words",
    [
        (["random", "alphabeta:dpeth=3"], {}, ValueError, "unknown option 'dpeth'"),
        (["random", "minimax"], {}, ValueError, "minimax"),
        (["alphabeta", "random", "greedy"], {"rules": "oware3"}, ValueError, "2-player"),
        (["random", "random"], {}, ValueError, "unique"),
        (["random"], {}, ValueError, "cannot fill"),
        (["random", "greedy"], {"rules": "abapaa"}, ValueError, "unknown rules preset"),
        (["random", "greedy"], {"games": 0}, ValueError, "games"),
        (["random", "greedy"], {"games": 2.5}, TypeError, "games"),
        (["random", "greedy"], {"seed": -1}, ValueError, "seed"),
        (["random", "greedy"], {"threads": -1}, ValueError, "threads"),
        (["random", "greedy"], {"obs": "pixels"}, ValueError, "encoding"),
        (["random", "greedy"], {"anchor": "mcts"}, ValueError, "anchor"),
        (["random", "greedy"], {"gauntlet": 3}, TypeError, "gauntlet"),
        (["random", "greedy"], {"progress": "yes"}, TypeError, "progress"),
        (5, {}, TypeError, "agents"),
        (["random", 5], {}, TypeError, "agent 1"),
        (["random", ("x",)], {}, TypeError, "tuple"),
        (["random", ("", first_legal)], {}, ValueError, "name"),
    ],
)
def test_bad_arguments(agents, kwargs, error, words):
    with pytest.raises(error, match=words):
        awale.tournament(agents, **kwargs)


def test_spec_list_string():
    r = awale.tournament("random,greedy,alphabeta:depth=2,name=ab2", games=2)
    assert r.names == ["random", "greedy", "ab2"]


def test_out_writes_files_and_resumes(tmp_path):
    agents = ["random", "greedy", ("lefty", first_legal)]
    full = awale.tournament(agents, games=4, seed=5)
    part = awale.tournament(agents, games=4, seed=5, out=tmp_path, limit=5)
    assert part.games == 5 and not part.complete and part.games_scheduled == 12
    assert OUT_FILES <= {p.name for p in tmp_path.iterdir()}
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 5
    done = []
    rest = awale.tournament(
        agents, games=4, seed=5, out=str(tmp_path), progress=lambda d, t: done.append((d, t))
    )
    assert rest.complete and rest.games == 12
    assert done[-1] == (12, 12) and done[0][0] >= 5
    assert rest.to_dict() == full.to_dict()
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["games_played"] == 12 and results["agents"] == full.names
    assert (tmp_path / "ratings.csv").read_text().startswith("rank,agent,elo")
    # A different tournament in the same folder is refused.
    with pytest.raises(ValueError, match="different tournament"):
        awale.tournament(agents, games=6, seed=5, out=tmp_path)


def test_progress_callback_errors_stop_the_tournament():
    def progress(done, total):
        raise OSError("display gone")

    with pytest.raises(OSError, match="display gone"):
        awale.tournament(["alphabeta:depth=6", "greedy"], games=200, progress=progress)


def test_ctrl_c_stops_the_tournament():
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            awale.tournament(["alphabeta:depth=10", "mcts:sims=5000"], games=400, threads=2)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30


class RacyLastLegal:
    """Keeps the mask of its call in an attribute while it "thinks" (releasing the GIL), then
    plays the last legal house of that attribute: two calls at once give one of them the other
    board's mask, hence illegal moves."""

    def __init__(self, thread_safe=None):
        self.mask = None
        if thread_safe is not None:
            self.thread_safe = thread_safe

    def __call__(self, obs, mask):
        self.mask = mask
        time.sleep(0.0005)
        return int(np.flatnonzero(self.mask)[-1])


def last_legal(obs, mask):
    return int(np.flatnonzero(mask)[-1])


def test_callables_are_serialised_unless_thread_safe():
    # Called one at a time by default: safe on 2 threads, and the same games as a pure function.
    racy = awale.tournament(["random", ("last", RacyLastLegal())], games=12, seed=2, threads=2)
    pure = awale.tournament(["random", ("last", last_legal)], games=12, seed=2, threads=1)
    assert racy.complete and racy.to_dict() == pure.to_dict()
    # Declared thread-safe, it is called from both threads at once and the race shows.
    with pytest.raises(ValueError, match=r"agent 'last' failed: game \d+, ply \d+: returned "
                       r"house \d+, which is not a legal move"):
        awale.tournament(["random", ("last", RacyLastLegal(thread_safe=True))], games=40,
                         seed=2, threads=2)
    # thread_safe=False is the default's meaning; a non-bool is refused.
    r = awale.tournament(["random", ("last", RacyLastLegal(thread_safe=False))], games=4,
                         threads=2)
    assert r.complete
    with pytest.raises(TypeError, match="thread_safe"):
        awale.tournament(["random", ("last", RacyLastLegal(thread_safe="yes"))], games=2)


def test_the_lowest_failing_game_is_reported_whatever_the_threads():
    calls = []

    def boom(obs, mask):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.3)  # the first call fails last
        raise ZeroDivisionError("no luck")

    boom.thread_safe = True
    messages = set()
    for threads in (1, 4, 4, 2):
        calls.clear()
        with pytest.raises(RuntimeError, match=r"agent 'boom' failed: game 0, ply \d+: raised "
                           r"ZeroDivisionError: no luck") as info:
            awale.tournament(["random", ("boom", boom)], games=8, threads=threads)
        assert isinstance(info.value.__cause__, ZeroDivisionError)
        messages.add(str(info.value))
    assert len(messages) == 1


def slow_first_legal(obs, mask):
    time.sleep(0.002)
    return first_legal(obs, mask)


def test_progress_returning_false_stops_cleanly_and_the_run_resumes(tmp_path):
    agents = ["random", "greedy", ("lefty", slow_first_legal)]
    full = awale.tournament(["random", "greedy", ("lefty", first_legal)], games=4, seed=5)
    seen = []

    def stop_early(done, total):
        seen.append((done, total))
        return done < 1

    part = awale.tournament(agents, games=4, seed=5, out=tmp_path, progress=stop_early)
    assert part.stopped and not part.complete
    assert 1 <= part.games < 12 and part.games_scheduled == 12
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == part.games
    assert seen[-1][0] >= 1 and all(t == 12 for _, t in seen)
    rest = awale.tournament(agents, games=4, seed=5, out=tmp_path)
    assert rest.complete and not rest.stopped
    assert rest.to_dict() == full.to_dict()


def test_ctrl_c_keeps_the_finished_games(tmp_path):
    agents = ["random", ("lefty", slow_first_legal)]
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            awale.tournament(agents, games=200, seed=1, threads=2, out=tmp_path)
    finally:
        timer.cancel()
    saved = (tmp_path / "games.jsonl").read_text()
    assert saved.endswith("\n") or saved == ""
    done = len(saved.splitlines())
    assert done < 200
    r = awale.tournament(agents, games=200, seed=1, out=tmp_path, limit=3)
    assert r.games == done + 3

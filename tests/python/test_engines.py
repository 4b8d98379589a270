"""Agents from Python (``awale.Agent``) and engines in other processes (``engine:`` specs):
any spec asked for its move, the example bot of ``awale.examples.uci_bot`` rated in a tournament,
a crashing engine losing by forfeit while the run goes on."""

import pathlib
import pickle
import sys

import pytest

import awale

ROOT = pathlib.Path(__file__).resolve().parents[2]
CRASH = ROOT / "tests" / "engines" / "misbehave.sh"


def test_any_spec_gives_its_move_and_what_it_found():
    agent = awale.Agent("alphabeta:depth=4")
    game = awale.Game("abapa")
    house = agent.select(game)
    assert house in game.legal_moves()
    t = agent.thoughts
    assert t["depth"] == 4 and t["unit"] == "seeds" and t["nodes"] > 0
    assert isinstance(t["summary"], str) and t["moves"] == []
    # A State works too; a deterministic agent gives the same move.
    assert agent.select(game.state) == house
    assert awale.Agent("greedy").thoughts is None
    mcts = awale.Agent("mcts:sims=200", rules="oware3", seed=1)
    g3 = awale.Game("oware3")
    mcts.select(g3)
    assert sum(m["visits"] for m in mcts.thoughts["moves"]) > 0


def test_bad_use_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="unknown agent 'minimax'"):
        awale.Agent("minimax")
    with pytest.raises(ValueError, match="2-player"):
        awale.Agent("alphabeta", rules="oware3")
    agent = awale.Agent("greedy")
    with pytest.raises(TypeError, match="awale.Game or an awale.State"):
        agent.select("abapa")
    with pytest.raises(ValueError, match="plays 'abapa', the position is under 'wari'"):
        agent.select(awale.Game("wari"))
    over = awale.Game(position="abapa 0,0,0,0,0,0/0,0,0,0,0,0 24,24 0")
    with pytest.raises(ValueError, match="game is over"):
        agent.select(over)
    agent.close()
    with pytest.raises(ValueError, match="closed"):
        agent.select(awale.Game())


def test_the_move_time_is_move_time_ms_and_old_keys_name_it():
    assert awale.Agent("alphabeta:depth=3,move_time_ms=100").select(awale.Game()) >= 0
    for spec, old in [
        ("alphabeta:time_ms=100", "time_ms"),
        ("mcts:time_ms=100", "time_ms"),
        ("engine:cmd=x,movetime=100", "movetime"),
    ]:
        with pytest.raises(ValueError, match=f"unknown option '{old}' .*renamed 'move_time_ms'"):
            awale.Agent(spec)
    assert awale.Game().hint(move_time_ms=50)["house"] in awale.Game().legal_moves()
    with pytest.raises(TypeError, match="time_ms"):
        awale.Game().hint(time_ms=50)


def test_an_agent_pickles_as_its_spec():
    a = awale.Agent("alphabeta:depth=3,name=ab3", rules="wari")
    b = pickle.loads(pickle.dumps(a))
    assert (b.name, b.spec, str(b.rules)) == ("ab3", "alphabeta:depth=3,name=ab3", "wari")
    assert b.select(awale.Game("wari")) == a.select(awale.Game("wari"))


def bot_spec(name="bot"):
    return f"engine:cmd={sys.executable},args=-m awale.examples.uci_bot,move_time_ms=100,name={name}"


def test_the_example_bot_plays_through_the_protocol():
    with awale.Agent(bot_spec()) as bot:
        assert bot.forfeits
        game = awale.Game()
        for _ in range(10):
            game.apply(bot.select(game))
    result = awale.tournament([bot_spec(), "random"], games=4, seed=3, threads=2)
    assert result.names == ["bot", "random"] or set(result.names) == {"bot", "random"}
    assert all(g["end"] != "forfeit" for g in result.game_results)
    # An awale.Agent entrant plays its spec.
    again = awale.tournament([awale.Agent("greedy"), "random"], games=2, threads=1)
    assert set(again.names) == {"greedy", "random"}


def test_the_json_lines_bot_plays_through_the_protocol():
    spec = f"engine:cmd={sys.executable},args=-m awale.examples.jsonl_bot,protocol=jsonl,move_time_ms=100,name=jbot"
    with awale.Agent(spec) as bot:
        game = awale.Game()
        for _ in range(10):
            game.apply(bot.select(game))
    result = awale.tournament([spec, "random"], games=4, seed=3, threads=2)
    assert set(result.names) == {"jbot", "random"}
    assert all(g["end"] != "forfeit" for g in result.game_results)
    with pytest.raises(ValueError, match="unknown protocol 'xml' \\(known: uci, jsonl\\)"):
        awale.Agent(spec.replace("protocol=jsonl", "protocol=xml"))


def test_a_crashing_engine_loses_by_forfeit_and_the_run_goes_on():
    spec = f"engine:cmd={CRASH},args=crash,move_time_ms=20,margin=200,name=crash"
    result = awale.tournament([spec, "greedy"], games=2, threads=1)
    assert len(result.game_results) == 2
    for g in result.game_results:
        assert g["end"] == "forfeit"
        f = g["forfeit"]
        assert g["seats"][f["seat"]] == "crash" and "exit status: 3" in f["reason"]

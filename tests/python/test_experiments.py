"""Experiments that decide (issue 26): ``awale.match`` (fixed games and fishtest's SPRT) and
``awale.ladder`` (network generations on one Elo scale; needs the trainer build).

The SPRT's log-likelihood ratio is checked against fishtest's formula ported here independently
(``LLRcalc.LLR_logistic``, with scipy's ``brentq`` as fishtest uses it)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

import awale
from awale.training import HAS_TRAINER, train
from test_trainer import MICRO as TRAINER_MICRO

WANT_TRAINER = os.environ.get("AWALE_TRAINER") == "1"
needs_trainer = pytest.mark.skipif(
    not HAS_TRAINER and not WANT_TRAINER,
    reason="needs an extension built with the trainer (maturin build --features python,cli,train)",
)


def fishtest_llr_logistic(elo0: float, elo1: float, counts: list[int]) -> float:
    """fishtest's ``LLR_logistic`` on pentanomial counts (server/fishtest/stats/LLRcalc.py)."""
    from scipy.optimize import brentq

    r = [c if c else 1e-3 for c in counts]
    n = sum(r)
    pdf = [(i / 4, x / n) for i, x in enumerate(r)]

    def mle(s: float) -> list[float]:
        shifted = [(a - s, p) for a, p in pdf]
        lo = -1 / max(a for a, _ in shifted)
        hi = -1 / min(a for a, _ in shifted)
        x = brentq(lambda x: sum(p * a / (1 + x * a) for a, p in shifted), lo + 1e-9, hi - 1e-9)
        return [p / (1 + x * (a - s)) for a, p in pdf]

    score = [1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1)]
    p0, p1 = mle(score[0]), mle(score[1])
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, p0, p1))


def test_an_sprt_match_stops_when_it_knows_with_fishtests_llr(tmp_path):
    r = awale.match("greedy", "random", sprt="elo0=0,elo1=100", games=600, max_plies=200,
                    out=tmp_path / "m")
    assert r.verdict == "H1 accepted" and r.decided
    assert r.games < 600 and r.games == 2 * r.pairs == sum(r.pentanomial) * 2
    assert r.wins + r.draws + r.losses == r.games
    assert r.llr == pytest.approx(fishtest_llr_logistic(0, 100, r.pentanomial), rel=1e-6)
    lo, hi = r.bounds
    assert r.llr > hi and lo < 0 < hi <= math.log(0.95 / 0.05)
    saved = json.loads((tmp_path / "m" / "match.json").read_text())
    assert saved["verdict"] == r.verdict and saved["pentanomial"] == r.pentanomial
    # The same call on the finished folder plays nothing and reports the same.
    again = awale.match("greedy", "random", sprt="elo0=0,elo1=100", games=600, max_plies=200,
                        out=tmp_path / "m")
    assert (again.verdict, again.pentanomial, again.llr) == (r.verdict, r.pentanomial, r.llr)


def test_a_fixed_match_reports_elo_interval_and_los():
    r = awale.match("alphabeta:depth=3", ("d1", "alphabeta:depth=1"), games=40, seed=3)
    assert r.verdict == "complete" and r.games == 40 and r.sprt is None and r.llr is None
    assert r.elo_low < r.elo < r.elo_high and 0.0 <= r.los <= 1.0
    assert r.agents == ("alphabeta:depth=3", "d1")
    assert len(r.game_results) == 40


def test_a_match_killed_and_resumed_equals_the_match_run_whole(tmp_path):
    args = dict(sprt=(0, 150), games=200, max_plies=120, seed=5)
    whole = awale.match("alphabeta:depth=2", "greedy", **args, threads=2)
    out = tmp_path / "resumed"
    r = awale.match("alphabeta:depth=2", "greedy", **args, out=out, limit=3)
    while r.verdict == "in progress":
        r = awale.match("alphabeta:depth=2", "greedy", **args, out=out, limit=3, threads=1)
    assert (r.verdict, r.pairs, r.pentanomial, r.llr) == (
        whole.verdict, whole.pairs, whole.pentanomial, whole.llr)


def test_python_callables_play_matches():
    def lowest(obs, mask):
        return int(mask.argmax())

    r = awale.match(("lowest", lowest), "random", games=10, seed=1)
    assert r.agents == ("lowest", "random") and r.games == 10


def test_one_game_run_refuses_bad_settings_alike_everywhere(tmp_path, capfd):
    # The keywords fill the Rust GameRunConfig, as the command line's flags do: the same
    # check, the same message, from a tournament, a match, the command line and the ladder.
    odd = "games must be an even number of at least 2 (each opening is played from both seats), got 7"
    shard = "shard 3 of 3: k must be 0 to n-1 and n at least 1"
    with pytest.raises(awale.TournamentError, match=re.escape(f"match: {odd}")):
        awale.match("greedy", "random", games=7)
    with pytest.raises(awale.TournamentError, match=re.escape(f"match: {shard}")):
        awale.match("greedy", "random", games=8, shard=(3, 3))
    with pytest.raises(awale.TournamentError, match=re.escape(f"tournament: {shard}")):
        awale.tournament(["greedy", "random"], games=8, shard=(3, 3), out=tmp_path / "t")
    assert not (tmp_path / "t" / "tournament.json").exists()
    with pytest.raises(awale.TournamentError, match="games per pairing must be at least 1"):
        awale.tournament(["greedy", "random"], games=0)
    capfd.readouterr()
    assert awale._core.main(["match", "greedy", "random", "--games", "7"]) == 2
    assert odd in capfd.readouterr().err
    if HAS_TRAINER:
        with pytest.raises(awale.ConfigError, match=re.escape(odd)):
            awale.ladder(tmp_path / "nothing", out=tmp_path / "ladder", games=7)


def test_bad_matches_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="below elo1"):
        awale.match("greedy", "random", sprt="elo0=5,elo1=0")
    with pytest.raises(ValueError, match="alpha"):
        awale.match("greedy", "random", sprt={"elo0": 0, "elo1": 5, "alpha": 1.5})
    with pytest.raises(ValueError, match="unknown key"):
        awale.match("greedy", "random", sprt="elo0=0,elo1=5,gamma=2")
    with pytest.raises(ValueError, match="even"):
        awale.match("greedy", "random", games=7)
    with pytest.raises(ValueError, match="2-player"):
        awale.match("greedy", "random", rules="oware3")
    with pytest.raises(ValueError, match="named"):
        awale.match("greedy", "greedy")
    with pytest.raises(ValueError, match="nosuch"):
        awale.match("nosuch", "greedy")
    with pytest.raises(TypeError, match="sprt must be"):
        awale.match("greedy", "random", sprt=5)
    with pytest.raises(ValueError, match="workers is for"):
        awale.match("greedy", "random", workers=2)


def test_an_sprt_match_on_ray_decides_as_the_local_one(ray, tmp_path):
    args = dict(sprt="elo0=0,elo1=150", games=200, max_plies=120, seed=5)
    local = awale.match("alphabeta:depth=2", "greedy", **args)
    remote = awale.match("alphabeta:depth=2", "greedy", **args, out=tmp_path / "ray",
                         backend="ray", workers=2)
    assert (remote.verdict, remote.pairs, remote.pentanomial, remote.llr) == (
        local.verdict, local.pairs, local.pentanomial, local.llr)


#: test_trainer's few-second run, four iterations, a generation every two.
MICRO = [*TRAINER_MICRO, "training.iterations=4", "checkpoint.every=4",
         "checkpoint.generations_every=2"]


@needs_trainer
def test_generations_play_and_the_ladder_rates_them_resumably(ray, tmp_path):
    run = tmp_path / "run"
    train(None, run, overrides=MICRO, final_eval=False)
    gens = sorted(p.name for p in (run / "generations").iterdir())
    assert gens == ["gen-000000.ckpt", "gen-000002.ckpt", "gen-000004.ckpt"]
    # A generation plays as an agent.
    spec = f"nn:path={run / 'generations' / 'gen-000004.ckpt'},sims=8,name=g4"
    r = awale.match(spec, "random", games=4, max_plies=100)
    assert r.games == 4

    kw = dict(anchors=["random", "greedy"], games=2, sims=4, max_plies=80)
    whole = awale.ladder(run, out=tmp_path / "whole", plot=tmp_path / "ladder.png", **kw)
    assert whole.complete and len(whole.entries) == 5
    # 3 generations: 2 + 1 neighbour pairings, 3 x 2 against anchors, 1 between anchors.
    assert whole.pairings == 3 + 6 + 1
    assert [e["iteration"] for e in whole.entries] == [0, 2, 4, None, None]
    assert all(e["elo"] is not None for e in whole.entries)
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    for f in ["ladder.csv", "ladder.json", "ladder.svg", "games.jsonl"]:
        assert (tmp_path / "whole" / f).exists()
    # The SVG's ticks are integers (no "1000.0"), and the anchors are named right of the plot.
    svg = (tmp_path / "whole" / "ladder.svg").read_text()
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert "greedy" in texts and not [t for t in texts if re.fullmatch(r"-?[\d,]+\.0", t)], texts
    # Each panel (500 pixels wide) names an anchor right of its last point.
    labels = [float(x) for x in re.findall(r'<text[^>]* x="([\d.]+)"[^>]*>\s*greedy\s*<', svg)]
    points = [float(x) for x in re.findall(r'<circle[^>]* cx="([\d.]+)"', svg)]
    assert len(labels) == 3 and points
    for x in labels:
        assert all(p < x for p in points if p // 500 == x // 500), (x, points)
    part = awale.ladder(run, out=tmp_path / "parts", limit=4, **kw)
    while not part.complete:
        part = awale.ladder(run, out=tmp_path / "parts", limit=4, **kw)
    assert part.entries == whole.entries
    on_ray = awale.ladder(run, out=tmp_path / "ray", backend="ray", workers=2, **kw)
    assert on_ray.complete and on_ray.entries == whole.entries

    # Any agent a tournament takes is an anchor too (one agent everywhere), under its name.
    class Leftmost:
        name = "leftmost"

        def select(self, state):
            return state.legal_moves()[0]

    def rightmost(state):
        return state.legal_moves()[-1]

    py_kw = dict(kw, anchors=["random", Leftmost(), ("right", rightmost)])
    mixed = awale.ladder(run, out=tmp_path / "py", **py_kw)
    assert mixed.complete and [e["name"] for e in mixed.entries][3:] == ["random", "leftmost",
                                                                         "right"]
    assert all(e["elo"] is not None for e in mixed.entries)
    again = awale.ladder(run, out=tmp_path / "py", **py_kw)  # resumes: nothing left to play
    assert again.entries == mixed.entries
    with pytest.raises(ValueError, match="an agent kind"):
        awale.ladder(run, out=tmp_path / "py2", **dict(kw, anchors=[("greedy", rightmost)]))
    with pytest.raises(ValueError, match="local backend only"):
        awale.ladder(run, out=tmp_path / "py3", backend="ray", **py_kw)


def test_the_ladder_plot_without_matplotlib_fails_at_once_naming_it(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    # Before anything else (here a folder without generations): no games wasted.
    with pytest.raises(ImportError, match=r"pip install matplotlib.*awale\[notebooks\]") as info:
        awale.ladder(tmp_path / "nothing", out=tmp_path / "out", plot=tmp_path / "l.png")
    assert info.value.name == "matplotlib"
    result = awale.LadderResult({"entries": [], "pairings": 0, "games": 0, "games_scheduled": 0,
                                 "complete": True, "stopped": False, "table": ""}, str(tmp_path))
    with pytest.raises(ImportError, match="pip install matplotlib"):
        result.plot(tmp_path / "l.png")


def test_ladder_ticks_are_integers_with_readable_thousands():
    from awale.experiments import _tick_label

    got = [_tick_label(v) for v in (0.0, 5.0, -200.0, 1000.0, 2500.0, 40000.0, 400000.0,
                                    1500000.0, 2.5, 0.02, 0.125)]
    assert got == ["0", "5", "-200", "1,000", "2,500", "40k", "400k", "1.5M", "2.5", "0.02",
                   "0.125"]


@needs_trainer
def test_ladder_errors_say_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="no generations"):
        awale.ladder(tmp_path / "nothing", out=tmp_path / "out")
    with pytest.raises(ValueError, match="at least one run"):
        awale.ladder([], out=tmp_path / "out")
    with pytest.raises(TypeError, match="out must be"):
        awale.ladder(tmp_path, out=5)


@pytest.mark.skipif(HAS_TRAINER, reason="this build has the trainer")
def test_without_the_trainer_the_ladder_says_how_to_get_it(tmp_path):
    with pytest.raises(NotImplementedError, match="features python,cli,train"):
        awale.ladder(tmp_path, out=tmp_path / "out")

"""awale.scorecard (an agent's rating on a fixed protocol's scale) and the shipped baseline
networks from Python (awale.baselines, awale.Network.baseline, nn:baseline=...): docs/baselines.md."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import awale
from awale.training import HAS_TRAINER

WANT_TRAINER = os.environ.get("AWALE_TRAINER", "") == "1"
needs_trainer = pytest.mark.skipif(
    not HAS_TRAINER and not WANT_TRAINER,
    reason="needs an extension built with the trainer (the wheel has it)",
)

#: A tiny protocol: three built-in anchors, 8 games each.
TINY = """
version = 1
[[rules]]
rules = "abapa"
seed = 7
openings = 4
games = 8
prior_draws = 1.0
anchors = [
  { spec = "random", rating = 0.0 },
  { spec = "greedy", rating = 300.0 },
  { spec = "alphabeta:depth=2", rating = 600.0 },
]
"""


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_a_spec_is_rated_on_the_anchors_scale() -> None:
    card = awale.scorecard("alphabeta:depth=1", rules="abapa", protocol=TINY)
    assert card.games == 24 and card.complete
    assert card.lower < card.rating < card.upper
    assert card.interval == (card.lower, card.upper)
    assert card.rating > 0  # above random, pinned at 0
    assert [a["spec"] for a in card.anchors] == ["random", "greedy", "alphabeta:depth=2"]
    assert card.protocol_id.startswith("v1/abapa/")
    again = awale.scorecard("alphabeta:depth=1", rules="abapa", protocol=TINY)
    assert again.rating == card.rating  # deterministic agent, same card
    assert "alphabeta:depth=2" in card.to_markdown()


def test_a_python_callable_is_rated_and_a_folder_resumes(tmp_path) -> None:
    out = tmp_path / "card"
    card = awale.scorecard(("first", first_legal), rules="abapa", protocol=TINY, out=out)
    assert card.agent == "first"
    assert (out / "scorecard.json").is_file() and (out / "scorecard.md").is_file()
    again = awale.scorecard(("first", first_legal), rules="abapa", protocol=TINY, out=out)
    assert again.to_dict() == awale.Scorecard.load(out / "scorecard.json").to_dict()
    assert again.rating == card.rating


def test_refusals_name_the_reason(tmp_path) -> None:
    with pytest.raises(ValueError, match="abapa"):
        awale.scorecard("greedy", rules="chess")
    with pytest.raises(ValueError, match="no part for 'wari'"):
        awale.scorecard("greedy", rules="wari", protocol=TINY)
    with pytest.raises(TypeError):
        awale.scorecard("greedy", rules=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        awale.scorecard("nosuchagent", rules="abapa", protocol=TINY)
    # An agent that plays an illegal move: an error naming it.
    with pytest.raises(ValueError, match="bad"):
        awale.scorecard(("bad", lambda obs, mask: 99), rules="abapa", protocol=TINY)
    # A card of another protocol version.
    out = tmp_path / "old"
    awale.scorecard("greedy", rules="abapa", protocol=TINY, out=out)
    data = json.loads((out / "scorecard.json").read_text())
    data["protocol_version"] = 0
    (out / "scorecard.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="version 0.*version 1"):
        awale.Scorecard.load(out / "scorecard.json")
    with pytest.raises(ValueError, match="version 0"):
        awale.scorecard("greedy", rules="abapa", protocol=TINY, out=out)


@needs_trainer
def test_every_baseline_is_listed_and_loads() -> None:
    manifests = awale.baselines()
    names = {m["name"] for m in manifests}
    assert {"abapa-v1", "awale-v1", "wari-v1", "oware3-v1", "oware4-v1", "oware6-v1"} <= names
    for m in manifests:
        net = awale.Network.baseline(m["name"])
        assert net.path == f"baseline:{m['name']}"
        assert len(m["sha256"]) == 64 and m["play"]["sims"] >= 1
    assert awale.Network.baseline("abapa").path.startswith("baseline:abapa-v")
    with pytest.raises(ValueError, match="abapa-v1"):
        awale.Network.baseline("chess")


@needs_trainer
def test_a_baseline_plays_in_a_tournament_and_as_an_env_opponent() -> None:
    r = awale.tournament(["nn:baseline=abapa,sims=8", "random"], games=2, seed=1)
    assert r.games == 2
    env = awale.AwaleEnv(opponent="nn:baseline=abapa,sims=4")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(ValueError, match="no baseline named"):
        awale.tournament(["nn:baseline=chess", "random"], games=2)

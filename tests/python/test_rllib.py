"""RLlib (issue 15): `awale.rllib.AwaleMultiAgentEnv` passes RLlib's multi-agent env checks for
2, 3 and 6 players, plays whole games turn by turn, and a tiny masked self-play PPO run
(`awale.recipes.rllib_selfplay --fast`) trains and plays its tournament.

RLlib pins an older Gymnasium than the main test venv's, so CI runs this file in a venv of its
own with ``AWALE_RLLIB=1`` (see `.ci/test`); elsewhere it is skipped unless that is set.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("AWALE_RLLIB") != "1":
    pytest.skip("run in the RLlib venv with AWALE_RLLIB=1 (see .ci/test)", allow_module_level=True)
if importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None:
    pytest.fail("AWALE_RLLIB=1 but ray[rllib] is missing")

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

import awale  # noqa: E402
from awale.rllib import AwaleMultiAgentEnv, register  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rules", ["abapa", "oware:players=3", "oware6", "wari"])
def test_the_env_passes_rllibs_checks_and_plays_turn_by_turn(rules):
    env = AwaleMultiAgentEnv({"rules": rules})
    check_multiagent_environments(env)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        assert len(obs) == 1, "only the player to move observes"
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        obs, rew, term, trunc, info = env.step({agent: int(rng.choice(legal))})
        if term["__all__"] or trunc["__all__"]:
            break
    assert term["__all__"] or trunc["__all__"]
    assert set(rew) == set(env.possible_agents)
    if term["__all__"]:
        assert sorted(rew.values())[-1] >= 0 and min(rew.values()) <= 0
    # The same seed replays the same game.
    a, _ = env.reset(seed=3)
    b, _ = AwaleMultiAgentEnv({"rules": rules}).reset(seed=3)
    assert a.keys() == b.keys()


def test_bad_actions_and_config_are_refused():
    env = AwaleMultiAgentEnv()
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = [h for h in range(6) if o["action_mask"][h] == 0] or [6]
    with pytest.raises(awale.IllegalActionError, match="not a legal move"):  # a ValueError
        env.step({agent: illegal[0]} if illegal[0] < 6 else {agent: 9})
    with pytest.raises(awale.IllegalActionError) as info:
        env.step({agent: 9})
    assert (info.value.action, info.value.reason) == (9, "is out of range 0..5")
    other = "player_1" if agent == "player_0" else "player_0"
    with pytest.raises(ValueError, match="turn"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="unknown config"):
        AwaleMultiAgentEnv({"rulez": "abapa"})
    loss = AwaleMultiAgentEnv({"illegal": "loss"})
    obs, _ = loss.reset(seed=1)
    ((agent, _),) = obs.items()
    _, rew, term, _, _ = loss.step({agent: 9})
    assert term["__all__"] and rew[agent] == -1.0
    assert register() == "awale"


def test_a_tiny_rllib_selfplay_run_trains(tmp_path):
    logdir = tmp_path / "rllib"
    proc = subprocess.run(
        [sys.executable, "-m", "awale.recipes.rllib_selfplay", "--fast", "--cpus", "2",
         "--logdir", str(logdir)],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "trained 2 iterations" in proc.stdout
    rows = [json.loads(x) for x in (logdir / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and rows[-1]["episodes"] > 0
    assert json.loads((logdir / "tournament" / "results.json").read_text())


def test_the_readme_rllib_blocks_run(tmp_path, monkeypatch):
    import re

    text = (ROOT / "python" / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith("# needs ray[rllib]")]
    assert blocks, "python/README.md has an RLlib block"
    monkeypatch.chdir(tmp_path)
    import ray

    try:
        for k, code in enumerate(blocks):
            exec(compile(code, f"python/README.md RLlib block {k}", "exec"), {"__name__": "__readme__"})
    finally:
        ray.shutdown()

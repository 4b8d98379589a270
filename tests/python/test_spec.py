"""docs/observations.md's examples against what the engine, the envs and the network encoder
emit: the spec and the code cannot drift apart."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import awale
from awale.training import HAS_TRAINER

DOC = Path(__file__).resolve().parents[2] / "docs" / "observations.md"


def _blocks() -> list[dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for body in re.findall(r"```spec\n(.*?)```", text, flags=re.S):
        fields = {}
        for line in body.strip().splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        out.append(fields)
    return out


BLOCKS = _blocks()
OBS = [b for b in BLOCKS if "encoding" in b]
ENDS = [b for b in BLOCKS if "returns" in b]


def _nums(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.split()], dtype=np.float32)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split()]


def _id(b: dict[str, str]) -> str:
    return f"{b['rules']}-{b['encoding']}"


def test_the_doc_has_examples_of_every_kind():
    assert len(OBS) >= 4 and len(ENDS) >= 1
    assert {b["encoding"].split(":")[0] for b in OBS} == {"compact", "onehot", "thermometer"}
    assert any(awale.Rules(b["rules"]).players > 2 for b in OBS)


@pytest.mark.parametrize("b", OBS, ids=_id)
def test_the_engine_observes_what_the_doc_says(b):
    g = awale.Game(b["rules"])
    for m in _ints(b["moves"]):
        g.apply(m)
    s = g.state
    assert s.to_move == int(b["to_move"])
    np.testing.assert_array_equal(s.observation(b["encoding"]), _nums(b["raw"]))
    np.testing.assert_array_equal(
        s.observation(b["encoding"], dtype="uint8"), _nums(b["raw"]).astype(np.uint8)
    )
    np.testing.assert_array_equal(s.action_mask(), _ints(b["mask"]))
    scaled = _nums(b["raw"]) * awale.input_scale(b["rules"], b["encoding"])
    np.testing.assert_array_equal(scaled, _nums(b["network"]))


@pytest.mark.parametrize("b", OBS, ids=_id)
@pytest.mark.parametrize("scale", ["raw", "network"])
def test_the_envs_emit_what_the_doc_says(b, scale):
    want = _nums(b[scale])
    env = awale.AwaleEnv(b["rules"], opponent="self", obs=b["encoding"], obs_scale=scale)
    venv = awale.AwaleVectorEnv(1, b["rules"], opponent="self", obs=b["encoding"], obs_scale=scale)
    obs, info = env.reset(seed=0)
    vobs, vinfo = venv.reset(seed=0)
    for m in _ints(b["moves"]):
        obs, *_, info = env.step(m)
        vobs, *_, vinfo = venv.step(np.array([m]))
    np.testing.assert_array_equal(obs, want)
    np.testing.assert_array_equal(vobs[0], want)
    np.testing.assert_array_equal(info["action_mask"], _ints(b["mask"]))
    np.testing.assert_array_equal(vinfo["action_mask"][0], _ints(b["mask"]))
    assert info["to_move"] == int(b["to_move"])


@pytest.mark.parametrize("b", OBS, ids=_id)
@pytest.mark.parametrize("scale", ["raw", "network"])
def test_pettingzoo_observes_what_the_doc_says(b, scale):
    pytest.importorskip("pettingzoo")
    from awale.pettingzoo import env as aec_env

    env = aec_env(rules=b["rules"], obs=b["encoding"], obs_scale=scale)
    env.reset(seed=0)
    for m in _ints(b["moves"]):
        env.step(m)
    seat = int(b["to_move"])
    assert env.agent_selection == env.possible_agents[seat]
    o = env.observe(env.agent_selection)
    np.testing.assert_array_equal(o["observation"], _nums(b[scale]))
    np.testing.assert_array_equal(o["action_mask"], _ints(b["mask"]))


def test_scaled_observations_need_float32():
    for make in (
        lambda: awale.AwaleEnv("abapa", obs_scale="network", obs_dtype="uint8"),
        lambda: awale.AwaleVectorEnv(2, "abapa", obs_scale="network", obs_dtype="uint8"),
        lambda: awale.Batch("abapa", 2, obs_scale="network", obs_dtype="uint8"),
        lambda: awale.State("abapa").observation(dtype="uint8", scale="network"),
    ):
        with pytest.raises(ValueError, match="float32"):
            make()
    pytest.importorskip("pettingzoo")
    from awale.pettingzoo import env as aec_env

    with pytest.raises(ValueError, match="float32"):
        aec_env(rules="abapa", obs_scale="network", obs_dtype="uint8")
    assert awale.Batch("abapa", 2, obs_scale="network").obs_scale == "network"


@pytest.mark.parametrize("b", ENDS, ids=lambda b: b["position"])
def test_the_returns_are_what_the_doc_says(b):
    s = awale.State(b["position"])
    s.apply(int(b["move"]))
    assert s.is_over
    assert s.returns() == [float(x) for x in b["returns"].split()]


@pytest.mark.skipif(
    not HAS_TRAINER and os.environ.get("AWALE_TRAINER") != "1",
    reason="needs the trainer",
)
def test_the_network_encoder_writes_the_docs_network_input(tmp_path):
    from awale.training import train

    runs: dict[tuple[str, str], awale.Network] = {}
    for b in OBS:
        key = (b["rules"], b["encoding"])
        if key not in runs:
            out = tmp_path / f"run{len(runs)}"
            train(
                None,
                out,
                overrides=[
                    f"rules={b['rules']}",
                    f"network.observation={b['encoding']}",
                    "training.iterations=1",
                    "selfplay.positions_per_iteration=16",
                    "selfplay.concurrent_games=4",
                    "selfplay.threads=1",
                    "training.min_replay=8",
                    "training.batch_size=8",
                    "eval.opponents=[]",
                ],
                final_eval=False,
            )
            runs[key] = awale.Network(out / "checkpoint.ckpt")
        g = awale.Game(b["rules"])
        for m in _ints(b["moves"]):
            g.apply(m)
        net = runs[key]
        assert net.encoding == b["encoding"]
        np.testing.assert_array_equal(net.encode(g.state), _nums(b["network"]))
        np.testing.assert_array_equal(net.input_scale, awale.input_scale(b["rules"], b["encoding"]))

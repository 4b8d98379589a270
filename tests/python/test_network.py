"""awale.Network (a trained network from Python), the envs' ``obs_scale="network"``, the
safetensors export and awale.torch (docs/observations.md, python/README.md "A trained
network")."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import awale
from awale.training import HAS_TRAINER, train

WANT_TRAINER = os.environ.get("AWALE_TRAINER", "") == "1"
pytestmark = pytest.mark.skipif(
    not HAS_TRAINER and not WANT_TRAINER,
    reason="needs an extension built with the trainer (the wheel has it)",
)

#: A run of a few seconds: enough for a network that is not the initial one.
MICRO = [
    "training.iterations=2",
    "selfplay.positions_per_iteration=64",
    "selfplay.concurrent_games=8",
    "selfplay.threads=1",
    "training.batch_size=16",
    "training.min_replay=16",
    "training.warmup_steps=2",
    "eval.opponents=[]",
]


def _run(root: Path, name: str, extra: list[str]) -> Path:
    out = root / name
    train(None, out, overrides=MICRO + extra, final_eval=False)
    return out / "checkpoint.ckpt"


@pytest.fixture(scope="module")
def nets(tmp_path_factory) -> dict[str, Path]:
    """Checkpoints of micro runs: abapa (onehot:16, the recipe's encoding), abapa compact,
    wari, and 3-player Owaré."""
    root = tmp_path_factory.mktemp("nets")
    return {
        "onehot": _run(root, "onehot", ["network.observation=onehot:16"]),
        "compact": _run(root, "compact", ["network.observation=compact"]),
        "wari": _run(root, "wari", ["rules=wari", "network.observation=thermometer:8"]),
        "oware3": _run(root, "oware3", ["rules=oware3"]),
    }


def _positions(rules: str, n: int, seed: int = 0) -> list[awale.State]:
    """Positions from random games (every phase: openings, middle, endings)."""
    rng = np.random.default_rng(seed)
    out: list[awale.State] = []
    g = awale.Game(rules)
    while len(out) < n:
        if g.is_over:
            g = awale.Game(rules)
        out.append(g.state)
        g.apply(int(rng.choice(g.legal_moves())))
    return out


def test_a_network_reads_its_shape_rules_and_encoding(nets):
    net = awale.Network(nets["onehot"])
    assert str(net.rules).startswith("abapa")  # with the run's max_plies
    assert net.encoding == "onehot:16"
    assert net.input_dim == 12 * 16 + 4 == len(net.input_scale)
    assert net.actions == 6 and net.values == 1
    assert net.hidden and all(h > 0 for h in net.hidden)
    assert "observation" in net.config and net.path == str(nets["onehot"])
    head = net.header()
    assert head["format"] == "awale-network" and head["encoding"] == "onehot:16"
    assert head["input"] == net.input_dim and head["hidden"] == net.hidden
    assert "onehot:16" in repr(net)
    o3 = awale.Network(nets["oware3"])
    assert o3.values == 3 and o3.rules.players == 3


def test_a_network_pickles_by_its_path_and_a_baseline_by_its_name(nets):
    import pickle

    net = awale.Network(nets["onehot"])
    again = pickle.loads(pickle.dumps(net))
    assert again.path == net.path
    x = net.encode(_positions("abapa", 8))
    for a, b in zip(again.predict(x), net.predict(x)):
        np.testing.assert_array_equal(a, b)
    base = pickle.loads(pickle.dumps(awale.Network.baseline("abapa")))
    assert base.path == awale.Network.baseline("abapa").path
    # A search agent around it pickles too.
    agent = pickle.loads(pickle.dumps(awale.SearchAgent(net, sims=8, name="net8")))
    assert agent.select(awale.State("abapa")) in range(6)


def test_a_generation_file_loads_as_the_checkpoint_does(nets, tmp_path):
    out = tmp_path / "gens"
    train(None, out, overrides=MICRO + ["checkpoint.generations_every=2"], final_eval=False)
    gen = awale.Network(out / "generations" / "gen-000002.ckpt")
    ckpt = awale.Network(out / "checkpoint.ckpt")
    x = ckpt.encode(_positions("abapa", 20))
    for a, b in zip(gen.predict(x), ckpt.predict(x)):
        np.testing.assert_array_equal(a, b)


def test_encode_is_the_raw_observation_times_the_input_scale(nets):
    for key in ("onehot", "compact", "wari", "oware3"):
        net = awale.Network(nets[key])
        states = _positions(str(net.rules), 50, seed=1)
        x = net.encode(states)
        assert x.shape == (50, net.input_dim) and x.dtype == np.float32
        raw = np.stack([s.observation(net.encoding) for s in states])
        np.testing.assert_array_equal(x, raw * net.input_scale)
        np.testing.assert_array_equal(net.encode(states[3]), x[3])  # one State: 1-D


def test_the_envs_emit_the_networks_input_with_obs_scale_network(nets):
    net = awale.Network(nets["onehot"])
    env = awale.AwaleEnv("abapa", obs=net.encoding, obs_scale="network", opponent="random")
    obs, info = env.reset(seed=3)
    for _ in range(30):
        np.testing.assert_array_equal(obs, net.encode(env.state))
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if term or trunc:
            obs, info = env.reset()
    venv = awale.AwaleVectorEnv(16, "wari", obs="thermometer:8", obs_scale="network")
    wari = awale.Network(nets["wari"])
    obs, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(40):
        states = [venv.batch.state(i) for i in range(16)]
        np.testing.assert_array_equal(obs, wari.encode(states))
        mask = info["action_mask"].astype(bool)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, *_, info = venv.step(acts)
    # Raw is the default; scaled needs float32.
    assert awale.AwaleEnv("abapa").reset(seed=0)[0].max() == 4.0
    with pytest.raises(ValueError, match="float32"):
        awale.AwaleEnv("abapa", obs_scale="network", obs_dtype="uint8")
    with pytest.raises(ValueError, match="obs_scale"):
        awale.AwaleEnv("abapa", obs_scale="unit")


def test_predict_shapes_batches_and_the_released_gil(nets):
    import threading

    net = awale.Network(nets["oware3"])
    x = net.encode(_positions("oware3", 64, seed=2))
    logits, values = net.predict(x)
    assert logits.shape == (64, net.actions) and values.shape == (64, 3)
    assert logits.dtype == values.dtype == np.float32
    assert np.all(np.abs(values) < 1)
    # Row by row, 1-D, and in another batch split: the same numbers.
    l1, v1 = net.predict(x[7])
    assert l1.shape == (net.actions,) and v1.shape == (3,)
    np.testing.assert_allclose(l1, logits[7], rtol=0, atol=1e-5)
    l2, v2 = net.predict(x[10:20])
    np.testing.assert_allclose(l2, logits[10:20], rtol=0, atol=1e-5)
    empty = net.predict(np.zeros((0, net.input_dim), np.float32))
    assert empty[0].shape == (0, net.actions)
    # A non-contiguous view is read in order.
    np.testing.assert_allclose(net.predict(x[::2])[0], logits[::2], rtol=0, atol=1e-5)
    # Threads predict at once (the GIL is released while the network runs).
    out: list[np.ndarray] = []
    ts = [threading.Thread(target=lambda: out.append(net.predict(x)[0])) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for o in out:
        np.testing.assert_allclose(o, logits, rtol=0, atol=1e-5)


def test_bad_inputs_are_refused_with_the_reason(nets, tmp_path):
    net = awale.Network(nets["compact"])
    x = net.encode(_positions("abapa", 4))
    with pytest.raises(TypeError, match="float32"):
        net.predict(x.astype(np.float64))
    with pytest.raises(TypeError, match="NumPy"):
        net.predict([[0.0] * net.input_dim])
    with pytest.raises(ValueError, match=r"\(batch, 16\)"):
        net.predict(np.zeros((2, 17), np.float32))
    with pytest.raises(ValueError, match=r"\(batch, 16\)"):
        net.predict(np.zeros((2, 2, 16), np.float32))
    bad = x.copy()
    bad[1, 3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        net.predict(bad)
    with pytest.raises(TypeError, match="State"):
        net.encode("abapa")
    with pytest.raises(TypeError, match="State"):
        net.encode([1, 2])
    # A network plays its own rules only.
    with pytest.raises(ValueError, match="wari"):
        net.encode(awale.State("wari"))
    # A missing file is a FileNotFoundError naming it; a file that is no network names it too.
    missing = tmp_path / "missing.ckpt"
    with pytest.raises(FileNotFoundError, match="missing.ckpt") as info:
        awale.Network(missing)
    assert info.value.filename == str(missing) and info.value.errno == 2
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"not a network at all")
    with pytest.raises(awale.TrainingError, match=r"junk\.ckpt: not an awale checkpoint") as bad:
        awale.Network(junk)
    assert bad.value.path == str(junk)
    text = tmp_path / "notanet.txt"
    text.write_text("hello\n")
    with pytest.raises(ValueError, match=r"notanet\.txt: .*bad magic bytes"):
        awale.Network(text)


def test_a_network_of_other_rules_is_refused_where_it_would_play(nets):
    wari = f"nn:path={nets['wari']},sims=4"
    with pytest.raises(awale.ConfigError, match="trained for wari"):
        awale.tournament([wari, "random"], rules="abapa", games=2)
    with pytest.raises(awale.ConfigError, match="trained for wari"):
        awale.AwaleEnv("abapa", opponent=wari)
    # Its own rules: it plays.
    r = awale.tournament([wari, "random"], rules="wari", games=2, seed=1)
    assert r.games == 2 and r.complete


def test_safetensors_export_loads_back_and_plays(nets, tmp_path):
    net = awale.Network(nets["onehot"])
    path = tmp_path / "net.safetensors"
    net.export_safetensors(path)
    back = awale.Network(path)
    assert back.encoding == net.encoding and back.hidden == net.hidden
    x = net.encode(_positions("abapa", 40, seed=4))
    for a, b in zip(net.predict(x), back.predict(x)):
        np.testing.assert_array_equal(a, b)
    r = awale.tournament([f"nn:path={path},sims=4,name=st", "random"], rules="abapa", games=2)
    assert r.games == 2 and "st" in r.names
    # A damaged file is refused.
    data = path.read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(awale.TrainingError, match="not an awale network"):
        awale.Network(tmp_path / "cut.safetensors")


def test_awale_torch_save_writes_the_mode_of_awale_network_export(nets, tmp_path):
    """Both honour the umask as any new file does (0644 under umask 022); safetensors' own
    save_file would write 0600."""
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import subprocess
    import sys

    import awale.torch as at

    old = os.umask(0o022)
    try:
        exported = tmp_path / "exported.safetensors"
        subprocess.run(
            [sys.executable, "-m", "awale", "network", "export", str(nets["onehot"]),
             "--out", str(exported)],
            check=True, capture_output=True,
        )
        saved = tmp_path / "saved.safetensors"
        at.save(at.network(exported), saved)
        modes = {p.name: p.stat().st_mode & 0o777 for p in (exported, saved)}
        assert modes == {"exported.safetensors": 0o644, "saved.safetensors": 0o644}, modes
        os.umask(0o077)
        private = tmp_path / "private.safetensors"
        at.save(at.network(exported), private)
        assert private.stat().st_mode & 0o777 == 0o600
        assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []
    finally:
        os.umask(old)
    assert awale.Network(saved).hidden == awale.Network(exported).hidden


def test_pytorch_builds_the_same_network(nets, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import awale.torch as at

    for key in ("onehot", "compact", "wari", "oware3"):
        net = awale.Network(nets[key])
        model = at.network(nets[key])  # a checkpoint: exported on the way
        assert isinstance(model, torch.nn.Module) and model.header["encoding"] == net.encoding
        x = net.encode(_positions(str(net.rules), 200, seed=5))
        logits, values = net.predict(x)
        with torch.no_grad():
            tl, tv = model(torch.from_numpy(x))
        np.testing.assert_allclose(tl.numpy(), logits, rtol=0, atol=1e-5)
        np.testing.assert_allclose(tv.numpy(), values, rtol=0, atol=1e-5)
        assert model.score_head(torch.from_numpy(x)).shape == (200, 1)


def test_weights_changed_in_pytorch_come_back_to_rust(nets, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import awale.torch as at

    model = at.network(nets["onehot"])
    with torch.no_grad():
        model.policy.bias += torch.arange(6, dtype=torch.float32)  # a visible change
    path = tmp_path / "tuned.safetensors"
    at.save(model, path)
    back = awale.Network(path)
    x = back.encode(_positions("abapa", 30, seed=6))
    with torch.no_grad():
        tl, tv = model(torch.from_numpy(x))
    logits, values = back.predict(x)
    np.testing.assert_allclose(logits, tl.numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(values, tv.numpy(), rtol=0, atol=1e-5)
    # It plays as an nn agent.
    r = awale.tournament([f"nn:path={path},sims=4,name=tuned", "random"], rules="abapa", games=2)
    assert r.games == 2 and "tuned" in r.names
    # A file whose header does not match its tensors is refused by both sides.
    wrong = dict(model.header, hidden=[7])
    model.header = wrong
    at.save(model, tmp_path / "wrong.safetensors")
    with pytest.raises(awale.TrainingError, match="disagree"):
        awale.Network(tmp_path / "wrong.safetensors")


def test_the_torch_evaluator_is_the_network_as_an_evaluate_callable():
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import awale.torch as at

    model = at.new_network("abapa", [16], "onehot:16")
    ev = at.Evaluator(model, "cpu")
    assert ev.thread_safe is True
    obs = np.random.default_rng(0).random((5, int(model.header["input"])), dtype=np.float32)
    mask = np.ones((5, 6), bool)
    logits, values = ev(obs, mask)
    with torch.inference_mode():
        want_l, want_v = model(torch.from_numpy(obs))
    np.testing.assert_array_equal(logits, want_l.numpy())
    np.testing.assert_array_equal(values, want_v.numpy())
    assert ev.calls == 1 and ev.rows == 5
    # It drives self-play, its leaves gathered from two threads into calls of at most 8.
    sp = awale.SelfPlay("abapa", ev, games=16, threads=2, seed=3, sims=8, fast_sims=4,
                        encoding="onehot:16", eval_batch=8)
    d = sp.play(20)
    assert d["stats"]["max_batch"] <= 8 and d["obs"].shape[1] == int(model.header["input"])
    with pytest.raises(ValueError, match="precision 'fp8'"):
        at.Evaluator(model, "cpu", precision="fp8")
    with pytest.raises(ValueError, match="on a CPU use 'fp32'"):
        at.Evaluator(model, "cpu", precision="bf16")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            at.Evaluator(model, "cuda")


def test_a_baselines_play_settings_survive_a_pass_through_pytorch(tmp_path):
    """`awale.torch.save` writes the play settings `awale.torch.baseline` read (issue 61's
    leftover): the saved file searches as the baseline does, and a network of one's own can be
    given settings, checked by the Rust side."""
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import awale.torch as at

    model = at.baseline("abapa")
    shipped = awale.Network.baseline("abapa").play
    assert model.play == {
        "sims": shipped["sims"],
        "search": shipped["search"],
        "reuse_tree": shipped["reuse_tree"],
    }
    assert shipped["reuse_tree"] is True
    path = tmp_path / "again.safetensors"
    at.save(model, path)
    assert at.read_play(path) == model.play
    assert awale.Network(path).play == shipped
    # A network of one's own: its settings written, then read back by the nn agent's file.
    mine = at.new_network("abapa", [8], "onehot:16")
    assert mine.play is None
    at.save(mine, tmp_path / "plain.safetensors")
    assert at.read_play(tmp_path / "plain.safetensors") is None
    assert awale.Network(tmp_path / "plain.safetensors").play["from_file"] is False
    mine.play = {"sims": 12, "search": "puct"}
    at.save(mine, tmp_path / "mine.safetensors")
    assert awale.Network(tmp_path / "mine.safetensors").play == {
        "sims": 12,
        "search": "puct",
        "reuse_tree": False,
        "from_file": True,
    }
    # Bad settings: refused by Python (their shape) or by the Rust side (their values).
    mine.play = {"sims": 12}
    with pytest.raises(ValueError, match="sims"):
        at.save(mine, tmp_path / "bad.safetensors")
    mine.play = {"sims": 12, "search": "puct", "reuse_tree": "yes"}
    with pytest.raises(TypeError, match="reuse_tree"):
        at.save(mine, tmp_path / "bad.safetensors")
    mine.play = {"sims": 0, "search": "puct"}
    at.save(mine, tmp_path / "zero.safetensors")
    with pytest.raises(awale.TrainingError, match="sims"):
        awale.Network(tmp_path / "zero.safetensors")

"""The option table (`awale._core.env_options()`, `OPTIONS` in `src/env_spec.rs`) is the one
list of the batch's and the environments' options: `Batch`'s keywords, its pickles, `EnvSpec`'s
fields and every environment's keywords come from it."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest

import awale
from awale import AwaleEnv, AwaleVectorEnv, Batch, EnvSpec, _core
from awale._common import OPTIONS, SPEC_OPTIONS, flavour_options
from awale.pettingzoo import raw_env

STUB = Path(__file__).resolve().parents[2] / "python" / "awale" / "_core.pyi"

#: A value other than the default for every option of the table (a test fails when an option
#: is added without one here: add it).
NON_DEFAULT = {
    "rules": "oware3",
    "num_boards": 5,
    "opponent": "capture",
    "learner_seat": 2,
    "obs": "onehot:8",
    "obs_dtype": "uint8",
    "opening": (1, 4),
    "illegal": "loss",
    "render_mode": "ansi",
    "copy": False,
    "obs_mode": "dict",
    "threads": 2,
    "reset_mode": "same_step",
    "seed": 2**64 - 1,
    "obs_scale": "network",
}

#: What each environment class takes besides the table's options.
OWN = {
    "env": (AwaleEnv, {"rules"}),
    "vector": (AwaleVectorEnv, {"num_envs", "rules", "autoreset_mode", "max_episode_steps"}),
    "pettingzoo": (raw_env, {"rules"}),
}
if importlib.util.find_spec("stable_baselines3") is not None:
    from awale.sb3 import AwaleSB3VecEnv

    OWN["sb3"] = (AwaleSB3VecEnv, {"num_envs", "rules", "seed"})


def test_the_table_is_whole():
    options = _core.env_options()
    keys = [o.key for o in options]
    assert len(keys) == len(set(keys))
    assert set(keys) == set(NON_DEFAULT), "give every option a non-default value above"
    assert keys[0] == "rules"
    for o in options:
        assert o.help and o.flavours and o.annotation
        assert set(o.flavours) <= {"batch", "env", "vector", "sb3", "pettingzoo", "rllib"}
        assert NON_DEFAULT[o.key] != o.default
        if o.choices:
            assert o.default in o.choices + [None] or o.kind == "optional_str"


def test_envspec_fields_are_the_tables_environment_options():
    fields = dataclasses.fields(EnvSpec)
    assert [f.name for f in fields] == [o.key for o in SPEC_OPTIONS]
    for f in fields:
        assert f.default == OPTIONS[f.name].env_default, f.name
    # The fields of old, in their old order, then the new ones.
    assert [f.name for f in fields][:10] == [
        "rules", "opponent", "learner_seat", "obs", "obs_dtype", "opening", "illegal",
        "render_mode", "copy", "obs_mode",
    ]
    with pytest.raises(TypeError, match="colour"):
        EnvSpec(colour="red")  # type: ignore[call-arg]


def test_batch_keywords_are_the_tables_batch_options():
    batch_keys = {o.key for o in flavour_options("batch")}
    # The stub lists them all (typed, for IDEs).
    tree = ast.parse(STUB.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Batch")
    new = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__new__")
    stub_keys = {a.arg for a in new.args.args[1:] + new.args.kwonlyargs}
    assert stub_keys == batch_keys
    # Each is taken by keyword, with the table's default when absent.
    fresh = Batch().__getstate__()
    for o in flavour_options("batch"):
        assert fresh[o.key] == o.default, o.key
        Batch(**{o.key: o.default})


@pytest.mark.parametrize("flavour", sorted(OWN))
def test_every_environment_takes_its_flavours_options(flavour):
    cls, own = OWN[flavour]
    params = inspect.signature(cls).parameters
    table = {o.key for o in flavour_options(flavour)}
    named = {k for k, p in params.items() if p.kind != p.VAR_KEYWORD}
    assert named == table | own
    for o in flavour_options(flavour):
        if o.key not in own:
            assert params[o.key].default == o.default_for(flavour), o.key
            assert o.key in (cls.__doc__ or ""), o.key
    values = {k: v for k, v in NON_DEFAULT.items() if k in table - own}
    if values.get("obs_scale") == "network" and "obs_dtype" in values:
        values["obs_dtype"] = "float32"  # scaled observations are fractions
    env = cls(rules=NON_DEFAULT["rules"], **values)
    assert env.env_spec.rules == awale.Rules(NON_DEFAULT["rules"])
    for key, value in values.items():
        got = getattr(env.env_spec, key)
        assert got == value or (key == "opening" and tuple(got) == value), key


@pytest.mark.parametrize("flavour", ["batch"] + sorted(OWN))
def test_an_unknown_keyword_is_a_type_error_naming_it(flavour):
    make = Batch if flavour == "batch" else OWN[flavour][0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        make(colour="red")
    # An option of the table that this flavour does not take.
    other = next(o.key for o in OPTIONS.values() if flavour not in o.flavours and o.key != "rules")
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{other}'"):
        make(**{other: NON_DEFAULT[other]})


def test_rllib_keys_come_from_the_table():
    assert {o.key for o in flavour_options("rllib")} == {"rules", "obs", "obs_scale", "illegal"}


def test_batch_pickles_every_option():
    values = {o.key: NON_DEFAULT[o.key] for o in flavour_options("batch")}
    values["opponent"] = "league:random|capture"
    values["obs_dtype"] = "float32"  # scaled observations are fractions
    b = Batch(**values)
    b.step(np.zeros(5, dtype=np.int64) + np.argmax(b.mask, axis=1))
    state = b.__getstate__()
    assert set(state) == {o.key for o in flavour_options("batch")} | {"snapshot"}
    for key, value in values.items():
        assert state[key] == value, key
    c = pickle.loads(pickle.dumps(b))
    assert c.__getstate__() == state
    np.testing.assert_array_equal(c.obs, b.obs)
    assert (c.obs_encoding, c.obs_dtype, c.reset_mode, c.illegal, c.threads, c.obs_scale) == (
        "onehot:8", "float32", "same_step", "loss", 2, "network")
    assert c.opening == (1, 4) and c.learner_seat == 2 and c.seed == 2**64 - 1


def test_pickles_made_before_the_table_still_load():
    # The state of a pickle written by the hand-listed __getstate__ of old.
    old = Batch("wari", 3, opponent="random", opening=(0, 2), seed=9)
    state = {
        "rules": "wari", "num_boards": 3, "obs": "compact", "obs_dtype": "float32",
        "reset_mode": "next_step", "opponent": "random", "learner_seat": 0, "opening": (0, 2),
        "illegal": "error", "seed": 9, "threads": 1, "snapshot": old.snapshot(),
    }
    b = Batch()
    b.__setstate__(state)
    np.testing.assert_array_equal(b.obs, old.obs)
    assert b.opening == (0, 2) and b.num_boards == 3 and b.opponent == "random"
    # A pickle lacking an option (made before it existed) takes its default.
    del state["illegal"]
    b.__setstate__(state)
    assert b.illegal == "error"


def test_envspec_checks_come_from_the_table():
    spec = EnvSpec(rules="wari", opening=(2, 2), obs_dtype=np.uint8, threads=3).validate()
    assert spec.rules == awale.Rules("wari") and spec.opening == 2 and spec.obs_dtype == "uint8"
    for bad, exc, words in [
        (dict(threads=-1), ValueError, "threads"),
        (dict(threads="1"), TypeError, "threads"),
        (dict(copy="yes"), TypeError, "copy must be a bool"),
        (dict(copy=1), TypeError, "copy must be a bool"),
        (dict(obs_mode=3), TypeError, "obs_mode"),
        (dict(illegal="maybe"), ValueError, "illegal"),
        (dict(opening=(5, 2)), ValueError, "opening"),
        (dict(learner_seat=2), ValueError, "seat"),
    ]:
        with pytest.raises(exc, match=words):
            EnvSpec(**bad).validate()
    with pytest.raises(TypeError, match="unexpected keyword argument 'seed'"):
        _core.check_env_options({"seed": 1})

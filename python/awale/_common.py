"""Helpers shared by the environments: argument checks, spaces, seeds and pickling."""

from __future__ import annotations

import dataclasses
import operator
import secrets
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np
from gymnasium import spaces

from awale import _core

#: The preset names, as `gymnasium.make` ids know them (`awale/<Title>-v0`), from the engine's
#: preset table.
GYM_NAMES = {spec: title for spec, title, _summary in _core.presets()}

#: What the environments accept as an opening: a number of random plies or a (min, max) pair.
OpeningArg = Union[int, Tuple[int, int], None]

_SEED_LIMIT = 1 << 64

#: Attributes holding NumPy views of the simulator's buffers: never pickled, rebuilt by the
#: environment's ``_bind()`` after unpickling.
BUFFER_VIEWS = (
    "_obs",
    "_final_obs",
    "_mask",
    "_reward",
    "_rewards",
    "_terminated",
    "_truncated",
    "_to_move",
    "_length",
    "_scores",
    "_all",
)


def state_without_views(env: Any) -> dict[str, Any]:
    """``env.__dict__`` without the buffer views (for ``__getstate__``)."""
    state = env.__dict__.copy()
    for k in BUFFER_VIEWS:
        state.pop(k, None)
    return state


def rules_of(rules: Union[str, "_core.Rules"]) -> _core.Rules:
    """A `Rules` from a spec string or a `Rules` (ValueError for unknown presets/options)."""
    if isinstance(rules, _core.Rules):
        return rules
    if not isinstance(rules, str):
        raise TypeError(
            "rules must be a spec string such as 'abapa' or 'oware:players=3', or a "
            f"awale.Rules; got {type(rules).__name__}"
        )
    return _core.Rules(rules)


def check_seed(seed: Any) -> Optional[int]:
    """A seed as a Python int in 0..2**64-1, or None; TypeError/ValueError otherwise."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError("seed must be an int or None, got bool")
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}") from None
    if not 0 <= value < _SEED_LIMIT:
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, got {value}")
    return value


def entropy_seed() -> int:
    """A fresh random 64-bit seed (for environments reset without a seed)."""
    return secrets.randbits(64)


def check_render_mode(render_mode: Optional[str], modes: list[str]) -> Optional[str]:
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
    return render_mode


#: The built-in opponents of the environments: ``"self"`` (self-play), ``"random"``,
#: ``"capture"`` (the largest capture) and ``"greedy"`` (the tournament's greedy agent: the
#: largest store gain net of the best rival's). Any agent spec is an opponent too
#: (``"alphabeta:depth=2"``, ``"mcts:sims=200"``).
OPPONENTS = ("self", "random", "capture", "greedy")


# ---------------------------------------------------------------------------------------------
# The option table


#: The engine's option table (``awale._core.env_options()``), by key: every option of
#: :class:`awale.Batch` and of the environments, with its type, defaults, the API flavours that
#: take it and its help. ``EnvSpec``'s fields, the environments' keywords and their docs come
#: from it; adding an option is one entry in ``src/env_spec.rs`` plus its behaviour.
OPTIONS: dict[str, "_core.EnvOption"] = {o.key: o for o in _core.env_options()}

#: The options of the environments (every option a flavour other than ``"batch"`` takes), in
#: table order: ``EnvSpec``'s fields.
SPEC_OPTIONS = tuple(o for o in OPTIONS.values() if set(o.flavours) - {"batch"})


def flavour_options(flavour: str) -> tuple["_core.EnvOption", ...]:
    """The options an API flavour takes (``"batch"``, ``"env"``, ``"vector"``, ``"sb3"``,
    ``"pettingzoo"``, ``"rllib"``), in table order."""
    return tuple(o for o in OPTIONS.values() if flavour in o.flavours)


def options_doc(flavour: str, indent: str = "        ", skip: Sequence[str] = ()) -> str:
    """The ``Args:`` lines of the options ``flavour`` takes, generated from the table."""
    import textwrap

    lines = []
    for o in flavour_options(flavour):
        if o.key in skip:
            continue
        text = f"{o.key} (default {o.default_for(flavour)!r}): {o.help}."
        lines += textwrap.wrap(
            text, 96 - len(indent), initial_indent=indent, subsequent_indent=indent + "    "
        )
    return "\n".join(lines)


def _annotation(text: str) -> Any:
    """An option's annotation (the engine's text, ``"Optional[int]"``) as a typing object, so
    that ``typing.get_type_hints`` and documentation tools read it in any module; the text
    itself if it names something unknown."""
    import typing

    names: dict = {n: getattr(typing, n) for n in ("Callable", "Literal", "Optional", "Union")}
    names.update(Sequence=Sequence, numpy=np, Rules=_core.Rules, State=_core.State)
    names.update(int=int, str=str, bool=bool, tuple=tuple)
    try:
        return eval(text, {"__builtins__": {}}, names)
    except Exception:
        return text


def with_options(flavour: str, skip: Sequence[str] = ()) -> Any:
    """Class decorator of an environment whose ``__init__`` takes its options as
    ``**options``: gives ``__init__`` a signature listing every option ``flavour`` takes, with
    its default (for ``help()``, IDEs that introspect and ``inspect.signature``), and appends
    their descriptions to the class docstring."""
    import inspect

    def decorate(cls: Any) -> Any:
        init = cls.__init__
        sig = inspect.signature(init)
        params = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
        named = {p.name for p in params}
        for o in flavour_options(flavour):
            if o.key not in named and o.key not in skip:
                params.append(
                    inspect.Parameter(
                        o.key, inspect.Parameter.KEYWORD_ONLY, default=o.default_for(flavour),
                        annotation=_annotation(o.annotation),
                    )
                )
        init.__signature__ = sig.replace(parameters=params)
        cls.__doc__ = (cls.__doc__ or "").rstrip() + (
            "\n\n    Options (from the engine's option table, ``awale._core.env_options()``):\n\n"
            + options_doc(flavour, skip=skip)
            + "\n"
        )
        return cls

    return decorate


def _table_fields(cls: Any) -> Any:
    """Gives ``cls`` (before ``@dataclass``) one field per option of the environments, with its
    default, from the table."""
    annotations = {o.key: "Any" for o in SPEC_OPTIONS}
    for o in SPEC_OPTIONS:
        setattr(cls, o.key, o.env_default)
    cls.__annotations__ = {**annotations, **cls.__dict__.get("__annotations__", {})}
    return cls


@dataclasses.dataclass(frozen=True)
@_table_fields
class EnvSpec:
    """The settings every environment of the package shares (:class:`awale.AwaleEnv`,
    :class:`awale.AwaleVectorEnv`, :class:`awale.sb3.AwaleSB3VecEnv`, :mod:`awale.pettingzoo`
    and :mod:`awale.rllib`), checked in one place by :meth:`validate`.

    Its fields are the options of the engine's table (``awale._core.env_options()``) that an
    environment takes, with their defaults: ``rules``, ``opponent``, ``learner_seat``, ``obs``,
    ``obs_dtype``, ``opening``, ``illegal``, ``render_mode``, ``copy``, ``obs_mode``,
    ``threads`` (see :func:`awale.env_options`). Each environment builds one from its keywords
    (:meth:`of`) and makes its simulator with :meth:`batch`; ``env.env_spec`` holds it.
    """

    if TYPE_CHECKING:  # the fields come from the table

        def __init__(self, **options: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

    @classmethod
    def of(
        cls,
        flavour: str,
        owner: str,
        options: dict[str, Any],
        fixed: Optional[dict[str, Any]] = None,
    ) -> "EnvSpec":
        """The spec of ``options``, the keywords given to ``owner`` (an environment of API
        flavour ``flavour``): a key the flavour does not take is a ``TypeError`` naming it, as
        Python's own; ``fixed`` holds the values the flavour sets itself (SB3's ``float32``
        observations, PettingZoo's self-play)."""
        for key in options:
            option = OPTIONS.get(key)
            if option is None or flavour not in option.flavours:
                raise TypeError(f"{owner}() got an unexpected keyword argument {key!r}")
        return cls(**{**options, **(fixed or {})})

    def validate(self, render_modes: Sequence[str] = ("human", "ansi")) -> "EnvSpec":
        """A checked copy with normalised values (``rules`` a :class:`awale.Rules`,
        ``obs_dtype`` a name, ``opening`` as the table writes it): every field goes through the
        engine's option table (``awale._core.check_env_options``), which also runs the
        simulator's checks across them (the seat exists, the opening leaves moves).
        ``TypeError`` for a value of the wrong type, ``ValueError`` (an
        :class:`awale.AwaleError` where the engine decides) for a bad value."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        checked = _core.check_env_options(values)
        checked["render_mode"] = check_render_mode(checked["render_mode"], list(render_modes))
        checked["rules"].obs_dim(checked["obs"])  # the encoding fits the rules
        return dataclasses.replace(self, **checked)

    def batch(
        self,
        num_boards: int,
        reset_mode: str,
        *,
        threads: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> "_core.Batch":
        """The simulator of these settings: every option ``Batch`` takes (a random seed when
        ``seed`` is None; ``threads`` overrides the spec's)."""
        options = {o.key: getattr(self, o.key) for o in SPEC_OPTIONS if "batch" in o.flavours}
        if threads is not None:
            options["threads"] = threads
        return _core.Batch(
            num_boards=num_boards,
            reset_mode=reset_mode,
            seed=entropy_seed() if seed is None else seed,
            **options,
        )

    def spaces(self) -> "_core.EnvSpaces":
        """One board's spaces as the engine declares them (``awale._core.env_spaces``): the
        observation's shape, dtype and every value's bounds, and the number of actions."""
        assert isinstance(self.rules, _core.Rules), "validate() first"
        return _core.env_spaces(
            rules=self.rules, obs=self.obs, obs_scale=self.obs_scale, obs_dtype=self.obs_dtype
        )

    def observation_space(self) -> Union[spaces.Box, spaces.Dict]:
        """One board's observation space: the engine's ``Box`` of the array, or with
        ``obs_mode="dict"`` ``Dict(observation=<that Box>, action_mask=<mask_box>)``."""
        declared = self.spaces()
        box = observation_box(declared)
        if self.obs_mode == "array":
            return box
        return spaces.Dict({"observation": box, "action_mask": mask_box(declared)})

    def action_space(self) -> spaces.Discrete:
        """One board's action space: a house of the mover's row."""
        return spaces.Discrete(self.spaces().n_actions)


def single_board_error(e: "_core.AwaleError") -> "_core.AwaleError":
    """The error of a one-board batch step, as a one-board environment reports it: the same
    class and attributes, without the board number."""
    if e.board is None:
        return e
    message = str(e)
    prefix = f"board {e.board}: "
    if message.startswith(prefix):
        message = message[len(prefix):]
    new = type(e)(message)
    for key, value in vars(e).items():
        setattr(new, key, value)
    new.board = None
    return new


def observation_box(declared: "_core.EnvSpaces", dtype: Any = None) -> spaces.Box:
    """The Box of one board's observation, as the engine declares it (``awale._core.env_spaces``
    or ``Batch.spaces``): its shape, dtype and the bounds of every value (seed counts within
    0..total_seeds, slots and the seat within 0..1, times the network's input scales under
    ``obs_scale="network"``). ``dtype`` overrides the element type (RLlib's ``float32``)."""
    dtype = np.dtype(declared.obs_dtype if dtype is None else dtype)
    return spaces.Box(
        low=declared.obs_low.astype(dtype),
        high=declared.obs_high.astype(dtype),
        shape=declared.obs_shape,
        dtype=dtype,
    )


def mask_box(declared: "_core.EnvSpaces", dtype: Any = np.int8) -> spaces.Box:
    """The Box of one board's legal-action mask: one 0 or 1 per action (``int8``, or
    ``dtype``)."""
    return spaces.Box(low=0, high=1, shape=(declared.n_actions,), dtype=np.dtype(dtype))


def action_index(action: Any, houses: int) -> int:
    """One action (a house index) as an int: ints, NumPy integers and integer arrays of one
    element; TypeError for other types, :class:`awale.IllegalActionError` (a ``ValueError``) when
    out of range."""
    if isinstance(action, np.ndarray):
        if action.size != 1:
            raise ValueError(
                f"expected one action (a house index 0..{houses - 1}), got an array of shape "
                f"{action.shape}"
            )
        if not np.issubdtype(action.dtype, np.integer):
            raise TypeError(f"actions must be integers, got a {action.dtype} array")
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)):
        raise TypeError("an action must be an int house index, got bool")
    try:
        value = operator.index(action)
    except TypeError:
        raise TypeError(
            f"an action must be an int house index 0..{houses - 1}, got {type(action).__name__}"
        ) from None
    if not 0 <= value < houses:
        # The batch's own error for the same action (a ValueError subclass), so that every env
        # flavour raises awale.IllegalActionError for it.
        err = _core.IllegalActionError(
            f"action {value} is out of range: the houses are 0..{houses - 1}"
        )
        err.action, err.reason, err.board = value, f"is out of range 0..{houses - 1}", None
        raise err
    return value


_TABLES: dict[int, np.ndarray] = {}
_TABLE_WIDTH = 60  # lcm(1..6): a uniform pick among up to 6 legal houses


def _table(houses: int) -> np.ndarray:
    """``table[bits * 60 + k]``: the ``(k mod popcount(bits))``-th set bit of ``bits`` (0 when
    no bit is set), for every ``houses``-bit mask."""
    t = _TABLES.get(houses)
    if t is None:
        t = np.zeros((1 << houses, _TABLE_WIDTH), dtype=np.int64)
        for m in range(1 << houses):
            bits = [h for h in range(houses) if m >> h & 1] or [0]
            t[m] = [bits[k % len(bits)] for k in range(_TABLE_WIDTH)]
        t = t.ravel()
        t.flags.writeable = False
        _TABLES[houses] = t
    return t


# Row offsets into the table of `_table`: bit h of a mask is worth 2**h rows of 60 entries.
_ROW_OFFSETS = (np.array([1, 2, 4, 8, 16, 32]) * _TABLE_WIDTH).astype(np.uint16)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(n, houses)`` 0/1 mask, vectorised:
    ``envs.step(sample_legal(info["action_mask"], rng))``. A row with no legal action (all
    zeros) is a ``ValueError`` naming the rows: there is no move to sample."""
    mask = np.asarray(mask)
    if mask.ndim == 1:
        return sample_legal(mask[None, :], rng)[0]
    if mask.ndim != 2:
        raise ValueError(f"the mask must be (houses,) or (n, houses), got shape {mask.shape}")
    empty = np.flatnonzero(~(mask > 0).any(axis=1))
    if empty.size:
        rows = ", ".join(str(i) for i in empty[:10]) + (", ..." if empty.size > 10 else "")
        raise ValueError(f"no legal action to sample in row(s) {rows} of the mask (all zeros)")
    n, houses = mask.shape
    if n >= 256 and houses <= 6 and mask.dtype.itemsize == 1:
        # Large batches: the mask's bits pick a row of a table of uniform picks.
        index = mask.view(np.uint8) @ _ROW_OFFSETS[:houses]
        index += rng.integers(0, _TABLE_WIDTH, n, dtype=np.uint16)
        return _table(houses)[index]
    return (rng.random(mask.shape) * (mask > 0)).argmax(axis=1)

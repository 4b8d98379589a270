"""Helpers shared by the environments: argument checks, spaces, seeds and pickling."""

from __future__ import annotations

import dataclasses
import operator
import secrets
from typing import Any, Optional, Sequence, Tuple, Union

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


def check_opponent(opponent: Any) -> Any:
    """A name, an agent spec, a list of those (a league, kept as a tuple), or a callable
    ``(State) -> house``; the simulator checks the value."""
    if isinstance(opponent, (list, tuple)):
        bad = [m for m in opponent if not isinstance(m, str)]
        if bad:
            raise TypeError(
                "a league's members are names or agent specs (strings); got "
                f"{type(bad[0]).__name__}"
            )
        return tuple(opponent)
    if not isinstance(opponent, str) and not callable(opponent):
        raise TypeError(
            f"opponent must be one of {', '.join(OPPONENTS)}, an agent spec such as "
            f"'alphabeta:depth=2', a list of those (a league: one drawn per episode), or a "
            f"callable taking a State and returning a house; got {type(opponent).__name__}"
        )
    return opponent


def _check_int(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None


def _check_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """The settings every environment of the package shares (:class:`awale.AwaleEnv`,
    :class:`awale.AwaleVectorEnv`, :class:`awale.sb3.AwaleSB3VecEnv`, and the rules, encoding
    and render mode of :mod:`awale.pettingzoo`), checked in one place by :meth:`validate`.

    Each environment builds one from its arguments (``EnvSpec(...).validate()``) and makes its
    simulator with :meth:`batch`; ``env.env_spec`` holds it.
    """

    rules: Union[str, "_core.Rules"] = "abapa"
    opponent: Any = "random"
    learner_seat: int = 0
    obs: str = "compact"
    obs_dtype: Any = "float32"
    opening: OpeningArg = 0
    illegal: str = "error"
    render_mode: Optional[str] = None
    copy: bool = True
    obs_mode: str = "array"

    def validate(self, render_modes: Sequence[str] = ("human", "ansi")) -> "EnvSpec":
        """A checked copy with normalised values (``rules`` a :class:`awale.Rules`,
        ``obs_dtype`` a name): ``TypeError`` for a value of the wrong type, ``ValueError``
        (an :class:`awale.AwaleError` where the engine decides) for a bad value. The opponent,
        seat, opening and illegal-action policy are checked by the simulator that
        :meth:`batch` builds."""
        rules = rules_of(self.rules)
        obs = _check_str("obs", self.obs)
        obs_dtype = dtype_name(self.obs_dtype)
        rules.obs_dim(obs)  # the encoding exists
        return dataclasses.replace(
            self,
            rules=rules,
            opponent=check_opponent(self.opponent),
            learner_seat=_check_int("learner_seat", self.learner_seat),
            obs=obs,
            obs_dtype=obs_dtype,
            illegal=_check_str("illegal", self.illegal),
            render_mode=check_render_mode(self.render_mode, list(render_modes)),
            copy=bool(self.copy),
            obs_mode=check_obs_mode(self.obs_mode),
        )

    def batch(
        self, num_boards: int, reset_mode: str, *, threads: int = 1, seed: Optional[int] = None
    ) -> "_core.Batch":
        """The simulator of these settings (a random seed when ``seed`` is None)."""
        return _core.Batch(
            self.rules,
            num_boards,
            obs=self.obs,
            obs_dtype=self.obs_dtype,
            reset_mode=reset_mode,
            opponent=self.opponent,
            learner_seat=self.learner_seat,
            opening=self.opening,
            illegal=self.illegal,
            threads=threads,
            seed=entropy_seed() if seed is None else seed,
        )

    def observation_space(self) -> Union[spaces.Box, spaces.Dict]:
        """One board's observation space: the array, or with ``obs_mode="dict"``
        ``Dict(observation=<the array's Box>, action_mask=Box(0, 1, (houses,), int8))``."""
        assert isinstance(self.rules, _core.Rules), "validate() first"
        box = observation_box(self.rules, self.obs, self.obs_dtype)
        if self.obs_mode == "array":
            return box
        mask = spaces.Box(low=0, high=1, shape=(self.rules.houses,), dtype=np.int8)
        return spaces.Dict({"observation": box, "action_mask": mask})

    def action_space(self) -> spaces.Discrete:
        """One board's action space: a house of the mover's row."""
        assert isinstance(self.rules, _core.Rules), "validate() first"
        return spaces.Discrete(self.rules.houses)


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


#: The observation layouts: ``"array"`` (the encoding alone; the mask is in ``info``) and
#: ``"dict"`` (``{"observation", "action_mask"}``, as RLlib's and TorchRL's masked models read).
OBS_MODES = ("array", "dict")


def check_obs_mode(obs_mode: Any) -> str:
    if not isinstance(obs_mode, str):
        raise TypeError(f"obs_mode must be a str, got {type(obs_mode).__name__}")
    if obs_mode not in OBS_MODES:
        raise ValueError(f"obs_mode must be one of {', '.join(OBS_MODES)}, got {obs_mode!r}")
    return obs_mode


def observation_box(rules: _core.Rules, obs: str, obs_dtype: str) -> spaces.Box:
    """The space of one board's observation: raw seed counts and 0/1 slots, all within
    0..total_seeds."""
    dtype = np.dtype(obs_dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.uint8)):
        raise ValueError(f"observation dtype must be 'float32' or 'uint8', got '{obs_dtype}'")
    dim = rules.obs_dim(obs)
    return spaces.Box(low=0, high=rules.total_seeds, shape=(dim,), dtype=dtype)


def dtype_name(obs_dtype: Any) -> str:
    """'float32' or 'uint8' from a name or a NumPy dtype-like."""
    try:
        name = np.dtype(obs_dtype).name
    except TypeError:
        raise ValueError(
            f"observation dtype must be 'float32' or 'uint8', got {obs_dtype!r}"
        ) from None
    if name not in ("float32", "uint8"):
        raise ValueError(f"observation dtype must be 'float32' or 'uint8', got '{name}'")
    return name


def action_index(action: Any, houses: int) -> int:
    """One action (a house index) as an int: ints, NumPy integers and integer arrays of one
    element; TypeError for other types, ValueError when out of range."""
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
        raise ValueError(f"action {value} is out of range: the houses are 0..{houses - 1}")
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
    """One uniformly random legal action per row of a ``(n, houses)`` 0/1 mask (action 0 on
    an all-zero row), vectorised: ``envs.step(sample_legal(info["action_mask"], rng))``."""
    mask = np.asarray(mask)
    if mask.ndim == 1:
        return sample_legal(mask[None, :], rng)[0]
    n, houses = mask.shape
    if n >= 256 and houses <= 6 and mask.dtype.itemsize == 1:
        # Large batches: the mask's bits pick a row of a table of uniform picks.
        index = mask.view(np.uint8) @ _ROW_OFFSETS[:houses]
        index += rng.integers(0, _TABLE_WIDTH, n, dtype=np.uint16)
        return _table(houses)[index]
    return (rng.random(mask.shape) * (mask > 0)).argmax(axis=1)

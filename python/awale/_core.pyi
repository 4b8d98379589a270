"""Type stubs of the Rust extension module ``awale._core``.

Every error of the engine is raised as a subclass of :class:`AwaleError` (a ``ValueError``)
with the engine's message and the error's fields as attributes (None where the error has no
such field); arguments of the wrong type raise ``TypeError``.
"""

# Postponed annotations: the reference (scripts/reference_python.py, pdoc) executes this file.
from __future__ import annotations

import os
from typing import (
    Any,
    Callable,
    ClassVar,
    Literal,
    Optional,
    Sequence,
    SupportsIndex,
    Tuple,
    TypedDict,
    Union,
    final,
)

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "PRESETS",
    "MAX_BOARDS",
    "MAX_THREADS",
    "Rules",
    "State",
    "Game",
    "Batch",
    "EnvOption",
    "env_options",
    "check_env_options",
    "EnvSpaces",
    "env_spaces",
    "Tablebase",
    "Network",
    "AwaleError",
    "RulesError",
    "IllegalActionError",
    "GameOverError",
    "ParseError",
    "ConfigError",
    "AgentError",
    "TournamentError",
    "TrainingError",
    "HAS_TRAINER",
    "SelfPlayWorker",
    "train",
    "train_config",
    "default_run_folder",
    "worker_shards",
    "checkpoint_info",
    "presets",
    "preset_summary",
    "input_scale",
    "parse_position",
    "run_tournament",
    "_agent_form",
    "_agent_move",
    "run_match",
    "run_scorecard",
    "scorecard_markdown",
    "baseline_manifests",
    "run_ladder",
    "main",
    "search",
    "SearchResult",
    "SelfPlay",
    "SearchAgent",
    "Agent",
    "network_template",
]

__version__: str
#: The preset names: abapa, awale, wari, openspiel, oware2, oware3, oware4, oware6.
PRESETS: list[str]
MAX_BOARDS: int
MAX_THREADS: int

_RulesArg = Union[str, "Rules"]
_Opening = Union[int, Tuple[int, int], None]
_ObsDtype = Literal["float32", "uint8"]  # accepted: these names (also "f4", "u1")

class _GameRun(TypedDict):
    """The game run of a tournament, match or ladder (the Rust ``GameRunConfig``), as
    ``awale.tournament._game_run`` builds it from the keywords of the same names."""

    games: int
    openings: int
    seed: int
    threads: int
    max_plies: int
    limit: Optional[int]
    shard: Optional[Tuple[int, int]]

class AwaleError(ValueError):
    """Base class of every error the awale engine reports."""

    #: The batch board the error is about (None outside a batch).
    board: Optional[int]
    #: The refused action (a house index, as given).
    action: Optional[int]
    #: The player who moved (single games).
    player: Optional[int]
    #: Why the input was refused.
    reason: Optional[str]
    #: The bad rules option.
    option: Optional[str]
    #: The text that did not parse.
    text: Optional[str]
    #: The agent spec that was refused.
    spec: Optional[str]
    #: The agent that failed.
    agent: Optional[str]
    #: The file that could not be read or written.
    path: Optional[str]

class RulesError(AwaleError):
    """An unknown preset, a bad rules option or rules that cannot be played."""

class IllegalActionError(AwaleError):
    """An action that is not a legal move (out of the houses ``0..h-1``, or not legal in the
    position): ``.action``, ``.reason``, and ``.board`` (batch) or ``.player`` (game)."""

class GameOverError(AwaleError):
    """A move on a game, or a batch board (``.board``), whose episode is over."""

class ParseError(AwaleError):
    """A position, move or game record that cannot be parsed (``.text``, ``.reason``)."""

class ConfigError(AwaleError):
    """A bad setting: batch configuration or buffers, or an agent spec (``.spec``)."""

class AgentError(AwaleError):
    """An agent failed to choose a move (``.agent``, ``.reason``)."""

class TournamentError(AwaleError):
    """A tournament that cannot be set up, resumed or rated."""

class TrainingError(AwaleError):
    """A training checkpoint, network or self-play worker message that cannot be used."""

#: Whether this build has the self-play trainer (cargo feature ``train``; the default wheel
#: has not: :func:`train` and :class:`SelfPlayWorker` then raise ``NotImplementedError``).
HAS_TRAINER: bool

@final
class SelfPlayWorker:
    """A worker of a distributed self-play run: plays the shards ``(start, end)`` of the run's
    config (TOML text or a path; ``selfplay.threads`` is the run's shard count) with the
    weights the learner sends. See :mod:`awale.ray_selfplay`."""

    def __new__(cls, config: str, shards: Tuple[int, int]) -> SelfPlayWorker: ...
    @property
    def shards(self) -> Tuple[int, int]: ...
    def start(self, games: bytes) -> None:
        """Takes the games in progress to play on from: the run's, or those of a part of the
        same shards (:meth:`games`, e.g. of a worker that died)."""
    def play(self, weights: bytes, version: int, positions: int) -> bytes:
        """Plays the shards' share of ``positions`` with ``weights``; the report for the
        learner."""
    def games(self) -> bytes:
        """Its shards' games in progress: the learner keeps them for its checkpoints and to
        replay the shards elsewhere if this worker is lost."""

def train(
    config: str,
    out: Optional[str],
    *,
    fresh: bool = False,
    progress: bool = False,
    final_eval: bool = True,
    selfplay: Any = None,
) -> dict[str, Any]:
    """Runs or resumes a training run (``config``: TOML text or a path) in ``out`` (default
    ``runs/NAME``), as ``awale train``; ``selfplay``: workers that play the self-play (see
    :func:`awale.training.train`)."""

def train_config(path: Optional[str] = None, overrides: Sequence[str] = ...) -> str:
    """The effective training config as TOML: ``path`` (a file, or a built-in recipe's name such
    as ``"abapa"`` when no such file exists; default the built-in tiny config) with
    ``"section.key=value"`` overrides applied, checked."""

def default_run_folder(config: str) -> str:
    """The folder a run of ``config`` (TOML text or a path) goes to by default: ``runs/NAME``."""

def worker_shards(worker: int, workers: int, shards: int) -> Tuple[int, int]:
    """The shards ``(start, end)`` of worker ``worker`` of ``workers`` in a run of ``shards``."""

def checkpoint_info(path: Union[str, os.PathLike[str]]) -> dict[str, Any]:
    """A checkpoint's name, rules, fingerprint, counters and a CRC-32 of each part."""

@final
class EnvOption:
    """One option of the engine's option table: every option of :class:`Batch` and of the
    Python environments (``awale.EnvSpec``'s fields and the environments' keywords come from
    it)."""

    @property
    def key(self) -> str: ...
    @property
    def kind(self) -> str:
        """``"rules"``, ``"int"``, ``"seed"``, ``"str"``, ``"optional_str"``, ``"bool"``,
        ``"opening"``, ``"opponent"`` or ``"dtype"``."""
    @property
    def annotation(self) -> str:
        """The Python type it takes, as text."""
    @property
    def default(self) -> Any:
        """``Batch``'s default."""
    @property
    def env_default(self) -> Any:
        """The environments' default."""
    @property
    def choices(self) -> list[str]: ...
    @property
    def flavours(self) -> list[str]:
        """The API flavours that take it: ``"batch"``, ``"env"``, ``"vector"``, ``"sb3"``,
        ``"pettingzoo"``, ``"rllib"``."""
    @property
    def help(self) -> str: ...
    def default_for(self, flavour: str) -> Any: ...

def env_options() -> list[EnvOption]:
    """The option table, in table order."""

def check_env_options(values: dict[str, Any], flavour: str = "spec") -> dict[str, Any]:
    """``values`` checked through the table (and the batch's checks across them) and
    normalised; ``TypeError`` for a wrong type or unknown key, ``ValueError`` for a bad
    value."""

@final
class EnvSpaces:
    """One board's spaces as the engine declares them, beside the encodings
    (``ObsSpec``/``ActionSpec`` in ``src/batch/observation.rs``): the Python envs build their
    Gymnasium spaces from it. Seed counts lie within ``0..total_seeds``, one-hot and
    thermometer slots and the seat one-hot within ``0..1``; under ``obs_scale="network"``
    every bound is multiplied by its input scale."""

    @property
    def obs_shape(self) -> tuple[int]:
        """``(obs_dim,)``."""
    @property
    def obs_dtype(self) -> _ObsDtype: ...
    @property
    def obs_low(self) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """The least value of each element (an array of ``obs_dtype``)."""
    @property
    def obs_high(self) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """The greatest value of each element (an array of ``obs_dtype``)."""
    @property
    def n_actions(self) -> int:
        """The number of actions (the houses of a row); the legal-action mask has one ``int8``
        0/1 per action."""

def env_spaces(
    *,
    rules: Optional[_RulesArg] = ...,
    obs: str = ...,
    obs_dtype: Union[_ObsDtype, np.dtype[Any], type] = ...,
    obs_scale: Literal["raw", "network"] = ...,
) -> EnvSpaces:
    """One board's spaces under the options that shape them (``Batch``'s defaults);
    ``TypeError`` for another keyword or a wrong type, ``ValueError`` for a bad value
    (``obs_scale="network"`` needs ``obs_dtype="float32"``)."""

def presets() -> list[tuple[str, str, str]]:
    """The preset table as ``(spec, title, summary)``: the rules spec, the title of the
    Gymnasium id (``awale/<title>-v0``) and a one-line description, in display order."""

def preset_summary(name: str) -> str:
    """A one-line description of a preset and its source."""

def main(argv: list[str]) -> int:
    """Runs the ``awale`` command line on ``argv`` (the arguments after the program name) and
    returns its exit status (0 on success, 2 on a usage error or a failed command, 141 when
    stdout is closed under it, as by ``| head -1``). Built with the ``cli`` feature, as the
    wheel is; used by the ``awale`` console script."""

def parse_position(text: str) -> State:
    """Parses a position in position notation (``"abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"``; a
    lone rules spec gives the start position)."""

def run_tournament(
    agents: Union[str, Sequence[Any]],
    *,
    rules: _RulesArg,
    run: _GameRun,
    gauntlet: Optional[Any],
    anchor: Optional[str],
    anchor_rating: float,
    out: Optional[str],
    obs: str,
    progress: Optional[Callable[[int, int], Any]],
) -> str:
    """The engine of ``awale.tournament`` (use that): plays the tournament with the GIL
    released (Python callable agents ``(obs, mask) -> int`` are called with it held) and returns
    the result as JSON text, which ``awale.TournamentResult`` reads. Each callable is called by
    one thread at a time unless it has ``thread_safe = True``. ``progress`` is called with
    ``(games_done, games_scheduled)``; returning ``False`` stops the run (the result so far is
    returned, ``"stopped": true``), raising stops it and raises. A callable that raises gives a
    ``RuntimeError`` (its exception as the cause), one that returns a non-int a ``TypeError``, an
    illegal house a ``ValueError``; each names the agent, the game and the ply (of the failing
    game with the lowest index)."""

def _agent_form(agent: Any, what: str) -> str:
    """How a Python agent plays: ``"select"``, ``"state"`` or ``"obs_mask"`` (deprecated,
    warns); ``TypeError`` when it is not an agent."""

def _agent_move(agent: Any, form: str, state: State, what: str) -> int:
    """The move of ``agent`` (played as ``form``) at ``state``, checked legal."""

def run_match(
    a: Any,
    b: Any,
    *,
    rules: _RulesArg,
    run: _GameRun,
    sprt: Optional[str],
    out: Optional[str],
    obs: str,
    progress: Optional[Callable[[int, int], Any]],
) -> str:
    """The engine of ``awale.match`` (use that): plays a match (fixed games or an SPRT) and
    returns its report as JSON text, which ``awale.MatchResult`` reads."""

def run_scorecard(
    agent: Any,
    *,
    rules: str,
    out: Optional[str],
    threads: int,
    tables: Optional[str],
    protocol: Optional[str],
    obs: str,
    progress: Optional[Callable[[int, int], Any]],
) -> str:
    """The engine of ``awale.scorecard`` (use that): rates the agent with the scorecard
    protocol and returns the card as JSON text."""

def scorecard_markdown(card: str) -> str:
    """The Markdown page of a scorecard given as JSON text (``Scorecard.to_markdown``)."""

def baseline_manifests() -> str:
    """The manifests of the shipped baseline networks as JSON text (``awale.baselines``)."""

def run_ladder(
    runs: Sequence[Union[str, os.PathLike[str]]],
    *,
    anchors: Union[str, Sequence[Any]],
    out: Union[str, os.PathLike[str]],
    sims: int,
    run: _GameRun,
    progress: Optional[Callable[[int, int], Any]],
) -> str:
    """The engine of ``awale.ladder`` (use that; needs the trainer build): rates the
    generations of ``runs`` and the anchors, writes the ladder's files in ``out`` and returns
    its report as JSON text."""

@final
class Rules:
    """A rule set from a spec: a preset name and options, e.g. ``"abapa"``,
    ``"oware:players=3"``, ``"wari:max_plies=300,grand_slam=forbidden"``.

    Hashable, comparable and picklable; ``str()`` gives the shortest spec."""

    def __new__(cls, spec: str = "abapa") -> Rules: ...
    @property
    def spec(self) -> str:
        """The shortest spec that parses back to these rules."""
    @property
    def name(self) -> str:
        """The base name: the preset, with the player count for owaré (``"oware3"``)."""
    @property
    def preset(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def houses(self) -> int:
        """Houses per player: the number of actions."""
    @property
    def pits(self) -> int: ...
    @property
    def seeds(self) -> int:
        """Seeds per house at the start."""
    @property
    def total_seeds(self) -> int: ...
    @property
    def max_plies(self) -> int:
        """The truncation limit in plies (0: none)."""
    @property
    def win_threshold(self) -> int: ...
    def options(self) -> dict[str, str]:
        """Every option as spec strings, in a fixed order."""
    def obs_dim(self, encoding: str = "compact") -> int:
        """Observation values per board under an encoding."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class State:
    """A position: pits, stores, player to move, ply and status."""

    # Compared by value, not hashable (positions are mutable: ``apply``).
    __hash__: ClassVar[None] = None  # type: ignore[assignment]
    def __new__(cls, position: str = "abapa") -> State:
        """Parses position notation (a lone rules spec gives the start position)."""
    @staticmethod
    def initial(rules: Optional[_RulesArg] = None, first: int = 0) -> State:
        """The start position (``first`` moves when the rules draw the first player)."""
    @property
    def rules(self) -> Rules: ...
    @property
    def pits(self) -> list[int]:
        """Seeds per pit; player ``p`` owns pits ``p*houses .. (p+1)*houses``."""
    @property
    def scores(self) -> list[int]:
        """Each player's store."""
    @property
    def to_move(self) -> int: ...
    @property
    def ply(self) -> int: ...
    @property
    def status(self) -> Literal["ongoing", "ended", "truncated"]: ...
    @property
    def end_reason(self) -> Optional[str]:
        """Why the game ended (``"threshold"``, ``"repetition"``, ...) or None."""
    @property
    def is_over(self) -> bool: ...
    def legal_moves(self) -> list[int]: ...
    def legal_mask(self) -> int:
        """Legal moves as bits (bit ``h`` = house ``h``)."""
    def action_mask(self) -> npt.NDArray[np.int8]:
        """Legal moves as ``houses`` zeros and ones."""
    def apply(self, house: SupportsIndex) -> int:
        """Plays ``house`` in place and returns the seeds captured (no repetition history:
        see ``Game``). ``ValueError`` if illegal."""
    def returns(self) -> list[float]:
        """+1 sole winner, 0 tied for first, -1 others; zeros unless the game ended."""
    def winners(self) -> list[int]: ...
    def observation(
        self,
        encoding: str = "compact",
        perspective: Optional[int] = None,
        dtype: str = "float32",
        scale: Literal["raw", "network"] = "raw",
    ) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """The observation as the batch encodes it, seen by the player to move or by
        ``perspective``; ``scale="network"`` times :func:`input_scale` (float32 only)."""
    def render(self) -> str:
        """The ASCII board."""
    def to_text(self) -> str:
        """The position in position notation."""
    def move_text(self, house: SupportsIndex, player: Optional[int] = None) -> str:
        """A move in move notation (``C``, ``f``, ``2C``)."""
    def copy(self) -> State: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: object, /) -> State: ...

@final
class Game:
    """A game: rules, position, repetition history and the moves played, exactly as the batch
    plays each board."""

    def __new__(
        cls,
        rules: Optional[_RulesArg] = None,
        *,
        seed: Optional[int] = None,
        position: Optional[str] = None,
    ) -> Game:
        """A new game of ``rules`` (default abapa); ``seed`` draws a random first player when
        the rules draw one; or a game from ``position`` (position notation)."""
    @staticmethod
    def from_record(text: str) -> Game:
        """Replays a game record (``Game.record()``'s format)."""
    @property
    def rules(self) -> Rules: ...
    @property
    def state(self) -> State:
        """The current position (a copy)."""
    @property
    def start(self) -> State: ...
    @property
    def players(self) -> int: ...
    @property
    def houses(self) -> int: ...
    @property
    def pits(self) -> list[int]: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def to_move(self) -> int: ...
    @property
    def ply(self) -> int: ...
    @property
    def status(self) -> Literal["ongoing", "ended", "truncated"]: ...
    @property
    def end_reason(self) -> Optional[str]: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def moves(self) -> list[int]:
        """The moves played (house indices of the mover's row)."""
    def legal_moves(self) -> list[int]: ...
    def legal_mask(self) -> int: ...
    def action_mask(self) -> npt.NDArray[np.int8]: ...
    def apply(self, house: SupportsIndex) -> int:
        """Plays ``house`` for the player to move; returns the seeds captured. ``ValueError``
        if illegal (nothing changes)."""
    def apply_move(self, text: str) -> int:
        """Plays a move in move notation; returns its house index."""
    def undo(self, plies: int = 1) -> None:
        """Takes back the last ``plies`` moves; ``ValueError`` when fewer were played."""
    def hint(self, move_time_ms: int = 1000) -> dict[str, Any]:
        """The hint for the player to move: alpha-beta depth 8 (MCTS with 2,000 simulations
        with more players) within ``move_time_ms`` (0: no limit): ``house``, ``move``, ``summary``,
        ``value``, ``unit``."""
    def returns(self) -> list[float]: ...
    def winners(self) -> list[int]: ...
    def observation(
        self,
        encoding: str = "compact",
        perspective: Optional[int] = None,
        dtype: str = "float32",
        scale: Literal["raw", "network"] = "raw",
    ) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]: ...
    def render(self) -> str: ...
    def position(self) -> str:
        """The current position in position notation."""
    def record(self) -> str:
        """The game record (tags and moves)."""
    def copy(self) -> Game: ...
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: object, /) -> Game: ...

@final
class Batch:
    """``num_boards`` boards of one rule set stepped by one call (GIL released), writing into
    NumPy arrays owned by the batch and overwritten by every call: copy what you keep.

    Args:
        rules: a spec or ``Rules`` (default abapa).
        num_boards: 1 to ``MAX_BOARDS``.
        obs: ``"compact"``, ``"onehot[:L]"`` or ``"thermometer[:L]"``.
        obs_dtype: ``"float32"`` or ``"uint8"``.
        obs_scale: ``"raw"`` (seed counts, 0/1 slots) or ``"network"`` (times
            :func:`input_scale`: a trained network's input; float32 only).
        reset_mode: ``"next_step"``, ``"same_step"`` or ``"disabled"`` (Gymnasium's modes).
        opponent: None or ``"self"`` (self-play), an agent spec (``"alphabeta:depth=2"``), a
            list of specs (a league: one member drawn per episode, see ``opponent_members``), a
            Python agent (a function ``(State) -> house`` or an object with ``select(state)``,
            as everywhere in awale; called with the GIL, one call at a time; when it fails the
            call that asked raises; an ``awale.Agent`` plays as its spec), ``"random"``, ``"capture"`` (the largest capture) or
            ``"greedy"`` (the tournament's greedy agent: the largest store gain net of the best
            rival's).
        learner_seat: the caller's seat against an opponent.
        opening: random plies at each reset: an int or ``(min, max)``.
        illegal: ``"error"`` (raise) or ``"loss"`` (the offender loses at once).
        seed: the master seed; board ``i`` draws from stream ``i``.
        threads: worker threads (0: one per core); outputs do not depend on it.

    The keywords are the options of :func:`env_options` whose flavours include ``"batch"``;
    an unknown one is a ``TypeError``. A pickle holds every option and a snapshot.
    """

    def __new__(
        cls,
        rules: Optional[_RulesArg] = None,
        num_boards: Optional[int] = None,
        *,
        obs: str = "compact",
        obs_dtype: Union[_ObsDtype, np.dtype[Any], type] = "float32",
        obs_scale: Literal["raw", "network"] = "raw",
        reset_mode: str = "next_step",
        opponent: Union[str, Sequence[str], Callable[[State], int], None] = None,
        learner_seat: Optional[int] = None,
        opening: _Opening = None,
        illegal: str = "error",
        seed: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> Batch: ...
    def step(self, actions: Union[npt.NDArray[np.integer], Sequence[int]]) -> int:
        """One action per board (any integer dtype); returns how many episodes ended.
        The error names the first bad board: :class:`IllegalActionError` (out of range or
        illegal; ``.board``, ``.action``, ``.reason``) or :class:`GameOverError` (over under
        ``disabled``); ``TypeError`` for non-integers. Nothing changes on error."""
    def reset(self, seed: Optional[int] = None) -> None:
        """New episodes everywhere; a seed re-seeds every board's stream first."""
    def reset_where(self, mask: Union[npt.NDArray[np.bool_], Sequence[bool]]) -> None:
        """New episodes where ``mask`` is true; other rows are left as they are."""
    def reset_boards(self, indices: Sequence[int]) -> None: ...
    def observe(self) -> None:
        """Rewrites observations, masks and seats to move from the boards."""
    def snapshot(self) -> str:
        """Everything (positions, histories, random streams) as JSON, for ``restore``."""
    def restore(self, snapshot: str) -> None: ...
    def state(self, i: int) -> State: ...
    def render(self, i: int) -> str: ...
    @property
    def obs(self) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """``(N, obs_dim)``."""
    @property
    def final_obs(self) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]:
        """``(N, obs_dim)``: same-step resets' final observations (rows of ended boards)."""
    @property
    def mask(self) -> npt.NDArray[np.int8]:
        """``(N, houses)``; boards waiting for a next-step reset allow every action."""
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """``(N, players)``, seat order."""
    @property
    def reward(self) -> npt.NDArray[np.float32]:
        """``(N,)``: the learner seat's reward, or in self-play the reward of the seat that
        moved."""
    @property
    def terminated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def truncated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def to_move(self) -> npt.NDArray[np.uint8]: ...
    @property
    def episode_length(self) -> npt.NDArray[np.uint32]:
        """Caller steps of the episodes that ended on the last step (0 elsewhere)."""
    @property
    def episode_scores(self) -> npt.NDArray[np.uint8]:
        """``(N, players)`` final stores of the episodes that ended (0 elsewhere)."""
    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """Boards whose episode ended and that wait for a reset (a new array)."""
    @property
    def num_boards(self) -> int: ...
    @property
    def obs_dim(self) -> int: ...
    @property
    def action_dim(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def obs_encoding(self) -> str: ...
    @property
    def obs_dtype(self) -> _ObsDtype: ...
    @property
    def obs_scale(self) -> Literal["raw", "network"]: ...
    @property
    def spaces(self) -> EnvSpaces:
        """One board's spaces, as ``awale._core.env_spaces`` gives them for this batch's options."""
    @property
    def reset_mode(self) -> Literal["next_step", "same_step", "disabled"]: ...
    @property
    def opponent(self) -> str: ...
    @property
    def opponent_members(self) -> np.ndarray: ...
    @property
    def learner_seat(self) -> Optional[int]: ...
    @property
    def opening(self) -> Tuple[int, int]: ...
    @property
    def illegal(self) -> Literal["error", "loss"]: ...
    @property
    def seed(self) -> int: ...
    @property
    def threads(self) -> int: ...

@final
class Network:
    """A trained policy/value network: a checkpoint or generation of ``awale train``, or a
    safetensors network (``export_safetensors``). Needs a build with the trainer (the wheel
    has it; otherwise ``NotImplementedError``). A file that is not a network raises
    ``TrainingError`` (a ``ValueError``), a missing one ``OSError``.

    The network's input is the observation of its ``encoding``, seen by the player to move,
    times ``input_scale`` (what ``encode`` writes, and what an env with
    ``obs=<encoding>, obs_scale="network"`` emits); see docs/observations.md.
    """

    def __new__(cls, path: Union[str, os.PathLike[str]]) -> Network: ...
    @staticmethod
    def baseline(name: str) -> Network:
        """A network shipped with awale: ``"abapa"`` (the family's latest version) or
        ``"abapa-v1"``; its ``path`` is ``"baseline:NAME"``. ValueError lists the names."""
    @property
    def path(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def encoding(self) -> str:
        """``"compact"``, ``"onehot:L"`` or ``"thermometer:L"``."""
    @property
    def input_dim(self) -> int: ...
    @property
    def hidden(self) -> list[int]: ...
    @property
    def actions(self) -> int:
        """Policy logits per position: the mover's houses."""
    @property
    def values(self) -> int:
        """Value outputs: 1 for two players (the mover's), else one per player, mover first."""
    @property
    def input_scale(self) -> npt.NDArray[np.float32]: ...
    @property
    def config(self) -> str:
        """The training config (TOML) it was trained under."""
    @property
    def play(self) -> dict[str, Any]:
        """How it plays as ``nn:path=FILE`` (``nn:baseline=NAME``) unless the spec says
        otherwise: ``sims``, ``search`` (``"gumbel"``, ``"puct"``, ``"uct"``), ``reuse_tree``
        (the search keeps its tree from move to move) and ``from_file``
        (True for a baseline or a file exported from one, which carry their manifest's
        settings; otherwise 64 simulations with the training config's ``play_kind``)."""
    def header(self) -> dict[str, Any]:
        """The JSON header of its safetensors export (format, version, rules, encoding,
        input, hidden, actions, values, input_scale)."""
    def predict(
        self, observations: npt.NDArray[np.float32]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``(logits, values)`` of ``(batch, input_dim)`` float32 inputs: ``(batch, actions)``
        logits (illegal houses not masked) and ``(batch, values)`` in (-1, 1) for the mover;
        1-D for a 1-D input. The GIL is released while the network runs."""
    def encode(self, states: Union[State, Sequence[State]]) -> npt.NDArray[np.float32]:
        """The network's input for a State ``(input_dim,)`` or a sequence ``(n, input_dim)``."""
    def export_safetensors(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the weights (PyTorch ``nn.Linear`` layout) with the header, the config and
        the play settings (a baseline's) in the metadata; ``awale.torch.network(path)`` reads
        it, ``nn:path=FILE`` plays it as the network plays (a baseline as ``nn:baseline=``)."""
    def __repr__(self) -> str: ...

@final
class Tablebase:
    """An endgame table: for every position with at most ``max_seeds`` seeds on the board, the
    seeds the player to move gets under perfect play (``awale tablebase build`` writes them).

    Args:
        dir: the folder holding the layer files (None: ``tablebases``).
        rules: a spec or ``Rules`` of a 2-player single-sowing game (default abapa).
        max_seeds: open layers ``0..=max_seeds`` (default: every layer found).

    A corrupt, truncated or foreign file raises ``ConfigError`` (a ``ValueError``).
    """

    def __new__(
        cls,
        dir: Union[str, os.PathLike[str], None] = None,
        rules: Optional[_RulesArg] = None,
        max_seeds: Optional[int] = None,
    ) -> Tablebase: ...
    @staticmethod
    def build(
        rules: Optional[_RulesArg] = None,
        max_seeds: int = 12,
        threads: int = 0,
        out: Union[str, os.PathLike[str], None] = None,
    ) -> Tablebase:
        """Builds the table (GIL released) and saves it into ``out`` when given."""
    @property
    def rules(self) -> Rules: ...
    @property
    def max_seeds(self) -> int: ...
    def value(self, position: Union[State, str]) -> Optional[int]:
        """Seeds the mover gets under perfect play; None when over or outside the table."""
    def probe(self, position: Union[State, str]) -> dict[str, Any]:
        """``{"seeds", "value", "cycle", "moves": {house: value}, "best_moves": [...]}``."""
    def endgame_positions(
        self, count: int = 1000, seed: int = 1, max_seeds: Optional[int] = None
    ) -> list[State]:
        """A fixed, seeded set of positions with few seeds from games between built-in agents."""
    def accuracy(self, choose: Any, positions: Sequence[Union[State, str]]) -> dict[str, Any]:
        """``{"positions", "optimal", "optimal_share", "mean_loss", "result_share"}`` of the
        agent ``choose``: a function of a ``State`` returning a house, or an object with
        ``select(state)``."""
    def __repr__(self) -> str: ...

def input_scale(rules: _RulesArg, encoding: str = "compact") -> npt.NDArray[np.float32]:
    """The per-feature scales from the raw observation of ``encoding`` to a trained network's
    input (what ``obs_scale="network"`` multiplies by): pits of the compact encoding over twice
    the seeds per house, one-hot/thermometer slots as they are, stores over a player's equal
    share of the seeds, the seat one-hot as it is."""

#: An evaluator of ``awale.search``: ``(obs float32[N, D], mask bool[N, A]) -> (logits[N, A],
#: values[N] or [N, players])``, an ``awale.Network``, ``"playout"`` or ``"uniform"``.
_Evaluator = Union[
    Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], Tuple[Any, Any]],
    "Network",
    str,
]
#: The positions of ``awale.search``: a State, a sequence of States, a Batch or a vector env.
_Positions = Union["State", Sequence["State"], "Batch", Any]

@final
class SearchResult:
    """What ``search`` found, one row per position (NumPy arrays; ``A`` the houses)."""

    @property
    def visits(self) -> npt.NDArray[np.int32]:
        """``(N, A)``: visits of each root action."""
    @property
    def policy(self) -> npt.NDArray[np.float32]:
        """``(N, A)``: the policy target (Gumbel's improved policy; PUCT's and UCT's visit
        distribution), 0 at illegal actions."""
    @property
    def action(self) -> npt.NDArray[np.int64]:
        """``(N,)``: the action the search chose."""
    @property
    def value(self) -> npt.NDArray[np.float32]:
        """``(N,)``: the root's mean value for the player to move."""
    @property
    def values(self) -> npt.NDArray[np.float32]:
        """``(N, players)``: every player's mean root value, the mover first."""
    @property
    def legal(self) -> npt.NDArray[np.bool_]:
        """``(N, A)``: the legal actions."""
    @property
    def evaluations(self) -> int:
        """Positions evaluated."""
    @property
    def batches(self) -> int:
        """Evaluator calls."""
    def __len__(self) -> int: ...

def search(
    states: _Positions,
    evaluate: _Evaluator,
    sims: int = 64,
    *,
    seed: Optional[int] = None,
    noise: bool = False,
    temperature: float = 1.0,
    eval_batch: Optional[int] = None,
    encoding: Optional[str] = None,
    obs_scale: str = "network",
    batch_size: Optional[int] = None,
    **options: Any,
) -> SearchResult:
    """Searches every position at once with the Rust trainer's guided search, one tree per
    position, the leaves of all trees evaluated together (at most ``eval_batch`` per call;
    default all; ``batch_size``, its former name, still works with a
    ``DeprecationWarning``). ``evaluate``: a callable ``(obs, mask) -> (logits, values)`` (obs in
    ``encoding``, default ``"compact"``, seen by the mover, times the network's input scales
    unless ``obs_scale="raw"``; values the mover's, or every player's mover first, in [-1, 1]),
    an ``awale.Network`` (run in Rust), ``"playout"`` (one random playout per leaf) or
    ``"uniform"``. ``options``: keys of the trainer's ``[search]`` section (``kind="gumbel" |
    "puct" | "uct"``, ``c_puct``, ``dirichlet_alpha``, ``dirichlet_fraction``,
    ``gumbel_actions``, ``gumbel_c_visit``, ``gumbel_c_scale``, ``c_uct``). ``noise`` turns on
    the root noise (Dirichlet, or Gumbel noise scaled by ``temperature``). Reproducible from
    ``seed``, whatever ``eval_batch``, with a deterministic evaluator."""

@final
class SelfPlay:
    """Self-play games kept in flight with ``search``'s tree and an evaluator, handing back
    training arrays. Options: the keys of the trainer's ``[search]`` section
    (``sims``, ``fast_sims``, ``full_search_prob``, ...), of ``[selfplay]``
    (``max_plies``, ``temperature``, ``temperature_plies``, ``temperature_final``,
    ``random_opening_plies``, ``eval_batch``) and ``search_value_mix``.

    ``eval_batch`` says how the leaves reach ``evaluate``. 0 (the default): each of the
    ``threads`` calls it with its own games' leaves and waits for it (a thread-safe callable is
    called by several threads at once), right for an evaluator that computes on the CPU.
    ``N`` >= 1: the leaves of every thread are gathered into calls of at most ``N`` on
    evaluator threads of their own (up to 4 for a thread-safe callable, else 1), each thread's
    games in as many groups as calls a round (at least two batches in flight), so that no
    search thread waits for it and the calls are few and large: right for a GPU
    (``awale.torch.Evaluator``) or any evaluator with a fixed cost per call; ``games // 2``
    makes two calls a round, ``games // 4`` four (more time for each call to hide behind the
    search). The GIL is taken only to call ``evaluate``.

    Reproducible from ``seed`` for a given ``threads``; with ``eval_batch`` >= 1 the games are
    the same whatever ``N`` (they differ from those of 0: every thread then plays until all
    have made their share). Pickles as its settings: the copy starts its games afresh (the
    evaluator must pickle too)."""

    def __new__(
        cls,
        rules: _RulesArg,
        evaluate: _Evaluator,
        *,
        games: int = 128,
        threads: int = 1,
        seed: Optional[int] = None,
        encoding: Optional[str] = None,
        obs_scale: str = "network",
        **options: Any,
    ) -> SelfPlay: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def encoding(self) -> str: ...
    @property
    def threads(self) -> int: ...
    @property
    def games_started(self) -> int: ...
    @property
    def eval_batch(self) -> int:
        """Leaves per evaluator call at most, every thread's gathered (0: per thread)."""
    @property
    def config(self) -> str:
        """The settings as the trainer's config (TOML)."""
    def play(self, positions: int) -> dict[str, Any]:
        """Plays until at least ``positions`` new samples: ``obs`` float32 (M, D) (the
        evaluator's input), ``mask`` bool (M, A), ``policy`` float32 (M, A) (the search's
        target), ``value`` float32 (M, players) (the game's result for every player, mover
        first, mixed with the search value by ``search_value_mix``), ``score`` float32 (M,)
        (final stores, the mover's minus the others' mean, over the seeds) and ``stats``:
        ``games``, ``positions``, ``moves``, ``evaluations`` (leaves evaluated), ``batches``
        (evaluator calls), ``mean_batch``, ``max_batch``, ``plies``, ``first_player_wins``,
        ``draws``, ``truncated``, and with ``eval_batch`` >= 1 ``evaluator_secs`` (time inside
        the evaluator's calls) and ``evaluator_busy`` (that time's share of the call, 0 to 1:
        how busy a GPU behind it was kept)."""

@final
class SearchAgent:
    """An agent for ``awale.tournament`` and ``awale.match``: the search's move with an
    evaluator (as ``search``'s), ``sims`` simulations, no noise."""

    def __new__(
        cls,
        evaluate: _Evaluator,
        sims: int = 64,
        *,
        name: Optional[str] = None,
        seed: Optional[int] = None,
        encoding: Optional[str] = None,
        obs_scale: str = "network",
        **options: Any,
    ) -> SearchAgent: ...
    @property
    def name(self) -> str: ...
    @property
    def sims(self) -> int: ...
    @property
    def config(self) -> str: ...
    def analyse(self, state: State) -> SearchResult: ...
    def select(self, state: State) -> int: ...

@final
class Agent:
    """Any agent spec as an object: built-in (``"alphabeta:depth=8"``), a network
    (``"nn:baseline=abapa"``), an engine in another process (``"engine:cmd=PATH"``), for games
    under one rule set. ``select`` gives its move in a position, ``thoughts`` what it found.
    Pickled as its spec and rules; in ``awale.tournament`` its spec is played."""

    def __new__(
        cls, spec: str, rules: Optional[_RulesArg] = None, *, seed: Optional[int] = None
    ) -> Agent: ...
    @property
    def name(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def forfeits(self) -> bool: ...
    @property
    def thoughts(self) -> Optional[dict[str, Any]]: ...
    def select(self, position: Union[Game, State]) -> int: ...
    def reset(self, seed: int) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Agent: ...
    def __exit__(self, _t: Any, _v: Any, _tb: Any) -> bool: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str, str]]: ...

def network_template(
    rules: _RulesArg, encoding: str = "onehot:16", hidden: Sequence[int] = ...
) -> Tuple[str, str]:
    """The header (JSON) and training config (TOML) of a new network (trainer build)."""

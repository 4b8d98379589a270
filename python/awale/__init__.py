"""Awalé-family mancala games (Oware/Abapa, Awalé, Wari, multi-player Owaré) for
reinforcement learning, on a vectorised Rust simulator.

- :class:`AwaleEnv`: one board as a ``gymnasium.Env`` (against a built-in opponent or in
  self-play), registered as ``awale/Abapa-v0``, ``awale/Awale-v0``, ``awale/Wari-v0``,
  ``awale/OpenSpiel-v0``, ``awale/Oware2-v0`` ... ``awale/Oware6-v0``.
- :class:`AwaleVectorEnv`: ``N`` boards as a native ``gymnasium.vector.VectorEnv`` (one Rust
  call per step; ``gymnasium.make_vec(id, n, vectorization_mode="vector_entry_point")``).
- :mod:`awale.pettingzoo`: the 2-6 player games as PettingZoo AEC environments.
- :mod:`awale.sb3`: a Stable-Baselines3 ``VecEnv`` over the batch (for sb3-contrib's
  ``MaskablePPO``).
- :class:`Game`, :class:`State`, :class:`Rules`, :class:`Batch`: the Rust engine itself.
- :class:`Network`: a trained network (checkpoint, generation or safetensors file):
  ``predict`` (policy logits and values of a NumPy batch), ``encode`` (its input for positions),
  ``export_safetensors``; :mod:`awale.torch` builds the same network as a ``torch.nn.Module``.
- :func:`env_options`: the option table every environment takes (``obs``, ``opponent``,
  ``autoreset_mode``, ...), one :class:`EnvOption` (key, default, choices, help) each.
- :class:`AwaleError` (a ``ValueError``) and its subclasses :class:`IllegalActionError`,
  :class:`RulesError`, :class:`ParseError`, :class:`GameOverError`, :class:`ConfigError`,
  :class:`AgentError`, :class:`TournamentError`, :class:`TrainingError`: the engine's errors,
  typed.
- :mod:`awale.training`: the Rust self-play trainer (``awale train``) from Python, and
  :mod:`awale.ray_selfplay`, its self-play on Ray actors (both need a build with the trainer).
- :func:`search`: the Rust trainer's guided search (Gumbel, PUCT or UCT) over a batch of
  positions with any evaluator, a Python ``(obs, mask) -> (logits, values)`` included, one
  call per batch of leaves; :class:`SelfPlay` keeps self-play games in flight with it and hands
  back training arrays; :class:`SearchAgent` plays with it in tournaments, matches and
  :func:`play` (``awale.recipes.az_torch`` is AlphaZero in PyTorch on these).
- :class:`Agent`: any agent spec (``"alphabeta:depth=8"``, ``"nn:baseline=abapa"``, an engine
  in another process ``"engine:cmd=PATH"``) asked for its move in any position, with what it
  found (``agent.select(game)``, ``agent.thoughts``).
- :func:`tournament`: Elo-rated tournaments between built-in agents (``"alphabeta:depth=4"``),
  engines in other processes (``"engine:cmd=PATH"``, docs/engines.md) and Python agents,
  returning a :class:`TournamentResult`.
- One Python agent everywhere (:mod:`awale.agents`): an object with ``select(state) -> house``
  or a function of a :class:`State` plays in tournaments, matches, scorecards, as an env's
  ``opponent``, in :meth:`Tablebase.accuracy` and :func:`play`; :class:`ObservationAgent`
  wraps a policy trained on observations (``awale.sb3.agent(model)`` for an SB3 model).
- :func:`match`: two agents on paired openings, a fixed number of games or fishtest's sequential
  probability ratio test (stops when it knows); :func:`ladder`: the network generations of
  training runs and anchors on one Elo scale (trainer build).

Quick start::

    import gymnasium as gym, numpy as np, awale
    envs = gym.make_vec("awale/Abapa-v0", num_envs=64, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=0)
    actions = awale.sample_legal(info["action_mask"], np.random.default_rng())  # random legal
    obs, reward, terminated, truncated, info = envs.step(actions)
"""

from awale._common import sample_legal
from awale._core import (
    PRESETS,
    Agent,
    AgentError,
    AwaleError,
    Batch,
    ConfigError,
    EnvOption,
    Game,
    GameOverError,
    IllegalActionError,
    Network,
    ParseError,
    Rules,
    RulesError,
    SearchAgent,
    SearchResult,
    SelfPlay,
    State,
    Tablebase,
    TournamentError,
    TrainingError,
    __version__,
    env_options,
    input_scale,
    parse_position,
    search,
)
from awale._common import EnvSpec
from awale.agents import ObservationAgent
from awale.env import AwaleEnv
from awale.registration import ENV_IDS, register_envs
from awale.experiments import LadderResult, MatchResult, ladder, match
from awale.tournament import TournamentResult, tournament
from awale.scorecard import Scorecard, baselines, scorecard
from awale.vector import AwaleVectorEnv
from awale.play import play

register_envs()


def __getattr__(name: str) -> object:
    """``awale.pettingzoo``, ``awale.sb3`` and ``awale.torch`` import on first use (they need
    PettingZoo, Stable-Baselines3 or PyTorch, which plain ``import awale`` does not)."""
    if name in ("pettingzoo", "sb3", "torch"):
        import importlib

        return importlib.import_module(f"awale.{name}")
    raise AttributeError(f"module 'awale' has no attribute {name!r}")

__all__ = [
    "PRESETS",
    "ENV_IDS",
    "Agent",
    "ObservationAgent",
    "AwaleEnv",
    "AwaleError",
    "AgentError",
    "ConfigError",
    "EnvSpec",
    "EnvOption",
    "env_options",
    "GameOverError",
    "IllegalActionError",
    "ParseError",
    "RulesError",
    "TournamentError",
    "TrainingError",
    "AwaleVectorEnv",
    "Batch",
    "Game",
    "Network",
    "Rules",
    "State",
    "Tablebase",
    "TournamentResult",
    "MatchResult",
    "LadderResult",
    "match",
    "ladder",
    "parse_position",
    "input_scale",
    "sample_legal",
    "register_envs",
    "tournament",
    "scorecard",
    "Scorecard",
    "baselines",
    "search",
    "play",
    "SearchResult",
    "SearchAgent",
    "SelfPlay",
    "__version__",
]

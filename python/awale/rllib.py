"""RLlib: a turn-based ``MultiAgentEnv`` for every preset and player count.

``AwaleMultiAgentEnv`` plays one game per env (RLlib's env runners make many). Each step
returns the observation of the player to move only (turn-based, as RLlib's multi-agent API
expects), its observation a ``Dict`` of ``"observations"`` (the board from its view, the
package's encodings) and ``"action_mask"`` (1 for the legal houses), the layout RLlib's
action-masking RL modules read. Rewards are 0 until the game ends, then every player's result
(+1 a sole leader, 0 tied leaders, -1 the others); ``terminateds["__all__"]`` ends it.

Registration that works in Ray workers: pass the class itself (``.environment(
AwaleMultiAgentEnv, env_config={"rules": "oware:players=3"})``), or call :func:`register`
in the driver, which registers ``"awale"`` with ``ray.tune.register_env``.

Needs ``pip install 'awale[rllib]'`` (Ray's RLlib; its own venv is best: ``ray[rllib]`` pins
an older Gymnasium).
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
import numpy as np

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - the extra is not installed
    raise ImportError(
        "awale.rllib needs RLlib: pip install 'awale[rllib]' (ray[rllib])"
    ) from e

import awale
from awale._common import EnvSpec, flavour_options, mask_box, observation_box


def agent_id(seat: int) -> str:
    """The agent id of a seat: ``"player_0"``, ``"player_1"``, ... (PettingZoo's names)."""
    return f"player_{seat}"


class AwaleMultiAgentEnv(MultiAgentEnv):
    """One game of any preset for RLlib (see the module docs).

    ``config`` keys: the options of the engine's table whose flavours include ``"rllib"``
    (``awale.env_options()``): ``rules`` (a rules spec, default ``"abapa"``), ``obs``
    (``"compact"``, ``"onehot[:L]"``, ``"thermometer[:L]"``; default here ``"onehot:16"``),
    ``illegal`` (``"error"``, default: an illegal action raises :class:`awale.IllegalActionError`,
    a ``ValueError``; ``"loss"``: the mover loses at once). They are checked by :class:`awale.EnvSpec`; an unknown key is a
    ``ValueError``.
    """

    #: Where this env's defaults differ from the table's.
    DEFAULTS = {"obs": "onehot:16"}

    def __init__(self, config: Optional[dict] = None) -> None:
        super().__init__()
        config = dict(config or {})
        known = sorted(o.key for o in flavour_options("rllib"))
        unknown = set(config) - set(known)
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)} (known: {', '.join(known)})")
        # Every seat is an agent: no opponent.
        self.env_spec = EnvSpec(**{**self.DEFAULTS, **config, "opponent": "self"}).validate()
        self.rules = self.env_spec.rules
        self.encoding = self.env_spec.obs
        self.obs_scale = self.env_spec.obs_scale
        self.illegal = self.env_spec.illegal
        players = self.rules.players
        self.possible_agents = [agent_id(p) for p in range(players)]
        self.agents = list(self.possible_agents)
        # The engine's spaces, all float32 (the layout RLlib's masked modules read).
        declared = self.env_spec.spaces()
        obs_space = gym.spaces.Dict(
            {
                "observations": observation_box(declared, np.float32),
                "action_mask": mask_box(declared, np.float32),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: self.env_spec.action_space() for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game = awale.Game(self.rules)

    def _obs(self, seat: int) -> dict:
        return {
            "observations": self.game.observation(
                self.encoding, perspective=seat, scale=self.obs_scale
            ).astype(np.float32),
            "action_mask": self.game.action_mask().astype(np.float32)
            if self.game.to_move == seat and not self.game.is_over
            else np.zeros(self.rules.houses, np.float32),
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = awale.Game(self.rules, seed=int(self._rng.integers(2**63)))
        mover = self.game.to_move
        return {agent_id(mover): self._obs(mover)}, {}

    def step(self, action_dict: dict[str, Any]):
        mover = self.game.to_move
        me = agent_id(mover)
        if me not in action_dict:
            raise ValueError(f"it is {me}'s turn; got actions for {sorted(action_dict)}")
        action = int(action_dict[me])
        legal = self.game.legal_mask()
        if not (0 <= action < self.rules.houses and legal >> action & 1):
            if self.illegal == "error":
                err = awale.IllegalActionError(
                    f"action {action} is not a legal move of {me} (legal: "
                    f"{self.game.legal_moves()})"
                )
                err.action, err.player = action, mover
                err.reason = (
                    f"is out of range 0..{self.rules.houses - 1}"
                    if not 0 <= action < self.rules.houses
                    else "is not legal"
                )
                raise err
            # An illegal move loses the game for the mover.
            rewards = {a: (-1.0 if a == me else 1.0 / max(1, len(self.agents) - 1)) for a in self.agents}
            return self._end(rewards, truncated=False)
        self.game.apply(action)
        if self.game.is_over:
            returns = self.game.returns()
            rewards = {agent_id(p): float(returns[p]) for p in range(self.rules.players)}
            return self._end(rewards, truncated=self.game.status == "truncated")
        nxt = self.game.to_move
        return (
            {agent_id(nxt): self._obs(nxt)},
            {me: 0.0},
            {"__all__": False},
            {"__all__": False},
            {},
        )

    def _end(self, rewards: dict, truncated: bool):
        obs = {a: self._obs(p) for p, a in enumerate(self.possible_agents)}
        done = {a: not truncated for a in self.possible_agents}
        done["__all__"] = not truncated
        trunc = {a: truncated for a in self.possible_agents}
        trunc["__all__"] = truncated
        return obs, rewards, done, trunc, {}


def register(name: str = "awale") -> str:
    """Registers :class:`AwaleMultiAgentEnv` with ``ray.tune.register_env`` under ``name``
    (``env_config`` is its ``config``) and returns the name."""
    from ray.tune.registry import register_env

    register_env(name, lambda cfg: AwaleMultiAgentEnv(dict(cfg)))
    return name


__all__ = ["AwaleMultiAgentEnv", "agent_id", "register"]

"""The Awalé-family games as a PettingZoo AEC environment, for 2 to 6 players."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from awale import _core
from awale._common import (
    EnvSpec,
    action_index,
    check_seed,
    mask_box,
    observation_box,
    with_options,
)


@with_options("pettingzoo")
class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """An Awalé-family game for ``players`` agents ``player_0 ... player_{n-1}`` (seat order),
    on the Rust engine (:class:`awale.Game`, repetition rules included).

    - Observation of agent ``i``: a dict with ``"observation"`` (the board seen by ``i``: its own
      row first, then the others in sowing order, the stores from ``i`` on, and ``i``'s seat
      one-hot; encoding ``obs`` as for :class:`awale.AwaleEnv`) and ``"action_mask"`` (``int8``,
      the legal houses when ``i`` is to move, zeros otherwise).
    - Action: ``Discrete(houses)``, a house of the agent's row.
    - Rewards: 0 until the game ends, then +1 for a sole winner, 0 for players tied for first, -1
      for the others; a game cut off by the rules' ``max_plies`` is truncated with rewards 0.
    - The agent to move is the engine's player to move (in the relay game a player with an empty
      row is passed over, as in play).

    The raw environment raises :class:`awale.IllegalActionError` (a ``ValueError``) on an
    illegal action; :func:`env` wraps it the
    PettingZoo way (an illegal move loses with -1, out-of-bounds actions are asserted, order is
    enforced).

    Args:
        rules: a rules spec or :class:`awale.Rules` (``"abapa"``, ``"oware:players=4"``, ...).
        **options: the options listed below (every seat is an agent: no opponent).
    """

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "awale_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, rules: Union[str, _core.Rules] = "abapa", **options: Any) -> None:
        super().__init__()
        # The shared settings (no opponent: every seat is an agent).
        self.env_spec = EnvSpec.of(
            "pettingzoo", "raw_env", {"rules": rules, **options}, fixed={"opponent": "self"}
        ).validate(["human", "ansi"])
        self.rules: _core.Rules = self.env_spec.rules  # type: ignore[assignment]
        self.metadata = {**raw_env.metadata, "name": f"awale_{self.rules.name}_v0"}
        self.render_mode = self.env_spec.render_mode
        self._obs_encoding = self.env_spec.obs
        self._obs_dtype = self.env_spec.obs_dtype
        self._obs_scale = self.env_spec.obs_scale
        houses = self.rules.houses
        self.possible_agents = [f"player_{i}" for i in range(self.rules.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        declared = self.env_spec.spaces()
        box, mask = observation_box(declared), mask_box(declared)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: self.env_spec.action_space() for a in self.possible_agents}
        self._no_moves = np.zeros(houses, dtype=np.int8)
        self._np_random: Optional[np.random.Generator] = None
        self._game: Optional[_core.Game] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> _core.Game:
        """The game in progress (reset() first)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        game = self.game
        board = game.observation(
            self._obs_encoding, perspective=seat, dtype=self._obs_dtype, scale=self._obs_scale
        )
        if not game.is_over and game.to_move == seat:
            mask = game.action_mask()
        else:
            mask = self._no_moves.copy()
        return {"observation": board, "action_mask": mask}

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        """Starts a game; its random first player (owaré) is drawn from ``seed``'s stream."""
        seed = check_seed(seed)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(0, 2**63))
        self._game = _core.Game(self.rules, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._game.to_move]
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        house = action_index(action, self.rules.houses)
        try:
            game.apply(house)
        except _core.AwaleError as e:
            named = type(e)(f"{agent}: {e}")
            named.__dict__.update(vars(e))
            raise named from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if game.is_over:
            returns = game.returns()
            ended = game.status == "ended"
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = ended
                self.truncations[a] = not ended
        self.agent_selection = self.possible_agents[game.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        text = self.game.render()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment, the PettingZoo way: an illegal move loses the game (-1 for the
    offender, 0 for the others), out-of-bounds actions are asserted and the call order is
    enforced. Takes the arguments of :class:`raw_env`."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e

"""`AwaleEnv`: a Gymnasium environment for one board."""

from __future__ import annotations

from typing import Any, Optional, SupportsFloat, Union

import gymnasium as gym
import numpy as np

from awale import _core
from awale.drawing import board_rgb
from awale._common import (
    EnvSpec,
    action_index,
    check_seed,
    single_board_error,
    state_without_views,
    with_options,
)


@with_options("env")
class AwaleEnv(gym.Env):
    """One board of an Awalé-family game as a Gymnasium environment.

    The agent plays ``learner_seat`` against an ``opponent`` (``"random"``, ``"capture"``: the
    largest capture, ``"greedy"``: the tournament's greedy agent, or any agent spec such as
    ``"alphabeta:depth=2"`` or ``"mcts:sims=200"``), which moves every other seat between the
    agent's turns; or, with
    ``opponent="self"``, the agent plays every seat in turn (self-play) and each step's reward is
    that of the seat that moved.

    - Observation: a ``Box`` of ``obs_dim`` values (``float32`` or ``uint8``) seen by the player
      to move: its own row first, then the others in sowing order, then the stores (mover
      first), then the mover's seat one-hot. ``obs`` picks the encoding: ``"compact"`` (raw seed
      counts), ``"onehot[:L]"`` or ``"thermometer[:L]"``.
    - Action: ``Discrete(houses)``, a house of the mover's row (0 = house A).
    - Reward: 0 until the game ends, then +1 for a sole winner, 0 for a shared first place, -1
      otherwise (0 for everyone when the rules' ``max_plies`` truncates the game).
    - ``info``: ``"action_mask"`` (``int8``, 1 = legal; ``action_space.sample(mask=...)`` takes
      it), ``"to_move"``; when the episode ends also ``"episode_length"`` (agent steps),
      ``"episode_scores"`` (final stores) and ``"rewards"`` (every seat's reward).

    Illegal actions raise :class:`awale.IllegalActionError` (a ``ValueError``, with ``.action``
    and ``.reason``; ``illegal="error"``, the default) or lose the game at
    once with reward -1 (``illegal="loss"``). ``opening=n`` (or ``(min, max)``) plays that many
    random plies at each reset for diversity.

    Observations are fresh arrays (``copy=True``); with ``copy=False`` they are views of a
    buffer that the next ``step``/``reset`` overwrites.

    Args:
        rules: a rules spec (``"abapa"``, ``"oware:players=3"``, ``"wari:max_plies=300"``) or a
            :class:`awale.Rules`.
        **options: the options listed below, from the engine's option table (an unknown one is
            a ``TypeError``). A league opponent (a list) draws one member per episode, named in
            ``info["opponent"]``; an env with a callable opponent cannot be pickled.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: Union[str, _core.Rules] = "abapa", **options: Any) -> None:
        self.env_spec = EnvSpec.of("env", "AwaleEnv", {"rules": rules, **options}).validate(
            self.metadata["render_modes"]
        )
        self.rules: _core.Rules = self.env_spec.rules  # type: ignore[assignment]
        self.render_mode = self.env_spec.render_mode
        self.copy = self.env_spec.copy
        self.obs_mode = self.env_spec.obs_mode
        self._batch = self.env_spec.batch(1, "disabled", threads=1)
        self.observation_space = self.env_spec.observation_space()
        self.action_space = self.env_spec.action_space()
        self._actions = np.zeros(1, dtype=np.int64)
        self._needs_reset = True
        self._bind()

    def _bind(self) -> None:
        b = self._batch
        self._obs, self._mask, self._reward = b.obs, b.mask, b.reward
        self._rewards, self._terminated, self._truncated = b.rewards, b.terminated, b.truncated
        self._to_move, self._length, self._scores = b.to_move, b.episode_length, b.episode_scores

    @property
    def opponent(self) -> str:
        """The opponent's name (a built-in one, an agent spec), or ``"self"``."""
        return self._batch.opponent

    @property
    def learner_seat(self) -> Optional[int]:
        """The agent's seat against an opponent; None in self-play."""
        return self._batch.learner_seat

    @property
    def state(self) -> _core.State:
        """The current position (a copy)."""
        return self._batch.state(0)

    def action_masks(self) -> np.ndarray:
        """The legal actions as a bool array of ``houses`` values (sb3-contrib's convention)."""
        return self._mask[0].astype(bool)

    def _observation(self) -> Any:
        obs = self._obs[0].copy() if self.copy else self._obs[0]
        if self.obs_mode == "dict":
            return {"observation": obs, "action_mask": self._mask[0].copy()}
        return obs

    def _info(self, ended: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self._mask[0].copy(),
            "to_move": int(self._to_move[0]),
        }
        league = _league_members(self._batch.opponent)
        if league:
            info["opponent"] = league[int(self._batch.opponent_members[0])]
        if ended:
            info["episode_length"] = int(self._length[0])
            info["episode_scores"] = self._scores[0].astype(np.int64)
            info["rewards"] = self._rewards[0].copy()
        return info

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new game. With a seed, the game (first player, opening, opponent moves) is
        the same as every other reset with that seed; without one, the random streams go on."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        self._batch.reset(seed)
        self._needs_reset = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(False)

    def step(
        self, action: Any
    ) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._needs_reset:
            raise RuntimeError("the episode is over (or never started): call reset() first")
        self._actions[0] = action_index(action, self.rules.houses)
        try:
            self._batch.step(self._actions)
        except _core.AwaleError as e:
            raise single_board_error(e) from None
        terminated = bool(self._terminated[0])
        truncated = bool(self._truncated[0])
        ended = terminated or truncated
        self._needs_reset = ended
        if self.render_mode == "human":
            self.render()
        return (
            self._observation(),
            float(self._reward[0]),
            terminated,
            truncated,
            self._info(ended),
        )

    def render(self) -> Any:
        """The board as text (``"ansi"``), printed (``"human"``), as an ``(H, W, 3)`` ``uint8``
        picture (``"rgb_array"``, :func:`awale.drawing.board_rgb`), or None without a mode."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() was called without a render_mode; build the env with "
                "render_mode='ansi' or 'human'"
            )
            return None
        if self.render_mode == "rgb_array":
            return board_rgb(self.state)
        text = self._batch.render(0)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __getstate__(self) -> dict[str, Any]:
        return state_without_views(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()


def _league_members(opponent: str) -> list[str]:
    """The members of a league opponent (``"league:a|b"``), or ``[]`` for any other one."""
    return opponent[len("league:"):].split("|") if opponent.startswith("league:") else []

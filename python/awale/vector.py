"""`AwaleVectorEnv`: a native Gymnasium vector environment over the Rust batch simulator."""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

try:  # Gymnasium >= 1.1 exports it from gymnasium.vector
    from gymnasium.vector import AutoresetMode
except ImportError:  # pragma: no cover - Gymnasium 1.0
    from gymnasium.vector.vector_env import AutoresetMode

from awale import _core
from awale.drawing import board_rgb
from awale._common import (
    EnvSpec,
    check_seed,
    state_without_views,
    with_options,
)

_MODE_NAMES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def autoreset_mode_of(mode: Union[AutoresetMode, str]) -> AutoresetMode:
    """An `AutoresetMode` from the enum or a name (``"next_step"``, ``"SameStep"``, ...)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.strip().lower().replace("_", "").replace("-", "")
        for m in AutoresetMode:
            if m.value.lower() == key or m.name.lower().replace("_", "") == key:
                return m
    raise ValueError(
        f"autoreset_mode must be an AutoresetMode (NEXT_STEP, SAME_STEP, DISABLED) or its "
        f"name, got {mode!r}"
    )


@with_options("vector")
class AwaleVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` boards stepped together by one call into Rust (the GIL is released while
    it runs), as a native :class:`gymnasium.vector.VectorEnv`.

    Every board is an :class:`awale.AwaleEnv` with the same arguments (rules, opponent, seat,
    encoding, opening, illegal-action policy): same spaces, rewards and ``info`` keys, batched
    the Gymnasium way (``info[key]`` holds one row per board and ``info["_" + key]`` says which
    boards have it).

    ``autoreset_mode`` is Gymnasium's :class:`~gymnasium.vector.AutoresetMode` (or its name):

    - ``NEXT_STEP`` (default): the step that ends an episode returns its final observation;
      the board's next step ignores its action, starts a new episode and returns its first
      observation with reward 0 and both flags false. Meanwhile the board's mask allows every
      action (any action is accepted).
    - ``SAME_STEP``: the step that ends an episode returns the first observation of the next
      one; the final observation is in ``info["final_obs"]`` (an object array, None where no
      episode ended) and the ended episode's statistics in ``info["final_info"]``.
    - ``DISABLED``: ended boards wait; reset them with
      ``reset(options={"reset_mask": mask})`` before stepping them again.

    ``reset(seed=s)`` re-seeds every board (board ``i`` draws from its own stream ``i`` of
    ``s``), so the same seed and actions give identical trajectories for any ``threads``.

    Observations, rewards and flags are fresh arrays (``copy=True``); with ``copy=False`` they
    are the simulator's own buffers, overwritten by the next ``step``/``reset``.

    Args:
        num_envs: number of boards.
        rules: as for :class:`awale.AwaleEnv`.
        autoreset_mode: see above.
        **options: the options listed below, as for :class:`awale.AwaleEnv` (with
            ``obs_mode="dict"`` the observations are ``{"observation": (num_envs, obs_dim),
            "action_mask": (num_envs, houses)}``), and ``threads``: helper threads spin for
            200 µs after a step before they sleep, so that a training loop's next step finds
            them awake; on 2 cores, 0 is as fast as 1 up to 256 boards and 1.7x faster at 4,096
            (docs/performance.md).
    """

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": 4,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        rules: Union[str, _core.Rules] = "abapa",
        *,
        autoreset_mode: Union[AutoresetMode, str] = AutoresetMode.NEXT_STEP,
        max_episode_steps: Optional[int] = None,
        **options: Any,
    ) -> None:
        if max_episode_steps is not None:
            raise ValueError(
                "AwaleVectorEnv has no max_episode_steps: limit games with the rules' "
                "max_plies option instead (e.g. rules='abapa:max_plies=200')"
            )
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.env_spec = EnvSpec.of(
            "vector", "AwaleVectorEnv", {"rules": rules, **options}
        ).validate(self.metadata["render_modes"])
        self.rules: _core.Rules = self.env_spec.rules  # type: ignore[assignment]
        self.render_mode = self.env_spec.render_mode
        self.copy = self.env_spec.copy
        self._batch = self.env_spec.batch(num_envs, _MODE_NAMES[self.autoreset_mode])
        self.num_envs = self._batch.num_boards
        self.single_observation_space = self.env_spec.observation_space()
        self.single_action_space = self.env_spec.action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._needs_reset = True
        self._bind()

    def _bind(self) -> None:
        b = self._batch
        self._obs, self._final_obs, self._mask = b.obs, b.final_obs, b.mask
        self._reward, self._rewards = b.reward, b.rewards
        self._terminated, self._truncated = b.terminated, b.truncated
        self._to_move, self._length, self._scores = b.to_move, b.episode_length, b.episode_scores
        self._all = np.ones(self.num_envs, dtype=np.bool_)

    # --- properties ----------------------------------------------------------------------

    @property
    def batch(self) -> _core.Batch:
        """The underlying simulator (its arrays are overwritten by every call)."""
        return self._batch

    @property
    def opponent(self) -> str:
        return self._batch.opponent

    @property
    def learner_seat(self) -> Optional[int]:
        return self._batch.learner_seat

    def action_masks(self) -> np.ndarray:
        """Legal actions of every board, ``(num_envs, houses)`` bool."""
        return self._mask.astype(bool)

    # --- API -----------------------------------------------------------------------------

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def _observations(self) -> Any:
        obs = self._out(self._obs)
        if self.env_spec.obs_mode == "dict":
            return {"observation": obs, "action_mask": self._mask.copy()}
        return obs

    def _base_info(self) -> dict[str, Any]:
        info = {
            "action_mask": self._out(self._mask),
            "_action_mask": self._all.copy(),
            "to_move": self._out(self._to_move),
            "_to_move": self._all.copy(),
        }
        if self.opponent.startswith("league:"):
            # The league member each board plays in its current episode (index into the list).
            info["opponent_member"] = self._batch.opponent_members.astype(np.int64)
            info["_opponent_member"] = self._all.copy()
        return info

    def _episode_info(self, ended: np.ndarray) -> dict[str, Any]:
        """Statistics of the episodes that ended."""
        return {
            "episode_length": self._length.astype(np.int64),
            "_episode_length": ended.copy(),
            "episode_scores": self._scores.astype(np.int64),
            "_episode_scores": ended.copy(),
            "rewards": self._rewards.copy(),
            "_rewards": ended.copy(),
        }

    def reset(
        self,
        *,
        seed: Optional[int] = None,
        options: Optional[dict[str, Any]] = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode on every board, or only where ``options["reset_mask"]`` is
        true. ``seed`` is one int for the whole batch (board ``i`` uses stream ``i`` of it)."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            raise TypeError(
                "AwaleVectorEnv takes one int seed for all boards (board i draws from stream i "
                "of it), not a list"
            )
        self._check_open()
        seed = check_seed(seed)
        reset_mask = None
        if options:
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(f"unknown reset options {sorted(unknown)} (known: reset_mask)")
            reset_mask = options.get("reset_mask")
        if reset_mask is not None:
            if seed is not None:
                raise ValueError(
                    "a seed re-seeds every board: it cannot be combined with a reset_mask"
                )
            mask = np.asarray(reset_mask)
            if mask.dtype != np.bool_:
                raise TypeError(f"reset_mask must be a bool array, got a {mask.dtype} array")
            if self._needs_reset:
                raise gym.error.ResetNeeded(
                    "reset() every board once before resetting some with a reset_mask"
                )
            self._batch.reset_where(np.ascontiguousarray(mask))
        else:
            super().reset(seed=seed)
            self._batch.reset(seed)
            self._needs_reset = False
        if self.render_mode == "human":
            self.render()
        return self._observations(), self._base_info()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Plays one action per board (an integer array of shape ``(num_envs,)``)."""
        self._check_open()
        if self._needs_reset:
            raise gym.error.ResetNeeded("call reset() before step()")
        if type(actions) is not np.ndarray:
            actions = np.asarray(actions)
        ended_count = self._batch.step(actions)
        terminated = self._out(self._terminated)
        truncated = self._out(self._truncated)
        infos = self._base_info()
        if ended_count:
            ended = self._terminated | self._truncated
            episode = self._episode_info(ended)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(ended):
                    final_obs[i] = self._final_obs[i].copy()
                    if self.env_spec.obs_mode == "dict":
                        final_obs[i] = {
                            "observation": final_obs[i],
                            "action_mask": np.zeros(self.rules.houses, dtype=np.int8),
                        }
                infos["final_obs"] = final_obs
                infos["_final_obs"] = ended
                infos["final_info"] = episode
                infos["_final_info"] = ended.copy()
            else:
                infos.update(episode)
        if self.render_mode == "human":
            self.render()
        return self._observations(), self._out(self._reward), terminated, truncated, infos

    def render(self) -> Optional[tuple[Any, ...]]:
        """Every board as text (``"ansi"``), as a picture (``"rgb_array"``), or printed
        (``"human"``, at most 4 boards)."""
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode")
            return None
        if self.render_mode == "ansi":
            return tuple(self._batch.render(i) for i in range(self.num_envs))
        if self.render_mode == "rgb_array":
            return tuple(board_rgb(self._batch.state(i)) for i in range(self.num_envs))
        for i in range(min(self.num_envs, 4)):
            print(f"board {i}\n{self._batch.render(i)}")
        return None

    def _check_open(self) -> None:
        if self.closed:
            raise gym.error.ClosedEnvironmentError(
                "this AwaleVectorEnv is closed: make a new one"
            )

    def close_extras(self, **kwargs: Any) -> None:
        """Called once by ``close()``: after it, ``step`` and ``reset`` raise
        ``gymnasium.error.ClosedEnvironmentError``."""

    def __getstate__(self) -> dict[str, Any]:
        return state_without_views(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def __repr__(self) -> str:
        return (
            f"AwaleVectorEnv({self.num_envs}, '{self.rules}', opponent='{self.opponent}', "
            f"autoreset_mode={self.autoreset_mode.name})"
        )

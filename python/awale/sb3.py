"""A Stable-Baselines3 ``VecEnv`` over the native batch, for sb3-contrib's ``MaskablePPO``.

Needs ``stable-baselines3`` (``pip install "awale[sb3]"``)::

    from sb3_contrib import MaskablePPO
    from awale.sb3 import AwaleSB3VecEnv

    env = AwaleSB3VecEnv(num_envs=64, rules="abapa", opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, verbose=1)
    model.learn(100_000)
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from awale import _core
from awale._common import EnvSpec, check_seed, with_options


@with_options("sb3")
class AwaleSB3VecEnv(VecEnv):
    """``num_envs`` boards as one Stable-Baselines3 ``VecEnv``, stepped by one Rust call.

    SB3's conventions: episodes restart at once (the batch's same-step resets), ``dones`` is
    terminated or truncated, and an ended board's ``info`` holds ``"terminal_observation"``,
    ``"TimeLimit.truncated"`` and Monitor-style ``"episode"`` statistics (``r``: final reward,
    ``l``: agent steps, ``t``: seconds since the env was built). ``action_masks()`` (and
    ``env_method("action_masks")``, which sb3-contrib calls) gives the legal actions, so
    ``MaskablePPO`` trains on it directly.

    The agent plays ``learner_seat`` against ``opponent`` (an agent spec such as
    ``"alphabeta:depth=2"``, or ``"random"``, ``"capture"``,
    ``"greedy"``, or ``"self"`` for self-play, where each step's reward is the seat that moved). Observations
    are ``float32`` (encoding ``obs``).

    Args:
        num_envs: number of boards.
        rules: a rules spec or :class:`awale.Rules`.
        seed: the first reset's seed (None: random); ``seed()`` sets the next one.
        **options: the options listed below, as for :class:`awale.AwaleVectorEnv`.
    """

    def __init__(
        self,
        num_envs: int = 8,
        rules: Union[str, _core.Rules] = "abapa",
        *,
        seed: Optional[int] = None,
        **options: Any,
    ) -> None:
        self.env_spec = EnvSpec.of(
            "sb3", "AwaleSB3VecEnv", {"rules": rules, **options}, fixed={"obs_dtype": "float32"}
        ).validate()
        self.rules: _core.Rules = self.env_spec.rules  # type: ignore[assignment]
        seed = check_seed(seed)
        self._batch = self.env_spec.batch(num_envs, "same_step", seed=seed)
        self.render_mode: Optional[str] = None
        self._first_seed = seed
        self._actions: Optional[np.ndarray] = None
        self._t0 = time.perf_counter()
        super().__init__(
            self._batch.num_boards,
            self.env_spec.observation_space(),
            self.env_spec.action_space(),
        )

    @property
    def batch(self) -> _core.Batch:
        """The underlying simulator."""
        return self._batch

    def action_masks(self) -> np.ndarray:
        """Legal actions of every board, ``(num_envs, houses)`` bool."""
        return self._batch.mask.astype(bool)

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is None and self._first_seed is not None:
            seed = self._first_seed
        self._first_seed = None
        self._batch.reset(None if seed is None else int(seed) % (1 << 64))
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._batch.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        b = self._batch
        ended = b.step(self._actions)
        self._actions = None
        terminated, truncated = b.terminated, b.truncated
        dones = terminated | truncated
        rewards = b.reward.copy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if ended:
            final_obs, lengths = b.final_obs, b.episode_length
            elapsed = round(time.perf_counter() - self._t0, 6)
            for i in np.flatnonzero(dones):
                infos[i] = {
                    "terminal_observation": final_obs[i].copy(),
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "episode": {"r": float(rewards[i]), "l": int(lengths[i]), "t": elapsed},
                }
        return b.obs.copy(), rewards, dones, infos

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        idx: Iterable[int] = self._get_indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            return [self._batch.render(i) for i in idx]
        raise AttributeError(f"AwaleSB3VecEnv boards have no method {method_name!r}")

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]


def agent(
    model: Any,
    obs: str = "compact",
    *,
    scale: str = "raw",
    dtype: str = "float32",
    deterministic: bool = True,
    name: Optional[str] = None,
) -> Any:
    """A trained Stable-Baselines3 model (PPO, DQN, sb3-contrib's ``MaskablePPO``...) as an
    awale agent, for :func:`awale.tournament`, :func:`awale.scorecard`, an env's ``opponent=``
    and everything else that plays::

        card = awale.scorecard(awale.sb3.agent(model, obs="onehot:16"), rules="abapa")

    ``obs``, ``scale`` and ``dtype`` are the ``obs=``, ``obs_scale=`` and ``obs_dtype=`` the
    model was trained with (``ValueError`` at the first move when the model's observation shape
    says otherwise). Each move is ``model.predict(observation, deterministic=...)`` on the
    observation the env gives for that position, with ``action_masks=`` when the model takes
    it (``MaskablePPO``); a model without masks whose predicted move is illegal plays its most
    probable legal move instead (the policy's distribution, masked). Returns an
    :class:`awale.ObservationAgent`.
    """
    import inspect

    from awale.agents import ObservationAgent

    if not hasattr(model, "predict"):
        raise TypeError(f"model must be a Stable-Baselines3 model, got {type(model).__name__}")
    masks = "action_masks" in inspect.signature(model.predict).parameters
    shape = tuple(getattr(model.observation_space, "shape", ()) or ())

    def policy(o: np.ndarray, mask: np.ndarray) -> int:
        if shape and o.shape != shape:
            raise ValueError(
                f"the model takes observations of shape {shape}, obs={obs!r} gives {o.shape}: "
                "pass the obs= (and obs_scale=, obs_dtype=) the model was trained with, e.g. "
                "awale.sb3.agent(model, obs='onehot:16')"
            )
        kwargs = {"action_masks": mask.astype(bool)} if masks else {}
        action, _ = model.predict(o, deterministic=deterministic, **kwargs)
        house = int(np.asarray(action).reshape(()))
        if mask[house]:
            return house
        return _most_probable_legal(model, o, mask)

    return ObservationAgent(
        policy, obs, scale=scale, dtype=dtype, name=name or type(model).__name__
    )


def _most_probable_legal(model: Any, o: np.ndarray, mask: np.ndarray) -> int:
    """The legal house the model's policy gives the highest probability (or Q-value)."""
    import torch

    tensor, _ = model.policy.obs_to_tensor(o)
    with torch.no_grad():
        if hasattr(model.policy, "get_distribution"):
            scores = model.policy.get_distribution(tensor).distribution.probs
        else:  # DQN: the Q-values
            scores = model.policy.q_net(tensor)
    s = scores.cpu().numpy().reshape(-1)
    return int(np.argmax(np.where(mask.astype(bool), s, -np.inf)))

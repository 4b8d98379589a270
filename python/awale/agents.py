"""One Python agent everywhere, and the adapter of observation-based policies.

Whatever plays a game in awale (:func:`awale.tournament`, :func:`awale.match`,
:func:`awale.scorecard`, an environment's ``opponent=``, :meth:`awale.Tablebase.accuracy`,
:func:`awale.play`) takes the same Python agent: an object with ``select(state) -> house``
(optional ``name``; :class:`awale.Agent`, :class:`awale.SearchAgent` and
:class:`ObservationAgent` are ones) or a plain function of an :class:`awale.State` returning a
house. :class:`ObservationAgent` turns a policy trained on observations (SB3, TorchRL, RLlib, a
``torch`` module) into such an agent: it encodes the state exactly as the environment did
(encoding, scale, dtype, the mover's view) and applies the legal-move mask::

    import awale
    agent = awale.ObservationAgent(lambda obs, mask: my_policy(obs), obs="onehot:16")
    awale.scorecard(agent, rules="abapa")

A search *evaluator* ``(obs, mask) -> (logits, values)`` (:func:`awale.search`,
:class:`awale.SearchAgent`) is a network, not an agent, and keeps its form.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Protocol, Union

import numpy as np

from awale import _core

__all__ = ["ObservationAgent", "SupportsSelect", "AgentLike"]


class SupportsSelect(Protocol):
    """An agent: ``select(state)`` returns the house it plays (0-based in the mover's row)."""

    def select(self, state: "_core.State") -> int: ...


#: Anything awale plays as a Python agent: an object with ``select`` or a function of a state.
AgentLike = Union[SupportsSelect, Callable[["_core.State"], int]]


class ObservationAgent:
    """A policy on observations as an agent (``select(state) -> house``).

    Args:
        policy: ``policy(observation, mask)``, returning a house (an int, or a NumPy/torch
            scalar) or one score per house (logits, probabilities or Q-values, highest
            best): the legal house with the highest score is played. ``observation`` is what
            an environment made with the same ``obs``, ``obs_scale`` and ``obs_dtype`` gives for
            this position: seen by the player to move (that player's row and store first,
            the seat one-hot naming them); ``mask`` is the int8 0/1 array of legal houses.
        obs: the observation encoding the policy was trained on (the env's ``obs=``):
            ``"compact"``, ``"onehot[:L]"`` or ``"thermometer[:L]"``.
        scale: the env's ``obs_scale``: ``"raw"`` or ``"network"``.
        dtype: the env's ``obs_dtype``: ``"float32"`` or ``"uint8"``.
        name: its name in tournaments and scorecards (default None: named as a plain function
            is, ``python_<i>`` after its position).
        thread_safe: set True only when the policy may be called from several threads at once
            (tournaments call it one call at a time otherwise).

    A returned house that is illegal raises ``ValueError`` (naming the agent and the legal
    houses) in whatever plays it.
    """

    def __init__(
        self,
        policy: Callable[[np.ndarray, np.ndarray], Any],
        obs: str = "compact",
        *,
        scale: str = "raw",
        dtype: str = "float32",
        name: Optional[str] = None,
        thread_safe: bool = False,
    ) -> None:
        if not callable(policy):
            raise TypeError(
                f"policy must be a callable (observation, mask) -> house or scores, "
                f"got {type(policy).__name__}"
            )
        for key, value in (("obs", obs), ("scale", scale), ("dtype", dtype)):
            if not isinstance(value, str):
                raise TypeError(f"{key} must be a str, got {type(value).__name__}")
        # The encoding, scale and dtype checked once, on a position of the default rules.
        _core.State().observation(obs, dtype=dtype, scale=scale)
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"name must be a non-empty str, got {name!r}")
        if not isinstance(thread_safe, bool):
            raise TypeError(f"thread_safe must be True or False, got {type(thread_safe).__name__}")
        self.policy = policy
        self.obs = obs
        self.scale = scale
        self.dtype = dtype
        self.name: Optional[str] = name
        self.thread_safe = thread_safe

    def observe(self, state: "_core.State") -> "tuple[np.ndarray, np.ndarray]":
        """The observation and mask the policy gets at ``state`` (the env's, for this state)."""
        return (
            state.observation(self.obs, dtype=self.dtype, scale=self.scale),
            state.action_mask(),
        )

    def select(self, state: "_core.State") -> int:
        """The house the policy plays at ``state``: its answer, or its best legal house when
        it answers one score per house."""
        obs, mask = self.observe(state)
        return masked_move(self.policy(obs, mask), mask)

    def __repr__(self) -> str:
        what = self.name or getattr(self.policy, "__qualname__", type(self.policy).__name__)
        return f"ObservationAgent({what!r}, obs={self.obs!r}, scale={self.scale!r})"


def masked_move(answer: Any, mask: np.ndarray) -> int:
    """A policy's answer as a house: a scalar is the house itself (checked legal by whatever
    plays it); one score per house gives the legal house with the highest score."""
    if hasattr(answer, "detach"):  # a torch tensor
        answer = answer.detach().cpu().numpy()
    a = np.asarray(answer)
    if a.ndim == 0 or a.size == 1:
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(
                f"the policy returned {answer!r} ({a.dtype}); it must return an int house or "
                "one score per house"
            )
        return int(a.reshape(()))
    scores = a.reshape(-1).astype(np.float64)
    if scores.shape[0] != mask.shape[0]:
        raise ValueError(
            f"the policy returned {scores.shape[0]} scores for {mask.shape[0]} houses"
        )
    if not mask.any():
        raise ValueError("no legal move: the game is over")
    return int(np.argmax(np.where(mask.astype(bool), scores, -np.inf)))

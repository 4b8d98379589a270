"""Registers every preset with Gymnasium: ``gymnasium.make("awale/Abapa-v0")`` and
``gymnasium.make_vec("awale/Abapa-v0", num_envs=64, vectorization_mode="vector_entry_point")``.
"""

from __future__ import annotations

import gymnasium

from awale._common import GYM_NAMES

#: The registered ids, one per preset.
ENV_IDS = [f"awale/{name}-v0" for name in GYM_NAMES.values()]


def register_envs() -> None:
    """Registers ``awale/<Preset>-v0`` for every preset (idempotent)."""
    for spec, name in GYM_NAMES.items():
        env_id = f"awale/{name}-v0"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="awale.env:AwaleEnv",
            vector_entry_point="awale.vector:AwaleVectorEnv",
            kwargs={"rules": spec},
            nondeterministic=False,
        )

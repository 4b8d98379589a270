"""PettingZoo AEC environments for every preset, 2 to 6 players.

The PettingZoo way: ``env()`` is the wrapped environment, ``raw_env`` the bare one, and one
module per preset (``abapa_v0``, ``awale_v0``, ``wari_v0``, ``openspiel_v0``, ``oware2_v0``,
``oware3_v0``, ``oware4_v0``, ``oware6_v0``) fixes the rules::

    from awale.pettingzoo import oware4_v0
    env = oware4_v0.env()
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else env.action_space(agent).sample(mask)
        env.step(action)

``env(rules="oware:players=3,max_plies=400")`` takes any rules spec.
"""

from awale.pettingzoo import (
    abapa_v0,
    awale_v0,
    openspiel_v0,
    oware2_v0,
    oware3_v0,
    oware4_v0,
    oware6_v0,
    wari_v0,
)
from awale.pettingzoo.aec import env, raw_env

#: The per-preset modules, by rules name.
ENVIRONMENTS = {
    "abapa": abapa_v0,
    "awale": awale_v0,
    "wari": wari_v0,
    "openspiel": openspiel_v0,
    "oware2": oware2_v0,
    "oware3": oware3_v0,
    "oware4": oware4_v0,
    "oware6": oware6_v0,
}

__all__ = [
    "env",
    "raw_env",
    "ENVIRONMENTS",
    "abapa_v0",
    "awale_v0",
    "wari_v0",
    "openspiel_v0",
    "oware2_v0",
    "oware3_v0",
    "oware4_v0",
    "oware6_v0",
]

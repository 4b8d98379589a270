#!/usr/bin/env python3
"""Masked self-play with RLlib's PPO (the current API stack) on ``awale.rllib.AwaleMultiAgentEnv``.

Every seat of every game is played by one shared policy ("main"), except one seat per episode,
drawn at random, which a frozen snapshot of it plays ("league"; refreshed every ``--snapshot``
iterations), so that the policy also meets its past. The RL module is RLlib's action-masking
PPO module: the mask in the observation sets illegal logits to -inf. Several env runners
collect in parallel (``--runners``); metrics go to TensorBoard (tensorboardX) and
``metrics.jsonl``; at the end the greedy policy plays a tournament against the built-in
agents through ``awale.tournament``.

    python -m awale.recipes.rllib_selfplay --fast                 # smoke run (CI), about a minute
    python -m awale.recipes.rllib_selfplay --rules oware:players=3 --iterations 200
    python -m awale.recipes.rllib_selfplay --address auto         # on a running Ray cluster

Needs ``pip install 'awale[rllib]'`` (ray[rllib]) and torch; ray[rllib] pins an older Gymnasium,
so a venv of its own is best.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

import awale
from awale.rllib import AwaleMultiAgentEnv

OBS = "onehot:16"


def policy_mapping(agent_id, episode, **kwargs):
    """One seat per episode (drawn from the episode's id) is the frozen snapshot's."""
    seats = kwargs.get("players", 2)
    league_seat = hash(getattr(episode, "id_", str(episode))) % seats
    return "league" if agent_id == f"player_{league_seat}" else "main"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="abapa")
    p.add_argument("--iterations", type=int, default=60)
    p.add_argument("--runners", type=int, default=2, help="env runners (parallel collectors)")
    p.add_argument("--batch", type=int, default=4000, help="train batch per iteration (agent steps)")
    p.add_argument("--snapshot", type=int, default=10, help="refresh the league snapshot every N iterations")
    p.add_argument("--games", type=int, default=50, help="games per opponent in the final tournament")
    p.add_argument("--address", default=None, help="a Ray cluster to join (e.g. auto); default a local one")
    p.add_argument("--cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--logdir", default="runs/rllib_selfplay")
    p.add_argument("--fast", action="store_true", help="CI's smoke run: 2 small iterations, 1 runner")
    a = p.parse_args()
    if a.fast:
        a.iterations, a.runners, a.batch, a.snapshot, a.games = 2, 1, 400, 1, 4
    os.makedirs(a.logdir, exist_ok=True)
    random.seed(a.seed)
    ray.init(address=a.address, num_cpus=a.cpus, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    players = awale.Rules(a.rules).players

    def mapping(agent_id, episode, **kw):
        return policy_mapping(agent_id, episode, players=players, **kw)

    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [128, 128]})
    config = (
        PPOConfig()
        .environment(AwaleMultiAgentEnv, env_config={"rules": a.rules, "obs": OBS})
        .env_runners(num_env_runners=a.runners, num_cpus_per_env_runner=1 if a.runners else 0)
        .learners(num_learners=0)
        .multi_agent(policies={"main", "league"}, policy_mapping_fn=mapping, policies_to_train=["main"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": module, "league": module}))
        .training(train_batch_size_per_learner=a.batch, minibatch_size=min(256, a.batch),
                  num_epochs=4, lr=3e-4, entropy_coeff=0.01)
        .debugging(seed=a.seed)
    )
    algo = config.build_algo()
    try:
        from tensorboardX import SummaryWriter

        writer = SummaryWriter(a.logdir)
    except ImportError:  # pragma: no cover
        writer = None
    metrics = open(os.path.join(a.logdir, "metrics.jsonl"), "w")
    t0 = time.time()
    for it in range(1, a.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        row = {
            "iteration": it,
            "seconds": time.time() - t0,
            "episodes": runners.get("num_episodes_lifetime", runners.get("num_episodes", 0)),
            "episode_len_mean": runners.get("episode_len_mean"),
            "agent_steps": result.get("num_env_steps_sampled_lifetime"),
        }
        metrics.write(json.dumps(row, default=float) + "\n")
        metrics.flush()
        if writer is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "iteration":
                    writer.add_scalar(f"rllib/{k}", v, it)
        print(f"iteration {it}: {row['episodes']} episodes, mean length {row['episode_len_mean']}, "
              f"{row['seconds']:.0f} s", flush=True)
        if it % a.snapshot == 0:
            # The league's snapshot: the main module's weights, on the learner and the runners.
            weights = algo.get_module("main").get_state()
            algo.get_module("league").set_state(weights)
            algo.env_runner_group.foreach_env_runner(
                lambda r: r.module["league"].set_state(weights) if hasattr(r, "module") else None
            )
    metrics.close()
    if writer is not None:
        writer.close()

    main_module = algo.get_module("main")

    def greedy(obs: np.ndarray, mask: np.ndarray) -> int:
        batch = {"obs": {"observations": torch.from_numpy(obs)[None],
                         "action_mask": torch.from_numpy(mask.astype(np.float32))[None]}}
        with torch.no_grad():
            out = main_module.forward_inference(batch)
        logits = out["action_dist_inputs"][0].numpy()
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))

    agent = awale.ObservationAgent(greedy, obs=OBS)
    result = awale.tournament([("rllib", agent), "random", "greedy"], rules=a.rules, games=a.games,
                              seed=a.seed, gauntlet="rllib", out=os.path.join(a.logdir, "tournament"))
    print(result)
    print(f"trained {a.iterations} iterations in {time.time() - t0:.0f} s")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()

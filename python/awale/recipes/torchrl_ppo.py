#!/usr/bin/env python3
"""PPO with TorchRL over the Gymnasium env, the action mask read from the observation.

The env is `awale.AwaleEnv(rules, opponent=..., obs_mode="dict")` wrapped by TorchRL's
`GymWrapper`: the observation carries `action_mask`, which the policy uses to set illegal logits
to -inf. TorchRL's `SyncDataCollector`, `GAE` and `ClipPPOLoss` do the rest. At the end the
greedy policy plays 100 games against the built-in `random` and `greedy` opponents.

    python -m awale.recipes.torchrl_ppo --fast       # smoke run (what CI runs), a few seconds
    python -m awale.recipes.torchrl_ppo              # abapa against random, a few minutes

Needs `pip install 'awale[torchrl]'` (torch and torchrl).
"""

from __future__ import annotations

import argparse
import os
import time

import torch
from tensordict.nn import TensorDictModule
from torch import nn
try:  # TorchRL 0.14 names it Collector; earlier versions SyncDataCollector
    from torchrl.collectors import Collector
except ImportError:  # pragma: no cover
    from torchrl.collectors import SyncDataCollector as Collector
from torchrl.envs import GymWrapper
from torchrl.modules import ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import awale


class MaskedLogits(nn.Module):
    """An MLP over the observation; illegal houses get -inf logits."""

    def __init__(self, obs_dim: int, houses: int, hidden: int) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, houses),
        )

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.net(observation / 48.0)
        return logits.masked_fill(action_mask == 0, float("-inf"))


def make_env(rules: str, opponent: str, seed: int) -> GymWrapper:
    env = GymWrapper(
        awale.AwaleEnv(rules, opponent=opponent, obs_mode="dict", illegal="loss"),
        categorical_action_encoding=True,
    )
    env.set_seed(seed)
    return env


def evaluate(actor: ProbabilisticActor, rules: str, opponent: str, games: int, seed: int) -> float:
    """Mean final reward of the greedy policy against `opponent`."""
    env = awale.AwaleEnv(rules, opponent=opponent, obs_mode="dict")
    total = 0.0
    module = actor.module[0]  # the TensorDictModule computing the logits
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        while not done:
            with torch.no_grad():
                logits = module.module(
                    torch.as_tensor(obs["observation"]).unsqueeze(0),
                    torch.as_tensor(obs["action_mask"]).unsqueeze(0),
                )
            obs, reward, terminated, truncated, _ = env.step(int(logits.argmax()))
            done = terminated or truncated
        total += float(reward)
    return total / games


def main() -> None:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--rules", default="abapa")
    p.add_argument("--opponent", default="random")
    p.add_argument("--frames", type=int, default=200_000, help="environment steps in all")
    p.add_argument("--frames-per-batch", type=int, default=2_000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=250)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--fast", action="store_true", help="a few seconds: the CI smoke run")
    p.add_argument("--logdir", default=None, help="unused; accepted like the other recipes")
    args = p.parse_args()
    if args.fast or os.environ.get("AWALE_FAST") == "1":
        args.frames, args.frames_per_batch, args.eval_games = 4_000, 1_000, 10
    torch.manual_seed(args.seed)

    env = make_env(args.rules, args.opponent, args.seed)
    obs_dim = env.observation_spec["observation"].shape[-1]
    houses = env.action_spec.space.n
    logits = TensorDictModule(
        MaskedLogits(obs_dim, houses, args.hidden),
        in_keys=["observation", "action_mask"],
        out_keys=["logits"],
    )
    actor = ProbabilisticActor(
        logits,
        in_keys=["logits"],
        distribution_class=torch.distributions.Categorical,
        return_log_prob=True,
    )
    critic = ValueOperator(
        nn.Sequential(nn.Linear(obs_dim, args.hidden), nn.Tanh(), nn.Linear(args.hidden, 1)),
        in_keys=["observation"],
    )
    collector = Collector(
        env, actor, frames_per_batch=args.frames_per_batch, total_frames=args.frames
    )
    advantage = GAE(gamma=1.0, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01)
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)

    before = evaluate(actor, args.rules, args.opponent, args.eval_games, 10_000)
    start, frames = time.time(), 0
    for batch in collector:
        frames += batch.numel()
        with torch.no_grad():
            advantage(batch)
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(flat.numel()).split(args.minibatch):
                out = loss(flat[idx])
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optim.step()
        done = batch["next", "done"]
        reward = batch["next", "reward"][done]
        mean = float(reward.mean()) if reward.numel() else float("nan")
        print(f"frames {frames}: {int(done.sum())} games ended, mean final reward {mean:+.2f}")
    collector.shutdown()
    after = evaluate(actor, args.rules, args.opponent, args.eval_games, 10_000)
    print(
        f"trained {frames} frames in {time.time() - start:.1f} s; greedy policy against "
        f"{args.opponent}: mean final reward {before:+.2f} before, {after:+.2f} after"
    )


if __name__ == "__main__":
    main()

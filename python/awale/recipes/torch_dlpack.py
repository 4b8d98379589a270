#!/usr/bin/env python3
"""A plain PyTorch actor-critic (A2C) loop whose observations reach the device without copies.

The native vector env runs with ``copy=False``: its observations, masks and rewards are the Rust
simulator's own NumPy buffers. ``torch.from_dlpack`` wraps them as CPU tensors without copying;
on a GPU one pinned, non-blocking copy moves them to the device (a host-to-device transfer is
always a copy; this is the only one). The policy samples masked actions on the device, the env
steps all boards in one Rust call, and every ``--steps`` steps an n-step advantage actor-critic
update runs. At the end the greedy policy plays a gauntlet against the built-in agents through
``awale.tournament``.

    python -m awale.recipes.torch_dlpack --fast            # smoke run (what CI runs), a few seconds
    python -m awale.recipes.torch_dlpack                   # abapa against random, about a minute
    python -m awale.recipes.torch_dlpack --device cuda     # the same on a GPU

Needs torch (``pip install 'awale[sb3]'`` brings it, or any torch build).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch
from torch import nn

import awale


class ActorCritic(nn.Module):
    """An MLP trunk, a policy head (one logit per house, illegal ones masked) and a value head."""

    def __init__(self, obs_dim: int, houses: int, hidden: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, houses)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs / 48.0)
        logits = self.policy(h).masked_fill(mask == 0, float("-inf"))
        return logits, self.value(h).squeeze(-1)


class ToDevice:
    """NumPy buffers -> device tensors: DLPack on the CPU (no copy), then one pinned copy."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.pinned: dict[str, torch.Tensor] = {}

    def __call__(self, name: str, array: np.ndarray) -> torch.Tensor:
        t = torch.from_dlpack(array)  # shares the simulator's buffer
        if self.device.type == "cpu":
            return t
        if name not in self.pinned:
            self.pinned[name] = torch.empty(t.shape, dtype=t.dtype).pin_memory()
        return self.pinned[name].copy_(t).to(self.device, non_blocking=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="abapa")
    p.add_argument("--opponent", default="random", help="any opponent the envs take (a spec or a list)")
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--steps", type=int, default=16, help="steps per update (n-step returns)")
    p.add_argument("--updates", type=int, default=400)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--games", type=int, default=100, help="games per opponent in the final gauntlet")
    p.add_argument("--logdir", default="runs/torch_dlpack")
    p.add_argument("--fast", action="store_true", help="a few seconds: CI's smoke run")
    a = p.parse_args()
    if a.fast:
        a.envs, a.updates, a.games = 64, 60, 10
    torch.manual_seed(a.seed)
    device = torch.device(a.device)
    os.makedirs(a.logdir, exist_ok=True)

    env = awale.AwaleVectorEnv(a.envs, a.rules, opponent=a.opponent, copy=False)
    to_dev = ToDevice(device)
    obs_np, info = env.reset(seed=a.seed)
    net = ActorCritic(obs_np.shape[1], info["action_mask"].shape[1], a.hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    metrics = open(os.path.join(a.logdir, "metrics.jsonl"), "w")
    try:  # TensorBoard when the `tensorboard` package is there
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(a.logdir)
    except ImportError:
        writer = None
    t0, moves, results = time.time(), 0, []
    for update in range(a.updates):
        logps, values, rewards, alive = [], [], [], []
        for _ in range(a.steps):
            obs = to_dev("obs", obs_np)
            # The mask is kept by autograd (masked_fill) past the next step, which overwrites
            # the env's buffer: a copy of it (N x houses bytes); the observation is not kept.
            mask = to_dev("mask", info["action_mask"]).clone()
            logits, value = net(obs.float(), mask)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs_np, reward, terminated, truncated, info = env.step(action.cpu().numpy())
            done = terminated | truncated
            results.extend(reward[done].tolist())
            logps.append(dist.log_prob(action))
            values.append(value)
            # Copies: the next step overwrites the env's buffers.
            rewards.append(torch.as_tensor(reward, device=device).clone())
            alive.append(torch.as_tensor(~done, device=device).float())
            moves += a.envs
        with torch.no_grad():
            _, ret = net(to_dev("obs", obs_np).float(), to_dev("mask", info["action_mask"]))
        returns = []
        for r, k in zip(reversed(rewards), reversed(alive)):
            ret = r + a.gamma * ret * k
            returns.append(ret)
        returns = torch.stack(returns[::-1])
        values = torch.stack(values)
        adv = returns - values
        loss = -(torch.stack(logps) * adv.detach()).mean() + 0.5 * adv.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        opt.step()
        if update % 20 == 0 or update == a.updates - 1:
            recent = results[-500:]
            row = {
                "update": update,
                "loss": float(loss),
                "episodes": len(results),
                "mean_return": float(np.mean(recent)) if recent else 0.0,
                "moves_per_s": moves / (time.time() - t0),
            }
            metrics.write(json.dumps(row) + "\n")
            if writer is not None:
                for k, v in row.items():
                    if k != "update":
                        writer.add_scalar(f"train/{k}", v, update)
            print(f"update {update}: loss {row['loss']:.3f}, mean return {row['mean_return']:+.2f} "
                  f"over the last {len(recent)} episodes, {row['moves_per_s']:.0f} moves/s ({device})")
    metrics.close()
    if writer is not None:
        writer.close()
    env.close()

    net = net.cpu().eval()

    def policy(obs: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])
        return int(logits.argmax())

    result = awale.tournament(
        [("a2c", awale.ObservationAgent(policy)), "random", "greedy"], rules=a.rules, games=a.games, seed=a.seed + 1,
        out=os.path.join(a.logdir, "tournament"),
    )
    print(result)
    print(f"trained {a.updates} updates in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()

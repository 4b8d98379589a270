#!/usr/bin/env python3
"""Trains sb3-contrib's MaskablePPO on the native batch (`awale.sb3.AwaleSB3VecEnv`) and
evaluates the policy against the built-in opponent, beside a random policy.

Needs the `sb3` extra (stable-baselines3, sb3-contrib, torch):

    pip install ".[sb3]"          # or: maturin develop --release && pip install sb3-contrib
    python training/maskable_ppo.py --fast                    # a smoke run, ~1 minute on 2 cores
    python training/maskable_ppo.py --rules abapa --envs 64 --timesteps 2000000 --save ppo_abapa

The agent plays seat 0 (`--seat`) against `--opponent` (random or greedy) with illegal moves
masked out; the reward is +1 / 0 / -1 at the end of each game.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def evaluate(env, policy, games: int) -> tuple[float, float, float]:
    """Plays until `games` episodes have ended on the env's boards; returns (win, draw, loss)
    rates. `policy(obs, masks)` gives one action per board."""
    obs = env.reset()
    results: list[float] = []
    while len(results) < games:
        actions = policy(obs, env.action_masks())
        obs, rewards, dones, _ = env.step(actions)
        results.extend(rewards[dones].tolist())
    r = np.array(results[:games])
    return float((r > 0).mean()), float((r == 0).mean()), float((r < 0).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="abapa", help="rules spec (abapa, awale, wari, oware3, ...)")
    ap.add_argument("--opponent", default="random", help="random or greedy")
    ap.add_argument("--seat", type=int, default=0, help="the agent's seat")
    ap.add_argument("--envs", type=int, default=64, help="boards stepped together")
    ap.add_argument("--timesteps", type=int, default=1_000_000, help="agent steps to train")
    ap.add_argument("--n-steps", type=int, default=128, help="rollout length per board")
    ap.add_argument("--eval-games", type=int, default=2000, help="games for the evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="simulator threads")
    ap.add_argument("--save", help="save the model to this path (.zip)")
    ap.add_argument("--fast", action="store_true", help="a tiny smoke run (overrides sizes)")
    args = ap.parse_args()
    if args.fast:
        args.envs, args.timesteps, args.n_steps, args.eval_games = 32, 65536, 64, 500

    import torch
    from sb3_contrib import MaskablePPO

    from awale import sample_legal
    from awale.sb3 import AwaleSB3VecEnv

    torch.set_num_threads(1)
    kw = dict(opponent=args.opponent, learner_seat=args.seat, threads=args.threads)
    env = AwaleSB3VecEnv(args.envs, args.rules, seed=args.seed, **kw)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(1024, args.envs * args.n_steps),
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        verbose=0 if args.fast else 1,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    took = time.perf_counter() - t0
    print(
        f"trained {model.num_timesteps} steps on {args.envs} boards of {args.rules} vs "
        f"{args.opponent} in {took:.1f} s ({model.num_timesteps / took:,.0f} steps/s)"
    )
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}")

    eval_env = AwaleSB3VecEnv(min(args.envs, 256), args.rules, seed=args.seed + 1, **kw)
    rng = np.random.default_rng(args.seed)

    def ppo(obs, masks):
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return actions

    def random_policy(obs, masks):
        return sample_legal(masks, rng)

    for name, policy in (("MaskablePPO", ppo), ("random", random_policy)):
        w, d, l = evaluate(eval_env, policy, args.eval_games)
        print(
            f"{name:>12} vs {args.opponent}: win {w:.1%}  draw {d:.1%}  loss {l:.1%} "
            f"({args.eval_games} games)"
        )


if __name__ == "__main__":
    main()

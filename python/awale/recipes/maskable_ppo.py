#!/usr/bin/env python3
"""Trains sb3-contrib's MaskablePPO on the native batch (`awale.sb3.AwaleSB3VecEnv`), logs to
TensorBoard, and ends with a tournament of the trained policy against the built-in agents.

Needs the `sb3` extra (stable-baselines3, sb3-contrib, torch); TensorBoard logging needs the
`tensorboard` package (without it the recipe warns and trains without the event files):

    pip install ".[sb3]" tensorboard   # or, in a dev venv: maturin develop --release
    python -m awale.recipes.maskable_ppo --fast     # a smoke run, ~20 s on 2 cores (what CI runs)
    python -m awale.recipes.maskable_ppo            # the default run: abapa, a few minutes on 2 cores
    python -m awale.recipes.maskable_ppo --rules wari --timesteps 5000000 --save ppo_wari
    tensorboard --logdir runs

The agent plays against the built-in opponents of `--opponents` (default `random,greedy`) in
every seat: the boards are split evenly between the (opponent, seat) pairs, each pair one
`AwaleSB3VecEnv`, so the policy sees both sides of the board (the tournament swaps seats).
Illegal moves are masked out; the reward is +1 / 0 / -1 at the end of each game. Every
`--eval-every` rollouts the greedy (deterministic) policy is evaluated against random and greedy
(`eval/win_rate_vs_*` in TensorBoard, beside SB3's own `rollout/` and `train/` curves).
"""

from __future__ import annotations

import argparse
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np



def mixed_env(
    envs: int,
    rules: str,
    opponents: Sequence[str],
    seed: int,
    obs: str = "compact",
    threads: int = 1,
):
    """One SB3 VecEnv over several `AwaleSB3VecEnv`s: the boards split evenly between every
    (opponent, seat) pair."""
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    from awale import Rules
    from awale.sb3 import AwaleSB3VecEnv

    players = Rules(rules).players
    pairs = [(o, s) for o in opponents for s in range(players)]
    sizes = [envs // len(pairs) + (k < envs % len(pairs)) for k in range(len(pairs))]
    if min(sizes) < 1:
        raise ValueError(f"--envs must be at least {len(pairs)} (one board per opponent and seat)")
    parts = [
        AwaleSB3VecEnv(
            n, rules, opponent=o, learner_seat=s, obs=obs, seed=seed + k, threads=threads
        )
        for k, ((o, s), n) in enumerate(zip(pairs, sizes))
    ]
    if len(parts) == 1:
        return parts[0]

    class MixedVecEnv(VecEnv):
        """Concatenation of `AwaleSB3VecEnv`s (same rules and spaces)."""

        def __init__(self) -> None:
            self.parts = parts
            self.bounds = np.cumsum([0] + sizes)
            self.render_mode = None
            super().__init__(sum(sizes), parts[0].observation_space, parts[0].action_space)

        def action_masks(self) -> np.ndarray:
            return np.concatenate([p.action_masks() for p in self.parts])

        def reset(self):
            for k, p in enumerate(self.parts):
                if self._seeds and self._seeds[0] is not None:
                    p.seed(self._seeds[0] + k)
            self._reset_seeds()
            return np.concatenate([p.reset() for p in self.parts])

        def step_async(self, actions: np.ndarray) -> None:
            for k, p in enumerate(self.parts):
                p.step_async(actions[self.bounds[k] : self.bounds[k + 1]])

        def step_wait(self):
            out = [p.step_wait() for p in self.parts]
            infos: list[dict[str, Any]] = []
            for o in out:
                infos.extend(o[3])
            return (
                np.concatenate([o[0] for o in out]),
                np.concatenate([o[1] for o in out]),
                np.concatenate([o[2] for o in out]),
                infos,
            )

        def close(self) -> None:
            pass

        def get_attr(self, attr_name, indices=None):
            return [getattr(self, attr_name) for _ in self._get_indices(indices)]

        def set_attr(self, attr_name, value, indices=None):
            setattr(self, attr_name, value)

        def env_method(self, method_name, *args, indices=None, **kwargs):
            if method_name == "action_masks":
                masks = self.action_masks()
                return [masks[i] for i in self._get_indices(indices)]
            raise AttributeError(f"MixedVecEnv boards have no method {method_name!r}")

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False for _ in self._get_indices(indices)]

        def get_images(self):
            return [None for _ in range(self.num_envs)]

    return MixedVecEnv()


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--rules", default="abapa", help="rules spec (abapa, awale, wari, oware3, ...)")
    ap.add_argument(
        "--opponents", default="random,greedy", help="built-in training opponents (random, greedy)"
    )
    ap.add_argument(
        "--obs", default="onehot:16", help="observation encoding (compact, onehot:L, thermometer:L)"
    )
    ap.add_argument("--net", default="256,256", help="hidden layers of the policy and value MLPs")
    ap.add_argument("--envs", type=int, default=64, help="boards stepped together")
    ap.add_argument("--timesteps", type=int, default=2_000_000, help="agent steps to train")
    ap.add_argument("--n-steps", type=int, default=128, help="rollout length per board")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--eval-every", type=int, default=20, help="rollouts between evaluations")
    ap.add_argument(
        "--eval-boards", type=int, default=64, help="eval games = 2 x this per opponent"
    )
    ap.add_argument(
        "--tournament-games", type=int, default=200, help="games per pairing at the end (0: none)"
    )
    ap.add_argument("--tournament-agents", default="random,greedy,alphabeta:depth=2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="simulator threads")
    ap.add_argument("--logdir", help="TensorBoard folder (default runs/maskable_ppo/RULES-SEED)")
    ap.add_argument("--no-tensorboard", action="store_true")
    ap.add_argument("--save", help="save the model to this path (.zip)")
    ap.add_argument("--fast", action="store_true", help="a smoke run of a few seconds (CI)")
    args = ap.parse_args(argv)
    if args.fast or os.environ.get("AWALE_FAST") == "1":
        args.envs, args.timesteps, args.n_steps = 32, 65_536, 64
        args.eval_every, args.eval_boards = 8, 32
        args.tournament_games, args.tournament_agents = 20, "random,greedy"
    return args


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Trains and evaluates; returns {"model", "policy", "tournament", "seconds",
    "train_seconds", "logdir"}."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from awale.recipes.ppo_selfplay import evaluate, final_tournament  # shared helpers (torch)

    t_start = time.perf_counter()
    torch.set_num_threads(1)
    logdir = Path(args.logdir or f"runs/maskable_ppo/{args.rules}-{args.seed}")
    tb = None
    if not args.no_tensorboard:
        try:
            import tensorboard  # noqa: F401

            tb = str(logdir)
            for old in logdir.glob("MaskablePPO_*"):  # a new run replaces the previous logs
                shutil.rmtree(old)
        except ImportError:
            print("tensorboard is not installed: training without TensorBoard logs")
    opponents = [o for o in args.opponents.split(",") if o]
    env = mixed_env(args.envs, args.rules, opponents, args.seed, args.obs, args.threads)
    net = [int(x) for x in args.net.split(",") if x]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(args.batch_size, args.envs * args.n_steps),
        n_epochs=args.epochs,
        learning_rate=args.lr,
        gamma=0.99,
        ent_coef=args.ent_coef,
        seed=args.seed,
        device="cpu",
        tensorboard_log=tb,
        policy_kwargs=dict(net_arch=net),
        verbose=0,
    )

    def greedy_actions(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(obs, action_masks=masks > 0, deterministic=True)
        return np.asarray(actions)

    class Evaluate(BaseCallback):
        """Win rates of the deterministic policy against random and greedy, into the logger."""

        def __init__(self) -> None:
            super().__init__()
            self.rollouts = 0
            self.history: list[dict[str, float]] = []

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            if args.eval_every and self.rollouts % args.eval_every == 0:
                self.run()

        def run(self) -> None:
            row: dict[str, float] = {"step": self.num_timesteps}
            for opp in ("random", "greedy"):
                e = evaluate(
                    greedy_actions, args.rules, opp, args.eval_boards, 10_000 + self.rollouts,
                    encoding=args.obs,
                )  # fmt: skip
                self.logger.record(f"eval/win_rate_vs_{opp}", e["win"])
                self.logger.record(f"eval/score_vs_{opp}", e["score"])
                row[f"eval/win_rate_vs_{opp}"] = e["win"]
            self.history.append(row)
            print(
                f"steps {self.num_timesteps:,}  win vs random {row['eval/win_rate_vs_random']:.0%}"
                f"  vs greedy {row['eval/win_rate_vs_greedy']:.0%}",
                flush=True,
            )

    callback = Evaluate()
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=callback, tb_log_name="MaskablePPO")
    took = time.perf_counter() - t0
    print(
        f"trained {model.num_timesteps:,} steps on {args.envs} boards of {args.rules} vs "
        f"{'/'.join(opponents)} in {took:.1f} s ({model.num_timesteps / took:,.0f} steps/s)",
        flush=True,
    )
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}")

    lock = threading.Lock()

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        # The tournament calls agents from several threads, and torch releases the GIL while
        # it computes: SB3's predict keeps its distribution in the policy object, so calls
        # must not overlap.
        with lock:
            return int(greedy_actions(observation[None], mask[None])[0])

    result = None
    if args.tournament_games:
        t0 = time.perf_counter()
        result = final_tournament(
            policy, "maskable_ppo", args.rules, args.tournament_agents, args.tournament_games,
            args.seed, out=str(logdir / "tournament"), obs=args.obs,
        )  # fmt: skip
        print(f"tournament: {time.perf_counter() - t0:.1f} s")
    seconds = time.perf_counter() - t_start
    print(f"total wall time {seconds:.1f} s; logs in {logdir}")
    return {
        "model": model,
        "policy": policy,
        "history": callback.history,
        "tournament": result,
        "seconds": seconds,
        "train_seconds": took,
        "logdir": str(logdir),
    }


if __name__ == "__main__":
    train(parse_args())

#!/usr/bin/env python3
"""PPO with action masking and self-play against past snapshots, in one file (CleanRL style).

The learner trains on the native vector env in self-play mode (`awale.AwaleVectorEnv(...,
opponent="self")`, where the caller moves every seat): on each board the learner holds one seat,
drawn at random for every game, and an opponent moves the other seats: a frozen copy of the
current policy on half the boards (`--latest`), snapshots of earlier policies drawn from a pool on
the others. A snapshot of the learner joins the pool every `--snapshot-every` updates (the pool
keeps the last `--pool-size`).

The learner's transitions are its own moves only: the reward of a move is what the learner gets
before its next move (+1 / 0 / -1 when the game ends; `--shaping` adds a potential-based term on
the store difference, off by default), and GAE runs over each board's own sequence of learner
moves.
The rest is CleanRL's PPO: a masked categorical policy (illegal logits set to -1e8), clipped
objective, value loss, entropy bonus, advantage normalisation, gradient clipping, a linearly
annealed learning rate. Actor and critic are MLPs over the compact observation plus a one-hot of
every pit's count (which makes captures, a last seed landing on 1 or 2 seeds, easy to see).

Logs to TensorBoard (`--logdir`, default runs/ppo_selfplay/<rules>-<seed>; `tensorboard --logdir
runs`) and to `metrics.jsonl` in the same folder, evaluates the greedy (argmax) policy against
the built-in `random` and `greedy` agents during training, and ends with a tournament
(`awale.tournament`) of the trained policy against the built-in agents.

    python -m awale.recipes.ppo_selfplay --fast          # smoke run, ~15 s (what CI runs)
    python -m awale.recipes.ppo_selfplay                 # default run: abapa, a few minutes on 2 cores
    python -m awale.recipes.ppo_selfplay --rules oware3 --total-steps 2000000 --save ppo_oware3.pt

Needs torch (CPU is enough); TensorBoard logging needs the `tensorboard` package (without it the
recipe warns and logs to metrics.jsonl only). `AWALE_FAST=1` in the environment means `--fast`.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch
import torch.nn as nn

import awale


@dataclass
class Config:
    rules: str = "abapa"
    seed: int = 0
    envs: int = 128  # boards stepped together
    steps: int = 64  # env steps per rollout (every board moves once per env step)
    total_steps: int = 2_000_000  # board moves (learner + opponents) to play in training
    lr: float = 5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatches: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.02
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    shaping: float = 0.0  # potential-based shaping on the store difference (0: none)
    snapshot_every: int = 10  # updates between snapshots added to the pool
    pool_size: int = 20  # snapshots kept (oldest dropped)
    opponent_groups: int = 4  # opponents per rollout (the boards are split between them)
    latest: float = 0.5  # share of the groups that face the current policy (frozen copy)
    eval_every: int = 20  # updates between evaluations against random and greedy (0: none)
    eval_boards: int = 64  # eval games per opponent = 2 x eval_boards (both seats)
    tournament_games: int = 200  # games per pairing in the final tournament (0: none)
    tournament_agents: str = "random,greedy,alphabeta:depth=2"
    threads: int = 1  # simulator threads
    torch_threads: int = 1
    logdir: Optional[str] = None
    save: Optional[str] = None
    tensorboard: bool = True
    verbose: bool = True

    @staticmethod
    def fast(**overrides: Any) -> "Config":
        """A smoke-test size: a few seconds of training, a short tournament."""
        c = Config(
            envs=64,
            steps=32,
            total_steps=120_000,
            snapshot_every=5,
            eval_every=10,
            eval_boards=32,
            tournament_games=20,
            tournament_agents="random,greedy",
        )
        for k, v in overrides.items():
            setattr(c, k, v)
        return c


# --- the network ---------------------------------------------------------------------------


def layer(i: int, o: int, std: float = math.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs over features of the compact observation: every pit's
    seed count one-hot (``0 .. onehot-1``, larger counts in the last slot), the counts and
    stores scaled to about 1, and the mover's seat one-hot. The one-hot counts make captures
    (a last seed landing on 1 or 2 seeds) easy to learn."""

    def __init__(self, rules: awale.Rules, hidden: int = 128, onehot: int = 16) -> None:
        super().__init__()
        n_obs, n_act = rules.obs_dim("compact"), rules.houses
        self.pits, self.onehot = rules.pits, onehot
        scale = np.ones(n_obs, dtype=np.float32)
        scale[: rules.pits] = 1.0 / rules.seeds
        scale[rules.pits : rules.pits + rules.players] = 2.0 / rules.total_seeds
        self.register_buffer("scale", torch.from_numpy(scale))
        n_in = n_obs + rules.pits * onehot
        self.actor = nn.Sequential(
            layer(n_in, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
            layer(hidden, n_act, 0.01),
        )  # fmt: skip
        self.critic = nn.Sequential(
            layer(n_in, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
            layer(hidden, 1, 1.0),
        )  # fmt: skip

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        counts = obs[:, : self.pits].long().clamp(max=self.onehot - 1)
        onehot = nn.functional.one_hot(counts, self.onehot).flatten(1).float()
        return torch.cat([obs * self.scale, onehot], 1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.features(obs)).squeeze(-1)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits: illegal actions get a large negative logit (probability 0)."""
        return self.actor(self.features(obs)).masked_fill(~mask, -1e8)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: Optional[torch.Tensor] = None):
        """(action, log-prob, entropy, value) under the masked categorical distribution."""
        f = self.features(obs)
        logits = self.actor(f).masked_fill(~mask, -1e8)
        logp_all = torch.log_softmax(logits, -1)
        if action is None:
            action = torch.distributions.Categorical(logits=logits).sample()
        logp = logp_all.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        p = logp_all.exp()
        entropy = -(p * logp_all).masked_fill(~mask, 0.0).sum(-1)
        return action, logp, entropy, self.critic(f).squeeze(-1)


class NumpyPolicy:
    """The actor as NumPy arrays: `policy(observation, mask) -> house`, the policy
    `awale.ObservationAgent` turns into an agent (greedy: the most likely legal action). Faster
    than torch for one board at a time, and picklable."""

    def __init__(self, agent: Agent) -> None:
        self.scale = agent.scale.detach().numpy().copy()
        self.pits, self.onehot = agent.pits, agent.onehot
        self.layers = [
            (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
            for m in agent.actor
            if isinstance(m, nn.Linear)
        ]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        counts = np.minimum(obs[:, : self.pits], self.onehot - 1).astype(np.int64)
        onehot = np.eye(self.onehot, dtype=np.float32)[counts].reshape(len(obs), -1)
        x = np.concatenate([obs * self.scale, onehot], 1)
        for k, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if k < len(self.layers) - 1:
                x = np.tanh(x)
        return x

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy legal actions for a batch `(n, obs_dim)` / `(n, houses)`."""
        return np.where(np.asarray(mask) > 0, self.logits(obs), -np.inf).argmax(-1)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.act(observation[None], mask[None])[0])


# --- evaluation --------------------------------------------------------------------------


def evaluate(
    policy: Callable[[np.ndarray, np.ndarray], np.ndarray],
    rules: str,
    opponent: str,
    boards: int,
    seed: int,
    opening: int = 2,
    encoding: str = "compact",
) -> dict[str, float]:
    """Plays `boards` games in each seat against a built-in agent (`opponent="random"` or
    `"greedy"`), `opening` random plies first; returns win/draw/loss rates and the score.
    `policy(observations, masks)` gives one action per board (observations in `encoding`)."""
    results = []
    for seat in range(awale.Rules(rules).players):
        env = awale.AwaleVectorEnv(
            boards, rules, opponent=opponent, learner_seat=seat, opening=opening, obs=encoding,
            copy=False,
        )  # fmt: skip
        obs, info = env.reset(seed=seed + seat)
        done = np.zeros(boards, dtype=bool)
        result = np.zeros(boards)
        while not done.all():  # each board's first game counts (later ones are ignored)
            obs, reward, term, trunc, info = env.step(policy(obs, info["action_mask"]))
            ended = (term | trunc) & ~done
            result[ended] = reward[ended]
            done |= ended
        results.append(result)
    r = np.concatenate(results)
    return {
        "win": float((r > 0).mean()),
        "draw": float((r == 0).mean()),
        "loss": float((r < 0).mean()),
        "score": float(((r > 0) + 0.5 * (r == 0)).mean()),
        "games": int(r.size),
    }


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k / n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def final_tournament(
    policy: Callable[[np.ndarray, np.ndarray], int],
    name: str,
    rules: str,
    agents: str,
    games: int,
    seed: int,
    out: Optional[str] = None,
    obs: str = "compact",
) -> Any:
    """A gauntlet of the trained policy against built-in agents through `awale.tournament`;
    prints the ratings and the policy's win rate (95% Wilson interval) against each. `out`
    (the games and results) is emptied first: a tournament folder resumes, and these games are
    a new policy's."""
    if out is not None and Path(out).exists():
        shutil.rmtree(out)
    result = awale.tournament(
        [a for a in agents.split(",") if a],
        rules=rules,
        games=games,
        seed=seed,
        gauntlet=(name, awale.ObservationAgent(policy, obs=obs)),
        out=out,
    )
    print(result.table())
    for line in win_rates(result, name):
        print(line)
    return result


def win_rates(result: Any, name: str) -> list[str]:
    """One line per opponent: the policy's wins, draws and losses, win rate and its 95%
    Wilson interval, from the tournament's records."""
    lines = []
    for opp, (w, d, lost) in pair_counts(result, name).items():
        n = w + d + lost
        lo, hi = wilson(w, n)
        lines.append(
            f"{name} vs {opp}: win {w / n:.1%} [{lo:.1%}, {hi:.1%}]  draw {d / n:.1%}  "
            f"loss {lost / n:.1%}  score {(w + d / 2) / n:.1%}  ({n} games)"
        )
    return lines


def pair_counts(result: Any, name: str) -> dict[str, tuple[int, int, int]]:
    """(wins, draws, losses) of `name` against every agent it played in a tournament
    (`TournamentResult.wins` / `.draws`: row against column)."""
    i = result.names.index(name)
    counts = {}
    for j, other in enumerate(result.names):
        w, d, lost = int(result.wins[i, j]), int(result.draws[i, j]), int(result.wins[j, i])
        if j != i and w + d + lost:
            counts[other] = (w, d, lost)
    return counts


# --- logging -----------------------------------------------------------------------------


class Logger:
    """TensorBoard (when the package is there) and metrics.jsonl, with the same scalars. A new
    run in the same folder replaces the previous run's logs."""

    def __init__(self, logdir: Path, config: Config, tensorboard: bool) -> None:
        logdir.mkdir(parents=True, exist_ok=True)
        for old in logdir.glob("events.out.tfevents.*"):
            old.unlink()
        self.logdir = logdir
        self.jsonl = open(logdir / "metrics.jsonl", "w")
        self.history: list[dict[str, float]] = []
        self.tb = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.tb = SummaryWriter(str(logdir))
                self.tb.add_text("config", json.dumps(asdict(config), indent=1))
            except ImportError:
                print("tensorboard is not installed: logging to metrics.jsonl only")

    def log(self, step: int, scalars: dict[str, float]) -> None:
        row = {"step": step, **{k: float(v) for k, v in scalars.items()}}
        self.history.append(row)
        self.jsonl.write(json.dumps(row) + "\n")
        self.jsonl.flush()
        if self.tb is not None:
            for k, v in scalars.items():
                self.tb.add_scalar(k, v, step)

    def close(self) -> None:
        self.jsonl.close()
        if self.tb is not None:
            self.tb.close()


# --- training ----------------------------------------------------------------------------


def potential(obs: np.ndarray, rules: awale.Rules) -> np.ndarray:
    """The mover's store minus the mean of the others' stores, over half the seeds (compact
    observations: the stores follow the pits, the mover's first)."""
    stores = obs[..., rules.pits : rules.pits + rules.players]
    lead = stores[..., 0] - stores[..., 1:].mean(-1)
    return lead / (rules.total_seeds / 2)


def train(cfg: Config) -> dict[str, Any]:
    """Trains a policy; returns {"agent", "policy" (NumpyPolicy), "history" (logged rows),
    "tournament" (the final TournamentResult or None), "seconds", "logdir"}."""
    t_start = time.perf_counter()
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    rng = np.random.default_rng(cfg.seed)
    rules = awale.Rules(cfg.rules)
    players, houses = rules.players, rules.houses
    N, T = cfg.envs, cfg.steps
    logdir = Path(cfg.logdir or f"runs/ppo_selfplay/{rules.name}-{cfg.seed}")
    logger = Logger(logdir, cfg, cfg.tensorboard)

    env = awale.AwaleVectorEnv(
        N, rules, opponent="self", autoreset_mode="same_step", threads=cfg.threads, copy=False
    )
    obs_np, info = env.reset(seed=cfg.seed)
    obs = torch.tensor(obs_np)
    mask = torch.tensor(info["action_mask"].astype(bool))
    to_move = info["to_move"].astype(np.int64)
    seat = rng.integers(players, size=N)  # the learner's seat on each board

    agent = Agent(rules, cfg.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    pool: list[Agent] = [copy.deepcopy(agent).requires_grad_(False)]
    groups = np.arange(N) % max(1, cfg.opponent_groups)

    n_obs = obs.shape[1]
    b_obs = torch.zeros((T, N, n_obs))
    b_mask = torch.zeros((T, N, houses), dtype=torch.bool)
    b_act = torch.zeros((T, N), dtype=torch.long)
    b_logp = torch.zeros((T, N))
    b_val = torch.zeros((T, N))
    learner = np.zeros((T, N), dtype=bool)
    rew = np.zeros((T, N), dtype=np.float32)
    done = np.zeros((T, N), dtype=bool)

    updates = max(1, cfg.total_steps // (N * T))
    moves = 0  # board moves played in training (both sides)
    games, outcomes = 0, []  # learner's results against the pool
    rows = np.arange(N)
    t_train = time.perf_counter()

    for update in range(1, updates + 1):
        if cfg.anneal_lr:
            optimizer.param_groups[0]["lr"] = cfg.lr * (1.0 - (update - 1.0) / updates)
        # One opponent per group of boards for this rollout: a frozen copy of the current
        # policy for a `latest` share of the groups, snapshots drawn from the pool for the rest.
        n_groups = max(1, cfg.opponent_groups)
        n_latest = int(round(cfg.latest * n_groups))
        opponents = [copy.deepcopy(agent).requires_grad_(False)] * n_latest + [
            pool[i] for i in rng.integers(len(pool), size=n_groups - n_latest)
        ]
        learner[:] = False
        rew[:] = 0.0
        done[:] = False
        last = np.full(N, -1)  # each board's latest learner move in this rollout
        for t in range(T):
            mine = to_move == seat
            actions = torch.zeros(N, dtype=torch.long)
            with torch.no_grad():
                if mine.any():
                    idx = torch.from_numpy(rows[mine])
                    a, logp, _, v = agent.act(obs[idx], mask[idx])
                    actions[idx] = a
                    b_obs[t, idx], b_mask[t, idx], b_act[t, idx] = obs[idx], mask[idx], a
                    b_logp[t, idx], b_val[t, idx] = logp, v
                for g, opp in enumerate(opponents):
                    theirs = ~mine & (groups == g)
                    if theirs.any():
                        idx = torch.from_numpy(rows[theirs])
                        logits = opp.logits(obs[idx], mask[idx])
                        actions[idx] = torch.distributions.Categorical(logits=logits).sample()
            learner[t] = mine
            last[mine] = t
            obs_np, _, term, trunc, info = env.step(actions.numpy())
            moves += N
            ended = term | trunc
            if ended.any():
                final_rewards = info["final_info"]["rewards"]
                for i in np.flatnonzero(ended):
                    r = float(final_rewards[i, seat[i]])
                    if last[i] >= 0:
                        rew[last[i], i] += r
                        done[last[i], i] = True
                    outcomes.append(r)
                    games += 1
                seat[ended] = rng.integers(players, size=int(ended.sum()))
            obs = torch.tensor(obs_np)
            mask = torch.tensor(info["action_mask"].astype(bool))
            to_move = info["to_move"].astype(np.int64)

        # GAE over each board's own sequence of learner moves. A learner move whose follow-up
        # is not known yet (the opponent is to move when the rollout stops) bootstraps nothing
        # and is left out of the update.
        with torch.no_grad():
            now_val = agent.value(obs).numpy()
        mine_now = to_move == seat
        next_val = np.where(mine_now, now_val, 0.0)
        # Potential-based shaping (Ng et al. 1999): phi = the learner's store lead over the
        # others' mean, in half the seeds; each move earns shaping * (gamma phi(next) - phi),
        # which sums to -phi(start) = 0 over a game and leaves the best policy unchanged, but
        # credits captures at once instead of at the end of the game.
        phi = potential(b_obs.numpy(), rules) * cfg.shaping
        next_phi = np.where(mine_now, potential(obs.numpy(), rules) * cfg.shaping, 0.0)
        has_next = mine_now.copy()
        next_adv = np.zeros(N, dtype=np.float32)
        adv = np.zeros((T, N), dtype=np.float32)
        valid = np.zeros((T, N), dtype=bool)
        val_np = b_val.numpy()
        for t in reversed(range(T)):
            m = learner[t]
            nonterm = 1.0 - done[t]
            ok = m & (done[t] | has_next)
            shaped = rew[t] + cfg.gamma * next_phi * nonterm - phi[t]
            delta = shaped + cfg.gamma * next_val * nonterm - val_np[t]
            a_t = np.where(ok, delta + cfg.gamma * cfg.gae_lambda * nonterm * next_adv, 0.0)
            adv[t] = np.where(m, a_t, 0.0)
            valid[t] = ok
            next_val = np.where(m, val_np[t], next_val)
            next_phi = np.where(m, phi[t], next_phi)
            next_adv = np.where(m, a_t, next_adv)
            has_next |= m
        ret = adv + val_np

        sel = torch.from_numpy(valid.reshape(-1))
        f_obs = b_obs.reshape(-1, n_obs)[sel]
        f_mask = b_mask.reshape(-1, houses)[sel]
        f_act = b_act.reshape(-1)[sel]
        f_logp = b_logp.reshape(-1)[sel]
        f_adv = torch.from_numpy(adv.reshape(-1))[sel]
        f_ret = torch.from_numpy(ret.reshape(-1))[sel]
        f_val = b_val.reshape(-1)[sel]
        size = int(sel.sum())
        clipfracs, approx_kl = [], torch.tensor(0.0)
        for _ in range(cfg.update_epochs):
            for i in torch.randperm(size).chunk(cfg.minibatches):
                _, logp, entropy, v = agent.act(f_obs[i], f_mask[i], f_act[i])
                ratio = (logp - f_logp[i]).exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - (logp - f_logp[i])).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                a = f_adv[i]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(
                    -a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
                ).mean()
                v_loss = 0.5 * ((v - f_ret[i]) ** 2).mean()
                ent = entropy.mean()
                loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
                optimizer.step()

        if update % cfg.snapshot_every == 0:
            pool.append(copy.deepcopy(agent).requires_grad_(False))
            del pool[: max(0, len(pool) - cfg.pool_size)]

        elapsed = time.perf_counter() - t_train
        var_y = f_ret.var()
        scalars = {
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            "charts/moves_per_sec": moves / elapsed,
            "charts/samples": size,
            "charts/pool_size": len(pool),
            "losses/policy": pg_loss.item(),
            "losses/value": v_loss.item(),
            "losses/entropy": ent.item(),
            "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)),
            "losses/explained_variance": float(1 - (f_ret - f_val).var() / var_y)
            if var_y > 0
            else float("nan"),
        }
        if outcomes:
            o = np.array(outcomes)
            scalars["selfplay/win_rate_vs_pool"] = float((o > 0).mean())
            scalars["selfplay/draw_rate_vs_pool"] = float((o == 0).mean())
            scalars["selfplay/games"] = games
            outcomes = []
        if cfg.eval_every and (update % cfg.eval_every == 0 or update == updates):
            greedy_policy = NumpyPolicy(agent)
            for opp in ("random", "greedy"):
                e = evaluate(greedy_policy.act, cfg.rules, opp, cfg.eval_boards, 10_000 + update)
                scalars[f"eval/win_rate_vs_{opp}"] = e["win"]
                scalars[f"eval/score_vs_{opp}"] = e["score"]
            if cfg.verbose:
                print(
                    f"update {update}/{updates}  moves {moves:,}  {moves / elapsed:,.0f} moves/s  "
                    f"win vs random {scalars['eval/win_rate_vs_random']:.0%}  "
                    f"vs greedy {scalars['eval/win_rate_vs_greedy']:.0%}  "
                    f"entropy {ent.item():.2f}",
                    flush=True,
                )
        logger.log(moves, scalars)

    train_seconds = time.perf_counter() - t_train
    policy = NumpyPolicy(agent)
    print(
        f"trained {updates} updates, {moves:,} moves of {rules} on {N} boards in "
        f"{train_seconds:.1f} s ({moves / train_seconds:,.0f} moves/s)",
        flush=True,
    )
    if cfg.save:
        torch.save({"config": asdict(cfg), "agent": agent.state_dict()}, cfg.save)
        print(f"saved {cfg.save}")
    result = None
    if cfg.tournament_games:
        t0 = time.perf_counter()
        result = final_tournament(
            policy, "ppo", cfg.rules, cfg.tournament_agents, cfg.tournament_games, cfg.seed,
            out=str(logdir / "tournament"),
        )  # fmt: skip
        print(f"tournament: {time.perf_counter() - t0:.1f} s")
        if logger.tb is not None:
            for opp, (w, d, lost) in pair_counts(result, "ppo").items():
                logger.tb.add_scalar(f"final/win_rate_vs_{opp}", w / max(1, w + d + lost), moves)
    logger.close()
    seconds = time.perf_counter() - t_start
    print(f"total wall time {seconds:.1f} s; logs in {logdir}")
    return {
        "agent": agent,
        "policy": policy,
        "history": logger.history,
        "tournament": result,
        "seconds": seconds,
        "train_seconds": train_seconds,
        "logdir": str(logdir),
    }


def load_policy(path: str) -> NumpyPolicy:
    """The greedy NumPy policy of a checkpoint saved with `--save`."""
    data = torch.load(path, map_location="cpu")
    cfg = data["config"]
    agent = Agent(awale.Rules(cfg["rules"]), cfg["hidden"])
    agent.load_state_dict(data["agent"])
    return NumpyPolicy(agent)


def parse_args(argv: Optional[list[str]] = None) -> Config:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    defaults = Config()
    for f in Config.__dataclass_fields__.values():
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if isinstance(value, bool):
            ap.add_argument(flag, action=argparse.BooleanOptionalAction, default=value)
        else:
            kind = type(value) if value is not None else str
            ap.add_argument(flag, type=kind, default=value, help=f"default {value}")
    ap.add_argument("--fast", action="store_true", help="a smoke run of a few seconds (CI)")
    args = vars(ap.parse_args(argv))
    fast = args.pop("fast")
    if fast:
        given = {k: v for k, v in args.items() if v != getattr(defaults, k)}
        return Config.fast(**given)
    return Config(**args)


if __name__ == "__main__":
    if os.environ.get("AWALE_FAST") == "1":
        import sys

        sys.argv.append("--fast")
    train(parse_args())

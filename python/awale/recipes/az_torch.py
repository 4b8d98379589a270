"""AlphaZero in one PyTorch file: the Rust search, a PyTorch network (CleanRL style).

Self-play runs the Rust trainer's guided search (Gumbel root search with sequential halving,
playout-cap randomisation) through :class:`awale.SelfPlay`, whose trees live in Rust and call
this file's network once per batch of leaves; the network, the replay buffer, the loss and the
optimiser are plain PyTorch below. The defaults are the Rust recipe ``training/abapa.toml``'s
(the same search, shapes and schedule), sized for 2 CPU cores and 30 minutes; ``--device cuda``
trains and evaluates on a GPU.

Every ``--generations-every`` iterations the network is saved as
``OUT/generations/gen-NNNNNN.safetensors`` in the format :func:`awale.torch.save` writes, with
its counters (iteration, games, positions, gradient steps, seconds): each file plays as
``nn:path=FILE`` in ``awale tournament``/``awale.match``, loads with :class:`awale.Network`,
and ``awale ladder OUT`` rates them all. TensorBoard logs go to ``OUT/tb`` (with the
``tensorboard`` package), metrics to ``OUT/metrics.jsonl``. The run ends with a match against
``--final-opponent`` on openings and a seed that differ from training's.

    python -m awale.recipes.az_torch                          # abapa, 27 minutes, then 400 games vs depth 6
    python -m awale.recipes.az_torch --fast                   # a tiny run (seconds), as CI runs it
    python -m awale.recipes.az_torch --device cuda --hidden 512 512 512

Needs ``torch`` and ``safetensors`` (``pip install awale[torch]``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from typing import Any, Dict, List, Optional

import numpy as np
import torch
import torch.nn.functional as F

import awale
import awale.torch as awale_torch


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="AlphaZero with the Rust search and a PyTorch network (one file).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--rules", default="abapa", help="rules spec")
    p.add_argument("--out", default="runs/az_torch", help="run folder")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ...")
    p.add_argument("--torch-threads", type=int, default=0, help="torch CPU threads of the gradient steps (0: torch's default)")
    p.add_argument("--selfplay-torch-threads", type=int, default=1,
                   help="torch CPU threads of each self-play evaluation (1: each self-play thread keeps to one core)")
    # network
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="trunk widths")
    p.add_argument("--encoding", default="onehot:16", help="compact, onehot:L or thermometer:L")
    # self-play and search (the keys of the Rust trainer's [search] and [selfplay] sections)
    p.add_argument("--games", type=int, default=256, help="self-play games in flight")
    p.add_argument("--threads", type=int, default=2, help="self-play threads (search)")
    p.add_argument("--eval-batch", type=int, default=-1,
                   help="leaves per network call, every thread's gathered, two batches in flight "
                        "(SelfPlay's eval_batch); 0: each thread calls the network with its own "
                        "games' leaves; -1: half the games on a GPU, 0 on a CPU")
    p.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"],
                   help="self-play's forward pass on a GPU (awale.torch.Evaluator)")
    p.add_argument("--sims", type=int, default=64)
    p.add_argument("--fast-sims", type=int, default=16)
    p.add_argument("--full-search-prob", type=float, default=0.25)
    p.add_argument("--kind", default="gumbel", choices=["gumbel", "puct"])
    p.add_argument("--gumbel-actions", type=int, default=6)
    p.add_argument("--temperature-plies", type=int, default=16)
    p.add_argument("--random-opening-plies", type=int, default=2)
    p.add_argument("--max-plies", type=int, default=300)
    p.add_argument("--positions-per-iteration", type=int, default=2048)
    # learning
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--max-minutes", type=float, default=27.0, help="stop training after this")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--steps-per-iteration", type=int, default=40)
    p.add_argument("--replay-capacity", type=int, default=300_000)
    p.add_argument("--min-replay", type=int, default=4096)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--lr-final", type=float, default=2e-4)
    p.add_argument("--warmup-steps", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--value-weight", type=float, default=1.0)
    p.add_argument("--score-weight", type=float, default=0.5)
    # generations and evaluation
    p.add_argument("--generations-every", type=int, default=100)
    p.add_argument("--eval-every", type=int, default=250, help="iterations between short evaluations (0: none)")
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--eval-opponents", nargs="*", default=["greedy", "alphabeta:depth=2", "alphabeta:depth=4"])
    p.add_argument("--eval-sims", type=int, default=128, help="the network's simulations in evaluation games")
    p.add_argument("--final-opponent", default="alphabeta:depth=6")
    p.add_argument("--final-games", type=int, default=400, help="paired games of the final match (0: none)")
    p.add_argument("--final-seed", type=int, default=2026)
    p.add_argument("--final-openings", type=int, default=6)
    p.add_argument("--fast", action="store_true", help="a tiny run (CI): small network, few positions")
    args = p.parse_args(argv)
    if args.fast:
        args.hidden = [32]
        args.games, args.threads = 16, 1
        args.sims, args.fast_sims = 8, 4
        args.positions_per_iteration, args.iterations = 64, 4
        args.batch_size, args.steps_per_iteration, args.min_replay = 32, 2, 64
        args.replay_capacity, args.warmup_steps = 1024, 2
        args.generations_every, args.eval_every, args.eval_games = 2, 2, 2
        args.eval_opponents, args.eval_sims = ["random"], 4
        args.final_opponent, args.final_games, args.final_openings = "random", 4, 2
    return args


class Replay:
    """A ring buffer of training samples (NumPy arrays, as :meth:`awale.SelfPlay.play` gives)."""

    KEYS = ("obs", "mask", "policy", "value", "score")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.data: Dict[str, np.ndarray] = {}
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, batch: Dict[str, Any]) -> None:
        n = len(batch["obs"])
        if not self.data:
            for k in self.KEYS:
                self.data[k] = np.zeros((self.capacity, *batch[k].shape[1:]), batch[k].dtype)
        idx = (self.next + np.arange(n)) % self.capacity
        for k in self.KEYS:
            self.data[k][idx] = batch[k][-self.capacity :] if n > self.capacity else batch[k]
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)
        self.added += n

    def sample(self, rng: np.random.Generator, n: int, device: torch.device) -> Dict[str, torch.Tensor]:
        idx = rng.integers(0, self.size, n)
        return {k: torch.from_numpy(self.data[k][idx]).to(device) for k in self.KEYS}


def lr_at(args: argparse.Namespace, step: int, total: int) -> float:
    """Linear warm-up, then cosine from ``lr`` to ``lr_final`` (the Rust trainer's schedule)."""
    if step < args.warmup_steps:
        return args.lr * (step + 1) / args.warmup_steps
    t = min(1.0, (step - args.warmup_steps) / max(1, total - args.warmup_steps))
    return args.lr_final + 0.5 * (args.lr - args.lr_final) * (1 + math.cos(math.pi * t))


def loss_of(net: awale_torch.AwaleNet, b: Dict[str, torch.Tensor], args: argparse.Namespace):
    """The Rust trainer's loss: policy cross-entropy (illegal moves masked), value and score
    mean squared errors."""
    h = net.features(b["obs"])
    logits = net.policy(h).masked_fill(~b["mask"], -1e4)
    policy_loss = -(b["policy"] * F.log_softmax(logits, dim=1)).sum(1).mean()
    nv = net.value.out_features
    value = torch.tanh(net.value(h))
    value_loss = F.mse_loss(value, b["value"][:, :nv])
    score = torch.tanh(net.score(h)).squeeze(1)
    score_loss = F.mse_loss(score, b["score"])
    total = policy_loss + args.value_weight * value_loss + args.score_weight * score_loss
    return total, policy_loss, value_loss, score_loss


def save_generation(net: awale_torch.AwaleNet, out: str, counters: Dict[str, Any]) -> str:
    path = os.path.join(out, "generations", f"gen-{counters['iteration']:06d}.safetensors")
    awale_torch.save(net, path, counters=counters)
    return path


def main(argv: Optional[List[str]] = None) -> Dict[str, Any]:
    args = parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit(
            f"az_torch.py: --device {args.device}, but PyTorch sees no CUDA GPU here (torch "
            f"{torch.__version__}, built for CUDA {torch.version.cuda}); use --device cpu"
        )
    if args.eval_batch < 0:
        args.eval_batch = max(args.games // 2, 1) if device.type == "cuda" else 0
    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    os.makedirs(os.path.join(args.out, "generations"), exist_ok=True)
    with open(os.path.join(args.out, "args.json"), "w") as f:
        json.dump(vars(args), f, indent=1)

    net = awale_torch.new_network(args.rules, args.hidden, args.encoding).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    # Inference mode, pinned buffers reused on a GPU; thread-safe: with eval_batch 0 the
    # self-play threads call it at once (each while the other's trees step in Rust), otherwise
    # one evaluator thread calls it with every thread's leaves.
    evaluate = awale_torch.Evaluator(net, device, precision=args.precision)
    learn_threads = torch.get_num_threads()

    selfplay = awale.SelfPlay(
        args.rules, evaluate, games=args.games, threads=args.threads, seed=args.seed,
        eval_batch=args.eval_batch,
        encoding=args.encoding, kind=args.kind, sims=args.sims,
        fast_sims=args.fast_sims, full_search_prob=args.full_search_prob,
        gumbel_actions=args.gumbel_actions, temperature_plies=args.temperature_plies,
        random_opening_plies=args.random_opening_plies, max_plies=args.max_plies,
    )
    writer = None
    try:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(os.path.join(args.out, "tb"))
    except ImportError:
        print("tensorboard is not installed: no TensorBoard logs", file=sys.stderr)
    metrics = open(os.path.join(args.out, "metrics.jsonl"), "w")
    replay = Replay(args.replay_capacity)
    total_steps = args.iterations * args.steps_per_iteration
    counters = {"iteration": 0, "games": 0, "positions": 0, "train_steps": 0, "elapsed": 0.0}
    start = time.time()
    save_generation(net.cpu(), args.out, counters)
    net.to(device)
    play_time = learn_time = 0.0
    moves = 0
    for it in range(1, args.iterations + 1):
        t0 = time.time()
        net.eval()
        if device.type == "cpu" and args.selfplay_torch_threads > 0:
            torch.set_num_threads(args.selfplay_torch_threads)
        data = selfplay.play(args.positions_per_iteration)
        torch.set_num_threads(learn_threads)
        t1 = time.time()
        replay.add(data)
        stats = data["stats"]
        moves += stats["moves"]
        counters["games"] += stats["games"]
        counters["positions"] += stats["positions"]
        losses = []
        if replay.size >= args.min_replay:
            net.train()
            for _ in range(args.steps_per_iteration):
                for g in opt.param_groups:
                    g["lr"] = lr_at(args, counters["train_steps"], total_steps)
                total, pl, vl, sl = loss_of(net, replay.sample(rng, args.batch_size, device), args)
                opt.zero_grad(set_to_none=True)
                total.backward()
                opt.step()
                counters["train_steps"] += 1
                losses.append((total.item(), pl.item(), vl.item(), sl.item()))
        t2 = time.time()
        play_time += t1 - t0
        learn_time += t2 - t1
        counters["iteration"] = it
        counters["elapsed"] = time.time() - start
        row: Dict[str, Any] = {
            **counters,
            "moves_per_s": stats["moves"] / max(t1 - t0, 1e-9),
            "positions_per_s": stats["positions"] / max(t1 - t0, 1e-9),
            "mean_batch": stats["mean_batch"],
            "evaluator_busy": stats.get("evaluator_busy"),
            "selfplay_s": t1 - t0,
            "learn_s": t2 - t1,
        }
        if losses:
            m = np.mean(np.array(losses), axis=0)
            row.update(loss=m[0], policy_loss=m[1], value_loss=m[2], score_loss=m[3])
        if writer is not None:
            for k, v in row.items():
                if k != "iteration" and v is not None:
                    writer.add_scalar(k, v, it)
        last = it == args.iterations or counters["elapsed"] >= args.max_minutes * 60
        if args.generations_every and (it % args.generations_every == 0 or last):
            save_generation(net.cpu(), args.out, counters)
            net.to(device)
        if args.eval_every and (it % args.eval_every == 0 or last):
            path = save_generation(net.cpu(), args.out, counters)
            net.to(device)
            spec = f"nn:path={path},sims={args.eval_sims},name=net"
            result = awale.tournament(
                args.eval_opponents, rules=args.rules, games=args.eval_games,
                gauntlet=spec, seed=it,
            )
            scores = {
                row_name: float(result.crosstable[result.names.index("net")][result.names.index(row_name)])
                / args.eval_games
                for row_name in result.names
                if row_name != "net"
            }
            row["eval"] = scores
            if writer is not None:
                for k, v in scores.items():
                    writer.add_scalar(f"eval/{k}", v, it)
        metrics.write(json.dumps(row) + "\n")
        metrics.flush()
        if it % 10 == 0 or last or args.fast:
            print(
                f"it {it} positions {counters['positions']} games {counters['games']} "
                f"{row['moves_per_s']:.0f} moves/s {row['mean_batch']:.0f} leaves/call"
                + (f" network busy {100 * row['evaluator_busy']:.0f}%"
                   if row["evaluator_busy"] is not None else "")
                + f" loss {row.get('loss', float('nan')):.3f} "
                f"{counters['elapsed']:.0f}s" + (f" eval {row['eval']}" if "eval" in row else ""),
                flush=True,
            )
        if last:
            break
    final_path = os.path.join(args.out, "network.safetensors")
    awale_torch.save(net.cpu(), final_path, counters=counters)
    summary: Dict[str, Any] = {
        **counters,
        "selfplay_s": play_time,
        "learn_s": learn_time,
        "moves_per_s": moves / max(play_time, 1e-9),
        "network": final_path,
    }
    if args.final_games > 0:
        m = awale.match(
            f"nn:path={final_path},sims={args.eval_sims},name=az_torch",
            args.final_opponent, rules=args.rules, games=args.final_games,
            openings=args.final_openings, seed=args.final_seed,
        )
        summary["final"] = {"opponent": args.final_opponent, "games": args.final_games,
                            "score": m.score, "elo": m.elo, "elo_low": m.elo_low,
                            "elo_high": m.elo_high, "wins": m.wins, "draws": m.draws,
                            "losses": m.losses}
        print(f"final: {m.score:.1%} against {args.final_opponent} over {args.final_games} games "
              f"(Elo {m.elo:+.0f} [{m.elo_low:+.0f}, {m.elo_high:+.0f}])", flush=True)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    if writer is not None:
        writer.close()
    metrics.close()
    return summary


if __name__ == "__main__":
    main()

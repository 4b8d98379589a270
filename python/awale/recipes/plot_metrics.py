"""Plot the curves of an `awale train` run (the scalars it logs to TensorBoard, read from the
run's `metrics.jsonl`) into PNG files.

    python -m awale.recipes.plot_metrics runs/abapa/metrics.jsonl --out docs/img --prefix abapa

Writes PREFIX_losses.png (losses, policy entropy, value error), PREFIX_eval.png (scores against
each built-in agent, and the Elo curve) and PREFIX_selfplay.png (self-play throughput).
Needs matplotlib.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def load(path: Path) -> list[dict]:
    """Reads one JSON object per line."""
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def series(rows: list[dict], key: str) -> tuple[list[float], list[float]]:
    """The (iteration, value) pairs of one scalar."""
    pts = [(r["step"], r[key]) for r in rows if key in r]
    return [p[0] for p in pts], [p[1] for p in pts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("metrics", type=Path, help="the run's metrics.jsonl")
    ap.add_argument("--out", type=Path, default=Path("."), help="folder for the PNG files")
    ap.add_argument("--prefix", default="run", help="file name prefix")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = load(args.metrics)
    args.out.mkdir(parents=True, exist_ok=True)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for key in ["loss/total", "loss/policy", "loss/value", "loss/score"]:
        axes[0].plot(*series(rows, key), label=key.split("/")[1])
    axes[0].set_title("losses")
    axes[0].legend()
    axes[1].plot(*series(rows, "policy/entropy"), color="tab:purple")
    axes[1].set_title("policy entropy (nats)")
    axes[2].plot(*series(rows, "value/abs_error"), color="tab:red")
    axes[2].set_title("value: mean absolute error")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out / f"{args.prefix}_losses.png", dpi=90)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    keys = sorted({k for r in rows for k in r if k.startswith("eval/score_vs_")})
    for key in keys:
        x, y = series(rows, key)
        axes[0].plot(x, [100 * v for v in y], marker="o", label=key.removeprefix("eval/score_vs_"))
    axes[0].axhline(75, color="grey", linestyle="--", linewidth=1)
    axes[0].set_title("network's score against each agent (%)")
    axes[0].set_ylim(0, 105)
    axes[0].legend(fontsize=8)
    axes[1].plot(*series(rows, "eval/elo"), marker="o", color="tab:green")
    axes[1].set_title("Elo (random = 0)")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out / f"{args.prefix}_eval.png", dpi=90)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    axes[0].plot(*series(rows, "selfplay/moves_per_sec"), label="moves/s")
    axes[0].plot(*series(rows, "selfplay/positions_per_sec"), label="training positions/s")
    axes[0].set_title("self-play throughput")
    axes[0].legend()
    axes[1].plot(*series(rows, "selfplay/mean_game_plies"), color="tab:brown")
    axes[1].set_title("self-play game length (plies)")
    for ax in axes:
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out / f"{args.prefix}_selfplay.png", dpi=90)
    print(f"wrote {args.prefix}_losses.png, {args.prefix}_eval.png, {args.prefix}_selfplay.png in {args.out}")


if __name__ == "__main__":
    main()

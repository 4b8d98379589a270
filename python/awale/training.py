"""The Rust self-play trainer from Python (the run of ``awale train``).

:func:`train` runs or resumes a training run in a folder, exactly as ``awale train`` does
(checkpoints, TensorBoard logs, evaluations); with ``selfplay=`` its self-play is played by
workers elsewhere (:mod:`awale.ray_selfplay` drives Ray actors). :func:`train_config` gives the
effective TOML of a config file with ``--set``-style overrides; :func:`checkpoint_info` reads a
checkpoint's counters and a checksum of each part.

The trainer needs burn inside the extension: the wheel has it (``HAS_TRAINER``); a build from
source without the ``train`` feature leaves it out, and then :func:`train` and
:class:`SelfPlayWorker` raise ``NotImplementedError``. :func:`train_config` and
:func:`checkpoint_info` work in every build. The trained network from Python:
:class:`awale.Network`.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Union

from awale._core import HAS_TRAINER, SelfPlayWorker, checkpoint_info, train_config, worker_shards
from awale._core import train as _train

PathLike = Union[str, "os.PathLike[str]"]


def train(
    config: Optional[PathLike] = None,
    out: Optional[PathLike] = None,
    *,
    overrides: Iterable[str] = (),
    fresh: bool = False,
    progress: bool = False,
    final_eval: bool = True,
    selfplay: Any = None,
) -> dict:
    """Runs (or resumes, when ``out`` holds a checkpoint and ``fresh`` is False) a training run.

    Args:
        config: a training config file (TOML), a built-in recipe by name (``"abapa"``, ``"wari"``,
            ... every ``training/NAME.toml``, for installs without the folder), or None for the
            built-in tiny config (seconds; the command line's default is the quick config,
            ``training/quick.toml``).
        out: the run's folder (default ``runs/NAME``, NAME from the config).
        overrides: ``"section.key=value"`` settings applied to the config, as
            ``awale train --set``.
        fresh: start over even if ``out`` has a checkpoint.
        progress: show a progress bar (otherwise a line per checkpoint on stderr).
        final_eval: play the config's final evaluation at the end.
        selfplay: workers that play the self-play (an object with ``start(games)``,
            ``submit(weights, version, positions)``, ``collect()`` and ``games()``, the last two
            returning a list of bytes, one per worker in shard order: see
            :class:`awale.ray_selfplay.RaySelfPlay`); None plays it in this process.

    Returns:
        The run's summary: ``iterations``, ``train_steps``, ``games``, ``positions``, ``secs``,
        ``moves_per_sec``, ``evals_per_sec``, ``mean_batch``, ``checkpoint`` (its path),
        ``resumed`` and ``final_eval`` (the evaluation report, or None).
    """
    text = train_config(None if config is None else os.fspath(config), list(overrides))
    return _train(
        text, None if out is None else os.fspath(out), fresh=fresh, progress=progress, final_eval=final_eval,
        selfplay=selfplay,
    )


__all__ = [
    "HAS_TRAINER",
    "SelfPlayWorker",
    "checkpoint_info",
    "train",
    "train_config",
    "worker_shards",
]

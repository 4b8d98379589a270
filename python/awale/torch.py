"""A trained network in PyTorch: the same network as a ``torch.nn.Module``.

:func:`network` reads a safetensors network (written by :meth:`awale.Network.export_safetensors`
or ``awale network export``) and builds :class:`AwaleNet`, whose outputs equal the Rust
inference's (:meth:`awale.Network.predict`) on the same inputs to float rounding; a checkpoint
or generation of ``awale train`` is exported on the way. Fine-tune, distil or inspect it; write
it back with :func:`save`, and the file plays again as ``nn:path=FILE`` and loads with
:class:`awale.Network`.

The input is the network's own (``awale.Network.encode``, or an env built with
``obs=<its encoding>, obs_scale="network"``): the encoding seen by the player to move, scaled
(docs/observations.md). Needs PyTorch and the ``safetensors`` package (``pip install
awale[torch]``)::

    import awale, awale.torch
    net = awale.Network("runs/abapa/checkpoint.ckpt")
    model = awale.torch.network("runs/abapa/checkpoint.ckpt")
    x = net.encode([awale.State("abapa")])
    logits, values = model(torch.from_numpy(x))
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Optional, Sequence, Union

import torch
from safetensors import safe_open
from safetensors.torch import save as _safetensors_bytes

from awale._core import Network

PathLike = Union[str, "os.PathLike[str]"]

#: The ``format`` of the header a network file carries (its ``awale`` metadata entry).
FORMAT = "awale-network"
#: The header version this module reads.
FORMAT_VERSION = 1


class AwaleNet(torch.nn.Module):
    """The trainer's policy/value network: a ReLU MLP trunk and three linear heads.

    ``forward(x)`` takes ``(batch, input)`` float32 inputs and returns ``(logits, values)``:
    ``(batch, actions)`` policy logits over the mover's houses and ``(batch, values)`` in
    (-1, 1) by tanh (the mover's value in 2-player games, else one per player, mover first),
    as :meth:`awale.Network.predict`. The auxiliary score head (the mover's final store minus
    the others' mean, by tanh) is :meth:`score`. ``header`` keeps the file's header (rules,
    encoding, shape, input scales) and ``config`` the training config, so :func:`save` writes a
    file that the Rust side loads.
    """

    def __init__(self, header: dict[str, Any], config: str) -> None:
        super().__init__()
        self.header = dict(header)
        self.config = config
        widths = [int(header["input"]), *[int(h) for h in header["hidden"]]]
        self.trunk = torch.nn.ModuleList(
            torch.nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:])
        )
        last = widths[-1]
        self.policy = torch.nn.Linear(last, int(header["actions"]))
        self.value = torch.nn.Linear(last, int(header["values"]))
        self.score = torch.nn.Linear(last, 1)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The trunk's output."""
        for layer in self.trunk:
            x = torch.relu(layer(x))
        return x

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features(x)
        return self.policy(h), torch.tanh(self.value(h))

    def score_head(self, x: torch.Tensor) -> torch.Tensor:
        """The auxiliary score output ``(batch, 1)`` in (-1, 1)."""
        return torch.tanh(self.score(self.features(x)))


def read_header(path: PathLike) -> tuple[dict[str, Any], str]:
    """The header (a dict) and the training config (TOML) of a safetensors network file.

    Raises ``ValueError`` for a safetensors file that is not an awale network or is of a later
    version."""
    with safe_open(os.fspath(path), framework="pt") as f:
        meta = f.metadata() or {}
    if "awale" not in meta or "config" not in meta:
        raise ValueError(f"{os.fspath(path)}: not an awale network (no 'awale' header)")
    header = json.loads(meta["awale"])
    if header.get("format") != FORMAT:
        raise ValueError(f"{os.fspath(path)}: format {header.get('format')!r}, not {FORMAT!r}")
    if int(header.get("version", 0)) > FORMAT_VERSION:
        raise ValueError(
            f"{os.fspath(path)}: version {header['version']} is newer than this module reads "
            f"({FORMAT_VERSION})"
        )
    return header, meta["config"]


def _is_safetensors(path: PathLike) -> bool:
    with open(path, "rb") as f:
        head = f.read(9)
    return len(head) == 9 and head[8:9] == b"{" and head[:8] != b"AWALECKP"


def network(path: PathLike) -> AwaleNet:
    """The network of ``path`` as an :class:`AwaleNet` (float32, CPU, eval mode).

    ``path``: a safetensors network, or a checkpoint or generation of ``awale train`` (exported
    to a temporary file first)."""
    if not _is_safetensors(path):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "network.safetensors")
            Network(path).export_safetensors(out)
            return network(out)
    header, config = read_header(path)
    model = AwaleNet(header, config)
    from safetensors.torch import load_file

    state = load_file(os.fspath(path))
    model.load_state_dict(state, strict=True)
    return model.eval()


def baseline(name: str) -> AwaleNet:
    """A network shipped with awale (``"abapa"``, ``"abapa-v1"``, ...; :func:`awale.baselines`
    lists them) as an :class:`AwaleNet`, e.g. to fine-tune it in PyTorch."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "network.safetensors")
        Network.baseline(name).export_safetensors(out)
        return network(out)


def new_network(
    rules: Any = "abapa", hidden: Sequence[int] = (128, 128), encoding: str = "onehot:16"
) -> AwaleNet:
    """A new, untrained :class:`AwaleNet` for ``rules`` (a spec or :class:`awale.Rules`) with
    the trainer's shape: ``encoding`` input (``"compact"``, ``"onehot:L"``,
    ``"thermometer:L"``), a ReLU trunk of ``hidden`` widths, PyTorch's default initialisation.
    Its header and config are those the Rust side expects, so :func:`save` writes a file that
    plays as ``nn:path=FILE``, loads with :class:`awale.Network` and that ``awale ladder``
    rates. Raises ``awale.ConfigError`` for bad rules, encoding or widths."""
    from awale._core import network_template

    header_text, config = network_template(rules, encoding, [int(h) for h in hidden])
    return AwaleNet(json.loads(header_text), config)


def save(model: AwaleNet, path: PathLike, counters: Optional[dict[str, Any]] = None) -> None:
    """Writes ``model``'s weights back as a safetensors network (its header and config kept):
    the file plays as ``nn:path=FILE`` and loads with :class:`awale.Network`. ``counters``
    (``iteration``, ``games``, ``positions``, ``train_steps``, ``elapsed`` seconds) mark it as a
    generation of a run: ``awale ladder`` rates the ``gen-NNNNNN.safetensors`` files of a run's
    ``generations/`` folder by them."""
    state = {k: v.detach().to(torch.float32).contiguous().cpu() for k, v in model.state_dict().items()}
    metadata = {"awale": json.dumps(model.header), "config": model.config}
    if counters is not None:
        keys = ("iteration", "games", "positions", "train_steps")
        missing = [k for k in keys if k not in counters]
        if missing:
            raise ValueError(f"counters lack {missing} (they need {list(keys)} and 'elapsed')")
        c = {k: int(counters[k]) for k in keys}
        c["elapsed"] = float(counters.get("elapsed", 0.0))
        metadata["counters"] = json.dumps(c)
    data = _safetensors_bytes(state, metadata=metadata)
    # Written by Python's open(), so the file gets the mode of any new file (0644 under the
    # usual umask 022), as `awale network export` writes: safetensors' save_file makes 0600.
    # Through a temporary file beside it, so that a reader never sees a half-written network.
    target = os.fspath(path)
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


__all__ = [
    "AwaleNet",
    "FORMAT",
    "FORMAT_VERSION",
    "network",
    "baseline",
    "new_network",
    "read_header",
    "save",
]

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
import threading
from typing import Any, Optional, Sequence, Union

import numpy as np

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
    file that the Rust side loads. ``play`` keeps the network's play settings, when it has them
    (a baseline's: ``{"sims": 384, "search": "puct", "reuse_tree": True}``, ``reuse_tree``
    present only when the search keeps its tree from move to move): how ``nn:path=FILE`` searches with the
    saved file unless its spec says otherwise; ``None`` plays with the ``nn`` agent's defaults
    (64 simulations, the config's ``play_kind``). Set it to give a network of yours its own.
    """

    def __init__(
        self, header: dict[str, Any], config: str, play: Optional[dict[str, Any]] = None
    ) -> None:
        super().__init__()
        self.header = dict(header)
        self.config = config
        self.play = dict(play) if play is not None else None
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
        """Policy logits and values (in [-1, 1]) of a batch of encoded observations."""
        h = self.features(x)
        return self.policy(h), torch.tanh(self.value(h))

    def score_head(self, x: torch.Tensor) -> torch.Tensor:
        """The auxiliary score output ``(batch, 1)`` in (-1, 1)."""
        return torch.tanh(self.score(self.features(x)))


class Evaluator:
    """``model`` as the ``evaluate`` callable of :class:`awale.SelfPlay`, :func:`awale.search`
    and :class:`awale.SearchAgent`: ``(obs, mask) -> (logits, values)`` as NumPy arrays, the
    forward pass in :func:`torch.inference_mode` on ``device``.

    On a GPU it keeps its buffers between calls: a page-locked (pinned) host buffer for the
    inputs and one for the outputs, and a device buffer for the inputs, each grown (to the next
    power of two) only when a call is larger than all before, so a call allocates nothing but
    its outputs' copy. The inputs go up and the outputs come down in one stream with one
    synchronisation a call. ``precision``: ``"fp32"`` (the default; exact float32),
    ``"tf32"`` (float32 tensors, TensorFloat-32 matrix products on Ampere and later: about
    1e-3 relative error), or ``"bf16"`` (the forward pass under bfloat16 autocast: about 1e-2
    relative error in the logits). On a CPU ``precision`` must be ``"fp32"`` and it is the
    plain call (``torch.from_numpy``, the forward pass, ``.numpy()``), the fastest there.

    It declares itself ``thread_safe`` (on a GPU one lock around the buffers), so
    ``SelfPlay(..., eval_batch=N)`` (every thread's leaves gathered, several batches in flight) and
    ``SelfPlay(..., threads=T)`` alike may call it. Raises ``ValueError`` for a device that is
    not there (``"cuda"`` on a machine without a GPU) or an unknown precision::

        model = awale.torch.new_network("abapa", [512, 512, 512]).to("cuda")
        sp = awale.SelfPlay("abapa", awale.torch.Evaluator(model, "cuda"), games=4096,
                            threads=8, eval_batch=2048, encoding=model.header["encoding"])
    """

    thread_safe = True
    PRECISIONS = ("fp32", "tf32", "bf16")

    def __init__(self, model: AwaleNet, device: Any = "cpu", precision: str = "fp32") -> None:
        self.device = torch.device(device)
        if precision not in self.PRECISIONS:
            raise ValueError(f"precision {precision!r}: expected one of {self.PRECISIONS}")
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(
                f"device {str(device)!r}: this machine has no CUDA GPU that PyTorch can use "
                f"(torch {torch.__version__}, torch.version.cuda={torch.version.cuda}); use "
                "device='cpu'"
            )
        if self.device.type == "cpu" and precision != "fp32":
            raise ValueError(f"precision {precision!r} is for a GPU; on a CPU use 'fp32'")
        self.model = model.to(self.device).eval()
        self.precision = precision
        self.calls = 0
        self.rows = 0
        self._lock = threading.Lock()
        self._capacity = 0
        self._host_in: Optional[torch.Tensor] = None
        self._dev_in: Optional[torch.Tensor] = None
        self._host_out: Optional[torch.Tensor] = None

    def _grow(self, n: int, width: int, outputs: int) -> None:
        cap = 1 << max(n - 1, 0).bit_length()
        self._host_in = torch.empty((cap, width), dtype=torch.float32, pin_memory=True)
        self._dev_in = torch.empty((cap, width), dtype=torch.float32, device=self.device)
        self._host_out = torch.empty((cap, outputs), dtype=torch.float32, pin_memory=True)
        self._capacity = cap

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(obs)
        if self.device.type != "cuda":
            # No shared buffer: calls from several threads run at once.
            with torch.inference_mode():
                logits, values = self.model(torch.from_numpy(obs).to(self.device))
                with self._lock:
                    self.calls += 1
                    self.rows += n
                return logits.float().numpy(), values.float().numpy()
        with self._lock, torch.inference_mode():
            self.calls += 1
            self.rows += n
            actions = int(self.model.header["actions"])
            nv = int(self.model.header["values"])
            if n > self._capacity or self._host_in is None or self._host_in.shape[1] != obs.shape[1]:
                self._grow(n, obs.shape[1], actions + nv)
            assert self._host_in is not None and self._dev_in is not None and self._host_out is not None
            host_in = self._host_in[:n]
            host_in.numpy()[:] = obs
            x = self._dev_in[:n]
            x.copy_(host_in, non_blocking=True)
            tf32 = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = self.precision == "tf32"
            try:
                if self.precision == "bf16":
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        logits, values = self.model(x)
                else:
                    logits, values = self.model(x)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = tf32
            out = torch.cat((logits.float(), values.float().reshape(n, nv)), dim=1)
            host_out = self._host_out[:n]
            host_out.copy_(out, non_blocking=True)
            torch.cuda.current_stream(self.device).synchronize()
            # Copies: the buffer is the next call's.
            both = host_out.numpy().copy()
            return both[:, :actions], both[:, actions:]


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


def read_play(path: PathLike) -> Optional[dict[str, Any]]:
    """The play settings a safetensors network file carries (``{"sims": N, "search": KIND}``,
    with ``"reuse_tree": True`` where the search keeps its tree; an exported baseline's), or
    ``None`` when it has none."""
    with safe_open(os.fspath(path), framework="pt") as f:
        meta = f.metadata() or {}
    return json.loads(meta["play"]) if "play" in meta else None


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
    model = AwaleNet(header, config, play=read_play(path))
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
    ``generations/`` folder by them. ``model.play`` (its play settings, a baseline's kept from
    :func:`baseline`) is written too; the Rust side checks it when it reads the file
    (``awale.TrainingError`` for simulations out of range or an unknown search)."""
    state = {k: v.detach().to(torch.float32).contiguous().cpu() for k, v in model.state_dict().items()}
    metadata = {"awale": json.dumps(model.header), "config": model.config}
    play = getattr(model, "play", None)
    if play is not None:
        if not isinstance(play, dict) or not {"sims", "search"} <= set(play) <= {
            "sims",
            "search",
            "reuse_tree",
        }:
            raise ValueError(
                f"play must be a dict with 'sims', 'search' and optionally 'reuse_tree', got {play!r}"
            )
        entry = {"sims": int(play["sims"]), "search": str(play["search"])}
        reuse = play.get("reuse_tree", False)
        if not isinstance(reuse, bool):
            raise TypeError(f"play['reuse_tree'] must be True or False, got {reuse!r}")
        if reuse:
            entry["reuse_tree"] = True
        metadata["play"] = json.dumps(entry)
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
    "Evaluator",
    "FORMAT",
    "FORMAT_VERSION",
    "network",
    "baseline",
    "new_network",
    "read_header",
    "read_play",
    "save",
]

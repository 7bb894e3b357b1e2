"""The resumable epoch loop that every trained study shares (glad's detectors, NodeGround's node classifiers).

What is generic about a training run lives here, once:

- :func:`resolve_device` (``auto``: CUDA when torch sees one, else CPU);
- RNG capture, restore and isolation (:func:`capture_rng`, :func:`preserved_rng`, :func:`seed_everything`):
  Python's, numpy's and torch's global generators, CUDA's and an optional loader generator;
- :class:`Checkpoint`: a run's state (named parts with ``state_dict``/``load_state_dict``, epoch, wall time and
  every RNG state) written atomically, loadable with ``torch.load(weights_only=True)``, tied to a run hash so a
  checkpoint of another configuration or other code is never resumed, and checked (CRC-32) before it is read;
- :func:`run_epochs`: the epoch driver. It calls one epoch function after another, keeps the wall time,
  checkpoints when the epoch asks for it, when ``checkpoint_every_s`` has passed and at a requested pause
  (``stop_after_epoch``), and stops when the epoch says the run is over (early stopping) or the budget is spent.
  Resuming from the checkpoint continues the same trajectory: on CPU, bit for bit;
- :class:`MemoryMeter`: the peak memory of a stage, CUDA's peak allocation on a GPU, the job's peak RSS on the
  CPU (a stand-in: the process peak, never reset, labelled as such);
- :class:`Caps`: per-run wall-clock and memory limits, checked after every epoch; exceeding one raises
  :class:`CapExceeded`, which the caller records as a failure. :func:`wall_clock_limit` also interrupts an
  epoch that runs past the limit (a signal in the main thread), so a capped run never hangs its job.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import logging
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from graphaudit.common.atomic import atomic_path
from graphaudit.common.integrity import CorruptFileError, check_zip
from graphaudit.common.memory import peak_rss_mb

__all__ = [
    "CHECKPOINT_FORMAT",
    "CapExceeded",
    "Caps",
    "Checkpoint",
    "EpochEnd",
    "LoopEnd",
    "MemoryMeter",
    "capture_rng",
    "preserved_rng",
    "preserved_torch_rng",
    "resolve_device",
    "restore_rng",
    "run_epochs",
    "seed_everything",
    "source_digest",
    "wall_clock_limit",
]

log = logging.getLogger(__name__)

CHECKPOINT_FORMAT = 2


def resolve_device(name: str) -> torch.device:
    """``auto`` means CUDA when available, else CPU; anything else is passed to ``torch.device``."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def source_digest(cls: type, *modules: Any) -> str:
    """SHA-256 over the project files that define ``cls`` and the project classes it inherits from, the given
    modules' files and this loop's own file: a run hash built on it never resumes a checkpoint of other code."""
    files = {inspect.getfile(c) for c in cls.__mro__ if c.__module__.startswith("graphaudit.")}
    files |= {inspect.getfile(module) for module in modules} | {__file__}
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(Path(file).read_bytes())
    return digest.hexdigest()


# ---- RNG state -------------------------------------------------------------------------------------


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators (CUDA's too) from one integer."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def capture_rng(generator: torch.Generator | None = None) -> dict[str, Any]:
    """Every RNG state a run draws from, in types ``torch.load(weights_only=True)`` accepts; ``generator``
    (a data loader's) is stored as ``loader``."""
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": (name, torch.from_numpy(keys.astype(np.int64)), int(pos), int(has_gauss), float(gauss)),
        "torch": torch.get_rng_state(),
    }
    if generator is not None:
        state["loader"] = generator.get_state()
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any], generator: torch.Generator | None = None) -> None:
    """Put back the states :func:`capture_rng` took."""
    version, internal, gauss_next = state["python"]
    random.setstate((version, tuple(internal), gauss_next))
    name, keys, pos, has_gauss, gauss = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, gauss))
    torch.set_rng_state(state["torch"])
    if generator is not None:
        generator.set_state(state["loader"])
    if "cuda" in state:
        torch.cuda.set_rng_state_all(state["cuda"])


@contextlib.contextmanager
def preserved_rng(generator: torch.Generator | None = None) -> Iterator[None]:
    """Run a block (scoring, evaluation) and put every RNG state back afterwards: it leaves no trace on training."""
    saved = capture_rng(generator)
    try:
        yield
    finally:
        restore_rng(saved, generator)


@contextlib.contextmanager
def preserved_torch_rng() -> Iterator[None]:
    """:func:`preserved_rng` for torch's generators only (CPU and CUDA): the cheap isolation of a per-epoch pass
    whose code draws from torch alone (the node classifiers' contract: no numpy or Python randomness)."""
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    try:
        yield
    finally:
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


# ---- checkpoints -----------------------------------------------------------------------------------


class Stateful(Protocol):
    """What a checkpoint saves: a model, an optimiser, a selection tracker."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> Any: ...


class Checkpoint:
    """One run's checkpoint file: ``parts`` (name -> stateful object) plus epoch, wall time and every RNG state.

    The file holds ``format``, ``config_hash`` (``run_hash``), ``epoch``, ``wall_s``, ``rng`` and one entry per
    part (its ``state_dict``); it is written atomically and read with ``weights_only=True``. A file that fails its
    CRC-32 check (truncated, bit rot: torch itself would load a flipped bit silently, or fail with a bare
    ``RuntimeError`` that names no file) is discarded with a warning naming it, and the run starts over.
    """

    def __init__(
        self, path: str | Path, run_hash: str, parts: Mapping[str, Stateful], generator: torch.Generator | None = None
    ) -> None:
        self.path = Path(path)
        self.run_hash = run_hash
        self.parts = dict(parts)
        self.generator = generator
        self._content: dict[str, Any] | None = None

    def content(self) -> dict[str, Any] | None:
        """The stored checkpoint, read once and checked, or ``None`` when there is none (or it was corrupt)."""
        if self._content is None and self.path.exists():
            try:
                check_zip(self.path, remedy="it is discarded and the run starts over")
            except CorruptFileError as err:
                log.warning("%s", err)
                self.discard()
                return None
            self._content = torch.load(self.path, map_location="cpu", weights_only=True)
        return self._content

    def discard(self) -> None:
        """Remove the checkpoint file: the run starts over."""
        self.path.unlink(missing_ok=True)
        self._content = None

    def discard_if_stale(self) -> bool:
        """Remove a checkpoint made by another configuration or other code; True when one was removed."""
        content = self.content()
        if content is not None and content["config_hash"] != self.run_hash:
            log.warning("%s was made by another configuration or other code; starting the run over", self.path)
            self.discard()
            return True
        return False

    def save(self, epoch: int, wall_s: float) -> None:
        content = {
            "format": CHECKPOINT_FORMAT,
            "config_hash": self.run_hash,
            "epoch": epoch,
            "wall_s": wall_s,
            **{name: part.state_dict() for name, part in self.parts.items()},
            "rng": capture_rng(self.generator),
        }
        with atomic_path(self.path) as tmp:
            torch.save(content, tmp)
        self._content = None

    def restore(self) -> tuple[int, float]:
        """Load the checkpoint into the parts and the RNGs; returns (epoch, wall seconds so far)."""
        content = self.content()
        if content is None:
            raise FileNotFoundError(f"{self.path}: no checkpoint to restore")
        self._content = None  # the parts may now share its tensors (an optimiser's state): never read it again
        if content.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"{self.path}: unknown checkpoint format {content.get('format')!r}")
        if content["config_hash"] != self.run_hash:
            raise ValueError(
                f"{self.path} belongs to another configuration (hash {content['config_hash']}, this run "
                f"{self.run_hash}); remove the run folder to start over"
            )
        for name, part in self.parts.items():
            part.load_state_dict(content[name])
        restore_rng(content["rng"], self.generator)
        return int(content["epoch"]), float(content["wall_s"])

    def open(self, fresh: Callable[[], None] = lambda: None) -> tuple[int, float]:
        """Resume from the checkpoint when there is one, else run ``fresh`` (one-off setup); (epoch, wall_s)."""
        if self.content() is not None:
            return self.restore()
        fresh()
        return 0, 0.0


# ---- memory and caps -------------------------------------------------------------------------------


class MemoryMeter:
    """Peak memory of a stage on ``device``: CUDA's peak allocation since :meth:`reset` on a GPU, the job's peak
    RSS on the CPU (the process peak so far; :meth:`reset` cannot lower it, so it is a stand-in, labelled)."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.cuda = device.type == "cuda"

    @property
    def kind(self) -> str:
        return "cuda_peak_allocated" if self.cuda else "cpu_peak_rss_job"

    def reset(self) -> None:
        if self.cuda:
            torch.cuda.reset_peak_memory_stats(self.device)

    def peak_mb(self) -> float:
        if self.cuda:
            return torch.cuda.max_memory_allocated(self.device) / 2**20
        return peak_rss_mb()


class CapExceeded(RuntimeError):
    """A run went past its wall-clock or memory cap; the caller records it as a failure."""


@dataclass(frozen=True)
class Caps:
    """Per-run limits (``None``: none). ``wall_s`` bounds the run's wall time (resumed time included);
    ``memory_mb`` bounds its peak memory as :class:`MemoryMeter` measures it: on a GPU the peak allocation
    since the run began, on the CPU the job's peak RSS, counted only when the run raised it."""

    wall_s: float | None = None
    memory_mb: float | None = None

    def start(self, meter: MemoryMeter) -> CapCheck:
        meter.reset()
        return CapCheck(self, meter, meter.peak_mb())


@dataclass
class CapCheck:
    """The caps of one running run (:meth:`Caps.start`)."""

    caps: Caps
    meter: MemoryMeter
    peak_at_start: float

    def __call__(self, epoch: int, wall_s: float) -> None:
        if self.caps.wall_s is not None and wall_s > self.caps.wall_s:
            raise CapExceeded(f"wall-clock cap of {self.caps.wall_s:g} s exceeded at epoch {epoch} ({wall_s:.1f} s)")
        if self.caps.memory_mb is None:
            return
        peak = self.meter.peak_mb()
        if peak > self.caps.memory_mb and (self.meter.cuda or peak > self.peak_at_start):
            raise CapExceeded(
                f"memory cap of {self.caps.memory_mb:g} MiB exceeded at epoch {epoch} "
                f"({peak:.0f} MiB, {self.meter.kind})"
            )


@contextlib.contextmanager
def wall_clock_limit(seconds: float | None, what: str = "run") -> Iterator[None]:
    """Raise :class:`CapExceeded` inside the block once ``seconds`` have passed (SIGALRM, main thread only;
    elsewhere, and for ``None``, the block runs unbounded and only the per-epoch check of :class:`Caps` applies).
    A long native operation is interrupted when it returns to Python."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CapExceeded(f"wall-clock cap of {seconds:g} s exceeded: the {what} was interrupted")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---- the epoch driver -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpochEnd:
    """What an epoch tells the driver: ``checkpoint`` (save now, whatever the interval) and ``stop`` (the run is
    over before its budget: early stopping)."""

    checkpoint: bool = False
    stop: bool = False


@dataclass(frozen=True)
class LoopEnd:
    """Where :func:`run_epochs` left the run: the last epoch, its wall time, and whether an epoch stopped it."""

    epoch: int
    wall_s: float
    stopped: bool


def run_epochs(
    epoch_fn: Callable[[int, Callable[[], float]], EpochEnd],
    checkpoint: Checkpoint | None,
    *,
    start: int,
    wall_s: float,
    num_epoch: int,
    checkpoint_every_s: float,
    stop_after_epoch: int | None = None,
    after_epoch: Callable[[int, float], None] | None = None,
) -> LoopEnd:
    """Run epochs ``start + 1 ..`` until ``num_epoch`` (or the pause ``stop_after_epoch``) or an early stop.

    ``epoch_fn(epoch, clock)`` trains and evaluates one epoch; ``clock()`` is the run's wall time so far,
    this epoch included. The driver checkpoints after an epoch that asks for it, after the first epoch once
    ``checkpoint_every_s`` has passed since the last save, and at the pause; ``after_epoch(epoch, wall_s)``
    (the caps) runs after each epoch's checkpoint decision.
    """
    last_save = time.monotonic()
    epoch, stopped = start, False
    end = num_epoch if stop_after_epoch is None else min(stop_after_epoch, num_epoch)
    while epoch < end and not stopped:
        epoch += 1
        began = time.monotonic()
        outcome = epoch_fn(epoch, _clock(wall_s, began))
        wall_s += time.monotonic() - began
        stopped = outcome.stop
        due = time.monotonic() - last_save >= checkpoint_every_s
        if checkpoint is not None and (outcome.checkpoint or due or epoch == stop_after_epoch):
            checkpoint.save(epoch, wall_s)
            last_save = time.monotonic()
        if after_epoch is not None:
            after_epoch(epoch, wall_s)
    return LoopEnd(epoch=epoch, wall_s=wall_s, stopped=stopped)


def _clock(before: float, began: float) -> Callable[[], float]:
    """The run's wall time so far: ``before`` plus the time since ``began`` (the current epoch's start)."""
    return lambda: before + time.monotonic() - began

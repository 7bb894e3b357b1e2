"""The resumable trainer for graph anomaly detectors: full budget, one record per evaluation point.

A run lives in one folder:

- ``records.jsonl``: one JSON line per evaluation point (``epoch % eval_freq == 0``) with the epoch, the
  mean training loss, non-finite counts, seed, config hash, versions, device, wall time and peak memory;
- ``scores/epoch_<epoch>.test.npz`` and ``.holdout.npz``: per-graph scores keyed by graph id
  (``item_id``, ``score``), never by loader order; a detector with extra score columns
  (``Detector.score_columns``) adds them to the same files and names them in its records; a run with scored
  groups (:attr:`RunGraphs.groups`, glad's typed anomalies) adds ``.<group>.npz`` per group, each group scored in
  passes of its own, so a detector whose scores depend on the batch scores every group as its own batch;
- ``checkpoint.pt``: model, optimizer, epoch, wall time and every RNG state (Python, numpy, torch CPU and
  CUDA, the loaders' generator), written atomically at evaluation points and every ``checkpoint_every_s``.

The epoch driver, the checkpoint file, the RNG capture and isolation, the device choice and the peak-memory
reading are the shared ones of :mod:`graphaudit.nn.loop` (NodeGround's node classifiers use the same); this
module adds what is particular to detectors: batches of graphs, score files keyed by graph id, the records.

Calling :func:`train` again on the same folder resumes from the checkpoint; on CPU the resumed run gives
the same records, scores and weights as an uninterrupted one. A longer budget (``num_epoch``) extends a finished
run from its checkpoint: the budget is not part of the run's hash, as the first epochs do not depend on it. A run
whose checkpoint cannot continue it (corrupt, past the budget, or past an evaluation point whose record or score
file is missing, torn or corrupt) starts over with a warning, so a run is never summarised from fewer points.
A finished run's records are read back with :func:`read_run_records` (and :func:`load_trajectory`), which check
them against the ``evaluations`` and ``records_sha256`` its summary kept. Hold-out scoring always runs inside
:func:`preserved_rng`, so recording it never changes the training trajectory. Test scoring follows
``TrainConfig.test_rng``: ``coupled`` (UB-GOLD's harness and the paper's: the shuffled test pass draws from
the training RNG, so evaluation shapes the trajectory as in the released code, spec 3.4 and 8.6) or
``isolated`` (inside :func:`preserved_rng` as well: the trajectory does not depend on evaluation).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader

from graphaudit.common.atomic import discard_temporaries
from graphaudit.common.integrity import CorruptFileError, read_npz
from graphaudit.common.memory import peak_rss_mb
from graphaudit.common.records import (
    append_record,
    environment_versions,
    read_finished_records,
    read_records,
    write_item_scores,
    write_records,
)
from graphaudit.common.seeds import stable_seed
from graphaudit.data.graphset import GraphSet
from graphaudit.nn.loop import (
    Checkpoint,
    EpochEnd,
    preserved_rng,
    resolve_device,
    run_epochs,
    seed_everything,
    source_digest,
)
from graphaudit.selection.trajectory import EvaluationPoint, Trajectory

__all__ = [
    "CHECKPOINT",
    "RECORDS",
    "BatchLossDetector",
    "Detector",
    "MemoryBudgetError",
    "RunGraphs",
    "TrainConfig",
    "TrainResult",
    "config_hash",
    "fixed_batches",
    "graphs_with_ids",
    "load_trajectory",
    "node_pair_bytes",
    "preserved_rng",
    "read_run_records",
    "record_groups",
    "resolve_device",
    "score_graph_columns",
    "score_graphs",
    "train",
]

log = logging.getLogger(__name__)

RECORDS = "records.jsonl"
CHECKPOINT = "checkpoint.pt"
SCORES = "scores"
RETRAIN = "train the run again (it finds the gap and recomputes the run from the start)"
INDEPENDENT_SCORE_BATCH = 1024
GROUP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
TEST_RNG = ("coupled", "isolated")


class MemoryBudgetError(MemoryError):
    """A run whose detector estimates more memory than the budget (:meth:`Detector.peak_memory_bytes`); raised
    by :func:`train` before training allocates anything large, so the caller can record an infeasible run."""


class Detector(torch.nn.Module, ABC):
    """A graph-level anomaly detector the trainer can run; ``config`` is its hyperparameter dataclass."""

    config: Any
    batch_independent_scores: bool = False
    """True when a graph's score does not depend on the other graphs of its batch (a tested property): the
    trainer then scores in batches of at least :data:`INDEPENDENT_SCORE_BATCH`, whatever ``batch_size_test``
    says, which changes the speed and nothing else (up to float summation order)."""
    one_step_per_epoch: bool = False
    """True: one optimiser step per epoch, on the mean over the epoch's batches of their objectives, summed in
    batch order into one graph before a single ``backward()`` (UB-GOLD's GraphDE ``fit``: ``all_loss += loss``
    per batch, ``all_loss /= n_bw``, one ``backward`` and ``step``). A scheduler then steps once per epoch."""
    train_mode_until_first_evaluation: bool = False
    """True: training runs in train mode only until the first evaluation, in eval mode after it (dropout off,
    BatchNorm on its frozen running statistics): UB-GOLD's GraphDE ``fit`` calls ``model.train()`` once before
    its loop and ``model.eval()`` at every evaluation. Follows from the epoch, so a resumed run keeps it."""

    def prepare_graphs(self, graphs: RunGraphs) -> RunGraphs:
        """The run's graphs as this detector reads them, made once before training and never on the RNG.

        The default is the graphs unchanged; CVTGAD and GOOD-D add UB-GOLD's structural encodings (``x_s``)
        and GOOD-D the training graphs' positions (``idx``). Graph ids and their order must stay as given.
        """
        return graphs

    def setup(self, batches: Iterable[Batch]) -> None:
        """One-off fitting on the training graphs before the first epoch (e.g. OCGIN's centre).

        Runs without gradients, and is not repeated on resume: whatever it fits must live in the
        state dict (parameters or buffers).
        """

    @abstractmethod
    def loss(self, batch: Batch) -> torch.Tensor:
        """Per-graph training loss, shape ``(num_graphs,)``; the trainer minimises its mean."""

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(per-graph losses for the records, the tensor whose ``backward()`` gives this step's gradient).

        The default is ``(loss, loss.mean())``; a detector whose reference code backpropagates something
        else (GLocalKD: ``loss.backward(loss.detach())``) says so here.
        """
        losses = self.loss(batch)
        return losses, losses.mean()

    def before_step(self) -> None:
        """Called between ``backward()`` and ``optimizer.step()`` (gradient clipping)."""

    def peak_memory_bytes(self, graphs: RunGraphs, config: TrainConfig) -> int | None:
        """Estimated peak bytes of one training step or scoring pass of this run; ``None`` (the default): not
        estimated. GLADC pads every graph to a dense block of the data set's largest graph (U17: 229 GB on
        REDDIT-B), so it estimates its blocks and :func:`train` refuses a run over ``memory_budget_bytes``
        before allocating them."""
        return None

    def end_epoch(self) -> None:
        """Called after each training epoch's last step, before that epoch's evaluation, in training mode.

        CVTGAD (and GOOD-D) turn the per-graph loss parts they collected during the epoch into the
        statistics their next epoch's loss weights and their adaptive score read (UB-GOLD's ``is_adaptive``);
        whatever a detector keeps must live in its state dict, as checkpoints are written after this call.
        """

    def attach_train_loader(self, loader: Iterable[Batch]) -> None:
        """Receives the run's training loader once :func:`train` has built it: the very object the epochs
        iterate (a shuffled ``DataLoader`` on the trainer's generator, or fixed batches). The default ignores it.

        GOOD-D iterates it inside every training and scoring step (k-means over the whole training set, U16,
        U21), so those passes draw from the loader's generator as UB-GOLD's iterations of its shuffled training
        loader draw from its RNG. Batches come on the CPU; a detector moves them to its device.
        """

    @abstractmethod
    def score(self, batch: Batch) -> torch.Tensor:
        """Per-graph anomaly score, shape ``(num_graphs,)``; higher means more anomalous."""

    score_columns: tuple[str, ...] = ()
    """Names of extra per-graph score columns that :meth:`scores` returns beside ``score``; the score files
    keep them (CVTGAD: ``raw_score``, U15). ``score`` stays the column an oracle ranks checkpoints by."""
    reported_score: str = "score"
    """The column the tables report (:func:`load_trajectory`'s ``test_scores`` and ``holdout_scores``). When it
    is one of :attr:`score_columns`, ``score`` becomes ``oracle_test_scores`` (CVTGAD selects on its normalised
    score and reports the raw one, spec U15 and 4.3)."""

    def scores(self, batch: Batch) -> dict[str, torch.Tensor]:
        """``score`` and every column of :attr:`score_columns` from one pass, each of shape ``(num_graphs,)``.

        The default is :meth:`score` alone; a detector with extra columns overrides this (its scores depend on
        one forward pass that need not be repeated).
        """
        return {"score": self.score(batch)}


class BatchLossDetector(Detector):
    """A detector whose reference loss is one number per batch (a contrastive estimate over the batch's pairs:
    the two-stage detectors, GLADC).

    Each graph carries the batch's value, so a batch's recorded losses sum to (batch size) x its loss and the
    record's mean weighs batches by size; the gradient is that of the batch loss itself.
    """

    @abstractmethod
    def batch_loss(self, batch: Batch) -> torch.Tensor:
        """The batch's training loss, a scalar (fitting any per-batch state in training mode)."""

    def loss(self, batch: Batch) -> torch.Tensor:
        return self.batch_loss(batch).expand(batch.num_graphs)

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        value = self.batch_loss(batch)
        return value.detach().expand(batch.num_graphs), value


@dataclass(frozen=True)
class TrainConfig:
    """Training settings; the defaults are UB-GOLD's shared ``mymain.py`` defaults (spec §3.4).

    ``device`` is ``"auto"`` (CUDA when available, else CPU), ``"cpu"`` or a torch device string.
    ``shuffle_test`` keeps UB-GOLD's shuffled test loader; scores are keyed by graph id either way.
    ``batch_size_test`` is UB-GOLD's scoring batch; detectors with batch-independent scores may use larger ones.
    ``shuffle_train`` false builds the training batches once and never reshuffles them (GLocalKD, U18).
    ``lr_step_size`` set: the learning rate is multiplied by ``lr_gamma`` every ``lr_step_size`` training
    *batches* (GLocalKD's ``StepLR(50, 0.5)`` stepped per batch, U18).
    ``test_rng``: ``coupled`` (UB-GOLD: test passes draw from the training RNG) or ``isolated``.
    """

    num_epoch: int = 400
    eval_freq: int = 4
    batch_size: int = 128
    batch_size_test: int = 9999
    lr: float = 1e-4
    weight_decay: float = 0.0
    seed: int = 3407
    device: str = "auto"
    shuffle_test: bool = True
    shuffle_train: bool = True
    lr_step_size: int | None = None
    lr_gamma: float = 0.5
    test_rng: str = "coupled"
    checkpoint_every_s: float = 300.0

    def __post_init__(self) -> None:
        if self.test_rng not in TEST_RNG:
            raise ValueError(f"TrainConfig.test_rng must be one of {TEST_RNG}, got {self.test_rng!r}")
        for name in ("num_epoch", "eval_freq", "batch_size", "batch_size_test", "lr_step_size"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"TrainConfig.{name} must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class RunGraphs:
    """The graphs of one run, each a PyG ``Data`` with a ``graph_id`` tensor of shape (1,).

    ``train`` holds normal graphs only; ``holdout`` the held-out normals (may be empty). No labels are
    needed: test labels stay with the caller and are joined to the scores by graph id.

    ``groups`` (optional) are further sets scored at every evaluation point, each in passes of its own (its own
    batch when ``batch_size_test`` holds it), so a batch-dependent score sees only the group's graphs: glad's
    typed evaluation scores the test normals with one type's anomalies per group (spec 4.16, 8.7). A graph may
    sit in several groups; ids are unique within each. With groups, ``test`` may be empty (not scored).
    """

    train: Sequence[Data]
    test: Sequence[Data]
    holdout: Sequence[Data]
    groups: Mapping[str, Sequence[Data]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.train or not (self.test or any(self.groups.values())):
            raise ValueError("a run needs at least one training graph and one test graph (or a scored group)")
        for name in self.groups:
            if name in ("test", "holdout") or not GROUP_NAME.fullmatch(name):
                raise ValueError(
                    f"RunGraphs.groups: {name!r} is not a group name (letters, digits, '-', '_', '.'; not test or "
                    "holdout): it names the group's score files"
                )
        for name, part in self.parts().items():
            ids = _ids_of(part, name)
            if len(np.unique(ids)) != len(ids):
                raise ValueError(f"RunGraphs.{name}: graph ids are not unique")

    def parts(self) -> dict[str, Sequence[Data]]:
        """Every part by name: train, test, holdout, then each group under ``groups.<name>``."""
        named = {"train": self.train, "test": self.test, "holdout": self.holdout}
        return named | {f"groups.{name}": part for name, part in self.groups.items()}

    def scored(self) -> list[Sequence[Data]]:
        """The parts a scoring pass reads: test, holdout and every group."""
        return [self.test, self.holdout, *self.groups.values()]

    def ids(self) -> dict[str, Any]:
        """Graph ids per part, in the given order (they enter the config hash); ``groups`` only for a run with
        groups, so the hash of a run without them is what it always was."""
        ids: dict[str, Any] = {
            name: _ids_of(getattr(self, name), name).tolist() for name in ("train", "test", "holdout")
        }
        if self.groups:
            ids["groups"] = {name: _ids_of(part, name).tolist() for name, part in self.groups.items()}
        return ids

    def mapped(self, change: Callable[[Sequence[Data]], Sequence[Data]]) -> RunGraphs:
        """The same run with ``change`` applied to every part (a detector's :meth:`Detector.prepare_graphs`)."""
        return replace(
            self,
            train=change(self.train),
            test=change(self.test),
            holdout=change(self.holdout),
            groups={name: change(part) for name, part in self.groups.items()},
        )


@dataclass
class TrainResult:
    """What :func:`train` leaves: the detector (trained up to ``epoch``) and whether the budget is done."""

    detector: Detector
    epoch: int
    completed: bool
    device: str
    run_dir: Path


def graphs_with_ids(graphs: GraphSet, ids: Iterable[int]) -> list[Data]:
    """PyG graphs of a GraphSet with ``graph_id`` = their index in the set; labels (``y``) are dropped."""
    out = []
    for g in ids:
        data = graphs.to_pyg(int(g))
        del data.y
        data.graph_id = torch.tensor([int(g)], dtype=torch.long)
        out.append(data)
    return out


def _source_digest(cls: type) -> str:
    """:func:`~graphaudit.nn.loop.source_digest` of the detector class: its project files (an adapter's shared
    loop lives in the own backend's module; UB-GOLD's own files are pinned by their checksums), this trainer's
    (in every detector's MRO) and the epoch loop's."""
    return source_digest(cls)


def config_hash(detector: Detector, graphs: RunGraphs, config: TrainConfig) -> str:
    """SHA-256 (16 hex digits) of everything that defines the trajectory: detector class and config, the
    source of the detector's module and of this trainer (a checkpoint made by other code is never resumed),
    training settings (not the device, the checkpoint interval or the budget ``num_epoch``: a run's first epochs
    do not depend on its length, so a longer budget extends a finished run) and the graph ids of every part."""
    settings = {k: v for k, v in asdict(config).items() if k not in ("device", "checkpoint_every_s", "num_epoch")}
    content = {
        "detector": f"{type(detector).__module__}:{type(detector).__name__}",  # the backend shows
        "code": _source_digest(type(detector)),  # the trainer's own file is in every detector's MRO
        "detector_config": asdict(detector.config),
        "train": settings,
        "graphs": graphs.ids(),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()[:16]


# ---- one epoch, one scoring pass ---------------------------------------------------------------------


def _training_mode(detector: Detector, epoch: int, eval_freq: int) -> bool:
    """The module mode epoch ``epoch`` trains in: train mode, unless the detector keeps UB-GOLD's eval mode
    after the first evaluation (:attr:`Detector.train_mode_until_first_evaluation`)."""
    return not (detector.train_mode_until_first_evaluation and epoch > eval_freq)


def _train_epoch(
    detector: Detector, optimisation: _Optimisation, loader: Iterable[Batch], device: torch.device, mode: bool = True
) -> float:
    """One pass over the training batches in module mode ``mode``; returns the mean per-graph loss. The
    scheduler steps per batch (per epoch for :attr:`Detector.one_step_per_epoch`)."""
    detector.train(mode)
    if detector.one_step_per_epoch:
        return _train_epoch_one_step(detector, optimisation, loader, device)
    total, count = 0.0, 0
    for batch in loader:
        batch = batch.to(device)
        optimisation.optimizer.zero_grad()
        losses, objective = detector.objective(batch)
        objective.backward()
        detector.before_step()
        optimisation.step()
        total += float(losses.detach().sum())
        count += losses.numel()
    detector.end_epoch()
    return total / count


def _train_epoch_one_step(
    detector: Detector, optimisation: _Optimisation, loader: Iterable[Batch], device: torch.device
) -> float:
    """The epoch as one optimiser step (:attr:`Detector.one_step_per_epoch`): the batches' objectives summed in
    batch order from 0, divided by the number of batches, one ``backward()``; returns the mean per-graph loss."""
    objective, batches, total, count = 0, 0, 0.0, 0
    for batch in loader:
        losses, batch_objective = detector.objective(batch.to(device))
        objective = objective + batch_objective
        batches += 1
        total += float(losses.detach().sum())
        count += losses.numel()
    optimisation.optimizer.zero_grad()
    (objective / batches).backward()
    detector.before_step()
    optimisation.step()
    detector.end_epoch()
    return total / count


def score_graphs(detector: Detector, loader: DataLoader, device: torch.device) -> tuple[np.ndarray, np.ndarray]:
    """(graph ids, float32 scores) in loader order; each score stays paired with its own graph's id."""
    ids, columns = score_graph_columns(detector, loader, device)
    return ids, columns["score"]


@torch.no_grad()
def score_graph_columns(
    detector: Detector, loader: DataLoader, device: torch.device
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(graph ids, column name -> float32 scores) in loader order: ``score`` and the detector's
    :attr:`~Detector.score_columns`, all from one :meth:`~Detector.scores` call per batch."""
    detector.eval()
    names = ("score", *detector.score_columns)
    ids, scores = [], {name: [] for name in names}
    for batch in loader:
        batch = batch.to(device)
        values = detector.scores(batch)
        if set(values) != set(names):
            raise ValueError(
                f"{type(detector).__name__}.scores returned columns {sorted(values)}, expected "
                f"{sorted(names)} (score and its score_columns)"
            )
        for name in names:
            if values[name].shape != (batch.num_graphs,):
                raise ValueError(
                    f"{type(detector).__name__}.score returned shape {tuple(values[name].shape)} "
                    f"for {name!r}, expected ({batch.num_graphs},): one score per graph"
                )
            scores[name].append(values[name].float().cpu().numpy())
        ids.append(batch.graph_id.cpu().numpy())
    detector.train()
    if not ids:
        return np.zeros(0, dtype=np.int64), {name: np.zeros(0, dtype=np.float32) for name in names}
    return np.concatenate(ids).astype(np.int64), {name: np.concatenate(scores[name]) for name in names}


# ---- checkpoints and records ---------------------------------------------------------------------------


@dataclass
class _Optimisation:
    """The optimiser and its optional per-batch learning-rate schedule, saved and restored together."""

    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler | None

    @classmethod
    def for_detector(cls, detector: Detector, config: TrainConfig) -> _Optimisation:
        optimizer = torch.optim.Adam(detector.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        scheduler = (
            None
            if config.lr_step_size is None
            else torch.optim.lr_scheduler.StepLR(optimizer, step_size=config.lr_step_size, gamma=config.lr_gamma)
        )
        return cls(optimizer, scheduler)

    def step(self) -> None:
        self.optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()

    def state_dict(self) -> dict[str, Any]:
        return {
            "optimizer": self.optimizer.state_dict(),
            "scheduler": None if self.scheduler is None else self.scheduler.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        if self.scheduler is not None:
            self.scheduler.load_state_dict(state["scheduler"])


def _discard_unresumable(checkpoint: Checkpoint, run_dir: Path, config: TrainConfig, restart_stale: bool) -> None:
    """Start the run over (checkpoint, records and score files removed) when no checkpoint can continue it; remove
    what interrupted writes left (temporaries of a checkpoint or score file).

    Without a (readable) checkpoint, records left in the folder belong to nothing that can be resumed. A checkpoint
    is discarded, with a warning, when it was made by another configuration or other code (``restart_stale``; else
    :meth:`Checkpoint.restore` refuses it), is past the budget, or is past an evaluation point whose record or
    score files are missing, torn or corrupt: resuming it would leave the run summarised from fewer points.
    """
    for path in discard_temporaries(run_dir):
        log.info("removed %s, left by an interrupted write", path)
    content = checkpoint.content()
    problem = None if content is None else _resume_problem(content, checkpoint.run_hash, run_dir, config, restart_stale)
    if problem is not None:
        log.warning("%s %s; the run starts over", checkpoint.path, problem)
        checkpoint.discard()
    if content is None or problem is not None:
        (run_dir / RECORDS).unlink(missing_ok=True)
        shutil.rmtree(run_dir / SCORES, ignore_errors=True)


def _resume_problem(
    content: dict[str, Any], run_hash: str, run_dir: Path, config: TrainConfig, restart_stale: bool
) -> str | None:
    """Why the stored checkpoint ``content`` cannot continue this run (``None``: it can, or restore will refuse it)."""
    epoch = int(content["epoch"])
    if content["config_hash"] != run_hash:
        return "was made by another configuration or other code" if restart_stale else None
    if epoch > config.num_epoch:
        return f"is at epoch {epoch}, past this run's budget of {config.num_epoch} epochs"
    path = run_dir / RECORDS
    try:
        records = [r for r in (read_records(path) if path.exists() else []) if r["epoch"] <= epoch]
        expected = list(range(config.eval_freq, epoch + 1, config.eval_freq))
        if [r["epoch"] for r in records] != expected:
            return f"is at epoch {epoch}, but {path} holds the points {[r['epoch'] for r in records]} of {expected}"
        for record in records:
            _evaluation_point(run_dir, record)
    except (ValueError, CorruptFileError) as err:
        return f"is at epoch {epoch}, but its records are not readable: {err}"
    return None


def _drop_records_after(path: Path, epoch: int) -> None:
    """Keep only records up to ``epoch``: a run killed after a record but before its checkpoint redoes it."""
    if not path.exists():
        return
    records = read_records(path)
    kept = [r for r in records if r["epoch"] <= epoch]
    if len(kept) != len(records):
        write_records(path, kept)


def _record(
    run_dir: Path,
    epoch: int,
    train_loss: float,
    scores: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]],
    context: dict[str, Any],
) -> None:
    """Write the epoch's score files (every score column), then append its record (the record points at
    existing files). A graph counts as non-finite when any of its columns is. ``scores`` holds ``test``,
    ``holdout`` and, for a run with groups, ``groups.<name>`` per group; the groups' files, counts and
    non-finite counts go to the record's ``group_scores``, ``n_groups`` and ``nonfinite_groups`` (absent
    without groups, so such records stay as they were)."""
    files = {}
    for part, (ids, columns) in scores.items():
        name = f"{SCORES}/epoch_{epoch:06d}.{part.removeprefix('groups.')}.npz"
        write_item_scores(run_dir / name, ids, **columns)
        files[part] = name
    groups = {part.removeprefix("groups."): part for part in scores if part.startswith("groups.")}
    record = {
        "epoch": epoch,
        "train_loss": train_loss,
        "train_loss_finite": bool(np.isfinite(train_loss)),
        "n_test": len(scores["test"][0]),
        "n_holdout": len(scores["holdout"][0]),
        "nonfinite_test": _nonfinite_graphs(scores["test"][1]),
        "nonfinite_holdout": _nonfinite_graphs(scores["holdout"][1]),
        "test_scores": files["test"],
        "holdout_scores": files["holdout"],
        "peak_rss_mb": peak_rss_mb(),
        **context,
    }
    if groups:
        record["group_scores"] = {name: files[part] for name, part in groups.items()}
        record["n_groups"] = {name: len(scores[part][0]) for name, part in groups.items()}
        record["nonfinite_groups"] = {name: _nonfinite_graphs(scores[part][1]) for name, part in groups.items()}
    append_record(run_dir / RECORDS, record)


def _nonfinite_graphs(columns: dict[str, np.ndarray]) -> int:
    if not len(next(iter(columns.values()))):
        return 0
    return int(np.count_nonzero(~np.all([np.isfinite(values) for values in columns.values()], axis=0)))


def _column_context(detector: Detector) -> dict[str, Any]:
    """Record fields naming the score files' columns, for detectors with extra columns only (so the records
    of the others stay as they were); :func:`load_trajectory` reads them."""
    if not detector.score_columns:
        return {}
    names = ["score", *detector.score_columns]
    if detector.reported_score not in names:
        raise ValueError(
            f"{type(detector).__name__}.reported_score is {detector.reported_score!r}, not one of its "
            f"score columns {names}"
        )
    return {"score_columns": names, "reported_score": detector.reported_score}


# ---- the run -------------------------------------------------------------------------------------------


def train(
    build: Callable[[], Detector],
    graphs: RunGraphs,
    config: TrainConfig,
    run_dir: str | Path,
    *,
    stop_after_epoch: int | None = None,
    restart_stale: bool = False,
    memory_budget_bytes: int | None = None,
) -> TrainResult:
    """Train a detector for the full budget, recording every evaluation point; resume when a checkpoint exists.

    ``build`` constructs the detector after the global RNGs are seeded with ``config.seed``, so its
    initial weights are reproducible. ``stop_after_epoch`` ends the call after that epoch with a
    checkpoint (a job that must fit a time slot); a later call continues the run. A checkpoint of another
    configuration or other code (:func:`config_hash`) is refused, or with ``restart_stale`` discarded
    together with its records, and the run starts over. A checkpoint that cannot continue the run (corrupt, past
    the budget, or past a point whose record or score file is missing or corrupt) is discarded with its records,
    with a warning, and the run starts over; a longer budget continues a finished run. With
    ``memory_budget_bytes``, a detector whose :meth:`~Detector.peak_memory_bytes` exceeds it raises
    :class:`MemoryBudgetError` before training starts.
    """
    run_dir = Path(run_dir)
    device = resolve_device(config.device)
    seed_everything(config.seed)
    detector = build().to(device)
    _check_memory(detector, graphs, config, memory_budget_bytes)
    optimisation = _Optimisation.for_detector(detector, config)
    generator = torch.Generator().manual_seed(stable_seed("nn.trainer", "loader", config.seed))
    run_hash = config_hash(detector, graphs, config)
    graphs = detector.prepare_graphs(graphs)
    parts = {"model": detector, "optimisation": optimisation}
    checkpoint = Checkpoint(run_dir / CHECKPOINT, run_hash, parts, generator)
    _discard_unresumable(checkpoint, run_dir, config, restart_stale)
    start, wall_s = checkpoint.open(lambda: _fit_setup(detector, graphs.train, config, device))
    _drop_records_after(run_dir / RECORDS, start)

    def loader(part: Sequence[Data], batch_size: int, shuffle: bool) -> DataLoader:
        return DataLoader(list(part), batch_size=batch_size, shuffle=shuffle, generator=generator)

    train_loader = (
        loader(graphs.train, config.batch_size, True)
        if config.shuffle_train
        else fixed_batches(graphs.train, config.batch_size)
    )
    detector.attach_train_loader(train_loader)
    score_batch = (
        max(config.batch_size_test, INDEPENDENT_SCORE_BATCH)
        if detector.batch_independent_scores
        else config.batch_size_test
    )
    # the hold-out pass is always isolated, so its order is immaterial: it is never shuffled (and may be empty);
    # an empty test part (a run that scores groups only) has no loader and draws nothing
    eval_loaders = {
        "test": loader(graphs.test, score_batch, config.shuffle_test) if graphs.test else None,
        "holdout": loader(graphs.holdout, score_batch, False),
        **{f"groups.{name}": loader(part, score_batch, config.shuffle_test) for name, part in graphs.groups.items()},
    }
    context = {
        "seed": config.seed,
        "config_hash": run_hash,
        "versions": environment_versions(),
        "device": str(device),
        "detector": type(detector).__name__,
        **_column_context(detector),
    }

    def epoch_fn(epoch: int, clock: Callable[[], float]) -> EpochEnd:
        train_loss = _train_epoch(
            detector, optimisation, train_loader, device, _training_mode(detector, epoch, config.eval_freq)
        )
        evaluate = epoch % config.eval_freq == 0
        if evaluate:
            scores = _score_parts(detector, eval_loaders, device, generator, config.test_rng)
            wall_s = clock()
            _record(run_dir, epoch, train_loss, scores, {**context, "wall_s": wall_s})
            log.info(
                "epoch %d/%d: train loss %.5g, %.1f s so far (%.2f epochs/s)",
                epoch,
                config.num_epoch,
                train_loss,
                wall_s,
                epoch / wall_s if wall_s > 0 else float("inf"),
            )
        return EpochEnd(checkpoint=evaluate or epoch == config.num_epoch)

    end = run_epochs(
        epoch_fn,
        checkpoint,
        start=start,
        wall_s=wall_s,
        num_epoch=config.num_epoch,
        checkpoint_every_s=config.checkpoint_every_s,
        stop_after_epoch=stop_after_epoch,
    )
    return TrainResult(
        detector=detector,
        epoch=end.epoch,
        completed=end.epoch >= config.num_epoch,
        device=str(device),
        run_dir=run_dir,
    )


def _check_memory(detector: Detector, graphs: RunGraphs, config: TrainConfig, budget: int | None) -> None:
    needed = detector.peak_memory_bytes(graphs, config) if budget is not None else None
    if needed is not None and needed > budget:
        raise MemoryBudgetError(
            f"{type(detector).__name__} needs about {needed / 2**30:.3g} GiB for one training step or scoring pass "
            f"(batch_size {config.batch_size}, batch_size_test {config.batch_size_test}), over the "
            f"memory budget of {budget / 2**30:.3g} GiB; the run is infeasible within it (raise "
            f"the budget only on a machine that has the memory)"
        )


def _score_parts(
    detector: Detector,
    loaders: dict[str, DataLoader | None],
    device: torch.device,
    generator: torch.Generator,
    test_rng: str,
) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Test scores, then each group's in order (drawing from the training RNG when ``coupled``), then hold-out
    scores, always isolated. A part without a loader (an empty test part) has no scores."""
    scores = {}
    for part in [name for name in loaders if name != "holdout"]:
        scoring = preserved_rng(generator) if test_rng == "isolated" else contextlib.nullcontext()
        with scoring:
            scores[part] = (
                _no_scores(detector) if loaders[part] is None else score_graph_columns(detector, loaders[part], device)
            )
    with preserved_rng(generator):
        scores["holdout"] = score_graph_columns(detector, loaders["holdout"], device)
    return scores


def _no_scores(detector: Detector) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    names = ("score", *detector.score_columns)
    return np.zeros(0, dtype=np.int64), {name: np.zeros(0, dtype=np.float32) for name in names}


def node_pair_bytes(graphs: RunGraphs, config: TrainConfig, scoring: float, training: float) -> int:
    """Peak bytes of a detector whose memory grows with the square of a batch's node count (an N x N matrix over
    every node of the batch: CVTGAD's and GOOD-D's node-level terms, U23): ``training`` bytes per node pair for a
    training step on ``batch_size`` graphs, ``scoring`` for a scoring pass on ``batch_size_test`` graphs, each batch
    taken as the part's largest graphs (an upper bound). The larger of the two."""
    step = _largest_batch_nodes([graphs.train], config.batch_size) ** 2 * training
    score = _largest_batch_nodes(graphs.scored(), config.batch_size_test) ** 2 * scoring
    return int(max(step, score))


def _largest_batch_nodes(parts: Iterable[Sequence[Data]], batch_size: int) -> int:
    """The most nodes ``batch_size`` graphs of one part can hold."""
    most = 0
    for part in parts:
        sizes = sorted((int(g.num_nodes) for g in part), reverse=True)
        most = max(most, sum(sizes[:batch_size]))
    return most


def fixed_batches(graphs: Sequence[Data], batch_size: int) -> list[Batch]:
    """Batches in the given order, built once without drawing from any RNG (a DataLoader iterator draws a
    base seed even when it does not shuffle, which would shift a resumed run)."""
    return [Batch.from_data_list(list(graphs[i : i + batch_size])) for i in range(0, len(graphs), batch_size)]


def _fit_setup(detector: Detector, train_graphs: Sequence[Data], config: TrainConfig, device: torch.device) -> None:
    """Run the detector's one-off setup over the training graphs in a fixed order, without gradients."""
    with torch.no_grad():
        detector.setup(batch.to(device) for batch in fixed_batches(train_graphs, config.batch_size))


# ---- records -> trajectory ---------------------------------------------------------------------------


def read_run_records(
    run_dir: str | Path, expected: Mapping[str, Any] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A finished run's records and their seal, ``evaluations`` and ``records_sha256``, which the run's summary
    keeps (glad's ``run.json``) so that a reader can check the records against it.

    The records are read strictly: a torn or unparsable line is a :class:`CorruptFileError` naming the file. With
    ``expected`` (the seal a summary kept), records that no longer match it (a point cut off or changed after the
    run finished) are one too, never a shorter run; its remedy is to train the run again (:func:`train` then
    finds the gap and recomputes the run).
    """
    path = Path(run_dir) / RECORDS
    try:
        records, digest = read_finished_records(path) if path.exists() else ([], None)
    except ValueError as err:
        raise CorruptFileError(path, str(err).removeprefix(f"{path}: "), RETRAIN) from err
    seal = {"evaluations": len(records), "records_sha256": digest}
    if expected is not None and {key: expected.get(key) for key in seal} != seal:
        raise CorruptFileError(
            path,
            f"holds {len(records)} evaluation points (sha256 {digest}), but the run's summary says "
            f"{expected.get('evaluations')} (sha256 {expected.get('records_sha256')}): the records were cut or "
            f"changed after the run finished",
            RETRAIN,
        )
    return records, seal


def load_trajectory(
    run_dir: str | Path, expected: Mapping[str, Any] | None = None, group: str | None = None
) -> Trajectory:
    """The run's records and score files as a :class:`~graphaudit.selection.trajectory.Trajectory`; with
    ``group``, the trajectory whose test graphs are that scored group's (:attr:`RunGraphs.groups`), with the same
    hold-out scores, so a label-free rule chooses the same point in every group's trajectory.

    The records are read and checked by :func:`read_run_records` (``expected``: the seal the run's summary kept)
    and every score file they name is CRC-checked: a missing, torn or corrupt one is a :class:`CorruptFileError`
    naming the file. Test and hold-out scores are the record's ``reported_score`` column (``score`` unless the
    detector names another, :attr:`Detector.reported_score`); when that is not ``score``, ``score`` becomes the
    ``oracle_test_scores`` the oracle ranks by (CVTGAD: normalised for selection, raw for the tables, U15).
    """
    run_dir = Path(run_dir)
    records, _ = read_run_records(run_dir, expected)
    return Trajectory.from_points([_evaluation_point(run_dir, record, group) for record in records])


def record_groups(record: Mapping[str, Any]) -> list[str]:
    """The scored groups a record names, by name (none for a run without groups)."""
    return sorted(record.get("group_scores", {}))


def _evaluation_point(run_dir: Path, record: Mapping[str, Any], group: str | None = None) -> EvaluationPoint:
    """One record's point (the test part, or the scored ``group``); every score file it names is read and checked,
    so a resume check finds a torn group file as it finds a torn test file."""
    reported = record.get("reported_score", "score")
    groups = {name: _read_scores(run_dir / path) for name, path in record.get("group_scores", {}).items()}
    if group is not None and group not in groups:
        raise ValueError(f"{run_dir}: epoch {record['epoch']} scored no group {group!r} (groups: {sorted(groups)})")
    test_ids, test = groups[group] if group is not None else _read_scores(run_dir / record["test_scores"])
    holdout_ids, holdout = _read_scores(run_dir / record["holdout_scores"])
    return EvaluationPoint(
        epoch=int(record["epoch"]),
        train_loss=float(record["train_loss"]),
        test_ids=test_ids,
        test_scores=test[reported],
        holdout_ids=holdout_ids,
        holdout_scores=holdout[reported],
        oracle_test_scores=None if reported == "score" else test["score"],
    )


def _read_scores(path: Path) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(item ids, column name -> scores) of one score file, checked (CRC-32)."""
    try:
        arrays = read_npz(path)
    except FileNotFoundError as err:
        raise CorruptFileError(path, "is missing, though the run's records name it", RETRAIN) from err
    except CorruptFileError as err:
        raise err.with_remedy(RETRAIN) from None
    return arrays.pop("item_id"), arrays


def _ids_of(graphs: Sequence[Data], name: str) -> np.ndarray:
    missing = [i for i, g in enumerate(graphs) if getattr(g, "graph_id", None) is None]
    if missing:
        raise ValueError(f"RunGraphs.{name}: graphs {missing[:5]} have no graph_id (use graphs_with_ids)")
    return np.array([int(g.graph_id.reshape(-1)[0]) for g in graphs], dtype=np.int64)

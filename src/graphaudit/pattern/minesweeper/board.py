"""The Minesweeper board (Platonov et al. 2023; spec 3.4): the official file, its offline regeneration, scoring.

This is the only module that knows how the board was *built*. The published construction recipe (mines =
the first 2,000 of ``default_rng(0).permutation(10000)``, unknown counts = the first 5,000 of
``default_rng(1).permutation(10000)``) lives in :func:`regenerate_board` and nowhere else. The inference
modules (:mod:`graphaudit.pattern.minesweeper.bp`, :mod:`graphaudit.pattern.minesweeper.strip`) take a grid
of revealed counts (:meth:`Board.count_grid`) and, for the labelled BP variant, a grid holding the training
labels of one mask and nothing else (:meth:`Board.train_clamp`); they never see a :class:`Board`.

Counts: ``-1`` = unknown, ``0..4`` = the count, ``5`` = five or more mined neighbours (the released
one-hot caps at 5). A cell's count never includes the cell itself, and revealed cells can be mines.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.seeds import rng_for
from graphaudit.data.errors import StatisticsMismatchError
from graphaudit.data.readers import DataFormatError
from graphaudit.pattern.minesweeper.bp import COUNT_CAP, UNKNOWN, neighbour_mines
from graphaudit.stats.metrics import auroc

__all__ = [
    "COUNT_CAP",
    "SIDE",
    "UNKNOWN",
    "Board",
    "MaskAUC",
    "check_regenerated",
    "counts_from_mines",
    "grid_edges",
    "mask_auroc",
    "read_official",
    "regenerate_board",
    "stratified_masks",
]

SIDE = 100
N_MINES = 2000
N_UNKNOWN = 5000
N_MASKS = 10
N_EDGES = 39402
FEATURE_SUMS = (5000, 858, 1726, 1442, 677, 232, 65)  # column 0: unknown flag; 1..6: count 0..4, >=5
SPLIT_CELLS = {"train": 5000, "val": 2500, "test": 2500}
SPLIT_MINES = {"train": 1000, "val": 500, "test": 500}
REVEALED_MINES = 988  # mines on revealed cells in the release (1,012 on unknown ones)
SOURCES = ("official", "regenerated")


@dataclass(frozen=True, eq=False)
class Board:
    """One Minesweeper board on a ``side`` x ``side`` 8-neighbour grid; cell index = row * side + col.

    ``counts`` (N,) int8: revealed count per cell (-1 unknown, 5 means >= 5); ``labels`` (N,) uint8: 1 = mine;
    ``train_masks`` / ``val_masks`` / ``test_masks`` (10, N) bool; ``source``: ``"official"`` (the released
    file) or ``"regenerated"`` (the published recipe with the project's own masks, a deviation).
    """

    side: int
    counts: np.ndarray
    labels: np.ndarray
    train_masks: np.ndarray
    val_masks: np.ndarray
    test_masks: np.ndarray
    source: str

    def __post_init__(self) -> None:
        n = self.side * self.side
        if self.source not in SOURCES:
            raise ValueError(f"board source must be one of {SOURCES}, got {self.source!r}")
        if self.counts.shape != (n,) or self.labels.shape != (n,):
            raise ValueError(f"counts and labels must have shape ({n},) for side {self.side}")
        for name in ("train_masks", "val_masks", "test_masks"):
            mask = getattr(self, name)
            if mask.ndim != 2 or mask.shape[1] != n or mask.dtype != bool:
                raise ValueError(f"{name} must be a bool array of shape (masks, {n}), got {mask.dtype} {mask.shape}")

    @property
    def edges(self) -> np.ndarray:
        """Undirected grid edges (E, 2), u < v, sorted (the released ``edges`` array for side 100)."""
        return grid_edges(self.side)

    @property
    def n_masks(self) -> int:
        return int(self.train_masks.shape[0])

    def count_grid(self) -> np.ndarray:
        """The revealed counts as a (side, side) int8 grid: everything the features-only inference may read."""
        return self.counts.reshape(self.side, self.side).copy()

    def train_clamp(self, mask: int) -> np.ndarray:
        """(side, side) int8 grid: the label on mask ``mask``'s training cells, -1 elsewhere (for clamped BP)."""
        if not 0 <= mask < self.n_masks:
            raise IndexError(f"mask {mask} out of range 0..{self.n_masks - 1}")
        clamp = np.full(self.side * self.side, -1, dtype=np.int8)
        train = self.train_masks[mask]
        clamp[train] = self.labels[train]
        return clamp.reshape(self.side, self.side)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the board as an ``.npz`` (atomic, byte-reproducible, no pickle)."""
        write_npz(
            path,
            counts=self.counts,
            labels=self.labels,
            train_masks=self.train_masks,
            val_masks=self.val_masks,
            test_masks=self.test_masks,
            meta=np.array(json.dumps({"side": self.side, "source": self.source})),
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Board:
        """Read a board written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive["meta"]))
            return cls(
                side=int(meta["side"]),
                counts=archive["counts"],
                labels=archive["labels"],
                train_masks=archive["train_masks"],
                val_masks=archive["val_masks"],
                test_masks=archive["test_masks"],
                source=meta["source"],
            )


# ---- grid facts ---------------------------------------------------------------------------------------
def grid_edges(side: int) -> np.ndarray:
    """Edges of the ``side`` x ``side`` king-move grid as (E, 2) int64 pairs u < v, sorted by (u, v)."""
    index = np.arange(side * side).reshape(side, side)
    pairs = [
        (index[:, :-1], index[:, 1:]),
        (index[:-1, :], index[1:, :]),  # right, down
        (index[:-1, :-1], index[1:, 1:]),
        (index[:-1, 1:], index[1:, :-1]),
    ]  # down-right, down-left
    edges = np.concatenate([np.stack([a.ravel(), b.ravel()], axis=1) for a, b in pairs])
    edges = np.sort(edges, axis=1)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))].astype(np.int64)


def counts_from_mines(mines: np.ndarray, unknown: np.ndarray) -> np.ndarray:
    """Revealed counts of a 2-D mine grid: neighbour mines capped at 5, -1 where ``unknown`` is set (int8)."""
    counts = np.minimum(neighbour_mines(mines), COUNT_CAP).astype(np.int8)
    counts[np.asarray(unknown, dtype=bool)] = UNKNOWN
    return counts


# ---- the official file --------------------------------------------------------------------------------
def _require(condition: bool, path: str | os.PathLike[str], what: str) -> None:
    if not condition:
        raise StatisticsMismatchError(
            f"minesweeper ({path}): {what}. This is not the released yandex-research/heterophilous-graphs "
            "data/minesweeper.npz (135,045 bytes); download it again or point the data mirror at a good copy."
        )


def _load_arrays(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as err:
        raise DataFormatError(f"minesweeper ({path}): not a readable npz archive ({err})") from err
    needed = ("node_features", "node_labels", "edges", "train_masks", "val_masks", "test_masks")
    missing = [k for k in needed if k not in arrays]
    if missing:
        raise DataFormatError(f"minesweeper ({path}): npz lacks arrays {missing}; is this the released file?")
    return arrays


def _counts_from_features(features: np.ndarray, path: str | os.PathLike[str]) -> np.ndarray:
    _require(features.shape == (SIDE * SIDE, 7), path, f"node_features has shape {features.shape}, not (10000, 7)")
    _require(
        bool(np.isin(features, (0, 1)).all() and (features.sum(axis=1) == 1).all()),
        path,
        "node_features rows are not one-hot",
    )
    sums = tuple(int(s) for s in features.sum(axis=0))
    _require(sums == FEATURE_SUMS, path, f"feature column sums are {sums}, not {FEATURE_SUMS}")
    return (np.argmax(features, axis=1) - 1).astype(np.int8)  # column 0 -> -1, column k -> count k - 1


def _check_masks(arrays: dict[str, np.ndarray], labels: np.ndarray, path: str | os.PathLike[str]) -> None:
    for split, cells in SPLIT_CELLS.items():
        mask = arrays[f"{split}_masks"]
        _require(
            mask.shape == (N_MASKS, SIDE * SIDE) and mask.dtype == bool,
            path,
            f"{split}_masks has {mask.dtype} {mask.shape}, not bool (10, 10000)",
        )
        _require(bool((mask.sum(axis=1) == cells).all()), path, f"{split}_masks do not all hold {cells} cells")
        _require(
            bool((mask[:, labels == 1].sum(axis=1) == SPLIT_MINES[split]).all()),
            path,
            f"{split}_masks are not stratified ({SPLIT_MINES[split]} mines each)",
        )
    cover = arrays["train_masks"].astype(int) + arrays["val_masks"] + arrays["test_masks"]
    _require(bool((cover == 1).all()), path, "train/val/test masks of a split overlap or leave cells out")


def read_official(path: str | os.PathLike[str]) -> Board:
    """Read the released ``minesweeper.npz`` and check every fact of spec 3.4; raise when one fails.

    Checked: array shapes and dtypes; 2,000 mines; 39,402 edges equal to the 8-neighbour 100 x 100 grid
    (u < v); one-hot features with column sums 5000/858/1726/1442/677/232/65; the revealed counts equal
    the labels' neighbour counts capped at 5 (988 mines on revealed cells); ten masks per split of
    5,000/2,500/2,500 cells with 1,000/500/500 mines, partitioning the board within each split.
    """
    arrays = _load_arrays(path)
    labels = arrays["node_labels"]
    _require(
        labels.shape == (SIDE * SIDE,) and bool(np.isin(labels, (0, 1)).all()),
        path,
        f"node_labels has shape {labels.shape} or values outside 0/1",
    )
    _require(int(labels.sum()) == N_MINES, path, f"{int(labels.sum())} mines, not {N_MINES}")
    edges = arrays["edges"]
    _require(edges.shape == (N_EDGES, 2), path, f"edges has shape {edges.shape}, not ({N_EDGES}, 2)")
    ordered = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    _require(bool(np.array_equal(ordered, grid_edges(SIDE))), path, "edges are not the 8-neighbour 100 x 100 grid")
    counts = _counts_from_features(arrays["node_features"], path)
    mines = labels.reshape(SIDE, SIDE)
    expected = counts_from_mines(mines, (counts == UNKNOWN).reshape(SIDE, SIDE)).ravel()
    _require(bool(np.array_equal(counts, expected)), path, "revealed counts disagree with the mines' neighbour counts")
    _require(
        int(labels[counts != UNKNOWN].sum()) == REVEALED_MINES,
        path,
        f"{int(labels[counts != UNKNOWN].sum())} mines on revealed cells, not {REVEALED_MINES}",
    )
    _check_masks(arrays, labels, path)
    return Board(
        side=SIDE,
        counts=counts,
        labels=labels.astype(np.uint8),
        train_masks=arrays["train_masks"],
        val_masks=arrays["val_masks"],
        test_masks=arrays["test_masks"],
        source="official",
    )


# ---- offline regeneration (data construction only) ----------------------------------------------------
def stratified_masks(
    labels: np.ndarray,
    rng: np.random.Generator,
    n_masks: int = N_MASKS,
    shares: tuple[float, float, float] = (0.5, 0.25, 0.25),
) -> tuple[np.ndarray, ...]:
    """``n_masks`` stratified train/val/test partitions of the cells: each class is shuffled on its own and
    cut by ``shares`` (2,000 mines -> exactly 1,000/500/500). Returns three (n_masks, N) bool arrays."""
    labels = np.asarray(labels)
    masks = np.zeros((3, n_masks, len(labels)), dtype=bool)
    for m in range(n_masks):
        for cls in (0, 1):
            cells = rng.permutation(np.flatnonzero(labels == cls))
            cuts = np.round(np.cumsum(shares)[:-1] * len(cells)).astype(int)
            for split, part in enumerate(np.split(cells, cuts)):
                masks[split, m, part] = True
    return masks[0], masks[1], masks[2]


def regenerate_board(mask_seed: int) -> Board:
    """The board rebuilt from the published recipe (spec 3.4), with the project's own stratified 50/25/25
    masks drawn from ``rng_for("pattern", "minesweeper", "masks", mask_seed)``; ``source="regenerated"``.

    The recipe relies on numpy's ``Generator`` streams, which numpy does not promise to keep across
    versions: call :func:`check_regenerated` against the released file whenever it is available.
    """
    mines = np.zeros(SIDE * SIDE, dtype=np.uint8)
    mines[np.random.default_rng(0).permutation(SIDE * SIDE)[:N_MINES]] = 1
    unknown = np.zeros(SIDE * SIDE, dtype=bool)
    unknown[np.random.default_rng(1).permutation(SIDE * SIDE)[:N_UNKNOWN]] = True
    counts = counts_from_mines(mines.reshape(SIDE, SIDE), unknown.reshape(SIDE, SIDE)).ravel()
    train, val, test = stratified_masks(mines, rng_for("pattern", "minesweeper", "masks", mask_seed))
    return Board(
        side=SIDE, counts=counts, labels=mines, train_masks=train, val_masks=val, test_masks=test, source="regenerated"
    )


def check_regenerated(regenerated: Board, official: Board) -> None:
    """Raise unless the regenerated labels and revealed counts (= the feature argmax) equal the official
    arrays element-wise (numpy's stream may change between versions; pitfall 5)."""
    for name in ("labels", "counts"):
        ours, theirs = getattr(regenerated, name), getattr(official, name)
        if ours.shape != theirs.shape or not np.array_equal(ours, theirs):
            differ = int((ours != theirs).sum()) if ours.shape == theirs.shape else "all"
            raise StatisticsMismatchError(
                f"regenerated minesweeper {name} differ from the released file in {differ} cells (numpy "
                f"{np.__version__}); its Generator stream has changed: use the official file instead."
            )


# ---- scoring ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MaskAUC:
    """ROC AUC in points on each test mask (``per_mask``), their mean and SD (ddof=1, the benchmark's own
    convention in heterophilous-graphs ``utils.Logger``)."""

    per_mask: tuple[float, ...]
    mean: float
    sd: float

    @classmethod
    def of(cls, values: Iterable[float]) -> MaskAUC:
        """The summary of per-mask AUCs (SD NaN for a single mask)."""
        values = tuple(float(v) for v in values)
        sd = float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")
        return cls(per_mask=values, mean=float(np.mean(values)), sd=sd)


def mask_auroc(scores: np.ndarray, labels: np.ndarray, test_masks: np.ndarray) -> MaskAUC:
    """AUROC of per-cell ``scores`` (higher = more likely a mine) on each row of ``test_masks``."""
    scores, labels, test_masks = np.ravel(scores), np.asarray(labels), np.atleast_2d(test_masks)
    if scores.shape != labels.shape or test_masks.shape[1] != labels.shape[0]:
        raise ValueError(f"scores {scores.shape}, labels {labels.shape} and masks {test_masks.shape} disagree")
    return MaskAUC.of(auroc(labels[mask], scores[mask]) for mask in test_masks)

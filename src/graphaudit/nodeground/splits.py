"""The label regimes of spec 3.5: stratified train / validation / test partitions shared by every method.

A split is named ``train-val-test`` in percent (``10-10-80``, ``50-25-25``: the names the records accept).
Partition ``k`` of a split of a dataset is drawn once from the stable seed of (``nodeground``, ``splits``,
dataset, split, k, extra seed parts) and written once; every method reads the same file. Only nodes with a
valid label enter a mask. Each class is split on its own: its valid nodes are shuffled and cut into the three
shares with largest-remainder rounding, so every class's train, validation and test counts lie within one node
of their targets (a class with fewer nodes than parts leaves some part without it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.common.seeds import rng_for
from graphaudit.data.errors import DataUnavailableError
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.records import train_share

__all__ = ["Splits", "class_counts", "make_splits", "split_shares"]


def split_shares(split: str) -> np.ndarray:
    """The three shares of a split name (``10-10-80`` -> 0.1, 0.1, 0.8); the percentages must sum to 100."""
    train_share(split)  # checks the form train-val-test
    percent = np.array([int(p) for p in split.split("-")])
    if percent.sum() != 100:
        raise ValueError(f"split {split!r}: the train, val and test percentages must sum to 100")
    return percent / 100.0


def class_counts(size: int, shares: np.ndarray) -> np.ndarray:
    """``size`` nodes cut into parts of the given shares by largest remainder (ties: earlier part first)."""
    exact = size * shares
    counts = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: size - counts.sum()]] += 1
    return counts


@dataclass(frozen=True)
class Splits:
    """Bool masks ``[partitions, n]`` of one split of one dataset (disjoint, valid-labelled nodes only)."""

    split: str
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray

    def __post_init__(self) -> None:
        train_share(self.split)
        shapes = {m.shape for m in (self.train, self.val, self.test)}
        if len(shapes) != 1 or self.train.ndim != 2 or any(m.dtype != bool for m in (self.train, self.val, self.test)):
            raise ValueError(
                f"split {self.split}: train, val and test must be bool arrays of one shape [partitions, n]"
            )
        if np.any(self.train & self.val) or np.any(self.train & self.test) or np.any(self.val & self.test):
            raise ValueError(f"split {self.split}: a node is in two of train, val and test")

    @property
    def partitions(self) -> int:
        return self.train.shape[0]

    def masks(self, partition: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Train, validation and test masks of one partition."""
        return self.train[partition], self.val[partition], self.test[partition]

    def save(self, path: str | os.PathLike[str]) -> None:
        """One ``.npz`` (no pickle), written atomically and byte-reproducibly."""
        write_npz(path, split=np.array(self.split), train=self.train, val=self.val, test=self.test)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Splits:
        """Splits written by :meth:`save`; the file of an unavailable dataset raises ``DataUnavailableError``."""
        archive = read_npz(path)
        if "unavailable" in archive:
            raise DataUnavailableError(f"dataset {archive['name']} is unavailable ({path}): {archive['unavailable']}")
        return cls(split=str(archive["split"]), train=archive["train"], val=archive["val"], test=archive["test"])


def _partition(labels: np.ndarray, shares: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Part index (0 train, 1 val, 2 test, -1 none) of every node: each class shuffled and cut on its own."""
    part = np.full(len(labels), -1, dtype=np.int64)
    for label in np.unique(labels[labels >= 0]):
        nodes = rng.permutation(np.flatnonzero(labels == label))
        part[nodes] = np.repeat(np.arange(len(shares)), class_counts(len(nodes), shares))
    return part


def make_splits(graph: NodeGraph, split: str, partitions: int = 5, seed_parts: tuple[object, ...] = ()) -> Splits:
    """``partitions`` stratified partitions of ``graph`` under ``split`` (see the module docstring)."""
    shares = split_shares(split)
    parts = np.stack(
        [
            _partition(graph.y, shares, rng_for("nodeground", "splits", graph.name, split, k, *seed_parts))
            for k in range(partitions)
        ]
    )
    return Splits(split=split, train=parts == 0, val=parts == 1, test=parts == 2)

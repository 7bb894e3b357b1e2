"""NodeGraph: the one graph every NodeGround method, split and statistic reads (spec 3.4).

A NodeGraph is the output of the shared preprocessing (:mod:`graphaudit.nodeground.preprocess`): float32
features, labels remapped to ``0..C-1`` with ``-1`` for a node without a valid label, and an edge index that
is coalesced (sorted by source then target, no duplicates), holds both directions of every edge and exactly
one self-loop per node. The constructor checks all of it, so a NodeGraph that exists is a valid one.

A dataset that no source could provide (``data.on_unavailable: record``) is written as an *unavailable graph
file* at the same path: :func:`unavailable_reason` tells the search why, and :meth:`NodeGraph.load` refuses it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.data.errors import DataUnavailableError

if TYPE_CHECKING:  # torch is imported only where a graph is turned into PyG data
    import torch_geometric.data

__all__ = ["GraphInvariantError", "NodeGraph", "unavailable_reason", "write_unavailable"]

_ARRAYS = ("name", "x", "edge_index", "y", "num_classes")


class GraphInvariantError(ValueError):
    """Arrays that break an invariant of the shared preprocessing; the message names the invariant."""


@dataclass(frozen=True)
class NodeGraph:
    """One preprocessed node-classification graph (see the module docstring for the invariants)."""

    name: str
    x: np.ndarray
    edge_index: np.ndarray
    y: np.ndarray
    num_classes: int

    def __post_init__(self) -> None:
        problems = invariant_problems(self.x, self.edge_index, self.y, self.num_classes)
        if problems:
            raise GraphInvariantError(f"graph {self.name!r}: " + "; ".join(problems))

    @property
    def num_nodes(self) -> int:
        return len(self.y)

    @property
    def valid(self) -> np.ndarray:
        """Bool mask of the nodes with a valid label (the only nodes any split may use)."""
        return self.y >= 0

    def task(self) -> str:
        """``binary`` for two classes (one logit, BCE), else ``multiclass``."""
        return "binary" if self.num_classes == 2 else "multiclass"

    def to_pyg(self) -> torch_geometric.data.Data:
        """``x``, ``edge_index`` and ``y`` as torch tensors (the edge index as preprocessed, self-loops included)."""
        import torch
        from torch_geometric.data import Data

        return Data(
            x=torch.from_numpy(self.x),
            edge_index=torch.from_numpy(self.edge_index),
            y=torch.from_numpy(self.y),
            num_nodes=self.num_nodes,
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """One ``.npz`` (no pickle), written atomically; the same graph always gives the same bytes."""
        write_npz(
            path,
            name=np.array(self.name),
            x=self.x,
            edge_index=self.edge_index,
            y=self.y,
            num_classes=np.array(self.num_classes, dtype=np.int64),
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> NodeGraph:
        """A graph written by :meth:`save`; an unavailable graph file raises ``DataUnavailableError``."""
        archive = read_npz(path)
        if "unavailable" in archive:
            raise DataUnavailableError(f"dataset {archive['name']} is unavailable ({path}): {archive['unavailable']}")
        missing = [k for k in _ARRAYS if k not in archive]
        if missing:
            raise GraphInvariantError(f"{path} is not a NodeGraph file: missing arrays {missing}")
        return cls(
            name=str(archive["name"]),
            x=archive["x"],
            edge_index=archive["edge_index"],
            y=archive["y"],
            num_classes=int(archive["num_classes"]),
        )


def invariant_problems(x: np.ndarray, edge_index: np.ndarray, y: np.ndarray, num_classes: int) -> list[str]:
    """Every broken invariant of spec 3.4, as text (empty: the arrays form a valid NodeGraph)."""
    if x.dtype != np.float32 or x.ndim != 2:
        return [f"x must be a 2-D float32 array, found {x.ndim}-D {x.dtype}"]
    if y.dtype != np.int64 or y.ndim != 1 or len(y) != len(x):
        return [f"y must be int64 with one entry per row of x ({len(x)}), found {y.dtype} of shape {y.shape}"]
    if edge_index.dtype != np.int64 or edge_index.ndim != 2 or edge_index.shape[0] != 2:
        return [f"edge_index must be int64 of shape [2, E], found {edge_index.dtype} of shape {edge_index.shape}"]
    n = len(y)
    problems = []
    if len(y) and (y.min() < -1 or y.max() >= num_classes):
        problems.append(f"labels must lie in 0..{num_classes - 1} (-1: invalid), found {y.min()}..{y.max()}")
    valid = y[y >= 0]
    if len(np.unique(valid)) != num_classes:
        problems.append(f"num_classes is {num_classes} but the valid labels use {len(np.unique(valid))} classes")
    if edge_index.size and (edge_index.min() < 0 or edge_index.max() >= n):
        return [*problems, f"edge endpoints must lie in 0..{n - 1}"]
    src, dst = edge_index
    key = src * np.int64(max(n, 1)) + dst
    if np.any(np.diff(key) <= 0):
        problems.append("edges must be coalesced: sorted by (source, target) without duplicates")
    loops = src == dst
    if not np.array_equal(np.sort(src[loops]), np.arange(n)):
        problems.append("every node needs exactly one self-loop")
    reverse = np.sort(dst * np.int64(max(n, 1)) + src)
    if not np.array_equal(np.sort(key), reverse):
        problems.append("every edge needs its reverse (both directions)")
    return problems


def write_unavailable(path: str | os.PathLike[str], name: str, reason: str) -> None:
    """Write the marker of a dataset that no source provided (its name and the reason, no arrays)."""
    write_npz(path, name=np.array(name), unavailable=np.array(reason))


def unavailable_reason(path: str | os.PathLike[str]) -> str | None:
    """Why the graph (or splits) file at ``path`` is an unavailable marker; ``None`` when it holds data.

    The search calls this first and writes ``status=unavailable`` records with the reason instead of training.
    """
    with np.load(path, allow_pickle=False) as archive:
        return str(archive["unavailable"]) if "unavailable" in archive.files else None

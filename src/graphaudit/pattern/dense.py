"""A compact store of dense node-classification graphs (PATTERN, CLUSTER): packed upper-triangular adjacency,
features, labels.

PATTERN graphs are dense (density about 0.43), so one bit per node pair (about 880 bytes for a 119-node
graph) is smaller than any edge list. Ground truth the predictors must not read (pattern id and size, host
block sizes) lives in a separate file, :class:`Truth`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz

__all__ = ["DenseGraphs", "Truth", "pack_graphs"]


def _pack(adj: np.ndarray) -> np.ndarray:
    return np.packbits(adj[np.triu_indices(len(adj), 1)].astype(bool))


@dataclass(frozen=True)
class DenseGraphs:
    """Graphs ``0..G-1``: sizes, node features ``x`` and labels ``y`` (concatenated), packed adjacency bits."""

    node_ptr: np.ndarray  # int64 (G+1,)
    bit_ptr: np.ndarray  # int64 (G+1,), byte offsets into ``bits``
    bits: np.ndarray  # uint8
    x: np.ndarray  # uint8 per node
    y: np.ndarray  # uint8 per node

    @property
    def num_graphs(self) -> int:
        return len(self.node_ptr) - 1

    def size(self, g: int) -> int:
        return int(self.node_ptr[g + 1] - self.node_ptr[g])

    def features(self, g: int) -> np.ndarray:
        return self.x[self.node_ptr[g] : self.node_ptr[g + 1]]

    def labels(self, g: int) -> np.ndarray:
        return self.y[self.node_ptr[g] : self.node_ptr[g + 1]]

    def adjacency(self, g: int) -> np.ndarray:
        """Dense symmetric 0/1 adjacency (uint8) of graph ``g``."""
        n = self.size(g)
        pairs = n * (n - 1) // 2
        flat = np.unpackbits(self.bits[self.bit_ptr[g] : self.bit_ptr[g + 1]], count=pairs)
        adj = np.zeros((n, n), dtype=np.uint8)
        rows, cols = np.triu_indices(n, 1)
        adj[rows, cols] = flat
        adj[cols, rows] = flat
        return adj

    def save(self, path: str | os.PathLike[str]) -> None:
        write_npz(path, node_ptr=self.node_ptr, bit_ptr=self.bit_ptr, bits=self.bits, x=self.x, y=self.y)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DenseGraphs:
        data = read_npz(path, ("node_ptr", "bit_ptr", "bits", "x", "y"))
        return cls(*data.values())


def pack_graphs(adjs: Sequence[np.ndarray], xs: Sequence[np.ndarray], ys: Sequence[np.ndarray]) -> DenseGraphs:
    """Store dense graphs (symmetric 0/1 adjacency, zero diagonal) with their features and labels."""
    packed = [_pack(a) for a in adjs]
    sizes = np.array([len(a) for a in adjs], dtype=np.int64)
    return DenseGraphs(
        node_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        bit_ptr=np.concatenate([[0], np.cumsum([len(p) for p in packed])]).astype(np.int64),
        bits=np.concatenate(packed) if packed else np.zeros(0, np.uint8),
        x=np.concatenate(xs).astype(np.uint8) if xs else np.zeros(0, np.uint8),
        y=np.concatenate(ys).astype(np.uint8) if ys else np.zeros(0, np.uint8),
    )


@dataclass(frozen=True)
class Truth:
    """Generator bookkeeping per graph: planted pattern id (library index, or -1 for a fresh pattern), pattern
    size, and the host block sizes (G x blocks)."""

    pattern_id: np.ndarray
    pattern_size: np.ndarray
    host_sizes: np.ndarray

    def save(self, path: str | os.PathLike[str]) -> None:
        write_npz(path, pattern_id=self.pattern_id, pattern_size=self.pattern_size, host_sizes=self.host_sizes)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Truth:
        return cls(*read_npz(path, ("pattern_id", "pattern_size", "host_sizes")).values())

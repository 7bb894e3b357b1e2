"""UB-GOLD's structural encodings ``x_s`` (``dataloader.data_loader.init_structural_encoding`` at c940457).

``x_s`` is ``[RWSE | DGSE]``: the diagonals of the first ``rw_dim`` powers of the random-walk matrix
``M = A D^-1`` (the return probabilities after 1 ... ``rw_dim`` steps) and a one-hot of the node degree
clipped to ``dg_dim - 1``. UB-GOLD computes both for every graph, in float32 with SciPy sparse products
(``M^k = M^(k-1) M``); only CVTGAD and GOOD-D read them (spec 4.x: the "separate structural encoder").
The same arithmetic in the same order is used here, so both backends see identical inputs.

The paper's post hoc ablation (F.12, amendment A34) replaces ``x_s`` by a constant input: ``structural_input``
``constant`` gives every node a row of ones of the same width (not zeros: an all-zero view makes the cosine
similarities of the contrastive losses 0 / 0, the undefined losses A34 replaced).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from graphaudit.nn.trainer import RunGraphs

__all__ = ["STRUCTURAL_INPUTS", "structural_encoding", "with_structural_encodings"]

STRUCTURAL_INPUTS = ("encodings", "constant")
"""What ``x_s`` holds: UB-GOLD's encodings, or the ablation's constant input (ones)."""


def _out_degree(data: Data) -> np.ndarray:
    """float32 out-degrees over ``edge_index[0]`` (PyG ``degree``), isolated nodes 0."""
    counts = np.bincount(data.edge_index[0].numpy(), minlength=data.num_nodes)
    return counts.astype(np.float32)


def _random_walk_diagonals(data: Data, rw_dim: int) -> np.ndarray:
    """(num_nodes, rw_dim) float32: diag(M^k) for k = 1 ... rw_dim, with M = A D^-1 (columns sum to 1)."""
    n = data.num_nodes
    rows, cols = data.edge_index.numpy()
    adjacency = sp.coo_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, n))
    with np.errstate(divide="ignore"):  # an isolated node's inverse degree is inf, as in UB-GOLD; no entry uses it
        inverse = np.float32(1.0) / _out_degree(data)  # torch's ``** -1.0`` is this correctly rounded reciprocal
    walk = adjacency * sp.diags(inverse)
    power = walk
    diagonals = [walk.diagonal()]
    for _ in range(rw_dim - 1):
        power = power * walk
        diagonals.append(power.diagonal())
    return np.stack(diagonals, axis=-1).astype(np.float32)


def _degree_one_hot(data: Data, dg_dim: int) -> np.ndarray:
    """(num_nodes, dg_dim) float32 one-hot of the out-degree, degrees above ``dg_dim - 1`` clipped to it."""
    degree = np.clip(_out_degree(data), 0, dg_dim - 1).astype(np.int64)
    out = np.zeros((data.num_nodes, dg_dim), dtype=np.float32)
    out[np.arange(data.num_nodes), degree] = 1.0
    return out


def structural_encoding(data: Data, rw_dim: int = 16, dg_dim: int = 16) -> torch.Tensor:
    """``x_s`` of one graph, shape ``(num_nodes, rw_dim + dg_dim)``, float32 (UB-GOLD's defaults 16 / 16)."""
    if rw_dim < 1 or dg_dim < 1:
        raise ValueError(f"rw_dim and dg_dim must be at least 1, got {rw_dim} and {dg_dim}")
    rwse = _random_walk_diagonals(data, rw_dim)
    return torch.from_numpy(np.concatenate([rwse, _degree_one_hot(data, dg_dim)], axis=1))


def _encoded(part: Sequence[Data], rw_dim: int, dg_dim: int, structural_input: str) -> list[Data]:
    out = []
    for data in part:
        data = copy.copy(data)  # the caller's graphs stay as they are
        if structural_input == "constant":
            data.x_s = torch.ones((data.num_nodes, rw_dim + dg_dim), dtype=torch.float32)
        else:
            data.x_s = structural_encoding(data, rw_dim, dg_dim)
        out.append(data)
    return out


def with_structural_encodings(
    graphs: RunGraphs, rw_dim: int, dg_dim: int, structural_input: str = "encodings"
) -> RunGraphs:
    """The run's graphs with ``x_s`` on every graph of every part (UB-GOLD encodes train and test alike), scored
    groups included; ``structural_input`` ``constant``: ones instead (the ablation)."""
    if structural_input not in STRUCTURAL_INPUTS:
        raise ValueError(f"structural_input must be one of {STRUCTURAL_INPUTS}, got {structural_input!r}")
    return graphs.mapped(lambda part: _encoded(part, rw_dim, dg_dim, structural_input))

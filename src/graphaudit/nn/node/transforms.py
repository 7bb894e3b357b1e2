"""Structural transforms the methods' ``prepare`` steps share (spec 3.4).

The shared graph is coalesced, symmetric and has exactly one self-loop per node, so the symmetric GCN
normalisation ``D^-1/2 (A + I) D^-1/2`` is the normalisation of the graph *as given*: no operator may add
another loop. :func:`gcn_weights` therefore calls PyG's ``gcn_norm`` with ``add_self_loops=False`` and keeps
the edge order, so one weight vector aligned with ``data.edge_index`` serves every GCN-style layer
(``normalize=False`` plus ``edge_weight``). FAGCN and LINKX work on the graph without its loops
(:func:`without_self_loops`).
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data
from torch_geometric.nn import SimpleConv
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import remove_self_loops

__all__ = [
    "adjacency",
    "gcn_weights",
    "power_patterns",
    "propagate",
    "shallow_copy",
    "with_gcn_weights",
    "without_self_loops",
]

_SUM = SimpleConv(aggr="sum")


def shallow_copy(data: Data) -> Data:
    """A copy of ``data`` sharing its tensors, so ``prepare`` can add attributes without changing its input."""
    return copy.copy(data)


def gcn_weights(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """Edge weights ``1 / sqrt(d_i d_j)`` of the graph as given (its self-loops count in the degree), aligned
    with ``edge_index``."""
    return gcn_norm(edge_index, None, num_nodes=num_nodes, add_self_loops=False)[1]  # edges kept, in order


def with_gcn_weights(data: Data) -> Data:
    """A shallow copy of ``data`` with ``gcn_weight``: the symmetric normalisation of its edges."""
    out = shallow_copy(data)
    out.gcn_weight = gcn_weights(data.edge_index, data.num_nodes)
    return out


def propagate(x: torch.Tensor, edge_index: torch.Tensor, edge_weight: torch.Tensor) -> torch.Tensor:
    """One propagation step ``out_i = sum_j w_ji x_j`` over the edges ``j -> i`` (PyG ``SimpleConv``)."""
    return _SUM(x, edge_index, edge_weight)


def without_self_loops(edge_index: torch.Tensor) -> torch.Tensor:
    """The edges of the graph without its self-loops (FAGCN, LINKX)."""
    return remove_self_loops(edge_index)[0]


def adjacency(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """The unweighted adjacency as a coalesced sparse COO ``[n, n]`` float tensor; row ``i`` holds node
    ``i``'s out-neighbours (the graph is symmetric, so in- and out-neighbours agree)."""
    values = torch.ones(edge_index.size(1), dtype=torch.float32, device=edge_index.device)
    return torch.sparse_coo_tensor(edge_index, values, (num_nodes, num_nodes), check_invariants=True).coalesce()


def power_patterns(edge_index: torch.Tensor, num_nodes: int, count: int) -> list[torch.Tensor]:
    """The edge sets of ``A, A^2, A^4, ...`` (``count`` of them), each the nonzero pattern of the previous one
    squared and sorted by (row, column): NodeFormer's relational-bias adjacencies (``adj_mul(adj, adj)``
    repeated in the reference)."""
    rows, cols = edge_index.cpu().numpy()
    matrix = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(num_nodes, num_nodes))
    patterns = [edge_index]
    for _ in range(count - 1):
        matrix = (matrix @ matrix).tocsr()
        matrix.sort_indices()
        coo = matrix.tocoo()
        patterns.append(torch.from_numpy(np.stack([coo.row, coo.col]).astype(np.int64)).to(edge_index.device))
    return patterns

"""Relative random walk probabilities (RRWP), the positional encoding of GRIT and CKGConv, as their released code
computes it: GRIT's ``grit/transform/rrwp.py::add_full_rrwp`` (LiamMa/GRIT at 6c988ea) and CKGConv's
``ckgconv/transform/rrwp.py::add_full_rrwp_new`` (networkslab/CKGConv at 41ed056), ``variant`` "grit" / "ckgconv".

With ``P = D^-1 A`` (rows sum to 1; an isolated node's row is 0) the pair channels are ``[I, P, P^2, ...]``:

* grit: ``I`` when ``add_identity``, then ``P``, then the next powers up to ``steps`` channels in all. The loop
  after ``P`` runs only when ``steps > 2``, so ``steps=1`` with the identity gives two channels ``[I, P]`` and
  ``steps=2`` without it one, ``[P]``. The node channels are the diagonals of the same stack. The released
  PATTERN configuration (``ksteps: 21``, identity): ``I, P, ..., P^20``, 21 channels each.
* ckgconv: ``I`` always (``add_identity`` is not read), ``P``, then ``P^2 ... P^steps`` when ``steps > 2``; the
  node channels drop the identity. ``ksteps: 21``: pairs ``I, P, ..., P^21`` (22 channels), nodes ``P ... P^21``
  (21 channels).

Outputs, as both attach them:

* ``abs_pe`` (n, k_abs): diagonals, each node's return probabilities;
* ``rel_index`` (2, m) and ``rel_val`` (m, k): every pair ``(i, j)`` with a nonzero channel, in row-major order of
  ``(i, j)``, stored as the edge ``j -> i`` (``rel_index = [j, i]``: their convolutions are right products with
  a row-normalised matrix, so node ``i`` receives ``P^k[i, j]`` from ``j``);
* ``degree`` (n,): the row sums of ``A`` (both keep ``log(deg + 1)`` and ``deg`` beside them).

The products are float32 dense matrix products in their order (``out = out @ P``), one graph at a time or a
padded batch of graphs at once (:func:`rrwp_batch`: padding rows and columns are zero, so every graph's block is
the same product; the two agree to float32 rounding, checked in the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["VARIANTS", "Rrwp", "channel_counts", "random_walk_matrix", "rrwp", "rrwp_batch"]

VARIANTS = ("grit", "ckgconv")


@dataclass(frozen=True)
class Rrwp:
    """One graph's encoding: ``abs_pe`` (n, k_abs), ``rel_index`` (2, m), ``rel_val`` (m, k), ``degree`` (n,)."""

    abs_pe: torch.Tensor
    rel_index: torch.Tensor
    rel_val: torch.Tensor
    degree: torch.Tensor


@dataclass(frozen=True)
class _Plan:
    identity: bool  # the stack starts with I
    channels: int  # pair channels in all
    node_drops_identity: bool


def _plan(steps: int, add_identity: bool, variant: str) -> _Plan:
    if variant not in VARIANTS:
        raise ValueError(f"unknown RRWP variant {variant!r}; variants are {', '.join(VARIANTS)}")
    if steps < 1:
        raise ValueError(f"RRWP needs at least one step, got {steps}")
    identity = add_identity or variant == "ckgconv"
    first = 2 if identity else 1  # [I, P] or [P]
    last = steps if variant == "grit" else steps + 1  # the loop's exclusive end (a channel count)
    return _Plan(identity, last if steps > 2 else first, variant == "ckgconv")


def channel_counts(steps: int, add_identity: bool = True, variant: str = "grit") -> tuple[int, int]:
    """(pair channels, node channels) that ``variant``'s code produces for ``steps`` (see the module docstring)."""
    plan = _plan(steps, add_identity, variant)
    return plan.channels, plan.channels - plan.node_drops_identity


def random_walk_matrix(
    edge_index: torch.Tensor, num_nodes: int, edge_weight: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Dense float32 ``D^-1 A`` of one graph (duplicate edges add up, as in a sparse sum) and the row sums of
    ``A``. Rows of isolated nodes are zero."""
    return _row_normalised(_adjacency(edge_index, num_nodes, edge_weight))


def _adjacency(edge_index: torch.Tensor, num_nodes: int, edge_weight: torch.Tensor | None = None) -> torch.Tensor:
    weight = torch.ones(edge_index.size(1), dtype=torch.float32) if edge_weight is None else edge_weight.float()
    adjacency = torch.zeros(num_nodes, num_nodes, dtype=torch.float32)
    return adjacency.index_put_((edge_index[0], edge_index[1]), weight, accumulate=True)


def _row_normalised(adjacency: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    degree = adjacency.sum(dim=-1)
    inverse = 1.0 / degree
    inverse[torch.isinf(inverse)] = 0.0
    return adjacency * inverse.unsqueeze(-1), degree


def _powers(walk: torch.Tensor, plan: _Plan) -> torch.Tensor:
    """(k, ..., n, n): the channel stack of ``walk`` (a matrix or a batch of them), channel first, each power written
    in place by its product (``out = out @ walk``, the released order), so no stacking copy is made."""
    stack = walk.new_empty((plan.channels, *walk.shape))
    first = int(plan.identity)  # the channel of P
    if plan.identity:
        stack[0].zero_().diagonal(dim1=-2, dim2=-1).fill_(1.0)
    stack[first].copy_(walk)
    for channel in range(first + 1, plan.channels):
        torch.matmul(stack[channel - 1], walk, out=stack[channel])
    return stack


def _encoded(stack: torch.Tensor, degree: torch.Tensor, plan: _Plan) -> Rrwp:
    """One graph's :class:`Rrwp` from its (k, n, n) channel stack on the CPU. A pair is kept when any channel is
    nonzero (the sum of absolute values over the channels, as torch_sparse's ``from_dense`` of the stack); when every
    pair is kept (a connected graph whose diameter is within the steps) the pairs are the stack's transpose, no
    gather."""
    channels, n = stack.size(0), stack.size(-1)
    pairs = stack.reshape(channels, n * n).t()  # (n * n, k), pair (i, j) at row i * n + j: row-major
    kept = stack.abs().sum(dim=0).ne(0)
    if bool(kept.all()):
        rows, cols = torch.arange(n).repeat_interleave(n), torch.arange(n).repeat(n)
        values = torch.from_numpy(np.ascontiguousarray(pairs.numpy()))  # numpy's transposing copy: 2x torch's
    else:
        rows, cols = kept.nonzero(as_tuple=True)
        values = pairs[rows * n + cols]
    return Rrwp(
        abs_pe=stack.diagonal(dim1=-2, dim2=-1).t()[:, int(plan.node_drops_identity) :].contiguous(),
        rel_index=torch.stack([cols, rows]),
        rel_val=values,
        degree=degree,
    )


@torch.no_grad()
def rrwp(
    edge_index: torch.Tensor,
    num_nodes: int,
    steps: int = 21,
    add_identity: bool = True,
    variant: str = "grit",
    edge_weight: torch.Tensor | None = None,
) -> Rrwp:
    """The RRWP encoding of one graph (``edge_index`` as PyG's, both directions of an undirected edge)."""
    plan = _plan(steps, add_identity, variant)
    walk, degree = random_walk_matrix(edge_index, num_nodes, edge_weight)
    return _encoded(_powers(walk, plan), degree, plan)


@torch.no_grad()
def rrwp_batch(
    graphs: Sequence[tuple[torch.Tensor, int]],
    steps: int = 21,
    add_identity: bool = True,
    variant: str = "grit",
    device: str = "cpu",
) -> list[Rrwp]:
    """:func:`rrwp` of many graphs ``(edge_index, num_nodes)`` with one padded batched product per power
    (on ``device``: a GPU computes a graph set's encodings in a few batched products); results on the CPU."""
    plan = _plan(steps, add_identity, variant)
    if not graphs:
        return []
    size = max(n for _, n in graphs)
    adjacency = torch.zeros(len(graphs), size, size, dtype=torch.float32)
    for b, (edge_index, n) in enumerate(graphs):
        adjacency[b, :n, :n] = _adjacency(edge_index, n)
    walk, degree = _row_normalised(adjacency.to(device))
    stack = _powers(walk, plan).cpu()
    degree = degree.cpu()
    return [_encoded(stack[:, b, :n, :n], degree[b, :n], plan) for b, (_, n) in enumerate(graphs)]

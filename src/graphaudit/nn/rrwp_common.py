"""What GRIT (:mod:`graphaudit.nn.grit`) and CKGConv (:mod:`graphaudit.nn.ckgconv`) share, as their released code
builds it on GraphGPS / GraphGym: how a graph carries its RRWP encoding, the fully connected pair set that both
attend over, the node head and PATTERN's weighted cross-entropy.

Sources (re-implemented, not copied):

* GRIT: LiamMa/GRIT at 6c988ea (``grit/encoder/rrwp_encoder.py``, ``grit/head/inductive_node.py``,
  ``grit/loss/weighted_cross_entropy.py``); CKGConv: networkslab/CKGConv at 41ed056 (``ckgconv/encoder/
  rrwp_stem_encoder.py``, same head and loss files); both take the head, the loss, ``LinearNode`` and
  ``DummyEdge`` from rampasek/GraphGPS at 2801570 (``graphgps/loss/weighted_cross_entropy.py``,
  ``graphgps/head/inductive_node.py``, ``graphgps/encoder/{linear_node,dummy_edge}_encoder.py``);
* the head's layers are PyG GraphGym's ``MLP`` (``torch_geometric/graphgym/models/layer.py``, identical at PyG
  2.2.0, GRIT's pinned version, and 2.5.3, CKGConv's).

**Batch attributes.** :func:`attach_rrwp` stores an :class:`~graphaudit.nn.rrwp.Rrwp` under the names that both
released transforms use: ``rrwp`` (nodes, k_abs), ``rrwp_index`` (2, m) and ``rrwp_val`` (m, k) (pairs), ``deg``
(nodes; GRIT reads ``log(deg + 1)``, CKGConv ``sqrt(deg)``). PyG's ``Data.__inc__`` / ``__cat_dim__`` treat a
key that contains ``index`` as an edge index, so batching offsets ``rrwp_index`` by each graph's node offset and
concatenates it along its last dimension: a :class:`~torch_geometric.data.Batch` of such graphs carries every
graph's pairs with global node ids, with no code of ours.

**Pairs.** Both models attend over every ordered pair ``(source, target)`` of nodes of the same graph, self-pairs
included (``full_attn: True``). The released encoders build that set by coalescing the graph's edges, its self
loops, the RRWP pairs and a zero padding to the full graph (``torch_sparse.coalesce``: summed duplicates, sorted
row-major by ``(source, target)``); :func:`full_pairs` builds the same set in the same order directly and returns
the summed RRWP values and, per pair, how many times it is an edge (the learned ``DummyEdge`` vector is added that
many times, as the coalesced sum does).

**Head.** GraphGPS's ``inductive_node`` head is GraphGym's ``MLP(new_layer_config(64, dim_out, 3, ...))``. That
``MLP`` gives its inner layers a fresh ``LayerConfig`` whose defaults win over the run's config: no BatchNorm
(``gnn.batchnorm: True`` is not read), ReLU (CKGConv's ``gnn.act: gelu`` is not read), no dropout and an L2
normalisation of each inner layer's output (``has_l2norm=True``). :class:`NodeHead` is that head.

**Output.** GraphGym's ``create_model`` turns a two-class classification task into one logit
(``dim_out == 2 -> 1``), so both models give PATTERN one logit per node, its sigmoid the pattern-class
probability; :func:`weighted_cross_entropy` takes that logit (or ``C > 1`` logits) as GraphGPS's loss does.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.data import Data

from graphaudit.nn.rrwp import Rrwp

__all__ = [
    "FullPairs",
    "NodeHead",
    "attach_rrwp",
    "class_weights",
    "full_pairs",
    "graph_sizes",
    "weighted_cross_entropy",
]


def attach_rrwp(data: Data, encoding: Rrwp) -> Data:
    """A shallow copy of ``data`` carrying ``encoding`` as ``rrwp``, ``rrwp_index``, ``rrwp_val`` and ``deg``."""
    out = copy.copy(data)
    out.rrwp = encoding.abs_pe
    out.rrwp_index = encoding.rel_index
    out.rrwp_val = encoding.rel_val
    out.deg = encoding.degree
    return out


@dataclass(frozen=True)
class FullPairs:
    """Every ordered node pair of every graph: ``index`` (2, P) as ``[source, target]``, ``rrwp`` (P, k) the RRWP
    values (zero where the graph's ``rrwp_index`` has no entry), ``edges`` (P,) how often the pair is an edge,
    ``target_size`` (P,) the node count of the pair's graph."""

    index: Tensor
    rrwp: Tensor
    edges: Tensor
    target_size: Tensor


def graph_sizes(batch: Data) -> tuple[Tensor, Tensor]:
    """(node offset of each graph, node count of each graph); a plain ``Data`` is one graph."""
    ptr = batch.ptr if getattr(batch, "ptr", None) is not None else torch.tensor([0, batch.num_nodes])
    ptr = ptr.to(batch.rrwp_index.device)
    return ptr[:-1], ptr[1:] - ptr[:-1]


def full_pairs(batch: Data) -> FullPairs:
    """The fully connected pair set of ``batch`` in the released encoders' coalesced order (see the module
    docstring), with the RRWP values and edge multiplicities placed on it."""
    offsets, sizes = graph_sizes(batch)
    device = offsets.device
    per_graph = sizes * sizes
    start = torch.cumsum(per_graph, 0) - per_graph
    graph = torch.repeat_interleave(torch.arange(sizes.numel(), device=device), per_graph)
    local = torch.arange(int(per_graph.sum()), device=device) - start[graph]
    n = sizes[graph]
    index = torch.stack([offsets[graph] + local // n, offsets[graph] + local % n])

    node_graph = torch.repeat_interleave(torch.arange(sizes.numel(), device=device), sizes)

    def position(pairs: Tensor) -> Tensor:
        g = node_graph[pairs[0]]
        return start[g] + (pairs[0] - offsets[g]) * sizes[g] + (pairs[1] - offsets[g])

    values = batch.rrwp_val
    rrwp = values.new_zeros(index.size(1), values.size(1)).index_put_((position(batch.rrwp_index),), values, True)
    edges = values.new_zeros(index.size(1)).index_add_(
        0, position(batch.edge_index), values.new_ones(batch.edge_index.size(1))
    )
    return FullPairs(index=index, rrwp=rrwp, edges=edges, target_size=n.to(values.dtype))


class NodeHead(nn.Module):
    """GraphGPS's ``inductive_node`` head as GraphGym's ``MLP`` builds it: ``layers - 1`` blocks of
    Linear (with bias), ReLU and L2 normalisation, then a Linear to ``out_dim`` (see the module docstring)."""

    def __init__(self, hidden: int, out_dim: int, layers: int) -> None:
        super().__init__()
        self.inner = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers - 1))
        self.out = nn.Linear(hidden, out_dim)

    def forward(self, x: Tensor) -> Tensor:
        for linear in self.inner:
            x = F.normalize(F.relu(linear(x)), p=2.0, dim=1)
        return self.out(x)


def class_weights(target: Tensor, num_classes: int) -> Tensor:
    """GraphGPS's class weights from the labels of one batch: ``(V - n_c) / V`` for a class with ``n_c`` of the
    batch's ``V`` labels, 0 for a class absent from the batch."""
    counts = torch.bincount(target, minlength=num_classes)
    return (target.numel() - counts).float() / target.numel() * (counts > 0).float()


def weighted_cross_entropy(logits: Tensor, target: Tensor) -> Tensor:
    """PATTERN's loss as GraphGPS computes it (``weighted_cross_entropy`` after GraphGym's ``compute_loss``
    squeezes a trailing dimension of 1), class weights from this batch's labels (:func:`class_weights`):

    * one logit per node (PATTERN): binary cross-entropy with logits, each node weighted by its class's weight
      and the weighted terms **averaged over all nodes** (``F.binary_cross_entropy_with_logits(..., weight=...)``
      divides by the node count, not by the sum of the weights);
    * ``C > 1`` logits: ``F.nll_loss(log_softmax, weight=...)``, which divides by the sum of the weights.
    """
    logits = logits.squeeze(-1) if logits.ndim > 1 and logits.size(-1) == 1 else logits
    if logits.ndim > 1:
        weight = class_weights(target, logits.size(1)).to(logits.device)
        return F.nll_loss(F.log_softmax(logits, dim=-1), target, weight=weight)
    weight = class_weights(target, 2).to(logits.device)
    return F.binary_cross_entropy_with_logits(logits, target.float(), weight=weight[target])

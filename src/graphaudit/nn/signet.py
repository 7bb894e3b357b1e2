"""SIGNET (Liu et al. 2023, "Towards Self-Interpretable Graph-Level Anomaly Detection") as UB-GOLD runs it
(``GAOOD/nn/signet.py`` and ``detector/SIGNET.py`` at c940457).

Each graph is seen as itself and as its dual hypergraph; an explainer gives every node an importance, the
graph view weights its input features by it and the hypergraph view its edge features by the product of
the endpoints' importances; each view is embedded, projected, and the two are contrasted with InfoNCE.

The pieces, as UB-GOLD's code has them:

- **Dual hypergraph** (:func:`dual_hypergraph`, UB-GOLD's ``DHT``): every *directed* edge entry of the batch
  (both directions of an undirected edge) is a hypergraph node with features (x_u + x_v) / 2; it lies in
  the hyperedges of its two endpoints and in a hyperedge of its own (the self-loop); incidences of original
  nodes met only once are dropped first.
- **Explainer** (``explainer`` gin, the default, or mlp): GIN layers of width ``explainer_hidden_dim``, ReLU
  between them (not after the last), ``explainer_readout`` over the layer states, a linear layer, and a
  softmax over the nodes of each graph (PyG ``softmax``): importances sum to 1 per graph.
- **Weights**: per graph, importances are divided by their maximum plus 1e-10 (detached for nodes, not for
  edges, whose gradient also reaches each graph's first maximal edge: torch_scatter's ``scatter_max``), then
  mapped to 1 + (2w - 1) / 40, so they lie in [1 - 1/40, 1 + 1/40]; the graph view multiplies its input features by
  them, the hypergraph view its edge features by the edge importances (the product of the endpoints',
  normalised the same way per graph).
- **Encoders**: ``encoder_layers`` GIN layers (ReLU after each) on the graph; PyG ``HypergraphConv`` layers
  (ReLU after each) on the dual hypergraph; ``pooling`` (add) and ``readout`` (concat) of the layer states;
  a projection head (Linear, ReLU, Linear) per view. Every ``torch.nn.Linear`` is Xavier-uniform with zero
  bias (``HypergraphConv``'s own linear layer keeps PyG's initialisation), in UB-GOLD's module order.
- **Loss** (:func:`loss_nce`): per graph, the mean over the two directions of
  -log(e^{s_ii} / (sum_j e^{s_ij} - e^{s_ii} + 1e-10) + 1e-10), cosine similarities over temperature 0.2,
  the other graphs of the batch as negatives. Training minimises its batch mean.
- **Score**: the same loss over the *scoring batch*, negatives included, so a graph's score depends on the
  other graphs it is scored with (UB-GOLD scores the whole test set as one batch, ``batch_size_test`` 9999).

A graph without edges has an empty hypergraph view that projects to the zero vector, whose cosine is 0 / 0:
the whole batch's losses are NaN, as in UB-GOLD (the trainer counts non-finite scores). Operations run in
UB-GOLD's order, in-place divisions included, so the two backends agree to the bit. One departure, where
UB-GOLD crashes: pooling is sized by the batch's graph count, so a batch whose last graph
has no edges pools to an empty row instead of a missing one (UB-GOLD then fails on mismatched shapes);
a batch without any edge is refused with a message.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, HypergraphConv, global_add_pool, global_max_pool
from torch_geometric.utils import softmax

from graphaudit.nn.scatter_max import scatter_max
from graphaudit.nn.trainer import Detector

__all__ = ["SIGNET", "SIGNETConfig", "dual_hypergraph", "loss_nce"]

_POOLS = {"add": global_add_pool, "max": global_max_pool}
_READOUTS = ("concat", "add", "last")
_EXPLAINERS = ("gin", "mlp")
_SCALAR, _EPS = 20, 1e-10


@dataclass(frozen=True)
class SIGNETConfig:
    """SIGNET options under UB-GOLD's names and defaults (``mymain.py``: hidden_dim 16, encoder_layers 5, pooling
    add, readout concat, explainer gin with 5 layers of width 8 and add readout). ``explainer`` is UB-GOLD's
    ``explainer_model``; ``temperature`` is ``loss_nce``'s fixed 0.2."""

    hidden_dim: int = 16
    encoder_layers: int = 5
    pooling: str = "add"
    readout: str = "concat"
    explainer: str = "gin"
    explainer_layers: int = 5
    explainer_hidden_dim: int = 8
    explainer_readout: str = "add"
    temperature: float = 0.2

    def __post_init__(self) -> None:
        if self.pooling not in _POOLS:
            raise ValueError(f"pooling must be one of {sorted(_POOLS)}, got {self.pooling!r}")
        for name in ("readout", "explainer_readout"):
            if getattr(self, name) not in _READOUTS:
                raise ValueError(f"{name} must be one of {_READOUTS}, got {getattr(self, name)!r}")
        if self.explainer not in _EXPLAINERS:
            raise ValueError(f"explainer must be one of {_EXPLAINERS}, got {self.explainer!r}")
        for name in ("hidden_dim", "encoder_layers", "explainer_layers", "explainer_hidden_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.temperature <= 0:
            raise ValueError(f"temperature must be positive, got {self.temperature}")


def dual_hypergraph(edge_index: torch.Tensor, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(incidence ``(2, M)``: hypergraph node = directed edge entry, hyperedge id; the graph of each
    hypergraph node). Hyperedges: the original nodes, then one self-loop per hypergraph node."""
    num_edge = edge_index.size(1)
    if num_edge == 0:
        raise ValueError("SIGNET needs at least one edge in a batch (UB-GOLD's dual hypergraph fails on none)")
    device = edge_index.device
    members = torch.arange(0, num_edge, 1, device=device).repeat_interleave(2).view(1, -1)
    incidence = torch.cat([members, edge_index.T.reshape(1, -1)], dim=0).long()
    edge_batch = torch.index_select(batch, 0, incidence[1, :].reshape(-1, 2)[:, 0])
    counts = incidence[1].bincount()
    kept = counts[incidence[1]] != 1
    top = incidence[1].max()
    loops = torch.cat(
        [
            torch.arange(0, num_edge, 1, device=device).view(1, -1),
            torch.arange(top + 1, top + num_edge + 1, 1, device=device).view(1, -1),
        ],
        dim=0,
    )
    return torch.cat([incidence[:, kept], loops], dim=1), edge_batch


def loss_nce(x1: torch.Tensor, x2: torch.Tensor, temperature: float = 0.2) -> torch.Tensor:
    """Per-row symmetric InfoNCE of two views (UB-GOLD's ``loss_nce``), the other rows as negatives."""
    rows = x1.size(0)
    norms_1, norms_2 = x1.norm(dim=1), x2.norm(dim=1)
    similarity = torch.einsum("ik,jk->ij", x1, x2) / torch.einsum("i,j->ij", norms_1, norms_2)
    similarity = torch.exp(similarity / temperature)
    positive = similarity[range(rows), range(rows)]
    forward = positive / (similarity.sum(dim=0) - positive + 1e-10)
    backward = positive / (similarity.sum(dim=1) - positive + 1e-10)
    forward, backward = -torch.log(forward + 1e-10), -torch.log(backward + 1e-10)
    return (forward + backward) / 2.0


def _weights(importance: torch.Tensor, groups: torch.Tensor, detach: bool) -> torch.Tensor:
    """Divide by the per-group maximum (in place, as UB-GOLD), then map to 1 + (2w - 1) / 40. UB-GOLD detaches
    the maximum of the node importances but not of the edge importances, whose gradient then also flows
    through the maximum to each group's first maximal edge (torch_scatter's rule)."""
    top, _ = scatter_max(torch.reshape(importance.detach() if detach else importance, (1, -1)), groups)
    importance /= top.reshape(-1, 1)[groups] + _EPS
    return (2 * importance - 1) / (2 * _SCALAR) + 1


def _readout(states: list[torch.Tensor], readout: str, pool, groups: torch.Tensor, size: int) -> torch.Tensor:
    if readout == "last":
        return pool(states[-1], groups, size)
    if readout == "concat":
        return torch.cat([pool(x, groups, size) for x in states], 1)
    total = 0
    for x in states:
        total += pool(x, groups, size)
    return total


def _relu_states(convs: nn.ModuleList, x: torch.Tensor, index: torch.Tensor) -> list[torch.Tensor]:
    """Every layer's states, ReLU after each convolution."""
    states = []
    for conv in convs:
        x = F.relu(conv(x, index))
        states.append(x)
    return states


def _gin_mlp(in_dim: int, dim: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(in_dim, dim), nn.ReLU(), nn.Linear(dim, dim))


class GraphView(nn.Module):
    """GIN layers on the importance-weighted node features."""

    def __init__(self, in_dim: int, dim: int, layers: int, pooling: str, readout: str) -> None:
        super().__init__()
        self.convs = nn.ModuleList(GINConv(_gin_mlp(dim if i else in_dim, dim)) for i in range(layers))
        self.pool, self.readout = _POOLS[pooling], readout

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor, importance: torch.Tensor, graphs: int
    ) -> torch.Tensor:
        x = x * _weights(importance, batch, detach=True)
        return _readout(_relu_states(self.convs, x, edge_index), self.readout, self.pool, batch, graphs)


class HypergraphView(nn.Module):
    """``HypergraphConv`` layers on the dual hypergraph's importance-weighted edge features."""

    def __init__(self, in_dim: int, dim: int, layers: int, pooling: str, readout: str) -> None:
        super().__init__()
        self.convs = nn.ModuleList(HypergraphConv(dim if i else in_dim, dim) for i in range(layers))
        self.pool, self.readout = _POOLS[pooling], readout

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor, importance: torch.Tensor, graphs: int
    ) -> torch.Tensor:
        edge_attr = (x[edge_index[0]] + x[edge_index[1]]) / 2
        incidence, edge_batch = dual_hypergraph(edge_index, batch)
        edge_attr = edge_attr * _weights(importance, edge_batch, detach=False)
        return _readout(_relu_states(self.convs, edge_attr, incidence), self.readout, self.pool, edge_batch, graphs)


class GINExplainer(nn.Module):
    """Node importances: GIN layers (ReLU between them), a readout of their states, a linear layer, a
    softmax over each graph's nodes."""

    def __init__(self, in_dim: int, dim: int, layers: int, readout: str) -> None:
        super().__init__()
        self.convs = nn.ModuleList(GINConv(_gin_mlp(dim if i else in_dim, dim)) for i in range(layers))
        self.mlp = nn.Linear(dim * layers if readout == "concat" else dim, 1)
        self.readout = readout

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        states = []
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i != len(self.convs) - 1:
                x = F.relu(x)
            states.append(x)
        if self.readout == "last":
            joined = states[-1]
        elif self.readout == "concat":
            joined = torch.cat(states, 1)
        else:
            joined = 0
            for state in states:
                joined += state
        return softmax(self.mlp(joined), batch)


class MLPExplainer(nn.Module):
    """Node importances from the node features alone: linear layers with ReLU, a linear layer, a softmax."""

    def __init__(self, in_dim: int, dim: int, layers: int) -> None:
        super().__init__()
        self.mlps = nn.ModuleList(nn.Sequential(nn.Linear(dim if i else in_dim, dim)) for i in range(layers))
        self.final_mlp = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        for mlp in self.mlps:
            x = F.relu(mlp(x))
        return softmax(self.final_mlp(x), batch)


def _projection(dim: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(dim, dim), nn.ReLU(inplace=True), nn.Linear(dim, dim))


class SIGNET(Detector):
    """The two views, the explainer and the cross-view InfoNCE of UB-GOLD's SIGNET."""

    def __init__(self, in_dim: int, config: SIGNETConfig | None = None) -> None:
        super().__init__()
        c = self.config = config or SIGNETConfig()
        width = c.hidden_dim * (c.encoder_layers if c.readout == "concat" else 1)
        self.explainer = (
            GINExplainer(in_dim, c.explainer_hidden_dim, c.explainer_layers, c.explainer_readout)
            if c.explainer == "gin"
            else MLPExplainer(in_dim, c.explainer_hidden_dim, c.explainer_layers)
        )
        self.encoder = GraphView(in_dim, c.hidden_dim, c.encoder_layers, c.pooling, c.readout)
        self.encoder_hyper = HypergraphView(in_dim, c.hidden_dim, c.encoder_layers, c.pooling, c.readout)
        self.proj_head = _projection(width)
        self.proj_head_hyper = _projection(width)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight.data)
                if module.bias is not None:
                    module.bias.data.fill_(0.0)

    def views(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """The projected graph-view and hypergraph-view embeddings, ``(num_graphs, width)`` each."""
        node_importance = self.explainer(batch.x, batch.edge_index, batch.batch)
        edge_importance = node_importance[batch.edge_index[0]] * node_importance[batch.edge_index[1]]
        y = self.encoder(batch.x, batch.edge_index, batch.batch, node_importance, batch.num_graphs)
        y_hyper = self.encoder_hyper(batch.x, batch.edge_index, batch.batch, edge_importance, batch.num_graphs)
        return self.proj_head(y), self.proj_head_hyper(y_hyper)

    def loss(self, batch: Batch) -> torch.Tensor:
        return loss_nce(*self.views(batch), self.config.temperature)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)

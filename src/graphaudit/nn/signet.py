"""SIGNET (Liu et al. 2023, "Towards Self-Interpretable Graph-Level Anomaly Detection"), re-implemented from the
paper with UB-GOLD's default options (spec §3.4).

Multi-view subgraph information bottleneck: each graph is seen as itself and as its dual hypergraph (DHT);
one explainer scores the importance of every node, and the bottleneck subgraph of each view (the node states
weighted by that importance) is embedded by the view's encoder. Training maximises the cross-view mutual
information of the two bottleneck embeddings with an InfoNCE bound; a graph whose two views disagree is
anomalous.

The pieces, with the documented assumptions (choices where the paper and the spec give no detail):

- **Dual hypergraph** (:func:`dual_hypergraph`): every undirected edge {u, v} (the batch holds both
  directions; they are merged, and a self-loop is one hypergraph node in one hyperedge) becomes a hypergraph
  node with features (x_u + x_v) / 2 (the datasets carry no edge attributes, spec §3.3; the mean keeps the
  input width and identifies an unordered label pair); every original node becomes the hyperedge joining
  its incident edges. An edgeless graph has an empty dual hypergraph.
- **Explainer** (``explainer`` gin): ``explainer_layers`` GIN layers of width ``explainer_hidden_dim``;
  ``explainer_readout`` combines the layer-wise *node* states (add: their sum, concat, last), and a linear
  layer and a sigmoid give the node probability p_i. A hypergraph node (edge {u, v}) gets p_u * p_v, as in
  the paper. Each view divides its probabilities by their (detached) maximum within the graph, so the most
  important node of every graph has weight 1 (the per-graph maximum is a ``scatter_reduce(..., "amax")``;
  it is taken in log space, so vanishing probabilities cannot give 0 / 0).
- **Encoders**: the graph view is ``encoder_layers`` GIN layers (two-layer MLPs, ReLU after each layer); the
  hypergraph view has the same number of hypergraph layers, each a two-stage mean-sum propagation in plain
  torch: hyperedge state = mean of its members' states, then node input = own state + sum of its hyperedges'
  states, fed to a two-layer MLP (a GIN-style version of HyperConv, whose hyperedge degree normalisation it
  keeps; the hyperedge attributes are not used, as the node features already carry both endpoints).
  Propagation runs on the unweighted states; each layer's states are multiplied by the importance weights
  before ``pooling`` (add) and the layer-wise pooled vectors are joined by ``readout`` (concat). Each view
  then has a projection head (Linear, ReLU, Linear). No normalisation layers and no dropout.
- **Empty views**: a graph without edges has no hypergraph nodes; its pooled hypergraph representation is
  the zero vector (an empty sum) and its embedding is the projection head applied to it.
- **Loss** (:func:`cross_view_infonce`): cosine similarities over ``temperature`` (0.2, not a UB-GOLD option);
  per graph, the mean of the two directions' -log(e^{s_ii} / sum_{j != i} e^{s_ij}), the positive pair left
  out of the denominator. A batch of one graph has no negatives; its loss is then the positive term alone.
  The paper's final objective is this contrastive bound only, so no sparsity or size term is added.
- **Score**: -s_ii, the positive (agreement) term of the graph's own cross-view loss. Unlike UB-GOLD, which
  scores the whole test set as one batch with the full InfoNCE loss, the score of a graph does not depend
  on the other graphs in its batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, global_add_pool, global_max_pool, global_mean_pool

from graphaudit.nn.trainer import Detector

__all__ = ["SIGNET", "DualHypergraph", "GINStates", "HypergraphStates", "SIGNETConfig", "cross_view_infonce",
           "dual_hypergraph"]

_POOLS = {"add": global_add_pool, "mean": global_mean_pool, "max": global_max_pool}
_READOUTS = ("concat", "add", "last")
_EXPLAINERS = ("gin",)


@dataclass(frozen=True)
class SIGNETConfig:
    """SIGNET options under UB-GOLD's names and defaults (``mymain.py``: hidden_dim 16, encoder_layers 5, pooling
    add, readout concat, explainer gin with 5 layers of width 8 and add readout). ``temperature`` of the
    InfoNCE loss is this implementation's (a documented assumption, not a spec value)."""

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


# ---- dual hypergraph transformation --------------------------------------------------------------------

@dataclass(frozen=True)
class DualHypergraph:
    """The dual hypergraph of a batch. Hypergraph node k is the undirected edge ``edges[k]`` = (u, v), u <= v,
    in increasing (u, v) order; the hyperedges are the original nodes (same indices). ``incidence`` is
    (2, M): row 0 a hypergraph node, row 1 a hyperedge containing it, sorted by node then hyperedge."""

    x: torch.Tensor
    edges: torch.Tensor
    incidence: torch.Tensor
    batch: torch.Tensor

    @property
    def num_nodes(self) -> int:
        return self.edges.shape[0]


def dual_hypergraph(x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> DualHypergraph:
    """Swap the roles of nodes and edges: each undirected edge becomes a node with the mean of its endpoints'
    features, each original node the hyperedge of its incident edges; ``batch`` maps hypergraph nodes to graphs."""
    num_nodes = x.shape[0]
    low = torch.minimum(edge_index[0], edge_index[1])
    high = torch.maximum(edge_index[0], edge_index[1])
    keys = torch.unique(low * num_nodes + high)  # sorted, so the order is fixed by the edge set alone
    edges = torch.stack([keys // num_nodes, keys % num_nodes], dim=1)
    node_ids = torch.arange(edges.shape[0], device=x.device)
    distinct = edges[:, 0] != edges[:, 1]
    members = torch.cat([node_ids, node_ids[distinct]])
    hyperedges = torch.cat([edges[:, 0], edges[distinct, 1]])
    order = torch.argsort(members * num_nodes + hyperedges)
    incidence = torch.stack([members[order], hyperedges[order]])
    features = (x[edges[:, 0]] + x[edges[:, 1]]) / 2
    return DualHypergraph(x=features, edges=edges, incidence=incidence, batch=batch[edges[:, 0]])


# ---- building blocks -----------------------------------------------------------------------------------

def _mlp(in_dim: int, hidden_dim: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, hidden_dim))


def _combine(states: list[torch.Tensor], readout: str) -> torch.Tensor:
    """Join layer-wise representations: concatenated, summed, or the last one."""
    if readout == "concat":
        return torch.cat(states, dim=1)
    if readout == "add":
        return torch.stack(states).sum(dim=0)
    return states[-1]


def _readout_dim(width: int, layers: int, readout: str) -> int:
    return width * layers if readout == "concat" else width


class GINStates(nn.Module):
    """``num_layers`` GIN layers with ReLU; returns every layer's node states."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layers: int) -> None:
        super().__init__()
        self.convs = nn.ModuleList(GINConv(_mlp(in_dim if i == 0 else hidden_dim, hidden_dim))
                                   for i in range(num_layers))

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> list[torch.Tensor]:
        states = []
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            states.append(x)
        return states


class HypergraphStates(nn.Module):
    """``num_layers`` hypergraph layers (module docstring: hyperedge mean, then GIN-style sum and MLP) with ReLU;
    returns every layer's hypergraph-node states."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layers: int) -> None:
        super().__init__()
        self.mlps = nn.ModuleList(_mlp(in_dim if i == 0 else hidden_dim, hidden_dim) for i in range(num_layers))

    def forward(self, hyper: DualHypergraph, num_hyperedges: int) -> list[torch.Tensor]:
        members, hyperedges = hyper.incidence
        size = torch.zeros(num_hyperedges, device=hyper.x.device).index_add_(
            0, hyperedges, torch.ones_like(hyperedges, dtype=torch.float)).clamp(min=1.0)
        x, states = hyper.x, []
        for mlp in self.mlps:
            mean = x.new_zeros(num_hyperedges, x.shape[1]).index_add_(0, hyperedges, x[members]) / size[:, None]
            gathered = torch.zeros_like(x).index_add_(0, members, mean[hyperedges])
            x = F.relu(mlp(x + gathered))
            states.append(x)
        return states


def _normalised_weight(log_p: torch.Tensor, batch: torch.Tensor, num_graphs: int) -> torch.Tensor:
    """p / max of p within the graph, from log p; the maximum is detached (a scale, not a learning signal)."""
    peak = log_p.new_zeros(num_graphs).scatter_reduce(0, batch, log_p.detach(), "amax", include_self=False)
    return torch.exp(log_p - peak[batch])


def cross_view_infonce(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    """Per-graph symmetric InfoNCE between two views, shape ``(num_graphs,)``.

    With s_ij = cos(z1_i, z2_j) / temperature: loss_i = (lse_{j != i} s_ij + lse_{j != i} s_ji) / 2 - s_ii.
    One graph alone has no negatives: its loss is -s_ii.
    """
    sim = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T / temperature  # a zero vector has cosine 0
    positive = sim.diagonal()
    if sim.shape[0] == 1:
        return -positive
    negatives = sim.masked_fill(torch.eye(sim.shape[0], dtype=torch.bool, device=sim.device), float("-inf"))
    return (torch.logsumexp(negatives, dim=1) + torch.logsumexp(negatives, dim=0)) / 2 - positive


# ---- the detector --------------------------------------------------------------------------------------

class SIGNET(Detector):
    """Self-interpretable GLAD: cross-view InfoNCE between a graph's and its dual hypergraph's bottleneck
    embeddings; the anomaly score is the graph's cross-view disagreement (module docstring)."""

    def __init__(self, in_dim: int, config: SIGNETConfig | None = None) -> None:
        super().__init__()
        self.config = config or SIGNETConfig()
        cfg = self.config
        self.explainer = GINStates(in_dim, cfg.explainer_hidden_dim, cfg.explainer_layers)
        self.explainer_head = nn.Linear(
            _readout_dim(cfg.explainer_hidden_dim, cfg.explainer_layers, cfg.explainer_readout), 1)
        self.graph_encoder = GINStates(in_dim, cfg.hidden_dim, cfg.encoder_layers)
        self.hyper_encoder = HypergraphStates(in_dim, cfg.hidden_dim, cfg.encoder_layers)
        embedding_dim = _readout_dim(cfg.hidden_dim, cfg.encoder_layers, cfg.readout)
        self.graph_head = _mlp(embedding_dim, embedding_dim)
        self.hyper_head = _mlp(embedding_dim, embedding_dim)
        self.pool = _POOLS[cfg.pooling]

    def node_log_probability(self, batch: Batch) -> torch.Tensor:
        """log p_i of every node being in the bottleneck subgraph, shape ``(num_nodes,)``."""
        states = self.explainer(batch.x, batch.edge_index)
        return F.logsigmoid(self.explainer_head(_combine(states, self.config.explainer_readout))).squeeze(1)

    def importance(self, batch: Batch, hyper: DualHypergraph) -> tuple[torch.Tensor, torch.Tensor]:
        """Bottleneck weights of the graph nodes and of the hypergraph nodes (edges, p_u * p_v), each divided
        by its maximum within the graph."""
        log_p = self.node_log_probability(batch)
        log_edge = log_p[hyper.edges[:, 0]] + log_p[hyper.edges[:, 1]]
        return (_normalised_weight(log_p, batch.batch, batch.num_graphs),
                _normalised_weight(log_edge, hyper.batch, batch.num_graphs))

    def embed(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Projected graph-view and hypergraph-view embeddings, each ``(num_graphs, embedding_dim)``."""
        hyper = dual_hypergraph(batch.x, batch.edge_index, batch.batch)
        node_weight, edge_weight = self.importance(batch, hyper)
        graph_states = self.graph_encoder(batch.x, batch.edge_index)
        hyper_states = self.hyper_encoder(hyper, batch.num_nodes)
        graph_emb = self._pool(graph_states, node_weight, batch.batch, batch.num_graphs)
        hyper_emb = self._pool(hyper_states, edge_weight, hyper.batch, batch.num_graphs)
        return self.graph_head(graph_emb), self.hyper_head(hyper_emb)

    def _pool(self, states: list[torch.Tensor], weight: torch.Tensor, index: torch.Tensor,
              num_graphs: int) -> torch.Tensor:
        pooled = [self.pool(h * weight[:, None], index, num_graphs) for h in states]
        return _combine(pooled, self.config.readout)

    def loss(self, batch: Batch) -> torch.Tensor:
        return cross_view_infonce(*self.embed(batch), self.config.temperature)

    def score(self, batch: Batch) -> torch.Tensor:
        graph_emb, hyper_emb = self.embed(batch)
        agreement = (F.normalize(graph_emb, dim=1) * F.normalize(hyper_emb, dim=1)).sum(dim=1)
        return -agreement / self.config.temperature

"""The four two-stage detectors: a self-supervised GIN encoder whose graph embeddings an isolation forest (IF) or a
one-class SVM (OCSVM) scores (spec §3.4, §9.1), re-implemented from the papers with UB-GOLD's behaviours (U19).

- GraphCL (You et al. 2020): two views per graph, the graph itself and one augmentation of it (view 1 is the
  identity, as in GraphCL's unsupervised TU code and the PyGCL pipeline UB-GOLD runs); each training batch draws
  one augmentation of four (node dropping, feature masking, edge removing, random-walk subgraph) uniformly from
  the torch global CPU RNG, which the trainer captures. The loss is the symmetric NT-Xent (InfoNCE, cosine
  similarity, temperature 0.2, both directions averaged, the positive included in the denominator, no
  intra-view negatives) on the views' projections (Linear-ReLU-Linear head). The outlier model is fitted on
  the unprojected embeddings of the un-augmented graphs and scores unprojected embeddings.
- InfoGraph (Sun et al. 2020): local-global mutual information between every node (patch) representation (the
  concatenated layer states) and every graph representation, with the Jensen-Shannon estimator and dot-product
  discriminator, through InfoGraph's feed-forward heads (three Linear-ReLU layers plus a linear shortcut) on
  both sides. U19: the outlier model is fitted on the *projected* graph embeddings (after the global head) but
  scores the *unprojected* encoder embeddings; InfoGraph-OCSVM sizes its heads ``hidden_dim * 2``, so it runs
  only with ``num_layer`` 2 (a ValueError otherwise).

The outlier stage (U19). UB-GOLD refits the IF/OCSVM on every training batch's embeddings (computed before that
batch's optimiser step), so only the fit on the last training batch survives. Here ``loss`` in training mode
stores that batch's detached embeddings and a fit counter in the state dict (``get_extra_state``), and
``score`` fits the sklearn model lazily from them: the same model as refitting per batch, since every earlier
fit is overwritten unused. The fitted model is cached under the counter, so test and hold-out scoring at one
evaluation point share a fit; its ``random_state`` is a stable hash of the class name and the counter, so a
score is deterministic and a resumed run (which refits from the checkpointed rows) is bit-identical (it does not
depend on the run's seed; the embeddings do).
Score = ``-decision_function`` for both (UB-GOLD's; for the IF it differs from ``-score_samples`` by the
constant offset 0.5, so the ranking is the same). The IF's ``max_samples`` is ``IF_sample_ratio * rows``
rounded down, as sklearn's float option, but at least 1 (sklearn fails on a one-graph last batch).

Encoder (documented assumption). UB-GOLD's GConv is GIN with biased linear layers, add pooling and
BatchNorm after the ReLU; :class:`~graphaudit.nn.detectors.GINEncoder` offers ``gn`` (GraphNorm) or ``none``.
The default here is ``gn``: like BatchNorm it keeps every layer's scale bounded, and like BatchNorm in eval mode
it makes a graph's embedding independent of its batch; unlike BatchNorm its statistics are per graph (levels
shared by all of a graph's nodes, such as its density, are removed up to GraphNorm's learnable mean scale), and
the norm precedes the ReLU. ``none`` is closer to BatchNorm's eval-time function (a per-feature affine map) but
unbounded: on stars with 3000 leaves (REDDIT-B-like hubs) its embeddings reach ~1e7 and InfoGraph's loss ~1e9.
``bias`` defaults to True (UB-GOLD's layers are biased; there is no one-class collapse to avoid). UB-GOLD fits
on training-mode (batch-statistics) BatchNorm embeddings and scores eval-mode ones; with GraphNorm both are equal.
"""

from __future__ import annotations

import copy
import math
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GraphNorm

from graphaudit.common.seeds import stable_seed
from graphaudit.nn.detectors import GINConfig, GINEncoder
from graphaudit.nn.trainer import Detector

__all__ = ["AUGMENTATIONS", "TWO_STAGE_SCHEDULE", "GraphCLIF", "GraphCLIFConfig", "GraphCLOCSVM",
           "GraphCLOCSVMConfig", "IFConfig", "InfoGraphIF", "InfoGraphIFConfig", "InfoGraphOCSVM",
           "InfoGraphOCSVMConfig", "OCSVMConfig", "TwoStageConfig", "drop_nodes", "graphcl_view",
           "local_global_jsd", "mask_features", "node_and_graph_states", "nt_xent", "random_walk_subgraph",
           "remove_edges"]

# UB-GOLD's script lines (§9.1): the same on every dataset, except InfoGraph-IF on AIDS (eval_freq 1), which the
# caller sets. Batch sizes and lr are the shared defaults (128 / 9999, 1e-4).
TWO_STAGE_SCHEDULE = {
    "GraphCL-IF": {"num_epoch": 30, "eval_freq": 4},
    "GraphCL-OCSVM": {"num_epoch": 30, "eval_freq": 2},
    "InfoGraph-IF": {"num_epoch": 30, "eval_freq": 2},
    "InfoGraph-OCSVM": {"num_epoch": 30, "eval_freq": 2},
}

# Fixed in UB-GOLD's code (not options): InfoNCE temperature and the four GraphCL augmentations.
_TAU = 0.2
_NODE_DROP = 0.1
_FEATURE_MASK = 0.1
_EDGE_REMOVE = 0.1
_WALK_SEEDS = 1000
_WALK_LENGTH = 10


# ---- configs -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TwoStageConfig(GINConfig):
    """GIN options of the two-stage encoders: UB-GOLD's hidden_dim 16, num_layer 5, add pooling; ``gn`` and
    ``bias`` True are this implementation's choices (module docstring)."""

    bias: bool = True


@dataclass(frozen=True)
class IFConfig(TwoStageConfig):
    """Isolation-forest stage: ``IF_n_trees`` trees, each on ``IF_sample_ratio`` of the fitted rows."""

    IF_n_trees: int = 200
    IF_sample_ratio: float = 0.5

    def __post_init__(self) -> None:
        if self.IF_n_trees < 1:
            raise ValueError(f"IF_n_trees must be at least 1, got {self.IF_n_trees}")
        if not 0.0 < self.IF_sample_ratio <= 1.0:
            raise ValueError(f"IF_sample_ratio must lie in (0, 1], got {self.IF_sample_ratio}")


@dataclass(frozen=True)
class OCSVMConfig(TwoStageConfig):
    """One-class SVM stage (RBF kernel): ``gamma`` as sklearn's (``"scale"`` or a number), ``nuOCSVM`` its nu."""

    gamma: str | float = "scale"
    nuOCSVM: float = 0.1

    def __post_init__(self) -> None:
        if not 0.0 < self.nuOCSVM <= 1.0:
            raise ValueError(f"nuOCSVM must lie in (0, 1], got {self.nuOCSVM}")


@dataclass(frozen=True)
class GraphCLIFConfig(IFConfig):
    """GraphCL-IF options (UB-GOLD defaults)."""


@dataclass(frozen=True)
class GraphCLOCSVMConfig(OCSVMConfig):
    """GraphCL-OCSVM options (UB-GOLD defaults)."""


@dataclass(frozen=True)
class InfoGraphIFConfig(IFConfig):
    """InfoGraph-IF options; num_layer 2 is UB-GOLD's script value on every dataset (§9.1)."""

    num_layer: int = 2


@dataclass(frozen=True)
class InfoGraphOCSVMConfig(OCSVMConfig):
    """InfoGraph-OCSVM options; num_layer must be 2 (U19)."""

    num_layer: int = 2


# ---- GraphCL augmentations (pure torch; random draws on the global CPU generator) ---------------------------

def _uniform(size: int, device: torch.device) -> torch.Tensor:
    """Uniform [0, 1) draws from the global CPU RNG (the same draws on any device), moved to ``device``."""
    return torch.rand(size).to(device)


def drop_nodes(x: torch.Tensor, edge_index: torch.Tensor, p: float = _NODE_DROP) -> tuple[torch.Tensor, torch.Tensor]:
    """Drop each node with probability ``p``: its edges go, the node stays as an isolated node with its
    features (PyGCL's and GraphCL's semantics), so node ids, ``batch`` and graph count are unchanged."""
    keep = _uniform(x.size(0), x.device) >= p
    return x, edge_index[:, keep[edge_index[0]] & keep[edge_index[1]]]


def mask_features(x: torch.Tensor, edge_index: torch.Tensor,
                  p: float = _FEATURE_MASK) -> tuple[torch.Tensor, torch.Tensor]:
    """Zero each feature column with probability ``p``, for every node at once (PyGCL's feature masking)."""
    masked = _uniform(x.size(1), x.device) < p
    return x.masked_fill(masked, 0.0), edge_index


def remove_edges(x: torch.Tensor, edge_index: torch.Tensor,
                 p: float = _EDGE_REMOVE) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove each stored (directed) edge independently with probability ``p`` (PyGCL's edge removing)."""
    return x, edge_index[:, _uniform(edge_index.size(1), x.device) >= p]


def random_walk_subgraph(x: torch.Tensor, edge_index: torch.Tensor, num_seeds: int = _WALK_SEEDS,
                         length: int = _WALK_LENGTH) -> tuple[torch.Tensor, torch.Tensor]:
    """Keep the edges between nodes that ``num_seeds`` uniform random walks of ``length`` steps visit.

    Seeds are drawn with replacement over every node of the batch (PyGCL's RWSampling draws over the batch,
    not per graph); each step moves to a uniformly chosen out-neighbour, and a node without one stays put.
    Nodes are kept (as in PyGCL), so only edges go.
    """
    num_nodes, num_edges = x.size(0), edge_index.size(1)
    if num_nodes == 0 or num_edges == 0:
        return x, edge_index
    source, target = edge_index
    targets = target[torch.argsort(source, stable=True)]
    degree = torch.bincount(source, minlength=num_nodes)
    first = torch.cumsum(degree, 0) - degree
    current = torch.randint(num_nodes, (num_seeds,)).to(x.device)
    visited = torch.zeros(num_nodes, dtype=torch.bool, device=x.device)
    visited[current] = True
    for _ in range(length):
        steps = degree[current]
        offset = torch.minimum((_uniform(num_seeds, x.device) * steps).long(), (steps - 1).clamp(min=0))
        moved = targets[(first[current] + offset).clamp(max=num_edges - 1)]
        current = torch.where(steps > 0, moved, current)
        visited[current] = True
    return x, edge_index[:, visited[source] & visited[target]]


AUGMENTATIONS: tuple[Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]], ...] = (
    random_walk_subgraph, drop_nodes, mask_features, remove_edges)


def graphcl_view(batch: Batch) -> Batch:
    """GraphCL's second view of a batch: one of :data:`AUGMENTATIONS`, drawn uniformly per batch from the global
    CPU RNG, applied to every graph. The input batch is not modified."""
    augment = AUGMENTATIONS[int(torch.randint(len(AUGMENTATIONS), (1,)))]
    view = copy.copy(batch)
    view.x, view.edge_index = augment(batch.x, batch.edge_index)
    return view


# ---- objectives ------------------------------------------------------------------------------------------------

def nt_xent(first: torch.Tensor, second: torch.Tensor, tau: float = _TAU) -> torch.Tensor:
    """Per-graph symmetric NT-Xent of two views' projections ``(G, D)``: with cosine logits s_ij / tau,
    loss_i = -(log softmax_j s_ij + log softmax_j s_ji) / 2 at j = i; the batch mean is PyGCL's G2G InfoNCE."""
    logits = F.normalize(first, dim=1) @ F.normalize(second, dim=1).T / tau
    diagonal = torch.arange(logits.size(0), device=logits.device)
    forward = torch.log_softmax(logits, dim=1)[diagonal, diagonal]
    backward = torch.log_softmax(logits, dim=0)[diagonal, diagonal]
    return -(forward + backward) / 2


def local_global_jsd(graphs: torch.Tensor, nodes: torch.Tensor, membership: torch.Tensor) -> torch.Tensor:
    """Per-graph share of InfoGraph's Jensen-Shannon local-global loss, shape ``(G,)``.

    With dot-product scores s = graphs @ nodes.T, the batch loss is mean over (graph, own node) pairs of
    softplus(-s) + mean over (graph, other graph's node) pairs of softplus(s) - 2 log 2 (= E_neg - E_pos).
    Row i's terms, times G, form graph i's loss, so the mean over graphs is the batch loss exactly. A batch of
    one graph has no negative pairs; its negative term is 0 (PyGCL would divide 0 by 0).
    """
    num_graphs, num_nodes = graphs.size(0), nodes.size(0)
    scores = graphs @ nodes.T
    own = membership.unsqueeze(0) == torch.arange(num_graphs, device=graphs.device).unsqueeze(1)
    positive = torch.where(own, F.softplus(-scores), 0.0).sum(dim=1) / max(num_nodes, 1)
    negative = torch.where(own, 0.0, F.softplus(scores)).sum(dim=1) / max(num_graphs * num_nodes - num_nodes, 1)
    return num_graphs * (positive + negative) - 2 * math.log(2)


def node_and_graph_states(encoder: GINEncoder, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """(node states, graph embeddings) of a :class:`GINEncoder`: the concatenated layer states of every node,
    shape ``(num_nodes, out_dim)``, and their pooled graphs; the graph part equals ``encoder(batch)``."""
    x, states = batch.x, []
    for conv, norm in zip(encoder.convs, encoder.norms):
        x = conv(x, batch.edge_index)
        x = norm(x, batch.batch, batch.num_graphs) if isinstance(norm, GraphNorm) else norm(x)
        x = F.relu(x)
        states.append(x)
    nodes = torch.cat(states, dim=1)
    return nodes, encoder.pool(nodes, batch.batch, batch.num_graphs)


class _FeedForward(nn.Module):
    """InfoGraph's projection head: three Linear-ReLU layers plus a linear shortcut, width preserved."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.block = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                   nn.Linear(width, width), nn.ReLU())
        self.shortcut = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x) + self.shortcut(x)


# ---- the two-stage detector --------------------------------------------------------------------------------------

class _TwoStage(Detector):
    """Encoder training plus the lazily fitted outlier stage (module docstring); subclasses give the objective."""

    def __init__(self, in_dim: int, config: IFConfig | OCSVMConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = GINEncoder(in_dim, config.hidden_dim, config.num_layer, config.norm_layer,
                                  config.aggregation, config.bias)
        self._fit_rows = torch.zeros(0, self.encoder.out_dim)
        self._fit_count = 0
        self._fitted: tuple[int, IsolationForest | OneClassSVM] | None = None

    @abstractmethod
    def _objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(per-graph loss, the rows UB-GOLD fits its outlier model on for this batch)."""

    def loss(self, batch: Batch) -> torch.Tensor:
        """Per-graph self-supervised loss; in training mode the batch's fit rows replace the stored ones."""
        losses, fit_rows = self._objective(batch)
        if self.training:
            self._fit_rows = fit_rows.detach().to("cpu", torch.float32).clone()
            self._fit_count += 1
        return losses

    def score(self, batch: Batch) -> torch.Tensor:
        """``-decision_function`` of the outlier model on the unprojected graph embeddings."""
        embeddings = self.encoder(batch)
        values = -self._outlier_model().decision_function(embeddings.detach().cpu().numpy())
        return torch.from_numpy(np.asarray(values)).to(embeddings)

    def get_extra_state(self) -> dict[str, Any]:
        return {"fit_rows": self._fit_rows, "fit_count": self._fit_count}

    def set_extra_state(self, state: dict[str, Any]) -> None:
        self._fit_rows = state["fit_rows"].detach().to("cpu", torch.float32).clone()
        self._fit_count = int(state["fit_count"])
        self._fitted = None

    def _outlier_model(self) -> IsolationForest | OneClassSVM:
        if self._fit_count == 0:
            raise RuntimeError(f"{type(self).__name__}: no outlier model fitted yet; it is fitted on the last "
                               "training batch, so score() needs at least one loss() call in training mode")
        if self._fitted is None or self._fitted[0] != self._fit_count:
            rows = self._fit_rows.numpy()
            self._fitted = (self._fit_count, self._new_outlier_model(len(rows)).fit(rows))
        return self._fitted[1]

    def _new_outlier_model(self, num_rows: int) -> IsolationForest | OneClassSVM:
        config = self.config
        if isinstance(config, IFConfig):
            seed = stable_seed("nn.two_stage", type(self).__name__, self._fit_count) % 2**32
            return IsolationForest(n_estimators=config.IF_n_trees, contamination="auto", random_state=seed,
                                   max_samples=max(1, int(config.IF_sample_ratio * num_rows)))
        return OneClassSVM(kernel="rbf", gamma=config.gamma, nu=config.nuOCSVM)


class _GraphCL(_TwoStage):
    """GraphCL encoder: NT-Xent between the graph and one augmented view; fits on unprojected embeddings."""

    def __init__(self, in_dim: int, config: IFConfig | OCSVMConfig) -> None:
        super().__init__(in_dim, config)
        width = self.encoder.out_dim
        self.projection = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))

    def _objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        graphs = self.encoder(batch)
        augmented = self.encoder(graphcl_view(batch))
        return nt_xent(self.projection(graphs), self.projection(augmented)), graphs


class _InfoGraph(_TwoStage):
    """InfoGraph encoder: local-global JSD through feed-forward heads of ``head_width``; fits on the projected
    graph embeddings (U19). The heads must match the encoder width ``hidden_dim * num_layer``."""

    def __init__(self, in_dim: int, config: IFConfig | OCSVMConfig, head_width: int) -> None:
        super().__init__(in_dim, config)
        if head_width != self.encoder.out_dim:
            raise ValueError(f"{type(self).__name__}: the projection heads are {head_width} wide but the encoder "
                             f"gives hidden_dim * num_layer = {self.encoder.out_dim}")
        self.local_head = _FeedForward(head_width)
        self.global_head = _FeedForward(head_width)

    def _objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        nodes, graphs = node_and_graph_states(self.encoder, batch)
        projected = self.global_head(graphs)
        return local_global_jsd(projected, self.local_head(nodes), batch.batch), projected


class GraphCLIF(_GraphCL):
    """GraphCL embeddings scored by an isolation forest fitted on the last training batch."""

    def __init__(self, in_dim: int, config: GraphCLIFConfig | None = None) -> None:
        super().__init__(in_dim, config or GraphCLIFConfig())


class GraphCLOCSVM(_GraphCL):
    """GraphCL embeddings scored by a one-class SVM fitted on the last training batch."""

    def __init__(self, in_dim: int, config: GraphCLOCSVMConfig | None = None) -> None:
        super().__init__(in_dim, config or GraphCLOCSVMConfig())


class InfoGraphIF(_InfoGraph):
    """InfoGraph embeddings scored by an isolation forest fitted on the last training batch's projections."""

    def __init__(self, in_dim: int, config: InfoGraphIFConfig | None = None) -> None:
        config = config or InfoGraphIFConfig()
        super().__init__(in_dim, config, head_width=config.hidden_dim * config.num_layer)


class InfoGraphOCSVM(_InfoGraph):
    """InfoGraph embeddings scored by a one-class SVM fitted on the last training batch's projections.

    UB-GOLD builds the heads ``hidden_dim * 2`` wide, so any ``num_layer`` but 2 fails (U19); this raises a
    ValueError up front instead of a shape error in the first batch.
    """

    def __init__(self, in_dim: int, config: InfoGraphOCSVMConfig | None = None) -> None:
        config = config or InfoGraphOCSVMConfig()
        if config.num_layer != 2:
            raise ValueError(f"InfoGraph-OCSVM runs only with num_layer 2 (UB-GOLD sizes its projection heads "
                             f"hidden_dim * 2, spec §3.4 U19), got num_layer {config.num_layer}")
        super().__init__(in_dim, config, head_width=config.hidden_dim * 2)

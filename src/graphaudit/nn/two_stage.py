"""The four two-stage detectors as UB-GOLD runs them (``GAOOD/detector/{GraphCL,InfoGraph}_{IF,OCSVM}.py`` and
``GAOOD/nn/{graphcl,Infograph}.py`` at c940457, over PyGCL 0.1.2 and torch_sparse 0.6.18; spec §3.4 U19, §9.1):
a self-supervised GIN encoder whose graph embeddings an isolation forest (IF) or a one-class SVM (OCSVM) scores.

Encoder (both). UB-GOLD's ``GConv``: ``num_layer`` GIN layers (Linear-ReLU-Linear with biases), each followed by
ReLU and then BatchNorm; node states are the concatenated layer outputs, the graph embedding the concatenation of
every layer's sum-pooled outputs (width ``hidden_dim * num_layer``). BatchNorm uses batch statistics in training
and its running statistics when scoring, so the outlier model is fitted on training-mode embeddings and scores
eval-mode ones, as in UB-GOLD.

- GraphCL (You et al. 2020; PyGCL's G2G pipeline). Views: the identity and one of four augmentations, chosen per
  batch by ``torch.randperm(4)`` (PyGCL's ``RandomChoice``): random-walk subgraph (1000 seeds, 10 steps), node
  dropping, feature masking, edge removing (10% each). The encoder runs three times per training batch, on the
  graph (fitted rows), on the identity view and on the augmented view (BatchNorm's running statistics move at
  each pass). Loss: PyGCL's symmetric InfoNCE (cosine, temperature 0.2) between the projections
  (Linear-ReLU-Linear) of the two views. Scoring runs the augmentation too (UB-GOLD's encoder wrapper augments
  whenever it is called), so it draws from the torch RNG even though only the plain embedding is scored.
- InfoGraph (Sun et al. 2020; PyGCL's G2L pipeline). Node states and graph embeddings pass through a local and a
  global feed-forward head (three Linear-ReLU layers plus a linear shortcut); the loss is PyGCL's Jensen-Shannon
  estimator with a dot-product discriminator between every graph and every node. U19, the projection mismatch:
  the outlier model is fitted on the *projected* graph embeddings but scores the *unprojected* ones.
  InfoGraph-OCSVM builds its heads ``hidden_dim * 2`` wide, so it runs only with ``num_layer`` 2 (U19).

The outlier stage (U19). The IF/OCSVM is refitted on every training batch, on that batch's embeddings before its
optimiser step, so only the fit on the last training batch is ever used; the IF is ``IsolationForest(n_estimators
= IF_n_trees, max_samples = IF_sample_ratio, contamination = 'auto')`` without a ``random_state``, so every fit
draws from numpy's global RNG (which the trainer seeds and checkpoints), the OCSVM ``OneClassSVM(gamma, nu)`` (RBF).
Score = ``-decision_function``. The rows and the numpy RNG state of the last fit are part of the state dict, so a
restored detector refits the same model. Losses are batch statistics: every graph of a batch carries the batch's
loss (:class:`BatchLossDetector`).

Randomness follows the devices UB-GOLD's calls use: the view choice, the walk seeds, node dropping and feature
masking draw on the CPU; edge removing draws on the batch's device, and the random walk's steps draw as
torch_sparse's CPU or CUDA kernel does (see :func:`random_walk_subgraph`).

One departure: the IF fits with at least one sample per tree, where UB-GOLD's ``max_samples = 0.5`` fails when
the last training batch holds a single graph (the only case it changes). Where UB-GOLD would read past an array
(a walk reaching a node after the last one with out-edges: directed input) or crash on ``max()`` of no edges (a
batch without edges), this raises a ValueError that says so. Kept as in UB-GOLD: a one-graph InfoGraph batch has
a NaN loss (no negative pairs), whose step makes the weights NaN and the next fit fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, global_add_pool

from graphaudit.nn.trainer import BatchLossDetector

__all__ = [
    "AUGMENTATIONS",
    "TWO_STAGE_SCHEDULE",
    "BatchNormGIN",
    "GraphCLIF",
    "GraphCLIFConfig",
    "GraphCLOCSVM",
    "GraphCLOCSVMConfig",
    "IFConfig",
    "InfoGraphIF",
    "InfoGraphIFConfig",
    "InfoGraphOCSVM",
    "InfoGraphOCSVMConfig",
    "OCSVMConfig",
    "TwoStageConfig",
    "check_infograph_ocsvm_layers",
    "drop_nodes",
    "graphcl_loss",
    "graphcl_view",
    "info_nce",
    "local_global_jsd",
    "mask_features",
    "outlier_model",
    "random_walk_subgraph",
    "remove_edges",
]

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
_INFOGRAPH_OCSVM_LAYERS = 2  # InfoGraph-OCSVM's heads are hidden_dim * 2 wide


# ---- configs -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoStageConfig:
    """Encoder options of the two-stage detectors (UB-GOLD's ``mymain.py`` defaults: hidden_dim 16, num_layer 5)."""

    hidden_dim: int = 16
    num_layer: int = 5

    def __post_init__(self) -> None:
        for name in ("hidden_dim", "num_layer"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class IFConfig(TwoStageConfig):
    """Isolation-forest stage: ``IF_n_trees`` trees, each on ``IF_sample_ratio`` of the fitted rows."""

    IF_n_trees: int = 200
    IF_sample_ratio: float = 0.5

    def __post_init__(self) -> None:
        super().__post_init__()
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
        super().__post_init__()
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


def check_infograph_ocsvm_layers(config: TwoStageConfig) -> None:
    """UB-GOLD sizes InfoGraph-OCSVM's heads ``hidden_dim * 2``: any other ``num_layer`` fails at the first batch
    (a shape error there); this says why up front."""
    if config.num_layer != _INFOGRAPH_OCSVM_LAYERS:
        raise ValueError(
            f"InfoGraph-OCSVM runs only with num_layer {_INFOGRAPH_OCSVM_LAYERS} (UB-GOLD sizes its "
            f"projection heads hidden_dim * 2, spec §3.4 U19), got num_layer {config.num_layer}"
        )


# ---- GraphCL augmentations (PyGCL 0.1.2; each returns (x, edge_index) of the view) ---------------------------


def _graph_size(edge_index: torch.Tensor, augmentation: str) -> int:
    """PyGCL's node count of a batch: the largest node id in ``edge_index`` plus one (trailing isolated nodes are
    not counted)."""
    if edge_index.numel() == 0:
        raise ValueError(
            f"{augmentation} needs at least one edge in the batch: PyGCL sizes the graph by "
            "edge_index.max() + 1, which fails (as in UB-GOLD) on a batch without edges"
        )
    return int(edge_index.max()) + 1


def drop_nodes(x: torch.Tensor, edge_index: torch.Tensor, p: float = _NODE_DROP) -> tuple[torch.Tensor, torch.Tensor]:
    """Keep each node with probability ``1 - p`` (one Bernoulli draw per node on the CPU) and the edges between
    kept nodes; dropped nodes stay, isolated, with their features."""
    keep = torch.bernoulli(torch.full((_graph_size(edge_index, "node dropping"),), 1.0 - p)).bool()
    keep = keep.to(edge_index.device)
    return x, edge_index[:, keep[edge_index[0]] & keep[edge_index[1]]]


def mask_features(
    x: torch.Tensor, edge_index: torch.Tensor, p: float = _FEATURE_MASK
) -> tuple[torch.Tensor, torch.Tensor]:
    """Zero each feature column with probability ``p`` (one uniform draw per column on the CPU), for every node."""
    masked = (torch.rand(x.size(1)) < p).to(x.device)
    return x.masked_fill(masked, 0.0), edge_index


def remove_edges(
    x: torch.Tensor, edge_index: torch.Tensor, p: float = _EDGE_REMOVE
) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove each stored (directed) edge with probability ``p`` (uniform draws on the edges' device)."""
    return x, edge_index[:, torch.rand(edge_index.size(1), device=edge_index.device) >= p]


def _walk_draws(num_seeds: int, length: int, device: torch.device) -> torch.Tensor:
    """The walk's uniform draws, one row per step: torch_sparse's CPU kernel draws ``(seeds, length)`` on the CPU
    generator and reads ``[seed, step]``; its CUDA kernel draws ``(length, seeds)`` on the device and reads
    ``[step, seed]``."""
    if device.type == "cuda":
        return torch.rand(length, num_seeds, device=device)
    return torch.rand(num_seeds, length).T


def random_walk_subgraph(
    x: torch.Tensor, edge_index: torch.Tensor, num_seeds: int = _WALK_SEEDS, length: int = _WALK_LENGTH
) -> tuple[torch.Tensor, torch.Tensor]:
    """Keep the edges between the nodes that ``num_seeds`` random walks of ``length`` steps visit (seeds included).

    PyGCL's ``random_walk_subgraph`` over torch_sparse 0.6.18's ``random_walk``: seeds are drawn uniformly over
    the batch's ``edge_index.max() + 1`` nodes (CPU), edges are held in CSR order (sorted by source, then target);
    a step from node v takes its out-edge ``rowptr[v] + floor(u * deg(v))``. A node without out-edges therefore
    moves to the target stored at ``rowptr[v]``, the first out-neighbour of the next node that has out-edges
    (torch_sparse's kernel does not special-case degree 0); where no such node exists the kernel reads past its
    array, and this raises instead. Nodes are kept, so only edges go.
    """
    num_nodes = _graph_size(edge_index, "random-walk sampling")
    device = edge_index.device
    source, target = edge_index
    targets = target[torch.argsort(source * num_nodes + target)]
    rowptr = torch.zeros(num_nodes + 1, dtype=torch.long, device=device)
    rowptr[1:] = torch.cumsum(torch.bincount(source, minlength=num_nodes), 0)
    current = torch.randint(0, num_nodes, (num_seeds,), dtype=torch.long).to(device)
    visited = torch.zeros(num_nodes, dtype=torch.bool, device=device)
    visited[current] = True
    for draws in _walk_draws(num_seeds, length, device):
        start = rowptr[current]
        position = start + (draws * (rowptr[current + 1] - start)).long()
        if bool((position >= targets.numel()).any()):
            raise ValueError(
                "a random walk reached a node after the last node with out-edges; torch_sparse's "
                "kernel (UB-GOLD's) would read past its edge array here (directed input?)"
            )
        current = targets[position]
        visited[current] = True
    return x, edge_index[:, visited[source] & visited[target]]


AUGMENTATIONS = (random_walk_subgraph, drop_nodes, mask_features, remove_edges)  # UB-GOLD's RandomChoice order


def graphcl_view(batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
    """(x, edge_index) of GraphCL's augmented view: :data:`AUGMENTATIONS` ``[torch.randperm(4)[0]]`` (PyGCL's
    ``RandomChoice(..., 1)``) applied to the whole batch. The batch is not modified."""
    augment = AUGMENTATIONS[int(torch.randperm(len(AUGMENTATIONS))[0])]
    return augment(batch.x, batch.edge_index)


# ---- objectives (PyGCL's losses over its samplers' masks, in PyGCL's order of operations) ---------------------


def info_nce(anchor: torch.Tensor, sample: torch.Tensor, tau: float = _TAU) -> torch.Tensor:
    """PyGCL's InfoNCE with one positive per anchor (the same row of ``sample``): with cosine logits s_ij / tau,
    the mean over anchors of -(s_ii - log sum_j exp s_ij). The all-ones mask sum and the diagonal mask are kept
    as PyGCL computes them, so values and gradients match it to the bit."""
    positive = torch.eye(anchor.size(0), dtype=torch.float32, device=anchor.device)
    negative = 1.0 - positive
    logits = F.normalize(anchor) @ F.normalize(sample).T / tau
    weights = torch.exp(logits) * (positive + negative)
    log_prob = logits - torch.log(weights.sum(dim=1, keepdim=True))
    return -((log_prob * positive).sum(dim=1) / positive.sum(dim=1)).mean()


def graphcl_loss(first: torch.Tensor, second: torch.Tensor, tau: float = _TAU) -> torch.Tensor:
    """PyGCL's ``DualBranchContrast`` in G2G mode: the mean of InfoNCE in both directions."""
    return (info_nce(first, second, tau) + info_nce(second, first, tau)) * 0.5


def local_global_jsd(graphs: torch.Tensor, nodes: torch.Tensor, membership: torch.Tensor) -> torch.Tensor:
    """InfoGraph's loss, PyGCL's ``JSD`` over ``SingleBranchContrast``'s G2L masks.

    With scores s = graphs @ nodes.T, positive pairs (a graph and its own nodes) and negative pairs (every other
    node): E_pos = sum over the positive-masked matrix of (log 2 - softplus(-s)) / #positives, E_neg = sum over the
    negative-masked matrix of (softplus(-s) + s - log 2) / #negatives, loss = E_neg - E_pos. Masked-out entries
    enter with s = 0, as in PyGCL (they add float dust, not zero). A one-graph batch has no negatives: 0 / 0 is
    NaN, as in UB-GOLD.
    """
    positive = (membership.unsqueeze(0) == torch.arange(graphs.size(0), device=graphs.device).unsqueeze(1)).float()
    negative = 1.0 - positive
    scores = graphs @ nodes.T
    e_pos = (math.log(2) - F.softplus(-scores * positive)).sum() / positive.int().sum()
    masked = scores * negative
    e_neg = (F.softplus(-masked) + masked - math.log(2)).sum() / negative.int().sum()
    return e_neg - e_pos


# ---- encoder and heads ---------------------------------------------------------------------------------------


class BatchNormGIN(nn.Module):
    """UB-GOLD's ``GConv`` (graphcl.py and Infograph.py share it, less GraphCL's projection head): GIN layers
    (Linear-ReLU-Linear with biases), each followed by ReLU and BatchNorm."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layer: int) -> None:
        super().__init__()
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for layer in range(num_layer):
            width = in_dim if layer == 0 else hidden_dim
            self.convs.append(
                GINConv(nn.Sequential(nn.Linear(width, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, hidden_dim)))
            )
            self.norms.append(nn.BatchNorm1d(hidden_dim))
        self.out_dim = num_layer * hidden_dim

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, membership: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(node states ``(num_nodes, out_dim)``, graph embeddings ``(num_graphs, out_dim)``)."""
        states = []
        for conv, norm in zip(self.convs, self.norms):
            x = norm(F.relu(conv(x, edge_index)))
            states.append(x)
        pooled = [global_add_pool(state, membership) for state in states]
        return torch.cat(states, dim=1), torch.cat(pooled, dim=1)


class _FeedForward(nn.Module):
    """InfoGraph's head (UB-GOLD's ``FC``): three Linear-ReLU layers plus a linear shortcut, width preserved."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.block = nn.Sequential(
            nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU()
        )
        self.shortcut = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x) + self.shortcut(x)


# ---- the detectors -------------------------------------------------------------------------------------------


def outlier_model(
    config: IFConfig | OCSVMConfig, num_rows: int, random_state: np.random.RandomState | None = None
) -> IsolationForest | OneClassSVM:
    """UB-GOLD's unfitted outlier model for ``num_rows`` rows; ``random_state`` None draws from numpy's global RNG
    as UB-GOLD's does. ``max_samples = int(IF_sample_ratio * rows)`` is what sklearn makes of UB-GOLD's float, but
    at least 1 (module docstring)."""
    if isinstance(config, IFConfig):
        return IsolationForest(
            n_estimators=config.IF_n_trees,
            contamination="auto",
            random_state=random_state,
            max_samples=max(1, int(config.IF_sample_ratio * num_rows)),
        )
    return OneClassSVM(kernel="rbf", gamma=config.gamma, nu=config.nuOCSVM)


def _numpy_state() -> tuple[Any, ...]:
    """numpy's global RNG state in types ``torch.load(weights_only=True)`` accepts."""
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    return name, torch.from_numpy(keys.astype(np.int64)), int(pos), int(has_gauss), float(gauss)


def _random_state(state: tuple[Any, ...]) -> np.random.RandomState:
    name, keys, pos, has_gauss, gauss = state
    generator = np.random.RandomState()
    generator.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, gauss))
    return generator


class _TwoStage(BatchLossDetector):
    """The outlier stage shared by the four detectors (module docstring); subclasses give encoder and loss."""

    def __init__(self, config: IFConfig | OCSVMConfig) -> None:
        super().__init__()
        self.config = config
        self._fit_input: dict[str, Any] = {}
        self._outlier: IsolationForest | OneClassSVM | None = None

    def _fit_outlier(self, rows: torch.Tensor) -> None:
        """Refit the outlier model on this training batch's rows (numpy's global RNG, as UB-GOLD)."""
        data = rows.detach().cpu().numpy()
        self._fit_input = {"rows": torch.from_numpy(data.copy()), "numpy_state": _numpy_state()}
        self._outlier = outlier_model(self.config, len(data)).fit(data)

    def _outlier_scores(self, embeddings: torch.Tensor) -> torch.Tensor:
        """``-decision_function`` of the last fitted model."""
        if self._outlier is None:
            if not self._fit_input:
                raise RuntimeError(
                    f"{type(self).__name__}: no outlier model fitted yet; it is fitted on every "
                    "training batch, so score() needs at least one loss() call in training mode"
                )
            rows = self._fit_input["rows"].numpy()
            generator = _random_state(self._fit_input["numpy_state"])
            self._outlier = outlier_model(self.config, len(rows), generator).fit(rows)
        values = -self._outlier.decision_function(embeddings.detach().cpu().numpy())
        return torch.from_numpy(np.asarray(values)).to(embeddings.device)

    def get_extra_state(self) -> dict[str, Any]:
        return dict(self._fit_input)

    def set_extra_state(self, state: dict[str, Any]) -> None:
        self._fit_input = dict(state)
        self._outlier = None  # refitted from the stored rows and RNG state when first needed


class _GraphCL(_TwoStage):
    """GraphCL: InfoNCE between the identity view and one augmented view; fits and scores plain embeddings."""

    def __init__(self, in_dim: int, config: IFConfig | OCSVMConfig) -> None:
        super().__init__(config)
        self.encoder = BatchNormGIN(in_dim, config.hidden_dim, config.num_layer)
        width = self.encoder.out_dim
        self.projection = nn.Sequential(nn.Linear(width, width), nn.ReLU(inplace=True), nn.Linear(width, width))

    def _embed(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """UB-GOLD's encoder wrapper: the augmented view is drawn first, then the graph, the identity view and the
        augmented view are encoded in that order; (graph, identity-view, augmented-view) embeddings."""
        view_x, view_edges = graphcl_view(batch)
        _, graphs = self.encoder(batch.x, batch.edge_index, batch.batch)
        _, identity = self.encoder(batch.x, batch.edge_index, batch.batch)
        _, augmented = self.encoder(view_x, view_edges, batch.batch)
        return graphs, identity, augmented

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        graphs, identity, augmented = self._embed(batch)
        if self.training:
            self._fit_outlier(graphs)
        return graphcl_loss(self.projection(identity), self.projection(augmented))

    def score(self, batch: Batch) -> torch.Tensor:
        """UB-GOLD's wrapper draws the augmented view here too; encoding the views in eval mode changes nothing,
        so only the draws are made."""
        graphcl_view(batch)
        _, graphs = self.encoder(batch.x, batch.edge_index, batch.batch)
        return self._outlier_scores(graphs)


class _InfoGraph(_TwoStage):
    """InfoGraph: local-global JSD through feed-forward heads of ``head_width``; fits projected graph embeddings
    and scores unprojected ones (U19)."""

    batch_independent_scores = True  # eval-mode BatchNorm is a per-feature affine map and scoring draws nothing

    def __init__(self, in_dim: int, config: IFConfig | OCSVMConfig, head_width: int) -> None:
        super().__init__(config)
        self.encoder = BatchNormGIN(in_dim, config.hidden_dim, config.num_layer)
        self.local_head = _FeedForward(head_width)
        self.global_head = _FeedForward(head_width)

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        nodes, graphs = self.encoder(batch.x, batch.edge_index, batch.batch)
        nodes, graphs = self.local_head(nodes), self.global_head(graphs)
        if self.training:
            self._fit_outlier(graphs)
        return local_global_jsd(graphs, nodes, batch.batch)

    def score(self, batch: Batch) -> torch.Tensor:
        _, graphs = self.encoder(batch.x, batch.edge_index, batch.batch)
        return self._outlier_scores(graphs)


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
    """InfoGraph embeddings scored by a one-class SVM fitted on the last training batch's projections; heads
    ``hidden_dim * 2`` wide, so ``num_layer`` must be 2 (:func:`check_infograph_ocsvm_layers`)."""

    def __init__(self, in_dim: int, config: InfoGraphOCSVMConfig | None = None) -> None:
        config = config or InfoGraphOCSVMConfig()
        check_infograph_ocsvm_layers(config)
        super().__init__(in_dim, config, head_width=config.hidden_dim * _INFOGRAPH_OCSVM_LAYERS)

"""GOOD-D (Liu et al. 2023a, "GOOD-D: On Unsupervised Graph Out-Of-Distribution Detection") as UB-GOLD runs it
(``GAOOD/nn/good_d.py`` and ``detector/GOOD_D.py`` at c940457).

Two GIN encoders (UB-GOLD's ``Encoder_GIN``: ``num_layer`` GIN layers, MLP Linear-ReLU-Linear, eps 0, ReLU
after each layer) read the node features ``x`` and the structural encodings ``x_s``
(:mod:`graphaudit.nn.structural_encoding`); each gives node states (every layer's, concatenated) and their
per-graph sums. Projection heads (Linear-ReLU-Linear) map them to the embeddings of the three contrasts, all
cosine similarities over temperature 0.2 (``exp(cos / 0.2)``):

- **graph level** (:func:`graph_contrast`, ``calc_loss_g``): a graph's feature view against its structure view,
  the other graphs of the batch as negatives, averaged over both directions;
- **node level** (:func:`node_contrast`, ``calc_loss_n``): the same per node, negatives the other nodes of its
  own graph (an N x N node matrix masked to the graph), averaged per graph;
- **group level** (:func:`prototype_contrast`, ``calc_loss_b``): the joint embedding ``b`` against the
  k-means prototypes of the training set (:func:`kmeans`), each prototype's temperature scaled by its
  density, the positive the graph's own cluster. The score :func:`prototype_score` (``scoring_b``) is the
  smallest scaled similarity to any prototype.

As UB-GOLD's ``fit`` runs it (:class:`HierarchicalContrastDetector`, shared by both backends):

- **k-means at every step (U16, U21).** Every training batch and every scoring batch first embeds *all*
  training graphs by iterating the run's shuffled training loader (the trainer hands it over,
  :meth:`~graphaudit.nn.trainer.Detector.attach_train_loader`), so the pass draws from the loader's generator
  as UB-GOLD's ``get_cluster_result`` draws from its RNG; test passes thereby couple evaluation to training.
  The embeddings go to their training position ``idx`` (UB-GOLD's ``data['idx']``, added by
  :meth:`~HierarchicalContrastDetector.prepare_graphs`), then faiss k-means (``Clustering`` with niter 20,
  nredo 5, seed 0, 3 to 1000 points per centroid, exact ``IndexFlatL2``) gives the centroids (L2-normalised)
  and each graph's cluster; a cluster's density is the mean distance to its centroid over log(size + 10),
  clusters of at most one graph take the largest density, then all are clipped to their 30th-70th
  percentiles and mapped to density / mean + 0.5. UB-GOLD builds a GPU index outside its ``try`` (U16: the
  CPU build of faiss fails there); the CPU index of its fallback branch is what runs here, on every device.
  faiss uses as many OpenMP threads as torch (``glad.deep.threads`` sets them through ``torch.set_num_threads``).
- **Adaptive loss weights** (``is_adaptive``, default on): a batch minimises
  ``w_b mean(loss_b) + w_g mean(loss_g) + w_n mean(loss_n)``; epoch 1 has all weights 1, each later epoch
  ``w = std**alpha / mean over the three parts of std**alpha`` with ``std`` the population standard deviation
  of that part's per-graph losses over the previous epoch. The records' per-graph loss is the same weighted sum
  per graph. With UB-GOLD's default ``alpha`` 0 every weight stays 1.
- **Score**: the sum of the three parts, ``scoring_b + calc_loss_g + calc_loss_n``, unweighted, as
  ``decision_function``. The graph-level part depends on the other graphs of the scoring batch (U23).
- **Module mode**: UB-GOLD's ``get_cluster_result`` switches the model to eval mode and never back; no module
  on GOOD-D's path depends on the mode (no dropout or normalisation: a tested property), so it is not replayed.
- **Initialisation**: UB-GOLD's model first builds a PyG ``GCN`` (``self.gnn``) that it never calls; it is built
  here too and dropped, for its draws. Every ``torch.nn.Linear`` is then redrawn Xavier-uniform, bias zero, in
  module order (UB-GOLD's ``init_emb``).

Operations follow UB-GOLD's order (which also fixes the order in which backward accumulates each tensor's
gradient), so that the two backends agree to the bit.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GCN, GINConv, global_add_pool, global_mean_pool

from graphaudit.nn.structural_encoding import STRUCTURAL_INPUTS, with_structural_encodings
from graphaudit.nn.trainer import Detector, RunGraphs, TrainConfig, node_pair_bytes

__all__ = [
    "GOODD",
    "KMEANS_SETTINGS",
    "GINStack",
    "GOODDConfig",
    "HierarchicalContrastDetector",
    "Prototypes",
    "adaptive_weights",
    "cluster_density",
    "faiss_with_torch_threads",
    "graph_contrast",
    "kmeans",
    "node_contrast",
    "prototype_contrast",
    "prototype_score",
]

TEMPERATURE = 0.2  # every contrast of UB-GOLD's GOOD_D
KMEANS_SETTINGS = {"niter": 20, "nredo": 5, "seed": 0, "max_points_per_centroid": 1000, "min_points_per_centroid": 3}
"""UB-GOLD's ``run_kmeans`` settings of ``faiss.Clustering``."""
_PERCENTILES = (30, 70)  # the density clip of ``run_kmeans``
_DENSITY_OFFSET = 0.5


@dataclass(frozen=True)
class GOODDConfig:
    """GOOD-D options under UB-GOLD's names; defaults are ``mymain.py``'s (hidden_dim 16, num_layer 5, rw_dim and
    dg_dim 16, num_cluster 2, alpha 0, is_adaptive 1). UB-GOLD's ``dropout`` reaches only the GCN its model
    never calls, so it is not an option here."""

    hidden_dim: int = 16
    num_layer: int = 5
    rw_dim: int = 16
    dg_dim: int = 16
    num_cluster: int = 2
    alpha: float = 0.0
    is_adaptive: bool = True
    structural_input: str = "encodings"  # "constant": the F.12 ablation's constant x_s (not a UB-GOLD option)

    def __post_init__(self) -> None:
        if self.structural_input not in STRUCTURAL_INPUTS:
            raise ValueError(f"structural_input must be one of {STRUCTURAL_INPUTS}, got {self.structural_input!r}")
        for name in ("hidden_dim", "num_layer", "rw_dim", "dg_dim", "num_cluster"):
            if getattr(self, name) < 1:
                raise ValueError(f"GOODDConfig.{name} must be at least 1, got {getattr(self, name)}")

    @property
    def embedding_dim(self) -> int:
        """Width of every embedding (UB-GOLD's ``hid_dim * num_layers``)."""
        return self.hidden_dim * self.num_layer


# ---- k-means over the training embeddings ---------------------------------------------------------------


@dataclass(frozen=True)
class Prototypes:
    """The k-means result the group-level contrast reads: L2-normalised centroids ``(k, d)``, densities ``(k,)``
    (float32) and every training graph's cluster ``(n,)``, indexed by training position."""

    centroids: torch.Tensor
    density: torch.Tensor
    assignment: torch.Tensor


def faiss_with_torch_threads() -> ModuleType:
    """faiss, its OpenMP threads set to torch's (so ``torch.set_num_threads`` fixes both, and runs that share a
    machine do not oversubscribe it); imported on first use, as only GOOD-D needs it."""
    try:
        import faiss
    except ImportError as error:
        raise ImportError(
            "GOOD-D clusters with faiss, as UB-GOLD does; install the project's dependencies "
            "(pip install -e .), which include faiss-cpu"
        ) from error
    faiss.omp_set_num_threads(torch.get_num_threads())
    return faiss


def cluster_density(sq_distances: np.ndarray, assignment: np.ndarray, num_cluster: int) -> np.ndarray:
    """float64 densities ``(k,)`` from each point's squared distance to its centroid (float32), as ``run_kmeans``:
    mean distance over log(size + 10) for clusters of 2 or more points, the largest of those for the others,
    clipped to the 30th-70th percentiles, divided by their mean, plus 0.5."""
    sizes = np.bincount(assignment, minlength=num_cluster)
    density = np.zeros(num_cluster)
    for cluster in np.flatnonzero(sizes > 1):
        distances = sq_distances[assignment == cluster] ** 0.5
        density[cluster] = distances.mean() / np.log(int(sizes[cluster]) + 10)
    density[sizes <= 1] = density.max()
    density = density.clip(np.percentile(density, _PERCENTILES[0]), np.percentile(density, _PERCENTILES[1]))
    return density / density.mean() + _DENSITY_OFFSET


def kmeans(points: np.ndarray, num_cluster: int, device: torch.device | str = "cpu") -> Prototypes:
    """faiss k-means of ``points`` ``(n, d)`` with UB-GOLD's settings (:data:`KMEANS_SETTINGS`) on an exact CPU
    index; centroids, densities and assignments as UB-GOLD's ``run_kmeans`` returns them, on ``device``."""
    if len(points) < num_cluster:
        raise ValueError(
            f"k-means needs at least num_cluster = {num_cluster} training graphs, got {len(points)}; lower num_cluster"
        )
    faiss = faiss_with_torch_threads()
    points = np.ascontiguousarray(points, dtype=np.float32)
    dim = points.shape[1]
    clustering = faiss.Clustering(dim, num_cluster)
    for name, value in KMEANS_SETTINGS.items():
        setattr(clustering, name, value)
    index = faiss.IndexFlatL2(dim)
    clustering.train(points, index)
    sq_distances, nearest = index.search(points, 1)
    centroids = faiss.vector_to_array(clustering.centroids).reshape(num_cluster, dim)
    density = cluster_density(sq_distances[:, 0], nearest[:, 0], num_cluster)
    return Prototypes(
        centroids=F.normalize(torch.from_numpy(centroids).to(device), p=2, dim=1),
        density=torch.from_numpy(density).float().to(device),
        assignment=torch.from_numpy(nearest[:, 0].astype(np.int64)).to(device),
    )


# ---- the three contrasts ----------------------------------------------------------------------------------


def _cosine(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-by-row cosine similarities ``(len(x), len(y))``, in UB-GOLD's order of operations: the norms come
    first, which fixes the order (and so the memory layout) in which backward accumulates the inputs' gradients."""
    x_norm, y_norm = x.norm(dim=1), y.norm(dim=1)
    return torch.einsum("ik,jk->ij", x, y) / torch.einsum("i,j->ij", x_norm, y_norm)


def graph_contrast(x: torch.Tensor, x_aug: torch.Tensor) -> torch.Tensor:
    """Per-row InfoNCE of two views, the other rows as negatives, mean of both directions (``calc_loss_g``)."""
    rows = x.size(0)
    similarity = torch.exp(_cosine(x, x_aug) / TEMPERATURE)
    positive = similarity[range(rows), range(rows)]
    forward = positive / (similarity.sum(dim=0) - positive)
    backward = positive / (similarity.sum(dim=1) - positive)
    forward, backward = -torch.log(forward), -torch.log(backward)
    return (forward + backward) / 2.0


def node_contrast(x: torch.Tensor, x_aug: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
    """Per-graph mean of the nodes' InfoNCE, negatives the other nodes of the same graph (``calc_loss_n``)."""
    rows = x.size(0)
    same_graph = batch.repeat(rows, 1)
    same_graph = same_graph == same_graph.t()
    similarity = torch.exp(_cosine(x, x_aug) / TEMPERATURE) * same_graph
    positive = similarity[range(rows), range(rows)]
    forward = positive / (similarity.sum(dim=0) - positive + 1e-12)
    backward = positive / (similarity.sum(dim=1) - positive + 1e-12)
    forward, backward = -torch.log(forward), -torch.log(backward)
    return global_mean_pool((forward + backward) / 2.0, batch)


def _prototype_similarity(b: torch.Tensor, prototypes: Prototypes) -> torch.Tensor:
    return torch.exp(_cosine(b, prototypes.centroids) / (TEMPERATURE * prototypes.density))


def prototype_contrast(b: torch.Tensor, index: torch.Tensor, prototypes: Prototypes) -> torch.Tensor:
    """Per-graph InfoNCE of ``b`` against the prototypes, positive the graph's own cluster (training position
    ``index``), density-scaled temperatures (``calc_loss_b``)."""
    rows = b.size(0)
    similarity = _prototype_similarity(b, prototypes)
    own = prototypes.assignment[index].cpu().tolist()
    positive = similarity[range(rows), own]
    return -torch.log(positive / (similarity.sum(dim=1) - positive) + 1e-12)


def prototype_score(b: torch.Tensor, prototypes: Prototypes) -> torch.Tensor:
    """The smallest density-scaled similarity of ``b`` to any prototype (``scoring_b``)."""
    return torch.min(_prototype_similarity(b, prototypes), 1)[0]


def adaptive_weights(parts: Sequence[Sequence[float]], alpha: float) -> tuple[float, float, float]:
    """UB-GOLD's ``is_adaptive`` weights of the (b, g, n) loss parts from their per-graph losses over one epoch:
    ``std**alpha`` each (population std), divided by the mean of the three."""
    powered = [np.std(values) ** alpha for values in parts]
    mean = (powered[0] + powered[1] + powered[2]) / 3
    return tuple(float(value / mean) for value in powered)


# ---- the loop both backends share ---------------------------------------------------------------------------


class HierarchicalContrastDetector(Detector):
    """GOOD-D's training and scoring as UB-GOLD's ``fit`` and ``decision_function`` run them (module docstring);
    the own network and the ubgold adapter differ only in the five backend methods."""

    config: GOODDConfig

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("loss_weights", torch.ones(3, dtype=torch.float64))  # (b, g, n), in checkpoints
        self._epoch_parts: tuple[list[float], list[float], list[float]] = ([], [], [])
        self._train_loader: Iterable[Batch] | None = None
        self._n_train = 0

    @abstractmethod
    def embed(self, batch: Batch) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """(``b``, [graph features, graph structure, node features, node structure]) as UB-GOLD's ``forward``."""

    @abstractmethod
    def cluster_embedding(self, batch: Batch) -> torch.Tensor:
        """``b`` alone (UB-GOLD's ``get_b``), for the k-means."""

    @abstractmethod
    def cluster(self, points: np.ndarray) -> Any:
        """The k-means result of the training embeddings, in the form :meth:`loss_parts` and :meth:`score_parts`
        read."""

    @abstractmethod
    def loss_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: Any
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-graph (graph-level, group-level, node-level) losses, UB-GOLD's ``[loss_g, loss_b, loss_n]``."""

    @abstractmethod
    def score_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: Any
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-graph (group-level, graph-level, node-level) scores, UB-GOLD's ``score_func``."""

    def peak_memory_bytes(self, graphs: RunGraphs, config: TrainConfig) -> int:
        """The N x N node matrices of a batch (U23): about 13 bytes per node pair to score and 30 to train (peak RSS
        measured on CPU with the modal configuration, rounded up to 14 and 32)."""
        return node_pair_bytes(graphs, config, scoring=14, training=32)

    def prepare_graphs(self, graphs: RunGraphs) -> RunGraphs:
        """Structural encodings on every graph, training positions ``idx`` on the training graphs."""
        if len(graphs.train) < self.config.num_cluster:
            raise ValueError(
                f"GOOD-D clusters the training graphs into num_cluster = {self.config.num_cluster} "
                f"groups but the run has {len(graphs.train)}; lower num_cluster"
            )
        encoded = with_structural_encodings(
            graphs, self.config.rw_dim, self.config.dg_dim, self.config.structural_input
        )
        for position, data in enumerate(encoded.train):
            data.idx = torch.tensor([position])
        self._n_train = len(encoded.train)
        return encoded

    def attach_train_loader(self, loader: Iterable[Batch]) -> None:
        self._train_loader = loader

    @torch.no_grad()
    def cluster_points(self) -> np.ndarray:
        """``b`` of every training graph at its training position, one pass over the training loader
        (UB-GOLD's ``get_cluster_result`` before its ``run_kmeans``)."""
        if self._train_loader is None or self._n_train == 0:
            raise RuntimeError(
                "GOOD-D clusters its training graphs at every step: train it with "
                "graphaudit.nn.trainer.train, which prepares the graphs and attaches the training "
                "loader (or call prepare_graphs and attach_train_loader first)"
            )
        device = self.loss_weights.device
        points = torch.zeros((self._n_train, self.config.embedding_dim))
        for batch in self._train_loader:
            batch = batch.to(device)
            points[batch.idx.cpu()] = self.cluster_embedding(batch).detach().cpu()
        return points.numpy()

    def _parts(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, views = self.embed(batch)
        return self.loss_parts(b, views, batch, self.cluster(self.cluster_points()))

    def _weighted(self, loss_g: torch.Tensor, loss_b: torch.Tensor, loss_n: torch.Tensor) -> torch.Tensor:
        w_b, w_g, w_n = self.loss_weights.tolist()
        return w_b * loss_b + w_g * loss_g + w_n * loss_n

    def loss(self, batch: Batch) -> torch.Tensor:
        """Per-graph weighted sum of the three losses under the current epoch's weights."""
        return self._weighted(*self._parts(batch))

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """UB-GOLD's batch loss ``w_b mean(loss_b) + w_g mean(loss_g) + w_n mean(loss_n)``; the per-graph parts
        are kept for the epoch's adaptive weights."""
        loss_g, loss_b, loss_n = self._parts(batch)
        for kept, values in zip(self._epoch_parts, (loss_b, loss_g, loss_n)):
            kept.extend(values.detach().cpu().tolist())
        w_b, w_g, w_n = self.loss_weights.tolist()
        batch_loss = w_b * loss_b.mean() + w_g * loss_g.mean() + w_n * loss_n.mean()
        return self._weighted(loss_g.detach(), loss_b.detach(), loss_n.detach()), batch_loss

    def end_epoch(self) -> None:
        """The next epoch's weights from this epoch's per-graph losses (``is_adaptive``)."""
        parts, self._epoch_parts = self._epoch_parts, ([], [], [])
        if self.config.is_adaptive and parts[0]:
            weights = adaptive_weights(parts, self.config.alpha)
            self.loss_weights.copy_(torch.tensor(weights, dtype=torch.float64))

    def score(self, batch: Batch) -> torch.Tensor:
        b, views = self.embed(batch)
        score_b, score_g, score_n = self.score_parts(b, views, batch, self.cluster(self.cluster_points()))
        return score_b + score_g + score_n


# ---- the own network ----------------------------------------------------------------------------------------


def _mlp(in_dim: int, out_dim: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(in_dim, out_dim), nn.ReLU(), nn.Linear(out_dim, out_dim))


class GINStack(nn.Module):
    """UB-GOLD's ``Encoder_GIN``: (per-graph sums of every layer's node states, concatenated; the node states
    concatenated), widths ``num_layer * hidden_dim``."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layer: int) -> None:
        super().__init__()
        self.convs = nn.ModuleList(
            GINConv(_mlp(in_dim if layer == 0 else hidden_dim, hidden_dim)) for layer in range(num_layer)
        )

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        states = []
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            states.append(x)
        return torch.cat([global_add_pool(state, batch) for state in states], 1), torch.cat(states, 1)


def _draw_unused_backbone(in_dim: int, hidden_dim: int, num_layer: int) -> None:
    """Build and drop the PyG GCN that UB-GOLD's model builds first and never calls: only its draws matter."""
    GCN(in_channels=in_dim, hidden_channels=hidden_dim, num_layers=num_layer, out_channels=hidden_dim)


class GOODD(HierarchicalContrastDetector):
    """GOOD-D's network (module docstring); ``in_dim`` is the node-feature width."""

    def __init__(self, in_dim: int, config: GOODDConfig | None = None) -> None:
        super().__init__()
        self.config = config or GOODDConfig()
        c = self.config
        width = c.embedding_dim
        _draw_unused_backbone(in_dim, c.hidden_dim, c.num_layer)
        self.feature_encoder = GINStack(in_dim, c.hidden_dim, c.num_layer)
        self.structure_encoder = GINStack(c.rw_dim + c.dg_dim, c.hidden_dim, c.num_layer)
        self.feature_graph_head = _mlp(width, width)
        self.structure_graph_head = _mlp(width, width)
        self.feature_node_head = _mlp(width, width)
        self.structure_node_head = _mlp(width, width)
        self.cluster_head = nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Linear(width, width))
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)

    def _encode(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        graph_f, node_f = self.feature_encoder(batch.x, batch.edge_index, batch.batch)
        graph_s, node_s = self.structure_encoder(batch.x_s, batch.edge_index, batch.batch)
        return graph_f, node_f, graph_s, node_s

    def embed(self, batch: Batch) -> tuple[torch.Tensor, list[torch.Tensor]]:
        graph_f, node_f, graph_s, node_s = self._encode(batch)
        b = self.cluster_head(torch.cat((graph_f, graph_s), 1))
        return b, [
            self.feature_graph_head(graph_f),
            self.structure_graph_head(graph_s),
            self.feature_node_head(node_f),
            self.structure_node_head(node_s),
        ]

    def cluster_embedding(self, batch: Batch) -> torch.Tensor:
        graph_f, _, graph_s, _ = self._encode(batch)
        return self.cluster_head(torch.cat((graph_f, graph_s), 1))

    def cluster(self, points: np.ndarray) -> Prototypes:
        return kmeans(points, self.config.num_cluster, self.loss_weights.device)

    def loss_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: Prototypes
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        graph_f, graph_s, node_f, node_s = views
        return (
            graph_contrast(graph_f, graph_s),
            prototype_contrast(b, batch.idx, clusters),
            node_contrast(node_f, node_s, batch.batch),
        )

    def score_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: Prototypes
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        graph_f, graph_s, node_f, node_s = views
        return (
            prototype_score(b, clusters),
            graph_contrast(graph_f, graph_s),
            node_contrast(node_f, node_s, batch.batch),
        )

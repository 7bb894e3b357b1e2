"""CVTGAD (Li et al. 2023, "CVTGAD: Simplified Transformer with Cross-View Attention for Unsupervised Graph-level
Anomaly Detection") as UB-GOLD runs it (``GAOOD/nn/cvtgad.py`` and ``GAOOD/detector/CVTGAD.py`` at c940457).

Each graph is seen twice: its node features ``x`` (the feature view) and UB-GOLD's structural encodings
``x_s`` (random-walk and degree encodings, :mod:`graphaudit.nn.structural_encoding`; the structural view).

- **Encoders** (``GNN_Encoder``): ``num_layer`` PyG ``GINConv`` (two-layer MLP), ``GCNConv`` or ``GATConv``
  layers with ReLU after each; a view's node embedding is the concatenation of every layer's states and its
  graph embedding the concatenation of their ``graph_level_pool`` (mean, or max) pools, width
  ``E = hidden_dim * num_layer``.
- **Cross-view attention** (:class:`CrossAttention`, one for the graph level, one for the node level): each
  view is projected (Linear, ReLU, Linear) and passed through a residual block of the same shape; queries of
  one view attend to the keys of the other, ``softmax(Q_A K_B^T / sqrt(E))`` over keys, then every column is
  divided by its sum (plus 1e-9); the attended values (of the view's own ``V``) are added to the residual,
  layer-normalised, and a bias-free linear layer is added back. The rows are *all graphs* (graph level) or
  *all nodes* (node level) of the batch, so a score depends on the batch (U23).
- **Loss** per graph: graph-level symmetric InfoNCE between the two views' graph outputs (the other graphs of
  the batch as negatives) and node-level InfoNCE between the two views' node outputs, negatives restricted to
  the nodes of the same graph (an N x N matrix over the batch's nodes, masked), averaged per graph;
  temperature 0.2 (:func:`graph_contrast_loss`, :func:`node_contrast_loss`).
- **Adaptive weighting** (``is_adaptive``, UB-GOLD's default 1): the training objective is
  ``w_g mean(g) + w_n mean(n)`` with ``w = std ** alpha`` of the previous epoch's per-graph loss parts,
  normalised to mean 1 (1 and 1 in the first epoch); without it ``mean(g) + mean(n)``.
- **Scores** (U15): ``score`` is what UB-GOLD's ``fit`` selects checkpoints by, with ``is_adaptive`` the
  normalised ``(g - mu_g) / sigma_g + (n - mu_n) / sigma_n`` (mean and population standard deviation of the
  current epoch's training loss parts), else ``g + n``; ``raw_score`` is ``g + n``, what UB-GOLD's
  ``decision_function`` reports (A4). Both are recorded; the tables report ``raw_score``
  (:attr:`~graphaudit.nn.trainer.Detector.reported_score`) and the oracle ranks by ``score``.

What runs: the forward pass returns the cross-attention outputs only, as UB-GOLD's does. UB-GOLD's model also
builds modules its forward never reads (the projection heads, the "Transformer" blocks, each cross-attention's
extra norms and ``fc2`` / ``fc3``, ``proj_head_b``); they are built here too, in UB-GOLD's order and under its
names (:class:`_UnreadTransformer`), because their weights are drawn from the same generator: without them the
same seed would give other weights. Every ``torch.nn.Linear`` is then re-drawn Xavier-uniform with zero bias in
module order (UB-GOLD's ``init_emb``); PyG's convolution layers keep their own initialisation. Operations run in
UB-GOLD's order (the backward pass sums a tensor's gradients in the order its uses were created), so the two
backends agree to the bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GATConv, GCNConv, GINConv, global_max_pool, global_mean_pool

from graphaudit.nn.structural_encoding import STRUCTURAL_INPUTS, with_structural_encodings
from graphaudit.nn.trainer import Detector, RunGraphs, TrainConfig, node_pair_bytes

__all__ = ["CVTGAD", "CVTGADConfig", "CrossAttention", "adaptive_weights", "graph_contrast_loss", "node_contrast_loss"]

ENCODERS = ("GIN", "GCN", "GAT")
POOLS = {"global_mean_pool": global_mean_pool, "global_max_pool": global_max_pool}
TEMPERATURE = 0.2  # calc_loss_g / calc_loss_n's fixed default


@dataclass(frozen=True)
class CVTGADConfig:
    """CVTGAD options under UB-GOLD's names and ``mymain.py`` defaults (hidden_dim 16, num_layer 5, GNN_Encoder GIN,
    graph_level_pool global_mean_pool, is_adaptive 1, alpha 0, rw_dim = dg_dim = 16).

    ``rw_dim`` and ``dg_dim`` size ``x_s``; UB-GOLD's ``init_model`` sets ``dg_dim = rw_dim`` before sizing the
    structural encoder, so it runs only when the two are equal (every script line has them equal).
    ``num_cluster`` (in every script line) is not an option: CVTGAD's code never reads it.
    """

    hidden_dim: int = 16
    num_layer: int = 5
    GNN_Encoder: str = "GIN"  # UB-GOLD's option name
    graph_level_pool: str = "global_mean_pool"
    is_adaptive: bool = True
    alpha: float = 0.0
    rw_dim: int = 16
    dg_dim: int = 16
    structural_input: str = "encodings"  # "constant": the F.12 ablation's constant x_s (not a UB-GOLD option)

    def __post_init__(self) -> None:
        if self.structural_input not in STRUCTURAL_INPUTS:
            raise ValueError(f"structural_input must be one of {STRUCTURAL_INPUTS}, got {self.structural_input!r}")
        if self.GNN_Encoder not in ENCODERS:
            raise ValueError(f"GNN_Encoder must be one of {ENCODERS}, got {self.GNN_Encoder!r}")
        if self.graph_level_pool not in POOLS:
            raise ValueError(f"graph_level_pool must be one of {sorted(POOLS)}, got {self.graph_level_pool!r}")
        for name in ("hidden_dim", "num_layer", "rw_dim", "dg_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.rw_dim != self.dg_dim:
            raise ValueError(
                f"rw_dim ({self.rw_dim}) and dg_dim ({self.dg_dim}) must be equal: UB-GOLD's CVTGAD sizes "
                "its structural encoder for 2 * rw_dim inputs while x_s has rw_dim + dg_dim columns"
            )

    @property
    def embedding_dim(self) -> int:
        """E = hidden_dim * num_layer, the width of both views' embeddings."""
        return self.hidden_dim * self.num_layer


# ---- losses ------------------------------------------------------------------------------------------------


def graph_contrast_loss(x: torch.Tensor, x_aug: torch.Tensor, temperature: float = TEMPERATURE) -> torch.Tensor:
    """Per-row symmetric InfoNCE of two views (UB-GOLD's ``calc_loss_g``): with s_ij = exp(cos(x_i, x'_j) / t),
    the mean of -log(s_ii / (sum_j s_ji - s_ii)) and -log(s_ii / (sum_j s_ij - s_ii)); no epsilon."""
    rows = x.size(0)
    norms, aug_norms = x.norm(dim=1), x_aug.norm(dim=1)
    similarity = torch.einsum("ik,jk->ij", x, x_aug) / torch.einsum("i,j->ij", norms, aug_norms)
    similarity = torch.exp(similarity / temperature)
    positive = similarity[range(rows), range(rows)]
    forward = positive / (similarity.sum(dim=0) - positive)
    backward = positive / (similarity.sum(dim=1) - positive)
    forward, backward = -torch.log(forward), -torch.log(backward)
    return (forward + backward) / 2.0


def node_contrast_loss(
    x: torch.Tensor, x_aug: torch.Tensor, batch: torch.Tensor, temperature: float = TEMPERATURE
) -> torch.Tensor:
    """Per-graph mean over its nodes of the symmetric node InfoNCE (UB-GOLD's ``calc_loss_n``): the N x N
    similarity matrix over all nodes of the batch, masked to pairs in the same graph, 1e-12 in the denominators."""
    rows = x.size(0)
    norms, aug_norms = x.norm(dim=1), x_aug.norm(dim=1)
    same_graph = batch.unsqueeze(0) == batch.unsqueeze(1)
    similarity = torch.einsum("ik,jk->ij", x, x_aug) / torch.einsum("i,j->ij", norms, aug_norms)
    similarity = torch.exp(similarity / temperature) * same_graph
    positive = similarity[range(rows), range(rows)]
    forward = positive / (similarity.sum(dim=0) - positive + 1e-12)
    backward = positive / (similarity.sum(dim=1) - positive + 1e-12)
    forward, backward = -torch.log(forward), -torch.log(backward)
    return global_mean_pool((forward + backward) / 2.0, batch)


def adaptive_weights(std_g: float, std_n: float, alpha: float) -> tuple[float, float]:
    """(w_g, w_n) = (std_g^alpha, std_n^alpha) divided by their mean, in float64 as UB-GOLD's numpy scalars."""
    weight_g, weight_n = np.float64(std_g) ** alpha, np.float64(std_n) ** alpha
    mean = (weight_g + weight_n) / 2
    return weight_g / mean, weight_n / mean


# ---- modules -----------------------------------------------------------------------------------------------


def _mlp(widths: tuple[int, int, int], inplace: bool = False) -> nn.Sequential:
    return nn.Sequential(nn.Linear(widths[0], widths[1]), nn.ReLU(inplace=inplace), nn.Linear(widths[1], widths[2]))


class _UnreadTransformer(nn.Module):
    """UB-GOLD's ``Transformer`` block: built (its weights take draws from the generator, and it holds parameters
    under UB-GOLD's names) but never called, as in UB-GOLD's CVTGAD; it has no forward pass."""

    def __init__(self, attributed_dim: int, n_h: int) -> None:
        super().__init__()
        width = attributed_dim * 2
        self.fc_cat = _mlp((attributed_dim, width, width))
        self.fc1 = _mlp((width, width, width))
        self.w_qs = nn.Linear(width, width, bias=False)
        self.w_ks = nn.Linear(width, width, bias=False)
        self.w_vs = nn.Linear(width, width, bias=False)
        self.layer_norm1 = nn.LayerNorm(width, eps=1e-6)
        self.layer_norm2 = nn.LayerNorm(width, eps=1e-6)
        self.add_norm1 = nn.LayerNorm(width, eps=1e-6)
        self.add_norm2 = nn.LayerNorm(width, eps=1e-6)
        self.fc_ffn = nn.Linear(width, width, bias=False)
        self.fc2 = _mlp((width, width // 2, width))
        self.fc3 = _mlp((width, width, n_h))


def _view_modules(width: int, n_h: int) -> dict[str, nn.Module]:
    """One view's modules in UB-GOLD's order; ``layer_norm1/2``, ``add_norm2``, ``fc2`` and ``fc3`` are never read."""
    return {
        "projection_network": _mlp((width, width, width)),
        "residual_block": _mlp((width, width, width)),
        "w_qs": nn.Linear(width, width, bias=False),
        "w_ks": nn.Linear(width, width, bias=False),
        "w_vs": nn.Linear(width, width, bias=False),
        "layer_norm1": nn.LayerNorm(width, eps=1e-6),
        "layer_norm2": nn.LayerNorm(width, eps=1e-6),
        "add_norm1": nn.LayerNorm(width, eps=1e-6),
        "add_norm2": nn.LayerNorm(width, eps=1e-6),
        "fc_ffn": nn.Linear(width, width, bias=False),
        "fc2": _mlp((width, width // 2, width)),
        "fc3": _mlp((width, width, n_h)),
    }


class CrossAttention(nn.Module):
    """UB-GOLD's ``Cross_Attention``: two views attend to each other's keys (see the module docstring)."""

    def __init__(self, width: int, n_h: int) -> None:
        super().__init__()
        for view in ("A", "B"):
            for name, module in _view_modules(width, n_h).items():
                self.add_module(f"{view}_{name}", module)
        # UB-GOLD's ``self.k``: a float32 [sqrt(n_h)] (a plain attribute there; a buffer outside the state dict here)
        self.register_buffer("k", torch.sqrt(torch.FloatTensor([n_h])), persistent=False)

    def _view(self, view: str, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(projected features, residual) of one view, shape (1, rows, width)."""
        projected = getattr(self, f"{view}_projection_network")(features)
        return projected, getattr(self, f"{view}_residual_block")(projected)

    def _queries_keys_values(
        self, view: str, projected: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        queries = getattr(self, f"{view}_w_qs")(projected)
        keys = getattr(self, f"{view}_w_ks")(projected).permute(0, 2, 1)
        return queries, keys, getattr(self, f"{view}_w_vs")(projected)

    @staticmethod
    def _attended(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        attention = torch.softmax(scores, 2)
        return attention / (1e-9 + attention.sum(dim=1, keepdim=True)) @ values

    def _feed_forward(self, view: str, residual: torch.Tensor, attended: torch.Tensor) -> torch.Tensor:
        state = getattr(self, f"{view}_add_norm1")(residual + attended)
        return state + getattr(self, f"{view}_fc_ffn")(state)

    def forward(self, feat_a: torch.Tensor, feat_b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # UB-GOLD's operation order, kept throughout: the backward pass sums gradients in creation order
        feat_a, feat_b = feat_a.unsqueeze(0), feat_b.unsqueeze(0)
        a, a_residual = self._view("A", feat_a)
        b, b_residual = self._view("B", feat_b)
        a_q, a_k, a_v = self._queries_keys_values("A", a)
        b_q, b_k, b_v = self._queries_keys_values("B", b)
        a_scores, b_scores = a_q @ b_k, b_q @ a_k
        a_scores, b_scores = a_scores / self.k, b_scores / self.k
        a_attended, b_attended = self._attended(a_scores, a_v), self._attended(b_scores, b_v)
        out_a, out_b = self._feed_forward("A", a_residual, a_attended), self._feed_forward("B", b_residual, b_attended)
        return out_a.squeeze(0), out_b.squeeze(0)


def _conv(encoder: str, in_dim: int, hidden_dim: int) -> nn.Module:
    if encoder == "GIN":
        return GINConv(nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, hidden_dim)))
    return (GCNConv if encoder == "GCN" else GATConv)(in_dim, hidden_dim)


class ViewEncoder(nn.Module):
    """UB-GOLD's ``Encoder_GIN`` / ``Encoder_GCN`` / ``Encoder_GAT``: (graph embeddings, node embeddings)."""

    def __init__(self, in_dim: int, config: CVTGADConfig) -> None:
        super().__init__()
        self.convs = nn.ModuleList(
            [
                _conv(config.GNN_Encoder, in_dim if layer == 0 else config.hidden_dim, config.hidden_dim)
                for layer in range(config.num_layer)
            ]
        )
        self.Transformer = _UnreadTransformer(in_dim, in_dim)  # UB-GOLD's name; never called
        self.pool: Callable[..., torch.Tensor] = POOLS[config.graph_level_pool]

    def forward(
        self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        states = []
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            states.append(x)
        return torch.cat([self.pool(state, batch) for state in states], 1), torch.cat(states, 1)


# ---- the detector ------------------------------------------------------------------------------------------


class AdaptiveLossParts(nn.Module):
    """Per-epoch statistics of the two loss parts (UB-GOLD's ``is_adaptive`` bookkeeping in ``CVTGAD.fit``).

    Training batches add their per-graph parts; :meth:`close_epoch` turns them into the epoch's mean and
    population standard deviation (numpy, float64, as UB-GOLD's ``np.mean`` / ``np.std`` over ``tolist()``)
    kept in buffers, so a checkpoint written after the epoch resumes with them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("statistics", torch.full((4,), float("nan"), dtype=torch.float64))  # mu_g sd_g mu_n sd_n
        self.register_buffer("epochs", torch.zeros((), dtype=torch.int64))
        self._parts: list[tuple[torch.Tensor, torch.Tensor]] = []

    def add(self, loss_g: torch.Tensor, loss_n: torch.Tensor) -> None:
        self._parts.append((loss_g.detach().cpu(), loss_n.detach().cpu()))

    def close_epoch(self) -> None:
        values = [np.concatenate([part[i].numpy() for part in self._parts]).astype(np.float64) for i in (0, 1)]
        stats = [float(f(v)) for v in values for f in (np.mean, np.std)]
        self.statistics.copy_(torch.tensor(stats, dtype=torch.float64))
        self.epochs += 1
        self._parts = []

    def moments(self) -> tuple[float, float, float, float]:
        """(mean_g, std_g, mean_n, std_n) of the last closed epoch."""
        if int(self.epochs) == 0:
            raise ValueError(
                "CVTGAD's adaptive score needs the statistics of one training epoch; train first "
                "(or set is_adaptive false)"
            )
        mean_g, std_g, mean_n, std_n = self.statistics.tolist()
        return mean_g, std_g, mean_n, std_n


class CVTGADDetector(Detector):
    """What both backends' CVTGAD share: ``x_s`` on every graph, the per-graph loss :meth:`objective` records, and
    two score columns (U15: ``score`` for selection, ``raw_score`` reported)."""

    score_columns = ("raw_score",)
    reported_score = "raw_score"
    config: CVTGADConfig

    def peak_memory_bytes(self, graphs: RunGraphs, config: TrainConfig) -> int:
        """The N x N node matrices of a batch (U23): about 18 bytes per node pair to score and 47 to train (peak RSS
        measured on CPU with the modal configuration, rounded up to 20 and 50)."""
        return node_pair_bytes(graphs, config, scoring=20, training=50)

    def prepare_graphs(self, graphs: RunGraphs) -> RunGraphs:
        """UB-GOLD's data loader attaches ``init_structural_encoding(..., rw_dim, dg_dim)`` to every graph (the
        ablation: a constant ``x_s``, ``structural_input``)."""
        return with_structural_encodings(graphs, self.config.rw_dim, self.config.dg_dim, self.config.structural_input)

    def loss(self, batch: Batch) -> torch.Tensor:
        """The per-graph losses :meth:`objective` records (in training mode it also feeds the statistics)."""
        return self.objective(batch)[0]

    def score(self, batch: Batch) -> torch.Tensor:
        return self.scores(batch)["score"]


class CVTGAD(CVTGADDetector):
    """CVTGAD on ``x`` and ``x_s`` (added by :meth:`prepare_graphs`); ``in_dim`` is the width of ``x``."""

    def __init__(self, in_dim: int, config: CVTGADConfig | None = None) -> None:
        super().__init__()
        self.config = config or CVTGADConfig()
        width = self.config.embedding_dim
        self.encoder_feat = ViewEncoder(in_dim, self.config)
        self.encoder_str = ViewEncoder(self.config.rw_dim * 2, self.config)  # UB-GOLD: dg_dim = rw_dim, then sum
        for level in ("g", "n"):
            self.add_module(f"proj_head_feat_{level}", _mlp((width, width, width), inplace=True))
            self.add_module(f"proj_head_str_{level}", _mlp((width, width, width), inplace=True))
            self.add_module(f"proj_feat_{level}_Transformer", _UnreadTransformer(width, width))
            self.add_module(f"proj_str_{level}_Transformer", _UnreadTransformer(width, width))
            self.add_module(f"Cross_Attention_{level}", CrossAttention(width, width))
        self.proj_head_b = _mlp((width * 2, width, width), inplace=True)
        self.proj_b_CrossAttention = _UnreadTransformer(width * 2, width)  # UB-GOLD's name
        for module in self.modules():  # UB-GOLD's init_emb
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight.data)
                if module.bias is not None:
                    module.bias.data.fill_(0.0)
        self.adaptive = AdaptiveLossParts()

    def loss_parts(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-graph (graph-level, node-level) losses over this batch (UB-GOLD's ``forward_model``)."""
        g_f, n_f = self.encoder_feat(batch.x, batch.edge_index, batch.batch)
        g_s, n_s = self.encoder_str(batch.x_s, batch.edge_index, batch.batch)
        g_f, g_s = self.Cross_Attention_g(g_f, g_s)
        n_f, n_s = self.Cross_Attention_n(n_f, n_s)
        return graph_contrast_loss(g_f, g_s), node_contrast_loss(n_f, n_s, batch.batch)

    def _weights(self) -> tuple[float, float]:
        if int(self.adaptive.epochs) == 0:
            return 1, 1
        _, std_g, _, std_n = self.adaptive.moments()
        return adaptive_weights(std_g, std_n, self.config.alpha)

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(w_g g + w_n n per graph, w_g mean(g) + w_n mean(n)); training batches feed the epoch's statistics."""
        loss_g, loss_n = self.loss_parts(batch)
        if not self.config.is_adaptive:
            objective = loss_g.mean() + loss_n.mean()
            return (loss_g + loss_n).detach(), objective
        if self.training:
            self.adaptive.add(loss_g, loss_n)
        weight_g, weight_n = self._weights()
        objective = weight_g * loss_g.mean() + weight_n * loss_n.mean()
        return (weight_g * loss_g + weight_n * loss_n).detach(), objective

    def end_epoch(self) -> None:
        """The epoch's loss-part statistics: the next epoch's weights and this epoch's normalised scores."""
        if self.config.is_adaptive:
            self.adaptive.close_epoch()

    def scores(self, batch: Batch) -> dict[str, torch.Tensor]:
        """``score``: the normalised sum with ``is_adaptive`` (selection), else g + n; ``raw_score``: g + n."""
        score_g, score_n = self.loss_parts(batch)
        raw = score_g + score_n
        if not self.config.is_adaptive:
            return {"score": raw, "raw_score": raw}
        mean_g, std_g, mean_n, std_n = self.adaptive.moments()
        return {"score": (score_g - mean_g) / std_g + (score_n - mean_n) / std_n, "raw_score": raw}

"""GLADC (Luo et al. 2022, "Deep graph level anomaly detection with contrastive learning") as UB-GOLD runs it
(``GAOOD/nn/gladc.py`` and ``detector/GLADC.py`` at c940457).

An encoder embeds each graph's nodes and pools them into a graph embedding; decoders rebuild the node
features and the adjacency from the node embeddings; the encoder embeds the rebuilt graph again. Training
asks for small reconstruction errors, for the two embeddings to agree, and for the graph embedding to be
recognised among the batch's graph embeddings of a noisy copy of the encoder. The score is how far the two
embeddings are apart. UB-GOLD's dense layout and its quirks are kept:

- Every graph is a dense block padded to ``max_nodes_num`` (UB-GOLD: the largest graph of the data set;
  the glad runs fill it from the data; ``None`` pads to the batch's largest graph):
  :func:`graphaudit.nn.glocalkd.dense_blocks`. The padded rows and columns take part everywhere: the
  rebuilt adjacency is 1/2 there (a sigmoid of 0), the adjacency target ``A + I`` has ones on the whole
  diagonal, and the max pooling sees the padded rows.
- Encoder: ``H1 = LeakyReLU_0.5((A X) W1)``, dropout, ``Z = (A H1) W2`` (no bias, no self loop, no
  normalisation), graph embedding ``g = proj(max over nodes of Z)`` with ``proj`` = Linear, ReLU, Linear.
  Attribute decoder: ``X^ = (A dropout(LeakyReLU_0.5((A Z) V1))) V2``; structure decoder
  ``A^ = sigmoid(Z Z^T)``; then ``Z2, g2 = encoder(X^, A^)``. Every layer is a ``torch.nn.Linear`` with
  torch's initialisation, drawn in UB-GOLD's order (encoder, attribute decoder, then UB-GOLD's second
  encoder ``noise_NetG``, whose weights are overwritten before every use).
- Noisy encoder (``gen_ran_output``): the encoder's two graph convolutions plus Gaussian noise of their own
  standard deviation, ``W + N(0, std(W)^2)`` drawn afresh at every training step (W1 first), the projection
  head as it is; gradients do not flow through its weights (UB-GOLD copies ``.data``).
- Training loss of a batch (``forward_model``), one scalar::

      L = mean_{g,j} sqrt(sum_i (A^ - (A + I))_ij^2) + mean_{g,f} sqrt(sum_i (X^ - X)_if^2)
          + mean(MSE(Z, Z2)) + mean_g(MSE(g, g2)) + InfoNCE(g_noisy, g)

  where sums run over the node rows (dimension 1, so the attribute term is per feature column) and InfoNCE
  is -mean_i log(e^{c_ii/T} / sum_{j != i} e^{c_ij/T}), c the cosine between the noisy and the clean graph
  embeddings, T = 0.2. The batch's graphs are each recorded with this batch loss.
- Score (the evaluation loop of ``fit``, in eval mode): ``mean over the scoring batch of mean(MSE(Z, Z2))
  + MSE(g, g2)`` per graph, so a graph's score depends on its batch unless it is scored alone: UB-GOLD
  uses ``batch_size_test`` 1 (spec 3.4 U17).
- UB-GOLD's ``bn`` and ``bias`` options reach the detector but not its network (the network has no
  BatchNorm; its projection head always has biases); its ``num_layer`` becomes ``num_gc_layers``, which
  nothing reads: the encoder has two convolutions whatever it says. The config keeps ``bn`` and ``bias``
  and refuses a value UB-GOLD's code would ignore.

Operations run in UB-GOLD's order (the attribute cost before the structure cost, the InfoNCE norms before
its products), so autograd sums the gradients in the same order and the two backends agree to the bit.

Training batches are built once and never reshuffled (U18) and the test blocks once before training, so
evaluation draws nothing from the training RNG: the glad catalogue fixes ``shuffle_train: false`` and
``test_rng: isolated``. Not replayed (U25, as for GLocalKD): UB-GOLD iterates its loaders once to build the
blocks after drawing the weights, which moves the CPU RNG by 2 draws before the first dropout mask and
weight noise; here they follow the same law from another point of the stream.

Dense blocks take ``B * N^2`` floats per square tensor and a training step holds six
(:func:`dense_step_bytes`): on REDDIT-B (300 graphs padded to 3782 nodes) about 112 GiB a step here, 229 GB
in UB-GOLD, which builds every batch's blocks before training (spec U17).
:meth:`GLADCDetector.peak_memory_bytes` lets the trainer refuse a run over its memory budget before
allocating them (:class:`graphaudit.nn.trainer.MemoryBudgetError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call
from torch_geometric.data import Batch, Data

from graphaudit.nn.glocalkd import dense_blocks
from graphaudit.nn.trainer import BatchLossDetector, RunGraphs, TrainConfig

__all__ = [
    "GLADC",
    "GLADCConfig",
    "GLADCDetector",
    "GLADCEncoder",
    "dense_step_bytes",
    "info_nce",
    "perturbed_weights",
    "reconstruction_costs",
    "structure_target",
]

_LEAKY_SLOPE = 0.5
_TEMPERATURE = 0.2
_FLOAT_BYTES = torch.float32.itemsize  # the dense blocks are float32


@dataclass(frozen=True)
class GLADCConfig:
    """GLADC options; defaults are UB-GOLD's (``mymain.py``: hidden_dim 16, dropout 0.3 shared; output_dim
    128, bn on, bias on for GLADC). ``max_nodes_num``: the padded size (see the module docstring).
    ``bn`` and ``bias`` change nothing in UB-GOLD's GLADC, so only their defaults are accepted."""

    hidden_dim: int = 16
    output_dim: int = 128
    dropout: float = 0.3
    bn: bool = True
    bias: bool = True
    max_nodes_num: int | None = None

    def __post_init__(self) -> None:
        for name in ("hidden_dim", "output_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"GLADCConfig.{name} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"GLADCConfig.dropout must be in [0, 1), got {self.dropout}")
        for name in ("bn", "bias"):
            if getattr(self, name) is not True:
                raise ValueError(
                    f"GLADCConfig.{name}={getattr(self, name)!r}: UB-GOLD's GLADC network has no "
                    f"BatchNorm and always has its projection biases, so its -no{name} flag changes "
                    f"nothing; leave {name} true"
                )
        if self.max_nodes_num is not None and self.max_nodes_num < 1:
            raise ValueError(f"GLADCConfig.max_nodes_num must be positive or None, got {self.max_nodes_num}")


# ---- the network -----------------------------------------------------------------------------------------


class GLADCEncoder(nn.Module):
    """Two dense graph convolutions without bias, LeakyReLU(0.5) and dropout between them, max pooling over
    the node rows and a projection head: (node embeddings ``(B, N, D)``, graph embeddings ``(B, D)``)."""

    def __init__(self, in_dim: int, hidden_dim: int, output_dim: int, dropout: float) -> None:
        super().__init__()
        self.conv1 = nn.Linear(in_dim, hidden_dim, bias=False)
        self.conv2 = nn.Linear(hidden_dim, output_dim, bias=False)
        self.projection = nn.Sequential(nn.Linear(output_dim, output_dim), nn.ReLU(), nn.Linear(output_dim, output_dim))
        self.dropout = dropout

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = F.leaky_relu(self.conv1(torch.matmul(adj, x)), _LEAKY_SLOPE)
        h = F.dropout(h, self.dropout, self.training)
        nodes = self.conv2(torch.matmul(adj, h))
        return nodes, self.projection(torch.max(nodes, dim=1)[0])


class AttributeDecoder(nn.Module):
    """Node features back from node embeddings: ``(A dropout(LeakyReLU_0.5((A Z) V1))) V2``, no bias."""

    def __init__(self, in_dim: int, hidden_dim: int, output_dim: int, dropout: float) -> None:
        super().__init__()
        self.conv1 = nn.Linear(output_dim, hidden_dim, bias=False)
        self.conv2 = nn.Linear(hidden_dim, in_dim, bias=False)
        self.dropout = dropout

    def forward(self, z: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        h = F.leaky_relu(self.conv1(torch.matmul(adj, z)), _LEAKY_SLOPE)
        h = F.dropout(h, self.dropout, self.training)
        return self.conv2(torch.matmul(adj, h))


def perturbed_weights(encoder: nn.Module) -> dict[str, torch.Tensor]:
    """The noisy encoder's weights (UB-GOLD's ``gen_ran_output``): every parameter outside the projection
    head plus N(0, std^2) noise of its own standard deviation, drawn in parameter order; the projection head
    unchanged; all detached (UB-GOLD assigns ``.data``, so no gradient flows through them)."""
    weights = {}
    for name, parameter in encoder.named_parameters():
        value = parameter.detach()
        if name.split(".")[0] != "projection":
            value = value + torch.normal(0, torch.ones_like(value) * value.std())
        weights[name] = value
    return weights


def structure_target(adj: torch.Tensor) -> torch.Tensor:
    """``A + I`` over every padded position (UB-GOLD's ``adj_label``: the padded block plus ``sp.eye``)."""
    return adj + torch.eye(adj.size(1), device=adj.device)


def reconstruction_costs(
    adj_target: torch.Tensor, adj_rebuilt: torch.Tensor, x: torch.Tensor, x_rebuilt: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(structure cost, attribute cost): the mean over graphs and columns of the root of the squared errors
    summed over the node rows (UB-GOLD's ``loss_func``)."""
    attribute = torch.mean(torch.sqrt(torch.sum(torch.pow(x_rebuilt - x, 2), 1)))
    structure = torch.mean(torch.sqrt(torch.sum(torch.pow(adj_rebuilt - adj_target, 2), 1)))
    return structure, attribute


def info_nce(anchors: torch.Tensor, positives: torch.Tensor) -> torch.Tensor:
    """-mean_i log(e^{c_ii/T} / sum_{j != i} e^{c_ij/T}) with c_ij the cosine of anchor i and positive j,
    T = 0.2 (UB-GOLD's ``loss_cal``: the other graphs of the batch are the negatives)."""
    n = anchors.size(0)
    anchor_norms, positive_norms = anchors.norm(dim=1), positives.norm(dim=1)
    cosine = torch.einsum("ik,jk->ij", anchors, positives) / torch.einsum("i,j->ij", anchor_norms, positive_norms)
    similarity = torch.exp(cosine / _TEMPERATURE)
    positive = similarity[range(n), range(n)]
    return -torch.log(positive / (similarity.sum(dim=1) - positive)).mean()


def _node_error(nodes: torch.Tensor, rebuilt: torch.Tensor) -> torch.Tensor:
    """MSE of the node embeddings over every padded position and dimension, then over the batch: a scalar."""
    return torch.mean(F.mse_loss(nodes, rebuilt, reduction="none"), dim=2).mean(dim=1).mean(dim=0)


def _graph_error(graph: torch.Tensor, rebuilt: torch.Tensor) -> torch.Tensor:
    """MSE of the graph embeddings per graph, ``(B,)``."""
    return F.mse_loss(graph, rebuilt, reduction="none").mean(dim=1)


# ---- memory --------------------------------------------------------------------------------------------

DENSE_FOOTPRINT = {True: (6, 10), False: (3, 2)}
"""Training step (``True``: forward and backward) or scoring pass (``False``) -> (``(B, N, N)`` float32
tensors alive at the peak, ``(B, N, w)`` tensors alive then per unit of ``w = in_dim + hidden_dim +
output_dim``), counted with torch's memory profiler on both backends and held as an upper bound by the
tests. The squares of a scoring pass are the adjacency, ``Z Z^T`` and its sigmoid; a training step adds the
target ``A + I``, the rebuilt adjacency's difference to it and their gradients."""


def dense_step_bytes(
    num_graphs: int, max_nodes: int, in_dim: int, hidden_dim: int, output_dim: int, training: bool
) -> int:
    """Peak bytes of the dense tensors of one GLADC step on ``num_graphs`` graphs padded to ``max_nodes``
    (:data:`DENSE_FOOTPRINT`). The allocator and the rest of the process come on top; UB-GOLD itself holds
    every batch's blocks at once (it builds them all before training), this project one batch's."""
    squares, per_width = DENSE_FOOTPRINT[training]
    per_node = squares * max_nodes + per_width * (in_dim + hidden_dim + output_dim)
    return _FLOAT_BYTES * num_graphs * max_nodes * per_node


# ---- the detector --------------------------------------------------------------------------------------


class GLADCDetector(BatchLossDetector):
    """Loss, objective and memory estimate of GLADC given its batch loss (UB-GOLD's ``forward_model``: the scalar
    it backpropagates; the contrastive term is a batch quantity); the own network and the ubgold adapter differ
    only in :meth:`batch_loss` and :meth:`score`."""

    config: GLADCConfig
    in_dim: int

    def blocks(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(features, adjacency) padded as UB-GOLD's ``process_graph`` pads them."""
        return dense_blocks(batch, self.config.max_nodes_num)

    def peak_memory_bytes(self, graphs: RunGraphs, config: TrainConfig) -> int:
        """The larger of a training step on ``batch_size`` graphs and a scoring pass on ``batch_size_test``
        graphs, every graph padded to ``max_nodes_num`` (or the run's largest graph when it is unset)."""
        size = self.config.max_nodes_num or _largest([g for part in [graphs.train, *graphs.scored()] for g in part])
        c = self.config
        step = dense_step_bytes(
            min(config.batch_size, len(graphs.train)), size, self.in_dim, c.hidden_dim, c.output_dim, training=True
        )
        scoring = dense_step_bytes(
            min(config.batch_size_test, max(len(part) for part in graphs.scored())),
            size,
            self.in_dim,
            c.hidden_dim,
            c.output_dim,
            training=False,
        )
        return max(step, scoring)


def _largest(graphs: Sequence[Data]) -> int:
    return max(int(g.num_nodes) for g in graphs)


class GLADC(GLADCDetector):
    """Reconstruction and contrast on dense blocks, scored by the distance of the two embeddings."""

    def __init__(self, in_dim: int, config: GLADCConfig | None = None) -> None:
        super().__init__()
        self.config = config or GLADCConfig()
        self.in_dim = in_dim
        c = self.config
        self.encoder = GLADCEncoder(in_dim, c.hidden_dim, c.output_dim, c.dropout)
        self.attribute_decoder = AttributeDecoder(in_dim, c.hidden_dim, c.output_dim, c.dropout)
        # UB-GOLD builds a second encoder (noise_NetG) and overwrites its weights before every use; building
        # one here draws its initial weights, so the RNG stream stays UB-GOLD's
        GLADCEncoder(in_dim, c.hidden_dim, c.output_dim, c.dropout)

    def reconstruct(
        self, nodes: torch.Tensor, adj: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(rebuilt features, rebuilt adjacency, node and graph embeddings of the rebuilt graph)."""
        x_rebuilt = self.attribute_decoder(nodes, adj)
        adj_rebuilt = torch.sigmoid(torch.matmul(nodes, nodes.permute(0, 2, 1)))
        nodes_again, graph_again = self.encoder(x_rebuilt, adj_rebuilt)
        return x_rebuilt, adj_rebuilt, nodes_again, graph_again

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        x, adj = self.blocks(batch)
        adj_target = structure_target(adj)
        nodes, graph = self.encoder(x, adj)
        _, graph_noisy = functional_call(self.encoder, perturbed_weights(self.encoder), (x, adj))
        x_rebuilt, adj_rebuilt, nodes_again, graph_again = self.reconstruct(nodes, adj)
        structure, attribute = reconstruction_costs(adj_target, adj_rebuilt, x, x_rebuilt)
        node = _node_error(nodes, nodes_again)
        graph_error = _graph_error(graph, graph_again).mean(dim=0)
        return structure + attribute + node + graph_error + info_nce(graph_noisy, graph)

    def score(self, batch: Batch) -> torch.Tensor:
        x, adj = self.blocks(batch)
        nodes, graph = self.encoder(x, adj)
        _, _, nodes_again, graph_again = self.reconstruct(nodes, adj)
        return _node_error(nodes, nodes_again) + _graph_error(graph, graph_again)

"""The part of PyGCL (``GCL`` 0.1.2) that UB-GOLD's two-stage detectors call, re-implemented over torch and PyG.

PyGCL itself does not import here: ``GCL/__init__`` imports ``GCL.utils``, which imports ``dgl``, and its
augmentors import the compiled ``torch_sparse`` (sdist only for this torch) for the random walk. This module
stands in for it, only when ``GCL`` is not installed (:func:`graphaudit.nn.ubgold.loader.activate` registers
:func:`modules` as ``GCL``, ``GCL.augmentors``, ``GCL.losses``, ``GCL.models``, ``GCL.eval``). It re-implements,
from PyGCL's source and that of torch_sparse 0.6.18 (the version UB-GOLD's README pins), exactly what
``GAOOD/nn/graphcl.py`` and ``GAOOD/detector/{GraphCL,InfoGraph}_{IF,OCSVM}.py`` call, with the same random
draws on the same devices and the same arithmetic:

- augmentors: ``Identity``, ``RandomChoice`` (``torch.randperm`` over the list), ``RWSampling`` (PyGCL's
  ``random_walk_subgraph`` over torch_sparse's ``random_walk`` op, CPU and CUDA kernels), ``NodeDropping``
  (a ``Bernoulli`` draw per node and PyG's ``subgraph``), ``FeatureMasking``, ``EdgeRemoving`` (PyG's
  ``dropout_adj`` mask, without its deprecation warning);
- losses: ``InfoNCE``, ``JSD`` (dot-product discriminator);
- models: ``DualBranchContrast`` (G2G mode) and ``SingleBranchContrast`` (G2L with a batch vector). The G2L
  positive mask is built as a one-hot of the batch vector rather than PyGCL's scatter of an N x N identity:
  the same 0/1 matrix without the N^2 memory;
- eval: ``get_split`` and ``SVMEvaluator`` are imported by UB-GOLD but never called; they refuse.

Anything else of PyGCL's API is absent, so a UB-GOLD change that needs more fails at import, not silently.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch.distributions.bernoulli import Bernoulli
from torch_geometric.utils import subgraph

__all__ = [
    "JSD",
    "DualBranchContrast",
    "EdgeRemoving",
    "FeatureMasking",
    "Graph",
    "Identity",
    "InfoNCE",
    "NodeDropping",
    "RWSampling",
    "RandomChoice",
    "SingleBranchContrast",
    "modules",
    "random_walk",
]


# ---- augmentors ----------------------------------------------------------------------------------------------


class Graph(NamedTuple):
    """PyGCL's augmentor currency: features, edges, optional edge weights."""

    x: torch.Tensor
    edge_index: torch.Tensor
    edge_weights: torch.Tensor | None

    def unfold(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        return self.x, self.edge_index, self.edge_weights


class Augmentor(ABC):
    """PyGCL's base: ``aug(x, edge_index, edge_weight=None)`` returns the augmented triple."""

    @abstractmethod
    def augment(self, g: Graph) -> Graph:
        """The augmented graph (each augmentor's own draws)."""

    def __call__(
        self, x: torch.Tensor, edge_index: torch.Tensor, edge_weight: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        return self.augment(Graph(x, edge_index, edge_weight)).unfold()


class Identity(Augmentor):
    def augment(self, g: Graph) -> Graph:
        return g


class RandomChoice(Augmentor):
    """Apply the first ``num_choices`` augmentors of a ``torch.randperm`` of the list, in that order."""

    def __init__(self, augmentors: list[Augmentor], num_choices: int) -> None:
        if num_choices > len(augmentors):
            raise ValueError(f"RandomChoice: num_choices {num_choices} exceeds the {len(augmentors)} augmentors")
        self.augmentors, self.num_choices = augmentors, num_choices

    def augment(self, g: Graph) -> Graph:
        for index in torch.randperm(len(self.augmentors))[: self.num_choices]:
            g = self.augmentors[index].augment(g)
        return g


def random_walk(rowptr: torch.Tensor, col: torch.Tensor, start: torch.Tensor, walk_length: int) -> torch.Tensor:
    """torch_sparse 0.6.18's ``random_walk`` op: walks ``(len(start), walk_length + 1)``, starts included.

    Step l of walk n from node v goes to ``col[rowptr[v] + int(u * (rowptr[v + 1] - rowptr[v]))]`` with u the
    float32 draw ``rand[n, l]`` of ``torch.rand(len(start), walk_length)`` (CPU kernel) or ``rand[l, n]`` of a
    ``(walk_length, len(start))`` draw on the device (CUDA kernel). Degree 0 is not special-cased, so a walk at a
    node without out-edges reads ``col[rowptr[v]]``; past the end of ``col`` the kernels read out of bounds, and
    this raises instead.
    """
    numel = start.numel()
    if start.is_cuda:
        draws = torch.rand(walk_length, numel, device=start.device)
    else:
        draws = torch.rand(numel, walk_length).T
    walks = [start]
    current = start
    for step in range(walk_length):
        row_start, row_end = rowptr[current], rowptr[current + 1]
        position = row_start + (draws[step] * (row_end - row_start)).to(torch.long)
        if bool((position >= col.numel()).any()):
            raise ValueError(
                "torch_sparse's random_walk would read past the end of its column array here "
                "(a walk reached a node after the last node with out-edges)"
            )
        current = col[position]
        walks.append(current)
    return torch.stack(walks, dim=1)


def _csr(row: torch.Tensor, col: torch.Tensor, num_nodes: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``SparseTensor(row=row, col=col, sparse_sizes=(N, N)).csr()[:2]``: entries sorted by (row, col)."""
    order = torch.argsort(row * num_nodes + col)
    counts = torch.bincount(row, minlength=num_nodes)
    rowptr = torch.cat([counts.new_zeros(1), torch.cumsum(counts, 0)])
    return rowptr, col[order]


class RWSampling(Augmentor):
    """PyGCL's random-walk subgraph: ``num_seeds`` uniform seeds over ``edge_index.max() + 1`` nodes (drawn on
    the CPU), walks of ``walk_length`` steps, and the subgraph induced on every visited node (nodes kept)."""

    def __init__(self, num_seeds: int, walk_length: int) -> None:
        self.num_seeds, self.walk_length = num_seeds, walk_length

    def augment(self, g: Graph) -> Graph:
        x, edge_index, edge_weights = g.unfold()
        num_nodes = edge_index.max().item() + 1
        rowptr, col = _csr(edge_index[0], edge_index[1], num_nodes)
        start = torch.randint(0, num_nodes, size=(self.num_seeds,), dtype=torch.long).to(edge_index.device)
        node_idx = random_walk(rowptr, col, start.flatten(), self.walk_length).view(-1)
        edge_index, edge_weights = subgraph(node_idx, edge_index, edge_weights)
        return Graph(x=x, edge_index=edge_index, edge_weights=edge_weights)


class NodeDropping(Augmentor):
    """Keep each of the ``edge_index.max() + 1`` nodes with probability ``1 - pn`` and the edges among them."""

    def __init__(self, pn: float) -> None:
        self.pn = pn

    def augment(self, g: Graph) -> Graph:
        x, edge_index, edge_weights = g.unfold()
        num_nodes = edge_index.max().item() + 1
        probs = torch.tensor([1.0 - self.pn for _ in range(num_nodes)])
        subset = Bernoulli(probs).sample().to(torch.bool).to(edge_index.device)
        edge_index, edge_weights = subgraph(subset, edge_index, edge_weights)
        return Graph(x=x, edge_index=edge_index, edge_weights=edge_weights)


class FeatureMasking(Augmentor):
    """Zero each feature column with probability ``pf`` (one CPU draw per column)."""

    def __init__(self, pf: float) -> None:
        self.pf = pf

    def augment(self, g: Graph) -> Graph:
        x, edge_index, edge_weights = g.unfold()
        drop_mask = torch.empty((x.size(1),), dtype=torch.float32).uniform_(0, 1) < self.pf
        x = x.clone()
        x[:, drop_mask.to(x.device)] = 0
        return Graph(x=x, edge_index=edge_index, edge_weights=edge_weights)


class EdgeRemoving(Augmentor):
    """Drop each stored edge with probability ``pe`` (PyG's ``dropout_adj``: draws on the edges' device)."""

    def __init__(self, pe: float) -> None:
        self.pe = pe

    def augment(self, g: Graph) -> Graph:
        x, edge_index, edge_weights = g.unfold()
        if self.pe > 0.0:
            mask = torch.rand(edge_index.size(1), device=edge_index.device) >= self.pe
            edge_index = edge_index[:, mask]
            edge_weights = None if edge_weights is None else edge_weights[mask]
        return Graph(x=x, edge_index=edge_index, edge_weights=edge_weights)


# ---- losses ----------------------------------------------------------------------------------------------------


def _similarity(h1: torch.Tensor, h2: torch.Tensor) -> torch.Tensor:
    h1 = F.normalize(h1)
    h2 = F.normalize(h2)
    return h1 @ h2.t()


class InfoNCE:
    """PyGCL's InfoNCE: ``-mean_i sum_j pos_ij (s_ij - log sum_k (pos + neg)_ik exp s_ik) / sum_j pos_ij``."""

    def __init__(self, tau: float) -> None:
        self.tau = tau

    def __call__(
        self, anchor: torch.Tensor, sample: torch.Tensor, pos_mask: torch.Tensor, neg_mask: torch.Tensor
    ) -> torch.Tensor:
        sim = _similarity(anchor, sample) / self.tau
        exp_sim = torch.exp(sim) * (pos_mask + neg_mask)
        log_prob = sim - torch.log(exp_sim.sum(dim=1, keepdim=True))
        loss = log_prob * pos_mask
        loss = loss.sum(dim=1) / pos_mask.sum(dim=1)
        return -loss.mean()


class JSD:
    """PyGCL's Jensen-Shannon estimator with a dot-product discriminator."""

    def __call__(
        self, anchor: torch.Tensor, sample: torch.Tensor, pos_mask: torch.Tensor, neg_mask: torch.Tensor
    ) -> torch.Tensor:
        num_neg = neg_mask.int().sum()
        num_pos = pos_mask.int().sum()
        similarity = anchor @ sample.t()
        e_pos = (np.log(2) - F.softplus(-similarity * pos_mask)).sum()
        e_pos /= num_pos
        neg_sim = similarity * neg_mask
        e_neg = (F.softplus(-neg_sim) + neg_sim - np.log(2)).sum()
        e_neg /= num_neg
        return e_neg - e_pos


# ---- contrast models -------------------------------------------------------------------------------------------


def _same_scale_masks(anchor: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PyGCL's ``SameScaleSampler`` and ``add_extra_mask`` without extra masks: identity positives."""
    pos_mask = torch.eye(anchor.size(0), dtype=torch.float32, device=anchor.device)
    return pos_mask, 1.0 - pos_mask


def _cross_scale_masks(sample: torch.Tensor, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PyGCL's ``CrossScaleSampler`` (multi-graph case): graph m's positives are its own nodes; ``batch.max() + 1``
    graphs, as its scatter of the identity sizes them."""
    pos_mask = F.one_hot(batch, int(batch.max()) + 1).T.to(torch.float32).to(sample.device)
    return pos_mask, 1.0 - pos_mask


class DualBranchContrast(torch.nn.Module):
    """PyGCL's two-view contrast; only the G2G mode UB-GOLD uses (mean of the loss in both directions)."""

    def __init__(self, loss: InfoNCE | JSD, mode: str, intraview_negs: bool = False) -> None:
        super().__init__()
        if mode != "G2G" or intraview_negs:
            raise NotImplementedError(
                "the PyGCL shim's DualBranchContrast has UB-GOLD's G2G mode without "
                f"intra-view negatives only, got mode {mode!r}, intraview_negs {intraview_negs}"
            )
        self.loss, self.mode = loss, mode

    def forward(self, g1: torch.Tensor, g2: torch.Tensor, batch: torch.Tensor | None = None) -> torch.Tensor:
        pos_mask1, neg_mask1 = _same_scale_masks(g1)
        pos_mask2, neg_mask2 = _same_scale_masks(g2)
        l1 = self.loss(anchor=g1, sample=g2, pos_mask=pos_mask1, neg_mask=neg_mask1)
        l2 = self.loss(anchor=g2, sample=g1, pos_mask=pos_mask2, neg_mask=neg_mask2)
        return (l1 + l2) * 0.5


class SingleBranchContrast(torch.nn.Module):
    """PyGCL's graph-to-node contrast (G2L) over a batch of graphs: ``loss(anchor=g, sample=h)``."""

    def __init__(self, loss: InfoNCE | JSD, mode: str, intraview_negs: bool = False) -> None:
        super().__init__()
        if mode != "G2L" or intraview_negs:
            raise NotImplementedError(
                "the PyGCL shim's SingleBranchContrast has UB-GOLD's G2L mode without "
                f"intra-view negatives only, got mode {mode!r}, intraview_negs {intraview_negs}"
            )
        self.loss, self.mode = loss, mode

    def forward(self, h: torch.Tensor, g: torch.Tensor, batch: torch.Tensor | None = None) -> torch.Tensor:
        if batch is None:
            # deliberate: the single-graph path needs explicit negatives (hn), which UB-GOLD never passes
            raise NotImplementedError("the PyGCL shim's SingleBranchContrast needs the batch vector (UB-GOLD's call)")
        pos_mask, neg_mask = _cross_scale_masks(h, batch)
        return self.loss(anchor=g, sample=h, pos_mask=pos_mask, neg_mask=neg_mask)


# ---- eval (imported by UB-GOLD's GraphCL modules, never called) ------------------------------------------------


def get_split(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("GCL.eval.get_split is imported by UB-GOLD but never called; the PyGCL shim lacks it")


class SVMEvaluator:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "GCL.eval.SVMEvaluator is imported by UB-GOLD but never used; the PyGCL shim lacks it"
        )


# ---- the GCL package as module objects -------------------------------------------------------------------------

_SUBMODULES = {
    "augmentors": (Graph, Augmentor, Identity, RandomChoice, RWSampling, NodeDropping, FeatureMasking, EdgeRemoving),
    "losses": (InfoNCE, JSD),
    "models": (DualBranchContrast, SingleBranchContrast),
    "eval": (get_split, SVMEvaluator),
}


def modules() -> dict[str, ModuleType]:
    """``{"GCL": package, "GCL.<sub>": module}`` holding the pieces above under PyGCL's names."""
    package = ModuleType("GCL", "PyGCL stand-in (graphaudit.nn.ubgold.pygcl_shim)")
    package.__path__ = []  # a package, so ``import GCL.losses`` finds the submodule in sys.modules
    package.__spec__ = ModuleSpec("GCL", None, is_package=True)  # importlib.util.find_spec refuses a None spec
    out = {"GCL": package}
    for name, members in _SUBMODULES.items():
        module = ModuleType(f"GCL.{name}", f"PyGCL's GCL.{name} stand-in (graphaudit.nn.ubgold.pygcl_shim)")
        module.__spec__ = ModuleSpec(f"GCL.{name}", None)
        for member in members:
            setattr(module, member.__name__, member)
        setattr(package, name, module)
        out[f"GCL.{name}"] = module
    return out

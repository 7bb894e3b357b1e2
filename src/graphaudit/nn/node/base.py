"""The interface every nodeground node classifier implements, the registry of the fifteen supervised methods,
and the resolution of a user's own class by import path ("bring your own method").

A configuration is one flat mapping. The training loop pops the reserved keys (:data:`RESERVED`: ``lr``,
``weight_decay``, ``patience``); every other key goes, unchanged, both to :meth:`NodeModel.prepare` and to
the constructor (through :meth:`NodeModel.build`). A method's hyperparameters are exactly the keyword-only
parameters of its constructor (:meth:`NodeModel.hyperparameters`); they have no Python defaults, since
``config/nodeground/methods.yaml`` is the one place defaults live.

Per trial the loop calls, in this order::

    prepared = cls.prepare(data, **hparams)          # once: the method's own transform (spec 3.4)
    model = cls.build(prepared, output_dim(C), **hparams)
    logits = model(prepared)                         # [n, out_dim] for every node, full batch
    loss = node_loss(logits[train], y[train])        # + model.regularization() in training mode, if any

Every random operation inside a model (dropout, NodeFormer's random features and Gumbel noise) draws from
torch's global RNG, which the loop seeds and isolates; no model uses numpy's or Python's RNG.
"""

from __future__ import annotations

import abc
import inspect
import pkgutil
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch_geometric.data import Data

__all__ = ["METHODS", "RESERVED", "NodeModel", "node_loss", "output_dim", "resolve_method"]

RESERVED = ("lr", "weight_decay", "patience")
"""The training keys of a configuration, popped by the loop; never constructor arguments."""

METHODS: dict[str, str] = {
    "MLP": "graphaudit.nn.node.mlp:MLP",
    "GCN": "graphaudit.nn.node.gcn:GCN",
    "SGC": "graphaudit.nn.node.sgc:SGC",
    "GAT": "graphaudit.nn.node.gat:GAT",
    "GATv2": "graphaudit.nn.node.gatv2:GATv2",
    "GCNII": "graphaudit.nn.node.gcnii:GCNII",
    "GPRGNN": "graphaudit.nn.node.gprgnn:GPRGNN",
    "FAGCN": "graphaudit.nn.node.fagcn:FAGCN",
    "LINKX": "graphaudit.nn.node.linkx:LINKX",
    "APPNP": "graphaudit.nn.node.appnp:APPNP",
    "GraphSAGE": "graphaudit.nn.node.graphsage:GraphSAGE",
    "Polynormer": "graphaudit.nn.node.polynormer:Polynormer",
    "NAGphormer": "graphaudit.nn.node.nagphormer:NAGphormer",
    "NodeFormer": "graphaudit.nn.node.nodeformer:NodeFormer",
    "SGFormer": "graphaudit.nn.node.sgformer:SGFormer",
}
"""Method name (as the records spell it) -> ``module:Class`` of its :class:`NodeModel`."""


class NodeModel(torch.nn.Module, abc.ABC):
    """A full-batch node classifier: logits for every node of one graph.

    ``out_dim`` is 1 for a binary task (one logit, BCE) and the class count otherwise (CE); see
    :func:`output_dim` and :func:`node_loss`.
    """

    optimizer: ClassVar[str] = "adam"
    """``"adam"`` or ``"adamw"`` (NAGphormer); the loop builds it with the configuration's lr and weight decay."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.in_dim = in_dim
        self.out_dim = out_dim

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        """The method's own transform of the shared graph (spec 3.4), run once per trial: a shallow copy of
        ``data`` with the method's extra attributes; ``data`` itself is never changed. Default: ``data``."""
        return data

    @classmethod
    def build(cls, data: Data, out_dim: int, **hparams: object) -> NodeModel:
        """The model for the prepared ``data``; methods whose parameters depend on the graph (LINKX: one
        weight row per node) override this to pass what they need."""
        return cls(data.num_node_features, out_dim, **hparams)

    @classmethod
    def hyperparameters(cls) -> tuple[str, ...]:
        """The method's hyperparameter names: the keyword-only parameters of its constructor."""
        params = inspect.signature(cls.__init__).parameters.values()
        return tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)

    @abc.abstractmethod
    def forward(self, data: Data) -> torch.Tensor:
        """Logits ``[num_nodes, out_dim]`` for every node of the prepared graph."""

    def regularization(self) -> torch.Tensor | None:
        """An extra term of the training loss from the last training-mode forward (NodeFormer's edge
        regularizer), or None. The loop adds it to the training loss only, never to a selection loss."""
        return None


def output_dim(num_classes: int) -> int:
    """1 for a binary task (one logit), else the class count."""
    if num_classes < 2:
        raise ValueError(f"a node-classification task needs at least 2 classes, got {num_classes}")
    return 1 if num_classes == 2 else num_classes


def node_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean BCE on one logit (``logits`` of width 1, ``y`` in {0, 1}) or mean CE over the classes."""
    if logits.size(-1) == 1:
        return F.binary_cross_entropy_with_logits(logits.squeeze(-1), y.to(logits.dtype))
    return F.cross_entropy(logits, y)


def resolve_method(name_or_import_path: str) -> type[NodeModel]:
    """The :class:`NodeModel` class of a registered method name (:data:`METHODS`) or of a user's
    ``"package.module:Class"`` import path."""
    path = METHODS.get(name_or_import_path, name_or_import_path)
    if ":" not in path:
        raise KeyError(
            f"unknown node method {name_or_import_path!r}: use one of {sorted(METHODS)} "
            "or an import path 'package.module:Class'"
        )
    cls = pkgutil.resolve_name(path)
    if not (isinstance(cls, type) and issubclass(cls, NodeModel)):
        raise TypeError(f"{path} is not a subclass of graphaudit.nn.node.NodeModel")
    return cls

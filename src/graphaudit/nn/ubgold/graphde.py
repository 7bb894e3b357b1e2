"""UB-GOLD's own GraphDE module (``GAOOD/nn/graphde.py`` at c940457) as a
:class:`~graphaudit.nn.trainer.Detector` (backend ``ubgold``), with the same :class:`GraphDEConfig` as the own
backend (:mod:`graphaudit.nn.graphde`).

The logic of UB-GOLD's detector file that wraps the module (``GAOOD/detector/GraphDE.py``) is reproduced here
line by line, each piece marked with the UB-GOLD line it stands for:

- ``__init__`` stores every option as a 1-tuple (``self.bn = bn,`` ...) and ``init_model`` passes those tuples
  to the module, which reads ``dropedge[0]``, ``neg_ratio[0]``, ``prior_ratio[0]``, ``n_train_data[0]`` and
  hands ``bn`` (the tuple ``(None,)``, truthy) to the backbone, so BatchNorm is on (spec U14); the options
  ``benchmark/utils.py``'s ``init_model`` does not set keep the detector's defaults (:data:`DETECTOR_DEFAULTS`);
- ``forward_model``: ``loss, score = self.model.loss_func(data)``, the loss backpropagated, the score discarded;
- ``decision_function``: ``self.model.infer_e_gx(data.x, data.edge_index, data.batch)``, then the config's
  ``orientation`` (:func:`graphaudit.nn.graphde.oriented`, A5) exactly as the own backend applies it;
- ``fit``'s one optimiser step per epoch and its eval mode after the first evaluation are the trainer's
  (:attr:`~graphaudit.nn.trainer.Detector.one_step_per_epoch`,
  :attr:`~graphaudit.nn.trainer.Detector.train_mode_until_first_evaluation`); its training labels ``y = 0`` are
  the loader's, set by :func:`graphaudit.nn.graphde.with_normal_labels`.

Marked departures, none of which changes a number: ``n_train_data`` (the rows of GraphDE-V's environment
logits ``e_logits``, which the GraphDE-A loss never reads, so they get no gradient and Adam skips them) is
:data:`E_LOGITS_ROWS` because the adapter is built before the training graphs are known; the best-checkpoint
``torch.save`` / ``torch.load`` and the early stop of ``fit`` belong to UB-GOLD's selection, which the harness
replays from the records (spec App B.1); PyG's ``dropout_adj`` deprecation warning (raised on every backbone
layer) is silenced. UB-GOLD's modules import ``torch_scatter`` (the loader's shim when it is not installed) and
``texttable`` (a dependency of igraph, installed with the project).
"""

from __future__ import annotations

import warnings

import torch
from torch_geometric.data import Batch

from graphaudit.nn.graphde import GraphDEConfig, GraphDEDetector, oriented
from graphaudit.nn.ubgold import loader

__all__ = ["DETECTOR_DEFAULTS", "E_LOGITS_ROWS", "GraphDE"]

DETECTOR_DEFAULTS = {
    "backbone": "GCN",
    "dropedge": 0.0,
    "bn": None,
    "dropnode": 0.0,
    "tem": 0.5,
    "sample": 4,
    "order": 5,
    "lam": 1.0,
    "grand": False,
    "graphde_a": True,
    "graphde_v": False,
}
"""``GAOOD/detector/GraphDE.py``'s constructor defaults for the options ``benchmark/utils.py`` never sets
(``grand=False`` it passes explicitly)."""
E_LOGITS_ROWS = 1
"""Rows of the unused ``e_logits`` (UB-GOLD: the number of training graphs); any count gives the same run."""


def _wrapped(config: GraphDEConfig) -> dict[str, object]:
    """The module's keyword arguments as ``GraphDE.__init__`` stores and ``init_model`` passes them."""
    options = {
        **DETECTOR_DEFAULTS,
        "n_train_data": E_LOGITS_ROWS,
        "prior_ratio": config.prior_ratio,
        "neg_ratio": config.neg_ratio,
    }
    # GAOOD/detector/GraphDE.py __init__: self.n_train_data = n_train_data, ... self.graphde_v = graphde_v,
    wrapped = {name: (value,) for name, value in options.items() if name != "backbone"}
    # init_model: the backbone is stored as given (DeepDetector's self.backbone), the rest as 1-tuples
    return {"backbone": options["backbone"], **wrapped}


class GraphDE(GraphDEDetector):
    """``GAOOD.nn.graphde.GraphDE`` trained and scored as ``GAOOD/detector/GraphDE.py`` does (module docstring)."""

    def __init__(self, in_dim: int, config: GraphDEConfig | None = None) -> None:
        super().__init__()
        self.config = config or GraphDEConfig()
        if not self.config.bn:
            raise ValueError(
                "UB-GOLD's GraphDE always uses BatchNorm (self.bn = bn, makes any value a truthy "
                "tuple, spec U14); bn false exists only in the own backend"
            )
        module = loader.import_module("nn.graphde")
        # init_model: graphde.GraphDE(in_dim=..., hid_dim=..., num_layers=..., dropout=..., backbone=..., ...)
        self.model = module.GraphDE(
            in_dim=in_dim,
            hid_dim=self.config.hidden_dim,
            num_layers=self.config.num_layer,
            dropout=self.config.dropout,
            **_wrapped(self.config),
        )

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*dropout_adj.*", category=UserWarning)
            # forward_model: loss, score = self.model.loss_func(data); return loss, score (fit drops the score)
            loss, _ = self.model.loss_func(batch)
        return loss

    def score(self, batch: Batch) -> torch.Tensor:
        # decision_function: score_epoch = self.model.infer_e_gx(data.x, data.edge_index, data.batch)
        score = self.model.infer_e_gx(batch.x, batch.edge_index, batch.batch)
        return oriented(score, self.config.orientation)  # A5 (the own backend's, identically)

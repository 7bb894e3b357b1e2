"""UB-GOLD's GraphCL-IF/OCSVM and InfoGraph-IF/OCSVM run as :class:`~graphaudit.nn.trainer.Detector` s (backend
``ubgold``).

Each adapter builds its models with UB-GOLD's own code: the detector class of
``GAOOD/detector/{GraphCL,InfoGraph}_{IF,OCSVM}.py`` (its ``__init__`` makes the sklearn outlier model from the
options, its ``init_model`` the encoder from ``GAOOD/nn/{graphcl,Infograph}.py``, the augmentors and the contrast
model), then restates, line for line, the per-batch body of that class's ``fit`` loop (forward, outlier-model fit
on this batch's embeddings, loss) and its scoring lines (``-detector.decision_function`` of the encoder's graph
embeddings). The loop itself is the project's trainer. PyGCL comes from :mod:`graphaudit.nn.ubgold.pygcl_shim`
where it is not installed.

Marked departures from constructing the class as ``mymain.py`` does: ``build_save_path`` is skipped (it creates
``model_save/`` folders inside the verified tree and empties them; checkpoints are the trainer's), and the
detector modules' import-time ``warnings.warn = warn`` (which silences every warning of the process) is undone
after import. ``data.x is None`` never holds here (the project's graphs always carry features), so the ones
UB-GOLD substitutes are not restated. The sklearn model is not part of the state dict: the trainer resumes at an
epoch start, and the next training batch refits it before anything is scored.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Batch

from graphaudit.nn.trainer import BatchLossDetector
from graphaudit.nn.two_stage import (
    GraphCLIFConfig,
    GraphCLOCSVMConfig,
    IFConfig,
    InfoGraphIFConfig,
    InfoGraphOCSVMConfig,
    OCSVMConfig,
    check_infograph_ocsvm_layers,
)
from graphaudit.nn.ubgold import loader
from graphaudit.nn.ubgold.detectors import _args

__all__ = ["GraphCLIF", "GraphCLOCSVM", "InfoGraphIF", "InfoGraphOCSVM"]


@contextlib.contextmanager
def _warnings_kept() -> Iterator[None]:
    """Undo the detector modules' import-time replacement of ``warnings.warn`` by a no-op."""
    warn = warnings.warn
    try:
        yield
    finally:
        warnings.warn = warn


def _skip_save_path(self: Any) -> None:
    """Stands in for UB-GOLD's ``build_save_path`` (module docstring)."""


def ubgold_detector(name: str, in_dim: int, config: IFConfig | OCSVMConfig) -> Any:
    """UB-GOLD's detector object ``GAOOD.detector.<name>.<name>``, constructed as ``benchmark/utils.py`` does from
    the options and initialised by its own ``init_model`` on the run's device."""
    with _warnings_kept():
        cls = getattr(loader.import_module(f"detector.{name}"), name)
    quiet = type(name, (cls,), {"build_save_path": _skip_save_path})
    kind = "IF" if isinstance(config, IFConfig) else "OCSVM"
    options = (
        {"IF_n_trees": config.IF_n_trees, "IF_sample_ratio": config.IF_sample_ratio}
        if kind == "IF"
        else {"gamma": config.gamma, "nu": config.nuOCSVM}
    )
    detector = quiet(args=_args(config, dataset_num_features=in_dim), detector=kind, **options)
    detector.device = loader.current_device()
    detector.init_model()
    return detector


class _UBGoldTwoStage(BatchLossDetector):
    """UB-GOLD's encoder and contrast model as submodules, its sklearn detector as the outlier stage."""

    def __init__(self, name: str, in_dim: int, config: IFConfig | OCSVMConfig) -> None:
        super().__init__()
        self.config = config
        built = ubgold_detector(name, in_dim, config)
        self.encoder_model = built.encoder_model
        self.contrast_model = built.contrast_model
        self.outlier = built.detector
        self._fitted = False

    def _fit(self, g: torch.Tensor) -> None:
        self.outlier.fit(g.cpu().detach().numpy())
        self._fitted = True

    def _scores(self, g: torch.Tensor) -> torch.Tensor:
        if not self._fitted:
            raise RuntimeError(
                f"{type(self).__name__}: UB-GOLD's detector is fitted on every training batch; "
                "score() needs a loss() call in training mode first"
            )
        anomaly_scores = -self.outlier.decision_function(g.cpu().detach().numpy())
        return torch.from_numpy(np.asarray(anomaly_scores)).to(g.device)


class _GraphCL(_UBGoldTwoStage):
    """``GraphCL_{IF,OCSVM}.fit``'s batch body and scoring lines."""

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        _, g, _, _, g1, g2 = self.encoder_model(batch.x, batch.edge_index, batch.batch)
        if self.training:
            self._fit(g)
        g1, g2 = [self.encoder_model.encoder.project(g) for g in [g1, g2]]
        return self.contrast_model(g1=g1, g2=g2, batch=batch.batch)

    def score(self, batch: Batch) -> torch.Tensor:
        _, g, _, _, _, _ = self.encoder_model(batch.x, batch.edge_index, batch.batch)
        return self._scores(g)


class _InfoGraph(_UBGoldTwoStage):
    """``InfoGraph_{IF,OCSVM}.fit``'s batch body (fit on projected embeddings) and scoring lines (unprojected)."""

    batch_independent_scores = True

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        z, g = self.encoder_model(batch.x, batch.edge_index, batch.batch)
        z, g = self.encoder_model.project(z, g)
        if self.training:
            self._fit(g)
        return self.contrast_model(h=z, g=g, batch=batch.batch)

    def score(self, batch: Batch) -> torch.Tensor:
        _z, g = self.encoder_model(batch.x, batch.edge_index, batch.batch)
        return self._scores(g)


class GraphCLIF(_GraphCL):
    """``GAOOD.detector.GraphCL_IF``."""

    def __init__(self, in_dim: int, config: GraphCLIFConfig | None = None) -> None:
        super().__init__("GraphCL_IF", in_dim, config or GraphCLIFConfig())


class GraphCLOCSVM(_GraphCL):
    """``GAOOD.detector.GraphCL_OCSVM``."""

    def __init__(self, in_dim: int, config: GraphCLOCSVMConfig | None = None) -> None:
        super().__init__("GraphCL_OCSVM", in_dim, config or GraphCLOCSVMConfig())


class InfoGraphIF(_InfoGraph):
    """``GAOOD.detector.InfoGraph_IF``."""

    def __init__(self, in_dim: int, config: InfoGraphIFConfig | None = None) -> None:
        super().__init__("InfoGraph_IF", in_dim, config or InfoGraphIFConfig())


class InfoGraphOCSVM(_InfoGraph):
    """``GAOOD.detector.InfoGraph_OCSVM`` (heads ``hidden_dim * 2`` wide: num_layer 2 only, refused up front)."""

    def __init__(self, in_dim: int, config: InfoGraphOCSVMConfig | None = None) -> None:
        config = config or InfoGraphOCSVMConfig()
        check_infograph_ocsvm_layers(config)
        super().__init__("InfoGraph_OCSVM", in_dim, config)

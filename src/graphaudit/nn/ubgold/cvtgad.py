"""UB-GOLD's own CVTGAD module (``GAOOD.nn.cvtgad``) run as a :class:`~graphaudit.nn.trainer.Detector` (backend
``ubgold``), with the logic of ``GAOOD/detector/CVTGAD.py`` reproduced line by line.

``init_model``, ``forward_model``, the ``is_adaptive`` lines of ``fit`` (loss weights, the per-graph loss parts
collected each epoch, their ``np.mean`` / ``np.std``, the normalised evaluation score) and ``decision_function``'s
raw score are copied here in UB-GOLD's expressions; the training loop itself is the project's trainer. Marked
changes (``# change:``):

- ``args.gpu`` is the index of the run's CUDA device (0 on CPU), so UB-GOLD's
  ``torch.device('cuda:' + str(args.gpu) if torch.cuda.is_available() else 'cpu')`` is a valid device;
  ``Cross_Attention``'s ``k`` (a plain tensor attribute placed on that device, which ``.to`` does not move) is
  then moved to the run's device.
- The epoch loop's locals (``loss_g_all``, ``mean_g``, ``std_g``, ...) live on the detector: the lists until
  :meth:`end_epoch`, the statistics in buffers (float64), so a resumed run continues with them.
- ``fit`` scores with the normalised score and ``decision_function`` with the raw one; both are returned, as
  ``score`` and ``raw_score`` (:attr:`~graphaudit.nn.trainer.Detector.reported_score`, spec U15 / A4).
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import torch
from torch_geometric.data import Batch

from graphaudit.nn.cvtgad import CVTGADConfig, CVTGADDetector
from graphaudit.nn.ubgold import loader

__all__ = ["CVTGAD"]


def _gpu_index(device: torch.device) -> int:
    """The CUDA index UB-GOLD's ``'cuda:' + str(args.gpu)`` needs: the run's device's, else 0."""
    return device.index or 0


class CVTGAD(CVTGADDetector):
    """``GAOOD.nn.cvtgad.CVTGAD`` trained and scored as ``GAOOD/detector/CVTGAD.py`` does."""

    def __init__(self, in_dim: int, config: CVTGADConfig | None = None) -> None:
        super().__init__()
        self.config = config or CVTGADConfig()
        device = loader.current_device()
        self.args = SimpleNamespace(
            **dataclasses.asdict(self.config), dataset_num_features=in_dim, gpu=_gpu_index(device)
        )  # change: the run's device index
        # CVTGAD.init_model
        self.args.dg_dim = self.args.rw_dim
        self.model = loader.import_module("nn.cvtgad").CVTGAD(
            hidden_dim=self.args.hidden_dim,
            num_gc_layers=self.args.num_layer,
            feat_dim=self.args.dataset_num_features,
            str_dim=self.args.dg_dim + self.args.rw_dim,
            args=self.args,
        )
        for block in (self.model.Cross_Attention_g, self.model.Cross_Attention_n):
            block.k = block.k.to(device)  # change: UB-GOLD's k follows the run's device
        # change: fit's per-epoch locals, kept across epochs (buffers: mean_g, std_g, mean_n, std_n; epochs done)
        self.register_buffer("statistics", torch.full((4,), float("nan"), dtype=torch.float64))
        self.register_buffer("epochs", torch.zeros((), dtype=torch.int64))
        self.loss_g_all: list[float] = []
        self.loss_n_all: list[float] = []

    def forward_model(self, dataset: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """CVTGAD.forward_model, verbatim."""
        g_f, g_s, n_f, n_s = self.model(dataset.x, dataset.x_s, dataset.edge_index, dataset.batch, dataset.num_graphs)
        loss_g = self.model.calc_loss_g(g_f, g_s)
        loss_n = self.model.calc_loss_n(n_f, n_s, dataset.batch)
        return loss_g, loss_n

    def _moments(self) -> tuple[np.float64, np.float64, np.float64, np.float64]:
        if int(self.epochs) == 0:
            raise ValueError("CVTGAD's adaptive score needs the statistics of one training epoch; train first")
        mean_g, std_g, mean_n, std_n = (np.float64(v) for v in self.statistics.tolist())
        return mean_g, std_g, mean_n, std_n

    def _epoch_weights(self) -> tuple[float, float]:
        """CVTGAD.fit, the head of each epoch (``epoch == 1``: no epoch closed yet)."""
        args = self.args
        if int(self.epochs) == 0:
            weight_g, weight_n = 1, 1
        else:
            _, std_g, _, std_n = self._moments()
            weight_g, weight_n = std_g**args.alpha, std_n**args.alpha
            weight_sum = (weight_g + weight_n) / 2
            weight_g, weight_n = weight_g / weight_sum, weight_n / weight_sum
        return weight_g, weight_n

    def objective(self, data: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """CVTGAD.fit, one training batch: (per-graph weighted losses for the records, the loss it backpropagates)."""
        args = self.args
        loss_g, loss_n = self.forward_model(data)
        if args.is_adaptive:
            weight_g, weight_n = self._epoch_weights()
            loss = weight_g * loss_g.mean() + weight_n * loss_n.mean()
            if self.training:  # change: only the trainer's training batches feed the epoch's statistics
                self.loss_g_all = self.loss_g_all + loss_g.detach().cpu().tolist()
                self.loss_n_all = self.loss_n_all + loss_n.detach().cpu().tolist()
            per_graph = weight_g * loss_g + weight_n * loss_n
        else:
            loss = loss_g.mean() + loss_n.mean()
            per_graph = loss_g + loss_n
        return per_graph.detach(), loss

    def end_epoch(self) -> None:
        """CVTGAD.fit, the tail of each epoch."""
        args = self.args
        if args.is_adaptive:
            mean_g, std_g = np.mean(self.loss_g_all), np.std(self.loss_g_all)
            mean_n, std_n = np.mean(self.loss_n_all), np.std(self.loss_n_all)
            self.statistics.copy_(torch.tensor([mean_g, std_g, mean_n, std_n], dtype=torch.float64))
            self.epochs += 1
            self.loss_g_all, self.loss_n_all = [], []

    def scores(self, data: Batch) -> dict[str, torch.Tensor]:
        """``score``: CVTGAD.fit's evaluation score; ``raw_score``: CVTGAD.decision_function's."""
        args = self.args
        y_score_g, y_score_n = self.forward_model(data)
        if args.is_adaptive:
            mean_g, std_g, mean_n, std_n = self._moments()
            y_score = (y_score_g - mean_g) / std_g + (y_score_n - mean_n) / std_n
        else:
            y_score = y_score_g + y_score_n
        return {"score": y_score, "raw_score": y_score_g + y_score_n}

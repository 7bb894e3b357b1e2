"""UB-GOLD's GLADC (``GAOOD/nn/gladc.py`` and ``detector/GLADC.py`` at c940457) as a trainer detector (backend
``ubgold``).

UB-GOLD's ``NetGe`` and second ``Encoder`` (``noise_NetG``) are built as ``GLADC.init_model`` builds them, and
the training loss is UB-GOLD's own ``GLADC.forward_model`` (with its ``gen_ran_output``), called with this
adapter in the place of UB-GOLD's detector object: it reads ``NetGe``, ``noise_NetG``, ``device`` and
``gen_ran_output`` from it, which the adapter provides. Marked departures:

- The dense blocks are :func:`graphaudit.nn.glocalkd.dense_blocks` and
  :func:`graphaudit.nn.gladc.structure_target` (UB-GOLD's ``process_graph`` needs graph labels and only pads);
- the score re-states the evaluation loop of ``GLADC.fit`` line for line (it is not a function there), on
  UB-GOLD's ``NetGe``;
- ``noise_NetG``'s parameters do not require gradients: UB-GOLD's optimiser holds ``NetGe``'s only, and its
  weights are overwritten before every use, so this changes no value; it keeps the trainer's optimiser off
  them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Batch

from graphaudit.nn.gladc import GLADCConfig, GLADCDetector, structure_target
from graphaudit.nn.ubgold import loader

__all__ = ["GLADC"]


class GLADC(GLADCDetector):
    """``GAOOD.nn.gladc.NetGe`` trained by ``GAOOD.detector.GLADC.GLADC.forward_model``."""

    def __init__(self, in_dim: int, config: GLADCConfig | None = None) -> None:
        super().__init__()
        self.config = config or GLADCConfig()
        self.in_dim = in_dim
        module = loader.import_module("nn.gladc")
        self._detector = loader.import_module("detector.GLADC").GLADC
        shape = {
            "feat_size": in_dim,
            "hiddendim": self.config.hidden_dim,
            "outputdim": self.config.output_dim,
            "dropout": self.config.dropout,
            "batch": None,
        }  # ``batch`` is stored, never read
        self.NetGe = module.NetGe(**shape)
        self.noise_NetG = module.Encoder(**shape)
        self.noise_NetG.requires_grad_(False)

    @property
    def device(self) -> torch.device:
        """UB-GOLD's ``self.device``: where ``forward_model`` sends the blocks (the run's device)."""
        return loader.current_device()

    def gen_ran_output(
        self, h0: torch.Tensor, adj: torch.Tensor, model: torch.nn.Module, vice_model: torch.nn.Module
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return self._detector.gen_ran_output(self, h0, adj, model, vice_model)

    def batch_loss(self, batch: Batch) -> torch.Tensor:
        x, adj = self.blocks(batch)
        return self._detector.forward_model(self, adj, structure_target(adj), x)

    def score(self, batch: Batch) -> torch.Tensor:
        h0, adj = self.blocks(batch)
        x1_r, feat_0 = self.NetGe.shared_encoder(h0, adj)
        _, _, x2, feat_1 = self.NetGe(x1_r, adj)
        loss_node = torch.mean(F.mse_loss(x1_r, x2, reduction="none"), dim=2).mean(dim=1).mean(dim=0)
        loss_graph = F.mse_loss(feat_0, feat_1, reduction="none").mean(dim=1)
        return loss_node + loss_graph

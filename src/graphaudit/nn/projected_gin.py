"""The GIN encoder of UB-GOLD's OCGIN and OCGTL (``GAOOD/nn/encoder.py`` ``myGIN`` at c940457), rebuilt,
and the encoder options both detectors share (:class:`GINConfig`).

Per layer: a GIN convolution (two-layer MLP, ``train_eps`` equal to ``bias``), the graph norm below when
``norm_layer`` is ``gn``, ReLU, then a per-layer projection MLP (hidden -> hidden -> ``out_dim``) whose
output is pooled; the embedding is the concatenation of the pooled projections of every layer.

:class:`BatchGraphNorm` is UB-GOLD's GraphNorm, which differs from PyG's: its bias is frozen at zero
(``requires_grad=False``) and its epsilon is 1e-8 inside the square root (PyG: trainable bias, 1e-5).

Modules are built and re-initialised in UB-GOLD's order (every layer's MLP, conv, norm and projection;
then ``reset_parameters`` over norms, convs, projections), so under the same seed the weights equal
UB-GOLD's draw for draw; parameter names match UB-GOLD's, so state dicts load across.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, global_add_pool, global_mean_pool
from torch_geometric.utils import scatter

__all__ = [
    "NORMS",
    "BatchGraphNorm",
    "GINConfig",
    "ProjectedGIN",
    "ProjectionMLP",
    "check_gin_options",
    "projected_gin",
]

_POOLS = {"add": global_add_pool, "mean": global_mean_pool}
NORMS = ("gn", "none")


@dataclass(frozen=True)
class GINConfig:
    """The GIN encoder options OCGIN and OCGTL share; defaults are UB-GOLD's (``mymain.py``: hidden_dim 16,
    num_layer 5; gn, add, no bias)."""

    hidden_dim: int = 16
    num_layer: int = 5
    norm_layer: str = "gn"
    aggregation: str = "add"
    bias: bool = False


def check_gin_options(norm_layer: str, aggregation: str, num_layer: int, pools: Mapping[str, object]) -> None:
    """UB-GOLD's GIN options: ``norm_layer`` gn or none, ``aggregation`` one of ``pools``, at least one layer."""
    if norm_layer not in NORMS:
        raise ValueError(f"norm_layer must be one of {NORMS}, got {norm_layer!r}")
    if aggregation not in pools:
        raise ValueError(f"aggregation must be one of {sorted(pools)}, got {aggregation!r}")
    if num_layer < 1:
        raise ValueError(f"num_layer must be at least 1, got {num_layer}")


class BatchGraphNorm(nn.Module):
    """x -> weight * (x - scale * mean_g) / sqrt(var_g + 1e-8) + bias, statistics per graph; bias frozen at 0."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim), requires_grad=False)
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, batch: Batch) -> torch.Tensor:
        # statistics spread back with repeat_interleave, as UB-GOLD does: indexing would give the same values
        # but sum the gradients in another order, and runs would drift apart in the last bits
        graphs, sizes = int(batch.batch.max()) + 1, batch.ptr[1:] - batch.ptr[:-1]
        mean = scatter(x, batch.batch, dim=0, dim_size=graphs, reduce="mean").repeat_interleave(sizes, 0)
        centred = x - mean * self.scale
        var = scatter(centred.pow(2), batch.batch, dim=0, dim_size=graphs, reduce="mean")
        return self.weight * centred / torch.sqrt(var + 1e-8).repeat_interleave(sizes, 0) + self.bias

    def reset_parameters(self) -> None:
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)
        nn.init.ones_(self.scale)


class ProjectionMLP(nn.Module):
    """lin2(relu(lin1(z)))."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, bias: bool) -> None:
        super().__init__()
        self.lin1 = nn.Linear(in_dim, hidden, bias=bias)
        self.lin2 = nn.Linear(hidden, out_dim, bias=bias)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.lin2(F.relu(self.lin1(z)))

    def reset_parameters(self) -> None:
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()


class ProjectedGIN(nn.Module):
    """``num_layer`` GIN layers, each followed by a projection MLP and pooling; output ``num_layer * out_dim``."""

    def __init__(
        self, in_dim: int, hidden_dim: int, out_dim: int, num_layer: int, norm_layer: str, aggregation: str, bias: bool
    ) -> None:
        super().__init__()
        check_gin_options(norm_layer, aggregation, num_layer, _POOLS)
        self.pool = _POOLS[aggregation]
        self.use_norm = norm_layer == "gn"
        nns, convs, norms, projs = [], [], [], []
        for layer in range(num_layer):
            width = in_dim if layer == 0 else hidden_dim
            nns.append(
                nn.Sequential(
                    nn.Linear(width, hidden_dim, bias=bias), nn.ReLU(), nn.Linear(hidden_dim, hidden_dim, bias=bias)
                )
            )
            convs.append(GINConv(nns[-1], train_eps=bias))
            if self.use_norm:
                norms.append(BatchGraphNorm(hidden_dim))
            projs.append(ProjectionMLP(hidden_dim, hidden_dim, out_dim, bias))
        self.nns = nn.ModuleList(nns)
        self.convs = nn.ModuleList(convs)
        self.norms = nn.ModuleList(norms)
        self.projs = nn.ModuleList(projs)
        self.out_dim = num_layer * out_dim

    def forward(self, batch: Batch) -> torch.Tensor:
        """Graph embeddings, shape ``(num_graphs, out_dim)``."""
        x, pooled = batch.x, []
        for layer, conv in enumerate(self.convs):
            x = conv(x, batch.edge_index)
            if self.use_norm:
                x = self.norms[layer](x, batch)
            x = F.relu(x)
            pooled.append(self.pool(self.projs[layer](x), batch.batch))
        return torch.cat(pooled, dim=-1)

    def reset_parameters(self) -> None:
        for module in (*self.norms, *self.convs, *self.projs):
            module.reset_parameters()


def projected_gin(in_dim: int, config: GINConfig) -> ProjectedGIN:
    """UB-GOLD's ``myGIN(dim_features, hidden_dim, args)``: the projection width is ``hidden_dim`` too."""
    return ProjectedGIN(
        in_dim,
        config.hidden_dim,
        config.hidden_dim,
        config.num_layer,
        config.norm_layer,
        config.aggregation,
        config.bias,
    )

"""The part of ``torch_scatter``'s API that UB-GOLD calls, over ``torch_geometric.utils.scatter``.

UB-GOLD imports the compiled ``torch_scatter`` extension; torch-geometric 2.x computes the same reductions
in plain torch. Used only when ``torch_scatter`` is not installed. ``scatter_max`` keeps torch_scatter's
gradient (to the first maximal element, :mod:`graphaudit.nn.scatter_max`), which UB-GOLD's SIGNET needs:
it divides the maximised tensor in place afterwards.
"""

from __future__ import annotations

import torch
from torch_geometric.utils import scatter as _scatter

from graphaudit.nn.scatter_max import scatter_max as _scatter_max

__all__ = ["scatter", "scatter_max"]


def scatter(
    src: torch.Tensor,
    index: torch.Tensor,
    dim: int = -1,
    out: torch.Tensor | None = None,
    dim_size: int | None = None,
    reduce: str = "sum",
) -> torch.Tensor:
    """``torch_scatter.scatter`` without ``out`` (UB-GOLD never passes one)."""
    if out is not None:
        # deliberate: UB-GOLD at c940457 never passes out=; refusing beats silently ignoring it
        raise NotImplementedError("the torch_scatter shim does not support out= (UB-GOLD never passes it)")
    return _scatter(src, index, dim=dim, dim_size=dim_size, reduce=reduce)


def scatter_max(
    src: torch.Tensor, index: torch.Tensor, dim: int = -1, dim_size: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(maxima, argmax) along the last dimension, the only form UB-GOLD calls."""
    if dim not in (-1, src.dim() - 1):
        # deliberate: UB-GOLD's two scatter_max calls (SIGNET) reduce a (1, n) tensor along its last dimension
        raise NotImplementedError(
            "the torch_scatter shim's scatter_max reduces the last dimension only, the one form UB-GOLD calls"
        )
    return _scatter_max(src, index, dim_size)

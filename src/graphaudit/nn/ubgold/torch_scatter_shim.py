"""The part of ``torch_scatter``'s API that UB-GOLD calls, over ``torch_geometric.utils.scatter``.

UB-GOLD imports the compiled ``torch_scatter`` extension; torch-geometric 2.x computes the same reductions
in plain torch. Used only when ``torch_scatter`` is not installed. ``scatter_max`` returns the maxima and
``None`` in place of the argmax, which UB-GOLD discards (``out, _ = scatter_max(...)``); any use of it fails
loudly instead of reading wrong indices.
"""

from __future__ import annotations

import torch
from torch_geometric.utils import scatter as _scatter

__all__ = ["scatter", "scatter_max"]


def scatter(src: torch.Tensor, index: torch.Tensor, dim: int = -1, out: torch.Tensor | None = None,
            dim_size: int | None = None, reduce: str = "sum") -> torch.Tensor:
    """``torch_scatter.scatter`` without ``out`` (UB-GOLD never passes one)."""
    if out is not None:
        raise NotImplementedError("the torch_scatter shim does not support out=")
    return _scatter(src, index, dim=dim, dim_size=dim_size, reduce=reduce)


def scatter_max(src: torch.Tensor, index: torch.Tensor, dim: int = -1, dim_size: int | None = None
                ) -> tuple[torch.Tensor, None]:
    """(maxima, None): see the module docstring."""
    return _scatter(src, index, dim=dim, dim_size=dim_size, reduce="max"), None

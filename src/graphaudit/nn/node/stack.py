"""The layer pattern most message-passing methods share: convolutions in turn, dropout on each one's input,
an activation between them (not after the last, whose output is the logits or an embedding)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import torch
import torch.nn.functional as F

__all__ = ["ConvStack", "layer_widths"]


def layer_widths(in_dim: int, hidden_channels: int, out_dim: int, num_layers: int) -> list[tuple[int, int]]:
    """``(in, out)`` of each of ``num_layers`` layers ``in_dim -> hidden -> ... -> out_dim``."""
    if num_layers < 1:
        raise ValueError(f"num_layers must be at least 1, got {num_layers}")
    widths = [in_dim] + [hidden_channels] * (num_layers - 1) + [out_dim]
    return list(itertools.pairwise(widths))


class ConvStack(torch.nn.Module):
    """``conv(dropout(x), *graph)`` for each convolution, ``activation`` between consecutive ones."""

    def __init__(
        self,
        convs: Iterable[torch.nn.Module],
        dropout: float,
        activation: Callable[[torch.Tensor], torch.Tensor] = F.relu,
    ) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(convs)
        self.dropout = dropout
        self.activation = activation

    def forward(self, x: torch.Tensor, *graph: torch.Tensor) -> torch.Tensor:
        for i, conv in enumerate(self.convs):
            if i > 0:
                x = self.activation(x)
            x = conv(F.dropout(x, self.dropout, self.training), *graph)
        return x

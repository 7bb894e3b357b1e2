"""The shared convolution stack: layer widths, dropout placement and activations between layers only."""

from __future__ import annotations

import pytest
import torch

from graphaudit.nn.node.stack import ConvStack, layer_widths


class Shift(torch.nn.Module):
    """A 'convolution' that subtracts ``by`` from its input and records what it saw."""

    def __init__(self, by: float) -> None:
        super().__init__()
        self.by = by
        self.seen: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor, offset: torch.Tensor) -> torch.Tensor:
        self.seen.append(x)
        return x - self.by + offset


def test_layer_widths():
    assert layer_widths(10, 4, 3, 3) == [(10, 4), (4, 4), (4, 3)]
    assert layer_widths(10, 4, 3, 1) == [(10, 3)]
    with pytest.raises(ValueError):
        layer_widths(10, 4, 3, 0)


def test_conv_stack_activates_between_layers_not_after_the_last():
    stack = ConvStack([Shift(2.0), Shift(2.0)], dropout=0.5).eval()
    out = stack(torch.tensor([[1.0]]), torch.tensor(0.0))
    assert out.item() == -2.0  # relu(1 - 2) = 0, then 0 - 2 with no activation after it
    assert stack.convs[1].seen[0].item() == 0.0


def test_conv_stack_drops_every_layers_input_in_training():
    torch.manual_seed(0)
    stack = ConvStack([Shift(0.0), Shift(0.0)], dropout=0.5).train()
    stack(torch.ones(4000, 1), torch.tensor(0.0))
    first, second = ((conv.seen[0] == 0).float().mean().item() for conv in stack.convs)
    assert first == pytest.approx(0.5, abs=0.05)
    assert second == pytest.approx(0.75, abs=0.05)  # dropped again on top of the first layer's zeros

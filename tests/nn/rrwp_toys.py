"""Small hand graphs carrying RRWP as GRIT and CKGConv read them (tests of nn.grit, nn.ckgconv, nn.rrwp_common)."""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.data import Batch, Data

from graphaudit.nn.rrwp import rrwp
from graphaudit.nn.rrwp_common import attach_rrwp

HAND = {
    "house": (5, [(0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (3, 4)]),
    "path": (4, [(0, 1), (1, 2), (2, 3)]),
    "star_and_isolated": (6, [(0, 1), (0, 2), (0, 3), (0, 4)]),  # node 5 has no edge
}


def undirected(pairs: list[tuple[int, int]]) -> torch.Tensor:
    """PyG's edge_index of an undirected edge list: both directions."""
    forward = torch.tensor(pairs, dtype=torch.long).t()
    return torch.cat([forward, forward.flip(0)], dim=1)


def encoded(edge_index: torch.Tensor, x: torch.Tensor, y: torch.Tensor, variant: str) -> Data:
    """A graph as PATTERN's PyG files have it (``x`` one-hot, 3 columns) with its RRWP of 21 steps attached."""
    data = Data(x=x, edge_index=edge_index, y=y, num_nodes=x.size(0))
    return attach_rrwp(data, rrwp(edge_index, x.size(0), steps=21, variant=variant))


def hand_graph(name: str, variant: str) -> Data:
    """One of :data:`HAND`, node features ``v % 3`` one-hot and the odd nodes in the pattern class."""
    n, pairs = HAND[name]
    x = nn.functional.one_hot(torch.arange(n) % 3, 3).float()
    return encoded(undirected(pairs), x, torch.arange(n) % 2, variant)


def hand_batch(variant: str) -> Batch:
    return Batch.from_data_list([hand_graph(name, variant) for name in HAND])


def permuted(data: Data, order: torch.Tensor, variant: str) -> Data:
    """The same graph with node ``i`` of the result being node ``order[i]`` of ``data``, RRWP recomputed."""
    new_id = torch.argsort(order)
    return encoded(new_id[data.edge_index], data.x[order], data.y[order], variant)


@torch.no_grad()
def warmed(model: nn.Module, batch: Batch, steps: int = 3) -> nn.Module:
    """``model`` in eval mode after a few training-mode passes, so that its BatchNorm statistics are not the
    identity they start as."""
    model.train()
    for _ in range(steps):
        model(batch)
    return model.eval()


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())

"""Toy graphs for the detector and trainer tests: rings (normal) and a clique (an obvious anomaly)."""

from __future__ import annotations

import torch
from torch_geometric.data import Data

CLIQUE_ID = 999


def ring(graph_id: int, n: int, label: int = 0) -> Data:
    """A cycle of ``n`` nodes plus a pendant node (not regular: GraphNorm would zero a regular graph),
    every node with one-hot label ``label`` (of 2)."""
    src = torch.cat([torch.arange(n), torch.tensor([n])])
    dst = torch.cat([(torch.arange(n) + 1) % n, torch.tensor([0])])
    x = torch.zeros(n + 1, 2)
    x[:, label] = 1.0
    return Data(x=x, edge_index=torch.stack([torch.cat([src, dst]), torch.cat([dst, src])]),
                graph_id=torch.tensor([graph_id]))


def clique(graph_id: int, n: int) -> Data:
    """A complete graph of ``n`` nodes plus a pendant, node label 1: unlike every ring in degree and label."""
    pairs = torch.cat([torch.combinations(torch.arange(n), 2).T, torch.tensor([[0], [n]])], dim=1)
    x = torch.zeros(n + 1, 2)
    x[:, 1] = 1.0
    return Data(x=x, edge_index=torch.cat([pairs, pairs.flip(0)], dim=1), graph_id=torch.tensor([graph_id]))

"""A tiny node classifier and small graphs for the search, trial and rule tests (no method of N-methods needed)."""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nodeground.csbm import CSBMSpec, generate
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.splits import Splits, make_splits


class TinyModel(NodeModel):
    """Features averaged over the neighbourhood (self-loop included), then a two-layer MLP with dropout."""

    def __init__(self, in_dim: int, out_dim: int, *, hidden: int, dropout: float) -> None:
        super().__init__(in_dim, out_dim)
        self.first = torch.nn.Linear(in_dim, hidden)
        self.second = torch.nn.Linear(hidden, out_dim)
        self.dropout = dropout

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        out = data.clone()
        degree = torch.zeros(data.num_nodes).index_add_(0, data.edge_index[1], torch.ones(data.edge_index.size(1)))
        out.mean_x = torch.zeros_like(data.x).index_add_(0, data.edge_index[1], data.x[data.edge_index[0]])
        out.mean_x = out.mean_x / degree.unsqueeze(1)
        return out

    def forward(self, data: Data) -> torch.Tensor:
        hidden = F.dropout(F.relu(self.first(data.mean_x)), self.dropout, self.training)
        return self.second(hidden)


TINY_ENTRY = {
    "class": "search_toys:TinyModel",
    "optimizer": "adam",
    "defaults": {"hidden": 8, "dropout": 0.5, "lr": 0.01, "weight_decay": 0.0005, "patience": 100},
    "space": {
        "hidden": {"choice": [4, 8, 16]},
        "dropout": {"uniform": [0.0, 0.8]},
        "lr": {"loguniform": [0.001, 0.1]},
        "patience": {"choice": [20, 100]},
    },
}


def toy_graph(name: str = "toy", classes: int = 3, nodes: int = 120, signal: float = 1.0) -> NodeGraph:
    spec = CSBMSpec(
        nodes=nodes,
        classes=classes,
        imbalance=1.0,
        avg_degree=4.0,
        homophily=0.6,
        feature_dim=6,
        feature_density=None,
        signal=signal,
    )
    return generate(name, spec, seed=0)


def toy_splits(graph: NodeGraph, split: str = "50-25-25", partitions: int = 2) -> Splits:
    return make_splits(graph, split, partitions)


def write_inputs(folder: Path, graph: NodeGraph, split: str = "50-25-25") -> tuple[Path, Path]:
    """The graph and splits files a search job reads, as N-data's rules write them."""
    graph_path = folder / "graphs" / f"{graph.name}.npz"
    splits_path = folder / "splits" / graph.name / f"{split}.npz"
    graph.save(graph_path)
    toy_splits(graph, split).save(splits_path)
    return graph_path, splits_path

"""The graphlet benchmark's rule entry: both counts checked equal, one row written."""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphaudit.bench.graphlets import bench_graphlets, first_graphs
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import from_edge_list

# a triangle with a tail (4 nodes), a 5-cycle, a single edge
GRAPHS = from_edge_list(
    "toy",
    np.repeat([0, 1, 2], [4, 5, 2]),
    np.array([[0, 1], [1, 2], [0, 2], [2, 3], [4, 5], [5, 6], [6, 7], [7, 8], [8, 4], [9, 10]]),
    node_labels=np.arange(11),
)


def test_first_graphs_keep_the_structure_of_a_prefix():
    two = first_graphs(GRAPHS, 2)
    assert (two.num_graphs, two.num_nodes, two.num_edges) == (2, 9, 9) and two.get("node_labels") is None
    assert first_graphs(GRAPHS, 10).num_graphs == 3


def test_bench_writes_a_checked_table(tmp_path):
    path = tmp_path / "set.npz"
    GRAPHS.save(path)
    ctx = RuleContext(
        input={"graphset": str(path)},
        output={"table": str(tmp_path / "graphlets.csv")},
        params={"bench": {"dataset": "TOY", "repeats": 1}},
    )
    bench_graphlets(ctx)
    table = pd.read_csv(tmp_path / "graphlets.csv")
    assert table.loc[0, "benchmark"] == "graphlets" and table.loc[0, "input"] == "TOY first 3 graphs"
    assert table.loc[0, "peer"] == "networkx brute-force enumeration" and table.loc[0, "ratio"] > 0

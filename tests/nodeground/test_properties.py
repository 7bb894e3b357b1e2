"""Dataset statistics (spec 4.2): hand-computed cases, an independent implementation of adjusted homophily,
the nonzero-fraction sample and its SHA256-derived seed, the descriptive statistics."""

from __future__ import annotations

import hashlib
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from graphaudit.nodeground.preprocess import preprocess
from graphaudit.nodeground.properties import (
    DESCRIPTIVE_COLUMNS,
    SAMPLE_ROWS,
    adjusted_homophily,
    class_imbalance,
    degree,
    descriptive_statistics,
    feature_nonzero,
    feature_similarity_auroc,
    grouping_properties,
    hub_concentration,
    label_entropy,
    properties_table,
    sample_rows,
    simple_edges,
)
from graphaudit.nodeground.records import PROPERTY_COLUMNS, read_properties


def test_adjusted_homophily_by_hand() -> None:
    """Labels 0,0,0,1,1 and an unlabelled node 5. Labelled edges 0-1, 1-2 (same), 2-3 (different), 3-4 (same);
    4-5 is left out. h = 3/4; endpoint classes 0: 5 of 8, 1: 3 of 8, so h0 = (25 + 9) / 64 = 17/32 and
    h_adj = (3/4 - 17/32) / (1 - 17/32) = 7/15."""
    labels = np.array([0, 0, 0, 1, 1, -1])
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
    assert adjusted_homophily(edges, labels) == pytest.approx(7 / 15, abs=1e-12)
    assert adjusted_homophily(np.array([[0, 1], [3, 4]]), labels) == pytest.approx(1.0)  # only same-class edges
    assert adjusted_homophily(np.array([[0, 3], [1, 4]]), labels) == pytest.approx(-1.0)  # balanced, only across
    assert math.isnan(adjusted_homophily(np.array([[4, 5]]), labels))  # no labelled edge
    assert math.isnan(adjusted_homophily(np.array([[0, 1]]), np.array([0, 0])))  # one class: h0 = 1


@pytest.mark.parametrize("seed", range(4))
def test_adjusted_homophily_equals_networkx_assortativity(seed) -> None:
    """On an undirected graph adjusted homophily is Newman's categorical assortativity coefficient: networkx's
    implementation (over the labelled subgraph) is the independent check."""
    rng = np.random.default_rng(seed)
    n = 60
    labels = rng.integers(-1, 4, size=n)
    edges = np.unique(np.sort(rng.integers(0, n, size=(150, 2)), axis=1), axis=0)
    edges = edges[edges[:, 0] != edges[:, 1]]
    graph = nx.Graph()
    labelled = [v for v in range(n) if labels[v] >= 0]
    graph.add_nodes_from((v, {"y": int(labels[v])}) for v in labelled)
    graph.add_edges_from((u, v) for u, v in edges.tolist() if labels[u] >= 0 and labels[v] >= 0)
    expected = nx.attribute_assortativity_coefficient(graph, "y")
    assert adjusted_homophily(edges, labels) == pytest.approx(expected, abs=1e-12)


def test_class_imbalance_and_label_entropy_by_hand() -> None:
    assert class_imbalance(np.array([0, 0, 0, 1, -1, 2, 2])) == 3.0
    assert label_entropy(np.array([0, 0, 1, 1, -1])) == pytest.approx(1.0)
    expected = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25)) / math.log(2)  # 0.8113
    assert label_entropy(np.array([0, 0, 0, 1])) == pytest.approx(expected)
    assert math.isnan(label_entropy(np.array([0, 0, -1])))


def test_feature_nonzero_counts_finite_entries_only() -> None:
    x = np.array([[0, 1, np.nan], [2, 0, np.inf]], dtype=np.float32)
    assert feature_nonzero(x, "toy") == 0.5  # finite: 0, 1, 2, 0


def test_feature_sample_is_4096_rows_from_the_sha256_seed() -> None:
    """The seed is the SHA256 of the JSON list [20260806, stage, dataset], first 8 bytes, shifted right by one
    (``graphaudit.common.seeds.stable_seed``), spelled out here so a change to either shows."""
    assert np.array_equal(sample_rows(100, "d", "feature_nonzero"), np.arange(100))
    digest = hashlib.sha256(b'[20260806,"feature_nonzero","d"]').digest()
    seed = int.from_bytes(digest[:8], "big") >> 1
    expected = np.sort(np.random.default_rng(seed).choice(10000, size=4096, replace=False))
    rows = sample_rows(10000, "d", "feature_nonzero")
    assert SAMPLE_ROWS == 4096 and np.array_equal(rows, expected)
    x = np.zeros((10000, 3), dtype=np.float32)
    x[:, 0] = np.arange(10000) % 2  # a nonzero entry on odd rows only
    assert feature_nonzero(x, "d") == pytest.approx(np.sum(rows % 2) / (3 * 4096))


def test_hub_concentration_by_hand() -> None:
    degrees = np.array([10] + [1] * 99)  # top 1% of 100 nodes: the hub, 10 of 109 endpoints
    assert hub_concentration(degrees) == pytest.approx(10 / 109)
    assert hub_concentration(np.array([3, 1, 1, 1])) == pytest.approx(0.5)  # at least one node


def path_graph():
    """A path 0-1-2-3 and an isolated node 4; labels 0, 0, 1, 1 and one unlabelled node; 2-D features."""
    x = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0]], dtype=np.float32)
    return preprocess("path", x, np.array([[0, 1], [1, 2], [2, 3], [3, 2]]), np.array([0, 0, 1, 1, -1]))


def test_grouping_properties_by_hand() -> None:
    props = grouping_properties(path_graph())
    # h = 2/3, endpoints 3 + 3: h0 = 1/2, h_adj = (2/3 - 1/2) / (1/2) = 1/3
    assert props == {
        "dataset": "path",
        "nodes": 5,
        "avg_degree": 6 / 5,
        "adjusted_homophily": pytest.approx(1 / 3),
        "feature_dim": 2,
        "feature_nonzero": 0.4,
        "classes": 2,
        "class_imbalance": 1.0,
    }
    assert list(props) == list(PROPERTY_COLUMNS)


def test_descriptive_statistics_by_hand() -> None:
    graph = path_graph()
    assert simple_edges(graph).tolist() == [[0, 1], [1, 2], [2, 3]] and degree(graph).tolist() == [1, 2, 2, 1, 0]
    stats = descriptive_statistics(graph)
    assert stats["task"] == "binary" and stats["edges"] == 3 and stats["invalid_labels"] == 1
    assert stats["density"] == pytest.approx(6 / 20)
    assert (stats["degree_q10"], stats["degree_median"], stats["degree_q90"], stats["degree_max"]) == (0.4, 1, 2, 2)
    assert stats["hub_concentration"] == pytest.approx(2 / 6)
    assert stats["label_entropy"] == pytest.approx(1.0)
    assert list(stats) == list(DESCRIPTIVE_COLUMNS)


@pytest.mark.parametrize("across, expected", [(False, 1.0), (True, 0.0)])
def test_feature_similarity_auroc_extremes(across, expected) -> None:
    """Two classes with one-hot features: edges only inside classes (cosine 1, every non-edge crosses: 0) give
    AUROC 1; the complete bipartite graph across the classes (every non-edge inside a class) gives 0."""
    labels = np.array([0, 0, 0, 1, 1, 1])
    x = np.eye(2, dtype=np.float32)[labels]
    pairs = [(u, v) for u in range(6) for v in range(u + 1, 6) if (labels[u] != labels[v]) == across]
    graph = preprocess("six", x, np.array(pairs), labels)
    assert feature_similarity_auroc(graph) == expected


def test_table_columns_sorted_and_readable_by_part_two(tmp_path) -> None:
    other = preprocess("another", np.ones((3, 1)), np.array([[0, 1]]), np.array([0, 1, 2]))
    frame = properties_table([path_graph(), other])
    assert list(frame.columns) == [*PROPERTY_COLUMNS, *DESCRIPTIVE_COLUMNS]
    assert frame["dataset"].tolist() == ["another", "path"]
    frame.to_csv(tmp_path / "p.csv", index=False)
    back = read_properties(tmp_path / "p.csv")
    pd.testing.assert_series_equal(back["classes"], pd.Series([3.0, 2.0], name="classes"))

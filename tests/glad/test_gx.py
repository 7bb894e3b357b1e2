"""GX generator: base tree, motifs and their kinds per type, label noise, attributes, size law, split, metadata,
regeneration, feature variants; networkx is the structural oracle."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms.isomorphism import GraphMatcher
from scipy.stats import chisquare

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import one_hot
from graphaudit.glad import gx
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import run_graphs

SEED = 0
PARTS = ("train", "test", *gx.ANOMALY_TYPES)
ORACLES = {
    gx.STAR: nx.star_graph(4),
    gx.HOUSE: nx.house_graph(),
    gx.BOWTIE: nx.compose(nx.cycle_graph([0, 1, 2]), nx.cycle_graph([0, 3, 4])),
    gx.K23: nx.complete_bipartite_graph(2, 3),
}


@pytest.fixture(scope="module")
def split() -> gx.GXSplit:
    return gx.gx_split(SEED)


@pytest.fixture(scope="module")
def layouts() -> dict[str, list[gx.GXGraph]]:
    counts = gx.part_counts(gx.GXSizes())
    return {part: gx.gx_part(SEED, part, counts[part]) for part in PARTS}


def as_networkx(graph: gx.GXGraph) -> nx.Graph:
    out = nx.Graph()
    out.add_nodes_from(range(graph.num_nodes))
    out.add_edges_from(graph.edges.tolist())
    return out


def induced_copies(graph: nx.Graph, pattern: nx.Graph) -> int:
    """Node sets of ``graph`` that induce a copy of ``pattern`` (networkx's matcher is node-induced)."""
    matcher = GraphMatcher(graph, pattern)
    return len({frozenset(m) for m in matcher.subgraph_isomorphisms_iter()})


def within_binomial(hits: int, trials: int, p: float, sds: float = 4.0) -> bool:
    return abs(hits / trials - p) <= sds * np.sqrt(p * (1 - p) / trials)


def test_every_graph_has_the_size_law_of_its_base(layouts, split):
    for part in PARTS:
        for graph in layouts[part]:
            assert gx.N_BASE_MIN <= graph.n_base <= gx.N_BASE_MAX
            assert graph.num_nodes == graph.n_base + 50 and len(graph.edges) == graph.n_base + 65
    n, m = split.graphs.node_counts(), split.graphs.edge_counts()
    assert np.all(m - n == 15) and n.min() >= 70 and n.max() <= 80


def test_one_generator_state_gives_every_type_the_same_graph_but_its_ring_motifs():
    """Size identical in law by construction: the types read the same draws, so n_b (and all but the ring
    kinds) is one function of the Generator state for every type."""
    for index in range(30):
        graphs = {t: gx.gx_graph(t, rng_for("test-gx", index)) for t in gx.HOUSE_SHARE}
        normal = graphs[gx.NORMAL]
        for graph in graphs.values():
            assert graph.n_base == normal.n_base and graph.num_nodes == normal.num_nodes
            assert len(graph.edges) == len(normal.edges)
            for name in ("roles", "labels", "redrawn", "attributes", "hosts", "anchors"):
                assert np.array_equal(getattr(graph, name), getattr(normal, name)), name
            tree = graph.edges[(graph.edges < graph.n_base).all(axis=1)]
            assert np.array_equal(tree, normal.edges[(normal.edges < normal.n_base).all(axis=1)])
            assert graph.kinds[: gx.N_STARS] == (gx.STAR,) * gx.N_STARS


def test_base_size_is_uniform_on_20_to_30(layouts):
    sizes = np.array([g.n_base for part in PARTS for g in layouts[part]])
    counts = np.bincount(sizes - gx.N_BASE_MIN, minlength=gx.N_BASE_MAX - gx.N_BASE_MIN + 1)
    assert len(counts) == 11 and counts.min() > 0
    assert chisquare(counts).pvalue > 1e-3


def test_base_is_a_tree_and_the_whole_graph_is_connected(layouts):
    for part in PARTS:
        for graph in layouts[part][:50]:
            whole = as_networkx(graph)
            assert nx.is_tree(whole.subgraph(range(graph.n_base)))
            assert nx.is_connected(whole)


def test_preferential_attachment_weights_degree_plus_one():
    """After 1-0 and 2-0, node 0 has degree 2 and nodes 1, 2 degree 1: node 3 joins 0 with probability 3/7."""
    trees = [gx.pa_tree(4, rng_for("test-gx", "pa", i)) for i in range(6000)]
    second_on_root = [t for t in trees if t[1, 1] == 0]
    assert within_binomial(len(second_on_root), len(trees), 0.5)
    third_on_root = sum(t[2, 1] == 0 for t in second_on_root)
    assert within_binomial(third_on_root, len(second_on_root), 3 / 7)


def test_motifs_are_their_kind_on_distinct_hosts_by_one_edge(layouts):
    for part in PARTS:
        for graph in layouts[part][:40]:
            whole = as_networkx(graph)
            assert len(set(graph.hosts.tolist())) == gx.N_MOTIFS and graph.hosts.max() < graph.n_base
            for j, kind in enumerate(graph.kinds):
                nodes = set(graph.motif_nodes(j).tolist())
                assert nx.is_isomorphic(whole.subgraph(nodes), ORACLES[kind])
                leaving = [(u, v) for u in nodes for v in whole[u] if v not in nodes]
                anchor = graph.n_base + gx.MOTIF_NODES * j + graph.anchors[j]
                assert leaving == [(anchor, graph.hosts[j])]


def test_k23_appears_as_induced_subgraph_only_in_t1a(layouts):
    for part in PARTS:
        expected_k23 = gx.T1A_K23_MOTIFS if part == "T1a" else 0
        for graph in layouts[part][:8]:
            whole = as_networkx(graph)
            assert induced_copies(whole, ORACLES[gx.K23]) == expected_k23
            assert induced_copies(whole, ORACLES[gx.HOUSE]) == graph.kinds.count(gx.HOUSE)
            assert induced_copies(whole, ORACLES[gx.BOWTIE]) == graph.kinds.count(gx.BOWTIE)


@pytest.mark.parametrize("part", PARTS)
def test_house_share_per_type(layouts, part):
    graph_type = part if part in gx.ANOMALY_TYPES else gx.NORMAL
    rings = [g.kinds[gx.N_STARS :] for g in layouts[part]]
    assert all(len(r) == gx.N_RING_MOTIFS for r in rings)
    k23 = [r.count(gx.K23) for r in rings]
    assert set(k23) == {gx.T1A_K23_MOTIFS if part == "T1a" else 0}
    houses = sum(r.count(gx.HOUSE) for r in rings)
    trials = sum(len(r) for r in rings) - sum(k23)
    assert within_binomial(houses, trials, gx.HOUSE_SHARE[graph_type])


def test_house_shares_are_the_specified_ones():
    assert gx.HOUSE_SHARE == {"normal": 0.5, "T1a": 0.5, "T3a": 0.9, "T3b": 0.1}


def test_label_noise_redraws_five_percent_uniformly(layouts):
    graphs = [g for part in PARTS for g in layouts[part]]
    roles = np.concatenate([g.roles for g in graphs])
    labels = np.concatenate([g.labels for g in graphs])
    redrawn = np.concatenate([g.redrawn for g in graphs])
    assert np.array_equal(labels[~redrawn], roles[~redrawn])
    assert within_binomial(int(redrawn.sum()), len(roles), gx.LABEL_NOISE)
    wrong = int((labels != roles).sum())
    assert within_binomial(wrong, len(roles), gx.LABEL_NOISE * 3 / 4)
    assert chisquare(np.bincount(labels[redrawn], minlength=4)).pvalue > 1e-3


def test_roles_are_the_specified_ones(layouts):
    graph = layouts["train"][0]
    counts = np.bincount(graph.roles, minlength=4)
    assert counts.tolist() == [graph.n_base, 2, 8, 40]


def test_attributes_are_gaussian_around_the_true_role_mean(layouts):
    graphs = [g for part in PARTS for g in layouts[part]]
    roles = np.concatenate([g.roles for g in graphs])
    attributes = np.concatenate([g.attributes for g in graphs])
    for role in range(len(gx.ROLES)):
        values = attributes[roles == role]
        assert np.allclose(values.mean(axis=0), gx.ATTRIBUTE_MEANS[role], atol=6 / np.sqrt(len(values)))
        assert np.allclose(values.std(axis=0), gx.ATTRIBUTE_STD, atol=0.05)
        assert abs(np.corrcoef(values.T)[0, 1]) < 0.05


def test_split_counts_parts_and_graph_labels(split):
    assert split.graphs.num_graphs == 500 + 250 + 3 * 250
    assert len(split.train_normal) == 500 and len(split.holdout) == 100 and len(split.fit) == 400
    assert len(split.test_normal) == 250 and all(len(split.anomalies[t]) == 250 for t in gx.ANOMALY_TYPES)
    assert sorted(np.concatenate([split.holdout, split.fit]).tolist()) == split.train_normal.tolist()
    every = np.concatenate([split.train_normal, split.test_normal, *split.anomalies.values()])
    assert sorted(every.tolist()) == list(range(split.graphs.num_graphs))
    labels = split.graphs.get("graph_labels")
    assert np.all(labels[split.train_normal] == 0) and np.all(labels[split.test_normal] == 0)
    for anomaly_type, ids in split.anomalies.items():
        assert np.all(labels[ids] == gx.GRAPH_LABELS[anomaly_type]) and gx.GRAPH_LABELS[anomaly_type] != 0


def test_split_graphs_are_the_parts_in_order(split, layouts):
    ranges = gx.part_ranges(gx.GXSizes())
    for part in PARTS:
        for offset in (0, 137, -1):
            graph = layouts[part][offset]
            g = ranges[part][0] + (offset % len(layouts[part]))
            assert np.array_equal(split.graphs.graph_edges(g), graph.edges[np.lexsort(graph.edges.T[::-1])])
            assert np.array_equal(split.graphs.node_slice("node_labels", g), graph.labels)


def test_smaller_sizes_give_prefixes_of_the_parts(split):
    small = gx.gx_split(SEED, sizes=gx.GXSizes(train_normals=10, test_normals=4, anomalies_per_type=3))
    assert small.graphs.num_graphs == 10 + 4 + 9 and len(small.holdout) == 2
    for small_id, full_id in zip(small.anomalies["T3a"], split.anomalies["T3a"]):
        assert np.array_equal(small.graphs.graph_edges(small_id), split.graphs.graph_edges(full_id))


def test_type_fold_tests_the_normals_with_one_type(split):
    for anomaly_type in gx.ANOMALY_TYPES:
        fold = gx.type_fold(split, anomaly_type)
        assert fold.fold == SEED and fold.seed == 3407 + SEED
        assert fold.fit == split.fit.tolist() and fold.holdout == split.holdout.tolist()
        assert len(fold.test) == 500 and sum(fold.test_labels) == 250
        labels = split.graphs.get("graph_labels")[fold.test]
        assert np.array_equal(labels != 0, np.array(fold.test_labels, dtype=bool))
    with pytest.raises(ValueError, match="anomaly type"):
        gx.type_fold(split, "T2")


def test_the_deep_trainer_takes_a_type_fold(split):
    fold = gx.type_fold(split, "T1a")
    run, width = run_graphs(split.graphs, node_colours(split.graphs, False), fold)
    assert width == len(gx.ROLES)
    assert (len(run.train), len(run.test), len(run.holdout)) == (400, 500, 100)


def test_metadata_is_complete_and_json_ready(split):
    meta = json.loads(json.dumps(split.metadata))
    assert meta == split.metadata
    assert meta["seed"] == SEED and meta["features"] == "F2" and meta["version"] == gx.GENERATOR_VERSION
    assert meta["sizes"] == {"train_normals": 500, "holdout_share": 0.2, "test_normals": 250, "anomalies_per_type": 250}
    assert meta["parts"] == {
        "train": [0, 500],
        "test": [500, 750],
        "T1a": [750, 1000],
        "T3a": [1000, 1250],
        "T3b": [1250, 1500],
    }
    assert meta["graph_labels"] == {"normal": 0, "T1a": 1, "T3a": 2, "T3b": 3}
    assert len(meta["feature_columns"]) == split.graphs.get("node_attrs").shape[1]
    choices = meta["choices"]
    unspecified = {"n_base", "base_tree", "hosts", "attachment_node", "label_noise", "attributes", "house_share", "T1a"}
    assert unspecified <= set(choices)
    assert choices["n_base"] == {"law": "uniform integer, both ends included", "min": 20, "max": 30}
    assert choices["attributes"]["means"] == gx.ATTRIBUTE_MEANS.tolist()
    assert choices["house_share"]["T3a"] == 0.9 and choices["label_noise"]["rate"] == 0.05
    assert set(choices["motif_templates"]) == {gx.STAR, gx.HOUSE, gx.BOWTIE, gx.K23}


def test_two_generations_are_byte_identical(split, tmp_path):
    again = gx.gx_split(SEED)
    split.graphs.save(tmp_path / "a.npz")
    again.graphs.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert json.dumps(split.metadata, sort_keys=True) == json.dumps(again.metadata, sort_keys=True)
    assert np.array_equal(split.holdout, again.holdout)
    other = gx.gx_split(SEED + 1, sizes=gx.GXSizes(train_normals=5, test_normals=5, anomalies_per_type=5))
    assert not np.array_equal(other.graphs.graph_edges(0), split.graphs.graph_edges(0))


def test_f1_is_the_one_hot_label_and_f2_adds_the_attributes(split, layouts):
    f1 = gx.gx_split(SEED, features="F1")
    assert np.array_equal(f1.graphs.edges, split.graphs.edges)
    labels = split.graphs.get("node_labels")
    assert np.array_equal(f1.graphs.get("node_labels"), labels)
    x1, x2 = f1.graphs.get("node_attrs"), split.graphs.get("node_attrs")
    assert x1.shape == (split.graphs.num_nodes, 4) and x2.shape == (split.graphs.num_nodes, 6)
    assert np.array_equal(x1, one_hot(labels, 4)) and np.array_equal(x2[:, :4], x1)
    attributes = np.concatenate([g.attributes for part in PARTS for g in layouts[part]]).astype(np.float32)
    assert np.array_equal(x2[:, 4:], attributes)
    assert f1.metadata["feature_columns"] == split.metadata["feature_columns"][:4]
    assert split.graphs.to_pyg(0).x.shape == (split.graphs.graph_size(0), 6)


def test_bad_arguments_name_the_problem():
    with pytest.raises(ValueError, match="graph type"):
        gx.gx_graph("T2", rng_for("test-gx"))
    with pytest.raises(ValueError, match="part"):
        gx.gx_part(0, "valid", 1)
    with pytest.raises(ValueError, match="features"):
        gx.gx_split(0, features="F3", sizes=gx.GXSizes(1, 0.0, 1, 1))
    with pytest.raises(ValueError, match="seed"):
        gx.gx_split(-1)
    with pytest.raises(ValueError, match="sizes"):
        gx.GXSizes(train_normals=0)

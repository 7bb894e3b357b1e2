"""Generators: G(n, m) law, node and edge counts per scale, induced conditions, rejection law, isomorphic
pairs (faithful and hardened), BA-2motif structure, k-core sets, turns, evaluation subsets, determinism."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
import pytest

from graphaudit.llmpattern.datasets import SCALE_NODES, dataset_statistics, density, make_item, to_networkx
from graphaudit.llmpattern.generators import (
    CONDITIONED_DENSITY,
    DETECTION_DENSITY,
    ba2motif_items,
    build_graphs,
    detection_items,
    discriminative_turns,
    edge_budget,
    eval_subset,
    frequent_graph_items,
    frequent_turns,
    isomorphism_items,
    kcore_items,
    modification_items,
    random_graph,
    translation_items,
)
from graphaudit.llmpattern.patterns import FREQUENT_PATTERNS, MODIFICATIONS, PATTERN_NAMES, get_pattern
from graphaudit.llmpattern.solvers import networkx_occurrences, verify_mapping

SCALES = ("small", "medium", "large")


def test_edge_budget_law() -> None:
    assert edge_budget(5, 1.0) == (1, 9)  # M = 10: [max(1, 1), 9]
    assert edge_budget(10, 0.6) == (2, 26)  # M = 27
    assert edge_budget(34, 1.0) == (56, 560)  # M = 561
    assert edge_budget(30, 0.6) == (26, 260)  # M = 261, 0.1 M = 26.1
    with pytest.raises(ValueError, match="no edge count fits"):
        edge_budget(2, 0.6)


def test_random_graph_law() -> None:
    rng = np.random.default_rng(0)
    undirected = random_graph(rng, 8, 20, False)
    assert len(undirected["edges"]) == len({tuple(e) for e in undirected["edges"]}) == 20
    assert all(u < v for u, v in undirected["edges"]) and undirected["edges"] == sorted(undirected["edges"])
    reciprocal = 0
    for _ in range(50):
        directed = random_graph(rng, 6, 14, True)
        pairs = {tuple(e) for e in directed["edges"]}
        assert len(pairs) == 14 and all(u != v for u, v in pairs)
        reciprocal += sum((v, u) in pairs for u, v in pairs)
    assert reciprocal > 0  # reciprocal pairs are allowed


@pytest.mark.parametrize("directed", [False, True])
def test_detection_sets_nodes_and_edges_per_scale(directed: bool) -> None:
    for scale in SCALES:
        per_n = 2 if scale == "small" else 1
        items = detection_items(directed, scale, per_n=per_n)
        assert Counter(i["graph"]["num_nodes"] for i in items) == {n: per_n for n in SCALE_NODES[scale]}
        for item in items:
            n, edges = item["graph"]["num_nodes"], item["graph"]["edges"]
            low, high = edge_budget(n, DETECTION_DENSITY)
            assert low <= len(edges) <= high and edges == sorted(edges)
            assert (item["task"], item["scale"], item["directed"]) == ("detection", scale, directed)
            expected = {p for p in PATTERN_NAMES if get_pattern(p).directed == directed}
            assert set(item["truth"]["occurrences"]) == expected


# Table 12 / spec §7.1: average edges (±10%) and density (undirected ±0.05, directed ±0.03) of the detection sets
DETECTION_TABLE_12 = {
    (False, "small"): (22.80, 0.52),
    (False, "medium"): (96.20, 0.52),
    (False, "large"): (247.96, 0.58),
    (True, "small"): (23.44, 0.26),
    (True, "medium"): (96.98, 0.26),
    (True, "large"): (223.58, 0.26),
}


def test_detection_sets_at_paper_size_match_table_12() -> None:
    for (directed, scale), (edges, dens) in DETECTION_TABLE_12.items():
        variant = "directed" if directed else "undirected"
        graphs = build_graphs("detection", variant, scale, directed, DETECTION_DENSITY, 25, reject=False)
        items = [make_item("detection", variant, scale, i, directed, {}, graph=g) for i, g in enumerate(graphs)]
        (row,) = dataset_statistics(items)
        assert row["num"] == 250 and row["avg_node"] == {"small": 9.5, "medium": 19.5, "large": 29.5}[scale]
        assert abs(row["avg_edge"] / edges - 1) <= 0.10, (directed, scale, row)
        assert abs(row["avg_density"] - dens) <= (0.03 if directed else 0.05), (directed, scale, row)


@pytest.fixture(scope="module")
def modification_sets() -> dict[tuple[str, str], list[dict]]:
    return {
        (variant, scale): modification_items(variant, scale, per_n=3)
        for variant in MODIFICATIONS
        for scale in ("small", "medium")
    }


def test_modification_sets_hold_source_and_no_target(modification_sets) -> None:
    for (variant, scale), items in modification_sets.items():
        source, target = MODIFICATIONS[variant]
        assert items, (variant, scale)
        for item in items:
            graph = item["graph"]
            assert graph["num_nodes"] in SCALE_NODES[scale] and item["directed"] == get_pattern(source).directed
            low, high = edge_budget(graph["num_nodes"], CONDITIONED_DENSITY)
            assert low <= len(graph["edges"]) <= high
            assert networkx_occurrences(graph, source) and not networkx_occurrences(graph, target)
            assert item["truth"] == {
                "source": source,
                "target": target,
                "occurrences": {source: [list(o) for o in networkx_occurrences(graph, source)], target: []},
            }
            if variant == "D2S":  # a diamond always holds a non-induced square
                assert networkx_occurrences(graph, "square", induced=False)


def test_rejection_builder_deduplicates(modification_sets) -> None:
    for items in modification_sets.values():
        graphs = [item["graph"] for item in items]
        by_count = Counter(len(g["edges"]) for g in graphs)
        for m, count in by_count.items():
            if count > 1:
                assert m < 50
                same = [to_networkx(g, items[0]["directed"]) for g in graphs if len(g["edges"]) == m]
                for i in range(len(same)):
                    for j in range(i):
                        assert same[i].number_of_nodes() != same[j].number_of_nodes() or not nx.is_isomorphic(
                            same[i], same[j]
                        )


@pytest.fixture(scope="module")
def undirected_detection() -> list[dict]:
    return detection_items(False, "small", per_n=3)


def test_isomorphic_pairs_faithful_and_hardened(undirected_detection) -> None:
    faithful = isomorphism_items(undirected_detection, "faithful")
    hardened = isomorphism_items(undirected_detection, "hardened")
    positional_hits = 0
    for source, fair, hard in zip(undirected_detection, faithful, hardened, strict=True):
        g1, g2 = fair["graphs"]
        mapping = fair["truth"]["mapping"]
        n = g1["num_nodes"]
        assert g1 == source["graph"] and hard["graphs"][0] == g1 and hard["truth"]["mapping"] == mapping
        assert sorted(mapping) == list(range(100, 100 + n))
        # the faithful copy keeps node order and edge order: position i of G1 is position i of G2
        assert g2["nodes"] == [mapping[v] for v in range(n)]
        assert g2["edges"] == [[mapping[u], mapping[v]] for u, v in g1["edges"]]
        h2 = hard["graphs"][1]
        assert sorted(h2["nodes"]) == sorted(g2["nodes"])
        assert sorted(h2["edges"]) == sorted(sorted(e) for e in g2["edges"])
        for pair in (fair, hard):
            assert nx.is_isomorphic(to_networkx(pair["graphs"][0], False), to_networkx(pair["graphs"][1], False))
            assert verify_mapping(*pair["graphs"], dict(enumerate(mapping)), strict=True)
        # the header-order baseline: map the i-th node of G1 to the i-th node of G2
        assert verify_mapping(g1, g2, dict(zip(range(n), g2["nodes"])), strict=True)
        positional_hits += verify_mapping(g1, h2, dict(zip(range(n), h2["nodes"])), strict=True)
    assert positional_hits <= len(hardened) // 5  # the leak is gone (bar automorphisms of tiny graphs)
    with pytest.raises(ValueError, match="faithful' or 'hardened"):
        isomorphism_items(undirected_detection, "shuffled")
    with pytest.raises(ValueError, match="undirected detection"):
        isomorphism_items(detection_items(True, "small", per_n=1), "faithful")


def test_kcore_sets_hold_the_three_core(undirected_detection) -> None:
    items = kcore_items(undirected_detection)
    assert any(item["truth"]["core"] for item in items) and any(not item["truth"]["core"] for item in items)
    for item, source in zip(items, undirected_detection, strict=True):
        assert item["graph"] == source["graph"] and item["truth"]["source_id"] == source["item_id"]
        core = nx.k_core(to_networkx(item["graph"], False), 3)
        assert item["truth"]["core"] == sorted(core.nodes) and item["truth"]["k"] == 3
        if item["truth"]["core"]:
            assert min(dict(core.degree()).values()) >= 3


def test_ba2motif_structure() -> None:
    items = ba2motif_items(per_class=20, test_per_class=5)
    assert [i["index"] for i in items] == list(range(40))
    assert [i["truth"]["label"] for i in items] == [0] * 20 + [1] * 20
    assert Counter(i["variant"] for i in items) == {"discrimination": 30, "classification": 10}
    assert [i["variant"] for i in items[15:20]] == ["classification"] * 5
    house, cycle = get_pattern("house").graph(), nx.cycle_graph(5)
    for item in items:
        graph = to_networkx(item["graph"], False)
        motif = item["truth"]["motif"]
        assert graph.number_of_nodes() == 25 and graph.number_of_edges() == (26 if motif == "house" else 25)
        base = graph.subgraph(range(20))
        assert nx.is_tree(base)
        assert nx.is_isomorphic(graph.subgraph(range(20, 25)), house if motif == "house" else cycle)
        assert sum(1 for u, v in graph.edges if (u < 20) != (v < 20)) == 1
        assert nx.is_connected(graph)
    assert np.mean([len(i["graph"]["edges"]) for i in items]) == 25.5
    assert {i["truth"]["motif"] for i in items if i["truth"]["label"] == 0} == {"house"}
    swapped = ba2motif_items(per_class=20, test_per_class=5, house_label=1)
    assert {i["truth"]["motif"] for i in swapped if i["truth"]["label"] == 0} == {"cycle5"}
    assert swapped[20]["graph"] == items[0]["graph"]  # the same house graphs, relabelled
    with pytest.raises(ValueError, match="house_label"):
        ba2motif_items(per_class=4, house_label=2)


def test_ba2motif_paper_split_and_statistics() -> None:
    items = ba2motif_items()
    rows = {r["dataset_type"]: r for r in dataset_statistics(items)}
    assert (rows["Discrimination"]["num"], rows["Classification"]["num"]) == (900, 100)
    assert all(
        r["avg_node"] == 25 and r["avg_edge"] == 25.5 and round(r["avg_density"], 3) == 0.085 for r in rows.values()
    )
    test = [i["index"] for i in items if i["variant"] == "classification"]
    assert test == [*range(450, 500), *range(950, 1000)]


def test_discriminative_turns() -> None:
    pool = ba2motif_items(per_class=30, test_per_class=10)
    turns = discriminative_turns(pool, n_turns=5, per_label=15)
    by_id = {i["item_id"]: i for i in pool}
    for turn in turns:
        ids = turn["truth"]["graph_ids"]
        assert len(set(ids)) == 30 and turn["truth"]["labels"] == [0] * 15 + [1] * 15
        assert all(by_id[i]["variant"] == "discrimination" for i in ids)
        assert [by_id[i]["truth"]["label"] for i in ids] == turn["truth"]["labels"]
        assert turn["graphs"] == [by_id[i]["graph"] for i in ids]
        assert turn["truth"]["label_motifs"] == ["house", "cycle5"]
    with pytest.raises(ValueError, match="15 discrimination graphs per label"):
        discriminative_turns(ba2motif_items(per_class=10, test_per_class=0), per_label=15)


@pytest.mark.parametrize("pattern", FREQUENT_PATTERNS)
def test_frequent_pools_and_turns(pattern: str) -> None:
    pool = frequent_graph_items(pattern, "small", per_n=2)
    assert pool and all(
        item["truth"]["count"] == len(networkx_occurrences(item["graph"], pattern)) > 0 for item in pool
    )
    turns = frequent_turns(pool, n_turns=4, turn_size=10)
    by_id = {item["item_id"]: item for item in pool}
    for turn in turns:
        assert len(set(turn["truth"]["graph_ids"])) == 10 and turn["truth"]["support"] == 10
        assert turn["graphs"] == [by_id[i]["graph"] for i in turn["truth"]["graph_ids"]]
        assert turn["directed"] == get_pattern(pattern).directed
    assert len(frequent_turns(pool, turn_size=3)) == 100  # small: 100 turns by default


def test_frequent_errors() -> None:
    with pytest.raises(ValueError, match="has no frequent-subgraph set"):
        frequent_graph_items("tailed_triangle", "small", per_n=1)
    pool = frequent_graph_items("triangle", "small", per_n=1)
    with pytest.raises(ValueError, match="a turn needs 50 graphs"):
        frequent_turns(pool, turn_size=50)
    with pytest.raises(ValueError, match="one frequent_graph set"):
        frequent_turns(pool + frequent_graph_items("square", "small", per_n=1), turn_size=2)


def test_eval_subsets() -> None:
    assert eval_subset("detection", "small", 250) == list(range(250))
    drawn = eval_subset("detection", "medium", 250, with_replacement=True)
    assert len(drawn) == 50 and all(0 <= i < 250 for i in drawn)
    assert drawn == eval_subset("detection", "medium", 250, with_replacement=True)  # shared by name
    assert drawn != eval_subset("detection", "large", 250, with_replacement=True)
    distinct = eval_subset("modification/S2H", "large", 129)
    assert len(set(distinct)) == 50
    assert eval_subset("modification/D2S", "large", 25) == list(range(25))
    assert len(eval_subset("detection", "large", 20, with_replacement=True)) == 50
    with pytest.raises(ValueError, match="unknown scale"):
        eval_subset("detection", "huge", 10)


def test_translation_items() -> None:
    items = translation_items(per_pattern=3)
    assert len(items) == 27 and len({i["item_id"] for i in items}) == 27
    assert items[0]["item_id"] == "translation/triangle/-/0000"
    assert {i["truth"]["num_nodes"] for i in items} == {20} and {i["truth"]["occurrences"] for i in items} == {1}
    assert {i["variant"] for i in items if i["directed"]} == {"v_structure", "ffl", "fbl", "d_diamond"}


def test_determinism_by_seed() -> None:
    assert detection_items(True, "small", per_n=2) == detection_items(True, "small", per_n=2)
    assert detection_items(True, "small", per_n=2) != detection_items(True, "small", per_n=2, seed=1)
    assert modification_items("S2D", "small", per_n=2) == modification_items("S2D", "small", per_n=2)
    assert modification_items("S2D", "small", per_n=2) != modification_items("S2D", "small", per_n=2, seed=3)
    assert ba2motif_items(per_class=5, test_per_class=1) == ba2motif_items(per_class=5, test_per_class=1)
    assert ba2motif_items(per_class=5, test_per_class=1, seed=1) != ba2motif_items(per_class=5, test_per_class=1)
    detection = detection_items(False, "small", per_n=1)
    assert isomorphism_items(detection, "hardened") == isomorphism_items(detection, "hardened")
    assert isomorphism_items(detection, seed=1) != isomorphism_items(detection)


def test_item_ids_are_unique_and_records_plain() -> None:
    detection = detection_items(False, "small", per_n=1)
    items = [
        *detection,
        *isomorphism_items(detection),
        *isomorphism_items(detection, "hardened"),
        *kcore_items(detection),
        *modification_items("F2B", "small", per_n=1),
    ]
    assert len({i["item_id"] for i in items}) == len(items)
    assert all(density(i["graph"] if "graph" in i else i["graphs"][0], i["directed"]) <= 1 for i in items)

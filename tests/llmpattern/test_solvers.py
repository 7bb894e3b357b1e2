"""Ground-truth solvers: agreement with networkx on generated sets, hand cases, k-core, mapping verifier,
frequent and discriminative checks."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.llmpattern.datasets import graph_record, to_networkx
from graphaudit.llmpattern.generators import ba2motif_items, detection_items, frequent_graph_items, modification_items
from graphaudit.llmpattern.patterns import (
    DIRECTED_PATTERNS,
    FREQUENT_PATTERNS,
    MODIFICATIONS,
    PATTERN_NAMES,
    UNDIRECTED_PATTERNS,
    get_pattern,
    pattern_from_edges,
)
from graphaudit.llmpattern.solvers import (
    copy_table,
    count_occurrences,
    has_occurrence,
    is_discriminative,
    is_frequent,
    k_core,
    networkx_occurrences,
    occurrence_share,
    occurrences,
    verify_mapping,
)


def patterns_for(directed: bool) -> tuple[str, ...]:
    return DIRECTED_PATTERNS if directed else UNDIRECTED_PATTERNS


@pytest.fixture(scope="module")
def small_sets() -> list[dict]:
    """Every small set, cut down: detection (3 per n), modification (2 per n), frequent pools (2 per n)."""
    items = [*detection_items(False, "small", per_n=3), *detection_items(True, "small", per_n=3)]
    for variant in MODIFICATIONS:
        items += modification_items(variant, "small", per_n=2)
    for pattern in FREQUENT_PATTERNS:
        items += frequent_graph_items(pattern, "small", per_n=2)
    return items


def test_agrees_with_networkx_on_every_small_item(small_sets) -> None:
    for item in small_sets:
        for pattern in patterns_for(item["directed"]):
            assert occurrences(item["graph"], pattern) == networkx_occurrences(item["graph"], pattern), (
                item["item_id"],
                pattern,
            )


def test_detection_truth_is_the_solver_answer(small_sets) -> None:
    for item in small_sets:
        if item["task"] == "detection":
            assert item["truth"]["occurrences"] == {
                p: [list(o) for o in networkx_occurrences(item["graph"], p)] for p in patterns_for(item["directed"])
            }


def test_non_induced_mode_agrees_with_monomorphisms(small_sets) -> None:
    for item in small_sets[::4]:
        for pattern in patterns_for(item["directed"]):
            assert occurrences(item["graph"], pattern, induced=False) == networkx_occurrences(
                item["graph"], pattern, induced=False
            ), (item["item_id"], pattern)


@st.composite
def graph_and_pattern(draw):
    pattern = get_pattern(draw(st.sampled_from(PATTERN_NAMES)))
    n = draw(st.integers(0, 8))
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v and (pattern.directed or u < v)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return graph_record(n, edges, pattern.directed), pattern


@settings(max_examples=150, deadline=None)
@given(graph_and_pattern(), st.booleans())
def test_property_agreement(case, induced: bool) -> None:
    graph, pattern = case
    assert occurrences(graph, pattern, induced) == networkx_occurrences(graph, pattern, induced)


def test_node_ids_limit_and_self_loops() -> None:
    # a triangle on 100, 102, 105 with a tail at 107, listed out of order, and a looped triangle 200-202
    graph = {
        "num_nodes": 7,
        "nodes": [107, 105, 102, 100, 200, 201, 202],
        "edges": [[105, 100], [100, 102], [102, 105], [105, 107], [200, 201], [201, 202], [202, 200], [200, 200]],
    }
    assert occurrences(graph, "triangle") == networkx_occurrences(graph, "triangle") == [(100, 102, 105)]
    assert occurrences(graph, "tailed_triangle") == [(100, 102, 105, 107)]
    assert occurrences(graph, "triangle", induced=False) == networkx_occurrences(graph, "triangle", induced=False)
    assert occurrences(graph, "triangle", induced=False) == [(100, 102, 105), (200, 201, 202)]
    full = {"num_nodes": 6, "edges": [[u, v] for u in range(6) for v in range(u + 1, 6)]}
    assert occurrences(full, "triangle", limit=2) == [(0, 1, 2), (0, 1, 3)]
    assert count_occurrences(full, "triangle") == 20 and not has_occurrence(full, "square")
    with pytest.raises(ValueError, match="does not list"):
        occurrences({"num_nodes": 2, "edges": [[0, 5]]}, "triangle")


def test_large_patterns_fall_back_to_networkx() -> None:
    path7 = pattern_from_edges([(i, i + 1) for i in range(6)], directed=False)
    cycle8 = graph_record(8, [(i, (i + 1) % 8) for i in range(8)], False)
    assert occurrences(cycle8, path7) == networkx_occurrences(cycle8, path7)
    assert len(occurrences(cycle8, path7)) == 8
    assert occurrences(cycle8, path7, limit=3) == occurrences(cycle8, path7)[:3]
    with pytest.raises(ValueError, match="21-bit table"):
        copy_table(path7)
    path6 = pattern_from_edges([(i, i + 1) for i in range(5)], directed=False)
    assert occurrences(cycle8, path6) == networkx_occurrences(cycle8, path6)  # tabulated: 15 bits


def test_k_core_matches_networkx(small_sets) -> None:
    for item in small_sets:
        if not item["directed"]:
            for k in (1, 2, 3, 4):
                expected = sorted(nx.k_core(to_networkx(item["graph"], False), k).nodes)
                assert k_core(item["graph"], k) == expected, (item["item_id"], k)
    with pytest.raises(ValueError, match="self-loops"):
        k_core({"num_nodes": 2, "edges": [[0, 0], [0, 1]]})


def test_k_core_hand_cases() -> None:
    k4_with_tail = {"num_nodes": 6, "edges": [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3], [3, 4], [4, 5]]}
    assert k_core(k4_with_tail, 3) == [0, 1, 2, 3]
    assert k_core({"num_nodes": 5, "edges": [[i, (i + 1) % 5] for i in range(5)]}, 3) == []


TRIANGLE_TAIL = {"num_nodes": 4, "edges": [[0, 1], [0, 2], [1, 2], [2, 3]]}
RELABELLED = {"num_nodes": 4, "nodes": [100, 101, 102, 103], "edges": [[101, 102], [101, 100], [100, 102], [100, 103]]}


def test_mapping_verifier_hand_cases() -> None:
    right = {0: 101, 1: 102, 2: 100, 3: 103}
    assert verify_mapping(TRIANGLE_TAIL, RELABELLED, right, strict=True)
    assert verify_mapping(TRIANGLE_TAIL, RELABELLED, {0: 102, 1: 101, 2: 100, 3: 103}, strict=True)  # automorphism
    assert not verify_mapping(TRIANGLE_TAIL, RELABELLED, {0: 100, 1: 101, 2: 102, 3: 103})
    assert not verify_mapping(TRIANGLE_TAIL, RELABELLED, {0: 101, 1: 102, 2: 100})  # node 3 keeps id 3
    assert verify_mapping(TRIANGLE_TAIL, RELABELLED, {**right, 9: 555})  # keys outside G1 are ignored
    # a non-injective map merges nodes: the merged edge count no longer matches
    assert not verify_mapping(TRIANGLE_TAIL, RELABELLED, {0: 101, 1: 101, 2: 100, 3: 103})


def test_mapping_verifier_partial_and_strict() -> None:
    g1 = {"num_nodes": 3, "edges": [[0, 1]]}  # node 2 is isolated
    g2 = {"num_nodes": 3, "nodes": [100, 101, 102], "edges": [[101, 100]]}
    partial = {0: 100, 1: 101}
    assert verify_mapping(g1, g2, partial)  # repository rule: the edges match
    assert not verify_mapping(g1, g2, partial, strict=True)  # but it is not a bijection
    assert verify_mapping(g1, g2, {**partial, 2: 102}, strict=True)
    assert not verify_mapping(g1, g2, {**partial, 2: 101}, strict=True)
    directed1 = {"num_nodes": 2, "edges": [[0, 1]]}
    directed2 = {"num_nodes": 2, "nodes": [100, 101], "edges": [[101, 100]]}
    assert verify_mapping(directed1, directed2, {0: 100, 1: 101})
    assert not verify_mapping(directed1, directed2, {0: 100, 1: 101}, directed=True)
    assert verify_mapping(directed1, directed2, {0: 101, 1: 100}, directed=True)


def test_frequent_check() -> None:
    triangle = graph_record(3, [(0, 1), (1, 2), (0, 2)], False)
    path = graph_record(3, [(0, 1), (1, 2)], False)
    assert is_frequent("triangle", [triangle] * 7 + [path] * 3)
    assert not is_frequent("triangle", [triangle] * 6 + [path] * 4)
    assert occurrence_share("triangle", [triangle, path]) == 0.5
    path8 = pattern_from_edges([(i, i + 1) for i in range(7)], directed=False)
    long_path = graph_record(8, [(i, i + 1) for i in range(7)], False)
    assert is_frequent(path8, [long_path] * 10)
    assert not is_frequent(path8, [long_path] * 10, rule="repo")  # 8 nodes: the repository scores 0
    with pytest.raises(ValueError, match="'paper' or 'repo'"):
        is_frequent("triangle", [triangle], rule="clean")


def test_discriminative_check_on_ba2motif() -> None:
    items = ba2motif_items(per_class=20, test_per_class=0)
    house = [i["graph"] for i in items if i["truth"]["motif"] == "house"]
    cycle = [i["graph"] for i in items if i["truth"]["motif"] == "cycle5"]
    cycle5 = pattern_from_edges([(i, (i + 1) % 5) for i in range(5)], directed=False)
    edge = pattern_from_edges([(0, 1)], directed=False)
    for rule in ("paper", "repo"):
        assert is_discriminative("house", house, cycle, rule=rule)
        assert is_discriminative("triangle", house, cycle, rule=rule)  # the roof; BA trees have no cycles
        assert is_discriminative(cycle5, cycle, house, rule=rule)  # a house holds no induced 5-cycle
        assert not is_discriminative(edge, cycle, house, rule=rule)
    assert is_discriminative("house", cycle, house, rule="paper")  # the paper's rule works either way round
    assert not is_discriminative("house", cycle, house, rule="repo")
    assert not is_discriminative(cycle5, cycle, house, induced=False)  # non-induced: every house has a C5
    big = pattern_from_edges([(i, j) for i in range(5) for j in range(i + 1, 5)] + [(4, 5)], directed=False)
    complete = graph_record(6, [(i, j) for i in range(5) for j in range(i + 1, 5)] + [(4, 5)], False)
    assert is_discriminative(big, [complete] * 3, cycle[:3], rule="paper")
    assert not is_discriminative(big, [complete] * 3, cycle[:3], rule="repo")  # 11 edges

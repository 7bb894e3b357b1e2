"""DFS tuple field order (gSpan's (i, j, l_i, l_e, l_j) against the paper's <i, j, l_i, l_j, l_ij>) and the paper's
greedy Algorithm 1: hand-computed codes and texts, minimality against a brute force over every DFS code, what
changes and what does not, and the corpus statistics on MUTAG / PTC_MR (issue 19, part-1 leftovers)."""

from __future__ import annotations

import random

import igraph as ig
import numpy as np
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.graphlm.corpus import corpus_sequences, read_sequences, serialization_statistics, training_corpus
from graphaudit.graphs.dfscode import (
    TUPLE_ORDERS,
    LabeledGraph,
    code_key,
    code_text,
    dfs_code_less,
    dfs_text,
    dfs_tuple_less,
    graph_from_code,
    greedy_dfs_code,
    is_min_code,
    min_code_component,
    min_dfs_code,
    parse_dfs_text,
)

# v0 (label 0) joined to v1 (label 2) by edge label 0 and to v2 (label 1) by edge label 1: both edges start
# with l_i = 0, so gSpan's order takes the smaller edge label first, the paper's the smaller l_j.
FORK = LabeledGraph.build([0, 2, 1], [(0, 1, 0), (0, 2, 1)])


def random_graph(rng: random.Random, n: int, extra: int, node_labels: int, edge_labels: int) -> LabeledGraph:
    pairs = {(rng.randrange(v), v) for v in range(1, n)}
    for _ in range(extra if n > 1 else 0):
        u, v = rng.sample(range(n), 2)
        pairs.add((min(u, v), max(u, v)))
    labels = [rng.randrange(node_labels) for _ in range(n)]
    return LabeledGraph.build(labels, [(u, v, rng.randrange(edge_labels)) for u, v in sorted(pairs)])


def shuffled(rng: random.Random, graph: LabeledGraph) -> LabeledGraph:
    perm = list(range(graph.num_nodes))
    rng.shuffle(perm)
    return graph.permuted(perm)


def isomorphic(a: LabeledGraph, b: LabeledGraph) -> bool:
    if (a.num_nodes, a.num_edges) != (b.num_nodes, b.num_edges):
        return False
    ga = ig.Graph(n=a.num_nodes, edges=[(u, v) for u, v, _ in a.edges])
    gb = ig.Graph(n=b.num_nodes, edges=[(u, v) for u, v, _ in b.edges])
    return ga.isomorphic_vf2(
        gb,
        color1=list(a.node_labels),
        color2=list(b.node_labels),
        edge_color1=[lab for *_, lab in a.edges],
        edge_color2=[lab for *_, lab in b.edges],
    )


def all_dfs_codes(graph: LabeledGraph) -> set[tuple]:
    """Every DFS code of a connected graph: every root, every order of visiting unvisited neighbours; a new vertex's
    backward edges follow its tree edge by increasing target (the rightmost-path rule)."""
    adj: dict[int, dict[int, int]] = {v: {} for v in range(graph.num_nodes)}
    for u, v, lab in graph.edges:
        adj[u][v] = adj[v][u] = lab
    labels, codes = graph.node_labels, set()

    def walk(index: dict[int, int], stack: list[int], code: list[tuple]) -> None:
        while stack and all(w in index for w in adj[stack[-1]]):
            stack = stack[:-1]
        if not stack:
            codes.add(tuple(code))
            return
        p = stack[-1]
        for u in adj[p]:
            if u not in index:
                k = len(index)
                new = [(index[p], k, labels[p], adj[p][u], labels[u])]
                new += sorted((k, index[w], labels[u], adj[u][w], labels[w]) for w in adj[u] if w in index and w != p)
                walk({**index, u: k}, stack + [u], code + new)

    for root in range(graph.num_nodes):
        walk({root: 0}, [root], [])
    return codes


def brute_min(codes: set[tuple], order: str) -> tuple:
    best = None
    for code in codes:
        if best is None or dfs_code_less(code, best, order):
            best = code
    return best


# ---- hand-computed ----------------------------------------------------------------------------------
def test_fork_codes_and_texts_under_each_order():
    # in memory a tuple is (i, j, l_i, l_e, l_j) under either order; only the choice and the text differ
    assert min_dfs_code(FORK, "gspan") == ((0, 1, 0, 0, 2), (0, 2, 0, 1, 1))
    assert min_dfs_code(FORK, "paper") == ((0, 1, 0, 1, 1), (0, 2, 0, 0, 2))
    assert dfs_text(FORK) == dfs_text(FORK, "gspan") == "(0,1,0,0,2) (0,2,0,1,1)"
    assert dfs_text(FORK, "paper") == "(0,1,0,1,1) (0,2,0,2,0)"  # (i,j,l_i,l_j,l_ij)
    # one code, written both ways: the same tuples, fields moved
    code = min_dfs_code(FORK, "gspan")
    assert code_text(code, "paper") == "(0,1,0,2,0) (0,2,0,1,1)"
    assert dfs_tuple_less((0, 1, 0, 0, 2), (0, 1, 0, 1, 1), "gspan")
    assert dfs_tuple_less((0, 1, 0, 1, 1), (0, 1, 0, 0, 2), "paper")
    assert is_min_code(min_dfs_code(FORK, "paper"), "paper") and not is_min_code(min_dfs_code(FORK, "paper"), "gspan")


def test_texts_parse_back_only_under_their_own_order():
    for order in TUPLE_ORDERS:
        result = parse_dfs_text(dfs_text(FORK, order), order=order)
        assert not result.invalid and isomorphic(result.graph, FORK)
    misread = parse_dfs_text(dfs_text(FORK, "paper"), order="gspan")
    assert not misread.invalid and not isomorphic(misread.graph, FORK)  # edge labels 1 and 2, vertex 2 label 0
    with pytest.raises(ValueError, match="tuple order"):
        dfs_text(FORK, "lexical")
    with pytest.raises(ValueError, match="tuple order"):
        parse_dfs_text("(0,1,0,0,0)", order="lexical")


# ---- minimality against the brute force ------------------------------------------------------------------
def test_min_code_under_each_order_is_the_brute_force_minimum():
    rng = random.Random(7)
    differ = 0
    for _ in range(120):
        graph = random_graph(rng, rng.randint(2, 6), rng.randint(0, 4), rng.choice([1, 2, 3]), rng.choice([2, 3]))
        codes = all_dfs_codes(graph)
        best = {order: brute_min(codes, order) for order in TUPLE_ORDERS}
        for order in TUPLE_ORDERS:
            assert min_dfs_code(graph, order) == best[order]
            assert is_min_code(best[order], order)
            assert all(not is_min_code(c, order) for c in codes if c != best[order])
            assert all(code_key(best[order], order) <= code_key(c, order) for c in codes)
        differ += best["gspan"] != best["paper"]
    assert differ > 10  # the orders do pick different codes on edge-labelled graphs


def test_paper_order_codes_are_canonical():
    rng = random.Random(11)
    graphs = [random_graph(rng, rng.randint(2, 6), rng.randint(0, 3), 2, 2) for _ in range(40)]
    for graph in graphs:
        assert dfs_text(shuffled(rng, graph), "paper") == dfs_text(graph, "paper")
        assert isomorphic(parse_dfs_text(dfs_text(graph, "paper"), order="paper").graph, graph)
    for a in graphs[:15]:
        for b in graphs[:15]:
            assert (dfs_text(a, "paper") == dfs_text(b, "paper")) == isomorphic(a, b)


def test_one_edge_label_makes_the_orders_agree():
    rng = random.Random(5)
    for _ in range(60):
        graph = random_graph(rng, rng.randint(2, 7), rng.randint(0, 5), rng.choice([1, 2, 3]), 1)
        assert min_dfs_code(graph, "paper") == min_dfs_code(graph, "gspan")
        assert greedy_dfs_code(graph, "paper") == greedy_dfs_code(graph, "gspan")


def test_the_order_can_change_the_component_kept():
    # component A: l=0 -(e=0)- l=2; component B: l=0 -(e=1)- l=1. gSpan: (0,0,2) < (0,1,1); paper: (0,1,1) < (0,2,0)
    graph = LabeledGraph.build([0, 2, 0, 1], [(0, 1, 0), (2, 3, 1)])
    assert min_code_component(graph, "gspan").node_labels == (0, 2)
    assert min_code_component(graph, "paper").node_labels == (0, 1)


# ---- the paper's Algorithm 1 ---------------------------------------------------------------------------
# A triangle {2, 3, 4} with a pendant on 3 (vertex 0) and one on 2 (vertex 1), every label 0. The minimum code
# enters the triangle at 4, closes it, then takes the pendant of the deeper triangle vertex first. Greedy from
# 2 -> 4 -> 3 closes the triangle too, but from 4 -> 2 or 4 -> 3 it meets a tie (a pendant and a triangle vertex)
# and takes the lower-numbered vertex, the pendant; the smallest greedy code ends with a pendant off index 0.
TRIANGLE = LabeledGraph.build([0] * 5, [(0, 3), (1, 2), (2, 3), (2, 4), (3, 4)])
RENUMBERED = LabeledGraph.build([0] * 5, [(0, 1), (0, 2), (1, 2), (1, 3), (2, 4)])  # pendants numbered last


def test_greedy_code_breaks_ties_by_vertex_number():
    exact = ((0, 1, 0, 0, 0), (1, 2, 0, 0, 0), (2, 0, 0, 0, 0), (2, 3, 0, 0, 0), (1, 4, 0, 0, 0))
    assert min_dfs_code(TRIANGLE) == min_dfs_code(RENUMBERED) == exact
    assert greedy_dfs_code(TRIANGLE) == (
        (0, 1, 0, 0, 0),
        (1, 2, 0, 0, 0),
        (2, 0, 0, 0, 0),
        (2, 3, 0, 0, 0),
        (0, 4, 0, 0, 0),
    )
    assert greedy_dfs_code(RENUMBERED) == exact
    assert dfs_text(TRIANGLE, algorithm="greedy") != dfs_text(RENUMBERED, algorithm="greedy")  # not canonical
    assert greedy_dfs_code(FORK, "gspan") == min_dfs_code(FORK, "gspan")  # no ties: the greedy code is the minimum
    assert greedy_dfs_code(FORK, "paper") == min_dfs_code(FORK, "paper")
    with pytest.raises(ValueError, match="algorithm"):
        dfs_text(FORK, algorithm="lookahead")


def test_greedy_codes_are_valid_dfs_codes_of_the_graph():
    rng = random.Random(13)
    for _ in range(80):
        graph = random_graph(rng, rng.randint(2, 6), rng.randint(0, 4), rng.choice([1, 2]), rng.choice([1, 2]))
        codes = all_dfs_codes(graph)
        for order in TUPLE_ORDERS:
            greedy = greedy_dfs_code(graph, order)
            assert greedy in codes and not dfs_code_less(greedy, min_dfs_code(graph, order), order)
            assert isomorphic(graph_from_code(greedy), graph)
            assert not parse_dfs_text(dfs_text(graph, order, "greedy"), strict=True, order=order).invalid


# ---- corpus ---------------------------------------------------------------------------------------------
def toy():
    # graph 0: the fork (labels 0, 2, 1; edges labelled 0 and 1) plus an isolated node; graph 1: TRIANGLE
    edges = np.array([[0, 1], [0, 2], [4, 7], [5, 6], [6, 7], [6, 8], [7, 8]])
    return from_edge_list(
        "toy",
        np.array([0, 0, 0, 0, 1, 1, 1, 1, 1]),
        edges,
        node_labels=np.array([0, 2, 1, 3, 0, 0, 0, 0, 0]),
        edge_labels=np.array([0, 1, 0, 0, 0, 0, 0]),
    )


def test_corpus_sequences_write_each_line_from_the_dataset_graph():
    for order in TUPLE_ORDERS:
        corpus, texts = corpus_sequences(toy(), "first", order)
        assert texts == [dfs_text(g, order) for g in corpus] == [dfs_text(FORK, order), dfs_text(TRIANGLE, order)]
        assert [g.num_nodes for g in corpus] == [g.num_nodes for g in training_corpus(toy(), "first", order)]
        whole, whole_texts = corpus_sequences(toy(), "all", order)
        assert whole[0].num_nodes == 4 and whole_texts[0] == f"{dfs_text(FORK, order)} | (v,3)"
    corpus, texts = corpus_sequences(toy(), "first", "paper", "greedy")
    assert texts[1] == code_text(greedy_dfs_code(TRIANGLE, "paper"), "paper") != dfs_text(corpus[1], "paper")
    graphs, invalid = read_sequences(texts, order="paper")
    assert invalid == 0 and all(isomorphic(a, b) for a, b in zip(graphs, corpus))
    stats = serialization_statistics(corpus, training_corpus(toy(), "all"), "paper", texts=texts)
    assert stats["dfs_vocab"] == len({t for line in texts for t in line.split()}) == 7
    assert stats["dfs_mean_len"] == 3.5 and stats["dfs_max_len"] == 5


@pytest.mark.parametrize(
    ("name", "vocab", "unique"),
    [
        # exact gspan, exact paper, greedy gspan, greedy paper; the paper's Table 10 says 382 and 1,257
        ("MUTAG", (371, 362, 388, 381), (188, 188, 188, 188)),
        ("PTC_MR", (1216, 1263, 1221, 1256), (337, 337, 338, 338)),  # Table 5: 338 unique codes
    ],
)
def test_real_vocabularies_under_each_order_and_algorithm(mirror, tmp_path, name, vocab, unique):
    from graphaudit.data.fetch import FetchOptions, obtain
    from graphaudit.data.registry import get_spec

    graphs, _ = obtain(get_spec(name), tmp_path, FetchOptions(mirror=str(mirror), allow_download=False))
    found_vocab, found_unique = [], []
    for algorithm in ("exact", "greedy"):
        for order in ("gspan", "paper"):
            corpus, texts = corpus_sequences(graphs, "first", order, algorithm)
            stats = serialization_statistics(corpus, corpus, order, texts=texts)
            found_vocab.append(stats["dfs_vocab"])
            found_unique.append(len(set(texts)))
    assert tuple(found_vocab) == vocab and tuple(found_unique) == unique

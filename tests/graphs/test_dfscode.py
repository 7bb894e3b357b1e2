"""Minimum DFS codes (invariance, iso-equivalence, brute-force minimality) and both text serializations."""

from __future__ import annotations

import random

import igraph as ig
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.data.graphset import from_edge_list
from graphaudit.graphs.dfscode import (
    LabeledGraph,
    ParseResult,
    code_key,
    dfs_code_less,
    dfs_text,
    dfs_tuple_less,
    dgmg_actions,
    dgmg_text,
    graph_from_code,
    graphs_from_graphset,
    is_min_code,
    min_code_component,
    min_dfs_code,
    parse_dfs_text,
    parse_dgmg,
)


def random_graph(
    rng: random.Random, n: int, extra: int, node_labels: int = 2, edge_labels: int = 2, connected: bool = True
) -> LabeledGraph:
    """A random labelled graph: a random spanning tree (if connected) plus up to ``extra`` more edges."""
    pairs = set()
    if connected:
        for v in range(1, n):
            pairs.add((rng.randrange(v), v))
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
    """igraph VF2 with vertex and edge colours (an independent isomorphism test)."""
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


def all_dfs_codes(graph: LabeledGraph) -> list[tuple]:
    """Every DFS code of a connected graph, by brute force over all DFS traversals (independent of the search).

    A traversal discovers vertices one by one from the top of the stack; when ``u`` is discovered from ``p``,
    the code gets the tree edge, then ``u``'s backward edges to earlier vertices by increasing index.
    """
    adj = {v: {} for v in range(graph.num_nodes)}
    for u, v, lab in graph.edges:
        adj[u][v] = adj[v][u] = lab
    labels, codes = graph.node_labels, []

    def walk(index: dict[int, int], stack: list[int], code: list[tuple]) -> None:
        while stack and all(w in index for w in adj[stack[-1]]):
            stack = stack[:-1]
        if not stack:
            codes.append(tuple(code))
            return
        p = stack[-1]
        for u in adj[p]:
            if u in index:
                continue
            k = len(index)
            new_index = {**index, u: k}
            new = [(index[p], k, labels[p], adj[p][u], labels[u])]
            new += sorted((k, index[w], labels[u], adj[u][w], labels[w]) for w in adj[u] if w in index and w != p)
            walk(new_index, stack + [u], code + new)

    for root in range(graph.num_nodes):
        walk({root: 0}, [root], [])
    return codes


# ---- order ------------------------------------------------------------------------------------
def test_edge_order_rules() -> None:
    assert dfs_tuple_less((0, 1, 0, 0, 0), (1, 2, 0, 0, 0))  # forward: smaller target first
    assert dfs_tuple_less((1, 2, 0, 0, 0), (0, 2, 0, 0, 0))  # same target: deeper source first
    assert dfs_tuple_less((2, 0, 0, 0, 0), (2, 1, 0, 0, 0))  # backward: smaller target first
    assert dfs_tuple_less((2, 0, 0, 0, 0), (2, 3, 0, 0, 0))  # backward before the next forward edge
    assert not dfs_tuple_less((2, 3, 0, 0, 0), (2, 0, 0, 0, 0))
    assert dfs_tuple_less((0, 1, 0, 0, 1), (0, 1, 0, 1, 0))  # same edge: labels (l_i, l_e, l_j)
    assert dfs_code_less([(0, 1, 0, 0, 0)], [(0, 1, 0, 0, 0), (1, 2, 0, 0, 0)])  # a prefix is smaller


def test_code_key_agrees_with_lexicographic_order() -> None:
    rng = random.Random(3)
    codes = [min_dfs_code(random_graph(rng, rng.randint(2, 6), rng.randint(0, 4))) for _ in range(60)]
    for a in codes:
        for b in codes[:20]:
            assert (code_key(a) < code_key(b)) == dfs_code_less(a, b)


# ---- minimum DFS code -------------------------------------------------------------------------
def test_min_code_matches_brute_force_minimum() -> None:
    rng = random.Random(0)
    for _ in range(80):
        graph = random_graph(
            rng, rng.randint(2, 6), rng.randint(0, 4), node_labels=rng.choice([1, 2, 3]), edge_labels=rng.choice([1, 2])
        )
        brute = all_dfs_codes(graph)
        best = brute[0]
        for code in brute[1:]:
            if dfs_code_less(code, best):
                best = code
        assert min_dfs_code(graph) == best
        assert is_min_code(best)
        assert all(not is_min_code(c) for c in brute if c != best)


def test_min_code_invariant_under_relabelling() -> None:
    rng = random.Random(1)
    for _ in range(150):
        graph = random_graph(rng, rng.randint(2, 9), rng.randint(0, 8), node_labels=rng.choice([1, 2, 3]))
        code = min_dfs_code(graph)
        for _ in range(3):
            assert min_dfs_code(shuffled(rng, graph)) == code
        assert isomorphic(graph_from_code(code), graph)


def test_codes_equal_iff_isomorphic() -> None:
    """Many small graphs over few labels, so that isomorphic pairs are common; disconnected ones included."""
    rng = random.Random(2)
    pool = []
    for _ in range(120):
        graph = random_graph(
            rng, rng.randint(3, 5), rng.randint(0, 3), node_labels=2, edge_labels=2, connected=rng.random() < 0.7
        )
        pool += [graph, shuffled(rng, graph)]
    texts = [dfs_text(g) for g in pool]
    same = 0
    for i in range(len(pool)):
        for j in range(i + 1, len(pool)):
            iso = isomorphic(pool[i], pool[j])
            assert (texts[i] == texts[j]) == iso
            same += iso
    assert same > len(pool) // 2  # the check saw many isomorphic pairs, not only the shuffled twins


def test_symmetric_graphs_are_fast() -> None:
    star = LabeledGraph.build([1] + [0] * 40, [(0, v, 0) for v in range(1, 41)])
    assert len(min_dfs_code(star)) == 40
    clique = LabeledGraph.build([0] * 9, [(u, v, 0) for u in range(9) for v in range(u + 1, 9)])
    assert len(min_dfs_code(clique)) == 36


def test_min_code_needs_a_connected_graph_with_edges() -> None:
    with pytest.raises(ValueError):
        min_dfs_code(LabeledGraph.build([0], []))
    with pytest.raises(ValueError):
        min_dfs_code(LabeledGraph.build([0, 0, 0, 0], [(0, 1, 0), (2, 3, 0)]))


def test_disconnected_graphs_keep_every_component() -> None:
    graph = LabeledGraph.build([5, 1, 1, 2, 0], [(1, 2, 0), (3, 4, 1)])
    text = dfs_text(graph)
    assert text == "(0,1,0,1,2) | (0,1,1,0,1) | (v,5)"
    assert dfs_text(shuffled(random.Random(0), graph)) == text
    assert isomorphic(min_code_component(graph), LabeledGraph.build([0, 2], [(0, 1, 1)]))


# ---- serializations ---------------------------------------------------------------------------
def test_round_trips() -> None:
    rng = random.Random(4)
    for _ in range(150):
        graph = random_graph(
            rng, rng.randint(1, 8), rng.randint(0, 6), node_labels=3, edge_labels=3, connected=rng.random() < 0.5
        )
        text = dfs_text(graph)
        parsed = parse_dfs_text(text, strict=True)
        assert not parsed.invalid and isomorphic(parsed.graph, graph)
        assert dfs_text(parsed.graph) == text
        actions = dgmg_actions(graph)
        assert len(actions) == 2 * graph.num_nodes + 2 * graph.num_edges + 1
        for source in (dgmg_text(graph), actions):
            back = parse_dgmg(source)
            assert not back.invalid and isomorphic(back.graph, graph)


def test_dgmg_adds_nodes_in_sorted_label_order() -> None:
    graph = LabeledGraph.build([2, 0, 1], [(0, 1, 3), (1, 2, 0)])
    assert dgmg_text(graph) == (
        "ADD_NODE_0 END_EDGE ADD_NODE_1 ADD_EDGE_0 DEST_0 END_EDGE ADD_NODE_2 ADD_EDGE_3 DEST_0 END_EDGE END_NODE"
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "(0,2,1,0,1)",
        "(1,0,1,0,1)",
        "(0,1,1,0,1) (0,1,1,0,1)",
        "(0,1,1,0,1) (1,0,1,0,1)",
        "(0,1,1,0,1) (1,2,2,0,1)",
        "(0,1,1,0,1) (1,3,1,0,1)",
        "(0,1,1,0,1) (2,0,1,0,1)",
        "(0,1,1,0,1) (1,1,1,0,1)",
        "| (0,1,1,0,1)",
        "(0,1,1,0,1) |",
        "(0,1,1,0,1) | | (v,2)",
        "(v,1) (v,2)",
        "(0,1,1,0)",
        "(0, 1,1,0,1)",
        "(0,1,a,0,1)",
        "<s> (0,1,1,0,1)",
        "(0,1,1,0,1) (1,2,1,0,1) (2,0,1,0,1) (2,0,1,0,1)",
    ],
)
def test_malformed_dfs_text_is_invalid(text: str) -> None:
    result = parse_dfs_text(text)
    assert result.invalid and result.graph is None and result.reason


def test_strict_mode_demands_rightmost_extensions() -> None:
    text = "(0,1,0,0,0) (1,2,0,0,0) (0,3,0,0,0) (1,4,0,0,0)"  # (1,4): vertex 1 left the rightmost path
    assert not parse_dfs_text(text).invalid
    assert parse_dfs_text(text, strict=True).invalid


@pytest.mark.parametrize(
    "actions",
    [
        "",
        "END_NODE",
        "ADD_NODE_1",
        "ADD_NODE_1 END_EDGE",
        "ADD_NODE_1 END_EDGE END_NODE END_NODE",
        "ADD_NODE_1 ADD_EDGE_0 DEST_0 END_EDGE END_NODE",
        "ADD_NODE_1 END_EDGE ADD_NODE_1 ADD_EDGE_0 END_EDGE END_NODE",
        "ADD_NODE_1 END_EDGE ADD_NODE_1 ADD_EDGE_0 DEST_0 ADD_EDGE_0 DEST_0 END_EDGE END_NODE",
        "ADD_NODE_1 END_EDGE ADD_NODE_1 DEST_0 END_EDGE END_NODE",
        "ADD_EDGE_0 DEST_0 END_NODE",
        "ADD_NODE_x END_EDGE END_NODE",
    ],
)
def test_malformed_dgmg_is_invalid(actions: str) -> None:
    result = parse_dgmg(actions)
    assert result.invalid and result.reason


EDGE_TOKENS = st.builds(lambda *xs: "({},{},{},{},{})".format(*xs), *[st.integers(-1, 4)] * 5)
DFS_TOKENS = st.one_of(EDGE_TOKENS, st.just("|"), st.builds("(v,{})".format, st.integers(0, 3)), st.text(max_size=6))
DGMG_TOKENS = st.one_of(
    st.sampled_from(["END_EDGE", "END_NODE", "ADD_NODE_0", "ADD_EDGE_1", "DEST_0", "DEST_1"]),
    st.builds("DEST_{}".format, st.integers(0, 5)),
    st.text(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(DFS_TOKENS, max_size=8).map(" ".join)))
def test_dfs_parser_never_raises(text: str) -> None:
    result = parse_dfs_text(text)
    assert isinstance(result, ParseResult)
    assert result.invalid == (result.graph is None) and (result.reason is None) != result.invalid
    if not result.invalid:  # whatever parses is a graph whose canonical text parses again
        assert not parse_dfs_text(dfs_text(result.graph)).invalid


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(DGMG_TOKENS, max_size=10).map(" ".join)))
def test_dgmg_parser_never_raises(text: str) -> None:
    result = parse_dgmg(text)
    assert isinstance(result, ParseResult) and result.invalid == (result.graph is None)


# ---- GraphSet input ---------------------------------------------------------------------------
def test_graphs_from_graphset_uses_raw_labels_and_zero_edge_labels() -> None:
    gs = from_edge_list(
        "toy", np.array([0, 0, 0, 1, 1]), np.array([[0, 1], [1, 2], [3, 4]]), node_labels=np.array([4, 5, 4, 1, 1])
    )
    graphs = graphs_from_graphset(gs)
    assert graphs[0] == LabeledGraph.build([4, 5, 4], [(0, 1, 0), (1, 2, 0)])
    assert graphs[1] == LabeledGraph.build([1, 1], [(0, 1, 0)])
    labelled = from_edge_list(
        "toy", np.array([0, 0]), np.array([[1, 0]]), node_labels=np.array([2, 3]), edge_labels=np.array([7])
    )
    assert graphs_from_graphset(labelled)[0] == LabeledGraph.build([2, 3], [(0, 1, 7)])

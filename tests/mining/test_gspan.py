"""gSpan against a brute-force miner, gBolt's threshold, vertex cap, multiset support and projection cap."""

from __future__ import annotations

import random

import numpy as np
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.graphs.dfscode import DfsTuple, LabeledGraph, code_text, is_min_code, min_dfs_code, parse_dfs_text
from graphaudit.mining import gspan
from graphaudit.mining.gspan import graphs_from_graphset, min_support_count, mine


def random_graph(rng: random.Random, n: int, extra: int, node_labels: int, edge_labels: int) -> LabeledGraph:
    """Random labelled graph; a forest plus extra edges, so some graphs are disconnected."""
    pairs = {(rng.randrange(v), v) for v in range(1, n) if rng.random() < 0.85}
    for _ in range(extra):
        u, v = rng.sample(range(n), 2)
        pairs.add((min(u, v), max(u, v)))
    return LabeledGraph.build(
        [rng.randrange(node_labels) for _ in range(n)], [(u, v, rng.randrange(edge_labels)) for u, v in sorted(pairs)]
    )


def connected_edge_sets(graph: LabeledGraph, upper: int) -> set[frozenset[int]]:
    """Every connected edge subset spanning at most ``upper`` vertices (grown edge by edge, deduplicated)."""
    touching: dict[int, list[int]] = {}
    for eid, (u, v, _) in enumerate(graph.edges):
        touching.setdefault(u, []).append(eid)
        touching.setdefault(v, []).append(eid)
    found: set[frozenset[int]] = set()
    frontier = [frozenset([eid]) for eid in range(graph.num_edges)] if upper >= 2 else []
    while frontier:
        new = []
        for edges in frontier:
            if edges in found:
                continue
            found.add(edges)
            vertices = {x for eid in edges for x in graph.edges[eid][:2]}
            for x in vertices:
                for eid in touching[x]:
                    if eid in edges:
                        continue
                    grown = len(vertices | set(graph.edges[eid][:2]))
                    if grown <= upper:
                        new.append(edges | {eid})
        frontier = new
    return found


def brute_force(graphs: list[LabeledGraph], sigma: float, upper: int) -> dict[str, int]:
    """Support of every connected subgraph (canonicalised by its minimum DFS code), counted once per graph."""
    counts: dict[str, int] = {}
    for graph in graphs:
        keys = set()
        for edges in connected_edge_sets(graph, upper):
            chosen = [graph.edges[eid] for eid in sorted(edges)]
            nodes = sorted({x for u, v, _ in chosen for x in (u, v)})
            index = {v: k for k, v in enumerate(nodes)}
            sub = LabeledGraph.build(
                [graph.node_labels[v] for v in nodes], [(index[u], index[v], lab) for u, v, lab in chosen]
            )
            keys.add(code_text(min_dfs_code(sub)))
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    threshold = int(len(graphs) * sigma)
    return dict(sorted((k, c) for k, c in counts.items() if c >= threshold))


def test_matches_brute_force_on_random_databases() -> None:
    rng = random.Random(0)
    nonempty = 0
    for _ in range(150):
        graphs = [
            random_graph(
                rng,
                rng.randint(2, 8),
                rng.randint(0, 5),
                node_labels=rng.choice([1, 2, 3]),
                edge_labels=rng.choice([1, 2]),
            )
            for _ in range(rng.randint(3, 8))
        ]
        if rng.random() < 0.3:  # a multiset: copies count separately
            graphs += rng.choices(graphs, k=3)
        sigma, upper = rng.choice([0.1, 0.3, 0.5, 0.8]), rng.choice([2, 3, 4, 5, 8])
        expected = brute_force(graphs, sigma, upper)
        assert mine(graphs, sigma=sigma, upper=upper) == expected
        nonempty += len(expected) > 3
    assert nonempty > 80


def random_dfs_code(rng: random.Random, graph: LabeledGraph) -> list[DfsTuple]:
    """A valid DFS code of a connected graph from a random DFS (random start, child and backward-edge order)."""
    adj, labels = graph.adjacency(), graph.node_labels
    index, rmpath, used, code = {rng.randrange(graph.num_nodes): 0}, [], set(), []
    rmpath.append(next(iter(index)))
    while len(used) < graph.num_edges:
        r = rmpath[-1]
        back = [(w, el, eid) for w, el, eid in adj[r] if w in index and eid not in used]
        rng.shuffle(back)
        for w, el, eid in back:
            code.append((index[r], index[w], labels[r], el, labels[w]))
            used.add(eid)
        while rmpath and all(w in index for w, _, _ in adj[rmpath[-1]]):
            rmpath.pop()  # backtrack to the deepest vertex with an unvisited neighbour
        if not rmpath:
            break
        u = rmpath[-1]
        w, el, eid = rng.choice([x for x in adj[u] if x[0] not in index])
        index[w] = len(index)
        code.append((index[u], index[w], labels[u], el, labels[w]))
        used.add(eid)
        rmpath.append(w)
    return code


def test_minimality_kernel_agrees_with_the_exact_check() -> None:
    rng = random.Random(3)
    verdicts = []
    for _ in range(300):
        graph = random_graph(
            rng, rng.randint(2, 7), rng.randint(0, 4), node_labels=rng.choice([1, 2]), edge_labels=rng.choice([1, 2])
        )
        nodes = max(graph.components(), key=len)
        if len(nodes) < 2:
            continue
        graph = graph.induced(nodes)
        for code in [random_dfs_code(rng, graph) for _ in range(3)] + [list(min_dfs_code(graph))]:
            status = gspan._min_code_status(np.array(code, dtype=np.int64), 10_000)
            assert status == int(is_min_code(code)), code
            verdicts.append(status)
    assert 0 < sum(verdicts) < len(verdicts)


def test_codes_past_the_state_budget_go_to_the_exact_check(monkeypatch: pytest.MonkeyPatch) -> None:
    star = LabeledGraph.build([0] * 6, [(0, v, 0) for v in range(1, 6)])
    assert gspan._min_code_status(np.array(min_dfs_code(star), dtype=np.int64), 50) == -1  # 5! embeddings
    rng = random.Random(4)
    graphs = [random_graph(rng, 8, 3, node_labels=2, edge_labels=1) for _ in range(6)] + [star] * 3
    expected = mine(graphs, sigma=0.3)
    monkeypatch.setattr(gspan, "STATE_BUDGET", 0)
    assert mine(graphs, sigma=0.3) == expected == brute_force(graphs, 0.3, 8)


def test_pattern_keys_describe_connected_patterns_within_the_vertex_cap() -> None:
    rng = random.Random(1)
    graphs = [random_graph(rng, 7, 3, node_labels=2, edge_labels=2) for _ in range(6)]
    patterns = mine(graphs, sigma=0.3, upper=4)
    assert patterns
    for key in patterns:
        graph = parse_dfs_text(key, strict=True).graph
        assert graph is not None and len(graph.components()) == 1 and 2 <= graph.num_nodes <= 4
        assert code_text(min_dfs_code(graph)) == key


def test_threshold_truncates_like_gbolt() -> None:
    assert min_support_count(188, 0.1) == 18
    assert min_support_count(344, 0.1) == 34
    assert min_support_count(1024, 0.1) == 102
    assert min_support_count(4110, 0.1) == 411
    edge = LabeledGraph.build([0, 0], [(0, 1, 0)])
    other = LabeledGraph.build([1, 1], [(0, 1, 0)])
    graphs = [edge] * 2 + [other] * 8  # support 2 of 10: kept at sigma 0.29 (int(2.9) = 2), dropped at 0.3
    assert "(0,1,0,0,0)" in mine(graphs, sigma=0.29)
    assert "(0,1,0,0,0)" not in mine(graphs, sigma=0.3)
    assert mine(graphs, min_support=2) == mine(graphs, sigma=0.29)


def test_vertex_cap_keeps_backward_edges_at_the_cap() -> None:
    triangle = LabeledGraph.build([0, 0, 0], [(0, 1, 0), (1, 2, 0), (0, 2, 0)])
    assert mine([triangle], sigma=1.0, upper=2) == {"(0,1,0,0,0)": 1}
    assert mine([triangle], sigma=1.0, upper=3) == {
        "(0,1,0,0,0)": 1,
        "(0,1,0,0,0) (1,2,0,0,0)": 1,
        "(0,1,0,0,0) (1,2,0,0,0) (2,0,0,0,0)": 1,
    }
    assert mine([triangle], sigma=1.0, upper=1) == {}


def test_multiset_support_counts_every_copy() -> None:
    path = LabeledGraph.build([0, 1, 0], [(0, 1, 0), (1, 2, 0)])
    single = LabeledGraph.build([0, 1], [(0, 1, 0)])
    patterns = mine([path, path, path, single], sigma=0.5)
    assert patterns == {"(0,1,0,0,1)": 4, "(0,1,0,0,1) (1,2,1,0,0)": 3}


def test_projection_cap_prunes_branches_but_not_roots() -> None:
    triangle = LabeledGraph.build([0, 0, 0], [(0, 1, 0), (1, 2, 0), (0, 2, 0)])
    # root (0,1,0,0,0) has 6 embeddings (3 edges, both directions); its child paths have 6 too
    assert mine([triangle], sigma=1.0, upper=3, max_projection=1) == {"(0,1,0,0,0)": 1}
    assert mine([triangle], sigma=1.0, upper=3, max_projection=6) == mine([triangle], sigma=1.0, upper=3)
    # copies count in the projection size, as in gBolt, which mines every copy
    assert mine([triangle] * 2, sigma=1.0, upper=3, max_projection=6) == {"(0,1,0,0,0)": 2}
    rng = random.Random(2)
    graphs = [random_graph(rng, 7, 4, node_labels=2, edge_labels=1) for _ in range(8)]
    full, capped = mine(graphs, sigma=0.2), mine(graphs, sigma=0.2, max_projection=10)
    assert set(capped) < set(full) and all(full[k] == v for k, v in capped.items())


def test_mines_a_graphset_without_edge_labels() -> None:
    gs = from_edge_list(
        "toy",
        np.repeat(np.arange(3), 3),
        np.array([[0, 1], [1, 2], [3, 4], [4, 5], [6, 7]]),
        node_labels=np.array([1, 2, 1, 1, 2, 1, 1, 2, 2]),
    )
    patterns = mine(graphs_from_graphset(gs), sigma=0.5, upper=8)
    assert patterns == {"(0,1,1,0,2)": 3, "(0,1,1,0,2) (1,2,2,0,1)": 2}


@pytest.mark.parametrize("sigma", [0.0, 1.0])
def test_empty_and_edgeless_databases(sigma: float) -> None:
    assert mine([], sigma=sigma) == {}
    assert mine([LabeledGraph.build([0, 1], [])], sigma=sigma) == {}

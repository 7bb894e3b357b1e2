"""The training corpus as the paper serializes it, its statistics (Tables 9-10) and three training-free
generators (a bootstrap resampler, a uniform random-label baseline with matched sizes and a label-aware
degree-preserving edge-swap stand-in for the structural baselines).

Sequence files: one canonical DFS text per line (``graphaudit.graphs.dfscode.dfs_text``), the format the
generated-set evaluator reads; a line that does not parse is counted as invalid.

Tuple field order (``order``): ``"gspan"`` (default, ``(i,j,l_i,l_e,l_j)``) or ``"paper"`` (the paper's
``<i, j, l_i, l_j, l_ij>``, see :mod:`graphaudit.graphs.dfscode`). It decides which code is minimal, hence the
tokens, the vocabulary and (``components: first``) the component kept, but only for graphs with more than one
edge label; a corpus serialized under one order must be read back under the same one.

Code construction (``algorithm``): ``"exact"`` (default, the minimum DFS code) or ``"greedy"``, the paper's
Algorithm 1 read literally (:func:`graphaudit.graphs.dfscode.greedy_dfs_code`), which is not canonical but, with
``order="paper"``, gives the paper's Table 10 vocabularies (less one), Table 5's unique codes and PROTEINS'
70,257 patterns. Its codes depend on the vertex numbering, so :func:`corpus_sequences` writes each line from
the dataset's own graph, never from the renumbered component.
"""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import GraphSet
from graphaudit.graphs.dfscode import (
    DEFAULT_ORDER,
    Algorithm,
    LabeledGraph,
    TupleOrder,
    canonical_components,
    component_graph,
    dfs_text,
    dgmg_actions,
    graphs_from_graphset,
    min_code_component,
    parse_dfs_text,
    parts_text,
)

DGMG_SPECIAL_TOKENS = 2  # BOS and EOS around the action sequence (Table 10 counts 2|V| + 2|E| + 3)


def _check_components(components: str) -> None:
    if components not in ("first", "all"):
        raise ValueError(f"graphlm.components must be 'first' or 'all', got {components!r}")


def training_corpus(
    graphs: GraphSet, components: str, order: TupleOrder = DEFAULT_ORDER, algorithm: Algorithm = "exact"
) -> list[LabeledGraph]:
    """Every graph of the dataset (the paper trains on all of them); ``components: first`` keeps only the
    component with the smallest DFS code (under the tuple ``order``, by ``algorithm``), as the paper's
    serialization does (spec 4.2)."""
    _check_components(components)
    corpus = graphs_from_graphset(graphs)
    if components == "first":
        return [min_code_component(g, order, algorithm) for g in corpus]
    return corpus


def corpus_sequences(
    graphs: GraphSet, components: str, order: TupleOrder = DEFAULT_ORDER, algorithm: Algorithm = "exact"
) -> tuple[list[LabeledGraph], list[str]]:
    """The training corpus (as :func:`training_corpus`) and its DFS text, one line per graph, both made from the
    dataset's own graphs. With ``algorithm="exact"`` each line is ``dfs_text(graph, order)`` of its corpus graph;
    with ``"greedy"`` it is the paper's code of the original graph (re-serializing the renumbered component
    could give another code)."""
    _check_components(components)
    corpus, texts = [], []
    for graph in graphs_from_graphset(graphs):
        parts = canonical_components(graph, order, algorithm)
        if components == "first":
            if not parts:
                raise ValueError("the graph has no vertices")
            parts = parts[:1]
            corpus.append(component_graph(parts[0]))
        else:
            corpus.append(graph)
        texts.append(parts_text(parts, order))
    return corpus, texts


def dataset_statistics(graphs: GraphSet) -> dict[str, float]:
    """Table 9: graph count, mean / max nodes, mean edges, per-graph mean degree 2m/n and density 2m/(n(n-1))."""
    n, m = graphs.node_counts().astype(float), graphs.edge_counts().astype(float)
    degree = np.divide(2 * m, n, out=np.zeros_like(m), where=n > 0)
    return {
        "graphs": graphs.num_graphs,
        "avg_nodes": float(n.mean()),
        "avg_edges": float(m.mean()),
        "max_nodes": int(n.max()),
        "avg_degree": float(degree.mean()),
        "density": float(graphs.densities().mean()),
    }


def serialization_statistics(
    corpus: list[LabeledGraph],
    whole: list[LabeledGraph],
    order: TupleOrder = DEFAULT_ORDER,
    texts: list[str] | None = None,
) -> dict[str, float]:
    """Table 10: mean / max length and vocabulary of the DFS text of the corpus (one token per tuple, tuple
    fields in ``order``; ``texts`` from :func:`corpus_sequences` when given, else the exact ``dfs_text``) and of
    the DGMG action sequence (with BOS and EOS) of the whole graphs: DGMG adds every node, so its lengths follow
    2|V| + 2|E| + 3 over the dataset's full graphs (spec, Table 10 hints)."""
    lines = [dfs_text(g, order) for g in corpus] if texts is None else texts
    dfs_tokens = [line.split() for line in lines]
    dgmg = [dgmg_actions(g) for g in whole]
    dfs_lengths = np.array([len(t) for t in dfs_tokens])
    dgmg_lengths = np.array([len(a) + DGMG_SPECIAL_TOKENS for a in dgmg])
    return {
        "dfs_mean_len": float(dfs_lengths.mean()),
        "dfs_max_len": int(dfs_lengths.max()),
        "dfs_vocab": len({t for tokens in dfs_tokens for t in tokens}),
        "dgmg_mean_len": float(dgmg_lengths.mean()),
        "dgmg_max_len": int(dgmg_lengths.max()),
        "dgmg_vocab": len({t for actions in dgmg for t in actions}),
    }


def read_sequences(lines: list[str], order: TupleOrder = DEFAULT_ORDER) -> tuple[list[LabeledGraph], int]:
    """Parse DFS-text lines written under the tuple ``order`` into graphs; returns (valid graphs, number of
    invalid lines)."""
    results = [parse_dfs_text(line, order=order) for line in lines]
    return [r.graph for r in results if not r.invalid], sum(r.invalid for r in results)


def bootstrap_sample(corpus: list[LabeledGraph], size: int, rng: np.random.Generator) -> list[LabeledGraph]:
    """``size`` i.i.d. draws with replacement from the corpus (Algorithm 2's resample)."""
    return [corpus[i] for i in rng.integers(0, len(corpus), size=size)]


def random_label_graphs(corpus: list[LabeledGraph], size: int, rng: np.random.Generator) -> list[LabeledGraph]:
    """Uniform random graphs with matched sizes: for each draw of a training graph, the same numbers of
    nodes and edges placed uniformly at random, node and edge labels uniform over the corpus alphabets."""
    node_alphabet = sorted({label for g in corpus for label in g.node_labels})
    edge_alphabet = sorted({label for g in corpus for _, _, label in g.edges}) or [0]
    graphs = []
    for i in rng.integers(0, len(corpus), size=size):
        n, m = corpus[i].num_nodes, corpus[i].num_edges
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
        chosen = rng.choice(len(pairs), size=min(m, len(pairs)), replace=False) if pairs else []
        edges = [(*pairs[k], int(rng.choice(edge_alphabet))) for k in sorted(chosen)]
        graphs.append(LabeledGraph.build([int(rng.choice(node_alphabet)) for _ in range(n)], edges))
    return graphs


EDGE_SWAPS_PER_EDGE = 10
"""Attempted double-edge swaps per edge of each drawn graph (our choice; the paper names no stand-in)."""


def edge_swap_graphs(corpus: list[LabeledGraph], size: int, rng: np.random.Generator) -> list[LabeledGraph]:
    """The label-aware, non-memorizing stand-in for the structural baselines (spec 6.3; Limitation (d)): for each
    draw of a training graph, :data:`EDGE_SWAPS_PER_EDGE` x |E| attempted double-edge swaps a-b, c-d -> a-d, c-b,
    each edge keeping its label, a swap rejected when it makes a loop or a duplicate edge or changes the number of
    components. Node labels, every node's degree and the edge-label multiset are kept; the structure is not."""
    return [_edge_swapped(corpus[i], rng) for i in rng.integers(0, len(corpus), size=size)]


def _edge_swapped(graph: LabeledGraph, rng: np.random.Generator) -> LabeledGraph:
    edges = [tuple(e) for e in graph.edges]
    if len(edges) < 2:
        return graph
    present = {(u, v) for u, v, _ in edges}
    components = _components(graph.num_nodes, edges)
    for _ in range(EDGE_SWAPS_PER_EDGE * len(edges)):
        i, j = (int(k) for k in rng.choice(len(edges), size=2, replace=False))
        (a, b, first), (c, d, second) = edges[i], edges[j]
        if rng.random() < 0.5:
            c, d = d, c
        one, two = (min(a, d), max(a, d)), (min(c, b), max(c, b))
        if len({a, b, c, d}) < 4 or one in present or two in present:
            continue
        trial = list(edges)
        trial[i], trial[j] = (*one, first), (*two, second)
        if _components(graph.num_nodes, trial) != components:
            continue
        present -= {edges[i][:2], edges[j][:2]}
        present |= {one, two}
        edges = trial
    return LabeledGraph.build(graph.node_labels, edges)


def _components(n: int, edges: list[tuple[int, ...]]) -> int:
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v, *_ in edges:
        parent[root(u)] = root(v)
    return len({root(x) for x in range(n)})

"""gSpan: frequent connected labelled subgraphs of a graph database, with gBolt's conventions.

The search is Yan & Han's (2002): grow DFS codes by rightmost-path extensions, keep every embedding
(projection) of the current code, prune codes that are infrequent or not minimal (:func:`is_min_code`).
It follows the patched gBolt the paper used (fast-gspan 0.1.3, ``gbolt_mine.cc``/``gbolt_extend.cc``):

- support = number of database graphs containing the pattern; a database is a multiset, so duplicated
  graphs (bootstrap resamples, generated sets) count once per copy;
- threshold: keep a pattern when its support count is ``>= int(len(graphs) * sigma)`` (gBolt truncates);
- ``upper`` caps the number of *vertices* of a pattern (gBolt ``-x``); patterns have at least one edge
  (gBolt writes frequent single vertices to a separate file, which the paper's counts do not include);
- ``max_projection`` is gBolt's ``MAX_PROJECTION_SIZE`` guard: a child extension whose projection holds more
  than that many embeddings is skipped with its whole branch, before its support is counted; the
  one-edge roots are never capped. ``None`` disables it (the paper's "no cap" reruns use 1e9);
- the same label-based partial pruning as gBolt (forward targets no smaller than the first vertex label,
  and gSpan's rightmost-path edge conditions), which only removes non-minimal codes.

A pattern's key is its minimum DFS code as text (:func:`graphaudit.graphs.dfscode.code_text`), so keys are
comparable across databases that share one label map. Identical graphs are mined once with a multiplicity,
which gives the same supports and projection sizes as mining every copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphaudit.graphs.dfscode import (Adjacency, DfsTuple, LabeledGraph, code_text, graphs_from_graphset,
                                       is_min_code)

__all__ = ["graphs_from_graphset", "mine", "min_support_count"]

# An embedding is one flat tuple: ``~gid`` (negative, so vertex membership tests never hit it), then the graph
# vertex of each DFS index. Used edges need no storage: they are the code's edges under the map.
Embedding = tuple[int, ...]


def min_support_count(n_graphs: int, sigma: float) -> int:
    """gBolt's threshold: ``int(n_graphs * sigma)`` in double precision (188 x 0.1 -> 18)."""
    return int(n_graphs * sigma)


@dataclass
class _Database:
    labels: list[tuple[int, ...]]
    adj: list[Adjacency]
    weight: list[int]  # copies of each distinct graph in the input


def _build_database(graphs: Sequence[LabeledGraph], min_support: int) -> _Database:
    """Distinct graphs with multiplicities, keeping only edges whose label triple is frequent."""
    index: dict[LabeledGraph, int] = {}
    distinct: list[LabeledGraph] = []
    weight: list[int] = []
    for graph in graphs:
        k = index.setdefault(graph, len(distinct))
        if k == len(distinct):
            distinct.append(graph)
            weight.append(0)
        weight[k] += 1
    support: dict[tuple[int, int, int], int] = {}
    for graph, w in zip(distinct, weight):
        for triple in {_triple(graph, u, v, lab) for u, v, lab in graph.edges}:
            support[triple] = support.get(triple, 0) + w
    adjs = []
    for graph in distinct:
        adj: Adjacency = [[] for _ in graph.node_labels]
        for eid, (u, v, lab) in enumerate(graph.edges):
            if support[_triple(graph, u, v, lab)] >= min_support:
                adj[u].append((v, lab, eid))
                adj[v].append((u, lab, eid))
        adjs.append(adj)
    return _Database([g.node_labels for g in distinct], adjs, weight)


def _triple(graph: LabeledGraph, u: int, v: int, label: int) -> tuple[int, int, int]:
    a, b = graph.node_labels[u], graph.node_labels[v]
    return (min(a, b), label, max(a, b))


class _Miner:
    def __init__(self, db: _Database, min_support: int, upper: int, max_projection: int | None) -> None:
        self.db, self.min_support, self.upper, self.max_projection = db, min_support, upper, max_projection
        self.patterns: dict[str, int] = {}

    def support(self, projection: list[Embedding]) -> int:
        weight = self.db.weight
        return sum(weight[~g] for g in {e[0] for e in projection})

    def projection_size(self, projection: list[Embedding]) -> int:
        weight = self.db.weight
        return sum(weight[~e[0]] for e in projection)

    def roots(self) -> dict[DfsTuple, list[Embedding]]:
        roots: dict[DfsTuple, list[Embedding]] = {}
        for gid, (labels, adj) in enumerate(zip(self.db.labels, self.db.adj)):
            for u, nbrs in enumerate(adj):
                for v, el, eid in nbrs:
                    if labels[u] <= labels[v]:
                        roots.setdefault((0, 1, labels[u], el, labels[v]), []).append((~gid, u, v))
        return roots

    def run(self) -> dict[str, int]:
        if self.upper >= 2:
            for first, projection in sorted(self.roots().items()):
                support = self.support(projection)
                if support >= self.min_support:
                    self.grow([first], projection, [0, 1], support)
        return dict(sorted(self.patterns.items()))

    def grow(self, code: list[DfsTuple], projection: list[Embedding], rmpath: list[int], support: int) -> None:
        if not is_min_code(code):
            return
        self.patterns[code_text(code)] = support
        children = self.extensions(code, projection, rmpath)
        for t in list(children):
            child = children.pop(t)  # siblings already explored are freed
            if self.max_projection is not None and self.projection_size(child) > self.max_projection:
                continue
            child_support = self.support(child)
            if child_support < self.min_support:
                continue
            if t[0] < t[1]:
                child_rmpath = rmpath[:rmpath.index(t[0]) + 1] + [t[1]]
            else:
                child_rmpath = rmpath
            self.grow(code + [t], child, child_rmpath, child_support)

    def extensions(self, code: list[DfsTuple], projection: list[Embedding], rmpath: list[int]
                   ) -> dict[DfsTuple, list[Embedding]]:
        """Rightmost-path extensions with their projections (gBolt's get_backward/first/other_forward)."""
        n = max(t[1] for t in code if t[0] < t[1]) + 1
        vlabel = [0] * n
        tree: dict[int, tuple[int, int]] = {}  # child index -> (edge label, child label) of its tree edge
        for i, j, li, le, lj in code:
            vlabel[i], vlabel[j] = li, lj
            if i < j:
                tree[j] = (le, lj)
        r_idx, min_label = rmpath[-1], code[0][2]
        lab_r = vlabel[r_idx]
        done = {(i, j) for i, j, *_ in code if i > j}
        # backward targets: rightmost-path vertices other than r and its parent, not yet joined to r, with the
        # (edge label, child label) of their tree edge down the path (gSpan's pruning condition)
        back = {rmpath[p]: tree[rmpath[p + 1]] for p in range(len(rmpath) - 2) if (r_idx, rmpath[p]) not in done}
        forward_sources = [(rmpath[p] + 1, rmpath[p], tree[rmpath[p + 1]]) for p in range(len(rmpath) - 1)]
        can_forward = n < self.upper
        out: dict[DfsTuple, list[Embedding]] = {}
        labels_of, adj_of = self.db.labels, self.db.adj
        for emb in projection:
            labels, adj = labels_of[~emb[0]], adj_of[~emb[0]]
            for w, el, _ in adj[emb[r_idx + 1]]:
                if w in emb:
                    cond = back.get(emb.index(w) - 1)
                    if cond is not None and (el > cond[0] or (el == cond[0] and lab_r >= cond[1])):
                        out.setdefault((r_idx, emb.index(w) - 1, lab_r, el, labels[w]), []).append(emb)
                elif can_forward and labels[w] >= min_label:
                    out.setdefault((r_idx, n, lab_r, el, labels[w]), []).append(emb + (w,))
            if not can_forward:
                continue
            for pos, i, (tree_el, tree_lab) in forward_sources:
                for w, el, _ in adj[emb[pos]]:
                    lw = labels[w]
                    if lw < min_label or w in emb:
                        continue
                    if tree_el < el or (tree_el == el and tree_lab <= lw):
                        out.setdefault((i, n, vlabel[i], el, lw), []).append(emb + (w,))
        return out


def mine(graphs: Sequence[LabeledGraph], sigma: float = 0.1, upper: int = 8, max_projection: int | None = None,
         min_support: int | None = None) -> dict[str, int]:
    """Frequent connected patterns (1+ edges, at most ``upper`` vertices) -> support count, sorted by key.

    ``min_support`` (an absolute count) overrides ``sigma``; by default it is ``int(len(graphs) * sigma)``.
    """
    threshold = min_support_count(len(graphs), sigma) if min_support is None else int(min_support)
    db = _build_database(graphs, threshold)
    return _Miner(db, threshold, upper, max_projection).run()

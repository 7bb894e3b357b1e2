"""gSpan: frequent connected labelled subgraphs of a graph database, with gBolt's conventions.

The search is Yan & Han's (2002): grow DFS codes by rightmost-path extensions, keep every embedding
(projection) of the current code, prune codes that are infrequent or not minimal. It follows the patched
gBolt the paper used (fast-gspan 0.1.3, ``gbolt_mine.cc``/``gbolt_extend.cc``):

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

Layout (for speed; the search is the one above). The database is one CSR adjacency over global vertex ids,
with vertex and edge labels replaced by their ranks (order-preserving, so minimality and the label pruning
are unchanged; keys are written with the original labels). A projection is an ``int32`` array, one row per
embedding, holding the global vertex of each DFS index. Each search node makes one numba call
(:func:`_children`) that enumerates the rightmost-path extensions of all embeddings, groups them by DFS
tuple, drops infrequent and over-cap groups and checks the minimality of each surviving child code
(:func:`_min_code_status`, gSpan's ``is_min``). A check that would need more than ``STATE_BUDGET`` partial
embeddings (highly symmetric patterns) is left to :func:`graphaudit.graphs.dfscode.is_min_code`, whose
merging of twin vertices keeps such patterns cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numba
import numpy as np

from graphaudit.graphs.dfscode import LabeledGraph, code_text, graphs_from_graphset, is_min_code

__all__ = ["graphs_from_graphset", "min_support_count", "mine"]

# Partial embeddings one minimality check may hold before it hands the code to the twin-merging check of
# graphaudit.graphs.dfscode (a star with k equal leaves has k! embeddings of its minimum code).
STATE_BUDGET = 20_000
_NO_CAP = int(np.iinfo(np.int64).max)  # max_projection=None (and any larger cap) inside the kernels


def min_support_count(n_graphs: int, sigma: float) -> int:
    """gBolt's threshold: ``int(n_graphs * sigma)`` in double precision (188 x 0.1 -> 18)."""
    return int(n_graphs * sigma)


@dataclass(frozen=True)
class _Database:
    """Distinct graphs as one CSR adjacency over global vertex ids, labels as ranks (module docstring)."""

    vertex_label: np.ndarray  # int64 label rank per global vertex
    vertex_graph: np.ndarray  # int64 distinct graph per global vertex
    indptr: np.ndarray  # int64, neighbours of v: nbr[indptr[v]:indptr[v + 1]]
    nbr: np.ndarray  # int32 global vertex
    edge_label: np.ndarray  # int64 edge label rank, parallel to nbr
    weight: np.ndarray  # int64 copies of each distinct graph in the input
    node_labels: list[int]  # rank -> original vertex label
    edge_labels: list[int]  # rank -> original edge label


def _distinct(graphs: Sequence[LabeledGraph]) -> tuple[list[LabeledGraph], list[int]]:
    """Distinct graphs in first-seen order and the number of copies of each."""
    copies: dict[LabeledGraph, int] = {}
    for graph in graphs:
        copies[graph] = copies.get(graph, 0) + 1
    return list(copies), list(copies.values())


def _flatten(distinct: Sequence[LabeledGraph]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertex labels and graph of every global vertex; edges as ``(u, v, label)`` rows over global ids."""
    sizes = np.array([g.num_nodes for g in distinct], dtype=np.int64)
    n_edges = np.array([g.num_edges for g in distinct], dtype=np.int64)
    labels = np.fromiter(chain.from_iterable(g.node_labels for g in distinct), np.int64, int(sizes.sum()))
    edges = np.fromiter(
        chain.from_iterable(chain.from_iterable(g.edges for g in distinct)), np.int64, 3 * int(n_edges.sum())
    ).reshape(-1, 3)
    edges[:, :2] += np.repeat(np.cumsum(sizes) - sizes, n_edges)[:, None]
    return labels, np.repeat(np.arange(len(distinct)), sizes), edges


def _frequent_edges(
    labels: np.ndarray, vertex_graph: np.ndarray, edges: np.ndarray, weight: np.ndarray, min_support: int
) -> np.ndarray:
    """Mask of the edges whose label triple ``(min l_v, l_e, max l_v)`` occurs in enough graphs."""
    _, node = np.unique(labels, return_inverse=True)
    _, edge = np.unique(edges[:, 2], return_inverse=True)
    a, b = node[edges[:, 0]], node[edges[:, 1]]
    triple = (np.minimum(a, b) * (edge.max(initial=0) + 1) + edge) * (node.max(initial=0) + 1) + np.maximum(a, b)
    graph = vertex_graph[edges[:, 0]]
    _, first = np.unique(graph * (triple.max(initial=0) + 1) + triple, return_index=True)  # once per graph
    support = np.bincount(triple[first], weights=weight[graph[first]], minlength=triple.max(initial=0) + 1)
    return support[triple] >= min_support


def _build_database(graphs: Sequence[LabeledGraph], min_support: int) -> _Database:
    """The distinct graphs with multiplicities, keeping only edges whose label triple is frequent.

    Labels are ranked among the kept edges only, which keeps the extension key space (``_children``) small.
    """
    distinct, copies = _distinct(graphs)
    weight = np.array(copies, dtype=np.int64)
    labels, vertex_graph, edges = _flatten(distinct)
    edges = edges[_frequent_edges(labels, vertex_graph, edges, weight, min_support)]
    node_labels = np.unique(labels[edges[:, :2]])
    edge_labels, edge_label = np.unique(edges[:, 2], return_inverse=True)
    src, dst = np.concatenate((edges[:, 0], edges[:, 1])), np.concatenate((edges[:, 1], edges[:, 0]))
    order = np.argsort(src, kind="stable")
    indptr = np.concatenate(([0], np.cumsum(np.bincount(src, minlength=len(labels)))))
    # vertices without kept edges get an arbitrary rank: the search never reaches them
    return _Database(
        np.searchsorted(node_labels, labels).astype(np.int64),
        vertex_graph,
        indptr,
        dst[order].astype(np.int32),
        np.tile(edge_label, 2)[order].astype(np.int64),
        weight,
        node_labels.tolist(),
        edge_labels.tolist(),
    )


# ---- minimality (gSpan's is_min) ----------------------------------------------------------------------
@numba.njit(cache=True)
def _code_graph(code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vertex labels, edge-label matrix (-1: no edge) and edge-id matrix of the graph a DFS code describes."""
    n = 0
    for t in range(code.shape[0]):
        n = max(n, code[t, 0] + 1, code[t, 1] + 1)
    vlab = np.empty(n, np.int64)
    elab = np.full((n, n), -1, np.int64)
    eid = np.full((n, n), -1, np.int64)
    for t in range(code.shape[0]):
        i, j = code[t, 0], code[t, 1]
        vlab[i], vlab[j] = code[t, 2], code[t, 4]
        elab[i, j], elab[j, i], eid[i, j], eid[j, i] = code[t, 3], code[t, 3], t, t
    return vlab, elab, eid


@numba.njit(cache=True)
def _state_hits(
    code: np.ndarray,
    t: int,
    rmpath: np.ndarray,
    depth: int,
    vmap: np.ndarray,
    inv: np.ndarray,
    used: np.ndarray,
    vlab: np.ndarray,
    elab: np.ndarray,
    eid: np.ndarray,
    out: np.ndarray,
) -> int:
    """Vertices ``w`` through which one partial embedding realizes tuple ``t``; -1 if it has a smaller one.

    Among extensions of one prefix, backward tuples come first (by target, then edge label), then forward
    ones from deeper rightmost-path vertices; so a state is scanned only as far as the target tuple.
    """
    ti, tj, tel, tlj = code[t, 0], code[t, 1], code[t, 3], code[t, 4]
    vr = vmap[rmpath[depth - 1]]
    hits = 0
    for w in range(len(vlab)):  # backward candidates from the rightmost vertex
        if elab[vr, w] < 0 or inv[w] < 0 or used[eid[vr, w]]:
            continue
        if ti < tj or inv[w] < tj or (inv[w] == tj and elab[vr, w] < tel):
            return -1
        if inv[w] == tj and elab[vr, w] == tel:
            out[hits] = w
            hits += 1
    if ti > tj:
        return hits
    for p in range(depth - 1, -1, -1):  # forward candidates, deepest source first
        i = rmpath[p]
        if i < ti:
            break
        vi = vmap[i]
        for w in range(len(vlab)):
            if elab[vi, w] < 0 or inv[w] >= 0:
                continue
            if i > ti or elab[vi, w] < tel or (elab[vi, w] == tel and vlab[w] < tlj):
                return -1
            if elab[vi, w] == tel and vlab[w] == tlj:
                out[hits] = w
                hits += 1
    return hits


@numba.njit(cache=True)
def _min_code_status(code: np.ndarray, budget: int) -> int:
    """1 if a valid DFS code is minimal, 0 if not, -1 if deciding needs more than ``budget`` embeddings.

    gSpan's ``is_min``: keep every embedding of the code's prefix into its own graph and extend them all by
    the code's next tuple; the code is not minimal as soon as some embedding offers a smaller tuple.
    """
    vlab, elab, eid = _code_graph(code)
    n, k = len(vlab), code.shape[0]
    target, count = (code[0, 2], code[0, 3], code[0, 4]), 0
    for u in range(n):
        for w in range(n):
            if elab[u, w] >= 0 and (vlab[u], elab[u, w], vlab[w]) < target:
                return 0
            count += elab[u, w] >= 0 and (vlab[u], elab[u, w], vlab[w]) == target
    if count > budget:
        return -1
    vmap, inv, used = np.full((count, n), -1), np.full((count, n), -1), np.zeros((count, k), np.bool_)
    s = 0
    for u in range(n):
        for w in range(n):
            if elab[u, w] >= 0 and (vlab[u], elab[u, w], vlab[w]) == target:
                vmap[s, 0], vmap[s, 1], inv[s, u], inv[s, w], used[s, eid[u, w]] = u, w, 0, 1, True
                s += 1
    rmpath = np.zeros(n, np.int64)
    rmpath[1], depth = 1, 2
    for t in range(1, k):
        hit_state, hit_vertex = np.empty(len(vmap) * n, np.int64), np.empty(len(vmap) * n, np.int64)
        hits = 0
        for s in range(len(vmap)):
            found = _state_hits(code, t, rmpath, depth, vmap[s], inv[s], used[s], vlab, elab, eid, hit_vertex[hits:])
            if found < 0:
                return 0
            hit_state[hits : hits + found] = s
            hits += found
        if hits > budget:
            return -1
        ti, tj = code[t, 0], code[t, 1]
        source = vmap[hit_state[:hits], ti]  # the rightmost vertex for a backward tuple
        vmap, inv, used = vmap[hit_state[:hits]], inv[hit_state[:hits]], used[hit_state[:hits]]
        for h in range(hits):
            w = hit_vertex[h]
            used[h, eid[source[h], w]] = True
            if ti < tj:
                vmap[h, tj], inv[h, w] = w, tj
        if ti < tj:
            p = 0
            while rmpath[p] != ti:
                p += 1
            rmpath[p + 1], depth = tj, p + 2
    return 1


# ---- extensions ----------------------------------------------------------------------------------------
# Candidates are grouped by a dense integer key (counting sort): ``(slot * n_edge_labels + l_e) *
# n_node_labels + l_w``, where the slot orders tuples as gSpan does among extensions of one code: slot ``j``
# for a backward edge to DFS index ``j``, slot ``2n - 1 - i`` for a forward edge from DFS index ``i`` (deeper
# sources first). Projections stay sorted by graph (candidates are emitted and gathered in row order), so a
# key's support counts a graph when it differs from the key's previous one.
@numba.njit(cache=True)
def _tally(keys: np.ndarray, graph: np.ndarray, weight: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Per key: projection size (every embedding, with its graph's copies) and support (each graph once)."""
    size, support = np.zeros(n_keys, np.int64), np.zeros(n_keys, np.int64)
    last = np.full(n_keys, -1, np.int64)
    for c in range(len(keys)):
        key, g = keys[c], graph[c]
        size[key] += weight[g]
        if last[key] != g:
            last[key] = g
            support[key] += weight[g]
    return size, support


@numba.njit(cache=True)
def _gather(
    keys: np.ndarray, rows: np.ndarray, new: np.ndarray, chosen: np.ndarray, n_keys: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidates of the ``chosen`` keys, grouped by key in candidate order: spans, rows, new vertices."""
    start = np.full(n_keys, -1, np.int64)
    spans = np.zeros((len(chosen), 2), np.int64)
    for g in range(len(chosen)):
        start[chosen[g]] = g
    for c in range(len(keys)):
        if start[keys[c]] >= 0:
            spans[start[keys[c]], 1] += 1
    total = 0
    for g in range(len(chosen)):
        spans[g, 0], total = total, total + spans[g, 1]
        spans[g, 1] = spans[g, 0]
    out_rows, out_new = np.empty(total, np.int32), np.empty(total, np.int32)
    for c in range(len(keys)):
        g = start[keys[c]]
        if g >= 0:
            out_rows[spans[g, 1]], out_new[spans[g, 1]] = rows[c], new[c]
            spans[g, 1] += 1
    return spans, out_rows, out_new


@numba.njit(cache=True)
def _roots(
    vertex_label: np.ndarray,
    vertex_graph: np.ndarray,
    indptr: np.ndarray,
    nbr: np.ndarray,
    edge_label: np.ndarray,
    weight: np.ndarray,
    n_edge_labels: int,
    n_node_labels: int,
    min_support: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Frequent one-edge codes ``(0, 1, l_u, l_e, l_w)``, ``l_u <= l_w``: tuples, spans, supports, embeddings.

    Every directed edge ``u -> w`` with ``l_u <= l_w`` is an embedding (both directions when the labels tie).
    """
    count = 0
    for u in range(len(vertex_label)):
        for a in range(indptr[u], indptr[u + 1]):
            count += vertex_label[u] <= vertex_label[nbr[a]]
    keys, source, target = np.empty(count, np.int64), np.empty(count, np.int32), np.empty(count, np.int32)
    c = 0
    for u in range(len(vertex_label)):
        for a in range(indptr[u], indptr[u + 1]):
            w = nbr[a]
            if vertex_label[u] <= vertex_label[w]:
                keys[c] = (vertex_label[u] * n_edge_labels + edge_label[a]) * n_node_labels + vertex_label[w]
                source[c], target[c] = u, w
                c += 1
    n_keys = n_node_labels * n_edge_labels * n_node_labels
    _, support = _tally(keys, vertex_graph[source], weight, n_keys)
    chosen = np.flatnonzero((support > 0) & (support >= min_support))  # min_support may be 0
    spans, source, target = _gather(keys, source, target, chosen, n_keys)
    tuples = np.zeros((len(chosen), 5), np.int64)
    tuples[:, 1] = 1
    tuples[:, 2] = chosen // (n_edge_labels * n_node_labels)
    tuples[:, 3] = chosen // n_node_labels % n_edge_labels
    tuples[:, 4] = chosen % n_node_labels
    return tuples, spans, support[chosen], np.stack((source, target), axis=1)


@numba.njit(cache=True)
def _member(row: np.ndarray, w: int) -> int:
    """DFS index of graph vertex ``w`` in one embedding, or -1."""
    for q in range(len(row)):
        if row[q] == w:
            return q
    return -1


@numba.njit(cache=True)
def _pattern_tables(
    code: np.ndarray, rmpath: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per DFS index: label, the (edge label, label) of the tree edge entering it, and backward-target bounds.

    Backward targets are the rightmost-path vertices other than the rightmost one and its parent that are not
    yet joined to it; a backward edge to one must be no smaller than the tree edge below it on the path
    (gSpan's pruning condition). ``back_el`` is -1 for a vertex that is not a target.
    """
    r = rmpath[-1]
    vlabel, tree_el, tree_lab = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    joined = np.zeros(n, np.bool_)
    for t in range(code.shape[0]):
        i, j = code[t, 0], code[t, 1]
        vlabel[i], vlabel[j] = code[t, 2], code[t, 4]
        if i < j:
            tree_el[j], tree_lab[j] = code[t, 3], code[t, 4]
        elif i == r:
            joined[j] = True
    back_el, back_lab = np.full(n, -1, np.int64), np.zeros(n, np.int64)
    for p in range(len(rmpath) - 2):
        if not joined[rmpath[p]]:
            back_el[rmpath[p]], back_lab[rmpath[p]] = tree_el[rmpath[p + 1]], tree_lab[rmpath[p + 1]]
    return vlabel, tree_el, tree_lab, back_el, back_lab


@numba.njit(cache=True)
def _extension_candidates(
    code: np.ndarray,
    rmpath: np.ndarray,
    projection: np.ndarray,
    can_forward: bool,
    vertex_label: np.ndarray,
    indptr: np.ndarray,
    nbr: np.ndarray,
    edge_label: np.ndarray,
    n_edge_labels: int,
    n_node_labels: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rightmost-path extensions of every embedding (gBolt's get_backward/first/other_forward).

    Returns one key (see above), parent row and new vertex (-1 for a backward edge) per candidate. Forward
    edges reach no label below the first vertex's, and leave a non-rightmost path vertex only when no smaller
    than the tree edge below it; both only skip non-minimal codes.
    """
    m, n = projection.shape
    depth, r = len(rmpath), rmpath[-1]
    vlabel, tree_el, tree_lab, back_el, back_lab = _pattern_tables(code, rmpath, n)
    lab_r, min_label = vlabel[r], code[0, 2]
    bound = 0
    for e in range(m):
        for p in range(depth):
            bound += indptr[projection[e, rmpath[p]] + 1] - indptr[projection[e, rmpath[p]]]
    keys, rows, new = np.empty(bound, np.int64), np.empty(bound, np.int32), np.empty(bound, np.int32)
    c = 0
    for e in range(m):
        row = projection[e]
        for a in range(indptr[row[r]], indptr[row[r] + 1]):
            w, el = nbr[a], edge_label[a]
            q = _member(row, w)
            if q >= 0:
                if back_el[q] >= 0 and (el > back_el[q] or (el == back_el[q] and lab_r >= back_lab[q])):
                    keys[c], rows[c], new[c] = (q * n_edge_labels + el) * n_node_labels + vlabel[q], e, -1
                    c += 1
            elif can_forward and vertex_label[w] >= min_label:
                keys[c] = ((2 * n - 1 - r) * n_edge_labels + el) * n_node_labels + vertex_label[w]
                rows[c], new[c] = e, w
                c += 1
        if not can_forward:
            continue
        for p in range(depth - 1):
            i, below = rmpath[p], rmpath[p + 1]
            for a in range(indptr[row[i]], indptr[row[i] + 1]):
                w, el = nbr[a], edge_label[a]
                lw = vertex_label[w]
                if lw < min_label or _member(row, w) >= 0:
                    continue
                if tree_el[below] < el or (tree_el[below] == el and tree_lab[below] <= lw):
                    keys[c] = ((2 * n - 1 - i) * n_edge_labels + el) * n_node_labels + lw
                    rows[c], new[c] = e, w
                    c += 1
    return keys[:c], rows[:c], new[:c]


@numba.njit(cache=True)
def _set_key_tuple(
    child: np.ndarray, code: np.ndarray, rmpath: np.ndarray, n: int, key: int, n_edge_labels: int, n_node_labels: int
) -> None:
    """Write the DFS tuple of extension ``key`` of ``code`` (``n`` vertices) into the last row of ``child``."""
    slot = key // (n_edge_labels * n_node_labels)
    i, j = (rmpath[-1], slot) if slot < n else (2 * n - 1 - slot, n)
    t = 0
    while code[t, 0] != i and code[t, 1] != i:
        t += 1
    child[-1, 0], child[-1, 1], child[-1, 2] = i, j, code[t, 2] if code[t, 0] == i else code[t, 4]
    child[-1, 3], child[-1, 4] = key // n_node_labels % n_edge_labels, key % n_node_labels


@numba.njit(cache=True)
def _children(
    code: np.ndarray,
    rmpath: np.ndarray,
    projection: np.ndarray,
    upper: int,
    min_support: int,
    max_projection: int,
    budget: int,
    vertex_label: np.ndarray,
    vertex_graph: np.ndarray,
    indptr: np.ndarray,
    nbr: np.ndarray,
    edge_label: np.ndarray,
    weight: np.ndarray,
    n_edge_labels: int,
    n_node_labels: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The children worth growing: frequent, within the projection cap, and not known to be non-minimal.

    Returns their tuples (in gSpan order), minimality status (1, or -1 when :func:`_min_code_status` ran out
    of budget), supports, spans into the parent rows and new vertices grouped by child, those rows and
    new vertices.
    """
    n, k = projection.shape[1], code.shape[0]
    keys, rows, new = _extension_candidates(
        code, rmpath, projection, n < upper, vertex_label, indptr, nbr, edge_label, n_edge_labels, n_node_labels
    )
    n_keys = 2 * n * n_edge_labels * n_node_labels
    size, support = _tally(keys, vertex_graph[projection[rows, 0]], weight, n_keys)
    child = np.empty((k + 1, 5), np.int64)
    child[:k] = code
    tuples, status, kept = np.empty((n_keys, 5), np.int64), np.empty(n_keys, np.int64), []
    for key in range(n_keys):
        if support[key] == 0 or support[key] < min_support or size[key] > max_projection:
            continue
        _set_key_tuple(child, code, rmpath, n, key, n_edge_labels, n_node_labels)
        s = _min_code_status(child, budget)
        if s != 0:
            tuples[len(kept)], status[len(kept)] = child[k], s
            kept.append(key)
    chosen = np.array(kept, np.int64)
    spans, rows, new = _gather(keys, rows, new, chosen, n_keys)
    return tuples[: len(kept)], status[: len(kept)], support[chosen], spans, rows, new


@numba.njit(cache=True)
def _child_projection(projection: np.ndarray, rows: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Parent embeddings ``rows``, each with its new vertex appended (forward) or unchanged (backward)."""
    width = projection.shape[1] + (new[0] >= 0)
    out = np.empty((len(rows), width), np.int32)
    for e in range(len(rows)):
        out[e, : projection.shape[1]] = projection[rows[e]]
        if width > projection.shape[1]:
            out[e, -1] = new[e]
    return out


class _Miner:
    """The depth-first search over DFS codes, one :func:`_children` call per frequent minimal code."""

    def __init__(self, db: _Database, min_support: int, upper: int, max_projection: int | None) -> None:
        self.db, self.min_support, self.upper = db, min_support, upper
        self.max_projection = _NO_CAP if max_projection is None else min(int(max_projection), _NO_CAP)
        self.tables = (
            db.vertex_label,
            db.vertex_graph,
            db.indptr,
            db.nbr,
            db.edge_label,
            db.weight,
            len(db.edge_labels),
            len(db.node_labels),
        )
        self.found: list[tuple[np.ndarray, int]] = []

    def run(self) -> dict[str, int]:
        if self.upper >= 2:
            tuples, spans, support, pairs = _roots(*self.tables, self.min_support)
            for g in range(len(tuples)):
                self.grow(tuples[g : g + 1], pairs[spans[g, 0] : spans[g, 1]], np.arange(2), int(support[g]))
        return dict(sorted((self.key(code), support) for code, support in self.found))

    def grow(self, code: np.ndarray, projection: np.ndarray, rmpath: np.ndarray, support: int) -> None:
        self.found.append((code, support))
        tuples, status, supports, spans, rows, new = _children(
            code, rmpath, projection, self.upper, self.min_support, self.max_projection, STATE_BUDGET, *self.tables
        )
        for g in range(len(tuples)):
            child = np.concatenate((code, tuples[g : g + 1]))
            if status[g] < 0 and not is_min_code([tuple(t) for t in child.tolist()]):
                continue
            i, j = int(tuples[g, 0]), int(tuples[g, 1])
            child_rmpath = np.append(rmpath[: int(np.flatnonzero(rmpath == i)[0]) + 1], j) if i < j else rmpath
            lo, hi = spans[g]
            self.grow(child, _child_projection(projection, rows[lo:hi], new[lo:hi]), child_rmpath, int(supports[g]))

    def key(self, code: np.ndarray) -> str:
        """The pattern key: the code as text, with the original labels."""
        nodes, edges = self.db.node_labels, self.db.edge_labels
        return code_text([(i, j, nodes[li], edges[le], nodes[lj]) for i, j, li, le, lj in code.tolist()])


def mine(
    graphs: Sequence[LabeledGraph],
    sigma: float = 0.1,
    upper: int = 8,
    max_projection: int | None = None,
    min_support: int | None = None,
) -> dict[str, int]:
    """Frequent connected patterns (1+ edges, at most ``upper`` vertices) -> support count, sorted by key.

    ``min_support`` (an absolute count) overrides ``sigma``; by default it is ``int(len(graphs) * sigma)``.
    """
    threshold = min_support_count(len(graphs), sigma) if min_support is None else int(min_support)
    db = _build_database(graphs, threshold)
    return _Miner(db, threshold, upper, max_projection).run()

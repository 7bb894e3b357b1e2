"""Exact graphlet counts: connected induced subgraphs with 3, 4 and 5 nodes (2 + 6 + 21 = 29 types).

Encoding. A graph on k nodes is a bitmask over its node pairs: the edge between positions q < p is bit
``p(p-1)/2 + q`` (colex order of the upper triangle, so the mask of a k-node graph is also the mask of
its first k-1 nodes and the search below can extend a mask one node at a time; 1024 masks for k = 5).
A graph's canonical code is its smallest mask over all k! orderings of its nodes, so two graphs are
isomorphic iff their codes are equal. Degree sequences would not do: the banner (C4 + pendant) and the
tadpole (triangle + 2-edge tail) share the degree sequence (3, 2, 2, 2, 1).

Column order of every count matrix: the k = 3 types, then k = 4, then k = 5, each sorted by canonical code
(:func:`graphlet_names` spells it out)::

    k3_path (wedge, code 3), k3_triangle (7),
    k4_star (11), k4_path (13), k4_paw (15), k4_cycle (30), k4_diamond (31), k4_clique (63),
    k5_<code> for the 21 connected 5-node graphs, codes 75 to 1023.

:func:`graphlet_counts` enumerates every connected induced subgraph exactly once with ESU (Wernicke 2006)
in numba; :func:`graphlet_counts_closed_form` gets the 3- and 4-node counts from sparse matrix identities
(for social graphs whose hubs make 5-node enumeration too slow); :func:`graphlet_counts_bruteforce` is a
slow, independent networkx oracle for tests and the benchmark.
"""

from __future__ import annotations

import functools
import itertools

import numba
import numpy as np
import scipy.sparse as sp

from graphaudit.data.graphset import GraphSet

SIZES = (3, 4, 5)
# Names of the 3- and 4-node types, keyed by (nodes, edges, largest degree), which tells them apart.
COMMON_NAMES = {
    (3, 2, 2): "k3_path",
    (3, 3, 2): "k3_triangle",
    (4, 3, 3): "k4_star",
    (4, 3, 2): "k4_path",
    (4, 4, 3): "k4_paw",
    (4, 4, 2): "k4_cycle",
    (4, 5, 3): "k4_diamond",
    (4, 6, 3): "k4_clique",
}
A2_BUDGET = 1 << 24  # entries of A² held at once by the closed form (graphs are processed in chunks)


# ---- canonical-form tables ------------------------------------------------------------------------
def pair_bit(a: int, b: int) -> int:
    """Bit of the edge between node positions ``a`` and ``b`` (either order)."""
    q, p = min(a, b), max(a, b)
    return p * (p - 1) // 2 + q


def mask_edges(mask: int, k: int) -> list[tuple[int, int]]:
    """The edges (q, p), q < p, of the k-node graph with bitmask ``mask``."""
    return [(q, p) for p in range(k) for q in range(p) if mask >> pair_bit(q, p) & 1]


@functools.cache
def canonical_codes(k: int) -> np.ndarray:
    """Canonical code of every bitmask on ``k`` nodes (array index = mask)."""
    pairs = [(q, p) for p in range(k) for q in range(p)]
    masks = np.arange(1 << len(pairs), dtype=np.int64)
    bits = (masks[:, None] >> np.arange(len(pairs))) & 1
    best = masks.copy()
    for perm in itertools.permutations(range(k)):
        weights = np.array([1 << pair_bit(perm[q], perm[p]) for q, p in pairs], dtype=np.int64)
        np.minimum(best, bits @ weights, out=best)
    return best


def is_connected_mask(mask: int, k: int) -> bool:
    """Whether the k-node graph with bitmask ``mask`` is connected."""
    edges = mask_edges(mask, k)
    reached = {0}
    for _ in range(k):
        reached |= {p for q, p in edges if q in reached} | {q for q, p in edges if p in reached}
    return len(reached) == k


@functools.cache
def type_codes(k: int) -> tuple[int, ...]:
    """Canonical codes of the connected graphs on ``k`` nodes, increasing (2, 6, 21 for k = 3, 4, 5)."""
    codes = canonical_codes(k)
    return tuple(sorted({int(codes[m]) for m in range(len(codes)) if is_connected_mask(m, k)}))


def _check_max_k(max_k: int) -> None:
    if max_k not in SIZES:
        raise ValueError(f"max_k must be one of {SIZES}, got {max_k}")


def n_types(max_k: int) -> int:
    """Number of graphlet types with 3..max_k nodes (2, 8 or 29)."""
    _check_max_k(max_k)
    return sum(len(type_codes(k)) for k in range(3, max_k + 1))


def graphlet_names(max_k: int = 5) -> list[str]:
    """Column names of :func:`graphlet_counts` (see the module docstring for the order)."""
    _check_max_k(max_k)
    names = []
    for k in range(3, max_k + 1):
        for code in type_codes(k):
            edges = mask_edges(code, k)
            max_degree = int(np.bincount(np.ravel(edges), minlength=k).max())
            names.append(COMMON_NAMES.get((k, len(edges), max_degree), f"k{k}_{code}"))
    return names


@functools.cache
def column_table(max_k: int) -> np.ndarray:
    """``table[k, mask]``: output column of the connected k-node graph ``mask``, -1 for disconnected masks."""
    table = np.full((max_k + 1, 1 << (max_k * (max_k - 1) // 2)), -1, dtype=np.int64)
    offset = 0
    for k in range(3, max_k + 1):
        codes = canonical_codes(k)
        known = np.array(type_codes(k), dtype=np.int64)
        position = np.searchsorted(known, codes)
        connected = (position < len(known)) & (known[np.minimum(position, len(known) - 1)] == codes)
        table[k, : len(codes)][connected] = offset + position[connected]
        offset += len(known)
    return table


# ---- adjacency ------------------------------------------------------------------------------------
def adjacency_csr(graphs: GraphSet) -> tuple[np.ndarray, np.ndarray]:
    """Both directions of every edge as CSR over global node ids: ``(indptr (N+1,), neighbours (2E,))``."""
    if graphs.directed:
        raise ValueError(f"GraphSet {graphs.name!r} is directed; graphlets and WL need undirected graphs")
    source = np.concatenate([graphs.edges[:, 0], graphs.edges[:, 1]])
    target = np.concatenate([graphs.edges[:, 1], graphs.edges[:, 0]])
    order = np.lexsort((target, source))
    indptr = np.zeros(graphs.num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=graphs.num_nodes), out=indptr[1:])
    return indptr, np.ascontiguousarray(target[order])


# ---- ESU enumeration ------------------------------------------------------------------------------
@numba.njit(cache=True)
def _mark(node: int, position: int, indptr: np.ndarray, neighbours: np.ndarray, near: np.ndarray) -> None:
    bit = np.int64(1) << position
    for i in range(indptr[node], indptr[node + 1]):
        near[neighbours[i]] |= bit


@numba.njit(cache=True)
def _unmark(node: int, position: int, indptr: np.ndarray, neighbours: np.ndarray, near: np.ndarray) -> None:
    keep = ~(np.int64(1) << position)
    for i in range(indptr[node], indptr[node + 1]):
        near[neighbours[i]] &= keep


@numba.njit(cache=True)
def _add_to_mask(mask: int, position: int, adjacent: int) -> int:
    """Mask after adding a node at ``position`` adjacent to the positions whose bits are set in ``adjacent``."""
    base = position * (position - 1) // 2
    for q in range(position):
        if adjacent >> q & 1:
            mask |= np.int64(1) << (base + q)
    return mask


@numba.njit(cache=True)
def _esu_counts(
    node_ptr: np.ndarray, indptr: np.ndarray, neighbours: np.ndarray, max_k: int, table: np.ndarray, n_columns: int
) -> np.ndarray:
    """ESU from every root v: each connected induced subgraph of up to ``max_k`` nodes is one tree node.

    ``near[x]`` holds one bit per subgraph position adjacent to x. A neighbour x of the newly added node
    is exclusive (may extend the subgraph) iff x > v and ``near[x] == 0``: every subgraph node except v
    is adjacent to an earlier one, so ``near`` is non-zero on the subgraph itself.
    """
    counts = np.zeros((len(node_ptr) - 1, n_columns), dtype=np.int64)
    near = np.zeros(node_ptr[-1], dtype=np.int64)
    max_degree = np.max(np.diff(indptr)) if len(indptr) > 1 else 0
    extension = np.empty((max_k, max_k * max_degree + 1), dtype=np.int64)
    extension_size = np.zeros(max_k, dtype=np.int64)
    masks = np.zeros(max_k, dtype=np.int64)
    members = np.zeros(max_k, dtype=np.int64)
    for g in range(len(node_ptr) - 1):
        for v in range(node_ptr[g], node_ptr[g + 1]):
            size = 0
            for i in range(indptr[v], indptr[v + 1]):
                if neighbours[i] > v:
                    extension[0, size] = neighbours[i]
                    size += 1
            extension_size[0], members[0], masks[0] = size, v, 0
            _mark(v, 0, indptr, neighbours, near)
            level = 0  # position of the last subgraph node
            while level >= 0:
                if extension_size[level] == 0:
                    _unmark(members[level], level, indptr, neighbours, near)
                    level -= 1
                    continue
                extension_size[level] -= 1
                w = extension[level, extension_size[level]]
                mask = _add_to_mask(masks[level], level + 1, near[w])
                if level >= 1:
                    counts[g, table[level + 2, mask]] += 1
                if level + 2 == max_k:
                    continue
                size = extension_size[level]
                extension[level + 1, :size] = extension[level, :size]
                for i in range(indptr[w], indptr[w + 1]):
                    x = neighbours[i]
                    if x > v and near[x] == 0:
                        extension[level + 1, size] = x
                        size += 1
                level += 1
                extension_size[level], members[level], masks[level] = size, w, mask
                _mark(w, level, indptr, neighbours, near)
    return counts


def graphlet_counts(graphs: GraphSet, max_k: int = 5) -> np.ndarray:
    """Exact induced counts of every connected graphlet with 3..max_k nodes, one row per graph.

    Returns int64 of shape (num_graphs, :func:`n_types` (max_k)), columns as :func:`graphlet_names`.
    """
    _check_max_k(max_k)
    indptr, neighbours = adjacency_csr(graphs)
    return _esu_counts(graphs.node_ptr, indptr, neighbours, max_k, column_table(max_k), n_types(max_k))


# ---- closed form for 3 and 4 nodes ----------------------------------------------------------------
@numba.njit(cache=True)
def _k4_counts(node_ptr: np.ndarray, indptr: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
    """4-cliques per graph, each found once from its lowest node in the (degree, id) order.

    Orienting every edge towards the higher (degree, id) keeps out-degrees small even around hubs.
    """
    n = node_ptr[-1]
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out = np.empty(len(neighbours) // 2, dtype=np.int64)
    for u in range(n):
        out_ptr[u + 1] = out_ptr[u]
        du = indptr[u + 1] - indptr[u]
        for i in range(indptr[u], indptr[u + 1]):
            x = neighbours[i]
            dx = indptr[x + 1] - indptr[x]
            if du < dx or (du == dx and u < x):
                out[out_ptr[u + 1]] = x
                out_ptr[u + 1] += 1
    above_u = np.full(n, -1, dtype=np.int64)  # x is an out-neighbour of u
    above_uv = np.full(n, -1, dtype=np.int64)  # x is an out-neighbour of u and of v (stamped per edge u->v)
    counts = np.zeros(len(node_ptr) - 1, dtype=np.int64)
    for g in range(len(node_ptr) - 1):
        for u in range(node_ptr[g], node_ptr[g + 1]):
            for i in range(out_ptr[u], out_ptr[u + 1]):
                above_u[out[i]] = u
            for i in range(out_ptr[u], out_ptr[u + 1]):
                v = out[i]
                for j in range(out_ptr[v], out_ptr[v + 1]):
                    if above_u[out[j]] == u:
                        above_uv[out[j]] = i
                for j in range(out_ptr[v], out_ptr[v + 1]):
                    y = out[j]
                    if above_uv[y] == i:
                        for z in range(out_ptr[y], out_ptr[y + 1]):
                            if above_uv[out[z]] == i:
                                counts[g] += 1
    return counts


def _segment_sums(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Exact int64 sums of ``values[ptr[i]:ptr[i+1]]`` (per graph over nodes, per CSR row over entries)."""
    running = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(values, out=running[1:])
    return running[ptr[1:]] - running[ptr[:-1]]


def _pairs(values: np.ndarray) -> np.ndarray:
    return values * (values - 1) // 2


def _node_statistics(indptr: np.ndarray, neighbours: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, ...]:
    """For nodes lo..hi-1 (whole graphs): 2 x triangles at the node, sum over its edges of C(t_e, 2),
    and sum over the other nodes w of C(common neighbours with w, 2)."""
    start, stop = indptr[lo], indptr[hi]
    adjacency = sp.csr_matrix(
        (np.ones(stop - start, dtype=np.int64), neighbours[start:stop] - lo, indptr[lo : hi + 1] - start),
        shape=(hi - lo, hi - lo),
    )
    common = (adjacency @ adjacency).tocsr()
    on_edges = common.multiply(adjacency).tocsr()
    degree = np.diff(indptr[lo : hi + 1])
    triangles2 = _segment_sums(on_edges.data, on_edges.indptr)
    diamonds2 = _segment_sums(_pairs(on_edges.data), on_edges.indptr)
    cycles4 = _segment_sums(_pairs(common.data), common.indptr) - _pairs(degree)  # drop the diagonal (w = v)
    return triangles2, diamonds2, cycles4


def _chunks(cost: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive graph ranges of summed ``cost`` at most ``budget`` plus the cost of one graph."""
    running = np.cumsum(cost)
    if not len(running):
        return []
    cuts = np.searchsorted(running, np.arange(budget, running[-1], budget), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [len(cost)]]))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def graphlet_counts_closed_form(graphs: GraphSet) -> np.ndarray:
    """Induced 3- and 4-node graphlet counts from degrees, A² and 4-cliques, without enumeration.

    Columns as the first 8 of :func:`graphlet_counts`. Non-induced counts N_H (copies of H as a subgraph)
    come from standard identities (d: degree, t_v / t_e: triangles at a node / on an edge, c_uw = (A²)_uw):
    stars Σ C(d,3); 4-paths Σ_edges (d_u-1)(d_w-1) - 3T; 4-cycles ½ Σ_{u<w} C(c_uw,2); paws Σ t_v (d_v-2);
    diamonds Σ_edges C(t_e,2). Induced counts follow by inverting, from K4 down, how many copies of each
    graph each denser 4-node graph contains (e.g. a diamond holds 2 stars, 6 paths, 1 cycle, 4 paws).
    """
    indptr, neighbours = adjacency_csr(graphs)
    degree = np.diff(indptr)
    triangles2, diamonds2, cycles4 = (np.zeros(graphs.num_nodes, dtype=np.int64) for _ in range(3))
    for first, last in _chunks(_segment_sums(degree * degree, graphs.node_ptr), A2_BUDGET):
        lo, hi = graphs.node_ptr[first], graphs.node_ptr[last]
        triangles2[lo:hi], diamonds2[lo:hi], cycles4[lo:hi] = _node_statistics(indptr, neighbours, lo, hi)
    neighbour_excess = _segment_sums(degree[neighbours] - 1, indptr)

    def total(values: np.ndarray) -> np.ndarray:
        return _segment_sums(values, graphs.node_ptr)

    triangles = total(triangles2) // 6
    k4 = _k4_counts(graphs.node_ptr, indptr, neighbours)
    diamond = total(diamonds2) // 2 - 6 * k4
    cycle = total(cycles4) // 4 - diamond - 3 * k4
    paw = total(triangles2 // 2 * (degree - 2)) - 4 * diamond - 12 * k4
    star = total(degree * (degree - 1) * (degree - 2) // 6) - paw - 2 * diamond - 4 * k4
    paths = total((degree - 1) * neighbour_excess) // 2 - 3 * triangles
    path = paths - 2 * paw - 4 * cycle - 6 * diamond - 12 * k4
    wedge = total(_pairs(degree)) - 3 * triangles
    columns = {
        "k3_path": wedge,
        "k3_triangle": triangles,
        "k4_star": star,
        "k4_path": path,
        "k4_paw": paw,
        "k4_cycle": cycle,
        "k4_diamond": diamond,
        "k4_clique": k4,
    }
    return np.stack([columns[name] for name in graphlet_names(4)], axis=1).astype(np.int64)


# ---- brute-force oracle ---------------------------------------------------------------------------
def _code_by_permutations(edges: list[tuple[int, int]], k: int) -> int:
    """Canonical code by direct search, separate from the vectorised tables it checks."""
    return min(sum(1 << pair_bit(perm[a], perm[b]) for a, b in edges) for perm in itertools.permutations(range(k)))


@functools.cache
def _atlas_types(k: int) -> dict[tuple[int, ...], list[tuple[object, int]]]:
    """Connected k-node graphs of networkx's atlas with their columns, grouped by degree sequence."""
    import networkx as nx

    offset = sum(len(type_codes(size)) for size in range(3, k))
    groups: dict[tuple[int, ...], list[tuple[object, int]]] = {}
    for graph in nx.graph_atlas_g():
        if graph.number_of_nodes() == k and nx.is_connected(graph):
            column = offset + type_codes(k).index(_code_by_permutations(list(graph.edges()), k))
            groups.setdefault(tuple(sorted(d for _, d in graph.degree())), []).append((graph, column))
    return groups


def graphlet_counts_bruteforce(edges_local: np.ndarray, n: int, max_k: int = 5) -> np.ndarray:
    """Induced graphlet counts of one graph by testing every k-subset with networkx (slow; an oracle).

    Each connected induced subgraph is matched by isomorphism to a graph of networkx's atlas (its degree
    sequence only narrows the candidates). Same columns as one row of :func:`graphlet_counts`.
    """
    import networkx as nx

    _check_max_k(max_k)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(map(tuple, np.asarray(edges_local).reshape(-1, 2).tolist()))
    counts = np.zeros(n_types(max_k), dtype=np.int64)
    for k in range(3, max_k + 1):
        groups = _atlas_types(k)
        for nodes in itertools.combinations(range(n), k):
            subgraph = graph.subgraph(nodes)
            if not nx.is_connected(subgraph):
                continue
            candidates = groups[tuple(sorted(d for _, d in subgraph.degree()))]
            if len(candidates) > 1:
                candidates = [c for c in candidates if nx.is_isomorphic(c[0], subgraph)]
            counts[candidates[0][1]] += 1
    return counts

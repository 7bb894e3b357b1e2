"""Weisfeiler-Lehman colour refinement over all graphs of a GraphSet at once, vectorised with numpy.

All graphs share one colour dictionary: in every iteration a node's new colour is the id of (its colour,
the sorted multiset of its neighbours' colours). Ids are functions of those tuples alone, independent of
node order and of which graph a node is in.

Since a node's new colour encodes its old one, each colouring refines the previous one and the final colour
histogram of a graph determines all its earlier histograms: comparing final histograms compares the whole
histogram sequence. Sequences get ids by hashing, and every hash class is then checked element by element
against one member, so ids are exact; a collision (never seen in practice) falls back to sorting rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphaudit.data.graphset import GraphSet
from graphaudit.graphs.graphlets import adjacency_csr

_POSITION_SALT = np.uint64(0x9E3779B97F4A7C15)


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a fast, well-spread uint64 -> uint64 bijection (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _segment_hashes(values: np.ndarray, ptr: np.ndarray, owner: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """One uint64 per segment: the wrapping sum of hashed (position, value) pairs, mixed with the length."""
    element = mix(values.astype(np.uint64) ^ mix(offset.astype(np.uint64) + _POSITION_SALT))
    running = np.zeros(len(values) + 1, dtype=np.uint64)
    np.cumsum(element, out=running[1:])
    return mix(running[ptr[1:]] - running[ptr[:-1]] + np.diff(ptr).astype(np.uint64))


def _sorted_segment_ids(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Exact ids by sorting, per length, the matrix of all segments of that length (slower)."""
    lengths = np.diff(ptr)
    ids = np.empty(len(lengths), dtype=np.int64)
    next_id = 0
    for length in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == length)
        inverse = np.zeros(len(rows), dtype=np.int64)
        if length:
            block = values[ptr[rows][:, None] + np.arange(length)]
            inverse = np.unique(block, axis=0, return_inverse=True)[1].ravel()
        ids[rows] = next_id + inverse
        next_id += int(inverse.max()) + 1
    return ids


def segment_ids(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Dense ids of the segments ``values[ptr[i]:ptr[i+1]]``: equal ids iff equal sequences.

    Ids depend only on the sequences (never on where a segment sits), so they are deterministic.
    """
    lengths = np.diff(ptr)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    offset = np.arange(len(values)) - ptr[owner]
    _, first, ids = np.unique(_segment_hashes(values, ptr, owner, offset), return_index=True, return_inverse=True)
    ids = ids.ravel()
    representative = first[ids]
    if np.array_equal(lengths[representative], lengths) and np.array_equal(
        values[ptr[representative][owner] + offset], values
    ):
        return ids
    return _sorted_segment_ids(values, ptr)


def initial_colours(graphs: GraphSet, use_node_labels: bool) -> np.ndarray:
    """Dense colours from ``node_labels`` (one or more columns) when asked for and present, else all 0."""
    labels = graphs.get("node_labels") if use_node_labels else None
    if labels is None or graphs.num_nodes == 0:
        return np.zeros(graphs.num_nodes, dtype=np.int64)
    _, inverse = np.unique(labels.reshape(graphs.num_nodes, -1), axis=0, return_inverse=True)
    return inverse.ravel().astype(np.int64)


def distinct(colours: np.ndarray) -> int:
    """Number of distinct colours of a dense colouring (ids 0..C-1)."""
    return int(colours.max()) + 1 if len(colours) else 0


def refine(colours: np.ndarray, indptr: np.ndarray, neighbours: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """One WL iteration: the dense id of (own colour, sorted neighbour colours) of every node.

    ``owner[j]`` is the node whose neighbour list holds entry j of ``neighbours``.
    """
    width = np.int64(distinct(colours))
    keys = np.sort(owner * width + colours[neighbours])  # neighbour colours sorted within each node
    ptr = indptr + np.arange(len(indptr))  # each node's segment: own colour, then its neighbours'
    values = np.empty(ptr[-1], dtype=np.int64)
    values[ptr[:-1]] = colours
    values[np.arange(len(neighbours)) + owner + 1] = keys - owner * width
    return segment_ids(values, ptr)


def histogram_ids(colours: np.ndarray, node_ptr: np.ndarray) -> np.ndarray:
    """Per graph, a dense id of its colour histogram, numbered in order of first appearance."""
    num_graphs = len(node_ptr) - 1
    graph = np.repeat(np.arange(num_graphs), np.diff(node_ptr))
    width = max(distinct(colours), 1)
    keys, counts = np.unique(graph * width + colours, return_counts=True)
    values = np.stack([keys % width, counts], axis=1).ravel()  # (colour, count) pairs, graph by graph
    ptr = np.zeros(num_graphs + 1, dtype=np.int64)
    np.cumsum(2 * np.bincount(keys // width, minlength=num_graphs), out=ptr[1:])
    _, first, inverse = np.unique(segment_ids(values, ptr), return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.ravel()]


def wl_signatures(graphs: GraphSet, use_node_labels: bool = True, iterations: int | None = None) -> np.ndarray:
    """WL signature per graph, int64 (num_graphs,): equal iff the colour histograms agree at every iteration.

    Starts from ``node_labels`` (when ``use_node_labels`` and present) or one constant colour and refines
    ``iterations`` times, or, when None, until the number of distinct colours stops growing (the colouring
    is then stable and more iterations would separate nothing more). Ids run 0, 1, ... in order of the
    first graph having each signature, so results are deterministic.
    """
    indptr, neighbours = adjacency_csr(graphs)
    owner = np.repeat(np.arange(graphs.num_nodes), np.diff(indptr))
    colours = initial_colours(graphs, use_node_labels)
    done = 0
    while iterations is None or done < iterations:
        refined = refine(colours, indptr, neighbours, owner)
        done += 1
        if iterations is None and distinct(refined) == distinct(colours):
            break
        colours = refined
    return histogram_ids(colours, graphs.node_ptr)


def wl_histograms(graphs: GraphSet, colours: np.ndarray, iterations: int) -> list[sp.csr_matrix]:
    """Per WL iteration 0..iterations-1, the (graphs x colours) count matrix of the node colours.

    Colours are refined jointly over the whole set, so a colour means the same (own colour, neighbour
    multiset) history in every graph: the WL subtree kernel between any two subsets of the set is
    ``sum_t H_t[a] @ H_t[b].T``, whichever graphs a kernel is fitted on.
    """
    indptr, neighbours = adjacency_csr(graphs)
    owner = np.repeat(np.arange(graphs.num_nodes), np.diff(indptr))
    graph_of_node = graphs.graph_of_nodes()
    current = np.unique(colours, return_inverse=True)[1].ravel().astype(np.int64)
    histograms = []
    for step in range(iterations):
        if step:
            current = refine(current, indptr, neighbours, owner)
        counts = sp.coo_matrix(
            (np.ones(len(current)), (graph_of_node, current)), shape=(graphs.num_graphs, distinct(current))
        )
        histograms.append(counts.tocsr())
    return histograms


def wl_subtree_kernel(histograms: list[sp.csr_matrix], rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Normalised WL subtree kernel K[i, j] = k(rows[i], columns[j]) / sqrt(k(r, r) k(c, c)) (GraKeL's
    ``WeisfeilerLehman(base_graph_kernel=VertexHistogram, normalize=True)`` with ``n_iter=len(histograms)``)."""
    raw = np.zeros((len(rows), len(columns)))
    diag_rows, diag_columns = np.zeros(len(rows)), np.zeros(len(columns))
    for counts in histograms:
        a, b = counts[rows], counts[columns]
        raw += (a @ b.T).toarray()
        diag_rows += np.asarray(a.multiply(a).sum(axis=1)).ravel()
        diag_columns += np.asarray(b.multiply(b).sum(axis=1)).ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(raw / np.sqrt(np.outer(diag_rows, diag_columns)))

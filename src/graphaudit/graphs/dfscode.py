"""Labelled undirected graphs as gSpan DFS codes, the exact minimum DFS code, and two text serializations.

DFS codes (Yan & Han 2002). A code is a sequence of edge tuples ``(i, j, l_i, l_e, l_j)``: DFS indices
``i, j`` (forward edge when ``i < j``, backward when ``i > j``), the two vertex labels and, in the middle, the
edge label. Codes are ordered by gSpan's DFS lexicographic order (:func:`dfs_tuple_less`,
:func:`dfs_code_less`). The **minimum DFS code** of a connected graph
(:func:`min_dfs_code`) is computed exactly: every embedding that realizes the minimum prefix is kept and
extended by rightmost-path extensions until all edges are covered, as in gSpan's/gBolt's ``is_min``
(embeddings equal up to swapping twin vertices are merged, which keeps symmetric graphs fast). The
paper's Algorithm 1 (greedy, one embedding) is not the default: it breaks on label ties; it is available as
``algorithm="greedy"`` (:func:`greedy_dfs_code`, below) because it is what the paper's numbers were made with.

Tuple field order (``order``, :data:`TUPLE_ORDERS`). In memory a tuple is always ``(i, j, l_i, l_e, l_j)``;
the order names how the three labels are compared and written:

- ``"gspan"`` (the default): ``(l_i, l_e, l_j)``, the order of gSpan (Yan & Han 2002), gBolt (``e from to
  from_label edge_label to_label``) and the reference Python gSpan (``vevlb``); the miner's pattern keys always
  use it.
- ``"paper"``: ``(l_i, l_j, l_ij)``, the paper's notation (section 4.1 and Algorithm 1:
  ``<i, j, l_i, l_j, l_ij>``, forward candidates ranked by the label triple ``(l(w), l(x), l(w, x))``), read
  literally: labels compared in that order and tokens written ``(i,j,l_i,l_j,l_ij)``.

Same-index tuples are compared by these label triples; the index rules do not depend on the order. Both
orders give canonical codes (equal iff isomorphic), and a graph's minimum code has the same length under
both. Where they differ is *which* code is minimal: a first edge or a forward extension that ties on ``l_i``
is chosen by ``l_e`` first under ``"gspan"`` and by ``l_j`` first under ``"paper"`` (backward extensions
never differ: their vertex labels are fixed by the indices). So the tuples of the code, the vocabulary of a
corpus and the component :func:`min_code_component` keeps can change, but only when a graph has more than one
edge label: with one edge label (ENZYMES, PROTEINS, NCI1 and every unlabelled-edge set) both orders compare
``(l_i, l_j)`` and pick the same code, tuple for tuple.

The paper's Algorithm 1, read literally (:func:`greedy_dfs_code`, ``algorithm="greedy"``; :data:`ALGORITHMS`).
From every edge in both directions it grows *one* traversal: a backward edge from the rightmost vertex to the
rightmost path when there is one (smallest target first), else a forward edge from the deepest rightmost-path
vertex that has an unvisited neighbour, the one with the smallest label triple, ties to the first neighbour
in vertex order; the result is the smallest of these codes. Ties between equal-label candidates are thus
broken by vertex numbering, not by looking ahead, so the code is a valid DFS code but not always the minimum
one and not isomorphism-invariant: isomorphic graphs numbered differently can get different codes. Measured
on the TU files' own vertex order with ``order="paper"`` and one component per graph (the argmin over all
edges keeps the component of the smallest code), it reproduces the paper's numbers where the exact code does
not: Table 10's DFS vocabularies less one token on every set (MUTAG 381 / 382, PTC_MR 1,256 / 1,257, ENZYMES
5,736 / 5,737, PROTEINS 18,132 / 18,133, NCI1 6,765 / 6,766; the exact code gives 371, 1,216, 4,977, 16,022,
6,715), Table 5's unique training codes exactly (188, 338, 591, 1,072, 3,947), PROTEINS' mean length 69.14
(69.1; exact 69.21) and, mined with gBolt, PROTEINS' 70,257 training patterns (the exact code's component
choice differs in 11 graphs and gives 70,192). Randomly renumbered vertices give other vocabularies (MUTAG
416-427, PTC_MR 1,273-1,287), so the paper kept the files' vertex order. The gSpan order gives MUTAG 388 and
PTC_MR 1,221, so the paper also compared labels in its written order.

Disconnected graphs (the spec, section 4.2 option (b)). Each connected component gets its own minimum code;
a component without edges (an isolated vertex) is written as a vertex token. Components are ordered by
:func:`component_key` (edge components by their own minimum codes in DFS lexicographic order, then isolated
vertices by label) and joined by a separator token. The result is isomorphism-invariant and lossless.
:func:`min_code_component` gives the paper's apparent lossy choice instead (only the first component).

Text formats (the paper does not fix the textual form; these are this project's choices):

- DFS text, one token per edge tuple, tokens separated by single spaces: ``(0,1,6,0,6) (1,2,6,0,6)``
  (fields in the tuple order: ``(i,j,l_i,l_e,l_j)`` or, with ``order="paper"``, ``(i,j,l_i,l_j,l_ij)``); an
  isolated vertex with label ``l`` is ``(v,l)``; components are separated by the token ``|``. Parsed back
  with a regex (:func:`parse_dfs_text`, given the same order).
- DGMG actions (spec 4.4; nodes added in sorted-label order, ties by original index, so this is *not*
  isomorphism-canonical; paper Limitation (f)). For each node ``t`` in that order: ``ADD_NODE_<label>``;
  for each earlier neighbour ``s`` in increasing order ``ADD_EDGE_<edge label> DEST_<s>``; then
  ``END_EDGE``. The sequence ends with ``END_NODE``. Its length is ``2|V| + 2|E| + 1`` tokens, i.e.
  ``2|V| + 2|E| + 3`` with BOS/EOS, the length the spec infers from the paper's Table 10.

Parsers never raise: they return a :class:`ParseResult` whose ``invalid`` flag and ``reason`` say why a
string does not describe a graph (spec 4.5 rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from graphaudit.data.graphset import GraphSet

DfsTuple = tuple[int, int, int, int, int]
DfsCode = tuple[DfsTuple, ...]
Adjacency = list[list[tuple[int, int, int]]]  # per vertex: (neighbour, edge label, edge id)

TupleOrder = Literal["gspan", "paper"]
TUPLE_ORDERS: tuple[TupleOrder, ...] = ("gspan", "paper")
DEFAULT_ORDER: TupleOrder = "gspan"
Algorithm = Literal["exact", "greedy"]
ALGORITHMS: tuple[Algorithm, ...] = ("exact", "greedy")

COMPONENT_SEPARATOR = "|"
END_EDGE = "END_EDGE"
END_NODE = "END_NODE"


# ---- graphs -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabeledGraph:
    """A simple undirected graph with integer vertex labels and integer edge labels.

    ``edges`` holds ``(u, v, label)`` with ``u < v``, sorted, without duplicates; build with :meth:`build`.
    """

    node_labels: tuple[int, ...]
    edges: tuple[tuple[int, int, int], ...]

    @classmethod
    def build(cls, node_labels: Iterable[int], edges: Iterable[Sequence[int]]) -> LabeledGraph:
        """Normalise ``(u, v, label)`` triples (or ``(u, v)`` pairs, label 0); reject loops and duplicates."""
        labels = tuple(int(x) for x in node_labels)
        seen: dict[tuple[int, int], int] = {}
        for edge in edges:
            u, v = int(edge[0]), int(edge[1])
            label = int(edge[2]) if len(edge) > 2 else 0
            if not (0 <= u < len(labels) and 0 <= v < len(labels)):
                raise ValueError(f"edge ({u}, {v}) has an endpoint outside 0..{len(labels) - 1}")
            if u == v:
                raise ValueError(f"self-loop at vertex {u}")
            pair = (min(u, v), max(u, v))
            if pair in seen:
                raise ValueError(f"duplicate edge {pair}")
            seen[pair] = label
        return cls(labels, tuple(sorted((u, v, lab) for (u, v), lab in seen.items())))

    @property
    def num_nodes(self) -> int:
        return len(self.node_labels)

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    def adjacency(self) -> Adjacency:
        adj: Adjacency = [[] for _ in self.node_labels]
        for eid, (u, v, label) in enumerate(self.edges):
            adj[u].append((v, label, eid))
            adj[v].append((u, label, eid))
        return adj

    def components(self) -> list[list[int]]:
        """Vertex lists of the connected components, each sorted, ordered by smallest vertex."""
        adj = self.adjacency()
        seen = [False] * self.num_nodes
        out = []
        for start in range(self.num_nodes):
            if seen[start]:
                continue
            seen[start] = True
            stack, comp = [start], []
            while stack:
                u = stack.pop()
                comp.append(u)
                for w, _, _ in adj[u]:
                    if not seen[w]:
                        seen[w] = True
                        stack.append(w)
            out.append(sorted(comp))
        return out

    def induced(self, nodes: Sequence[int]) -> LabeledGraph:
        """The subgraph induced by ``nodes``, renumbered 0.. in the given order."""
        index = {v: k for k, v in enumerate(nodes)}
        return LabeledGraph.build(
            [self.node_labels[v] for v in nodes],
            [(index[u], index[v], lab) for u, v, lab in self.edges if u in index and v in index],
        )

    def permuted(self, perm: Sequence[int]) -> LabeledGraph:
        """The same graph with vertex ``v`` renamed ``perm[v]``."""
        labels = [0] * self.num_nodes
        for v, p in enumerate(perm):
            labels[p] = self.node_labels[v]
        return LabeledGraph.build(labels, [(perm[u], perm[v], lab) for u, v, lab in self.edges])


def graph_from_graphset(gs: GraphSet, g: int) -> LabeledGraph:
    """Graph ``g`` of a GraphSet with its raw ``node_labels``/``edge_labels`` (0 where a set has none)."""
    n = gs.graph_size(g)
    node_labels = gs.node_slice("node_labels", g)
    edge_labels = gs.edge_slice("edge_labels", g)
    edges = gs.graph_edges(g).tolist()
    labels = [0] * n if node_labels is None else node_labels.tolist()
    elabels = [0] * len(edges) if edge_labels is None else edge_labels.tolist()
    return LabeledGraph.build(labels, [(u, v, lab) for (u, v), lab in zip(edges, elabels)])


def graphs_from_graphset(gs: GraphSet) -> list[LabeledGraph]:
    """Every graph of ``gs`` as a :class:`LabeledGraph` (labels as stored: one label map per dataset)."""
    return [graph_from_graphset(gs, g) for g in range(gs.num_graphs)]


# ---- DFS lexicographic order --------------------------------------------------------------------
def check_order(order: str) -> TupleOrder:
    """``order`` if it names a tuple field order (:data:`TUPLE_ORDERS`), else ValueError."""
    if order not in TUPLE_ORDERS:
        raise ValueError(f"tuple order must be one of {', '.join(TUPLE_ORDERS)}, got {order!r}")
    return order  # type: ignore[return-value]


def _paper(order: str) -> bool:
    return check_order(order) == "paper"


def label_key(t: DfsTuple, order: TupleOrder = DEFAULT_ORDER) -> tuple[int, int, int]:
    """A tuple's labels in the order they are compared and written: ``(l_i, l_e, l_j)`` or ``(l_i, l_j, l_e)``."""
    return (t[2], t[4], t[3]) if _paper(order) else (t[2], t[3], t[4])


def ordered_fields(t: DfsTuple, order: TupleOrder = DEFAULT_ORDER) -> tuple[int, int, int, int, int]:
    """The five fields of a tuple as written under ``order``."""
    return (t[0], t[1], *label_key(t, order))


def is_forward(t: DfsTuple) -> bool:
    return t[0] < t[1]


def dfs_tuple_less(a: DfsTuple, b: DfsTuple, order: TupleOrder = DEFAULT_ORDER) -> bool:
    """gSpan's order on edge tuples (Yan & Han 2002): the four index rules, then the labels by :func:`label_key`."""
    (i1, j1), (i2, j2) = a[:2], b[:2]
    if (i1, j1) == (i2, j2):
        return label_key(a, order) < label_key(b, order)
    f1, f2 = i1 < j1, i2 < j2
    if f1 and f2:
        return j1 < j2 or (j1 == j2 and i1 > i2)
    if not f1 and not f2:
        return i1 < i2 or (i1 == i2 and j1 < j2)
    if not f1:  # a backward, b forward
        return i1 < j2
    return j1 <= i2  # a forward, b backward


def dfs_code_less(a: Sequence[DfsTuple], b: Sequence[DfsTuple], order: TupleOrder = DEFAULT_ORDER) -> bool:
    """DFS lexicographic order on codes: the first differing tuple decides; a proper prefix is smaller."""
    for x, y in zip(a, b):
        if x != y:
            return dfs_tuple_less(x, y, order)
    return len(a) < len(b)


def tuple_key(t: DfsTuple, order: TupleOrder = DEFAULT_ORDER) -> tuple[int, ...]:
    """A sort key that agrees with :func:`dfs_tuple_less` among extensions of one common valid prefix.

    After a common prefix every backward candidate starts at the rightmost vertex and every forward one
    ends at the next new index, so backward < forward, backward by target, forward by deeper source.
    """
    i, j = t[0], t[1]
    labels = label_key(t, order)
    return (0, i, j, *labels) if i > j else (1, j, -i, *labels)


def code_key(code: Sequence[DfsTuple], order: TupleOrder = DEFAULT_ORDER) -> tuple[tuple[int, ...], ...]:
    """Sort key for valid DFS codes consistent with :func:`dfs_code_less` (same ``order``)."""
    return tuple(tuple_key(t, order) for t in code)


# ---- minimum DFS code ---------------------------------------------------------------------------
_State = tuple[tuple[int, ...], int, int, int]
# (vertex of each DFS index, visited bitmask, used-edge bitmask, visited count per twin class, packed in an int)


def twin_classes(labels: Sequence[int], adj: Adjacency) -> list[int]:
    """A class representative per vertex: vertices that any permutation of their class maps by automorphisms.

    False twins (same label, same neighbours with the same edge labels) and true twins (same label,
    adjacent, same other neighbours with the same edge labels) are interchangeable.
    """
    rep = list(range(len(labels)))
    open_groups: dict[tuple[int, frozenset[tuple[int, int]]], list[int]] = {}
    for v, nbrs in enumerate(adj):
        open_groups.setdefault((labels[v], frozenset((w, el) for w, el, _ in nbrs)), []).append(v)
    for members in open_groups.values():
        for v in members:
            rep[v] = members[0]
    closed_groups: dict[tuple[int, frozenset[int]], list[int]] = {}
    for v, nbrs in enumerate(adj):
        if rep[v] == v and len(open_groups[(labels[v], frozenset((w, el) for w, el, _ in nbrs))]) == 1:
            closed_groups.setdefault((labels[v], frozenset([w for w, _, _ in nbrs] + [v])), []).append(v)
    for members in closed_groups.values():
        reps: list[int] = []
        for v in members:
            ev = {w: el for w, el, _ in adj[v]}
            for r in reps:
                er = {w: el for w, el, _ in adj[r]}
                if all(ev.get(w) == el for w, el in er.items() if w != v):
                    rep[v] = r
                    break
            else:
                reps.append(v)
    return rep


def _class_weights(rep: Sequence[int]) -> list[int]:
    """Per vertex ``1 << offset(class)``; summing over a vertex set packs the count per class in one int."""
    sizes: dict[int, int] = {}
    for r in rep:
        sizes[r] = sizes.get(r, 0) + 1
    offsets, offset = {}, 0
    for r, size in sizes.items():
        offsets[r] = offset
        offset += size.bit_length()
    return [1 << offsets[r] for r in rep]


def _first_states(
    labels: Sequence[int], adj: Adjacency, weight: Sequence[int], paper: bool
) -> tuple[DfsTuple, list[_State]]:
    best: tuple[int, int, int] | None = None
    states: list[_State] = []
    for u, nbrs in enumerate(adj):
        for v, el, eid in nbrs:
            key = (labels[u], labels[v], el) if paper else (labels[u], el, labels[v])
            if best is None or key < best:
                best, states = key, []
            if key == best:
                states.append(((u, v), (1 << u) | (1 << v), 1 << eid, weight[u] + weight[v]))
    assert best is not None
    first = (0, 1, best[0], best[2], best[1]) if paper else (0, 1, *best)
    return first, states


def _extend_states(
    labels: Sequence[int], adj: Adjacency, states: list[_State], rmpath: list[int], paper: bool
) -> tuple[tuple[int, ...] | None, list[tuple[_State, int, int]]]:
    """The minimum rightmost extension over all states and every (state, vertex, edge id) realizing it.

    Keys: backward ``(0, j, l_e)``, forward ``(1, -i, l_e, l_w)``, or ``(1, -i, l_w, l_e)`` in the paper's
    order (``l_i`` is fixed by ``i``, a backward edge's vertex labels by its indices). Backward edges are
    always smaller than forward ones, and forward edges from deeper rightmost-path vertices smaller than from
    shallower ones, so a state stops scanning at its first kind/level that has candidates.
    """
    r_idx = rmpath[-1]
    best: tuple[int, ...] | None = None
    hits: list[tuple[_State, int, int]] = []
    for state in states:
        vmap, visited, used, _ = state
        found = False
        for w, el, eid in adj[vmap[r_idx]]:
            if not (used >> eid) & 1 and (visited >> w) & 1:
                found = True
                key: tuple[int, ...] = (0, vmap.index(w), el)
                if best is None or key < best:
                    best, hits = key, []
                if key == best:
                    hits.append((state, w, eid))
        if found:
            continue
        for i in reversed(rmpath):
            if best is not None and best < (1, -i):
                break  # the best so far beats anything this level can offer
            for w, el, eid in adj[vmap[i]]:
                if not (visited >> w) & 1:
                    found = True
                    key = (1, -i, labels[w], el) if paper else (1, -i, el, labels[w])
                    if best is None or key < best:
                        best, hits = key, []
                    if key == best:
                        hits.append((state, w, eid))
            if found:
                break
    return best, hits


def _search_min_code(
    labels: Sequence[int],
    adj: Adjacency,
    num_edges: int,
    target: Sequence[DfsTuple] | None = None,
    order: TupleOrder = DEFAULT_ORDER,
) -> DfsCode | None:
    """Exact minimum DFS code of a connected graph; with ``target``, None as soon as it departs from it.

    Every surviving state is a genuine DFS traversal (a smaller extension would otherwise exist), so its
    future codes depend only on the visited vertex set and the rightmost path: among states equal on these
    up to permutations of twin vertices (automorphisms, :func:`twin_classes`) one is kept. Without this,
    symmetric graphs need exponentially many states (a star with k equal leaves: 2^k).
    """
    paper = _paper(order)
    rep = twin_classes(labels, adj)
    weight = _class_weights(rep)
    first, states = _first_states(labels, adj, weight, paper)
    code = [first]
    if target is not None and (not target or target[0] != first):
        return None
    rmpath = [0, 1]
    while len(code) < num_edges:
        best, hits = _extend_states(labels, adj, states, rmpath, paper)
        if best is None:
            raise ValueError("graph is not connected")
        vmap0, r_idx = hits[0][0][0], rmpath[-1]
        if best[0] == 0:
            t: DfsTuple = (r_idx, best[1], labels[vmap0[r_idx]], best[2], labels[vmap0[best[1]]])
        else:
            i, n = -best[1], len(vmap0)
            el, lw = (best[3], best[2]) if paper else (best[2], best[3])
            t = (i, n, labels[vmap0[i]], el, lw)
            rmpath = rmpath[: rmpath.index(i) + 1] + [n]
        code.append(t)
        if target is not None and (len(target) < len(code) or target[len(code) - 1] != t):
            return None
        new_states: dict[tuple[int, tuple[int, ...]], _State] = {}
        for (vmap, visited, used, counts), w, eid in hits:
            if best[0] == 1:
                vmap, visited, counts = vmap + (w,), visited | (1 << w), counts + weight[w]
            key = (counts, tuple(rep[vmap[k]] for k in rmpath))
            new_states.setdefault(key, (vmap, visited, used | (1 << eid), counts))
        states = list(new_states.values())
    if target is not None and len(target) != len(code):
        return None
    return tuple(code)


def min_dfs_code(graph: LabeledGraph, order: TupleOrder = DEFAULT_ORDER) -> DfsCode:
    """gSpan's canonical (minimum) DFS code of a connected graph with at least one edge, labels compared in
    the tuple ``order`` (module docstring); its tuples are ``(i, j, l_i, l_e, l_j)`` under either order."""
    if graph.num_edges == 0:
        raise ValueError("a DFS code needs at least one edge")
    code = _search_min_code(graph.node_labels, graph.adjacency(), graph.num_edges, order=order)
    assert code is not None
    return code


def code_adjacency(code: Sequence[DfsTuple]) -> tuple[list[int], Adjacency]:
    """Vertex labels and adjacency of the graph a (trusted, valid) DFS code describes."""
    n = max(max(t[0], t[1]) for t in code) + 1
    labels = [0] * n
    adj: Adjacency = [[] for _ in range(n)]
    for eid, (i, j, li, le, lj) in enumerate(code):
        labels[i], labels[j] = li, lj
        adj[i].append((j, le, eid))
        adj[j].append((i, le, eid))
    return labels, adj


def is_min_code(code: Sequence[DfsTuple], order: TupleOrder = DEFAULT_ORDER) -> bool:
    """Whether a valid DFS code is the minimum code (under ``order``) of the graph it describes (gSpan's
    ``is_min``)."""
    labels, adj = code_adjacency(code)
    return _search_min_code(labels, adj, len(code), target=code, order=order) is not None


def graph_from_code(code: Sequence[DfsTuple]) -> LabeledGraph:
    """The graph of a valid DFS code (vertex k = DFS index k)."""
    labels, _ = code_adjacency(code)
    return LabeledGraph.build(labels, [(i, j, le) for i, j, _, le, _ in code])


# ---- the paper's Algorithm 1 (greedy) ------------------------------------------------------------
def check_algorithm(algorithm: str) -> Algorithm:
    """``algorithm`` if it names a code construction (:data:`ALGORITHMS`), else ValueError."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"DFS code algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    return algorithm  # type: ignore[return-value]


def _greedy_from(
    labels: Sequence[int],
    adj: Adjacency,
    start: tuple[int, int, int, int],
    num_edges: int,
    order: TupleOrder,
    bound: Sequence[tuple[int, ...]] | None,
) -> DfsCode | None:
    """Algorithm 1's traversal from the directed start edge ``(u, v, label, edge id)``; None as soon as its
    code cannot be smaller than the code whose :func:`code_key` is ``bound``."""
    paper = order == "paper"
    u, v, el0, eid0 = start
    index = [-1] * len(labels)
    index[u], index[v] = 0, 1
    on_path = [False] * len(labels)
    on_path[u] = on_path[v] = True
    rmpath, visited = [u, v], 2
    used = {eid0}
    code: list[DfsTuple] = [(0, 1, labels[u], el0, labels[v])]
    tied = bound is not None  # the code so far equals bound's prefix (all starts share the first tuple)
    while len(code) < num_edges:
        r = rmpath[-1]
        back = min(((index[w], w, el, eid) for w, el, eid in adj[r] if on_path[w] and eid not in used), default=None)
        if back is not None:
            j, w, el, eid = back
            t: DfsTuple = (index[r], j, labels[r], el, labels[w])
        else:
            found: tuple[tuple[int, int], int, int, int, int] | None = None
            for pos in range(len(rmpath) - 1, -1, -1):
                for x, el, eid in adj[rmpath[pos]]:
                    if index[x] < 0:
                        key = (labels[x], el) if paper else (el, labels[x])
                        if found is None or key < found[0]:
                            found = (key, pos, x, el, eid)
                if found is not None:
                    break
            if found is None:
                raise ValueError("graph is not connected")
            _, pos, x, el, eid = found
            w = rmpath[pos]
            t = (index[w], visited, labels[w], el, labels[x])
            index[x] = visited
            visited += 1
            for z in rmpath[pos + 1 :]:
                on_path[z] = False
            rmpath = rmpath[: pos + 1] + [x]
            on_path[x] = True
        used.add(eid)
        code.append(t)
        if tied:
            assert bound is not None
            key_t, key_b = tuple_key(t, order), bound[len(code) - 1]
            if key_t > key_b:
                return None
            tied = key_t == key_b
    return None if tied else tuple(code)


def greedy_dfs_code(graph: LabeledGraph, order: TupleOrder = DEFAULT_ORDER) -> DfsCode:
    """The paper's Algorithm 1 on a connected graph with at least one edge (module docstring): one greedy
    rightmost-path traversal per directed edge, the smallest code under ``order``. Not canonical."""
    if graph.num_edges == 0:
        raise ValueError("a DFS code needs at least one edge")
    check_order(order)
    labels, adj = graph.node_labels, graph.adjacency()
    paper = order == "paper"
    starts = [
        ((labels[u], labels[v], el) if paper else (labels[u], el, labels[v]), (u, v, el, eid))
        for u, nbrs in enumerate(adj)
        for v, el, eid in nbrs
    ]
    low = min(key for key, _ in starts)  # a code starting with a larger first tuple cannot be the smallest
    best: DfsCode | None = None
    for key, start in starts:
        if key == low:
            code = _greedy_from(
                labels, adj, start, graph.num_edges, order, None if best is None else code_key(best, order)
            )
            if code is not None:
                best = code
    assert best is not None
    return best


# ---- canonical text -----------------------------------------------------------------------------
def tuple_token(t: DfsTuple, order: TupleOrder = DEFAULT_ORDER) -> str:
    """``(i,j,l_i,l_e,l_j)``, or ``(i,j,l_i,l_j,l_ij)`` under the paper's order."""
    return "({},{},{},{},{})".format(*ordered_fields(t, order))


def vertex_token(label: int) -> str:
    return f"(v,{label})"


def code_text(code: Sequence[DfsTuple], order: TupleOrder = DEFAULT_ORDER) -> str:
    """One token per tuple, space-separated (with the default order: the gSpan miner's pattern key)."""
    return " ".join(tuple_token(t, order) for t in code)


Component = DfsCode | int  # a minimum code, or the label of an isolated vertex


def component_key(
    component: Component, order: TupleOrder = DEFAULT_ORDER
) -> tuple[int, tuple[tuple[int, ...], ...] | int]:
    """Edge components first, by their own minimum codes (DFS lexicographic order); then isolated vertices."""
    return (1, component) if isinstance(component, int) else (0, code_key(component, order))


def canonical_components(
    graph: LabeledGraph, order: TupleOrder = DEFAULT_ORDER, algorithm: Algorithm = "exact"
) -> list[Component]:
    """Per-component canonical forms in canonical order (see the module docstring), under the tuple ``order``.

    ``algorithm="greedy"`` codes each component with :func:`greedy_dfs_code` instead (not canonical); the
    first part is then the paper's one-component choice (its argmin over every edge of the graph: the induced
    component keeps the vertices' relative order, so its greedy codes are those of the whole graph).
    """
    check_order(order)
    code_of = min_dfs_code if check_algorithm(algorithm) == "exact" else greedy_dfs_code
    parts: list[Component] = []
    for nodes in graph.components():
        if len(nodes) == 1:
            parts.append(graph.node_labels[nodes[0]])
        else:
            parts.append(code_of(graph.induced(nodes), order))
    return sorted(parts, key=lambda part: component_key(part, order))


def component_graph(part: Component) -> LabeledGraph:
    """The graph of one part of :func:`canonical_components` (vertices in DFS order)."""
    return LabeledGraph.build([part], []) if isinstance(part, int) else graph_from_code(part)


def parts_text(parts: Sequence[Component], order: TupleOrder = DEFAULT_ORDER) -> str:
    """DFS text of parts from :func:`canonical_components` (tuple fields in ``order``), joined by ``|``."""
    texts = [vertex_token(c) if isinstance(c, int) else code_text(c, order) for c in parts]
    return f" {COMPONENT_SEPARATOR} ".join(texts)


def min_code_component(
    graph: LabeledGraph, order: TupleOrder = DEFAULT_ORDER, algorithm: Algorithm = "exact"
) -> LabeledGraph:
    """The component that comes first in canonical order (smallest minimum code), renumbered in DFS order.

    A reconstruction of the paper's one-component serialization (spec 4.2 option (a)): keeping only this
    component reproduces the paper's NCI1 |P_tr| = 818, ENZYMES' 591 unique codes and the DFS mean lengths
    31.2 (NCI1) and 60.8 (ENZYMES) of Table 10. Lossy: graphs that differ elsewhere become equal. Which
    component comes first can depend on the tuple ``order`` when the graph has more than one edge label, and
    on ``algorithm``: ``"greedy"`` keeps the paper's component (PROTEINS: 11 graphs differ, module docstring).
    """
    if graph.num_nodes == 0:
        raise ValueError("the graph has no vertices")
    return component_graph(canonical_components(graph, order, algorithm)[0])


def dfs_text(graph: LabeledGraph, order: TupleOrder = DEFAULT_ORDER, algorithm: Algorithm = "exact") -> str:
    """The canonical DFS serialization under the tuple ``order``; equal strings iff isomorphic labelled graphs
    ('' for no vertices). ``algorithm="greedy"``: the paper's codes instead, which depend on vertex numbering."""
    return parts_text(canonical_components(graph, order, algorithm), order)


# ---- parsing ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParseResult:
    """A parsed graph, or ``graph=None`` with the ``reason`` the input is malformed."""

    graph: LabeledGraph | None
    reason: str | None = None

    @property
    def invalid(self) -> bool:
        return self.graph is None


_INT = r"(-?\d{1,18})"
_EDGE_TOKEN = re.compile(rf"\({_INT},{_INT},{_INT},{_INT},{_INT}\)")
_VERTEX_TOKEN = re.compile(rf"\(v,{_INT}\)")


def _invalid(reason: str) -> ParseResult:
    return ParseResult(None, reason)


def _parse_component(
    tokens: list[str], strict: bool, paper: bool
) -> tuple[list[int], list[tuple[int, int, int]]] | str:
    """Labels and edges of one component, or the reason it is malformed."""
    if len(tokens) == 1 and (m := _VERTEX_TOKEN.fullmatch(tokens[0])):
        return [int(m.group(1))], []
    labels: list[int] = []
    edges: dict[tuple[int, int], int] = {}
    rmpath: list[int] = []
    for pos, token in enumerate(tokens):
        m = _EDGE_TOKEN.fullmatch(token)
        if not m:
            return f"token {token!r} is not an edge tuple"
        i, j, li, a, b = (int(x) for x in m.groups())
        le, lj = (b, a) if paper else (a, b)
        n = len(labels)
        if pos == 0:
            if (i, j) != (0, 1):
                return "a component must start with tuple (0,1,...)"
            labels, rmpath = [li, lj], [0, 1]
        elif i < j:
            if j != n or i >= n:
                return f"forward tuple ({i},{j}) must join an existing vertex to the new vertex {n}"
            if labels[i] != li:
                return f"vertex {i} has label {labels[i]}, tuple says {li}"
            if strict and i not in rmpath:
                return f"forward tuple ({i},{j}) does not start on the rightmost path"
            labels.append(lj)
            if i in rmpath:
                rmpath = rmpath[: rmpath.index(i) + 1] + [j]
        else:
            if i >= n or j >= n or i == j:
                return f"backward tuple ({i},{j}) must join two distinct existing vertices"
            if labels[i] != li or labels[j] != lj:
                return f"backward tuple ({i},{j}) contradicts earlier vertex labels"
            if strict and (i != rmpath[-1] or j not in rmpath):
                return f"backward tuple ({i},{j}) is not from the rightmost vertex to the rightmost path"
        pair = (min(i, j), max(i, j))
        if pair in edges:
            return f"duplicate edge {pair}"
        edges[pair] = le
    return labels, [(u, v, lab) for (u, v), lab in edges.items()]


def parse_dfs_text(text: str, strict: bool = False, order: TupleOrder = DEFAULT_ORDER) -> ParseResult:
    """Parse DFS text (module docstring) written under the tuple ``order`` back to a graph; never raises on
    the text (an unknown ``order`` is a ValueError).

    Rules (spec 4.5): each component starts with ``(0,1,..)``; a forward tuple introduces exactly the next
    index from an existing vertex; a backward tuple joins two distinct existing vertices; vertex labels
    agree across tuples; no duplicate edges; no empty component; ``(v,l)`` stands alone. ``strict`` also
    demands rightmost-path extensions (a well-formed DFS code, minimal or not).
    """
    paper = _paper(order)
    if not isinstance(text, str):
        return _invalid("input is not a string")
    tokens = text.split()
    if not tokens:
        return _invalid("empty sequence")
    groups: list[list[str]] = [[]]
    for token in tokens:
        if token == COMPONENT_SEPARATOR:
            groups.append([])
        else:
            groups[-1].append(token)
    labels: list[int] = []
    edges: list[tuple[int, int, int]] = []
    for group in groups:
        if not group:
            return _invalid("empty component")
        part = _parse_component(group, strict, paper)
        if isinstance(part, str):
            return _invalid(part)
        offset = len(labels)
        labels.extend(part[0])
        edges.extend((u + offset, v + offset, lab) for u, v, lab in part[1])
    return ParseResult(LabeledGraph.build(labels, edges))


# ---- DGMG action sequences ----------------------------------------------------------------------
_ADD_NODE = re.compile(rf"ADD_NODE_{_INT}")
_ADD_EDGE = re.compile(rf"ADD_EDGE_{_INT}")
_DEST = re.compile(r"DEST_(\d{1,18})")


def dgmg_node_order(graph: LabeledGraph) -> list[int]:
    """Vertices in sorted-label order, ties by original index (the paper's action canonicalization)."""
    return sorted(range(graph.num_nodes), key=lambda v: (graph.node_labels[v], v))


def dgmg_actions(graph: LabeledGraph) -> list[str]:
    """The DGMG action tokens (module docstring): 2|V| + 2|E| + 1 of them."""
    order = dgmg_node_order(graph)
    position = {v: t for t, v in enumerate(order)}
    adj = graph.adjacency()
    tokens = []
    for t, v in enumerate(order):
        tokens.append(f"ADD_NODE_{graph.node_labels[v]}")
        for s, label in sorted((position[w], el) for w, el, _ in adj[v] if position[w] < t):
            tokens += [f"ADD_EDGE_{label}", f"DEST_{s}"]
        tokens.append(END_EDGE)
    tokens.append(END_NODE)
    return tokens


def dgmg_text(graph: LabeledGraph) -> str:
    return " ".join(dgmg_actions(graph))


def parse_dgmg(actions: str | Sequence[str]) -> ParseResult:
    """Parse DGMG actions (a string or a token list) back to a graph; never raises.

    Grammar: ``(ADD_NODE_l (ADD_EDGE_e DEST_s)* END_EDGE)+ END_NODE`` with ``s`` an earlier node, no
    duplicate edges and nothing after ``END_NODE``.
    """
    if isinstance(actions, str):
        tokens = actions.split()
    elif isinstance(actions, Sequence) and all(isinstance(x, str) for x in actions):
        tokens = list(actions)
    else:
        return _invalid("input is not a string or a sequence of strings")
    labels: list[int] = []
    edges: dict[tuple[int, int], int] = {}
    in_node = False
    k = 0
    while k < len(tokens):
        token = tokens[k]
        if not in_node:
            if token == END_NODE:
                if k != len(tokens) - 1:
                    return _invalid("tokens after END_NODE")
                if not labels:
                    return _invalid("empty graph")
                return ParseResult(LabeledGraph.build(labels, [(u, v, lab) for (u, v), lab in edges.items()]))
            if not (m := _ADD_NODE.fullmatch(token)):
                return _invalid(f"expected ADD_NODE_<label> or END_NODE, got {token!r}")
            labels.append(int(m.group(1)))
            in_node = True
        elif token == END_EDGE:
            in_node = False
        elif m := _ADD_EDGE.fullmatch(token):
            if k + 1 >= len(tokens) or not (d := _DEST.fullmatch(tokens[k + 1])):
                return _invalid("ADD_EDGE must be followed by DEST_<node>")
            s, t = int(d.group(1)), len(labels) - 1
            if s >= t:
                return _invalid(f"DEST_{s} is not an earlier node (current node {t})")
            if (s, t) in edges:
                return _invalid(f"duplicate edge ({s}, {t})")
            edges[(s, t)] = int(m.group(1))
            k += 1
        else:
            return _invalid(f"expected ADD_EDGE_<label> or END_EDGE, got {token!r}")
        k += 1
    return _invalid("truncated: no END_NODE")

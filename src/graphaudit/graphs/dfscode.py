"""Labelled undirected graphs as gSpan DFS codes, the exact minimum DFS code, and two text serializations.

DFS codes (Yan & Han 2002). A code is a sequence of edge tuples ``(i, j, l_i, l_e, l_j)``: DFS indices
``i, j`` (forward edge when ``i < j``, backward when ``i > j``), the two vertex labels and, in the middle, the
edge label (gSpan's and gBolt's internal field order; the paper writes ``<i, j, l_i, l_j, l_ij>``, which
changes only *which* code is minimal, not uniqueness). Codes are ordered by gSpan's DFS lexicographic order
(:func:`dfs_tuple_less`, :func:`dfs_code_less`). The **minimum DFS code** of a connected graph
(:func:`min_dfs_code`) is computed exactly: every embedding that realizes the minimum prefix is kept and
extended by rightmost-path extensions until all edges are covered, as in gSpan's/gBolt's ``is_min``
(embeddings equal up to swapping twin vertices are merged, which keeps symmetric graphs fast). The
paper's Algorithm 1 (greedy, one embedding) is *not* used: it breaks on label ties.

Disconnected graphs (the spec, section 4.2 option (b)). Each connected component gets its own minimum code;
a component without edges (an isolated vertex) is written as a vertex token. Components are ordered by
:func:`component_key` (edge components by their own minimum codes in DFS lexicographic order, then isolated
vertices by label) and joined by a separator token. The result is isomorphism-invariant and lossless.
:func:`min_code_component` gives the paper's apparent lossy choice instead (only the first component).

Text formats (the paper does not fix the textual form; these are this project's choices):

- DFS text, one token per edge tuple, tokens separated by single spaces: ``(0,1,6,0,6) (1,2,6,0,6)``; an
  isolated vertex with label ``l`` is ``(v,l)``; components are separated by the token ``|``. Parsed back
  with a regex (:func:`parse_dfs_text`).
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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphaudit.data.graphset import GraphSet

DfsTuple = tuple[int, int, int, int, int]
DfsCode = tuple[DfsTuple, ...]
Adjacency = list[list[tuple[int, int, int]]]  # per vertex: (neighbour, edge label, edge id)

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
def is_forward(t: DfsTuple) -> bool:
    return t[0] < t[1]


def dfs_tuple_less(a: DfsTuple, b: DfsTuple) -> bool:
    """gSpan's order on edge tuples (Yan & Han 2002): the four index rules, then labels (l_i, l_e, l_j)."""
    (i1, j1), (i2, j2) = a[:2], b[:2]
    if (i1, j1) == (i2, j2):
        return a[2:] < b[2:]
    f1, f2 = i1 < j1, i2 < j2
    if f1 and f2:
        return j1 < j2 or (j1 == j2 and i1 > i2)
    if not f1 and not f2:
        return i1 < i2 or (i1 == i2 and j1 < j2)
    if not f1:  # a backward, b forward
        return i1 < j2
    return j1 <= i2  # a forward, b backward


def dfs_code_less(a: Sequence[DfsTuple], b: Sequence[DfsTuple]) -> bool:
    """DFS lexicographic order on codes: the first differing tuple decides; a proper prefix is smaller."""
    for x, y in zip(a, b):
        if x != y:
            return dfs_tuple_less(x, y)
    return len(a) < len(b)


def tuple_key(t: DfsTuple) -> tuple[int, ...]:
    """A sort key that agrees with :func:`dfs_tuple_less` among extensions of one common valid prefix.

    After a common prefix every backward candidate starts at the rightmost vertex and every forward one
    ends at the next new index, so backward < forward, backward by target, forward by deeper source.
    """
    i, j, li, le, lj = t
    return (0, i, j, li, le, lj) if i > j else (1, j, -i, li, le, lj)


def code_key(code: Sequence[DfsTuple]) -> tuple[tuple[int, ...], ...]:
    """Sort key for valid DFS codes consistent with :func:`dfs_code_less`."""
    return tuple(tuple_key(t) for t in code)


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


def _first_states(labels: Sequence[int], adj: Adjacency, weight: Sequence[int]) -> tuple[DfsTuple, list[_State]]:
    best: tuple[int, int, int] | None = None
    states: list[_State] = []
    for u, nbrs in enumerate(adj):
        for v, el, eid in nbrs:
            key = (labels[u], el, labels[v])
            if best is None or key < best:
                best, states = key, []
            if key == best:
                states.append(((u, v), (1 << u) | (1 << v), 1 << eid, weight[u] + weight[v]))
    assert best is not None
    return (0, 1, *best), states


def _extend_states(
    labels: Sequence[int], adj: Adjacency, states: list[_State], rmpath: list[int]
) -> tuple[tuple[int, ...] | None, list[tuple[_State, int, int]]]:
    """The minimum rightmost extension over all states and every (state, vertex, edge id) realizing it.

    Keys: backward ``(0, j, l_e)``, forward ``(1, -i, l_e, l_w)``. Backward edges are always smaller than
    forward ones, and forward edges from deeper rightmost-path vertices smaller than from shallower ones, so
    a state stops scanning at its first kind/level that has candidates.
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
                    key = (1, -i, el, labels[w])
                    if best is None or key < best:
                        best, hits = key, []
                    if key == best:
                        hits.append((state, w, eid))
            if found:
                break
    return best, hits


def _search_min_code(
    labels: Sequence[int], adj: Adjacency, num_edges: int, target: Sequence[DfsTuple] | None = None
) -> DfsCode | None:
    """Exact minimum DFS code of a connected graph; with ``target``, None as soon as it departs from it.

    Every surviving state is a genuine DFS traversal (a smaller extension would otherwise exist), so its
    future codes depend only on the visited vertex set and the rightmost path: among states equal on these
    up to permutations of twin vertices (automorphisms, :func:`twin_classes`) one is kept. Without this,
    symmetric graphs need exponentially many states (a star with k equal leaves: 2^k).
    """
    rep = twin_classes(labels, adj)
    weight = _class_weights(rep)
    first, states = _first_states(labels, adj, weight)
    code = [first]
    if target is not None and (not target or target[0] != first):
        return None
    rmpath = [0, 1]
    while len(code) < num_edges:
        best, hits = _extend_states(labels, adj, states, rmpath)
        if best is None:
            raise ValueError("graph is not connected")
        vmap0, r_idx = hits[0][0][0], rmpath[-1]
        if best[0] == 0:
            t: DfsTuple = (r_idx, best[1], labels[vmap0[r_idx]], best[2], labels[vmap0[best[1]]])
        else:
            i, n = -best[1], len(vmap0)
            t = (i, n, labels[vmap0[i]], best[2], best[3])
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


def min_dfs_code(graph: LabeledGraph) -> DfsCode:
    """gSpan's canonical (minimum) DFS code of a connected graph with at least one edge."""
    if graph.num_edges == 0:
        raise ValueError("a DFS code needs at least one edge")
    code = _search_min_code(graph.node_labels, graph.adjacency(), graph.num_edges)
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


def is_min_code(code: Sequence[DfsTuple]) -> bool:
    """Whether a valid DFS code is the minimum code of the graph it describes (gSpan's ``is_min``)."""
    labels, adj = code_adjacency(code)
    return _search_min_code(labels, adj, len(code), target=code) is not None


def graph_from_code(code: Sequence[DfsTuple]) -> LabeledGraph:
    """The graph of a valid DFS code (vertex k = DFS index k)."""
    labels, _ = code_adjacency(code)
    return LabeledGraph.build(labels, [(i, j, le) for i, j, _, le, _ in code])


# ---- canonical text -----------------------------------------------------------------------------
def tuple_token(t: DfsTuple) -> str:
    return "({},{},{},{},{})".format(*t)


def vertex_token(label: int) -> str:
    return f"(v,{label})"


def code_text(code: Sequence[DfsTuple]) -> str:
    """One token per tuple, space-separated: the pattern key used by the gSpan miner."""
    return " ".join(tuple_token(t) for t in code)


Component = DfsCode | int  # a minimum code, or the label of an isolated vertex


def component_key(component: Component) -> tuple[int, tuple[tuple[int, ...], ...] | int]:
    """Edge components first, by their own minimum codes (DFS lexicographic order); then isolated vertices."""
    return (1, component) if isinstance(component, int) else (0, code_key(component))


def canonical_components(graph: LabeledGraph) -> list[Component]:
    """Per-component canonical forms in canonical order (see the module docstring)."""
    parts: list[Component] = []
    for nodes in graph.components():
        if len(nodes) == 1:
            parts.append(graph.node_labels[nodes[0]])
        else:
            parts.append(min_dfs_code(graph.induced(nodes)))
    return sorted(parts, key=component_key)


def min_code_component(graph: LabeledGraph) -> LabeledGraph:
    """The component that comes first in canonical order (smallest minimum code), renumbered in DFS order.

    A reconstruction of the paper's one-component serialization (spec 4.2 option (a)): keeping only this
    component reproduces the paper's NCI1 |P_tr| = 818, ENZYMES' 591 unique codes and the DFS mean lengths
    31.2 (NCI1) and 60.8 (ENZYMES) of Table 10. Lossy: graphs that differ elsewhere become equal.
    """
    if graph.num_nodes == 0:
        raise ValueError("the graph has no vertices")
    first = canonical_components(graph)[0]
    return LabeledGraph.build([first], []) if isinstance(first, int) else graph_from_code(first)


def dfs_text(graph: LabeledGraph) -> str:
    """The canonical DFS serialization; equal strings iff isomorphic labelled graphs ('' for no vertices)."""
    texts = [vertex_token(c) if isinstance(c, int) else code_text(c) for c in canonical_components(graph)]
    return f" {COMPONENT_SEPARATOR} ".join(texts)


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


def _parse_component(tokens: list[str], strict: bool) -> tuple[list[int], list[tuple[int, int, int]]] | str:
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
        i, j, li, le, lj = (int(x) for x in m.groups())
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


def parse_dfs_text(text: str, strict: bool = False) -> ParseResult:
    """Parse DFS text (module docstring) back to a graph; never raises.

    Rules (spec 4.5): each component starts with ``(0,1,..)``; a forward tuple introduces exactly the next
    index from an existing vertex; a backward tuple joins two distinct existing vertices; vertex labels
    agree across tuples; no duplicate edges; no empty component; ``(v,l)`` stands alone. ``strict`` also
    demands rightmost-path extensions (a well-formed DFS code, minimal or not).
    """
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
        part = _parse_component(group, strict)
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

"""The nine primitive patterns of the benchmark (paper Table 11; exact edges and prompt strings from the
authors' repository, spec §3.1).

A pattern's nodes are positions 0..k-1, named with the letters A, B, C, ... that topology-based prompts use.
Five patterns are undirected (triangle, tailed triangle, square, diamond, house) and four directed
(V-structure, feed-forward loop, feedback loop, directed diamond). :func:`pattern_from_edges` turns any
small edge list (a pattern an LLM extracted, say) into the same :class:`Pattern` form, so the solvers treat
primitive and extracted patterns alike.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

__all__ = [
    "DIRECTED_PATTERNS",
    "FREQUENT_PATTERNS",
    "MODIFICATIONS",
    "PATTERNS",
    "PATTERN_NAMES",
    "UNDIRECTED_PATTERNS",
    "Pattern",
    "get_pattern",
    "pattern_from_edges",
]


@dataclass(frozen=True)
class Pattern:
    """A small graph on positions 0..num_nodes-1 with its paper names.

    ``label`` is the short name the paper's tables print, ``description`` the Table 11 definition and
    ``terminology`` the exact string the repository puts into terminology-based prompts (typos kept); both
    are empty for patterns built by :func:`pattern_from_edges`.
    """

    name: str
    label: str
    directed: bool
    num_nodes: int
    edges: tuple[tuple[int, int], ...]
    description: str = ""
    terminology: str = ""

    def __post_init__(self) -> None:
        for u, v in self.edges:
            if not (0 <= u < self.num_nodes and 0 <= v < self.num_nodes) or u == v:
                raise ValueError(
                    f"pattern {self.name!r}: edge ({u}, {v}) is not between two of its {self.num_nodes} positions"
                )
        keys = [(u, v) if self.directed else (min(u, v), max(u, v)) for u, v in self.edges]
        if len(set(keys)) != len(keys):
            raise ValueError(f"pattern {self.name!r} lists an edge twice: {self.edges}")

    @property
    def letters(self) -> tuple[str, ...]:
        """Node names used in topology-based prompts: A, B, C, ..."""
        if self.num_nodes > len(string.ascii_uppercase):
            raise ValueError(f"pattern {self.name!r} has {self.num_nodes} nodes; letters name at most 26")
        return tuple(string.ascii_uppercase[: self.num_nodes])

    @property
    def letter_edges(self) -> tuple[tuple[str, str], ...]:
        """The edges with letter names, in the repository's order (e.g. house: A-B, B-C, C-D, D-A, C-E, E-D)."""
        names = self.letters
        return tuple((names[u], names[v]) for u, v in self.edges)

    def graph(self) -> nx.Graph:
        """The pattern as a networkx ``Graph`` or ``DiGraph`` on nodes 0..k-1."""
        graph = nx.DiGraph() if self.directed else nx.Graph()
        graph.add_nodes_from(range(self.num_nodes))
        graph.add_edges_from(self.edges)
        return graph


def _edges(text: str) -> tuple[tuple[int, int], ...]:
    """``"AB BC"`` -> ((0, 1), (1, 2)): letter pairs as positions."""
    return tuple((ord(pair[0]) - ord("A"), ord(pair[1]) - ord("A")) for pair in text.split())


_HOUSE = (
    "house (A motif resembling the shape of a house with 5 nodes and 6 edges. The vertices and edges are "
    'arranged such that there is a triangular "roof" on top of a square or rectangular "base."'
)

PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in [
        Pattern(
            "triangle",
            "Triangle",
            False,
            3,
            _edges("AB BC CA"),
            "A motif consisting of three nodes where each node is connected to the other two, forming a triangle",
            "triangle (A motif consisting of three nodes where each node is connected to the other two, forming "
            "a triangle)",
        ),
        Pattern(
            "tailed_triangle",
            "T-Triangle",
            False,
            4,
            _edges("AB BC CA DC"),
            "A triangle with an additional node connected to one of the vertices of the triangle",
            "tailed triangle (A triangle with an additional node connected to one of the vertices of the triangle)",
        ),
        Pattern(
            "square",
            "Square",
            False,
            4,
            _edges("AB BC CD DA"),
            "A 4-node cycle where each node is connected to exactly two other nodes",
            "square (A 4-node cycle where each node is connected to exactly two other nodes)",
        ),
        Pattern(
            "diamond",
            "Diamond",
            False,
            4,
            _edges("AB BC CA AD BD"),
            "A 4-node motif with five edges",
            "diamond (A four-node motif with five edges)",
        ),
        Pattern(
            "house",
            "House",
            False,
            5,
            _edges("AB BC CD DA CE ED"),
            "A motif resembling the shape of a house with 5 nodes and 6 edges. The vertices and edges are "
            'arranged such that there is a triangular "roof" on top of a square or rectangular "base."',
            _HOUSE,
        ),
        Pattern(
            "v_structure",
            "V-S",
            True,
            3,
            _edges("AB CB"),
            "two nodes have directed edges pointing toward a common target node",
            "V-structure (Two nodes have directed edges pointing toward a common target node)",
        ),
        Pattern(
            "ffl",
            "FFL",
            True,
            3,
            _edges("AB AC BC"),
            "A 3-node directed motif in which one source node influences a target node through two distinct pathways",
            "3-node Feed-Forward Loop (A three-node directed motif in which one source node influences a target "
            "node through two distinct pathways)",
        ),
        Pattern(
            "fbl",
            "FBL",
            True,
            3,
            _edges("AB BC CA"),
            "A 3-node directed cycle where the nodes form a loop",
            "3-node Feedback loop (A directed cycle where the nodes form a loop)",
        ),
        Pattern(
            "d_diamond",
            "D-Diamond",
            True,
            4,
            _edges("AB BC AD DC"),
            "A 4-node motif in a directed graph where one node has directed edges to two intermediate nodes, and "
            "both of those intermediate nodes have directed edges to a common target node.",
            "direceted diamond (A 4-node motif in a directed graph where one node has directed edges to two "
            "intermediate nodes, and both of those intermediate nodes have directed edges to a common target "
            "node.)",
        ),
    ]
}

PATTERN_NAMES: tuple[str, ...] = tuple(PATTERNS)  # the column order of Tables 18/19
UNDIRECTED_PATTERNS: tuple[str, ...] = tuple(name for name, p in PATTERNS.items() if not p.directed)
DIRECTED_PATTERNS: tuple[str, ...] = tuple(name for name, p in PATTERNS.items() if p.directed)
# Modification sets (T2/T5): short name -> (source pattern present, target pattern absent), induced.
MODIFICATIONS: dict[str, tuple[str, str]] = {
    "S2H": ("square", "house"),
    "S2D": ("square", "diamond"),
    "D2S": ("diamond", "square"),
    "F2B": ("ffl", "fbl"),
}
# Frequent-subgraph sets (T8): every pattern except the tailed triangle and the V-structure.
FREQUENT_PATTERNS: tuple[str, ...] = ("triangle", "square", "diamond", "house", "ffl", "fbl", "d_diamond")


def get_pattern(name: str) -> Pattern:
    """The primitive pattern called ``name`` (one of :data:`PATTERN_NAMES`)."""
    try:
        return PATTERNS[name]
    except KeyError:
        raise ValueError(f"unknown pattern {name!r}; the primitive patterns are {', '.join(PATTERN_NAMES)}") from None


def pattern_from_edges(edges: Iterable[tuple[int, int]], directed: bool, name: str = "custom") -> Pattern:
    """A pattern from an edge list over any node ids (renumbered 0..k-1 in increasing id order).

    Duplicate edges (and, undirected, the reverse of an edge already listed) are dropped; self-loops are an
    error. The pattern's nodes are exactly the nodes its edges touch.
    """
    pairs = [(int(u), int(v)) for u, v in edges]
    if not pairs:
        raise ValueError(f"pattern {name!r} has no edges")
    if any(u == v for u, v in pairs):
        raise ValueError(f"pattern {name!r} has a self-loop: {pairs}")
    position = {node: i for i, node in enumerate(sorted({x for pair in pairs for x in pair}))}
    seen: dict[tuple[int, int], None] = {}
    for u, v in pairs:
        key = (position[u], position[v])
        seen.setdefault(key if directed else (min(key), max(key)), None)
    return Pattern(name, name, directed, len(position), tuple(seen))

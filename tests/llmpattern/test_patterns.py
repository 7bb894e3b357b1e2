"""The nine primitive patterns: exact structures, copy counts, prompt strings, custom patterns."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from networkx.algorithms import isomorphism

from graphaudit.llmpattern.patterns import (
    DIRECTED_PATTERNS,
    FREQUENT_PATTERNS,
    MODIFICATIONS,
    PATTERN_NAMES,
    PATTERNS,
    UNDIRECTED_PATTERNS,
    Pattern,
    get_pattern,
    pattern_from_edges,
)
from graphaudit.llmpattern.solvers import copy_masks

# name: (directed, nodes, edges, labelled copies on the node set = k!/|Aut|), spec §3.1
TABLE_11 = {
    "triangle": (False, 3, 3, 1),
    "tailed_triangle": (False, 4, 4, 12),
    "square": (False, 4, 4, 3),
    "diamond": (False, 4, 5, 6),
    "house": (False, 5, 6, 60),
    "v_structure": (True, 3, 2, 3),
    "ffl": (True, 3, 3, 6),
    "fbl": (True, 3, 3, 2),
    "d_diamond": (True, 4, 4, 12),
}


def automorphisms(pattern: Pattern) -> int:
    graph = pattern.graph()
    matcher = (isomorphism.DiGraphMatcher if pattern.directed else isomorphism.GraphMatcher)(graph, graph)
    return sum(1 for _ in matcher.isomorphisms_iter())


@pytest.mark.parametrize("name", list(TABLE_11))
def test_structure_and_copy_counts(name: str) -> None:
    pattern = get_pattern(name)
    directed, nodes, edges, copies = TABLE_11[name]
    assert (pattern.directed, pattern.num_nodes, len(pattern.edges)) == (directed, nodes, edges)
    assert len(copy_masks(pattern)) == copies == math.factorial(nodes) // automorphisms(pattern)
    graph = pattern.graph()
    assert nx.is_weakly_connected(graph) if directed else nx.is_connected(graph)


def test_exact_repository_edges() -> None:
    assert get_pattern("house").letter_edges == (("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("C", "E"), ("E", "D"))
    assert get_pattern("tailed_triangle").letter_edges[-1] == ("D", "C")
    diamond = get_pattern("diamond").graph()
    assert set(nx.complement(diamond).edges()) == {(2, 3)}  # K4 minus C-D
    assert get_pattern("v_structure").letter_edges == (("A", "B"), ("C", "B"))
    assert get_pattern("ffl").letter_edges == (("A", "B"), ("A", "C"), ("B", "C"))
    assert get_pattern("fbl").letter_edges == (("A", "B"), ("B", "C"), ("C", "A"))
    assert get_pattern("d_diamond").letter_edges == (("A", "B"), ("B", "C"), ("A", "D"), ("D", "C"))


def test_names_orders_and_groups() -> None:
    assert PATTERN_NAMES == tuple(TABLE_11)
    assert UNDIRECTED_PATTERNS == ("triangle", "tailed_triangle", "square", "diamond", "house")
    assert DIRECTED_PATTERNS == ("v_structure", "ffl", "fbl", "d_diamond")
    assert set(FREQUENT_PATTERNS) == set(PATTERN_NAMES) - {"tailed_triangle", "v_structure"}
    assert MODIFICATIONS == {
        "S2H": ("square", "house"),
        "S2D": ("square", "diamond"),
        "D2S": ("diamond", "square"),
        "F2B": ("ffl", "fbl"),
    }
    assert [PATTERNS[n].label for n in PATTERN_NAMES] == [
        "Triangle",
        "T-Triangle",
        "Square",
        "Diamond",
        "House",
        "V-S",
        "FFL",
        "FBL",
        "D-Diamond",
    ]


def test_terminology_strings_keep_the_repository_text() -> None:
    assert get_pattern("house").terminology.startswith("house (A motif resembling")
    assert get_pattern("house").terminology.endswith('"base."')  # no closing parenthesis
    assert get_pattern("d_diamond").terminology.startswith("direceted diamond (")
    assert get_pattern("diamond").terminology == "diamond (A four-node motif with five edges)"
    assert get_pattern("fbl").terminology == "3-node Feedback loop (A directed cycle where the nodes form a loop)"
    assert all(p.description and p.terminology for p in PATTERNS.values())


def test_pattern_from_edges() -> None:
    pattern = pattern_from_edges([(7, 3), (3, 9), (9, 7), (7, 3), (3, 7)], directed=False)
    assert (pattern.num_nodes, pattern.edges) == (3, ((0, 1), (0, 2), (1, 2)))
    directed = pattern_from_edges([(5, 6), (6, 5)], directed=True)
    assert directed.edges == ((0, 1), (1, 0)) and directed.letters == ("A", "B")
    with pytest.raises(ValueError, match="self-loop"):
        pattern_from_edges([(1, 1)], directed=False)
    with pytest.raises(ValueError, match="no edges"):
        pattern_from_edges([], directed=False)


def test_bad_patterns_and_names_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown pattern 'pentagon'"):
        get_pattern("pentagon")
    with pytest.raises(ValueError, match="not between two"):
        Pattern("bad", "bad", False, 2, ((0, 2),))
    with pytest.raises(ValueError, match="twice"):
        Pattern("bad", "bad", False, 2, ((0, 1), (1, 0)))

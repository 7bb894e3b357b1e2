"""Prompt builders: the spec's exact graph texts and task templates, CoT demonstrations, hash stability."""

from __future__ import annotations

import hashlib

import pytest

from graphaudit.llmpattern.datasets import graph_record, make_item
from graphaudit.llmpattern.generators import (
    ba2motif_items,
    detection_items,
    discriminative_turns,
    frequent_graph_items,
    frequent_turns,
    isomorphism_items,
    kcore_items,
    modification_items,
    translation_items,
)
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, UNDIRECTED_PATTERNS
from graphaudit.llmpattern.prompts import (
    COT_DEMONSTRATIONS,
    build_prompt,
    pattern_text,
    prompt_hash,
    prompt_record,
    record_text,
    task_code,
)

SPEC_GRAPH = graph_record(5, [(0, 1), (1, 2), (1, 4), (1, 3), (2, 4)], False, keep_order=True)
TRIANGLE = graph_record(3, [(0, 1), (0, 2), (1, 2)], False)
ASK3 = (
    "Please identify the patterns for each node and list all of them as follows: "
    "The detected patterns are: [(#1, #2, #3), ...]."
)
TABLE15 = {
    "num_nodes": 8,
    "edges": [[0, 1], [0, 4], [1, 2], [1, 3], [4, 5], [5, 6], [5, 7]],
    "atoms": ["C", "C", "O", "O", "N", "C", "N", "N"],
}


def molecule_item(variant: str = "alkane_carbonyl") -> dict:
    return {
        "item_id": f"molecule/{variant}/-/0000",
        "task": "molecule",
        "variant": variant,
        "scale": None,
        "directed": False,
        "index": 0,
        "graph": TABLE15,
        "smiles": "C(C(=O)[O-])NC(=[NH2+])N",
        "truth": {"label": 1},
    }


# ---- graph texts (spec §3.2) -------------------------------------------------------------------------
def test_adjacency_and_edge_list_match_the_spec_examples() -> None:
    assert record_text(SPEC_GRAPH, False, "AL") == (
        "G describes an undirected graph among 0, 1, 2, 3, and 4.\nIn this graph:\nNode 0 is connected to nodes 1."
        "\nNode 1 is connected to nodes 0, 2, 4, 3.\nNode 2 is connected to nodes 1, 4.\nNode 3 is connected to "
        "nodes 1.\nNode 4 is connected to nodes 1, 2.\n"
    )
    assert record_text(SPEC_GRAPH, False, "EL") == (
        "G describes an undirected graph among node 0, 1, 2, 3, and 4.\nNode 0 is connected to Node 1 .\nNode 1 is "
        "connected to Node 2 .\nNode 1 is connected to Node 4 .\nNode 1 is connected to Node 3 .\nNode 2 is connected"
        " to Node 4 .\n"
    )


def test_directed_texts_list_out_neighbours_and_skip_nodes_without_them() -> None:
    graph = graph_record(4, [(2, 0), (0, 1), (0, 2)], True, keep_order=True)
    assert record_text(graph, True, "AL") == (
        "G describes a directed graph among 0, 1, 2, and 3.\nIn this graph:\nNode 0 is directed to nodes 1, 2.\n"
        "Node 2 is directed to nodes 0.\n"
    )
    assert record_text(graph, True, "EL") == (
        "G describes a directed graph among node 0, 1, 2, and 3.\nNode 0 is directed to Node 1 .\nNode 0 is directed"
        " to Node 2 .\nNode 2 is directed to Node 0 .\n"
    )


def test_isolated_nodes_appear_only_in_the_header() -> None:
    graph = graph_record(4, [(0, 3)], False)
    assert record_text(graph, False, "AL").endswith(
        "among 0, 1, 2, and 3.\nIn this graph:\nNode 0 is connected to nodes 3.\nNode 3 is connected to nodes 0.\n"
    )


def test_pattern_texts_use_letters_in_the_repository_order() -> None:
    assert pattern_text("house", "EL").startswith(
        "G describes an undirected graph among node A, B, C, D, and E.\nNode A is connected to Node B .\n"
        "Node A is connected to Node D .\n"
    )
    assert pattern_text("v_structure", "AL") == (
        "G describes a directed graph among A, B, and C.\nIn this graph:\nNode A is directed to nodes B.\n"
        "Node C is directed to nodes B.\n"
    )


def test_second_graph_of_a_faithful_pair_keeps_the_first_graphs_order() -> None:
    pair = isomorphism_items(detection_items(False, "small", per_n=1)[:1])[0]
    g1, g2 = (record_text(g, False, "EL").splitlines() for g in pair["graphs"])
    mapping = pair["truth"]["mapping"]
    relabelled = [line.replace("Node ", "Node #") for line in g1[1:]]
    for k, line in enumerate(relabelled):
        u, v = (int(x.split()[0]) for x in line.split("#")[1:])
        assert g2[k + 1] == f"Node {mapping[u]} is connected to Node {mapping[v]} ."


def test_molecule_text_matches_table_15() -> None:
    """Table 15's E.L. exactly; its A.L. as the repository writes it (a newline before "In this graph:" and
    after every line, where the paper's table prints spaces)."""
    assert record_text(TABLE15, False, "EL") == (
        "G describes an undirected graph among node 0, 1, 2, 3, 4, 5, 6, and 7.\nNode 0 (atom: C) is connected to "
        "Node 1 (atom: C).\nNode 0 (atom: C) is connected to Node 4 (atom: N).\nNode 1 (atom: C) is connected to Node "
        "2 (atom: O).\nNode 1 (atom: C) is connected to Node 3 (atom: O).\nNode 4 (atom: N) is connected to Node 5 "
        "(atom: C).\nNode 5 (atom: C) is connected to Node 6 (atom: N).\nNode 5 (atom: C) is connected to Node 7 "
        "(atom: N).\n"
    )
    assert record_text(TABLE15, False, "AL") == (
        "G describes an undirected graph among 0, 1, 2, 3, 4, 5, 6, and 7.\nIn this graph:\nNode 0 (atom: C) is "
        "connected to nodes 1 (atom: C), 4 (atom: N).\nNode 1 (atom: C) is connected to nodes 0 (atom: C), 2 (atom: "
        "O), 3 (atom: O).\nNode 2 (atom: O) is connected to nodes 1 (atom: C).\nNode 3 (atom: O) is connected to "
        "nodes 1 (atom: C).\nNode 4 (atom: N) is connected to nodes 0 (atom: C), 5 (atom: C).\nNode 5 (atom: C) is "
        "connected to nodes 4 (atom: N), 6 (atom: N), 7 (atom: N).\nNode 6 (atom: N) is connected to nodes 5 (atom: "
        "C).\nNode 7 (atom: N) is connected to nodes 5 (atom: C).\n"
    )


# ---- task templates (spec §3.5) ----------------------------------------------------------------------
def test_translation_prompts() -> None:
    triangle, vs = translation_items(per_pattern=1)[0], translation_items(per_pattern=1)[5]
    head = (
        "Generate a undirected graph that includes only one triangle (A motif consisting of three nodes where "
        "each node is connected to the other two, forming a triangle), the node number is 20. Each node at least "
        "has one edge. The formulate of the graph should be:"
    )
    assert build_prompt(triangle, "EL") == head + "The edges of the graph should be list as: (Node #1, Node #2), ..."
    assert build_prompt(triangle, "AL") == head + (
        'For each node of the graph, the neighboring nodes are listed as follows: "Node #1: []\n Node #2: []"'
    )
    assert build_prompt(vs, "EL").endswith(
        "V-structure (Two nodes have directed edges pointing toward a common target node), the node number is 20. "
        "Each node at least has one edge. The formulate of the graph should be:We define the direction of edges by "
        "indicating Node #1 pointing to Node #2 as (Node #1, Node #2). The edges of the graph should be list as: "
        "(Node #1, Node #2), ..."
    )
    assert build_prompt(vs, "EL").startswith("Generate a directed graph")
    assert "given pattern shown like: G describes a directed graph among node A, B, and C." in build_prompt(
        vs, "EL", description="topo"
    )


def test_detection_prompts_in_both_descriptions() -> None:
    item = make_item(
        "detection", "undirected", "small", 0, False, {"occurrences": {"triangle": [[0, 1, 2]]}}, graph=TRIANGLE
    )
    graph = (
        "G describes an undirected graph among node 0, 1, and 2.\nNode 0 is connected to Node 1 .\n"
        "Node 0 is connected to Node 2 .\nNode 1 is connected to Node 2 .\n"
    )
    assert build_prompt(item, "EL", pattern="triangle") == (
        "Identify the occurrence patterns of the given motif in the graph. The given patterns is triangle (A motif "
        "consisting of three nodes where each node is connected to the other two, forming a triangle).\n" + graph + ASK3
    )
    assert build_prompt(item, "EL", description="topo", pattern="triangle") == (
        "Identify the occurrence patterns of the given motif in the graph.\nThe pattern is:G describes an undirected "
        "graph among node A, B, and C.\nNode A is connected to Node B .\nNode A is connected to Node C .\nNode B is "
        "connected to Node C .\n\n The graph is:\n" + graph + ASK3
    )
    house = detection_items(False, "small", per_n=1)[0]
    assert build_prompt(house, "AL", pattern="house").endswith("[(#1, #2, #3, #4, #5), ...].")
    assert 'rectangular "base.".\nG describes' in build_prompt(house, "AL", pattern="house")
    with pytest.raises(ValueError, match="needs pattern="):
        build_prompt(house, "AL")
    with pytest.raises(ValueError, match="ffl is not detected"):
        build_prompt(house, "AL", pattern="ffl")


def test_modification_prompt() -> None:
    item = modification_items("S2D", "small", per_n=1)[0]
    graph = record_text(item["graph"], False, "EL")
    assert build_prompt(item, "EL", description="term") == (
        "Modify the graph to include the given pattern. The graph is shown as "
        + graph
        + "The given pattern is diamond (A four-node motif with five edges)\nThe number of modified edges should be "
        "as less as possible.The edges of the final graph should be list as: [(Node #1, Node #2), ...]"
    )
    assert build_prompt(item, "EL", description="topo") == (
        "Modify the graph to include the given pattern. The graph is shown as "
        + graph
        + "The given pattern is "
        + pattern_text("diamond", "EL")
        + "\nThe number of modified edges should be as less "
        "as possible.The edges of the final graph should be list as: [(Node #1, Node #2), ...]"
    )


def test_isomorphism_kcore_frequent_prompts() -> None:
    detection = detection_items(False, "small", per_n=1)[:2]
    pair = isomorphism_items(detection)[0]
    g1, g2 = (record_text(g, False, "AL") for g in pair["graphs"])
    assert build_prompt(pair, "AL") == (
        "Given a pair of isomorphic graphs, determine the node correspondence between the two graphs. The first graph "
        f"is:\n{g1} The second graph is: {g2}" + 'Provide a node matching list such as "[Graph 1: Node #1 -> Graph 2: '
        'Node #2, ...]"'
    )
    core = kcore_items(detection)[0]
    assert build_prompt(core, "EL") == (
        "Determine the 3-core subgraphs in the graph.\n"
        + record_text(core["graph"], False, "EL")
        + 'Please identify the 3-core subgraphs and list the nodes in the subgraphs as: "The nodes in the subgraphs '
        "are: [#1, #2]."
    )
    turn = frequent_turns(frequent_graph_items("ffl", "small", per_n=1), 1, turn_size=3)[0]
    texts = [record_text(g, True, "EL") for g in turn["graphs"]]
    assert build_prompt(turn, "EL") == (
        "Consider the following graphs and summarize the common patterns in them."
        + "".join(f"No. {i}. {t}" for i, t in enumerate(texts, 1))
        + "Show the common patterns as list as: [The pattern graphs are: Pattern #1: [(Node #1, Node #2), ...]; "
        "Pattern #2: [(Node #1, Node #2), ...]]"
    )


def test_discriminative_prompts() -> None:
    ba = ba2motif_items(per_class=3, test_per_class=1)
    turn = discriminative_turns(ba, n_turns=1, per_label=2)[0]
    texts = [record_text(g, False, "EL") for g in turn["graphs"]]
    assert build_prompt(turn, "EL", gold_set="Set2") == (
        "You are provided two sets of graphs. The first sets are:\n"
        f"\nSet1: No. 1:\n{texts[0]}The second sets are:\n\nSet1: No. 2:\n{texts[1]}The second sets are:\n"
        f"\nSet2: No. 1:\n{texts[2]}\nSet2: No. 2:\n{texts[3]}"
        "What are the differences between the two sets? Show the special pattern in Set2, shown as list as: "
        "[The pattern graph is: (Node #1, Node #2), ...] "
    )
    with pytest.raises(ValueError, match="Set3"):
        build_prompt(turn, "EL", gold_set="Set3")
    test = next(i for i in ba if i["variant"] == "classification")
    prompt = build_prompt(test, "EL", type_patterns=[[[(0, 1), (1, 2), (2, 0)]], [[(5, 6)]]])
    assert prompt.startswith(
        "You are an expert at classifying different types of graphs based on whether they contain specific patterns. "
        "The first type of graph includes patterns such as:\npattern 1: No. 0:\nG describes an undirected graph among "
        "node 0, 1, and 2.\n"
    )
    assert (
        "The secod type of patterns like\npattern 2: No. 0:\nG describes an undirected graph among node 5, and "
        "6.\nNode 5 is connected to Node 6 .\nNow, please identify"
    ) in prompt
    assert prompt.endswith(
        record_text(test["graph"], False, "EL")
        + 'Chosing the answers from "It should be in Type 1" or "It should be in Type 2" '
    )


def test_molecule_prompts_in_three_descriptions() -> None:
    item = molecule_item()
    group = (
        "G describes an undirected graph among node 0, 1, 2, and 3.\nNode 0 (atom: C) is connected to Node 1 "
        "(atom: O).\nNode 0 (atom: C) is connected to Node 2 (atom: C).\nNode 2 (atom: C) is connected to Node 3 "
        "(atom: O).\n"
    )
    name = "Alkane Carbonyl which contains an unbranched alkane and a carbonyl functional group"
    tail = (
        "\nSecond, the test molecule C(C(=O)[O-])NC(=[NH2+])N can be shown as"
        + record_text(TABLE15, False, "EL")
        + "\nNow, please determine whether the pattern motif exists in the molecule graph by selecting either "
        "**The pattern does exist** or **The pattern does not exist**. Please consider from the perspective of "
        "molecular biology, and do not be too rigid."
    )
    head = (
        "In the context of molecular biology, you have been provided with a pattern motif to compare against a "
        "test molecule graph. \nFirst, "
    )
    assert build_prompt(item, "EL") == head + f"the pattern is a {name}, represented as " + group + tail
    assert build_prompt(item, "EL", description="term") == head + f"the pattern is a {name}" + tail
    assert build_prompt(item, "EL", description="topo") == head + "the pattern is represented as " + group + tail


def test_realworld_prompts() -> None:
    graphs = [dict(TABLE15), {"num_nodes": 2, "edges": [[0, 1]], "atoms": ["C", "O"]}]
    turn = {
        "item_id": "realworld_turn/ogbg-molbbbp/-/0000",
        "task": "realworld_turn",
        "variant": "ogbg-molbbbp",
        "scale": None,
        "directed": False,
        "index": 0,
        "graphs": graphs,
        "truth": {"labels": [1, 0], "classes": [1, 0]},
    }
    prompt = build_prompt(turn, "EL", gold_set="Set1")
    assert prompt.startswith(
        "You are an expert in molecular chemistry. Here are two sets of graphs. The graphs of "
        "compounds include binary labels on their permeability properties to the blood brain "
        "barrier.. The first set are:\n\nSet1: No. 1:\nG describes"
    )
    assert prompt.endswith(
        "show the significant pattern in Set1 as list as: [(Node 0 Atom C, Node 1 Atom N), "
        "(Node 1 Atom N, Node 2 Atom O), ...]. "
    )
    test = {
        "item_id": "realworld_graph/IMDB-MULTI/-/0000",
        "task": "realworld_graph",
        "variant": "IMDB-MULTI",
        "scale": None,
        "directed": False,
        "index": 0,
        "graph": graph_record(3, [(0, 1)], False),
        "truth": {"label": 2, "classes": [1, 2, 3]},
    }
    prompt = build_prompt(test, "EL", type_patterns=[[[(7, 8)], [(7, 8)]], [[(1, 2)]], [[(4, 5), (5, 6)]]])
    assert prompt.count("Pattern Type 1: No.") == 1 and "Pattern Type 2" not in prompt  # text de-duplication
    assert (
        "\nThe third type of patterns are\nPattern Type 3: No.1:\nG describes an undirected graph among node 1, 2,"
        " and 3.\n" in prompt
    )
    assert prompt.endswith(
        'choose the answer from "It should be in Type 1", "It should be in Type 2", or "It should be in Type 3".'
    )


# ---- options, CoT, hashes ----------------------------------------------------------------------------
def test_task_codes_and_option_errors() -> None:
    detection = detection_items(False, "small", per_n=1)[0]
    assert task_code(detection) == "T3" and task_code(detection, "topo") == "T6"
    mod = modification_items("F2B", "small", per_n=1)[0]
    assert (task_code(mod), task_code(mod, "topo")) == ("T2", "T5")
    with pytest.raises(ValueError, match="no terminology/topology variants"):
        build_prompt(kcore_items([detection])[0], "EL", description="term")
    with pytest.raises(ValueError, match="unknown graph format"):
        build_prompt(detection, "JSON", pattern="triangle")
    with pytest.raises(ValueError, match="pattern detection only"):
        build_prompt(mod, "EL", style="cot")
    with pytest.raises(ValueError, match="no prompt for"):
        task_code(ba2motif_items(per_class=2, test_per_class=1)[0])


def test_cot_demonstrations_are_exact_and_rendered_in_the_query_format() -> None:
    for demo in COT_DEMONSTRATIONS:
        demo.check()
    item = detection_items(True, "small", per_n=1)[3]
    for fmt in ("AL", "EL"):
        for description in ("term", "topo"):
            cot = build_prompt(item, fmt, "cot", description, pattern="fbl")
            plain = build_prompt(item, fmt, "zero_shot", description, pattern="fbl")
            assert cot.endswith(plain) and cot.count("Example ") == 3
            assert "The detected patterns are: [(0, 1, 2, 3, 4)]." in cot
            adjacency = "G describes an undirected graph among 0, 1, 2, 3, 4, and 5.\nIn this graph:"
            assert (adjacency in cot) == (fmt == "AL")


def test_every_prompt_builds_for_every_pattern_and_format() -> None:
    undirected, directed = detection_items(False, "small", per_n=1)[0], detection_items(True, "small", per_n=1)[0]
    for item, patterns in ((undirected, UNDIRECTED_PATTERNS), (directed, DIRECTED_PATTERNS)):
        for pattern in patterns:
            for fmt in ("AL", "EL"):
                for description in ("term", "topo"):
                    assert build_prompt(item, fmt, description=description, pattern=pattern).endswith("...].")


def test_prompt_hash_is_the_sha256_of_the_exact_text() -> None:
    item = make_item(
        "detection", "undirected", "small", 0, False, {"occurrences": {"triangle": [[0, 1, 2]]}}, graph=TRIANGLE
    )
    text = build_prompt(item, "EL", pattern="triangle")
    assert prompt_hash(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert prompt_hash(text) == "e5aacf7680febdd363b3c8a94d0396de13358d3c734ec58e1ae2b37221bdae24"
    assert prompt_hash("Ünïcode ✓") == hashlib.sha256("Ünïcode ✓".encode()).hexdigest()
    record = prompt_record(item, "EL", pattern="triangle")
    assert record["prompt_hash"] == prompt_hash(text) and record["task"] == "T3" and record["description"] == "term"
    assert prompt_record(item, "EL", pattern="triangle") == record

"""Answer parsers: never raise (fuzzed, huge and adversarial texts), the repository's quirks in ``repo`` mode,
the fixes in ``clean`` mode."""

from __future__ import annotations

import functools
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
from graphaudit.llmpattern.parsers import MODES, mentions_degree, parse_answer
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, UNDIRECTED_PATTERNS
from graphaudit.llmpattern.scorers import score_parsed

MOLECULE = {"num_nodes": 3, "edges": [[0, 1], [1, 2]], "atoms": ["C", "O", "C"]}


def realworld_items() -> list[dict]:
    base = {"scale": None, "directed": False, "index": 0}
    return [
        {
            **base,
            "item_id": "molecule/benzene/-/0000",
            "task": "molecule",
            "variant": "benzene",
            "graph": MOLECULE,
            "smiles": "COC",
            "truth": {"label": 1},
        },
        {
            **base,
            "item_id": "realworld_turn/MUTAG/-/0000",
            "task": "realworld_turn",
            "variant": "MUTAG",
            "graphs": [MOLECULE, MOLECULE],
            "truth": {"labels": [1, 0], "classes": [1, 0]},
        },
        {
            **base,
            "item_id": "realworld_turn/IMDB-MULTI/-/0000",
            "task": "realworld_turn",
            "variant": "IMDB-MULTI",
            "graphs": [graph_record(3, [(0, 1)], False)] * 3,
            "truth": {"labels": [1, 2, 3], "classes": [1, 2, 3]},
        },
        {
            **base,
            "item_id": "realworld_graph/IMDB-MULTI/-/0000",
            "task": "realworld_graph",
            "variant": "IMDB-MULTI",
            "graph": graph_record(3, [(0, 1)], False),
            "truth": {"label": 3, "classes": [1, 2, 3]},
        },
    ]


@functools.lru_cache(maxsize=1)
def one_item_per_kind() -> tuple[tuple[dict, dict], ...]:
    """(item, options) for every parser: each task, every detection pattern, both extraction sets."""
    undirected, directed = detection_items(False, "small", per_n=1)[:3], detection_items(True, "small", per_n=1)[:3]
    ba = ba2motif_items(per_class=4, test_per_class=1)
    cases = [(translation_items(per_pattern=1)[i], {}) for i in (0, 4, 6)]
    cases += [(modification_items(v, "small", per_n=1)[0], {}) for v in ("S2H", "F2B")]
    cases += [(undirected[2], {"pattern": p}) for p in UNDIRECTED_PATTERNS]
    cases += [(directed[2], {"pattern": p}) for p in DIRECTED_PATTERNS]
    cases += [(isomorphism_items(undirected)[1], {}), (kcore_items(undirected)[2], {})]
    cases += [
        (frequent_turns(frequent_graph_items(p, "small", per_n=1), 1, turn_size=4)[0], {}) for p in ("fbl", "house")
    ]
    cases += [(discriminative_turns(ba, n_turns=1, per_label=2)[0], {"gold_set": g}) for g in ("Set1", "Set2")]
    cases += [(next(i for i in ba if i["variant"] == "classification"), {})]
    cases += [(item, {}) for item in realworld_items()]
    return tuple(cases)


FRAGMENTS = [
    "[",
    "]",
    "(",
    ")",
    ",",
    ",,",
    " ",
    "\n",
    "**",
    "#",
    "Node ",
    "node ",
    "->",
    "→",
    "↔",
    ": ",
    "0",
    "1",
    "7",
    "12",
    "101",
    "999999999999999999999999",
    "٣",
    "²",
    "a",
    "B",
    "Type ",
    "It should be in Type 1",
    "it should be in type 2",
    "The detected patterns are: ",
    "The nodes in the subgraphs are: ",
    "The edges of the final graph are: ",
    "Pattern #1: ",
    "triangle",
    "connected",
    "not ",
    "Atom C",
    "**nodes 1, 2, 3**",
    " forms a triangle",
    "The pattern does exist",
    "not exist",
    "\\boxed",
    "|",
    "\\text{",
    "}",
    "{",
    "Graph 1: Node ",
    "Graph 2: Node ",
    "(Node 0 Atom C, Node 1 Atom O)",
    "\u00a0",
    "\x00",
    "😀",
]
texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=60).map("".join),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_no_parser_or_scorer_raises_on_any_text(text: str) -> None:
    for item, options in one_item_per_kind():
        for mode in MODES:
            parsed = parse_answer(item, text, mode, pattern=options.get("pattern"), fmt="EL")
            assert isinstance(parsed.unparsed, bool)
            score = score_parsed(item, parsed, pattern=options.get("pattern"), gold_set=options.get("gold_set"))
            assert score["mode"] == mode


def test_huge_and_adversarial_texts_do_not_raise() -> None:
    adversarial = [
        "[" * 20000,
        "]" * 20000,
        "(" * 20000 + "1, 2" + ")" * 5,
        "[(1, 2)  " * 3000,
        "[" + "(1,2)  " * 40,
        "9" * 10000,
        "**" * 5000 + "nodes 1, 2",
        "1 -> " * 5000,
        "Node 1: [" + "2, " * 5000,
        "\n".join(["connected 1 2 3"] * 2000),
        "[" + "a" * 200000 + "]",
    ]
    for text in adversarial:
        for item, options in one_item_per_kind():
            for mode in MODES:
                for fmt in ("AL", "EL"):
                    parse_answer(item, text, mode, pattern=options.get("pattern"), fmt=fmt)
    assert parse_answer(one_item_per_kind()[0][0], None, "clean").unparsed  # type: ignore[arg-type]


# ---- repo quirks -------------------------------------------------------------------------------------
def detection_item() -> dict:
    return detection_items(False, "small", per_n=1)[5]


def test_repo_detection_uses_the_last_group_and_sorts() -> None:
    item = detection_item()
    text = "First [(0, 1, 2)], finally: The detected patterns are: [(3, 2, 1), **(4, 0, 2)**]"
    assert parse_answer(item, text, "repo", pattern="triangle").value == [(0, 2, 4), (1, 2, 3)]
    assert parse_answer(item, text, "clean", pattern="triangle").value == [(0, 2, 4), (1, 2, 3)]
    assert parse_answer(item, "[(0, 1, 2)] and then [no tuples]", "repo", pattern="triangle").value == [(0, 1, 2)]


def test_repo_house_tuples_need_the_double_comma() -> None:
    item = detection_item()
    normal, buggy = "The detected patterns are: [(0, 1, 2, 3, 4)].", "[(0, 1, 2, 3,, 4)]"
    repo = parse_answer(item, normal, "repo", pattern="house")
    assert repo.value == [] and repo.unparsed
    assert parse_answer(item, buggy, "repo", pattern="house").value == [(0, 1, 2, 3, 4)]
    assert parse_answer(item, normal, "repo", pattern="house", emulate_house_bug=False).value == [(0, 1, 2, 3, 4)]
    assert parse_answer(item, normal, "clean", pattern="house").value == [(0, 1, 2, 3, 4)]


def test_repo_detection_sentence_fallbacks() -> None:
    item = detection_item()
    lines = "Node 5 is connected to 1 and 2.\nNode 3 is not connected to anything."
    assert parse_answer(item, lines, "repo", pattern="triangle").value == [(1, 2)]
    bold = "1. **Nodes 0, 1, 2**: three edges, a triangle.\n2. **Nodes 1, 2, 3**: this forms not a triangle"
    assert parse_answer(item, bold, "repo", pattern="triangle").value == [(0, 1, 2)]
    assert parse_answer(item, lines, "clean", pattern="triangle").unparsed


def test_explicit_empty_lists_are_answers() -> None:
    item = detection_item()
    for mode in MODES:
        parsed = parse_answer(item, "The detected patterns are: [].", mode, pattern="square")
        assert parsed.value == [] and not parsed.unparsed
        assert parse_answer(item, "I cannot tell.", mode, pattern="square").unparsed


def test_repo_mapping_regexes_and_overwrites() -> None:
    item = isomorphism_items(detection_items(False, "small", per_n=1)[:1])[0]
    text = "- Node 0 → Node 104 (degree 2)\n**Graph 1: Node 0 -> Graph 2: Node 103**, 1 -> 100 | 2 | 101 |"
    assert parse_answer(item, text, "repo").value == {0: 103, 1: 100, 2: 101}
    assert parse_answer(item, text, "clean").value == {0: 103, 1: 100}  # "| 2 | 101 |" is no arrow pair
    assert parse_answer(item, "\\boxed{3: 102}", "repo").value == {3: 102}
    assert mentions_degree("Sort by DEGREE") and not mentions_degree("sorted")


def test_kcore_first_group_in_repo_answer_list_in_clean() -> None:
    item = kcore_items(detection_items(False, "small", per_n=1)[:1])[0]
    text = "Degrees [1, 1] ... The nodes in the subgraphs are: [0, 2, 2, 3]."
    assert parse_answer(item, text, "repo").value == [1, 1]
    assert parse_answer(item, text, "clean").value == [0, 2, 3]
    assert parse_answer(item, "Core: (0, 1) and (1, 4)", "repo").value == [0, 1, 4]


def test_clean_mode_reads_a_stated_none_as_the_full_phrase_regex_does() -> None:
    """A text without a list is an explicit "none" exactly where this regex, the contract's wording, matches."""
    words = (
        r"(?:occurrences?|instances?|patterns?|motifs?|subgraphs?|cores?|nodes?|matches|triangles?|squares?"
        r"|diamonds?|houses?|loops?|cycles?|structures?)"
    )
    stated = re.compile(
        r"\b(?:there\s+(?:is|are)\s+no|contains?\s+no|ha(?:s|ve)\s+no|no)\s+(?:[\w-]+\s+){0,3}?" + words + r"\b"
        r"|\b(?:is|are)\s+empty\b|\bdoes\s+not\s+contain\b",
        re.IGNORECASE | re.ASCII,
    )
    item = kcore_items(detection_items(False, "small", per_n=1)[:1])[0]
    pieces = "there are|There is| no|No|contains|has|have| 3-core| cores| big red| subgraph| is| are| empty|EMPTY"
    pieces += "| does not| contain|nothing|x|-|\n| "
    rng = random.Random(0)
    for _ in range(3000):
        text = "".join(rng.choice(pieces.split("|")) for _ in range(rng.randrange(10)))
        parsed = parse_answer(item, text, "clean")
        assert parsed.unparsed == (stated.search(text) is None), text
        assert parsed.value == []


def test_frequent_keyword_shortcut_and_lowercasing() -> None:
    turn = frequent_turns(frequent_graph_items("triangle", "small", per_n=1), 1, turn_size=3)[0]
    keyword = parse_answer(turn, "Pattern #1: a Triangle", "repo").value
    assert keyword["keyword"] and not parse_answer(turn, "a triangle", "repo").value["keyword"]
    text = "[The pattern graphs are: Pattern #1: [(0, 1), (1, 2), (2, 0)]; Pattern #2: [(Node 5, Node 6)]]"
    repo = parse_answer(turn, text, "repo").value["patterns"]
    assert [sorted(tuple(sorted(e)) for e in p) for p in repo] == [[(0, 1), (0, 2), (1, 2)], []]  # "(node 5,
    # node 6)" is lost once lowercased
    assert parse_answer(turn, text, "clean").value["patterns"] == [[(0, 1), (1, 2), (2, 0)], [(5, 6)]]


def test_discriminative_repo_clean_drops_repeated_edges() -> None:
    turn = discriminative_turns(ba2motif_items(per_class=3, test_per_class=1), n_turns=1, per_label=2)[0]
    text = "[The pattern graph is: (0, 1), (1, 2), (0, 1), (Node 2, Node 3)]"
    assert parse_answer(turn, text, "repo").value == [(1, 2), (2, 3)]
    assert parse_answer(turn, text, "clean").value == [(0, 1), (1, 2), (2, 3)]


def test_type_and_verdict_parsers() -> None:
    test = next(i for i in ba2motif_items(per_class=2, test_per_class=1) if i["variant"] == "classification")
    assert parse_answer(test, "It should be in Type 2", "repo").value == 2
    assert parse_answer(test, "no idea", "repo").value == 2 and parse_answer(test, "no idea", "repo").unparsed
    assert parse_answer(test, "Type 1 or 2? It should be in type 1. Final: It should be in Type 2", "clean").value == 2
    assert parse_answer(test, "It should be in Type 3", "clean").unparsed
    molecule, _turn, _, graph = realworld_items()
    assert parse_answer(molecule, "**The pattern does not exist** because", "repo").value == 0
    assert parse_answer(molecule, "The pattern does exist.", "repo").unparsed
    revised = "The pattern does exist. On reflection, the pattern does not exist."
    assert parse_answer(molecule, revised, "clean").value == 0
    assert parse_answer(graph, "It should be in Type 3", "repo").value == 3
    assert parse_answer(graph, "it should be in type 3", "repo").unparsed


def test_realworld_extraction() -> None:
    _, molecular, plain, _ = realworld_items()
    text = "Pattern: [(Node 0 Atom C, Node 1 Atom O), (Node 1 Atom O, Node 2 Atom C)] then [x]"
    for mode in MODES:
        value = parse_answer(molecular, text, mode).value
        assert value["edges"] == [("0", "1"), ("1", "2")] and value["atoms"] == {"0": "C", "1": "O", "2": "C"}
    assert parse_answer(molecular, "[(1, 2), (Node 0 Atom C, Node 1 Atom O)]", "repo").unparsed  # repo skips it
    assert parse_answer(plain, "[(Node 1, Node 2)]", "repo").value == {"edges": [("1", "2")], "atoms": None}


def test_translation_parsers() -> None:
    item = translation_items(per_pattern=1)[0]
    text = "Edges: (0, 1), (1,2), (Node 2, Node 0), [2, 3], (a, b)"
    assert set(parse_answer(item, text, "repo", fmt="EL").value) == {(0, 1), (1, 2), (2, 0), (2, 3), ("a", "b")}
    assert parse_answer(item, text, "clean").value == [(0, 1), (1, 2), (2, 0)]
    lines = "Node 0: [1, 2]\nNode 1: [0, 2]\nNode 2: [0, 1]"
    assert parse_answer(item, lines, "clean").value == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert (
        parse_answer(item, "", "repo", fmt="EL").empty_text and not parse_answer(item, " ", "repo", fmt="EL").empty_text
    )
    long = make_item(
        "detection",
        "undirected",
        "small",
        0,
        False,
        {"occurrences": {"triangle": []}},
        graph=graph_record(3, [], False),
    )
    assert parse_answer(long, "[(1, 2, " + "9" * 5000 + ")]", "repo", pattern="triangle").value == []

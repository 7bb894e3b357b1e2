"""Repo mode against the authors' evaluation code (DDigimon/GraphPattern, ``codes/*/eval.py``): hand-made answers
with the per-answer scores their code gives, written down by hand from its rules (the comments give each rule),
and the clean-mode contract's rules for the same kinds of answer."""

from __future__ import annotations

import random
import re

import pytest

from graphaudit.llmpattern.datasets import graph_record, make_item
from graphaudit.llmpattern.generators import translation_items
from graphaudit.llmpattern.parsers import REPO_BOLD_SENTENCES, REPO_TUPLES, lazy_matches, parse_answer
from graphaudit.llmpattern.scorers import aggregate, score_answer

HUGE = "7" * 5000  # past Python's 4300-digit int() limit: int() raises there
LONG = "1234567890123456789"  # 19 digits: int() reads it


def repo(item: dict, text: str, **options) -> dict:
    return score_answer(item, text, "repo", **options)


def clean(item: dict, text: str, **options) -> dict:
    return score_answer(item, text, "clean", **options)


def translation_item(pattern: str) -> dict:
    return next(item for item in translation_items(per_pattern=1) if item["truth"]["pattern"] == pattern)


# ---- T1: the format picks the reader (Pattern Translation/eval.py) -------------------------------------
@pytest.mark.parametrize(
    ("fmt", "text", "correct"),
    [
        # extract_text_node: "Node #v: [a, b]" lines give (v, a), (v, b): a triangle plus the pendant edge 3-2
        ("AL", "Node #0: [1, 2]\nNode #1: [0, 2]\nNode #2: [0, 1]\nNode #3: [2]", 1),
        # without "#" neither A.L. form matches: no edges, no triangle (our old edge reader took (1, 2) as an edge)
        ("AL", "Node 0: [1, 2]\nNode 1: [0, 2]\nNode 2: [0, 1]", 0),
        # the second A.L. form, "- **Node v:** a, b" with a one-digit v
        ("AL", "- **Node 0:** 1, 2\n- **Node 1:** 0, 2\n- **Node 2:** 0, 1", 1),
        # an A.L. answer is never read as tuples: "(0, 1), (1, 2), (2, 0)" has no node lines
        ("AL", "(0, 1), (1, 2), (2, 0)", 0),
        ("EL", "(0, 1), (1, 2), (2, 0)", 1),
        # extract_text_edge reads 19-digit numbers (our old parser dropped them, leaving one edge)
        ("EL", f"({LONG}, 1), (1, 2), (2, {LONG})", 1),
    ],
)
def test_translation_answers_score_as_the_authors_eval(fmt: str, text: str, correct: int) -> None:
    score = repo(translation_item("triangle"), text, fmt=fmt)
    assert score["correct"] == correct and score["counted"] and score["repo_error"] is None


@pytest.mark.parametrize(
    "text",
    [
        "(0, 1), (1, a)",  # r"\(\w, \w\)" matches "(1, a)": one number, edge_pattern[1] raises IndexError
        f"(0, 1), (1, {HUGE})",  # int() raises ValueError
    ],
)
def test_translation_answers_the_authors_eval_raises_on_are_repo_errors(text: str) -> None:
    score = repo(translation_item("triangle"), text, fmt="EL")
    assert score["repo_error"] and not score["counted"] and score["correct"] == 0
    row = aggregate([score, repo(translation_item("triangle"), "(0, 1), (1, 2), (2, 0)", fmt="EL")])[0]
    assert row["n"] == 2 and row["n_repo_error"] == 1 and row["value"] == 1.0  # left out of ACC


def test_translation_diversity_tells_direction_apart_on_directed_patterns() -> None:
    """graph_iso_check on two FFL outputs whose undirected shadows agree: the matcher sees the directions."""
    item = translation_item("ffl")
    outputs = ["(0, 1), (1, 2), (0, 2), (2, 3)", "(0, 1), (1, 2), (0, 2), (3, 2)"]  # one FFL each, tail out vs in
    scores = [repo(item, text, fmt="EL") for text in outputs]
    row = aggregate(scores)[0]
    assert row["acc"] == 1.0 and row["div"] == 1.0


# ---- T2/T5: edit counting and integers (Graph Modification/eval.py) ------------------------------------
def fbl_item() -> dict:
    edges = [(0, 1), (1, 0), (1, 2), (0, 2), (2, 3)]  # an FFL on 0, 1, 2 whose first edge is reciprocal
    truth = {"source": "ffl", "target": "fbl", "occurrences": {"ffl": [], "fbl": []}}
    return make_item("modification", "F2B", "small", 0, True, truth, graph=graph_record(4, edges, True))


def test_modification_counts_each_direction_of_a_reciprocal_edge() -> None:
    # modified_edges: input edges with neither orientation in the output: (0, 1), (1, 0), (0, 2) -> 3;
    # output edges with neither orientation in the input: (3, 1) -> 1; 4 in all (the unordered count is 3)
    text = "The edges of the final graph are: [(1, 2), (2, 3), (3, 1)]"
    score = repo(fbl_item(), text, fmt="EL")
    assert score["success"] == 1 and score["edits"] == 4
    assert clean(fbl_item(), text, fmt="EL")["success"] == 1  # 4 ordered changes, within the FBL's 6 pairs


def test_modification_integers_and_the_caught_fallback() -> None:
    item = fbl_item()
    # the bracketed branch is not guarded: int() raises
    assert repo(item, f"[(1, 2), (2, 3), (3, {HUGE})]", fmt="EL")["repo_error"]
    # without brackets the repository's try/except catches it: the answer fails, no error
    caught = repo(item, f"(1, 2), (2, 3), (3, 1), (3, {HUGE})", fmt="EL")
    assert caught["repo_error"] is None and caught["success"] == 0 and caught["counted"]
    # "(1, a)" has one number: the modification copy reads the two word characters, an edge ("1", "a")
    assert repo(item, "[(1, 2), (2, 3), (3, 1), (1, a)]", fmt="EL")["success"] == 1


# ---- T3/T6: the sentence fallback (Pattern Detection/eval.py) ------------------------------------------
def detection_item(triangles: list[list[int]]) -> dict:
    occurrences = {"triangle": triangles}
    return make_item(
        "detection", "undirected", "small", 0, False, {"occurrences": occurrences}, graph=graph_record(4, [], False)
    )


def test_detection_sentence_fallback_and_its_int_errors() -> None:
    item = detection_item([[0, 1, 2]])
    said = "1. **Nodes 0, 1, 2:** they are joined; this set has 3 edges, a triangle."
    assert repo(item, said, pattern="triangle")["f1"] == 1.0
    negated = "1. **Nodes 0, 1, 2:** this set has 2 edges, not a triangle."
    assert repo(item, negated, pattern="triangle")["f1"] == 0.0
    # "0, 1, 2, " splits into a last piece "" and int("") raises before the verdict is read
    assert repo(item, "1. **Nodes 0, 1, 2, :** this set has 3 edges, a triangle.", pattern="triangle")["repo_error"]


@pytest.mark.parametrize("index", range(len(REPO_BOLD_SENTENCES)))
def test_the_lazy_sentence_matcher_equals_the_authors_regex(index: int) -> None:
    head, tail = REPO_BOLD_SENTENCES[index]
    whole = re.compile(r"(?<!\d)\d+" + head.pattern + ".*?" + tail.pattern, re.DOTALL)
    pieces = ["1. **nodes 0, 1, 2**", "1. **nodes 0, 1, 2:**", " this forms a triangle", " this forms not a house",
              " this set has 3 edges, a triangle.", " this forms a complete graph (6 edges), a clique.", "12", "\u0663",
              ". ", "\n", "x", "**", ". **nodes 4, 5**"]  # fmt: skip
    rng = random.Random(index)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(14)))
        expected = [(m.group(1), m.group(2)) for m in whole.finditer(text)]
        assert list(lazy_matches(head, tail, text)) == expected, text


@pytest.mark.parametrize(("k", "house_bug"), sorted(REPO_TUPLES))
def test_the_tuple_regex_finds_what_the_authors_regex_finds(k: int, house_bug: bool) -> None:
    """Ours starts at the mandatory "(" of the authors' regex; the groups of every match are the same."""
    reference = r"(?:\\?(?:Node\s+|#))?(\d+)"
    separators = [r"\s*,\s*"] * (k - 2) + [r"\s*,,\s*" if house_bug else r"\s*,\s*"]
    body = reference + "".join(separator + reference for separator in separators)
    authors = re.compile(r"\*{0,2}\\?\(?\\?\(\s*" + body + r"\s*\\?\)\\?\)?\*{0,2}")
    pieces = ["(", ")", "\\", "*", "**", "1", "23", ", ", ",", ",,", "Node ", "#", " ", "x", "\\(", "\\)", "(("]
    rng = random.Random(k)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(30)))
        assert REPO_TUPLES[(k, house_bug)].findall(text) == authors.findall(text), text


def test_clean_detection_reads_an_explicit_none() -> None:
    empty = detection_item([])
    rejected = "Candidate: [(0, 1, 2)] is not a triangle. The detected patterns are: none."
    assert clean(empty, rejected, pattern="triangle")["f1"] == 1.0  # empty vs empty; the rejected list is not read
    assert repo(empty, rejected, pattern="triangle")["f1"] == 0.0  # the last group, (0, 1, 2)
    assert clean(empty, "There are no triangles in this graph.", pattern="triangle")["f1"] == 1.0
    assert clean(detection_item([[0, 1, 2]]), "The detected patterns are: none.", pattern="triangle")["f1"] == 0.0


# ---- T4: mapping matches (Isomorphic Mapping/eval.py) --------------------------------------------------
def test_mapping_match_with_one_readable_number_is_a_repo_error() -> None:
    graph = graph_record(2, [(0, 1)], False)
    item = make_item("isomorphism", "faithful", "small", 0, False, {"mapping": {"0": 0, "1": 1}}, graphs=[graph, graph])
    assert repo(item, "- Node 0 -> Node 1\n- Node 1 -> Node 0")["correct"] == 1
    # int() of the 5000-digit group fails inside try/except: pass, leaving one number; counts_list[1] raises
    assert repo(item, f"- Node 0 -> Node 1\n- Node 1 -> Node {HUGE}")["repo_error"]


# ---- T7 (K-core Detection/eval.py) ---------------------------------------------------------------------
def test_kcore_prose_none() -> None:
    item = make_item(
        "kcore", "undirected", "small", 0, False, {"k": 3, "core": []}, graph=graph_record(3, [(0, 1)], False)
    )
    text = "There are no 3-core subgraphs in this graph."
    assert repo(item, text)["precision"] == 0.0  # node_precision: an empty answer scores 0 whatever the truth
    assert clean(item, text)["precision"] == clean(item, text)["recall"] == clean(item, text)["jaccard"] == 1.0


# ---- T8 (Frequent Subgraph Extraction/eval.py) ---------------------------------------------------------
def frequent_item() -> dict:
    ffl_with_tail = graph_record(4, [(0, 1), (1, 2), (0, 2), (2, 3)], True)
    return make_item("frequent", "ffl", "small", 0, True, {"pattern": "ffl"}, graphs=[ffl_with_tail] * 3)


def test_frequent_patterns_merge_only_isomorphic_digraphs() -> None:
    # an FFL and an FBL share their undirected triangle; graph_iso_check keeps both: scores 1 (in every graph)
    # and 0 (in none), pooled 0.5 (merged, as our old undirected check did, it would be 1.0)
    text = "Pattern #1: [(0, 1), (1, 2), (0, 2)]; Pattern #2: [(0, 1), (1, 2), (2, 0)]"
    assert parse_answer(frequent_item(), text, "repo").value["patterns"] == [
        [(0, 1), (0, 2), (1, 2)],
        [(0, 1), (1, 2), (2, 0)],
    ]
    assert aggregate([repo(frequent_item(), text)])[0]["value"] == 0.5


def test_clean_frequent_needs_the_patterns_size() -> None:
    single = "Pattern #1: [(0, 1)]"
    assert repo(frequent_item(), single)["pattern_scores"] == [1]  # a single edge is in every graph
    assert clean(frequent_item(), single)["accuracy"] == 0.0
    assert clean(frequent_item(), "Pattern #1: [(0, 1), (1, 2), (0, 2)]")["accuracy"] == 1.0

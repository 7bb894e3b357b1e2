"""Scorers: hand cases for every task in ``repo`` and ``clean`` mode, and the aggregation into table cells."""

from __future__ import annotations

import networkx as nx
import pytest

from graphaudit.llmpattern.datasets import graph_record, make_item
from graphaudit.llmpattern.generators import (
    ba2motif_items,
    discriminative_turns,
    frequent_graph_items,
    frequent_turns,
    translation_items,
)
from graphaudit.llmpattern.scorers import aggregate, diversity, edit_limit, score_answer, unique_patterns


def both(item: dict, text: str, **options) -> tuple[dict, dict]:
    options.setdefault("fmt", "EL")
    return tuple(score_answer(item, text, mode, **options) for mode in ("repo", "clean"))  # type: ignore[return-value]


def cell(scores: list[dict]) -> dict:
    rows = aggregate(scores)
    assert len(rows) == 1
    return rows[0]


# ---- T1 ----------------------------------------------------------------------------------------------
def test_translation_accuracy_strictness_and_counting() -> None:
    item = translation_items(per_pattern=1)[0]  # triangle
    path = ", ".join(f"({v}, {v + 1})" for v in range(2, 19))
    repo, clean = both(item, f"(0, 1), (1, 2), (2, 0), {path}")
    assert repo["correct"] == clean["correct"] == clean["strict"] == 1 and repo["task"] == "T1"
    repo, clean = both(item, "(0, 1), (1, 2), (2, 0), (2, 3)")
    assert repo["correct"] == clean["correct"] == 1 and clean["strict"] == 0  # 4 nodes, not 20
    repo, clean = both(item, "(a, b), (b, c), (c, a)")
    assert repo["correct"] == 1 and clean["correct"] == 0 and clean["unparsed"]
    repo, clean = both(item, "(0, 1), (1, 2), (2, 0), (1, 3), (3, 0)")  # two triangles
    assert repo["correct"] == clean["correct"] == 0
    repo, clean = both(item, "")
    assert not repo["counted"] and clean["counted"] and clean["correct"] == 0


def test_translation_diversity() -> None:
    item = translation_items(per_pattern=1)[0]
    texts = [
        "(0, 1), (1, 2), (2, 0), (2, 3)",
        "(5, 6), (6, 7), (7, 5), (5, 8)",
        "(0, 1), (1, 2), (2, 0), (3, 4)",
        "(0, 1), (1, 2)",
    ]
    for mode, expected_div in (("repo", 5 / 6), ("clean", 2 / 3)):  # clean: over the three correct outputs
        row = cell([score_answer(item, t, mode, fmt="EL") for t in texts])
        assert row["metric"] == "acc" and row["value"] == 0.75 and row["div"] == pytest.approx(expected_div)
    directed = [nx.DiGraph([(0, 1), (1, 2)]), nx.DiGraph([(0, 1), (2, 1)])]
    assert diversity(directed) == 1.0  # a path and a V-structure: the same undirected shadow, not isomorphic
    assert diversity(directed[:1]) == 0.0 and diversity([directed[0], nx.DiGraph([(5, 6), (6, 7)])]) == 0.0


# ---- T2/T5 -------------------------------------------------------------------------------------------
def square_item() -> dict:
    edges = [(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 4)]
    truth = {"source": "square", "target": "diamond", "occurrences": {"square": [[0, 1, 2, 3]], "diamond": []}}
    return make_item("modification", "S2D", "small", 0, False, truth, graph=graph_record(8, edges, False))


def test_modification_success_edits_and_the_edit_limit() -> None:
    item = square_item()
    edges = "(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 4), (0, 2)"
    edited = f"The edges of the final graph are: [{edges}]"
    repo, clean = both(item, edited, description="topo")
    assert repo["task"] == "T5" and repo["success"] == clean["success"] == 1
    assert repo["edits"] == clean["edits"] == 1
    only_target = "[(0, 1), (1, 2), (2, 0), (0, 3), (1, 3)]"  # a bare diamond: the repo accepts it
    repo, clean = both(item, only_target)
    # input-only 23, 34, 45, 56, 67, 74 and output-only 02, 13: 8 edits, past the diamond's 6 node pairs
    assert repo["success"] == 1 and clean["success"] == 0 and repo["edits"] == clean["edits"] == 8
    repo, clean = both(item, "Final: [(0, 1), (1, 2)] then [] ")
    assert repo["success"] == clean["success"] == 0 and not repo["unparsed"]


def test_edit_limit_is_the_targets_node_pairs() -> None:
    assert [edit_limit(p) for p in ("triangle", "square", "diamond", "house", "fbl", "d_diamond")] == [
        3,
        6,
        6,
        10,
        6,
        12,
    ]


# ---- T3/T6 -------------------------------------------------------------------------------------------
def detection_item(triangles: list[list[int]], houses: list[list[int]] | None = None) -> dict:
    occurrences = {"triangle": triangles, "house": houses or []}
    return make_item(
        "detection", "undirected", "small", 0, False, occurrences | {}, graph=graph_record(6, [], False)
    ) | {"truth": {"occurrences": occurrences}}


def test_detection_precision_recall_and_the_f1_of_means() -> None:
    one, none = detection_item([[0, 1, 2]]), detection_item([])
    scores = [
        score_answer(one, "The detected patterns are: [(2, 1, 0), (1, 2, 3)].", "repo", pattern="triangle"),
        score_answer(none, "The detected patterns are: [].", "repo", pattern="triangle"),
    ]
    assert (scores[0]["precision"], scores[0]["recall"], scores[0]["jaccard"]) == (0.5, 1.0, 0.5)
    assert (scores[1]["precision"], scores[1]["recall"], scores[1]["jaccard"]) == (1.0, 1.0, 1.0)
    row = cell(scores)
    assert row["metric"] == "f1" and row["precision"] == 0.75 and row["recall"] == 1.0
    assert row["value"] == pytest.approx(2 * 0.75 / 1.75) and row["f1_mean"] == pytest.approx((2 / 3 + 1) / 2)
    repo, clean = both(none, "I do not know.", pattern="triangle")
    assert repo["precision"] == 1.0 and clean["precision"] == 0.0  # unparsed: empty in repo, a failure in clean
    repo, clean = both(one, "[]", pattern="triangle")
    assert repo["recall"] == clean["recall"] == 0.0


def test_house_scores_under_the_repository_parser() -> None:
    item = detection_item([], [[0, 1, 2, 3, 4]])
    repo, clean = both(item, "The detected patterns are: [(0, 1, 2, 3, 4)].", pattern="house")
    assert repo["recall"] == 0.0 and clean["recall"] == 1.0
    fixed = score_answer(item, "[(0, 1, 2, 3, 4)]", "repo", pattern="house", emulate_house_bug=False)
    assert fixed["recall"] == 1.0


# ---- T4 ----------------------------------------------------------------------------------------------
def test_mapping_partial_maps_pass_only_in_repo_mode() -> None:
    g1 = graph_record(4, [(0, 1), (1, 2)], False)
    g2 = graph_record(4, [(100, 101), (101, 102)], False, nodes=[100, 101, 102, 103], keep_order=True)
    item = make_item("isomorphism", "faithful", "small", 0, False, {"mapping": [100, 101, 102, 103]}, graphs=[g1, g2])
    partial = "[Graph 1: Node 0 -> Graph 2: Node 100, Graph 1: Node 1 -> Graph 2: Node 101, 2 -> 102]"
    repo, clean = both(item, partial)
    assert repo["correct"] == 1 and clean["correct"] == 0
    repo, clean = both(item, partial[:-1] + ", 3 -> 103]")
    assert repo["correct"] == clean["correct"] == 1
    repo, clean = both(item, "[0 -> 101, 1 -> 100, 2 -> 102, 3 -> 103]")
    assert repo["correct"] == clean["correct"] == 0


# ---- T7 ----------------------------------------------------------------------------------------------
def kcore_item(core: list[int]) -> dict:
    return make_item("kcore", "k3", "small", 0, False, {"k": 3, "core": core}, graph=graph_record(6, [], False))


def test_kcore_empty_answer_rule_and_clean_metrics() -> None:
    repo, clean = both(kcore_item([]), "The nodes in the subgraphs are: [].")
    assert repo["precision"] == 0.0 and clean["precision"] == clean["recall"] == clean["jaccard"] == 1.0
    repo, clean = both(kcore_item([0, 1, 2, 3]), "The nodes in the subgraphs are: [0, 1, 2, 3, 4, 4].")
    assert repo["precision"] == pytest.approx(4 / 6) and clean["precision"] == 0.8 and clean["recall"] == 1.0
    row = cell([clean, both(kcore_item([]), "nothing")[1]])
    assert row["metric"] == "precision" and row["value"] == 0.4 and row["n_unparsed"] == 1 and "f1" in row


# ---- T8 ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def triangle_turns() -> list[dict]:
    return frequent_turns(frequent_graph_items("triangle", "small", per_n=2), 2)


def test_frequent_keyword_shortcut_size_cut_and_pooling(triangle_turns) -> None:
    turn = triangle_turns[0]
    repo, clean = both(turn, "[The pattern graphs are: Pattern #1: a triangle]")
    assert repo["pattern_scores"] == [1] and clean["accuracy"] == 0.0 and clean["unparsed"]
    eight = ", ".join(f"({v}, {v + 1})" for v in range(7))
    text = f"Pattern #1: [(0, 1), (1, 2), (2, 0)]; Pattern #2: [{eight}]; Pattern #3: [(3, 4), (4, 5), (5, 3)]"
    repo, clean = both(turn, text)
    assert repo["pattern_scores"] == [1, 0]  # isomorphic triangles merged; the 8-node path is cut
    assert clean["pattern_scores"] == [1, 0] and clean["accuracy"] == 0.5
    nothing = [score_answer(t, "no idea", "repo") for t in triangle_turns]
    assert cell(nothing)["value"] == 0.0 and cell(nothing)["n_counted"] == 0
    pooled = cell([repo, score_answer(triangle_turns[1], "Pattern #1: [(0, 1), (1, 2), (2, 0)]", "repo")])
    assert pooled["value"] == pytest.approx(2 / 3)  # 2 of 3 pooled pattern scores
    per_turn = cell([clean, score_answer(triangle_turns[1], "Pattern #1: [(0, 1), (1, 2), (2, 0)]", "clean")])
    assert per_turn["value"] == 0.75  # mean of 0.5 and 1.0


# ---- T9 ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ba() -> list[dict]:
    return ba2motif_items(per_class=18, test_per_class=2)


def test_discriminative_filters(ba) -> None:
    turn = discriminative_turns(ba, n_turns=1, per_label=15)[0]
    house = "[The pattern graph is: (0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (3, 4)]"
    repo, clean = both(turn, house, gold_set="Set1")
    assert repo["discriminative"] == clean["discriminative"] == 1 and repo["stage"] == "extraction"
    repo, clean = both(turn, house, gold_set="Set2")
    assert repo["discriminative"] == 0 and clean["discriminative"] == 1  # the paper's filter goes either way
    edge = "[The pattern graph is: (0, 1)]"
    assert both(turn, edge, gold_set="Set1")[0]["discriminative"] == 0  # in every graph of both sets
    repeated = "[The pattern graph is: (0, 1), (0, 1)]"
    repo, clean = both(turn, repeated, gold_set="Set1")
    assert not repo["counted"] and clean["counted"]  # the repository's clean() left no edge
    row = cell([score_answer(turn, house, "repo", gold_set="Set1"), repo])
    assert row["metric"] == "dp" and row["value"] == 1.0 and row["n"] == 2 and row["n_counted"] == 1
    with pytest.raises(ValueError, match="gold_set"):
        score_answer(turn, house, "repo")


def test_ba2motif_classification(ba) -> None:
    test = [i for i in ba if i["variant"] == "classification"]
    type1, type2 = test[0], test[-1]
    assert (type1["truth"]["label"], type2["truth"]["label"]) == (0, 1)
    repo, clean = both(type2, "I am not sure")
    assert repo["correct"] == 1 and clean["correct"] == 0  # the repository reads it as Type 2
    repo, clean = both(type1, "It should be in Type 1")
    assert repo["correct"] == clean["correct"] == 1 and repo["task"] == "T9" and repo["stage"] == "classification"


# ---- T10/T11 -----------------------------------------------------------------------------------------
def test_molecule_f1_and_excluded_answers() -> None:
    def molecule(label: int) -> dict:
        return {
            "item_id": f"molecule/benzene/-/000{label}",
            "task": "molecule",
            "variant": "benzene",
            "scale": None,
            "directed": False,
            "index": label,
            "graph": {"num_nodes": 1, "edges": [], "atoms": ["C"]},
            "smiles": "C",
            "truth": {"label": label},
        }

    answers = [
        (molecule(1), "**The pattern does exist**"),
        (molecule(0), "**The pattern does exist**"),
        (molecule(1), "The pattern does exist"),
        (molecule(1), "unsure"),
    ]
    for mode, f1, counted in (("repo", 2 / 3, 2), ("clean", 4 / 6, 4)):
        row = cell([score_answer(m, t, mode, description="term") for m, t in answers])
        assert row["value"] == pytest.approx(f1) and row["n_counted"] == counted and row["task"] == "T10"


def test_realworld_classification_counts() -> None:
    item = {
        "item_id": "realworld_graph/MUTAG/-/0000",
        "task": "realworld_graph",
        "variant": "MUTAG",
        "scale": None,
        "directed": False,
        "index": 0,
        "graph": graph_record(2, [(0, 1)], False),
        "truth": {"label": 0, "classes": [1, 0]},
    }
    repo, clean = both(item, "It should be in Type 3")
    assert repo["correct"] == 1 and clean["correct"] == 0  # repo: anything but Type 1 is the second class
    repo, clean = both(item, "unsure")
    assert not repo["counted"] and clean["counted"] and cell([repo])["value"] is None


# ---- aggregation -------------------------------------------------------------------------------------
def test_aggregate_groups_by_labels_and_refuses_mixed_tasks() -> None:
    item = kcore_item([0, 1])
    scores = [score_answer(item, "[0, 1]", "repo", labels={"fmt": f, "responder": "x"}) for f in ("AL", "EL", "EL")]
    rows = aggregate(scores)
    assert [(r["fmt"], r["n"]) for r in rows] == [("AL", 1), ("EL", 2)]
    with pytest.raises(ValueError, match="mixes"):
        aggregate([scores[0], score_answer(item, "[0]", "clean")], keys=("task",))
    with pytest.raises(ValueError, match="overwrite"):
        score_answer(item, "[0]", "repo", labels={"task": "T3"})


def test_unique_patterns() -> None:
    assert unique_patterns([[(0, 1), (1, 2)], [(5, 4), (4, 3)], [(0, 1), (1, 2), (2, 0)]], False) == [
        [(0, 1), (1, 2)],
        [(0, 1), (1, 2), (2, 0)],
    ]
    assert len(unique_patterns([[(0, 1), (1, 2)], [(0, 1), (2, 1)]], True)) == 2

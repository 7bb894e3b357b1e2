"""The analyses: the score-record fields they read (Table 23's changed nodes, Fig. 2's degree mention, Fig. 4's
per-degree counts, Fig. 5's extracted primitives), Tables 20, 23, 24 and 25 on hand-computed rows, and the
paper column every printed table carries."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from graphaudit.llmpattern.datasets import graph_record, make_item
from graphaudit.llmpattern.generators import frequent_graph_items, frequent_turns
from graphaudit.llmpattern.paper_checks import PaperValuesError, load_column_map, load_paper_values
from graphaudit.llmpattern.scorers import OTHER_PATTERN, primitive_name, score_answer
from graphaudit.llmpattern.tables import (
    NO_COT,
    RANKED,
    TABLE_COLUMNS,
    table20_frame,
    table23_frame,
    table24_frame,
    table25_frame,
    with_paper,
)

from .golden import ROOT

PAPER_VALUES = ROOT / "config" / "llmpattern" / "paper_values.yaml"


@pytest.fixture(scope="module")
def values() -> pd.DataFrame:
    return load_paper_values(PAPER_VALUES)


@pytest.fixture(scope="module")
def columns() -> dict:
    return load_column_map(PAPER_VALUES)


def both(item: dict, text: str, **options) -> tuple[dict, dict]:
    options.setdefault("fmt", "EL")
    return tuple(score_answer(item, text, mode, **options) for mode in ("repo", "clean"))  # type: ignore[return-value]


# ---- score-record fields ---------------------------------------------------------------------------------
def square_item() -> dict:
    # degrees: 0, 1, 2, 5, 6, 7 -> 2; 3, 4 -> 3
    edges = [(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 4)]
    truth = {"source": "square", "target": "diamond", "occurrences": {"square": [[0, 1, 2, 3]], "diamond": []}}
    return make_item("modification", "S2D", "small", 0, False, truth, graph=graph_record(8, edges, False))


def test_modification_records_the_changed_nodes_and_their_input_degrees() -> None:
    item = square_item()
    kept = "(0, 1), (1, 2), (2, 3), (0, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 4)"
    for record in both(item, f"The edges of the final graph are: [{kept}, (0, 2)]"):
        assert (record["changed_nodes"], record["changed_degree_sum"]) == (2, 4)  # nodes 0 and 2
    for record in both(item, "The edges of the final graph are: [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3)]"):
        assert (record["changed_nodes"], record["changed_degree_sum"]) == (8, 18)  # every node: 6 * 2 + 2 * 3
    for record in both(item, f"The edges of the final graph are: [{kept}, (0, 9)]"):
        assert (record["changed_nodes"], record["changed_degree_sum"]) == (1, 2)  # node 9 has no input degree
    for record in both(item, "I cannot do this."):
        assert (record["changed_nodes"], record["changed_degree_sum"]) == (0, 0)


def test_modification_changes_are_direction_aware_on_digraphs() -> None:
    edges = [(0, 1), (1, 2), (0, 2), (2, 3)]  # in + out degrees 2, 2, 3, 1
    truth = {"source": "ffl", "target": "fbl", "occurrences": {"ffl": [[0, 1, 2]], "fbl": []}}
    item = make_item("modification", "F2B", "small", 0, True, truth, graph=graph_record(4, edges, True))
    repo, clean = both(item, "The edges of the final graph are: [(0, 1), (1, 2), (2, 0), (2, 3)]")
    assert repo["success"] == clean["success"] == 1
    assert (repo["changed_nodes"], repo["changed_degree_sum"]) == (clean["changed_nodes"], 5) == (2, 5)


def test_isomorphism_records_whether_the_answer_mentions_degree() -> None:
    g1 = graph_record(2, [(0, 1)], False)
    g2 = graph_record(2, [(100, 101)], False, nodes=[100, 101], keep_order=True)
    item = make_item("isomorphism", "faithful", "small", 0, False, {"mapping": [100, 101]}, graphs=[g1, g2])
    assert [r["mentions_degree"] for r in both(item, "Both have Degree 1: [0 -> 100, 1 -> 101]")] == [True, True]
    assert [r["mentions_degree"] for r in both(item, "[0 -> 100, 1 -> 101]")] == [False, False]


def test_kcore_records_hits_and_predictions_per_input_degree() -> None:
    edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (4, 5)]  # K4 (degree 3) and an edge (degree 1)
    item = make_item(
        "kcore", "k3", "small", 0, False, {"k": 3, "core": [0, 1, 2, 3]}, graph=graph_record(6, edges, False)
    )
    repo, clean = both(item, "The nodes in the subgraphs are: [0, 1, 4, 4, 9].")
    assert repo["degree_hits"] == [[1, 0, 2], [3, 2, 2]]  # repeats kept as the authors count; 9 is no node
    assert clean["degree_hits"] == [[1, 0, 1], [3, 2, 2]]


@pytest.fixture(scope="module")
def triangle_turn() -> dict:
    return frequent_turns(frequent_graph_items("triangle", "small", per_n=2), 1)[0]


def test_frequent_records_which_primitive_each_extracted_pattern_is(triangle_turn) -> None:
    text = (
        "Pattern #1: [(0, 1), (1, 2), (2, 0)]; Pattern #2: [(0, 1), (1, 2), (2, 3), (3, 0)]; "
        "Pattern #3: [(3, 4), (4, 5), (5, 3)]; Pattern #4: [(0, 1), (1, 2)]"
    )
    repo, clean = both(triangle_turn, text)
    assert repo["extracted"] == clean["extracted"] == ["triangle", "square", OTHER_PATTERN]  # triangles merged


def test_primitive_name_respects_direction() -> None:
    assert primitive_name([(0, 1), (1, 2), (2, 0)], directed=True) == "fbl"
    assert primitive_name([(0, 1), (1, 2), (0, 2)], directed=True) == "ffl"
    assert primitive_name([(0, 1), (1, 2), (0, 2)], directed=False) == "triangle"
    assert primitive_name([(0, 1)], directed=False) == OTHER_PATTERN


# ---- Table 20 --------------------------------------------------------------------------------------------
def _row(task: str, responder: str, value: float, mode: str = "repo", **labels: str) -> dict:
    defaults = {"stage": "classification" if task == "T9" else None, "style": "zero_shot", "fmt": "AL"}
    if task == "T4":
        defaults["variant"] = "faithful"
    return {"task": task, "responder": responder, "mode": mode, "value": value, **defaults, **labels}


def test_table20_takes_the_best_format_averages_cells_and_shares_tied_ranks() -> None:
    rows = [_row(t, r, v) for t in RANKED if t not in ("T1", "T4") for r, v in (("A", 0.9), ("B", 0.5), ("C", 0.1))]
    rows += [  # T1: best format per cell, then the mean over cells; A (0.6 + 0.4) / 2 = B (0.5 + 0.5) / 2 = 0.5
        _row("T1", "A", 0.2, pattern="triangle"),
        _row("T1", "A", 0.6, pattern="triangle", fmt="EL"),
        _row("T1", "A", 0.4, pattern="square"),
        _row("T1", "A", 0.0, pattern="square", fmt="EL"),
        _row("T1", "B", 0.5, pattern="triangle"),
        _row("T1", "B", 0.5, pattern="square"),
        _row("T1", "B", 0.1, pattern="square", fmt="EL"),
        _row("T1", "C", 0.3, pattern="triangle"),
        _row("T4", "A", 0.2),
        _row("T4", "B", 0.8),
        _row("T4", "C", 0.8),
        _row("T4", "A", 1.0, variant="hardened"),  # not the paper's pairs
        _row("T3", "C", 1.0, style="cot"),  # not the paper's prompts
        _row("T9", "C", 1.0, stage="extraction"),  # D.P., not Table 20's ACC
        _row("T4", "D", 0.9, mode="clean"),
    ]
    frame = table20_frame(pd.DataFrame(rows))
    repo = frame[frame["mode"] == "repo"].set_index(["responder", "code"])
    assert (
        repo.loc[("A", "T1"), "score"] == pytest.approx(0.5) and repo.loc[("A", "T1"), "task"] == "pattern_translation"
    )
    assert [repo.loc[(r, "T1"), "value"] for r in "ABC"] == [1, 1, 3]
    assert [repo.loc[(r, "T4"), "value"] for r in "ABC"] == [3, 1, 1]
    assert [repo.loc[(r, "T3"), "value"] for r in "ABC"] == [1, 2, 3]  # the CoT row left out
    assert [repo.loc[(r, "T9"), "value"] for r in "ABC"] == [1, 2, 3]  # the extraction row left out
    means = [repo.loc[(r, ""), "value"] for r in "ABC"]
    assert means == pytest.approx([(1 + 3 + 7) / 9, (1 + 1 + 14) / 9, (3 + 1 + 21) / 9])
    clean = frame[frame["mode"] == "clean"]
    assert list(clean["value"].iloc[:1]) == [1.0] and math.isnan(clean["value"].iloc[1])
    assert clean["note"].iloc[1] == "ranked on 1 of 9 tasks, so no mean rank"


def test_table20_carries_the_papers_rank(values, columns) -> None:
    rows = [_row(t, "o1-mini", 0.5) for t in RANKED]
    frame = with_paper(table20_frame(pd.DataFrame(rows)), values, columns, "table20")
    printed = frame.set_index("code")["paper"]
    assert printed["T4"] == 5 and printed["T9"] == 6 and printed["T5"] == 1 and printed[""] == 2.1


# ---- Table 23 --------------------------------------------------------------------------------------------
def test_table23_pools_the_changed_nodes_degrees_and_the_input_graphs() -> None:
    items = [
        {"item_id": "a", "graph": {"num_nodes": 4, "edges": [[0, 1], [1, 2], [2, 3]]}},
        {"item_id": "b", "graph": {"num_nodes": 2, "edges": [[0, 1]]}},
        {"item_id": "c", "graph": {"num_nodes": 9, "edges": [[0, 1]]}},  # not evaluated
    ]

    def record(item: str, mode: str, nodes: int, degrees: int, error: str | None = None) -> dict:
        return {"item_id": item, "scale": "small", "mode": mode, "responder": "r", "repo_error": error,
                "changed_nodes": nodes, "changed_degree_sum": degrees}  # fmt: skip

    records = [
        record("a", "repo", 2, 3),
        record("b", "repo", 1, 1),
        record("a", "repo", 0, 0),
        record("a", "repo", 5, 50, error="int() raises"),
        record("a", "clean", 1, 2),
    ]
    frame = table23_frame(records, items).set_index(["mode", "metric"])
    graph = frame.loc[("", "graph_avg_degree")]
    assert graph["value"] == pytest.approx(2 * 4 / 6) and graph["n_answers"] == 2 and graph["n_nodes"] == 6
    repo = frame.loc[("repo", "selected_avg_degree")]
    assert repo["value"] == pytest.approx(4 / 3) and repo["n_answers"] == 2 and repo["n_nodes"] == 3
    assert frame.loc[("clean", "selected_avg_degree"), "value"] == 2.0


def test_table23_carries_the_papers_degrees(values, columns) -> None:
    records = [{"item_id": "a", "scale": "small", "mode": "repo", "responder": "claude", "changed_nodes": 1,
                "changed_degree_sum": 4}]  # fmt: skip
    frame = table23_frame(records, [{"item_id": "a", "graph": {"num_nodes": 2, "edges": [[0, 1]]}}])
    assert list(with_paper(frame, values, columns, "table23")["paper"]) == [3.32, 3.75]


# ---- Table 24 --------------------------------------------------------------------------------------------
def _detection(task: str, responder: str, scale: str, precision: float, recall: float, **labels: str) -> dict:
    description = "term" if task == "T3" else "topo"
    f1 = 2 * precision * recall / (precision + recall)
    return {"task": task, "variant": "undirected", "pattern": "triangle", "scale": scale, "fmt": "AL",
            "description": description, "style": "zero_shot", "responder": responder, "mode": "repo",
            "metric": "f1", "value": f1, "f1": f1, "precision": precision, "recall": recall, **labels}  # fmt: skip


def test_table24_decrease_is_topology_minus_terminology(values, columns) -> None:
    rows = [_detection("T3", "gpt-4o", "large", 0.6, 0.3), _detection("T6", "gpt-4o", "large", 0.2, 0.1)]
    rows.append(_detection("T3", "gpt-4o", "large", 0.9, 0.9, style="cot"))  # not the paper's prompts
    frame = with_paper(table24_frame(pd.DataFrame(rows)), values, columns, "table24")
    cells = frame.set_index(["description", "metric"])
    assert cells.loc[("decrease", "precision"), "value"] == pytest.approx(-0.4)
    assert cells.loc[("decrease", "recall"), "value"] == pytest.approx(-0.2)
    assert cells.loc[("decrease", "f1"), "value"] == pytest.approx(0.2 / 1.5 - 0.4)
    assert (
        cells.loc[("term", "precision"), "paper"] == 0.609 and cells.loc[("decrease", "precision"), "paper"] == -0.023
    )
    assert math.isnan(cells.loc[("term", "f1"), "paper"])  # the paper prints no F1 here
    assert len(frame) == 9


# ---- Table 25 --------------------------------------------------------------------------------------------
def _style_row(responder: str, style: str, pattern: str, scale: str, f1: float, fmt: str = "EL") -> dict:
    return {"task": "T3", "variant": "undirected", "pattern": pattern, "scale": scale, "fmt": fmt,
            "description": "term", "style": style, "responder": responder, "mode": "repo", "value": f1}  # fmt: skip


def test_table25_avg_increase_is_the_difference_of_means(values, columns) -> None:
    cells = (("triangle", "small"), ("house", "small"), ("triangle", "medium"))
    rows = [_style_row("gemini", "zero_shot", p, s, v) for (p, s), v in zip(cells, (0.5, 0.1, 0.3))]
    rows += [_style_row("gemini", "cot", p, s, v) for (p, s), v in zip(cells, (0.8, 0.1, 0.6))]
    rows += [_style_row("gemini", "cot", "triangle", "small", 0.0, fmt="AL")]  # E.L. only
    rows += [_style_row("small-only", "zero_shot", p, "small", v) for p, v in (("triangle", 0.5), ("house", 0.1))]
    rows += [_style_row("small-only", "cot", p, "small", v) for p, v in (("triangle", 0.7), ("house", 0.3))]
    frame = with_paper(table25_frame(pd.DataFrame(rows)), values, columns, "table25")
    means = frame[frame["metric"] == "avg_increase"].set_index("responder")
    assert means.loc["gemini", "value"] == pytest.approx(0.5 - 0.3) and means.loc["gemini", "note"] == ""
    assert means.loc["small-only", "value"] == pytest.approx(0.5 - 0.3)
    assert means.loc["small-only", "note"] == "over 2 of 3 columns, missing triangle (medium)"
    assert means.loc["gemini", "paper"] == 0.090 and math.isnan(means.loc["small-only", "paper"])
    gemini = frame[(frame["responder"] == "gemini") & (frame["metric"] == "f1")].set_index(
        ["style", "pattern", "scale"]
    )
    assert gemini.loc[("zero_shot", "triangle", "small"), "paper"] == 0.725
    assert gemini.loc[("cot", "triangle", "medium"), "paper"] == 0.513


def test_table25_without_cot_says_so() -> None:
    frame = table25_frame(pd.DataFrame([_style_row("r", "zero_shot", "triangle", "small", 0.5)]))
    last = frame.iloc[-1]
    assert last["metric"] == "avg_increase" and math.isnan(last["value"]) and last["note"] == NO_COT


# ---- the paper column ------------------------------------------------------------------------------------
def test_task_tables_carry_the_papers_cell_for_paper_models_only(values, columns) -> None:
    base = {"task": "T3", "variant": "undirected", "pattern": "triangle", "scale": "small", "fmt": "EL",
            "description": "term", "mode": "repo", "metric": "f1", "value": 0.7}  # fmt: skip
    rows = [
        {**base, "responder": "gpt-4o", "style": "zero_shot"},
        {**base, "responder": "gpt-4o", "style": "cot"},
        {**base, "responder": "oracle", "style": "zero_shot"},
        {**base, "responder": "gpt-4o", "style": "zero_shot", "scale": "large", "fmt": "AL", "pattern": "house"},
    ]
    frame = with_paper(pd.DataFrame(rows, columns=TABLE_COLUMNS), values, columns, "table18")
    assert list(frame.columns).index("paper") == list(frame.columns).index("value") + 1
    assert frame["paper"].iloc[0] == 0.702 and frame["paper"].iloc[3] == 0.0
    assert frame["paper"].iloc[1:3].isna().all()


def test_a_map_too_coarse_for_the_printed_cells_is_an_error(values) -> None:
    coarse = {"responders": {"gpt-4o": "GPT-4o"}, "tables": {"table18": {"fields": {"responder": "model"}}}}
    with pytest.raises(PaperValuesError, match="matches two printed cells"):
        with_paper(pd.DataFrame([{"responder": "gpt-4o", "value": 0.5}]), values, coarse, "table18")


def test_the_column_map_covers_every_printed_results_table(values, columns) -> None:
    printed = {f"table{n}" for n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 19, 20, 23, 24, 25)}
    assert set(columns["tables"]) == printed and printed <= set(values["table"])
    assert set(columns["responders"].values()) == {"GPT-4", "GPT-4o", "Mixtral", "Llama", "Gemini", "Claude", "O1-mini"}

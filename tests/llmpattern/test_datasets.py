"""Item records: graph records, item construction, JSONL round trip, Table 12 and occurrence statistics."""

from __future__ import annotations

import json

import pytest

from graphaudit.llmpattern.datasets import (
    dataset_statistics,
    density,
    graph_nodes,
    graph_record,
    item_id,
    make_item,
    occurrence_statistics,
    read_items,
    to_networkx,
    write_items,
)
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


def test_graph_records() -> None:
    undirected = graph_record(4, [(3, 1), (0, 2), (2, 1)], directed=False)
    assert undirected == {"num_nodes": 4, "edges": [[0, 2], [1, 2], [1, 3]]}
    directed = graph_record(3, [(2, 1), (0, 2), (1, 2)], directed=True)
    assert directed["edges"] == [[0, 2], [1, 2], [2, 1]]
    kept = graph_record(2, [(101, 100)], False, nodes=[101, 100], keep_order=True)
    assert kept == {"num_nodes": 2, "edges": [[101, 100]], "nodes": [101, 100]}
    assert graph_nodes(kept) == [101, 100] and graph_nodes(undirected) == [0, 1, 2, 3]
    assert list(to_networkx(kept, False).nodes) == [101, 100]
    assert density(undirected, False) == 0.5 and density(directed, True) == 0.5
    assert density({"num_nodes": 1, "edges": []}, False) == 0.0
    with pytest.raises(ValueError, match="2 node ids for 3 nodes"):
        graph_record(3, [], False, nodes=[0, 1])


def test_items() -> None:
    item = make_item(
        "detection", "undirected", "small", 7, False, {"occurrences": {}}, graph=graph_record(5, [(0, 1)], False)
    )
    assert item["item_id"] == "detection/undirected/small/0007" == item_id("detection", "undirected", "small", 7)
    assert json.loads(json.dumps(item)) == item
    with pytest.raises(ValueError, match="unknown task"):
        make_item("colouring", "x", "small", 0, False, {})
    with pytest.raises(ValueError, match="unknown scale"):
        make_item("detection", "x", "tiny", 0, False, {})
    with pytest.raises(ValueError, match="'graph' or 'graphs'"):
        make_item("detection", "x", "small", 0, False, {}, pair=[])


def every_kind_of_item() -> list[dict]:
    detection = detection_items(False, "small", per_n=1)
    frequent = frequent_graph_items("fbl", "small", per_n=2)
    ba = ba2motif_items(per_class=4, test_per_class=1)
    return [
        *translation_items(per_pattern=1),
        *detection,
        *detection_items(True, "small", per_n=1),
        *isomorphism_items(detection),
        *isomorphism_items(detection, "hardened"),
        *kcore_items(detection),
        *modification_items("S2H", "small", per_n=1),
        *frequent,
        *frequent_turns(frequent, 2, turn_size=3),
        *ba,
        *discriminative_turns(ba, n_turns=2, per_label=2),
    ]


def test_jsonl_round_trip(tmp_path) -> None:
    items = every_kind_of_item()
    assert {i["task"] for i in items} == {
        "translation",
        "detection",
        "isomorphism",
        "kcore",
        "modification",
        "frequent_graph",
        "frequent",
        "ba2motif",
        "discriminative",
    }
    path = tmp_path / "sets" / "items.jsonl"
    assert write_items(path, items) == len(items)
    assert read_items(path) == items
    first = path.read_bytes()
    write_items(path, read_items(path))
    assert path.read_bytes() == first and not list(path.parent.glob(".*.tmp"))


def test_reading_bad_files_names_the_line(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(
        make_item("kcore", "k3", "small", 0, False, {"k": 3, "core": []}, graph=graph_record(3, [], False))
    )
    path.write_text(good + "\n\n{not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:3: not valid JSON"):
        read_items(path)
    path.write_text(good + '\n{"item_id": "x"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: item record lacks task, variant"):
        read_items(path)


def item(task: str, variant: str, scale: str | None, n: int, m: int, directed: bool = False) -> dict:
    return make_item(
        task, variant, scale, 0, directed, {}, graph=graph_record(n, [(0, i) for i in range(1, m + 1)], directed)
    )


def test_dataset_statistics() -> None:
    items = [
        item("modification", "S2H", "medium", 10, 9),
        item("modification", "S2H", "small", 5, 4),
        item("modification", "S2H", "small", 5, 2),
        item("detection", "directed", "small", 4, 3, True),
        make_item("frequent", "ffl", "small", 0, True, {}, graphs=[]),
    ]
    rows = dataset_statistics(items)
    assert [(r["task"], r["dataset_type"], r["variant"], r["difficulty"], r["num"]) for r in rows] == [
        ("Modification", "Undirected graph", "Square → House", "Small", 2),
        ("Modification", "Undirected graph", "Square → House", "Medium", 1),
        ("Pattern detection", "Directed graph", "Evaluation", "Small", 1),
    ]
    assert (rows[0]["avg_node"], rows[0]["avg_edge"], rows[0]["avg_density"]) == (5, 3, pytest.approx(0.3))
    assert rows[2]["avg_density"] == 3 / 12
    cumulative = dataset_statistics(items, cumulative_modification=True)
    assert (cumulative[1]["num"], cumulative[1]["avg_node"], cumulative[1]["avg_edge"]) == (3, 20 / 3, 5)


def test_dataset_statistics_labels_the_paper_rows() -> None:
    rows = dataset_statistics(
        [
            *modification_items("F2B", "small", per_n=1),
            *frequent_graph_items("d_diamond", "small", per_n=1),
            *ba2motif_items(per_class=3, test_per_class=1),
        ]
    )
    assert [(r["task"], r["dataset_type"], r["variant"], r["difficulty"]) for r in rows] == [
        ("Modification", "Directed graph", "FFL → FBL", "Small"),
        ("Frequent subgraph", "Directed graph", "D-Diamond", "Small"),
        ("Discriminative pattern learning", "Discrimination", "–", "–"),
        ("Discriminative pattern learning", "Classification", "–", "–"),
    ]


def test_occurrence_statistics() -> None:
    graph = graph_record(4, [(0, 1), (1, 2), (0, 2), (2, 3)], False)
    first = make_item(
        "detection",
        "undirected",
        "small",
        0,
        False,
        {"occurrences": {"triangle": [[0, 1, 2]], "square": []}},
        graph=graph,
    )
    second = make_item(
        "detection", "undirected", "small", 1, False, {"occurrences": {"triangle": [], "square": []}}, graph=graph
    )
    rows = occurrence_statistics([first, second, item("kcore", "k3", "small", 3, 1)])
    assert rows == [
        {
            "variant": "undirected",
            "scale": "small",
            "pattern": "triangle",
            "graphs": 2,
            "mean_occurrences": 0.5,
            "share_without": 0.5,
        },
        {
            "variant": "undirected",
            "scale": "small",
            "pattern": "square",
            "graphs": 2,
            "mean_occurrences": 0.0,
            "share_without": 1.0,
        },
    ]

"""The datasets table from SOURCE.json records (available and unavailable), sorted, integer counts."""

from __future__ import annotations

import json

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.data.tables import DATASET_COLUMNS, datasets, datasets_frame


def record(name: str, source: str = "mirror", **stats: int | None) -> dict:
    counts = {"graphs": None, "nodes": None, "edges": None, "classes": None, **stats}
    return {
        "dataset": name,
        "source": source,
        "statistics": counts,
        "sha256_combined": None if source == "unavailable" else f"sha-{name}",
        "matches_published": None if source == "unavailable" else True,
    }


def test_rows_are_sorted_and_unavailable_counts_stay_empty() -> None:
    frame = datasets_frame(
        [record("pubmed", "unavailable"), record("MUTAG", "package", graphs=188, nodes=3371, edges=3721, classes=2)]
    )
    assert list(frame.columns) == DATASET_COLUMNS and list(frame["dataset"]) == ["MUTAG", "pubmed"]
    assert str(frame["graphs"].dtype) == "Int64" and frame["graphs"].tolist()[0] == 188
    assert pd.isna(frame["nodes"].tolist()[1])


def test_rule_entry_writes_csv_and_markdown(tmp_path) -> None:
    sources = []
    for name, rec in {
        "b": record("pubmed", "unavailable"),
        "a": record("MUTAG", "package", graphs=188, nodes=3371, edges=3721, classes=2),
    }.items():
        path = tmp_path / name / "SOURCE.json"
        path.parent.mkdir()
        path.write_text(json.dumps(rec))
        sources.append(str(path))
    table = tmp_path / "tables" / "datasets.csv"
    datasets(RuleContext(input={"sources": sources}, output={"table": str(table)}))
    assert table.read_text().splitlines() == [
        "dataset,source,graphs,nodes,edges,classes,sha256,matches_published",
        "MUTAG,package,188,3371,3721,2,sha-MUTAG,True",
        "pubmed,unavailable,,,,,,",
    ]
    assert table.with_suffix(".md").read_text().startswith("# Datasets: source, measured statistics, checksum")

"""The datasets table: every fetched dataset's source, measured statistics and checksum."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.report.tables import write_table

DATASET_COLUMNS = ["dataset", "source", "graphs", "nodes", "edges", "classes", "sha256", "matches_published"]


def datasets(ctx: RuleContext) -> None:
    """Rule entry: every SOURCE.json (``input.sources``) -> ``results/data/tables/datasets.csv`` (+ ``.md``)."""
    records = [json.loads(Path(path).read_text(encoding="utf-8")) for path in ctx.input_list("sources")]
    write_table(datasets_frame(records), ctx.output["table"], title="Datasets: source, measured statistics, checksum")


def datasets_frame(records: list[dict]) -> pd.DataFrame:
    """One row per SOURCE.json record, sorted by dataset name; an unavailable dataset's counts stay empty."""
    rows = [
        {
            "dataset": record["dataset"],
            "source": record["source"],
            "graphs": record["statistics"]["graphs"],
            "nodes": record["statistics"]["nodes"],
            "edges": record["statistics"]["edges"],
            "classes": record["statistics"]["classes"],
            "sha256": record["sha256_combined"],
            "matches_published": record["matches_published"],
        }
        for record in records
    ]
    frame = pd.DataFrame(rows, columns=DATASET_COLUMNS).sort_values("dataset", kind="stable")
    for column in ("graphs", "nodes", "edges", "classes"):
        frame[column] = frame[column].astype("Int64")  # unavailable rows stay empty, counts stay integers
    return frame

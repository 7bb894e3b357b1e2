"""The data layer's rule entry points, called with hand-made contexts (no Snakemake)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.data.errors import DataUnavailableError
from graphaudit.data.graphset import GraphSet
from graphaudit.data.tasks import dataset_table, fetch_dataset, is_available, process_dataset

OFFLINE = {"mirror": None, "on_unavailable": "record", "download": {"enabled": False}}


def fetch(tmp_path, name, data):
    source = tmp_path / "raw" / name / "SOURCE.json"
    fetch_dataset(RuleContext(output={"source": str(source)}, params={"data": data}, wildcards={"dataset": name}))
    return source


def test_fetch_process_and_table(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    mutag = fetch(tmp_path, "MUTAG", OFFLINE)
    pubmed = fetch(tmp_path, "pubmed", OFFLINE)
    assert is_available(mutag) and not is_available(pubmed)
    assert "not available offline" in json.loads(pubmed.read_text())["reason"]
    out = tmp_path / "processed" / "MUTAG.npz"
    process_dataset(
        RuleContext(input={"source": str(mutag)}, output={"graphset": str(out)}, wildcards={"dataset": "MUTAG"})
    )
    assert GraphSet.load(out).num_graphs == 188
    with pytest.raises(DataUnavailableError, match="recorded as unavailable"):
        process_dataset(
            RuleContext(
                input={"source": str(pubmed)},
                output={"graphset": str(tmp_path / "p.npz")},
                wildcards={"dataset": "pubmed"},
            )
        )
    table = tmp_path / "datasets.csv"
    dataset_table(RuleContext(input={"sources": [str(pubmed), str(mutag)]}, output={"table": str(table)}))
    lines = table.read_text().splitlines()
    assert lines[0] == "dataset,source,graphs,nodes,edges,classes,sha256,matches_published"
    assert lines[1].startswith("MUTAG,package,188,3371,3721,2,") and lines[1].endswith(",True")
    assert lines[2] == "pubmed,unavailable,,,,,,"
    assert list(pd.read_csv(table)["dataset"]) == ["MUTAG", "pubmed"]
    assert (tmp_path / "datasets.md").exists()


def test_unavailable_stops_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    with pytest.raises(DataUnavailableError):
        fetch(tmp_path, "pubmed", {**OFFLINE, "on_unavailable": "error"})
    assert not (tmp_path / "raw" / "pubmed").exists()

"""The data layer's rule entry points, called with hand-made contexts (no Snakemake)."""

from __future__ import annotations

import json

import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.data.errors import DataUnavailableError
from graphaudit.data.graphset import GraphSet
from graphaudit.data.tasks import data_fetch, data_process, is_available

OFFLINE = {"mirror": None, "on_unavailable": "record", "download": {"enabled": False, "retries": 1, "timeout_s": 5}}


def fetch(tmp_path, name, data):
    source = tmp_path / "raw" / name / "SOURCE.json"
    data_fetch(RuleContext(output={"source": str(source)}, params={"data": data}, wildcards={"dataset": name}))
    return source


def test_fetch_and_process(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    mutag = fetch(tmp_path, "MUTAG", OFFLINE)
    pubmed = fetch(tmp_path, "pubmed", OFFLINE)
    assert is_available(mutag) and not is_available(pubmed)
    assert json.loads(mutag.read_text())["source"] == "package"
    assert "not available offline" in json.loads(pubmed.read_text())["reason"]
    out = tmp_path / "processed" / "MUTAG.npz"
    data_process(
        RuleContext(input={"source": str(mutag)}, output={"graphset": str(out)}, wildcards={"dataset": "MUTAG"})
    )
    assert GraphSet.load(out).num_graphs == 188
    with pytest.raises(DataUnavailableError, match="recorded as unavailable"):
        data_process(
            RuleContext(
                input={"source": str(pubmed)},
                output={"graphset": str(tmp_path / "p.npz")},
                wildcards={"dataset": "pubmed"},
            )
        )


def test_unavailable_stops_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    with pytest.raises(DataUnavailableError):
        fetch(tmp_path, "pubmed", {**OFFLINE, "on_unavailable": "error"})
    assert not (tmp_path / "raw" / "pubmed").exists()


def test_fetch_settings_must_be_complete(tmp_path):
    with pytest.raises(ValueError, match=r"params.data.download lacks the key 'retries'"):
        fetch(tmp_path, "MUTAG", {**OFFLINE, "download": {"enabled": False, "timeout_s": 5}})

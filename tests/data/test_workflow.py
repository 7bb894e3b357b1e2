"""What the data rule file computes: the fetch params (checked at parse time) and the available GraphSets."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from graphaudit.common.settings import SettingsError
from graphaudit.data.workflow import available_graphsets, fetch_params

DATA = {
    "datasets": ["MUTAG"],
    "mirror": None,
    "on_unavailable": "error",
    "download": {"enabled": True, "retries": 3, "timeout_s": 60},
}


def test_fetch_params_leave_out_the_dataset_list():
    assert fetch_params(DATA) == {k: v for k, v in DATA.items() if k != "datasets"}
    with pytest.raises(SettingsError, match=r"data.download lacks the key 'retries'"):
        fetch_params({**DATA, "download": {"enabled": True, "timeout_s": 60}})


class FakeCheckpoint:
    """Snakemake's checkpoint object as the input function sees it after the fetches ran."""

    def __init__(self, sources):
        self.sources = sources

    def get(self, dataset):
        return SimpleNamespace(output=SimpleNamespace(source=self.sources[dataset]))


def test_only_available_datasets_are_processed(tmp_path):
    sources = {}
    for name, source in {"MUTAG": "package", "pubmed": "unavailable"}.items():
        sources[name] = tmp_path / f"{name}.json"
        sources[name].write_text(json.dumps({"source": source}))
    assert available_graphsets(FakeCheckpoint(sources), ["pubmed", "MUTAG"]) == ["data/processed/MUTAG.npz"]

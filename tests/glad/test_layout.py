"""The rule files' input functions and file lists: file orders (the tables keep them), Tox21's two files,
each detector's backend and UB-GOLD's tree as an input only where it runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml

from graphaudit.common.settings import load_settings
from graphaudit.glad import layout
from graphaudit.glad.settings import GladSettings

ROOT = Path(__file__).resolve().parents[2]


def settings(**deep: object) -> GladSettings:
    section = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))["glad"]
    section["deep"] = {**section["deep"], "catalogue": str(ROOT / "config/glad/detectors.yaml"), **deep}
    section["datasets"] = [*section["datasets"], *deep.get("datasets", [])]  # deep datasets are among glad's
    return load_settings(GladSettings, section)


def test_expand_varies_the_first_keyword_slowest() -> None:
    assert layout.expand("{a}-{b}", a=[1, 2], b=["x", "y"]) == ["1-x", "1-y", "2-x", "2-y"]


def test_graphsets_of_a_tu_set_and_a_tox21_task() -> None:
    assert layout.graphsets(SimpleNamespace(dataset="BZR")) == ["data/processed/BZR.npz"]
    assert layout.graphsets(SimpleNamespace(dataset="Tox21_p53")) == [
        "data/processed/Tox21_p53_training.npz",
        "data/processed/Tox21_p53_testing.npz",
    ]


def test_ubgold_code_is_an_input_of_ubgold_runs_only() -> None:
    assert layout.backend_code(SimpleNamespace(backend="ubgold")) == {"code": layout.UBGOLD_SOURCE}
    assert layout.backend_code(SimpleNamespace(backend="own")) == {}


def test_runs_and_replays_of_the_configured_detectors() -> None:
    deep = layout.DeepRuns.resolve(
        settings(detectors=["OCGIN", "OCGTL"], datasets=["BZR", "COX2"], folds=[0, 1]), False
    )
    assert deep.backends == {"OCGIN": "own", "OCGTL": "own"} and not deep.uses_ubgold
    runs = deep.runs(SimpleNamespace(detector="OCGTL", dataset="BZR"))
    assert runs[:3] == [
        "results/glad/records/own/OCGTL/BZR/tuned/fold0/run.json",
        "results/glad/records/own/OCGTL/BZR/tuned/fold1/run.json",
        "results/glad/records/own/OCGTL/BZR/default/fold0/run.json",
    ]
    assert len(runs) == 4
    assert deep.replays("null") == [
        f"results/glad/replay/{d}/{ds}/null.csv" for d in ("OCGIN", "OCGTL") for ds in ("BZR", "COX2")
    ]
    assert deep.ubgold_code(SimpleNamespace()) == {}


def test_auto_takes_ubgold_when_its_tree_can_be_had() -> None:
    deep = layout.DeepRuns.resolve(settings(detectors=["OCGIN"]), True)
    assert deep.backends == {"OCGIN": "ubgold"} and deep.ubgold_code(SimpleNamespace()) == {
        "code": layout.UBGOLD_SOURCE
    }
    own = layout.DeepRuns.resolve(settings(backend="own"), True)
    assert set(own.backends.values()) == {"own"} and not own.uses_ubgold

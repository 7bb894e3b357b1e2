"""The rule files' input functions and file lists: file orders (the tables keep them), Tox21's two files,
each detector's backend and UB-GOLD's tree as an input only where it runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from graphaudit.common.settings import SettingsError, load_settings
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


def typed_settings(molswap: bool, **evaluation: object) -> GladSettings:
    section = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))["glad"]
    section["deep"] = {**section["deep"], "catalogue": str(ROOT / "config/glad/detectors.yaml")}
    typed = section["typed"]
    typed["molswap"]["enabled"] = molswap
    typed["evaluation"] = {**typed["evaluation"], **evaluation}
    return load_settings(GladSettings, section)


def test_typed_runs_sets_seeds_and_the_ablation() -> None:
    runs = layout.TypedRuns.resolve(typed_settings(True, detectors=["OCGIN", "CVTGAD"], ablation=["CVTGAD"]), False)
    assert runs.typed_sets() == ["GX-F2", "GX-F1", "MS-v2"]
    assert runs.seeds("GX-F1") == [0, 1] and runs.seeds("MS-v2") == [0, 1, 2, 3, 4]
    assert runs.encodings("CVTGAD", "GX-F2") == ["encodings", "constant"]
    assert runs.encodings("CVTGAD", "GX-F1") == ["encodings"] and runs.encodings("OCGIN", "MS-v2") == ["encodings"]
    assert len(runs.replays()) == 2 * 3 + 2  # each detector on three sets, CVTGAD's constant x_s on two
    assert runs.runs(SimpleNamespace(detector="CVTGAD", typed="MS-v2", encoding="constant"))[-1] == (
        "results/glad/typed/records/own/CVTGAD/MS-v2/constant/seed4/run.json"
    )
    offline = layout.TypedRuns.resolve(typed_settings(False, detectors=["OCGIN"], ablation=[]), False)
    assert offline.typed_sets() == ["GX-F2", "GX-F1"]


def test_typed_inputs_of_a_gx_and_an_ms_run() -> None:
    gx = layout.typed_inputs(SimpleNamespace(typed="GX-F1", seed="3"))
    assert gx == {
        "graphs": "data/generated/glad/gx/F1/seed3/graphs.npz",
        "folds": "data/generated/glad/gx/F1/seed3/folds.json",
    }
    ms = layout.typed_inputs(SimpleNamespace(typed="MS-v2", seed="2"))
    assert ms["anomalies"] == [
        f"data/generated/glad/molswap/P0/{name}/seed2/anomalies.npz" for name in ("C_k1", "D_k2", "F_k1")
    ]
    assert ms["graphset"] == "data/processed/NCI1.npz" and len(ms["size_changing"]) == 3


def test_the_typed_evaluation_checks_its_keys() -> None:
    section = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))["glad"]
    section["typed"]["gx"]["features"] = ["F2"]
    section["typed"]["evaluation"]["gx_features"] = ["F1"]
    with pytest.raises(SettingsError, match="gx_features lists"):
        load_settings(GladSettings, section)
    with pytest.raises(SettingsError, match="ablation lists"):
        typed_settings(False, detectors=["OCGIN"], ablation=["CVTGAD"])

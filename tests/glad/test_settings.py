"""The glad config section as typed settings: every config reads, the slices a rule passes are its function's
keys, and the derived lists (audited datasets, deep folds)."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest
import yaml

from graphaudit.common.settings import SettingsError, config_slice, load_settings
from graphaudit.data.registry import UnknownDatasetError
from graphaudit.glad.settings import (
    DeepSettings,
    GladSettings,
    KernelScoring,
    KernelSettings,
    TrainingSettings,
    check_detectors,
)

CONFIG = Path(__file__).resolve().parents[2] / "config"


def merged(*overlays: str) -> dict:
    """config.yaml's glad section with the overlays' glad sections read on top (as Snakemake merges them)."""

    def update(base: dict, extra: dict) -> dict:
        return {**base, **{k: update(base[k], v) if isinstance(v, dict) else v for k, v in extra.items()}}

    section = yaml.safe_load((CONFIG / "config.yaml").read_text(encoding="utf-8"))["glad"]
    for name in overlays:
        section = update(section, yaml.safe_load((CONFIG / name).read_text(encoding="utf-8")).get("glad", {}))
    return section


@pytest.mark.parametrize("overlays", [(), ("ci.yaml",), ("paper.yaml",)], ids=["default", "ci", "paper"])
def test_every_config_reads_into_settings(overlays: tuple[str, ...]) -> None:
    settings = load_settings(GladSettings, merged(*overlays), "glad")
    assert settings.deep.catalogue == "config/glad/detectors.yaml" and len(settings.deep.settings) == 2
    assert isinstance(settings.protocol.holdout_share, float) and isinstance(settings.kernels.kernels, tuple)


def test_the_overlays_change_what_they_say() -> None:
    ci, paper = load_settings(GladSettings, merged("ci.yaml")), load_settings(GladSettings, merged("paper.yaml"))
    assert ci.protocol.folds == 2 and ci.deep.folds == (0,) and ci.deep.detectors == ("OCGIN", "GraphCL-IF")
    assert paper.deep.max_epochs is None and paper.kernels.tuned and len(paper.deep.detectors) == 12


def test_a_bad_key_names_its_path() -> None:
    section = merged()
    section["deep"] = {**section["deep"], "bootstrapp": 10}
    with pytest.raises(SettingsError, match=r"glad\.deep has unknown keys \['bootstrapp'\]"):
        load_settings(GladSettings, section, "glad")


def test_audited_datasets_and_deep_folds() -> None:
    paper, ci = load_settings(GladSettings, merged("paper.yaml")), load_settings(GladSettings, merged("ci.yaml"))
    assert paper.audited[-2:] == ["Tox21_HSE", "Tox21_PPAR-gamma"] and paper.audited[0] == "AIDS"
    assert load_settings(GladSettings, merged()).deep_folds == [0, 1, 2, 3, 4] and ci.deep_folds == [0]


def test_deep_part_is_enabled_with_detectors_and_datasets() -> None:
    section = merged()
    assert load_settings(GladSettings, section).deep.enabled
    section["deep"] = {**section["deep"], "datasets": []}
    assert not load_settings(GladSettings, section).deep.enabled


def fields(cls: type) -> dict[str, object]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("part, whole", [(KernelScoring, KernelSettings), (TrainingSettings, DeepSettings)])
def test_a_slice_class_declares_keys_of_its_section_with_their_types(part: type, whole: type) -> None:
    assert fields(part).items() <= fields(whole).items()


def test_config_slice_takes_the_declared_keys_in_field_order() -> None:
    deep = merged()["deep"]
    training = config_slice(TrainingSettings, deep)
    assert list(training) == ["device", "max_epochs", "checkpoint_every_s", "threads", "test_rng", "memory_budget_gb"]
    assert training == {k: deep[k] for k in training}
    assert "kernels" not in config_slice(KernelScoring, merged()["kernels"])
    with pytest.raises(SettingsError, match="threads"):
        config_slice(TrainingSettings, {k: v for k, v in deep.items() if k != "threads"})


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"datasets": ["MUTAG", "NOPE"]},
            r"^glad\.datasets: unknown dataset 'NOPE'\..* Fix the name in the config's glad\.datasets",
        ),
        ({"audit_only": ["MUTAGG"]}, r"^glad\.audit_only: unknown dataset 'MUTAGG'\. Did you mean MUTAG"),
        ({"datasets": ["Tox21_nope"]}, r"^glad\.datasets: unknown dataset 'Tox21_nope_training'"),
        (
            {"deep": {"datasets": ["MUTAG", "PTC_MR"]}},
            r"^glad\.deep\.datasets lists \['PTC_MR'\], which glad\.datasets does not .*; add them to glad\.datasets",
        ),
        (
            {"deep": {"folds": [0, 7]}},
            r"^glad\.deep\.folds lists \[7\], but glad\.protocol\.folds is 5 \(folds 0 to 4\); list folds below 5, "
            r"or null for every fold$",
        ),
        (
            {"deep": {"minority": {"datasets": ["PTC_MR"], "settings": ["tuned"]}}},
            r"^glad\.deep\.minority\.datasets lists \['PTC_MR'\], which glad\.deep\.datasets does not",
        ),
        (
            {
                "datasets": ["MUTAG", "Tox21_p53"],
                "deep": {"datasets": ["Tox21_p53"], "minority": {"datasets": ["Tox21_p53"], "settings": ["tuned"]}},
            },
            r"^glad\.deep\.minority\.datasets lists \['Tox21_p53'\]: Tox21's anomalies are its active molecules",
        ),
    ],
)
def test_a_cross_key_mistake_stops_the_parse_naming_the_key(change: dict, message: str) -> None:
    section = merged()
    for key, value in change.items():
        section[key] = {**section[key], **value} if isinstance(value, dict) else value
    with pytest.raises((SettingsError, UnknownDatasetError), match=message):
        load_settings(GladSettings, section, "glad")


def test_an_unknown_detector_names_the_key_and_the_catalogue() -> None:
    path = "config/glad/detectors.yaml"
    catalogue = yaml.safe_load((CONFIG.parent / path).read_text(encoding="utf-8"))
    check_detectors(catalogue, ("OCGIN", "SIGNET"), "glad.deep.detectors", path)
    with pytest.raises(
        SettingsError, match=r"^glad\.deep\.detectors lists \['NOPE'\], which config/glad/detectors\.yaml "
    ):
        check_detectors(catalogue, ("OCGIN", "NOPE"), "glad.deep.detectors", path)

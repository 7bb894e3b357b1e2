"""The pattern section as typed settings: the default config loads, slices match their classes, bad keys fail."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphaudit.common.settings import SettingsError, config_slice, load_settings
from graphaudit.pattern.settings import (
    BlindChains,
    HostFit,
    PatternSettings,
    Selection,
    StripChain,
    load_published,
)

ROOT = Path(__file__).resolve().parents[2]
SECTION = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))["pattern"]


def test_default_section_loads_with_its_types() -> None:
    settings = load_settings(PatternSettings, SECTION)
    assert settings.blind.prior.sweeps == 1000 and settings.blind.checks.random_chains == 3
    assert settings.score_sets == ("test", "familiar", "fresh") and settings.minesweeper.bp.damping == 0.9
    assert settings.cluster.variants["final"] == {"chains": 2} and settings.cluster.variants["no_factor"] is None


def test_slices_hold_exactly_the_keys_of_their_class() -> None:
    selection = config_slice(Selection, SECTION)
    assert set(selection) == {"n_patterns", "per_pattern", "evaluate", "sets", "shard_size"}
    assert load_settings(Selection, selection).per_pattern.test == 20
    assert set(config_slice(BlindChains, SECTION["blind"])) == {"restarts", "iterations", "prior", "noprior"}
    assert config_slice(HostFit, SECTION["blind"]) == {"restarts": 8, "iterations": 200}
    assert "seeds" not in config_slice(StripChain, SECTION["minesweeper"]["strip"])  # a new chain reruns no other


def test_a_bad_key_names_its_path() -> None:
    with pytest.raises(SettingsError, match=r"config.pattern.blind.prior.sweeps"):
        load_settings(
            PatternSettings,
            {**SECTION, "blind": {**SECTION["blind"], "prior": {"sweeps": "many", "burn_in": 1}}},
            "config.pattern",
        )
    with pytest.raises(SettingsError, match="unknown keys"):
        load_settings(PatternSettings, {**SECTION, "extra": 1})
    with pytest.raises(SettingsError, match="expected one of"):
        load_settings(PatternSettings, {**SECTION, "score_sets": ["train"]})


def test_published_quotes_hold_both_tables() -> None:
    quoted = load_published(str(ROOT / SECTION["published"]))
    assert {row["predictor"] for row in quoted["published"]} >= {"GRIT", "CKGConv"}
    assert [row["benchmark"] for row in quoted["table4"]] == ["CLUSTER", "Minesweeper"]

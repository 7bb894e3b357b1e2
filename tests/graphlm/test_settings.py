"""The graphlm section as typed settings: every config file's section loads (overlays on the default)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphaudit.common.settings import SettingsError, load_settings
from graphaudit.graphlm.settings import GraphlmSettings, GspanSettings

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())["graphlm"]


@pytest.mark.parametrize("overlay", ["ci.yaml", "paper.yaml"])
def test_the_section_loads_under_every_config(overlay: str) -> None:
    changes = yaml.safe_load((ROOT / "config" / overlay).read_text()).get("graphlm", {})
    merged = {
        key: {**value, **changes[key]} if isinstance(value, dict) and key in changes else changes.get(key, value)
        for key, value in DEFAULT.items()
    }
    settings = load_settings(GraphlmSettings, merged, "graphlm")
    assert isinstance(settings.gspan, GspanSettings) and settings.bootstrap.replicates >= 2


def test_a_wrong_backend_names_the_key() -> None:
    with pytest.raises(SettingsError, match=r"graphlm.gspan.backend"):
        load_settings(GraphlmSettings, {**DEFAULT, "gspan": {**DEFAULT["gspan"], "backend": "fast"}}, "graphlm")

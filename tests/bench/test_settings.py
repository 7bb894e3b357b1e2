"""The bench section as typed settings: every config file's section loads (overlays on the default)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphaudit.bench.settings import BenchSettings
from graphaudit.common.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())["bench"]


@pytest.mark.parametrize("overlay", ["ci.yaml", "paper.yaml"])
def test_the_section_loads_under_every_config(overlay: str) -> None:
    changes = yaml.safe_load((ROOT / "config" / overlay).read_text()).get("bench", {})
    settings = load_settings(BenchSettings, {k: {**v, **changes.get(k, {})} for k, v in DEFAULT.items()}, "bench")
    assert settings.mining.repeats >= 1 and settings.tu_reader.dataset

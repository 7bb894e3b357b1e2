"""Figures 3-5 through their rule entries, drawn from the golden tables (``table23``, ``leakage``, ``hp_gap``)."""

from __future__ import annotations

import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.glad import figures

from .golden import EXPECTED

SOURCES = {"fig3": "table23", "fig4": "leakage", "fig5": "hp_gap"}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_figures_are_written_as_png_and_svg(tmp_path, name: str) -> None:
    source = SOURCES[name]
    png = tmp_path / f"{name}.png"
    getattr(figures, name)(RuleContext(input={source: str(EXPECTED / f"{source}.csv")}, output={"figure": str(png)}))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in png.with_suffix(".svg").read_bytes()

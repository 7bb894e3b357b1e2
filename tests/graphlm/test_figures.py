"""graphlm Figure 1: drawn from the golden evaluation and bootstrap tables, PNG and SVG, byte-stable."""

from __future__ import annotations

from graphaudit.common.rule import RuleContext
from graphaudit.graphlm.figures import fig1

from .golden import EXPECTED


def test_fig1_writes_png_and_svg_byte_stably(tmp_path) -> None:
    inputs = {"evaluation": str(EXPECTED / "evaluation.csv"), "bootstrap": str(EXPECTED / "bootstrap.csv")}
    for run in ("a", "b"):
        fig1(RuleContext(input=inputs, output={"figure": str(tmp_path / run / "fig1.png")}))
    for suffix in (".png", ".svg"):
        first, second = (tmp_path / run / f"fig1{suffix}" for run in ("a", "b"))
        assert first.stat().st_size > 1000 and first.read_bytes() == second.read_bytes()

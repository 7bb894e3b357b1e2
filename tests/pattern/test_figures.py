"""The figures draw from the golden intermediate files (PNG and SVG written; pixels are not compared)."""

from __future__ import annotations

from graphaudit.common.rule import RuleContext
from graphaudit.pattern.figures import fig1, fig2

from .golden_tables import BOOTSTRAP, INPUTS, PUBLISHED, SEED


def test_fig1_pairs_a_test_graph_with_a_training_graph_of_its_pattern(tmp_path) -> None:
    png = tmp_path / "fig1.png"
    inputs = {"train": str(INPUTS / "official_train.npz"), "test": str(INPUTS / "official_test.npz")}
    fig1(RuleContext(input=inputs, output={"fig1": str(png)}, params={"size": 20, "seed": SEED}))
    assert png.stat().st_size > 0 and png.with_suffix(".svg").stat().st_size > 0


def test_fig2_draws_the_published_scores_and_the_band(tmp_path) -> None:
    png = tmp_path / "fig2.png"
    params = {"published": PUBLISHED, "bootstrap": BOOTSTRAP, "seed": SEED}
    fig2(RuleContext(input={"counts": str(INPUTS / "scores/counts.csv")}, output={"fig2": str(png)}, params=params))
    assert png.stat().st_size > 0 and png.with_suffix(".svg").stat().st_size > 0

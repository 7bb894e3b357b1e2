"""The figures draw from the golden intermediate files and tables (PNG and SVG written; pixels are not compared)."""

from __future__ import annotations

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.pattern.figures import blind_series, fig1, fig2, fig3, fig4, held_out_series, table3_series

from .golden_tables import BOOTSTRAP, EXPECTED, INPUTS, PUBLISHED, SEED


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


def test_fig3_and_fig4_draw_from_the_neural_tables(tmp_path) -> None:
    tables = {name: str(EXPECTED / f"{name}.csv") for name in ("table3", "table11")}
    fig3(RuleContext(input=tables, output={"fig3": str(tmp_path / "fig3.png")}))
    fig4(RuleContext(input={"table3": tables["table3"]}, output={"fig4": str(tmp_path / "fig4.png")}))
    for name in ("fig3", "fig4"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0 and (tmp_path / f"{name}.svg").stat().st_size > 0


def test_figure_series_hold_every_seed_and_the_held_out_parts() -> None:
    table3, table11 = pd.read_csv(EXPECTED / "table3.csv"), pd.read_csv(EXPECTED / "table11.csv")
    released = table3_series(table3, "ckgconv", "released", "CKGConv", "^")
    assert sorted({(x, seed) for x, seed, *_ in released.points}) == sorted(
        (s, seed) for s in ("official", "familiar", "fresh") for seed in (0, 1)
    )
    blind = blind_series(table3, table11)
    assert [x for x, *_ in blind.points] == ["official", "familiar", "fresh", "kept", "held out"]
    held = held_out_series(table11)
    assert [(x, seed) for x, seed, *_ in held.points] == [("kept", 0), ("held out", 0)]
    assert held.points[1][2] == table11["held_out"].iloc[0]

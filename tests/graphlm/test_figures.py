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


def test_the_language_model_figures_draw_their_runs_and_say_when_there_are_none(tmp_path) -> None:
    import json

    import pandas as pd
    import yaml

    from graphaudit.graphlm.figures import fig2, fig4, fig5, fig6, fig9
    from graphaudit.graphlm.lm import SampleSet

    from .test_lm_tables import evaluation

    table20 = pd.DataFrame(
        [
            {"dataset": "M", "serialization": s, "seed": 42, "checkpoint": k, "step": 10 * k, "unique": 0.5,
             "precision": 0.1 * k, "rho": 0.2 * k, "jsd": 0.1}
            for s in ("dfs", "dgmg") for k in (1, 2, 3)
        ]
    )  # fmt: skip
    table20.to_csv(tmp_path / "t20.csv", index=False)
    table20.head(0).to_csv(tmp_path / "empty.csv", index=False)
    supports = {"dataset": "M", "generator": "g", "patterns": {"a": [0.5, 0.4], "b": [0.2, 0.0], "c": [0.0, 0.3]}}
    (tmp_path / "s.json").write_text(json.dumps(supports))
    evaluations = []
    for dseed in (0, 1):
        sample = SampleSet("dfs", 42, 20, "both_default", dseed)
        (tmp_path / f"e{dseed}.json").write_text(json.dumps(evaluation("M", sample, 0.5 + 0.1 * dseed)))
        evaluations.append(str(tmp_path / f"e{dseed}.json"))
    lm = yaml.safe_load(open("config/config.yaml", encoding="utf-8"))["graphlm"]["lm"]
    for name, entry, inputs in (
        ("fig6", fig6, {"table20": str(tmp_path / "t20.csv")}),
        ("fig9", fig9, {"table20": str(tmp_path / "t20.csv")}),
        ("fig4", fig4, {"supports": [str(tmp_path / "s.json")]}),
        ("fig5", fig5, {"supports": [str(tmp_path / "s.json")]}),
        ("fig5_empty", fig5, {"supports": []}),
        ("fig2", fig2, {"evaluations": evaluations}),
        ("fig2_empty", fig2, {"evaluations": []}),
        ("fig6_empty", fig6, {"table20": str(tmp_path / "empty.csv")}),
        ("fig4_empty", fig4, {"supports": []}),
    ):
        entry(RuleContext(input=inputs, output={"figure": str(tmp_path / f"{name}.png")}, params={"lm": lm}))
        assert (tmp_path / f"{name}.png").stat().st_size > 1000 and (tmp_path / f"{name}.svg").exists()

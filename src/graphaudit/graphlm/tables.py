"""The graphlm tables, one rule entry each, assembled from the files the study's rules write: Table 9
(dataset statistics) and Table 10 (serialized-sequence statistics) from ``stats.json``, the training
patterns and strata sizes from ``patterns.json``, the bootstrap reference from ``bootstrap/r*.json``, the
generated-set evaluation and its strata from ``evaluation/*.json`` and the Table 17 analogue (sensitivity
to the minimum support) from those and ``sensitivity.json``."""

from __future__ import annotations

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.graphlm import metrics
from graphaudit.graphlm.tasks import SENSITIVITY_COLUMNS, STRATA, read_json, sensitivity_row
from graphaudit.report.tables import write_table

__all__ = [
    "TABLE9_COLUMNS",
    "TABLE10_COLUMNS",
    "bootstrap",
    "bootstrap_frame",
    "evaluation",
    "evaluation_frame",
    "patterns",
    "patterns_frame",
    "sensitivity",
    "sensitivity_frame",
    "strata",
    "strata_frame",
    "table9",
    "table9_frame",
    "table10",
    "table10_frame",
]

TABLE9_COLUMNS = ["dataset", "graphs", "avg_nodes", "avg_edges", "max_nodes", "avg_degree", "density", "unique_codes"]
TABLE10_COLUMNS = ["dataset", "dfs_mean_len", "dfs_max_len", "dfs_vocab", "dgmg_mean_len", "dgmg_max_len", "dgmg_vocab"]


def _read_all(ctx: RuleContext, name: str) -> list:
    return [read_json(path) for path in ctx.input_list(name)]


# ---- rule entries: input files -> results/graphlm/tables/<name>.csv ------------------------------------
def table9(ctx: RuleContext) -> None:
    """Table 9 from every dataset's ``stats.json`` (``input.stats``)."""
    write_table(table9_frame(_read_all(ctx, "stats")), ctx.output["table"], title="Table 9: dataset statistics")


def table10(ctx: RuleContext) -> None:
    """Table 10 from every dataset's ``stats.json`` (``input.stats``)."""
    write_table(
        table10_frame(_read_all(ctx, "stats")), ctx.output["table"], title="Table 10: serialized-sequence statistics"
    )


def patterns(ctx: RuleContext) -> None:
    """Pattern counts and strata sizes from every dataset's ``patterns.json`` (``input.patterns``)."""
    write_table(
        patterns_frame(_read_all(ctx, "patterns")), ctx.output["table"], title="Training patterns and frequency strata"
    )


def bootstrap(ctx: RuleContext) -> None:
    """The graph-level bootstrap reference from every replicate (``input.bootstrap``)."""
    write_table(
        bootstrap_frame(_read_all(ctx, "bootstrap")), ctx.output["table"], title="Graph-level bootstrap reference"
    )


def evaluation(ctx: RuleContext) -> None:
    """The generated sets' memorization, pattern metrics and calibration (``input.evaluations``)."""
    write_table(
        evaluation_frame(_read_all(ctx, "evaluations")),
        ctx.output["table"],
        title="Generated sets: memorization, pattern metrics and calibration",
    )


def strata(ctx: RuleContext) -> None:
    """The generated sets' metrics per frequency stratum (``input.evaluations``)."""
    write_table(
        strata_frame(_read_all(ctx, "evaluations")), ctx.output["table"], title="Frequency strata of the generated sets"
    )


def sensitivity(ctx: RuleContext) -> None:
    """Table 17 analogue from the evaluations (main support) and the sweeps (``input.sensitivity``)."""
    low = [row for rows in _read_all(ctx, "sensitivity") for row in rows]
    write_table(
        sensitivity_frame(_read_all(ctx, "evaluations"), low),
        ctx.output["table"],
        title="Table 17 analogue: minimum-support sensitivity",
    )


# ---- assembly: parsed files -> frames --------------------------------------------------------------------
def table9_frame(stats: list[dict]) -> pd.DataFrame:
    """One row per dataset: size statistics and the number of distinct training codes."""
    return pd.DataFrame(stats)[TABLE9_COLUMNS]


def table10_frame(stats: list[dict]) -> pd.DataFrame:
    """One row per dataset: DFS and DGMG sequence lengths and vocabularies."""
    return pd.DataFrame(stats)[TABLE10_COLUMNS]


def patterns_frame(contents: list[dict]) -> pd.DataFrame:
    """One row per dataset: the mining settings, the pattern count and the head / torso / tail sizes."""
    return pd.DataFrame([_pattern_row(content) for content in contents])


def _pattern_row(content: dict) -> dict:
    sizes = {s: len(content["strata"][s.capitalize()]) for s in STRATA}
    return {
        "dataset": content["dataset"],
        "sigma": content["sigma"],
        "upper": content["upper"],
        "n_patterns": len(content["patterns"]),
        **sizes,
    }


def bootstrap_frame(replicates: list[dict]) -> pd.DataFrame:
    """One row per dataset (in first-seen order): rho's median, mean and sd over the replicates, and the mean
    JSD and missing mass."""
    by_dataset: dict[str, list[dict]] = {}
    for content in replicates:
        by_dataset.setdefault(content["dataset"], []).append(content["overall"])
    rows = []
    for dataset, overall in by_dataset.items():
        rho = metrics.bootstrap_summary([r["rho"] for r in overall])
        rows.append(
            {
                "dataset": dataset,
                "replicates": rho["n"],
                "rho_median": rho["median"],
                "rho_mean": rho["mean"],
                "rho_sd": rho["sd"],
                "jsd_mean": metrics.bootstrap_summary([r["jsd"] for r in overall])["mean"],
                "missing_mass_mean": metrics.bootstrap_summary([r["missing_mass"] for r in overall])["mean"],
            }
        )
    return pd.DataFrame(rows)


def evaluation_frame(evaluations: list[dict]) -> pd.DataFrame:
    """One row per evaluated generated set."""
    return pd.DataFrame([_evaluation_row(e) for e in evaluations])


def _evaluation_row(e: dict) -> dict:
    overall, calibration = e["overall"], e["calibration"]
    return {
        "dataset": e["dataset"],
        "generator": e["generator"],
        "unique": e["unique"],
        "precision": e["precision"],
        "novelty": e["novelty"],
        "n_train_patterns": overall["n_train_patterns"],
        "n_gen_patterns": overall["n_gen_patterns"],
        "rho": overall["rho"],
        "jsd": overall["jsd"],
        "missing": overall["missing_mass"],
        "rho_delta": calibration["delta"],
        "z": calibration["z"],
        "pctile": calibration["pctile"],
        "n_invalid": e["n_invalid"],
    }


def strata_frame(evaluations: list[dict]) -> pd.DataFrame:
    """One row per evaluated set and stratum."""
    return pd.DataFrame(
        [
            {"dataset": e["dataset"], "generator": e["generator"], "stratum": name, **values}
            for e in evaluations
            for name, values in e["strata"].items()
        ]
    )


def sensitivity_frame(evaluations: list[dict], low: list[dict]) -> pd.DataFrame:
    """Rows at the main support (from the evaluations) and at the lower one (``low``), for the datasets swept."""
    swept = {row["dataset"] for row in low}
    main = [
        sensitivity_row(e["dataset"], e["generator"], e["sigma"], e["overall"])
        for e in evaluations
        if e["dataset"] in swept
    ]
    return pd.DataFrame(main + low, columns=SENSITIVITY_COLUMNS)

"""The paper's tables, one rule entry each, named after the table: Table 3 (cohorts), 4 (metric agreement),
5 (aggregation agreement) and its summary, 6 (Wilcoxon-Holm) and the tests behind it (``wilcoxon``), 7 (tuning
budgets) and the curves behind it (``tuning``), 12 (subgroups) and the subgroup ratings (``subgroups``), and
the checks the claims read (``checks``). Tables 4-7 use V2 as the paper does."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings, settings_dict
from graphaudit.nodeground.checks import evaluate_checks, load_results
from graphaudit.nodeground.cohorts import cohort_summary
from graphaudit.nodeground.output import read_frame, write_result
from graphaudit.nodeground.pairwise import SIGNIFICANCE_COLUMNS, significance_counts
from graphaudit.nodeground.rankings import dataset_means, mean_improvability, positions, primary_column
from graphaudit.nodeground.records import read_properties
from graphaudit.nodeground.settings import EloSettings, MiSettings, SubgroupSettings
from graphaudit.nodeground.subgroups import (
    assign_subgroups,
    subgroup_ratings,
    subgroup_table,
)
from graphaudit.nodeground.tasks import AGREEMENT_COHORT, primary_metrics, slices
from graphaudit.nodeground.tuning import CURVE_COLUMNS, TABLE7_COLUMNS, tuning_table

__all__ = [
    "METRIC_PAIRS",
    "TABLE4_COLUMNS",
    "TABLE5_COLUMNS",
    "TABLE5_SUMMARY_COLUMNS",
    "aggregation_agreement",
    "checks",
    "metric_agreement",
    "subgroups",
    "table3",
    "table4",
    "table5",
    "table5_summary",
    "table6",
    "table7",
    "table12",
    "tuning",
    "wilcoxon",
]

METRIC_PAIRS = (("multiclass", "accuracy", "macro_f1"), ("binary", "auroc", "precision"))
"""Table 4's comparisons: Spearman for multiclass accuracy vs Macro-F1, Kendall for binary AUROC vs
positive-class precision (both coefficients are reported for both)."""
TABLE4_COLUMNS = ["split", "task", "metric_a", "metric_b", "methods", "datasets", "spearman", "kendall"]
TABLE5_COLUMNS = [
    "split",
    "method",
    "mean_rank",
    "elo",
    "mi",
    "position_mean_rank",
    "position_elo",
    "position_mi",
    "largest_shift",
]
TABLE5_SUMMARY_COLUMNS = [
    "split",
    "first",
    "second",
    "spearman",
    "largest_shift",
    "top_first",
    "top_second",
    "top_changed",
    "leader_first",
    "leader_second",
    "comparison_set",
]
SUMMARIES = {"mean_rank": False, "elo": True, "mi": False}  # higher is better?
log = logging.getLogger(__name__)


def table3(ctx: RuleContext) -> None:
    """Table 3: cohort details."""
    summary = cohort_summary(
        read_frame(ctx.input["cohorts"]),
        read_frame(ctx.input["endpoints"]),
        read_frame(ctx.input["dropped"]),
        ctx.params["reference"],
    )
    write_result(summary, ctx.output["table3"], "Table 3: cohorts V1 / V2 / V3")


def _correlations(a: pd.Series, b: pd.Series) -> tuple[float, float]:
    if len(a) < 2 or a.nunique() < 2 or b.nunique() < 2:
        return np.nan, np.nan
    return float(stats.spearmanr(a, b).statistic), float(stats.kendalltau(a, b).statistic)


def metric_agreement(ranks: pd.DataFrame) -> pd.DataFrame:
    """Table 4 from the mean ranks of the agreement cohort: per split, the rank correlation between the
    per-method mean ranks under two metrics."""
    rows = []
    frame = ranks[ranks["cohort"] == AGREEMENT_COHORT]
    for split in sorted(set(frame["split"])):
        for task, metric_a, metric_b in METRIC_PAIRS:
            part = frame[(frame["split"] == split) & (frame["task"] == task)]
            a = part[part["metric"] == metric_a].set_index("method")["mean_rank"]
            b = part[part["metric"] == metric_b].set_index("method")["mean_rank"].reindex(a.index)
            if a.empty:
                continue
            spearman, kendall = _correlations(a, b)
            rows.append(
                {
                    "split": split,
                    "task": task,
                    "metric_a": metric_a,
                    "metric_b": metric_b,
                    "methods": len(a),
                    "datasets": int(part["datasets"].max()),
                    "spearman": spearman,
                    "kendall": kendall,
                }
            )
    return pd.DataFrame(rows, columns=TABLE4_COLUMNS)


def table4(ctx: RuleContext) -> None:
    """Table 4: agreement between metric-based rankings (V2)."""
    write_result(
        metric_agreement(pd.read_csv(ctx.input["ranks"])),
        ctx.output["table4"],
        "Table 4: agreement between metric-based rankings (V2)",
    )


def _summaries(
    frame: pd.DataFrame, elo: pd.DataFrame, ranks: pd.DataFrame, split: str, primary: Mapping[str, str], error: str
) -> pd.DataFrame:
    means = dataset_means(frame, primary_column(frame, primary) if error == "score" else "test_loss")
    mean_rank = ranks[(ranks["split"] == split) & (ranks["task"] == "all")].set_index("method")["mean_rank"]
    ratings = elo[elo["split"] == split].set_index("method")["elo"]
    table = pd.DataFrame({"mean_rank": mean_rank, "elo": ratings, "mi": mean_improvability(means, error)})
    return table.reindex(sorted(table.index))


def aggregation_agreement(summaries: pd.DataFrame, split: str, top_k: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 5 rows (per method: the three summaries, their places and the largest shift between places) and
    the summary rows (per pair of summaries: Spearman, largest shift, top-k sets, leaders)."""
    names = list(summaries.index)
    places = {name: positions(summaries[name].to_numpy(), names, higher) for name, higher in SUMMARIES.items()}
    shift = np.max([np.abs(places[a] - places[b]) for a, b in combinations(SUMMARIES, 2)], axis=0)
    per_method = pd.DataFrame(
        {
            "split": split,
            "method": names,
            **{k: summaries[k].to_numpy() for k in SUMMARIES},
            **{f"position_{k}": v for k, v in places.items()},
            "largest_shift": shift,
        }
    )
    rows = []
    k = min(top_k, len(names))
    for a, b in combinations(SUMMARIES, 2):
        signed_a = summaries[a] * (-1 if SUMMARIES[a] else 1)
        signed_b = summaries[b] * (-1 if SUMMARIES[b] else 1)
        top_a = sorted(n for n, p in zip(names, places[a]) if p <= k)
        top_b = sorted(n for n, p in zip(names, places[b]) if p <= k)
        rows.append(
            {
                "split": split,
                "first": a,
                "second": b,
                "spearman": _correlations(signed_a, signed_b)[0],
                "largest_shift": int(np.abs(places[a] - places[b]).max()),
                "top_first": " ".join(top_a),
                "top_second": " ".join(top_b),
                "top_changed": top_a != top_b,
                "leader_first": names[int(np.argmin(places[a]))],
                "leader_second": names[int(np.argmin(places[b]))],
                "comparison_set": f"{len(names)} methods",
            }
        )
    return per_method[TABLE5_COLUMNS], pd.DataFrame(rows, columns=TABLE5_SUMMARY_COLUMNS)


def _table5_parts(ctx: RuleContext) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 5's per-method rows and its summary rows (every V2 slice)."""
    cohorts = read_frame(ctx.input["cohorts"])
    elo = pd.read_csv(ctx.input["elo"])
    ranks = pd.read_csv(ctx.input["ranks"])
    primary, error = primary_metrics(ctx), ctx.settings("mi", MiSettings).error
    per_method, summary = [], []
    for name, split, frame in slices(cohorts):
        if name != AGREEMENT_COHORT:
            continue
        summaries = _summaries(frame, elo[elo["cohort"] == name], ranks[ranks["cohort"] == name], split, primary, error)
        rows, pairs = aggregation_agreement(summaries, split, ctx.params["top_k"])
        per_method.append(rows)
        summary.append(pairs)
    return (
        pd.concat(per_method, ignore_index=True) if per_method else pd.DataFrame(columns=TABLE5_COLUMNS),
        pd.concat(summary, ignore_index=True) if summary else pd.DataFrame(columns=TABLE5_SUMMARY_COLUMNS),
    )


def table5(ctx: RuleContext) -> None:
    """Table 5: mean rank, Elo and Mean Improvability on V2, per method, with their places."""
    write_result(_table5_parts(ctx)[0], ctx.output["table5"], "Table 5: mean rank, Elo and Mean Improvability (V2)")


def table5_summary(ctx: RuleContext) -> None:
    """Table 5's summary: how far mean rank, Elo and Mean Improvability agree on V2 (Spearman, shifts, top sets)."""
    write_result(
        _table5_parts(ctx)[1], ctx.output["table5_summary"], "Table 5: agreement between the three summaries (V2)"
    )


def wilcoxon(ctx: RuleContext) -> None:
    """Every method pair's Wilcoxon signed-rank test with Holm (V2), from the pairs of ``nodeground_wilcoxon``."""
    pairs = read_frame(ctx.input["pairs"])
    write_result(pairs, ctx.output["wilcoxon"], "Wilcoxon signed-rank tests of every method pair (V2)")


def table6(ctx: RuleContext) -> None:
    """Table 6: significant wins and losses per method, paired Wilcoxon (Pratt) with Holm, V2."""
    pairs = read_frame(ctx.input["pairs"])
    alpha = ctx.params["alpha"]
    counts = []
    for split, tested in pairs.groupby("split", sort=False):
        names = list(dict.fromkeys(tested[["first", "second"]].to_numpy().ravel()))  # the pairs' table order
        counts.append(significance_counts(tested.reset_index(drop=True), names, alpha).assign(split=split))
    count_columns = ["split", *SIGNIFICANCE_COLUMNS]
    write_result(
        pd.concat(counts, ignore_index=True)[count_columns] if counts else pd.DataFrame(columns=count_columns),
        ctx.output["table6"],
        "Table 6: significant wins and losses (Wilcoxon, Holm, V2)",
    )


def tuning(ctx: RuleContext) -> None:
    """The tuning curves (V2, supervised methods): test, validation, selection optimism and cost per budget."""
    curve = read_frame(ctx.input["curve"])
    write_result(
        curve if len(curve) else pd.DataFrame(columns=CURVE_COLUMNS),
        ctx.output["tuning"],
        "Tuning curves: test, validation, selection optimism and cost per budget",
    )


def table7(ctx: RuleContext) -> None:
    """Table 7: tuning gains, budgets within one point and their estimated cost, selection optimism (V2)."""
    curve = read_frame(ctx.input["curve"])
    table = tuning_table(curve, ctx.params["within"]) if len(curve) else pd.DataFrame(columns=TABLE7_COLUMNS)
    write_result(table, ctx.output["table7"], "Table 7: tuning gains and budgets (V2, supervised methods)")


def _present_properties(ctx: RuleContext) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the properties of the datasets the cohorts hold, the cohorts)."""
    properties = read_properties(ctx.input["properties"])
    cohorts = read_frame(ctx.input["cohorts"])
    return properties[properties["dataset"].isin(set(cohorts["dataset"]))], cohorts


def _boundaries(ctx: RuleContext) -> dict[str, dict]:
    """The ``subgroups`` param, each property's cuts and labels checked, as plain data."""
    return {
        name: settings_dict(load_settings(SubgroupSettings, spec, f"params.subgroups.{name}"))
        for name, spec in ctx.params["subgroups"].items()
    }


def table12(ctx: RuleContext) -> None:
    """Table 12: the subgroups of the seven properties, their intervals and member datasets."""
    present, _ = _present_properties(ctx)
    write_result(subgroup_table(present, _boundaries(ctx)), ctx.output["table12"], "Table 12: subgroups")


def subgroups(ctx: RuleContext) -> None:
    """Per subgroup of Table 12, the V1 point Elo and mean rank of every method (Figure 7)."""
    present, cohorts = _present_properties(ctx)
    ratings = subgroup_ratings(
        cohorts[cohorts["cohort"] == "V1"],
        assign_subgroups(present, _boundaries(ctx)),
        primary_metrics(ctx),
        ctx.settings("elo", EloSettings),
    )
    write_result(ratings, ctx.output["subgroups"], "Subgroup ratings (V1)")


def checks(ctx: RuleContext) -> None:
    """Every check of :mod:`graphaudit.nodeground.checks` on this run's tables (the claims read them)."""
    tables = {
        name: read_frame(path) if str(path).endswith(".parquet") else pd.read_csv(path)
        for name, path in ctx.input.items()
    }
    results = load_results(tables, ctx.params["budgets"], ctx.params["reorderings"])
    write_result(evaluate_checks(results), ctx.output["checks"], "NodeGround checks (the claims read them)")

"""Rule entries of the analysis chain before the paper's tables: collect the records, endpoints, cohorts, and
the per-cohort analyses that several tables and figures read (Elo, metric ranks, win rates, frontiers)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import settings_dict
from graphaudit.nodeground.cohorts import build_cohorts
from graphaudit.nodeground.endpoints import default_entry, endpoints
from graphaudit.nodeground.frontier import COSTS, FRONTIER_COLUMNS, frontier_points
from graphaudit.nodeground.output import read_frame, write_frame, write_result
from graphaudit.nodeground.pairwise import PAIR_COLUMNS, WIN_COLUMNS, wilcoxon_pairs, win_rates
from graphaudit.nodeground.rankings import (
    ELO_COLUMNS,
    RANK_COLUMNS,
    dataset_means,
    elo_ratings,
    metric_ranks,
    primary_column,
    ranked,
)
from graphaudit.nodeground.records import STATUSES, empty_records, read_records, records_root
from graphaudit.nodeground.settings import CohortSettings, EloSettings, MiSettings, PrimarySettings, WilcoxonSettings
from graphaudit.nodeground.tuning import CURVE_COLUMNS, budget_curve

__all__ = [
    "AGREEMENT_COHORT",
    "COVERAGE_COLUMNS",
    "coverage",
    "nodeground_cohorts",
    "nodeground_elo",
    "nodeground_endpoints",
    "nodeground_frontier",
    "nodeground_ranks",
    "nodeground_records",
    "nodeground_tuning",
    "nodeground_wilcoxon",
    "nodeground_winrate",
    "primary_metrics",
    "slices",
]

AGREEMENT_COHORT = "V2"
"""Tables 4-7 use the complete-case cohort (the paper's 28 datasets): observed results only."""
COVERAGE_COLUMNS = ["method", "split", "datasets", "searches", "trials", *STATUSES]
log = logging.getLogger(__name__)


def coverage(records: pd.DataFrame) -> pd.DataFrame:
    """Per method and split: datasets, searches and trials recorded, and the trials of each status."""
    if records.empty:
        return pd.DataFrame({c: [] for c in COVERAGE_COLUMNS})
    counts = records.pivot_table(
        index=["method", "split"], columns="status", values="trial_id", aggfunc="size", fill_value=0
    ).reindex(columns=list(STATUSES), fill_value=0)
    grouped = records.groupby(["method", "split"])
    frame = pd.DataFrame(
        {
            "datasets": grouped["dataset"].nunique(),
            "searches": grouped[["dataset", "partition"]].apply(lambda g: len(g.drop_duplicates())),
            "trials": grouped.size(),
        }
    ).join(counts)
    return frame.reset_index()[COVERAGE_COLUMNS]


def nodeground_records(ctx: RuleContext) -> None:
    """Collect every record file of the study (``input.records``: the search and GFM jobs' outputs) into one
    checked frame, and its coverage table."""
    paths = ctx.input_list("records")
    records = read_records(paths, records_root(paths[0])) if paths else empty_records()
    log.info("%d record files, %d trials, %d methods", len(paths), len(records), records["method"].nunique())
    write_frame(records, ctx.output["trials"])
    write_result(coverage(records), ctx.output["coverage"], "NodeGround records per method and split")


def nodeground_endpoints(ctx: RuleContext) -> None:
    """Default, tuned and GFM endpoints of every search."""
    frame = endpoints(read_frame(ctx.input["trials"]), ctx.params["gfms"])
    write_frame(frame, ctx.output["endpoints"])


def nodeground_cohorts(ctx: RuleContext) -> None:
    """V1, V2 and V3 (long frame) and the units each cohort had to drop."""
    settings = ctx.settings("cohorts", CohortSettings)
    cohorts, dropped = build_cohorts(
        read_frame(ctx.input["endpoints"]), settings.reference, settings.overlap, settings.complete_case
    )
    write_frame(cohorts, ctx.output["cohorts"])
    write_frame(dropped, ctx.output["dropped"])


def slices(cohorts: pd.DataFrame, only_ranked: bool = True) -> Iterator[tuple[str, str, pd.DataFrame]]:
    """(cohort, split, frame) for every cohort slice with at least two methods."""
    frame = ranked(cohorts) if only_ranked else cohorts
    for (name, split), group in frame.groupby(["cohort", "split"], sort=True):
        if group["entry"].nunique() >= 2:
            yield name, split, group


def _collect(parts: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame({c: [] for c in columns})


def nodeground_elo(ctx: RuleContext) -> None:
    """Elo of every cohort slice: BT point, dataset bootstrap, online Elo (spec 4.4)."""
    settings = ctx.settings("elo", EloSettings)
    primary = primary_metrics(ctx)
    cohorts = read_frame(ctx.input["cohorts"])
    parts = []
    for name, split, frame in slices(cohorts):
        ratings = elo_ratings(frame, primary_column(frame, primary), settings, (name, split, ctx.params["seed"]))
        parts.append(ratings.assign(cohort=name, split=split))
    write_result(_collect(parts, ELO_COLUMNS), ctx.output["elo"], "NodeGround Elo per cohort and split")


def nodeground_ranks(ctx: RuleContext) -> None:
    """Mean within-dataset rank per metric and task type in every cohort slice (Figures 11-14)."""
    cohorts = read_frame(ctx.input["cohorts"])
    parts = [
        metric_ranks(frame, primary_metrics(ctx)).assign(cohort=name, split=split)
        for name, split, frame in slices(cohorts)
    ]
    write_result(_collect(parts, RANK_COLUMNS), ctx.output["ranks"], "NodeGround mean ranks per metric")


def nodeground_winrate(ctx: RuleContext) -> None:
    """Pairwise win rates over per-dataset means of the primary metric, V1 (Figure 17)."""
    cohorts = read_frame(ctx.input["cohorts"])
    primary = primary_metrics(ctx)
    parts = [
        win_rates(dataset_means(frame, primary_column(frame, primary)), ctx.params["tie_eps"]).assign(split=split)
        for name, split, frame in slices(cohorts)
        if name == "V1"
    ]
    write_result(_collect(parts, ["split", *WIN_COLUMNS]), ctx.output["winrate"], "NodeGround win rates, V1")


def nodeground_frontier(ctx: RuleContext) -> None:
    """Mean Improvability against time and memory overhead for every endpoint of every cohort slice."""
    cohorts = read_frame(ctx.input["cohorts"])
    reference = default_entry(ctx.params["reference"])
    primary, error = primary_metrics(ctx), ctx.settings("mi", MiSettings).error
    parts = []
    for name, split, frame in slices(cohorts, only_ranked=False):
        if reference not in set(frame["entry"]):
            log.warning("%s %s: no %s endpoint, no overheads", name, split, reference)
            continue
        scores = primary_column(frame, primary)
        for cost in COSTS:
            points = frontier_points(frame, scores, cost, reference, error)
            parts.append(points.assign(cohort=name, split=split, cost=cost))
    columns = ["cohort", "split", "cost", *FRONTIER_COLUMNS]
    write_result(_collect(parts, columns), ctx.output["frontier"], "NodeGround performance-cost frontiers")


def primary_metrics(ctx: RuleContext) -> dict[str, str]:
    """The rule's ``primary`` param, checked, as the task -> metric mapping the analyses read."""
    return settings_dict(ctx.settings("primary", PrimarySettings))


def nodeground_wilcoxon(ctx: RuleContext) -> None:
    """Every method pair's signed-rank test with Holm on V2, per split (Table 6 and the Wilcoxon table)."""
    settings = ctx.settings("wilcoxon", WilcoxonSettings)
    primary = primary_metrics(ctx)
    parts = []
    for name, split, frame in slices(read_frame(ctx.input["cohorts"])):
        if name != AGREEMENT_COHORT:
            continue
        means = dataset_means(frame, primary_column(frame, primary))
        parts.append(wilcoxon_pairs(means, settings.alpha, settings.zero_method, settings.method).assign(split=split))
    write_frame(_collect(parts, ["split", *PAIR_COLUMNS]), ctx.output["pairs"])


def nodeground_tuning(ctx: RuleContext) -> None:
    """The tuning curves on V2's datasets and the supervised methods (Table 7, Figure 18)."""
    cohorts = read_frame(ctx.input["cohorts"])
    v2 = cohorts.loc[cohorts["cohort"] == AGREEMENT_COHORT, ["dataset", "split"]]
    curve = budget_curve(
        read_frame(ctx.input["trials"]),
        v2,
        ctx.params["gfms"],
        primary_metrics(ctx),
        ctx.params["budgets"],
        ctx.params["reorderings"],
        ctx.params["seed"],
    )
    write_frame(curve if len(curve) else pd.DataFrame({c: [] for c in CURVE_COLUMNS}), ctx.output["curve"])

"""The study's checks (spec 6.1 ``paper_checks``, 6.2, 7): one row per check with the reproduced value, or the
reason it cannot be judged on this run (column ``not_run``, which the claims report as NOT RUN).

Three kinds: structural rules of the machinery that hold at any scale (cohort rules, C(n, 2) pairs, the
budget list), the qualitative checks of spec 6.2, and the paper's orderings and numbers of spec 7. The last
kind is judged only on the paper's universe: records of the paper's 51 datasets and 21 methods (without them
the paper's cohorts, and so its orderings, do not exist) and the methods that decide the check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from graphaudit.nodeground.records import train_share

__all__ = [
    "CHECK_COLUMNS",
    "PAPER_COHORTS",
    "Check",
    "NotJudged",
    "Results",
    "checks",
    "evaluate_checks",
    "load_results",
]

CHECK_COLUMNS = ["check", "value", "not_run", "description"]
PAPER_COHORTS = {"V1": (51, 21), "V2": (28, 21), "V3": (51, 15)}
"""The paper's cohorts as (datasets, methods) (spec 3.9, 7)."""
LOW, HIGH = "10-10-80", "50-25-25"
PAPER_SPLITS = (LOW, HIGH)
TABLE_COHORT = "V2"


@dataclass(frozen=True)
class Results:
    """Every table the checks read, and the tuning settings that were configured."""

    coverage: pd.DataFrame
    table3: pd.DataFrame
    endpoints: pd.DataFrame
    elo: pd.DataFrame
    ranks: pd.DataFrame
    winrate: pd.DataFrame
    frontier: pd.DataFrame
    table4: pd.DataFrame
    table5: pd.DataFrame
    table5_summary: pd.DataFrame
    table6: pd.DataFrame
    pairs: pd.DataFrame
    table7: pd.DataFrame
    budgets: Sequence[int]
    reorderings: int


@dataclass(frozen=True)
class Check:
    """A named value and the gate that says why it cannot be judged here ('' when it can)."""

    id: str
    description: str
    value: Callable[[Results], object]
    gate: Callable[[Results], str]


class NotJudged(Exception):
    """Raised by a value function when this run lacks what the check reads."""


def _always(_: Results) -> str:
    return ""


def _shape(results: Results, cohort: str) -> tuple[int, int]:
    rows = results.table3[results.table3["cohort"] == cohort]
    return (int(rows["datasets"].max()), int(rows["methods"].max())) if len(rows) else (0, 0)


def _paper(*methods: str, cohort: str = "V1") -> Callable[[Results], str]:
    """Gate of a paper ordering: the records hold the paper's universe (V1 = 51 datasets x 21 methods) and
    the cohort holds the deciding methods."""

    def gate(results: Results) -> str:
        reasons = []
        datasets, count = _shape(results, "V1")
        if (datasets, count) != PAPER_COHORTS["V1"]:
            reasons.append(f"needs the paper's 51 datasets x 21 methods (this run: {datasets} x {count})")
        present = set(results.elo.loc[results.elo["cohort"] == cohort, "method"])
        absent = [m for m in methods if m not in present]
        if absent:
            reasons.append(f"{', '.join(absent)} absent from {cohort}")
        return "; ".join(reasons)

    return gate


def _needs(frame_name: str, what: str) -> Callable[[Results], str]:
    def gate(results: Results) -> str:
        return "" if len(getattr(results, frame_name)) else f"no {what} in this run (no records or cohort too small)"

    return gate


def _row(frame: pd.DataFrame, **where: object) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for key, value in where.items():
        mask &= frame[key].astype(str) == str(value)
    if mask.sum() != 1:
        raise NotJudged(f"{mask.sum()} rows match {where}")
    return frame[mask].iloc[0]


def _elo_leader(cohort: str, split: str) -> Callable[[Results], object]:
    return lambda r: _row(r.elo, cohort=cohort, split=split, position=1)["method"]


def _elo_position(method: str, cohort: str, split: str) -> Callable[[Results], object]:
    return lambda r: int(_row(r.elo, cohort=cohort, split=split, method=method)["position"])


def _binary_leads(method: str) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        ranks = results.ranks[
            (results.ranks["task"] == "binary")
            & results.ranks["metric"].isin(["accuracy", "auroc", "bce"])
            & (results.ranks["position"] == 1)
        ]
        return int((ranks["method"] == method).sum())

    return value


def _agreement(split: str, task: str, column: str) -> Callable[[Results], object]:
    return lambda r: float(_row(r.table4, split=split, task=task)[column])


def _aggregation_leader(split: str) -> Callable[[Results], object]:
    def value(results: Results) -> str:
        rows = results.table5_summary[results.table5_summary["split"] == split]
        leaders = set(rows["leader_first"]) | set(rows["leader_second"])
        if not leaders:
            raise NotJudged(f"no Table 5 rows for {split}")
        return leaders.pop() if len(leaders) == 1 else "disagree: " + " ".join(sorted(leaders))

    return value


def _spearman(extreme: str) -> Callable[[Results], object]:
    def value(results: Results) -> float:
        values = results.table5_summary["spearman"].dropna()
        if values.empty:
            raise NotJudged("no Spearman correlation between summaries")
        return float(values.min() if extreme == "min" else values.max())

    return value


def _largest_shift(split: str) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        rows = results.table5[results.table5["split"] == split]
        if rows.empty:
            raise NotJudged(f"no Table 5 rows for {split}")
        return int(rows["largest_shift"].max())

    return value


def _top_changed(results: Results) -> bool:
    if results.table5_summary.empty:
        raise NotJudged("no Table 5 summary")
    return bool(results.table5_summary["top_changed"].astype(str).eq("True").any())


def _significance(method: str, split: str, column: str) -> Callable[[Results], object]:
    return lambda r: int(_row(r.table6, split=split, method=method)[column])


def _max_wins(results: Results) -> int:
    if results.table6.empty:
        raise NotJudged("no Table 6")
    return int(results.table6["wins"].max())


def _beaten(method: str, split: str) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        rows = results.winrate[(results.winrate["split"] == split) & (results.winrate["method"] == method)]
        if rows.empty:
            raise NotJudged(f"{method} has no win rates at {split}")
        return int((rows["win_rate"] > 0.5).sum())

    return value


def _tuning(method: str, split: str, column: str) -> Callable[[Results], object]:
    def value(results: Results) -> object:
        cell = _row(results.table7, split=split, method=method)[column]
        if pd.isna(cell):
            raise NotJudged(f"{column} is not defined on this run's budgets")
        return float(cell)

    return value


def _tuning_extreme(column: str, split: str | None = None) -> Callable[[Results], object]:
    def value(results: Results) -> float:
        rows = results.table7 if split is None else results.table7[results.table7["split"] == split]
        values = rows[column].dropna()
        if values.empty:
            raise NotJudged(f"no {column} on this run's budgets (needs a budget of 50 for gain_after_50)")
        return float(values.max())

    return value


def _lowest_mi(cohort: str, split: str) -> Callable[[Results], object]:
    def value(results: Results) -> str:
        rows = results.frontier[
            (results.frontier["cohort"] == cohort)
            & (results.frontier["split"] == split)
            & (results.frontier["cost"] == "time")
        ]
        if rows.empty:
            raise NotJudged(f"no frontier for {cohort} {split}")
        return str(rows.sort_values(["mi", "entry"]).iloc[0]["entry"])

    return value


def _on_frontier(entry: str, cohort: str, split: str, cost: str) -> Callable[[Results], object]:
    return lambda r: str(_row(r.frontier, cohort=cohort, split=split, cost=cost, entry=entry)["on_frontier"]) == "True"


def _low_memory_anchor(split: str) -> Callable[[Results], object]:
    def value(results: Results) -> str:
        rows = results.frontier[
            (results.frontier["cohort"] == "V1")
            & (results.frontier["split"] == split)
            & (results.frontier["cost"] == "memory")
            & (results.frontier["on_frontier"].astype(str) == "True")
        ]
        if rows.empty:
            raise NotJudged(f"no memory frontier at {split}")
        return str(rows.sort_values(["overhead", "entry"]).iloc[0]["entry"])

    return value


def _log2_overhead(entry: str, split: str) -> Callable[[Results], object]:
    return lambda r: float(_row(r.frontier, cohort="V1", split=split, cost="memory", entry=entry)["log2_overhead"])


def _cohort_value(cohort: str, column: str) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        rows = results.table3[results.table3["cohort"] == cohort]
        if rows.empty:
            raise NotJudged(f"no {cohort} in this run")
        return int(rows[column].max())

    return value


def _v1_cell_deficit(results: Results) -> int:
    rows = results.table3[results.table3["cohort"] == "V1"]
    return int((rows["datasets"] * rows["methods"] - rows["cells"]).sum())


def _excluded_count(cohort: str, column: str) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        rows = results.table3[results.table3["cohort"] == cohort]
        return int(sum(len(str(v).split()) for v in rows[column].fillna("")))

    return value


def _sum(cohort: str, column: str, minus: str | None = None) -> Callable[[Results], object]:
    def value(results: Results) -> int:
        rows = results.table3[results.table3["cohort"] == cohort]
        return int((rows[column] - (rows[minus] if minus else 0)).sum())

    return value


def _pair_formula(results: Results) -> int:
    total = 0
    for split, rows in results.table6.groupby("split"):
        n = len(rows)
        total += abs(int((results.pairs["split"] == split).sum()) - n * (n - 1) // 2)
    return total


def _pairs_per_split(results: Results) -> int:
    if results.pairs.empty:
        raise NotJudged("no pairwise tests")
    return int(results.pairs.groupby("split").size().max())


def _tuned_above_default(results: Results) -> int:
    ends = results.endpoints[results.endpoints["status"] == "ok"]
    keys = ["method", "dataset", "split", "partition"]
    tuned = ends[ends["kind"] == "tuned"].set_index(keys)["val_loss"]
    default = ends[ends["kind"] == "default"].set_index(keys)["val_loss"].reindex(tuned.index)
    return int((tuned > default).sum())


def _optimism_gap(results: Results) -> float:
    table = results.table7
    splits = sorted(set(table["split"]), key=train_share)
    if len(splits) < 2:
        raise NotJudged("needs Table 7 rows for two splits")
    low, high = splits[0], splits[-1]
    return float(
        table.loc[table["split"] == low, "optimism_full"].mean()
        - table.loc[table["split"] == high, "optimism_full"].mean()
    )


def _holm_excess(results: Results) -> int:
    if results.table6.empty:
        raise NotJudged("no Table 6")
    table = results.table6
    return int(
        max((table["wins"] - table["wins_uncorrected"]).max(), (table["losses"] - table["losses_uncorrected"]).max())
    )


def _budgets(results: Results) -> str:
    return " ".join(str(int(k)) for k in results.budgets)


def checks() -> list[Check]:
    """Every check, structural first, then qualitative, then the paper's orderings and numbers."""
    structural = [
        Check(
            "v1_cell_deficit",
            "V1 has every method on every dataset (cells missing)",
            _v1_cell_deficit,
            _needs("table3", "cohorts"),
        ),
        Check(
            "v1_excluded_datasets",
            "V1 keeps every dataset with records",
            _excluded_count("V1", "excluded_datasets"),
            _needs("table3", "cohorts"),
        ),
        Check("v2_imputed_records", "V2 imputes nothing", _sum("V2", "imputed_records"), _needs("table3", "cohorts")),
        Check(
            "v3_imputed_beyond_overlap",
            "V3 imputes only the pretraining-overlap cells",
            _sum("V3", "imputed_cells", "overlap_cells"),
            _needs("table3", "cohorts"),
        ),
        Check(
            "pairs_formula",
            "every split tests C(n, 2) pairs of its n methods",
            _pair_formula,
            _needs("table6", "Wilcoxon table"),
        ),
        Check("pairs_per_split", "pairwise tests per split", _pairs_per_split, _paper(cohort="V2")),
        Check(
            "tuning_budgets", "tuning-analysis budgets configured (each run caps them at its trials)", _budgets, _always
        ),
        Check("tuning_reorderings", "reorderings of the stored trials", lambda r: int(r.reorderings), _always),
        Check("v2_datasets", "V2 complete-case datasets", _cohort_value("V2", "datasets"), _paper()),
        Check("v3_methods", "V3 near-complete methods", _cohort_value("V3", "methods"), _paper()),
        Check(
            "v3_overlap_cells",
            "V3 imputed cells (GraphAny and GVT on ogbn-arxiv)",
            _cohort_value("V3", "imputed_cells"),
            _paper("GraphAny", "GVT", cohort="V3"),
        ),
    ]
    qualitative = [
        Check(
            "tuned_val_loss_above_default",
            "searches whose tuned validation loss exceeds the default's",
            _tuned_above_default,
            _needs("endpoints", "endpoints"),
        ),
        Check(
            "optimism_gap",
            "selection optimism at the full budget, fewest labels minus most labels (pp)",
            _optimism_gap,
            _needs("table7", "Table 7"),
        ),
        Check(
            "aggregation_spearman_min",
            "smallest Spearman between mean rank, Elo and MI (V2)",
            _spearman("min"),
            _needs("table5_summary", "Table 5"),
        ),
        Check(
            "holm_excess",
            "Holm-corrected wins or losses beyond the uncorrected counts",
            _holm_excess,
            _needs("table6", "Table 6"),
        ),
    ]
    paper = [
        Check(
            f"elo_leader_{cohort}_{split}",
            f"Figure 10: Elo leader, {cohort}, {split}",
            _elo_leader(cohort, split),
            _paper(leader, cohort=cohort),
        )
        for cohort, split, leader in [
            ("V1", LOW, "GCNII"),
            ("V2", LOW, "GCNII"),
            ("V3", LOW, "GPRGNN"),
            ("V1", HIGH, "GCNII"),
            ("V2", HIGH, "GraphPFN"),
            ("V3", HIGH, "GPRGNN"),
        ]
    ]
    paper += [
        Check(
            "elo_position_GraphPFN_V1_50-25-25",
            "Figure 10: GraphPFN's Elo place, V1, 50/25/25",
            _elo_position("GraphPFN", "V1", HIGH),
            _paper("GraphPFN"),
        ),
        Check(
            "graphpfn_binary_leads",
            "Figures 11-14: cohort x split x {accuracy, AUROC, BCE} binary rankings led by GraphPFN (of 18)",
            _binary_leads("GraphPFN"),
            _paper("GraphPFN"),
        ),
    ]
    paper += [
        Check(
            f"{name}_{split}",
            f"Table 4: {label}, {split}",
            _agreement(split, task, column),
            _paper(cohort=TABLE_COHORT),
        )
        for split in PAPER_SPLITS
        for name, task, column, label in [
            ("spearman_accuracy_macro_f1", "multiclass", "spearman", "Spearman accuracy vs Macro-F1"),
            ("kendall_auroc_precision", "binary", "kendall", "Kendall AUROC vs positive-class precision"),
        ]
    ]
    paper += [
        Check(
            f"aggregation_leader_{LOW}",
            "Table 5: leader under mean rank, Elo and MI, 10/10/80",
            _aggregation_leader(LOW),
            _paper("GCNII", cohort=TABLE_COHORT),
        ),
        Check(
            f"aggregation_leader_{HIGH}",
            "Table 5: leader under mean rank, Elo and MI, 50/25/25",
            _aggregation_leader(HIGH),
            _paper("GraphPFN", cohort=TABLE_COHORT),
        ),
        Check(
            "paper_aggregation_spearman_min",
            "Table 5: smallest pairwise Spearman",
            _spearman("min"),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            "paper_aggregation_spearman_max",
            "Table 5: largest pairwise Spearman",
            _spearman("max"),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            f"largest_shift_{LOW}",
            "Table 5: largest place shift, 10/10/80",
            _largest_shift(LOW),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            f"largest_shift_{HIGH}",
            "Table 5: largest place shift, 50/25/25",
            _largest_shift(HIGH),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            "top4_changes",
            "Table 5: the top-four set changes between summaries",
            _top_changed,
            _paper(cohort=TABLE_COHORT),
        ),
    ]
    paper += [
        Check(
            f"{column}_{method}_{split}",
            f"Table 6: {method} significant {column}, {split}",
            _significance(method, split, column),
            _paper(method, cohort=TABLE_COHORT),
        )
        for method, split, column in [
            ("GCNII", LOW, "wins"),
            ("GCNII", LOW, "losses"),
            ("GraphPFN", LOW, "wins"),
            ("GraphPFN", HIGH, "wins"),
            ("GraphPFN", HIGH, "losses"),
            ("GCNII", HIGH, "wins"),
            ("FAGCN", HIGH, "wins"),
            ("GPRGNN", HIGH, "wins"),
        ]
    ]
    paper += [
        Check(
            "max_significant_wins",
            "Table 6: most significant wins of any method",
            _max_wins,
            _paper(cohort=TABLE_COHORT),
        )
    ]
    paper += [
        Check(
            f"beaten_{method}_{split}",
            f"Figure 17: opponents {method} beats on over half the datasets, {split}",
            _beaten(method, split),
            _paper(method),
        )
        for method, split in [("GPRGNN", LOW), ("GraphPFN", HIGH), ("GCNII", LOW), ("GCNII", HIGH)]
    ]
    paper += [
        Check(
            f"{column}_{method}_{split}",
            f"Table 7: {method} {column}, {split}",
            _tuning(method, split, column),
            _paper(method, cohort=TABLE_COHORT),
        )
        for method, split, column in [
            ("SGC", LOW, "gain"),
            ("Polynormer", LOW, "gain"),
            ("GCN", LOW, "k_star"),
            ("GPRGNN", LOW, "k_star"),
            ("Polynormer", LOW, "k_star"),
            ("GCN", LOW, "cost_k_star"),
            ("GAT", HIGH, "gain"),
            ("GATv2", HIGH, "gain"),
            ("GAT", HIGH, "k_star"),
            ("GATv2", HIGH, "k_star"),
            ("MLP", HIGH, "gain"),
            ("MLP", HIGH, "k_star"),
        ]
    ]
    paper += [
        Check(
            "gain_after_50_max",
            "Figure 18: largest gain from 50 to 201 configurations (pp)",
            _tuning_extreme("gain_after_50"),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            f"optimism_max_{LOW}",
            "Figure 18: largest selection optimism, 10/10/80 (pp)",
            _tuning_extreme("optimism_max", LOW),
            _paper(cohort=TABLE_COHORT),
        ),
        Check(
            f"optimism_max_{HIGH}",
            "Figure 18: largest selection optimism, 50/25/25 (pp)",
            _tuning_extreme("optimism_max", HIGH),
            _paper(cohort=TABLE_COHORT),
        ),
    ]
    paper += [
        Check(
            f"lowest_mi_{cohort}_{HIGH}",
            f"Figures 8/15: lowest MI, {cohort}, 50/25/25",
            _lowest_mi(cohort, HIGH),
            _paper("GraphPFN", cohort=cohort),
        )
        for cohort in PAPER_COHORTS
    ]
    paper += [
        Check(
            "graphany_time_frontier_V2_10-10-80",
            "Figure 15: GraphAny on the V2 10/10/80 time frontier",
            _on_frontier("GraphAny", "V2", LOW, "time"),
            _paper("GraphAny", cohort="V2"),
        ),
        Check(
            f"graphpfn_memory_frontier_{LOW}",
            "Figure 16: GraphPFN on the V1 memory frontier, 10/10/80",
            _on_frontier("GraphPFN", "V1", LOW, "memory"),
            _paper("GraphPFN"),
        ),
        Check(
            f"graphpfn_memory_frontier_{HIGH}",
            "Figure 16: GraphPFN on the V1 memory frontier, 50/25/25",
            _on_frontier("GraphPFN", "V1", HIGH, "memory"),
            _paper("GraphPFN"),
        ),
        Check(
            f"graphpfn_log2_memory_{HIGH}",
            "Figure 16: GraphPFN's log2 memory overhead, V1, 50/25/25",
            _log2_overhead("GraphPFN", HIGH),
            _paper("GraphPFN"),
        ),
    ]
    paper += [
        Check(
            f"low_memory_anchor_{split}",
            f"Figure 16: lowest-memory frontier point, V1, {split}",
            _low_memory_anchor(split),
            _paper("GraphAny"),
        )
        for split in PAPER_SPLITS
    ]
    return structural + qualitative + paper


def evaluate_checks(results: Results, selected: Sequence[Check] | None = None) -> pd.DataFrame:
    """One row per check: its value, or the reason it cannot be judged here."""
    rows = []
    no_records = "" if len(results.coverage) else "no run-level records in this run (part 1's searches write them)"
    for check in checks() if selected is None else selected:
        reason = "" if check.gate is _always else no_records or check.gate(results)
        value: object = ""
        if not reason:
            try:
                value = check.value(results)
            except NotJudged as err:
                reason = str(err)
        if isinstance(value, (bool, np.bool_)):
            value = str(bool(value))
        rows.append(
            {"check": check.id, "value": "" if reason else value, "not_run": reason, "description": check.description}
        )
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def load_results(tables: Mapping[str, pd.DataFrame], budgets: Sequence[int], reorderings: int) -> Results:
    """The Results of a run from its named tables (the keys of :class:`Results`)."""
    return Results(
        **{name: tables[name] for name in Results.__dataclass_fields__ if name in tables},
        budgets=budgets,
        reorderings=reorderings,
    )

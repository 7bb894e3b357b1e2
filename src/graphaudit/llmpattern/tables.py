"""The llmpattern tables, one rule entry each: Tables 2-8, 18 and 19 (one task's cells for every responder in
both scoring modes) from the per-responder score tables of the task's set, Table 20 (responders ranked) and
the headline summary from all of them, Table 12 and the occurrence statistics from the generated item sets,
and the paper's own arithmetic (``paper_consistency``) from its transcribed values."""

from __future__ import annotations

import logging

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.cache import NON_ANSWER_COLUMNS
from graphaudit.llmpattern.datasets import dataset_statistics, occurrence_statistics, read_items
from graphaudit.llmpattern.molecules import MOLECULE_SETS
from graphaudit.llmpattern.paper_checks import CHECK_COLUMNS, consistency_checks, load_paper_values
from graphaudit.llmpattern.realworld import REALWORLD, realworld_statistics, turn_count
from graphaudit.llmpattern.scorers import GROUP_KEYS
from graphaudit.report.tables import write_table

__all__ = [
    "ALL_VARIANTS",
    "LABEL_COLUMNS",
    "REPO_CAPS",
    "TABLES",
    "TABLE_COLUMNS",
    "occurrences",
    "paper_consistency",
    "read_scores",
    "real_task_frame",
    "summary",
    "summary_frame",
    "table2",
    "table3",
    "table4",
    "table5",
    "table6",
    "table7",
    "table8",
    "table9",
    "table10",
    "table12",
    "table13",
    "table13_frame",
    "table17",
    "table17_frame",
    "table18",
    "table19",
    "table20",
    "table20_frame",
    "task_frame",
]

log = logging.getLogger(__name__)

TABLES = {
    "table2": ("T1", "translation"),
    "table3": ("T2", "modification"),
    "table4": ("T4", "isomorphism"),
    "table5": ("T5", "modification"),
    "table6": ("T7", "kcore"),
    "table7": ("T8", "frequent"),
    "table8": ("T9", "discriminative"),
    "table18": ("T3", "detection"),
    "table19": ("T6", "detection"),
}
"""Paper table -> (task code, the item set whose answers it shows); T3 / T6 are Tables 18 / 19."""
TABLE_COLUMNS = [*GROUP_KEYS, "metric", "value", "n", "n_unparsed", "n_repo_error", *NON_ANSWER_COLUMNS, "note"]
"""A cell's columns; ``n_repo_error`` counts the answers the authors' code raises on (left out of the value), and
``n_truncated``, ``n_content_filter``, ``n_refusal`` and ``n_error`` its responses that were no answer (scored as
empty ones)."""
LABEL_COLUMNS = [c for c in TABLE_COLUMNS if c not in ("value", "n", "n_unparsed", "n_repo_error", *NON_ANSWER_COLUMNS)]
"""The columns that name a cell: read as text, so an empty one (``stage`` outside T9) stays text whichever score
tables a table reads."""
# Why the exact answer scores below 1 under the authors' scoring (spec 4.9, pitfalls 4 and 6).
REPO_CAPS = {
    "T3": "the repository's 5-tuple regex needs ',,' before the fifth number, so house answers are unreadable "
    "and only graphs without a house score",
    "T6": "the repository's 5-tuple regex needs ',,' before the fifth number, so house answers are unreadable "
    "and only graphs without a house score",
    "T7": "an empty answer scores 0 even when the 3-core is empty, so the ceiling is the share of graphs with a "
    "non-empty 3-core",
}


def read_scores(paths: list[str]) -> pd.DataFrame:
    """The per-responder score tables (``results/llmpattern/scores/<responder>/<set>.csv``), one after another,
    with the :data:`LABEL_COLUMNS` as text."""
    frames = [pd.read_csv(path, dtype=dict.fromkeys(LABEL_COLUMNS, str)) for path in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=TABLE_COLUMNS)


# ---- Tables 2-8, 18, 19: one task each ------------------------------------------------------------------
def _task_table(ctx: RuleContext, name: str) -> None:
    task, _ = TABLES[name]
    write_table(task_frame(read_scores(ctx.input_list("scores")), task), ctx.output["table"], title=f"{name}: {task}")


def table2(ctx: RuleContext) -> None:
    """Table 2 (T1, pattern translation) from the translation set's score tables (``input.scores``)."""
    _task_table(ctx, "table2")


def table3(ctx: RuleContext) -> None:
    """Table 3 (T2, graph modification by terminology) from the modification set's score tables."""
    _task_table(ctx, "table3")


def table4(ctx: RuleContext) -> None:
    """Table 4 (T4, isomorphic mapping) from the isomorphism set's score tables."""
    _task_table(ctx, "table4")


def table5(ctx: RuleContext) -> None:
    """Table 5 (T5, graph modification by topology) from the modification set's score tables."""
    _task_table(ctx, "table5")


def table6(ctx: RuleContext) -> None:
    """Table 6 (T7, k-core detection) from the k-core set's score tables."""
    _task_table(ctx, "table6")


def table7(ctx: RuleContext) -> None:
    """Table 7 (T8, frequent subgraph extraction) from the frequent set's score tables."""
    _task_table(ctx, "table7")


def table8(ctx: RuleContext) -> None:
    """Table 8 (T9, discriminative patterns and BA-2motif classification) from the discriminative set's."""
    _task_table(ctx, "table8")


def table18(ctx: RuleContext) -> None:
    """Table 18 (T3, pattern detection by terminology) from the detection set's score tables."""
    _task_table(ctx, "table18")


def table19(ctx: RuleContext) -> None:
    """Table 19 (T6, pattern detection by topology) from the detection set's score tables."""
    _task_table(ctx, "table19")


def task_frame(frame: pd.DataFrame, task: str) -> pd.DataFrame:
    """One paper table's cells, the oracle's repo-mode cells below 1 annotated with the scoring cap."""
    rows = frame[frame["task"] == task].reindex(columns=TABLE_COLUMNS)
    capped = (rows["responder"] == "oracle") & (rows["mode"] == "repo") & (rows["value"] < 1)
    return rows.assign(note=rows["note"].astype(object).where(~capped, REPO_CAPS.get(task, "")))


# ---- across tasks ---------------------------------------------------------------------------------------
def table20(ctx: RuleContext) -> None:
    """Table 20: responders ranked per task by the mean headline metric of the repo mode, over the responders
    that answered every task (``input.scores``: every score table)."""
    frame = read_scores(ctx.input_list("scores"))
    write_table(table20_frame(frame), ctx.output["table"], title="Table 20: responders ranked across tasks")


def table20_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per responder (rows, best first): its competition rank on each task and the mean rank."""
    repo = frame[frame["mode"] == "repo"].dropna(subset=["value"])
    means = repo.groupby(["task", "responder"])["value"].mean().unstack("responder")
    complete = means.dropna(axis=1)
    if complete.empty:
        return pd.DataFrame(columns=["responder", "mean_rank"])
    ranks = complete.rank(axis=1, ascending=False, method="min")
    out = ranks.T
    out["mean_rank"] = out.mean(axis=1)
    return out.reset_index().sort_values("mean_rank")


def summary(ctx: RuleContext) -> None:
    """The headline metric per task, responder, variant and mode (``input.scores``: every score table)."""
    frame = read_scores(ctx.input_list("scores"))
    write_table(
        summary_frame(frame), ctx.output["table"], title="Headline metric per task, responder, variant and mode"
    )


ALL_VARIANTS = "all"
"""The ``variant`` of the summary rows that pool every variant of a task (a claim on a whole task reads one)."""
_COUNT_COLUMNS = ("n_repo_error", *NON_ANSWER_COLUMNS)


def summary_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, minimum and maximum of the headline metric over a task's cells (patterns, scales, formats,
    descriptions, styles), per responder, variant and scoring mode, then the same over every variant
    (variant :data:`ALL_VARIANTS`); with the cell count and the cells' counts of repo errors and non-answers (0
    where a score table predates them)."""
    rows = frame.dropna(subset=["value"]).fillna({"stage": "", "variant": ""})
    return pd.concat([_summarised(rows), _summarised(rows.assign(variant=ALL_VARIANTS))], ignore_index=True)


def _summarised(rows: pd.DataFrame) -> pd.DataFrame:
    keys = ["task", "stage", "variant", "responder", "mode", "metric"]
    out = rows.groupby(keys)["value"].agg(["mean", "min", "max", "count"]).reset_index()
    counts = rows.reindex(columns=[*keys, *_COUNT_COLUMNS]).fillna(dict.fromkeys(_COUNT_COLUMNS, 0))
    totals = counts.groupby(keys)[list(_COUNT_COLUMNS)].sum().astype(int).reset_index()
    return out.rename(columns={"count": "cells"}).merge(totals, on=keys)


# ---- the generated data ---------------------------------------------------------------------------------
def table12(ctx: RuleContext) -> None:
    """Table 12: statistics of every generated item set (``input.itemsets``)."""
    items = [item for path in ctx.input_list("itemsets") for item in read_items(path)]
    write_table(
        pd.DataFrame(dataset_statistics(items)),
        ctx.output["table"],
        title="Table 12: statistics of the generated data sets",
    )


def occurrences(ctx: RuleContext) -> None:
    """Induced occurrences per detection graph (spec 7.2) from the detection set (``input.detection``)."""
    write_table(
        pd.DataFrame(occurrence_statistics(read_items(ctx.input["detection"]))),
        ctx.output["table"],
        title="Induced occurrences per detection graph (spec 7.2)",
    )


# ---- the paper's own numbers ----------------------------------------------------------------------------
def paper_consistency(ctx: RuleContext) -> None:
    """The paper's internal arithmetic (spec §7.3) from its transcribed values (``input.values``)."""
    results = pd.DataFrame(consistency_checks(load_paper_values(ctx.input["values"])), columns=list(CHECK_COLUMNS))
    write_table(results, ctx.output["table"], title="llmpattern: the paper's internal arithmetic (spec §7.3)")
    log.info("%d paper-consistency checks, %d do not hold", len(results), int((~results["holds"]).sum()))


# ---- real-world tasks (T10, T11): Tables 9, 10, 13, 17 ---------------------------------------------------
REAL_COLUMNS = [*TABLE_COLUMNS, "not_run"]
"""Tables 9 and 10: the task tables' columns plus ``not_run``, the reason a data set's cells are NOT RUN."""


def _dataset_name(variant: str) -> str:
    """Registry name of an item variant (T10 variants are the repository's snake-case group names)."""
    return {v: name for name, (v, _) in MOLECULE_SETS.items()}.get(variant, variant)


def _not_run_rows(reasons: dict[str, str], task: str, metric: str) -> pd.DataFrame:
    rows = [{"task": task, "variant": name, "metric": metric, "not_run": reason} for name, reason in reasons.items()]
    return pd.DataFrame(rows, columns=REAL_COLUMNS)


def real_task_frame(frame: pd.DataFrame, task: str, reasons: dict[str, str], metric: str) -> pd.DataFrame:
    """A real-world task's cells (variants as registry names) followed by one NOT RUN row per missing data set."""
    cells = task_frame(frame, task).reindex(columns=REAL_COLUMNS)
    cells["variant"] = cells["variant"].map(_dataset_name)
    return pd.concat([cells, _not_run_rows(reasons, task, metric)], ignore_index=True)


def table9(ctx: RuleContext) -> None:
    """Table 9 (T10, functional groups in molecules, F1) from the molecule set's score tables; ``params.not_run``:
    the SMILES sets this run could not read, with why."""
    frame = real_task_frame(read_scores(ctx.input_list("scores")), "T10", ctx.params["not_run"], "f1")
    write_table(frame, ctx.output["table"], title="table9: T10")


def table10(ctx: RuleContext) -> None:
    """Table 10 (T11, extraction and classification accuracy) from the real-world set's score tables;
    ``params.not_run``: the data sets this run could not read, with why."""
    frame = real_task_frame(read_scores(ctx.input_list("scores")), "T11", ctx.params["not_run"], "accuracy")
    write_table(frame, ctx.output["table"], title="table10: T11")


_TABLE13_METRICS = ("num", "avg_node", "avg_edge", "avg_density")


def table13_frame(rows: list[dict], paper: pd.DataFrame, reasons: dict[str, str]) -> pd.DataFrame:
    """Table 13: the reproduced statistics beside the paper's (``paper_<metric>``), and a NOT RUN row per
    missing data set and progress the paper prints."""
    printed = paper[paper["table"] == "table13"]
    quoted = {
        (item, metric): value for item, metric, value in zip(printed["item"], printed["metric"], printed["value"])
    }
    frame = pd.DataFrame(rows, columns=["dataset", "progress", *_TABLE13_METRICS])
    frame["dataset"] = frame["dataset"].map(_dataset_name)
    missing = [
        {"dataset": item.split(":")[0], "progress": item.split(":")[1], "not_run": reasons[item.split(":")[0]]}
        for item in dict.fromkeys(printed["item"])
        if item.split(":")[0] in reasons
    ]
    frame = pd.concat([frame, pd.DataFrame(missing)], ignore_index=True).reindex(
        columns=["dataset", "progress", *_TABLE13_METRICS, "not_run"]
    )
    for metric in _TABLE13_METRICS:
        keys = frame["dataset"] + ":" + frame["progress"]
        frame[f"paper_{metric}"] = [quoted.get((key, metric)) for key in keys]
    return frame


def table13(ctx: RuleContext) -> None:
    """Table 13 (statistics of the real-world sets) from the molecule and real-world item sets
    (``input.itemsets``), the paper's values (``input.values``) and ``params.not_run``."""
    items = [item for path in ctx.input_list("itemsets") for item in read_items(path)]
    frame = table13_frame(realworld_statistics(items), load_paper_values(ctx.input["values"]), ctx.params["not_run"])
    write_table(frame, ctx.output["table"], title="Table 13: statistics of the real-world data sets")


def table17_frame(items: list[dict], paper: pd.DataFrame, reasons: dict[str, str], epochs: int) -> pd.DataFrame:
    """Table 17 per data set: # Sampling, # Turns that ``epochs`` epochs over the discrimination pool take, the
    turns generated at this scale, and the paper's two numbers; NOT RUN rows for missing data sets."""
    pools: dict[str, dict[int, int]] = {}
    generated: dict[str, int] = {}
    for item in items:
        if item["task"] == "realworld_pool":
            per_class = pools.setdefault(item["variant"], {})
            per_class[item["truth"]["label"]] = per_class.get(item["truth"]["label"], 0) + 1
        elif item["task"] == "realworld_turn":
            generated[item["variant"]] = generated.get(item["variant"], 0) + 1
    printed = paper[paper["table"] == "table17"]
    quoted = {
        (item, metric): value for item, metric, value in zip(printed["item"], printed["metric"], printed["value"])
    }
    rows = []
    for name in dict.fromkeys(printed["item"]):
        sampling = REALWORLD[name].sampling
        row = {"dataset": name, "sampling": sampling, "paper_sampling": quoted.get((name, "sampling"))}
        if name in pools:
            sizes = list(pools[name].values())
            row |= {"turns": turn_count(sizes, sampling, epochs), "turns_generated": generated.get(name, 0)}
        row |= {"paper_turns": quoted.get((name, "turns")), "not_run": reasons.get(name, "")}
        rows.append(row)
    columns = ["dataset", "sampling", "paper_sampling", "turns", "turns_generated", "paper_turns", "not_run"]
    return pd.DataFrame(rows).reindex(columns=columns)


def table17(ctx: RuleContext) -> None:
    """Table 17 (real-world hyperparameters) from the real-world item set (``input.itemset``), the paper's values
    (``input.values``), ``params.not_run`` and ``params.epochs``."""
    frame = table17_frame(
        read_items(ctx.input["itemset"]),
        load_paper_values(ctx.input["values"]),
        ctx.params["not_run"],
        ctx.params["epochs"],
    )
    write_table(frame, ctx.output["table"], title="Table 17: hyperparameters of the real-world tasks")

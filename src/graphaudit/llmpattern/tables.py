"""The llmpattern tables, one rule entry each: Tables 2-8, 18 and 19 (one task's cells for every responder in
both scoring modes) from the per-responder score tables of the task's set, Table 20 (responders ranked) and
the headline summary from all of them, Table 23 (degrees of the modified nodes) from the modification answers'
score records, Tables 24 and 25 from the detection score tables, Table 12 and the occurrence statistics from
the generated item sets, and the paper's own arithmetic (``paper_consistency``) from its transcribed values.

Every table the paper prints (2-10, 18-20, 23-25) carries a ``paper`` column: the paper's number for the row's
cell, found by :func:`with_paper` through the column map of ``config/llmpattern/paper_values.yaml``; empty
where the responder is no paper model (oracle, baselines) or the paper has no such cell."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.cache import NON_ANSWER_COLUMNS
from graphaudit.llmpattern.datasets import Item, dataset_statistics, occurrence_statistics, read_items
from graphaudit.llmpattern.molecules import MOLECULE_SETS
from graphaudit.llmpattern.paper_checks import (
    CHECK_COLUMNS,
    PaperValuesError,
    competition_ranks,
    consistency_checks,
    load_column_map,
    load_paper_values,
)
from graphaudit.llmpattern.realworld import REALWORLD, realworld_statistics, turn_count
from graphaudit.llmpattern.scorers import GROUP_KEYS
from graphaudit.report.tables import write_table

__all__ = [
    "ALL_VARIANTS",
    "LABEL_COLUMNS",
    "RANKED",
    "REPO_CAPS",
    "TABLES",
    "TABLE_COLUMNS",
    "occurrences",
    "paper_consistency",
    "read_score_records",
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
    "table23",
    "table23_frame",
    "table24",
    "table24_frame",
    "table25",
    "table25_frame",
    "task_frame",
    "with_paper",
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


# ---- the paper's number beside each reproduced cell ----------------------------------------------------
def _label(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _printed_cells(values: pd.DataFrame, table: str, fields: Sequence[str]) -> dict[tuple[str, ...], float]:
    """The paper's cells of ``table`` by their ``fields``; two cells with one key mean the map is too coarse."""
    cells: dict[tuple[str, ...], float] = {}
    for _, row in values[values["table"] == table].iterrows():
        key = tuple(row[field] for field in fields)
        if key in cells:
            raise PaperValuesError(f"the column map of {table} matches two printed cells with {dict(zip(fields, key))}")
        cells[key] = row["value"]
    return cells


def _row_key(row: pd.Series, spec: dict[str, Any], responders: dict[str, str]) -> tuple[str, ...] | None:
    """A reproduced row's key in the paper's labels, or None where the paper has no such cell (a responder that
    is no paper model, a setting the paper did not run)."""
    if any(_label(row.get(column)) != wanted for column, wanted in spec.get("only", {}).items()):
        return None
    key = []
    for column in spec["fields"]:
        label = _label(row.get(column))
        if column == "responder" and label:
            label = responders.get(label)
            if label is None:
                return None
        key.append(spec.get("labels", {}).get(column, {}).get(label, label))
    return tuple(key)


def with_paper(frame: pd.DataFrame, values: pd.DataFrame, columns: dict[str, Any], table: str) -> pd.DataFrame:
    """``frame`` with a ``paper`` column (after ``value``): the paper's number for each row's cell of ``table``,
    matched on the columns the column map (:func:`load_column_map`) names; empty where there is none."""
    spec = columns["tables"][table]
    cells = _printed_cells(values, table, list(spec["fields"].values()))
    keys = [_row_key(row, spec, columns["responders"]) for _, row in frame.iterrows()]
    out = frame.drop(columns="paper", errors="ignore").copy()
    at = list(out.columns).index("value") + 1 if "value" in out.columns else len(out.columns)
    out.insert(at, "paper", [cells.get(key, math.nan) if key is not None else math.nan for key in keys])
    return out


def _paper_inputs(ctx: RuleContext) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The paper's values and column map (``input.values``)."""
    return load_paper_values(ctx.input["values"]), load_column_map(ctx.input["values"])


# ---- Tables 2-8, 18, 19: one task each ------------------------------------------------------------------
def _task_table(ctx: RuleContext, name: str) -> None:
    task, _ = TABLES[name]
    frame = with_paper(task_frame(read_scores(ctx.input_list("scores")), task), *_paper_inputs(ctx), name)
    write_table(frame, ctx.output["table"], title=f"{name}: {task}")


def table2(ctx: RuleContext) -> None:
    """Table 2 (T1, pattern translation) from the translation set's score tables (``input.scores``); each task
    table also reads the paper's values (``input.values``)."""
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
RANKED: dict[str, tuple[str, str, dict[str, str]]] = {
    "T1": ("pattern_translation", "term", {}),
    "T2": ("graph_modification", "term", {}),
    "T3": ("pattern_detection", "term", {"style": "zero_shot"}),
    "T4": ("isomorphic_mapping", "topo", {"variant": "faithful"}),
    "T5": ("graph_modification", "topo", {}),
    "T6": ("pattern_detection", "topo", {"style": "zero_shot"}),
    "T7": ("k_core", "data", {}),
    "T8": ("frequent_subgraph", "data", {}),
    "T9": ("discriminative_pattern", "data", {"stage": "classification"}),
}
"""Table 20's columns: task code -> (the paper's task, description) and the cells the paper's setting covers
(zero-shot detection, the faithful isomorphic pairs, BA-2motif classification ACC)."""
TABLE20_COLUMNS = ["mode", "responder", "code", "task", "description", "metric", "score", "value", "note"]
_CELL_KEYS = ["stage", "variant", "pattern", "scale", "description", "style"]  # a cell, formats aside


def table20(ctx: RuleContext) -> None:
    """Table 20: responders ranked per task (``input.scores``: every score table; ``input.values``)."""
    frame = with_paper(table20_frame(read_scores(ctx.input_list("scores"))), *_paper_inputs(ctx), "table20")
    write_table(frame, ctx.output["table"], title="Table 20: responders ranked across tasks")


def _task_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Spec §2.12 per mode, task and responder: the best of A.L. / E.L. per cell, then the mean over the cells
    (scales and patterns)."""
    frame = frame.reindex(columns=list(dict.fromkeys([*frame.columns, *TABLE_COLUMNS])))
    parts = []
    for code, (_, _, where) in RANKED.items():
        rows = frame[frame["task"] == code].dropna(subset=["value"])
        for column, wanted in where.items():
            rows = rows[rows[column] == wanted]
        rows = rows.assign(**{key: rows[key].fillna("") for key in _CELL_KEYS})
        best = rows.groupby(["mode", "responder", *_CELL_KEYS], sort=False)["value"].max()
        parts.append(best.groupby(level=["mode", "responder"], sort=False).mean().rename(code))
    return pd.concat(parts, axis=1) if parts else pd.DataFrame()


def table20_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per mode and responder: each task's score and competition rank (rank 1 = highest, ties share the
    smaller rank, among the responders that answered the task), then the mean rank (``task`` "mean") of the
    responders ranked on every task; an incomplete responder's mean is left empty with a note."""
    scores = _task_scores(frame)
    rows = []
    for mode in dict.fromkeys(scores.index.get_level_values("mode")) if not scores.empty else ():
        table = scores.xs(mode, level="mode")
        ranks = table.apply(lambda column: competition_ranks(column.dropna()))
        for responder in table.index:
            for code, (task, description, _) in RANKED.items():
                if not math.isnan(table.at[responder, code]):
                    rows.append(
                        [
                            mode,
                            responder,
                            code,
                            task,
                            description,
                            "rank",
                            table.at[responder, code],
                            ranks.at[responder, code],
                            "",
                        ]
                    )
            ranked = ranks.loc[responder].dropna()
            complete = len(ranked) == len(RANKED)
            note = "" if complete else f"ranked on {len(ranked)} of {len(RANKED)} tasks, so no mean rank"
            rows.append(
                [mode, responder, "", "mean", "", "rank", math.nan, ranked.mean() if complete else math.nan, note]
            )
    return pd.DataFrame(rows, columns=TABLE20_COLUMNS)


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


# ---- analyses: Tables 23-25 ------------------------------------------------------------------------------
SCALE_ORDER = ("small", "medium", "large")
TABLE23_COLUMNS = ["mode", "scale", "responder", "metric", "value", "n_answers", "n_nodes"]


def read_score_records(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The per-answer score records (``results/llmpattern/scores/<responder>/<set>.jsonl``), one file after
    another."""
    return [record for path in paths for record in read_records(path)]


def table23(ctx: RuleContext) -> None:
    """Table 23 (degrees in graph modification) from the modification answers' score records
    (``input.records``), the modification item set (``input.itemset``) and the paper's values (``input.values``)."""
    frame = table23_frame(read_score_records(ctx.input_list("records")), read_items(ctx.input["itemset"]))
    write_table(with_paper(frame, *_paper_inputs(ctx), "table23"), ctx.output["table"], title="Table 23: degrees")


def _graph_degree_rows(records: Sequence[dict[str, Any]], items: Sequence[Item]) -> list[list[Any]]:
    """The "AVG. degree" column per scale: 2|E| / |V| pooled over the evaluated modification graphs (each once,
    whichever responders answered it; in + out degree on digraphs is 2|E| / |V| as well)."""
    graphs = {item["item_id"]: item["graph"] for item in items}
    evaluated = {record["item_id"]: record["scale"] for record in records}
    rows = []
    for scale in SCALE_ORDER:
        chosen = [graphs[i] for i, s in evaluated.items() if s == scale]
        if chosen:
            nodes = sum(g["num_nodes"] for g in chosen)
            rows.append(
                [
                    "",
                    scale,
                    "",
                    "graph_avg_degree",
                    2 * sum(len(g["edges"]) for g in chosen) / nodes,
                    len(chosen),
                    nodes,
                ]
            )
    return rows


def table23_frame(records: Sequence[dict[str, Any]], items: Sequence[Item]) -> pd.DataFrame:
    """Per scale the input graphs' average degree, then per mode, scale and responder the average input degree
    of the nodes each answer changed (incident to an edge of E_out Δ E_in; spec §2.14, §4.9), pooled over the
    answers' nodes (sum of degrees / number of nodes) across sets, formats and descriptions; ``n_answers``
    counts the answers that changed a node (answers the authors' code raises on are left out)."""
    rows = _graph_degree_rows(records, items)
    totals: dict[tuple[str, str, str], list[int]] = {}
    for record in records:
        if record.get("repo_error"):
            continue
        total = totals.setdefault((record["mode"], record["scale"], record["responder"]), [0, 0, 0])
        total[0] += record["changed_nodes"] > 0
        total[1] += record["changed_nodes"]
        total[2] += record["changed_degree_sum"]
    for (mode, scale, responder), (answers, nodes, degrees) in sorted(
        totals.items(), key=lambda kv: (kv[0][0], SCALE_ORDER.index(kv[0][1]))
    ):
        value = degrees / nodes if nodes else math.nan
        rows.append([mode, scale, responder, "selected_avg_degree", value, answers, nodes])
    return pd.DataFrame(rows, columns=TABLE23_COLUMNS)


TABLE24_COLUMNS = ["mode", "scale", "fmt", "responder", "pattern", "description", "metric", "value"]
_TABLE24_METRICS = ("precision", "recall", "f1")


def table24(ctx: RuleContext) -> None:
    """Table 24 (P̄, R̄ and F1 of triangle detection, terminology vs topology, and their difference) from the
    detection set's score tables (``input.scores``) and the paper's values (``input.values``)."""
    frame = with_paper(table24_frame(read_scores(ctx.input_list("scores"))), *_paper_inputs(ctx), "table24")
    write_table(frame, ctx.output["table"], title="Table 24: triangle detection, precision and recall")


def table24_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per mode, scale, format and responder (zero-shot triangle prompts): macro P̄, R̄ and F1 for the
    terminology (T3) and topology (T6) descriptions, and the ``decrease`` rows, topology − terminology (spec
    §2.15; the paper prints the large scale, the other scales come with no paper number)."""
    rows = frame[frame["task"].isin(["T3", "T6"]) & (frame["pattern"] == "triangle") & (frame["style"] == "zero_shot")]
    out = []
    for (mode, scale, fmt, responder), group in rows.groupby(["mode", "scale", "fmt", "responder"], sort=False):
        by = group.set_index("description")
        for description in ("term", "topo", "decrease"):
            if description != "decrease" and description not in by.index:
                continue
            for metric in _TABLE24_METRICS:
                if description == "decrease":
                    if not {"term", "topo"} <= set(by.index):
                        continue
                    value = by.at["topo", metric] - by.at["term", metric]
                else:
                    value = by.at[description, metric]
                out.append([mode, scale, fmt, responder, "triangle", description, metric, value])
    return pd.DataFrame(out, columns=TABLE24_COLUMNS)


TABLE25_CELLS: tuple[tuple[str, str], ...] = (("triangle", "small"), ("house", "small"), ("triangle", "medium"))
"""Table 25's three columns: (pattern, scale)."""
TABLE25_COLUMNS = ["mode", "description", "responder", "fmt", "style", "pattern", "scale", "metric", "value", "note"]
NO_COT = "no CoT prompts in this run (llmpattern.detection.styles lacks cot), so no Avg. Increase"


def table25(ctx: RuleContext) -> None:
    """Table 25 (zero-shot vs CoT detection, E.L.) from the detection set's score tables (``input.scores``) and
    the paper's values (``input.values``)."""
    frame = with_paper(table25_frame(read_scores(ctx.input_list("scores"))), *_paper_inputs(ctx), "table25")
    write_table(frame, ctx.output["table"], title="Table 25: zero-shot vs CoT detection (E.L.)")


def _avg_increase(f1: dict[tuple[str, str, str], float]) -> tuple[float, str]:
    """mean(CoT) − mean(zero-shot) over the columns both styles have (spec §2.16), with a note on what is
    missing."""
    both = [cell for cell in TABLE25_CELLS if ("cot", *cell) in f1 and ("zero_shot", *cell) in f1]
    if not any(style == "cot" for style, _, _ in f1):
        return math.nan, NO_COT
    if not both:
        return math.nan, "no column has both zero-shot and CoT answers"
    cot = sum(f1[("cot", *cell)] for cell in both) / len(both)
    zero = sum(f1[("zero_shot", *cell)] for cell in both) / len(both)
    missing = [f"{p} ({s})" for p, s in TABLE25_CELLS if (p, s) not in both]
    return (
        cot - zero,
        f"over {len(both)} of {len(TABLE25_CELLS)} columns, missing {', '.join(missing)}" if missing else "",
    )


def table25_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Per mode, description and responder: the E.L. F1 of triangle (small), house (small) and triangle
    (medium) under each prompt style, then the Avg. Increase row (``pattern`` "mean")."""
    wanted = frame["task"].isin(["T3", "T6"]) & (frame["fmt"] == "EL")
    cells = set(TABLE25_CELLS)
    rows = frame[
        wanted & pd.Series([(p, s) in cells for p, s in zip(frame["pattern"], frame["scale"])], index=frame.index)
    ]
    out = []
    for (mode, description, responder), group in rows.groupby(["mode", "description", "responder"], sort=False):
        f1 = {}
        for style in ("zero_shot", "cot"):
            for pattern, scale in TABLE25_CELLS:
                cell = group[(group["style"] == style) & (group["pattern"] == pattern) & (group["scale"] == scale)]
                if len(cell):
                    f1[(style, pattern, scale)] = float(cell["value"].iloc[0])
                    out.append(
                        [
                            mode,
                            description,
                            responder,
                            "EL",
                            style,
                            pattern,
                            scale,
                            "f1",
                            f1[(style, pattern, scale)],
                            "",
                        ]
                    )
        increase, note = _avg_increase(f1)
        out.append([mode, description, responder, "EL", "", "mean", "", "avg_increase", increase, note])
    return pd.DataFrame(out, columns=TABLE25_COLUMNS)


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
    """Table 9 (T10, functional groups in molecules, F1) from the molecule set's score tables and the paper's
    values (``input.values``); ``params.not_run``: the SMILES sets this run could not read, with why."""
    frame = real_task_frame(read_scores(ctx.input_list("scores")), "T10", ctx.params["not_run"], "f1")
    write_table(with_paper(frame, *_paper_inputs(ctx), "table9"), ctx.output["table"], title="table9: T10")


def table10(ctx: RuleContext) -> None:
    """Table 10 (T11, extraction and classification accuracy) from the real-world set's score tables and the
    paper's values (``input.values``); ``params.not_run``: the data sets this run could not read, with why."""
    frame = real_task_frame(read_scores(ctx.input_list("scores")), "T11", ctx.params["not_run"], "accuracy")
    write_table(with_paper(frame, *_paper_inputs(ctx), "table10"), ctx.output["table"], title="table10: T11")


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

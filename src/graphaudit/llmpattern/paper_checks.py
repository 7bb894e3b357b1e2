"""The paper's published numbers (``config/llmpattern/paper_values.yaml``) and its internal arithmetic.

:func:`load_paper_values` reads the transcribed tables into one long frame (one row per printed cell) and
rejects a malformed file with an error naming the table and the row. :func:`consistency_checks` recomputes
every paper-internal relation of spec §7.3 from those cells, one result row per check, whether it holds or
not: the Table 2 averages (several printed AVG. cells do not equal the mean over models), the Table 20
ranks (AVG. rank, and the §2.12 rule max(A.L., E.L.) -> mean over scales and items -> rank, which fails for
two columns), Table 24's Decrease rows, Table 25's Avg. Increase, the paper's §7.2 accuracies, and the evaluation
sizes that the printed values imply; :func:`graphaudit.llmpattern.tables.paper_consistency` writes them.
:func:`paper_rows` hands the tables layer one table's cells to print beside reproduced numbers, and
:func:`load_column_map` the file's ``columns`` section: which reproduced column matches which label field.

Values are read as the exact printed text (YAML ``BaseLoader``, repeated keys rejected), so ``.632`` and
``0.30`` stay as printed in the ``printed`` column, and ``value`` is the number (NaN where the paper prints a
dash).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

__all__ = [
    "CHECK_COLUMNS",
    "COLUMN_MAP_KEY",
    "LABEL_FIELDS",
    "MEAN",
    "MODELS",
    "TOLERANCE",
    "VALUE_COLUMNS",
    "PaperValuesError",
    "competition_ranks",
    "consistency_checks",
    "load_column_map",
    "load_paper_values",
    "paper_rows",
]

MODELS: tuple[str, ...] = ("GPT-4", "GPT-4o", "Mixtral", "Llama", "Gemini", "Claude", "O1-mini")
MEAN = "mean"  # the label of a printed average row or column (Table 2 AVG. and Avg. A/D, Table 20 AVG. rank)
LABEL_FIELDS: tuple[str, ...] = ("task", "item", "scale", "format", "description", "prompting", "model", "metric")
VALUE_COLUMNS: tuple[str, ...] = ("table", "row", *LABEL_FIELDS, "printed", "value")
CHECK_COLUMNS: tuple[str, ...] = ("check", "table", "description", "computed", "printed", "tolerance", "holds", "note")
TOLERANCE = 0.01  # spec §7.3; widened to half a unit of the last printed digit where that is coarser
COLUMN_MAP_KEY = "columns"  # the one top-level key of the file that is not a table: the column map

_VOCABULARY: dict[str, frozenset[str]] = {
    "scale": frozenset({"small", "medium", "large"}),
    "format": frozenset({"AL", "EL"}),
    "description": frozenset({"term", "topo", "data", "both", "decrease"}),
    "prompting": frozenset({"zero-shot", "CoT"}),
    "model": frozenset({*MODELS, MEAN}),
}
_TABLE_ID = re.compile(r"^(table\d+|section\d+(\.\d+)*)$")
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)$")
_DASHES = frozenset({"-", "–", "—"})
_EPS = 1e-9


class PaperValuesError(ValueError):
    """A paper-values file that does not follow the format documented in its header."""


class _UniqueKeyLoader(yaml.BaseLoader):
    """``BaseLoader`` (every scalar stays the printed text) that rejects a repeated key instead of keeping the
    last one, so a table listed twice or a record with two ``value`` fields cannot pass silently."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark, f"found the key {key!r} twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# ---------------------------------------------------------------------------------------------- loading


def _content(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    try:
        content = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except (OSError, yaml.YAMLError) as err:
        raise PaperValuesError(f"{path}: cannot read the paper values ({err})") from err
    if not isinstance(content, Mapping) or not set(content) - {COLUMN_MAP_KEY}:
        raise PaperValuesError(f"{path}: needs one list of records per table, e.g. 'table2: [...]'")
    return content


def load_paper_values(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read the transcribed tables into a long frame with columns :data:`VALUE_COLUMNS`.

    ``row`` is the record's 1-based position in its table's list; label fields a record leaves out are "".
    """
    content = _content(path)
    records = [
        record
        for table, rows in content.items()
        if table != COLUMN_MAP_KEY
        for record in _table_records(path, table, rows)
    ]
    return pd.DataFrame(records, columns=list(VALUE_COLUMNS))


def load_column_map(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file's column map: ``responders`` (responder name -> paper model) and ``tables`` (per table id its
    ``fields``: reproduced column -> label field, ``labels``: column -> {reproduced value: printed label},
    ``only``: column -> the value the paper's setting has), checked against the label fields and models."""
    columns = _content(path).get(COLUMN_MAP_KEY)
    if not isinstance(columns, Mapping) or set(columns) != {"responders", "tables"}:
        raise PaperValuesError(f"{path}: {COLUMN_MAP_KEY} needs exactly 'responders' and 'tables' mappings")
    unknown = sorted(set(columns["responders"].values()) - set(MODELS))
    if unknown:
        raise PaperValuesError(f"{path}: {COLUMN_MAP_KEY}.responders names unknown models {unknown}")
    for table, spec in columns["tables"].items():
        where = f"{path}: {COLUMN_MAP_KEY}.tables.{table}"
        if not isinstance(spec, Mapping) or "fields" not in spec or set(spec) - {"fields", "labels", "only"}:
            raise PaperValuesError(f"{where}: needs 'fields' (and optionally 'labels', 'only')")
        bad = sorted(set(spec["fields"].values()) - set(LABEL_FIELDS))
        if bad:
            raise PaperValuesError(f"{where}: {bad} are no label fields; fields are {list(LABEL_FIELDS)}")
    return {"responders": dict(columns["responders"]), "tables": {t: dict(s) for t, s in columns["tables"].items()}}


def _table_records(path: Any, table: str, rows: Any) -> list[dict[str, Any]]:
    if not _TABLE_ID.match(table):
        raise PaperValuesError(f"{path}: table id {table!r} should look like 'table2' or 'section7.2'")
    if not isinstance(rows, list) or not rows:
        raise PaperValuesError(f"{path}: {table} must be a non-empty list of records")
    records, seen = [], {}
    for number, raw in enumerate(rows, start=1):
        record = _record(f"{path}: {table} row {number}", raw)
        key = tuple(record[field] for field in LABEL_FIELDS)
        if key in seen:
            raise PaperValuesError(
                f"{path}: {table} row {number} repeats row {seen[key]} "
                f"({', '.join(f'{k}={v}' for k, v in zip(LABEL_FIELDS, key) if v)})"
            )
        seen[key] = number
        records.append({"table": table, "row": number, **record})
    return records


def _record(where: str, raw: Any) -> dict[str, Any]:
    """One validated record: every label field (empty when absent), the printed text and its number."""
    if not isinstance(raw, Mapping):
        raise PaperValuesError(f"{where}: must be a mapping such as {{model: GPT-4, metric: ACC, value: 0.30}}")
    unknown = sorted(set(raw) - {*LABEL_FIELDS, "value"})
    if unknown:
        raise PaperValuesError(f"{where}: unknown field(s) {unknown}; fields are {[*LABEL_FIELDS, 'value']}")
    for field in ("metric", "value"):
        if not isinstance(raw.get(field), str) or not raw[field].strip():
            raise PaperValuesError(f"{where}: needs a {field!r} (one printed label or number)")
    labels = {field: raw.get(field, "") for field in LABEL_FIELDS}
    for field, text in labels.items():
        if not isinstance(text, str):
            raise PaperValuesError(f"{where}: {field} must be a single label, got {text!r}")
        if text and field in _VOCABULARY and text not in _VOCABULARY[field]:
            raise PaperValuesError(f"{where}: {field} {text!r} is not one of {sorted(_VOCABULARY[field])}")
    printed = raw["value"].strip()
    return {**labels, "printed": printed, "value": _number(where, printed)}


def _number(where: str, printed: str) -> float:
    if printed in _DASHES:
        return math.nan
    if not _NUMBER.match(printed):
        raise PaperValuesError(f"{where}: value {printed!r} is neither a printed number nor a dash")
    return float(printed)


def paper_rows(values: pd.DataFrame, table: int | str) -> pd.DataFrame:
    """One table's cells in printed order: the label columns it uses, ``printed`` and ``value``.

    ``table`` is ``2``, ``"2"`` or ``"table2"`` (or a text id such as ``"section7.2"``).
    """
    table_id = f"table{table}" if str(table).isdigit() else str(table)
    rows = values[values["table"] == table_id]
    if rows.empty:
        raise KeyError(f"no paper values for {table_id!r}; tables are {sorted(set(values['table']))}")
    used = [field for field in LABEL_FIELDS if (rows[field] != "").any()]
    return rows[[*used, "printed", "value"]].reset_index(drop=True)


# ------------------------------------------------------------------------------------------------ checks


def _cells(values: pd.DataFrame, table: str, **where: str) -> pd.DataFrame:
    """The cells of ``table`` whose label fields equal ``where``."""
    mask = values["table"] == table
    for field, wanted in where.items():
        mask &= values[field] == wanted
    return values[mask]


def _cell(values: pd.DataFrame, table: str, **where: str) -> pd.Series:
    rows = _cells(values, table, **where)
    if len(rows) != 1:
        raise PaperValuesError(f"{table}: expected one cell with {where}, found {len(rows)}")
    return rows.iloc[0]


def _tolerance(printed: str) -> float:
    """:data:`TOLERANCE`, or half a unit of the last printed digit where that is coarser (Table 20's 4.9)."""
    decimals = len(printed.partition(".")[2])
    return max(TOLERANCE, 0.5 * 10.0**-decimals)


def _result(
    check: str, table: str, description: str, computed: float, printed: float, tolerance: float, note: str = ""
) -> dict[str, Any]:
    holds = abs(computed - printed) <= tolerance + _EPS
    return {
        "check": check,
        "table": table,
        "description": description,
        "computed": round(float(computed), 6),
        "printed": float(printed),
        "tolerance": tolerance,
        "holds": bool(holds),
        "note": note,
    }


def _against_cell(check: str, description: str, computed: float, cell: pd.Series) -> dict[str, Any]:
    """Compare with a printed cell; say so when the computed value does not round to the printed digits."""
    decimals = len(cell["printed"].partition(".")[2])
    note = ""
    if abs(computed - cell["value"]) > 0.5 * 10.0**-decimals + _EPS:
        note = f"printed {cell['printed']}, computed rounds to {computed:.{decimals}f}"
    return _result(check, cell["table"], description, computed, cell["value"], _tolerance(cell["printed"]), note)


def _table2_pattern_means(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Avg. A / Avg. D = mean over the 9 patterns, per model."""
    results = []
    for model in MODELS:
        for metric in ("ACC", "DIV"):
            cells = _cells(values, "table2", model=model, metric=metric)
            patterns = cells[cells["item"] != MEAN]
            printed = _cell(values, "table2", model=model, metric=metric, item=MEAN)
            results.append(
                _against_cell(
                    f"table2.avg_over_patterns.{metric}.{model}",
                    f"Table 2 Avg. {metric[0]} of {model} = mean of its {len(patterns)} {metric} cells",
                    patterns["value"].mean(),
                    printed,
                )
            )
    return results


def _table2_model_means(values: pd.DataFrame) -> list[dict[str, Any]]:
    """The AVG. row: each cell = mean over the 7 models; its Avg. cells also = mean of the row's own cells."""
    results = []
    for _, printed in _cells(values, "table2", model=MEAN).iterrows():
        item, metric = printed["item"], printed["metric"]
        models = _cells(values, "table2", item=item, metric=metric)
        models = models[models["model"] != MEAN]
        label = f"Avg. {metric[0]}" if item == MEAN else f"{item} {metric}"
        results.append(
            _against_cell(
                f"table2.avg_over_models.{metric}.{item}",
                f"Table 2 AVG. row, {label} = mean over the {len(models)} models",
                models["value"].mean(),
                printed,
            )
        )
        if item == MEAN:
            row = _cells(values, "table2", model=MEAN, metric=metric)
            row = row[row["item"] != MEAN]
            results.append(
                _against_cell(
                    f"table2.avg_row_over_patterns.{metric}",
                    f"Table 2 AVG. row, {label} = mean of the row's {len(row)} {metric} cells",
                    row["value"].mean(),
                    printed,
                )
            )
    return results


def _table20_mean_ranks(values: pd.DataFrame) -> list[dict[str, Any]]:
    """AVG. rank = mean of the 9 printed ranks, per model."""
    results = []
    for model in MODELS:
        ranks = _cells(values, "table20", model=model, metric="rank")
        columns = ranks[ranks["task"] != MEAN]
        printed = _cell(values, "table20", model=model, task=MEAN)
        results.append(
            _against_cell(
                f"table20.avg_rank.{model}",
                f"Table 20 AVG. rank of {model} = mean of its {len(columns)} ranks",
                columns["value"].mean(),
                printed,
            )
        )
    return results


# Table 20 column (task, description) -> the table it ranks and the cells it uses (spec §2.12).
_RANK_SOURCES: dict[tuple[str, str], tuple[str, dict[str, str]]] = {
    ("pattern_translation", "term"): ("table2", {"item": MEAN, "metric": "ACC"}),
    ("graph_modification", "term"): ("table3", {}),
    ("pattern_detection", "term"): ("table18", {}),
    ("isomorphic_mapping", "topo"): ("table4", {}),
    ("graph_modification", "topo"): ("table5", {}),
    ("pattern_detection", "topo"): ("table19", {}),
    ("k_core", "data"): ("table6", {}),
    ("frequent_subgraph", "data"): ("table7", {}),
    ("discriminative_pattern", "data"): ("table8", {"metric": "ACC"}),
}


def _bird_eye_scores(cells: pd.DataFrame) -> pd.Series:
    """Spec §2.12: per model the best of A.L./E.L. per cell, then the mean over scales and items."""
    cells = cells[cells["model"].isin(MODELS)]
    best = cells.groupby(["model", "item", "scale"], sort=False)["value"].max()
    return best.groupby(level="model", sort=False).mean()


def competition_ranks(scores: pd.Series) -> pd.Series:
    """Rank 1 = highest; ties share the smaller rank (scores rounded so that float noise does not split ties)."""
    return scores.round(9).rank(method="min", ascending=False)


def _table20_derived_ranks(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Each rank column recomputed from its source table with the §2.12 rule, per model (tolerance 0)."""
    results = []
    for (task, description), (source, where) in _RANK_SOURCES.items():
        scores = _bird_eye_scores(_cells(values, source, **where))
        ranks = competition_ranks(scores)
        for model in MODELS:
            printed = _cell(values, "table20", model=model, task=task, description=description)
            results.append(
                _result(
                    f"table20.rank.{task}_{description}.{model}",
                    "table20",
                    f"Table 20 {task} ({description}) rank of {model} from {source} "
                    f"(max of A.L./E.L., mean over scales and items, rank)",
                    ranks[model],
                    printed["value"],
                    0.0,
                    f"score {scores[model]:.4f}",
                )
            )
    return results


def _table24_decrease(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Decrease = Topology - Terminology, per model and metric."""
    results = []
    for metric in ("precision", "recall"):
        for model in MODELS:
            term = _cell(values, "table24", model=model, metric=metric, description="term")["value"]
            topo = _cell(values, "table24", model=model, metric=metric, description="topo")["value"]
            printed = _cell(values, "table24", model=model, metric=metric, description="decrease")
            results.append(
                _against_cell(
                    f"table24.decrease.{metric}.{model}",
                    f"Table 24 Decrease {metric} of {model} = Topology - Terminology",
                    topo - term,
                    printed,
                )
            )
    return results


def _table25_increase(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Avg. Increase = mean(CoT) - mean(zero-shot) over the three columns, per description and model."""
    results = []
    for _, printed in _cells(values, "table25", metric="avg_increase").iterrows():
        description, model = printed["description"], printed["model"]
        cot = _cells(values, "table25", description=description, model=model, prompting="CoT")["value"]
        zero = _cells(values, "table25", description=description, model=model, prompting="zero-shot")["value"]
        results.append(
            _against_cell(
                f"table25.avg_increase.{description}.{model}",
                f"Table 25 Avg. Increase of {model} ({description}) = mean(CoT) - mean(zero-shot)",
                cot.mean() - zero.mean(),
                printed,
            )
        )
    return results


def _section72_accuracies(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Section 7.2's isomorphic-mapping accuracies (30%, 96%) = mean of the Table 4 E.L. medium and large cells."""
    results = []
    for _, printed in _cells(values, "section7.2", metric="accuracy").iterrows():
        model = printed["model"]
        cells = _cells(values, "table4", model=model, format="EL")
        cells = cells[cells["scale"].isin(("medium", "large"))]
        results.append(
            _against_cell(
                f"section7.2.accuracy.{model}",
                f"Section 7.2 accuracy of {model} = mean of Table 4 E.L. medium and large",
                cells["value"].mean(),
                printed,
            )
        )
    return results


def _off_grid(cells: pd.DataFrame, step: float) -> pd.DataFrame:
    """The cells whose value is not a whole multiple of ``step``."""
    counts = cells["value"] / step
    return cells[(counts - counts.round()).abs() > 1e-6]


def _grid_result(check: str, table: str, description: str, cells: pd.DataFrame, step: float) -> dict[str, Any]:
    """Number of cells off the ``step`` grid (expected 0); the note names them with their implied counts."""
    off = _off_grid(cells, step)
    note = "; ".join(
        f"{' '.join(v for v in (r.model, r.item, r.scale, r.format) if v)} {r.printed} "
        f"= {r.value / step:g}/{round(1 / step)}"
        for r in off.itertuples(index=False)
    )
    return _result(
        check,
        table,
        f"{description}: {len(cells)} cells, all multiples of {step:g} (n = {round(1 / step)})",
        float(len(off)),
        0.0,
        0.0,
        note,
    )


def _scaled_cells(values: pd.DataFrame, table: str) -> pd.DataFrame:
    cells = _cells(values, table)
    return cells[cells["scale"].isin(("medium", "large"))]


# Small modification sets are evaluated in full (spec §3.3): their sizes.
_SMALL_MODIFICATION_SIZES: dict[str, int] = {"S2H": 166, "S2D": 144, "D2S": 111, "F2B": 227}


def _small_full_set(values: pd.DataFrame, table: str) -> dict[str, Any]:
    """Small cells of Tables 3/5 are some k/n for the full set size n, to the printed two decimals."""
    cells = _cells(values, table, scale="small")
    sizes = cells["item"].map(_SMALL_MODIFICATION_SIZES)
    counts = cells["value"] * sizes
    off = cells[(counts - counts.round()).abs() / sizes > 0.005 + _EPS]
    return _result(
        f"{table}.small_full_set",
        table,
        f"{table} small cells = k/n for the full sets (n = "
        f"{'/'.join(map(str, _SMALL_MODIFICATION_SIZES.values()))}): {len(cells)} cells",
        float(len(off)),
        0.0,
        0.0,
        "weak test: the k/n grid is finer than the printed 0.01 step",
    )


def _eval_sizes(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Evaluation sizes implied by the printed values (spec §7.3)."""
    results = []
    for table in ("table3", "table5"):
        cells = _scaled_cells(values, table)
        results.append(_grid_result(f"{table}.step_0.02.medium_large", table, f"{table} medium and large", cells, 0.02))
        d2s = cells[(cells["item"] == "D2S") & (cells["scale"] == "large")]
        results.append(_grid_result(f"{table}.step_0.04.D2S_large", table, f"{table} D2S large", d2s, 0.04))
        results.append(_small_full_set(values, table))
    results.append(
        _grid_result(
            "table4.step_0.02.medium_large", "table4", "table4 medium and large", _scaled_cells(values, "table4"), 0.02
        )
    )
    for model in MODELS:
        cells = _cells(values, "table2", model=model, metric="ACC")
        results.append(
            _grid_result(
                f"table2.acc_step_0.02.{model}", "table2", f"table2 {model} ACC", cells[cells["item"] != MEAN], 0.02
            )
        )
    return results


_CHECKS: tuple[Callable[[pd.DataFrame], list[dict[str, Any]]], ...] = (
    _table2_pattern_means,
    _table2_model_means,
    _table20_mean_ranks,
    _table20_derived_ranks,
    _table24_decrease,
    _table25_increase,
    _section72_accuracies,
    _eval_sizes,
)


def consistency_checks(values: pd.DataFrame) -> list[dict[str, Any]]:
    """Every spec §7.3 relation recomputed from ``values``, one dict per check with :data:`CHECK_COLUMNS`.

    ``printed`` is the paper's number, or the expected count (0) for the evaluation-size checks; ``holds``
    says whether ``|computed - printed| <= tolerance``. Checks that fail are reported, not dropped.
    """
    return [result for check in _CHECKS for result in check(values)]

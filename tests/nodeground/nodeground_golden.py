"""The nodeground golden set: committed synthetic records (``golden/records.csv``, made by
:data:`graphaudit.nodeground.synthetic.GOLDEN`) and the tables the whole analysis chain builds from them
(``golden/expected/``), rebuilt byte for byte by the tests (the DomainBed ``test_collect_results`` model).

Regenerate after a deliberate change (and say why in the commit)::

    .venv/bin/python tests/nodeground/nodeground_golden.py --regenerate
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.nodeground import tables, tasks
from graphaudit.nodeground.records import write_records
from graphaudit.nodeground.synthetic import GOLDEN, synthetic_properties, synthetic_records

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
RECORDS_CSV = GOLDEN_DIR / "records.csv"
PROPERTIES_CSV = GOLDEN_DIR / "properties.csv"
EXPECTED = GOLDEN_DIR / "expected"

PARAMS = {
    "gfms": ["GraphAny", "GVT"],
    "cohorts": {
        "reference": "GCN",
        "overlap": {"GraphAny": ["syn-arxiv"], "GVT": ["syn-arxiv"]},
        "complete_case": "both_splits",
    },
    "primary": {"multiclass": "accuracy", "binary": "auroc"},
    "elo": {
        "fit": "bt_mle",
        "scale": 400.0,
        "base": 10.0,
        "init": 1000.0,
        "anchor": None,
        "tie_eps": 1e-9,
        "dataset_weight": "equal",
        "l2": 1e-4,
        "bootstrap": 200,
        "level": 0.95,
        "k_factor": 4.0,
        "permutations": 20,
    },
    "mi": {"error": "score"},
    "top_k": 4,
    "reference": "GCN",
    "tie_eps": 1e-9,
    "wilcoxon": {"alpha": 0.05, "zero_method": "pratt", "method": "auto"},
    "budgets": [1, 2, 5, 10, 25, 50, 100, 150, 201],
    "reorderings": 20,
    "within": 1.0,
    "alpha": 0.05,
    "subgroups": {
        "nodes": {"cuts": [2000, 10000], "labels": ["few nodes", "medium", "many nodes"]},
        "classes": {"cuts": [3, 11], "labels": ["binary targets", "3-10 classes", ">10 class-count"]},
        "adjusted_homophily": {"cuts": [0.3], "labels": ["low homophily", "high homophily"]},
    },
    "seed": 0,
}
"""The golden run's settings (pinned here, not read from the config, so a config change cannot move it)."""

TABLES = [
    "coverage",
    "elo",
    "ranks",
    "winrate",
    "frontier",
    "table3",
    "table4",
    "table5",
    "table5_summary",
    "table6",
    "wilcoxon",
    "table7",
    "tuning",
    "table12",
    "subgroups",
    "checks",
]


def records_text() -> str:
    """The golden records as the committed CSV text."""
    return synthetic_records(GOLDEN).to_csv(index=False, lineterminator="\n")


def write_inputs(where: Path) -> tuple[Path, Path]:
    """The committed records as a records folder of parquet files, and the properties CSV, under ``where``."""
    root = where / "trials"
    write_records(pd.read_csv(RECORDS_CSV, keep_default_na=True), root)
    properties = where / "properties.csv"
    shutil.copyfile(PROPERTIES_CSV, properties)
    return root, properties


def _call(function, inputs: dict, outputs: dict, extra: dict | None = None) -> None:
    function(
        RuleContext(
            input={k: str(v) if not isinstance(v, list) else [str(p) for p in v] for k, v in inputs.items()},
            output={k: str(v) for k, v in outputs.items()},
            params={**PARAMS, **(extra or {})},
        )
    )


def run_chain(root: Path, properties: Path, out: Path) -> Path:
    """Every analysis entry of the workflow, in DAG order, on the records under ``root``; returns the tables
    folder."""
    t = out / "tables"
    _call(
        tasks.nodeground_records,
        {"records": sorted(root.glob("*/*/*/p*.parquet"))},
        {"trials": out / "trials_all.parquet", "coverage": t / "coverage.csv"},
    )
    _call(tasks.nodeground_endpoints, {"trials": out / "trials_all.parquet"}, {"endpoints": out / "endpoints.parquet"})
    _call(
        tasks.nodeground_cohorts,
        {"endpoints": out / "endpoints.parquet"},
        {"cohorts": out / "cohorts.parquet", "dropped": out / "dropped.parquet"},
    )
    cohorts = {"cohorts": out / "cohorts.parquet"}
    for entry, name in (
        (tasks.nodeground_elo, "elo"),
        (tasks.nodeground_ranks, "ranks"),
        (tasks.nodeground_winrate, "winrate"),
        (tasks.nodeground_frontier, "frontier"),
    ):
        _call(entry, cohorts, {name: t / f"{name}.csv"})
    _call(
        tables.table3,
        {**cohorts, "dropped": out / "dropped.parquet", "endpoints": out / "endpoints.parquet"},
        {"table3": t / "table3.csv"},
    )
    _call(tables.table4, {"ranks": t / "ranks.csv"}, {"table4": t / "table4.csv"})
    table5_inputs = {**cohorts, "elo": t / "elo.csv", "ranks": t / "ranks.csv"}
    _call(tables.table5, table5_inputs, {"table5": t / "table5.csv"})
    _call(tables.table5_summary, table5_inputs, {"table5_summary": t / "table5_summary.csv"})
    _call(tasks.nodeground_wilcoxon, cohorts, {"pairs": out / "wilcoxon.parquet"})
    _call(tables.wilcoxon, {"pairs": out / "wilcoxon.parquet"}, {"wilcoxon": t / "wilcoxon.csv"})
    _call(tables.table6, {"pairs": out / "wilcoxon.parquet"}, {"table6": t / "table6.csv"})
    _call(tasks.nodeground_tuning, {**cohorts, "trials": out / "trials_all.parquet"}, {"curve": out / "tuning.parquet"})
    _call(tables.tuning, {"curve": out / "tuning.parquet"}, {"tuning": t / "tuning.csv"})
    _call(tables.table7, {"curve": out / "tuning.parquet"}, {"table7": t / "table7.csv"})
    _call(tables.table12, {**cohorts, "properties": properties}, {"table12": t / "table12.csv"})
    _call(tables.subgroups, {**cohorts, "properties": properties}, {"subgroups": t / "subgroups.csv"})
    check_inputs = {
        name: t / f"{name}.csv"
        for name in (
            "coverage",
            "table3",
            "elo",
            "ranks",
            "winrate",
            "frontier",
            "table4",
            "table5",
            "table5_summary",
            "table6",
            "table7",
        )
    }
    check_inputs.update(pairs=t / "wilcoxon.csv", endpoints=out / "endpoints.parquet")
    _call(tables.checks, check_inputs, {"checks": t / "checks.csv"})
    return t


def regenerate(scratch: Path) -> None:
    """Rewrite the committed records, properties and expected tables."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    RECORDS_CSV.write_text(records_text(), encoding="utf-8")
    synthetic_properties(GOLDEN).to_csv(PROPERTIES_CSV, index=False, lineterminator="\n")
    root, properties = write_inputs(scratch)
    built = run_chain(root, properties, scratch / "out")
    EXPECTED.mkdir(exist_ok=True)
    for name in TABLES:
        shutil.copyfile(built / f"{name}.csv", EXPECTED / f"{name}.csv")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        raise SystemExit(__doc__)
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        regenerate(Path(scratch))

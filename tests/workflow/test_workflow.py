"""The workflow end to end: the ci config in a temporary copy, dry runs, config validation, reruns."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_registry import STUDIES, study_outputs

from graphaudit.glad.replay import SETTING_PROTOCOLS
from graphaudit.nodeground.frontier import COSTS as FRONTIER_COSTS

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
COPIED = ("Snakefile", "config", "envs", "workflow")


def workflow_copy(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, where / name)
    return where


RUN_TIMEOUT_S = 3600  # a whole ci run: about 20 minutes alone on 2 cores, two at once about 35


def snakemake(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    return subprocess.run([SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=timeout)


@pytest.fixture(scope="module")
def ci_runs(tmp_path_factory):
    """Two independent runs of the ci config, each in its own copy of the workflow, at the same time: a single run
    leaves a third of two cores idle (jobs waiting on their inputs, Snakemake's own bookkeeping), which the other
    fills."""
    copies = [workflow_copy(tmp_path_factory.mktemp(f"run{index}")) for index in range(2)]
    command = [SNAKEMAKE, "--cores", "2", "--configfile", "config/ci.yaml"]
    logs = [copy / "snakemake.out" for copy in copies]
    runs = []
    for copy, log in zip(copies, logs):
        with log.open("w") as out:
            runs.append(subprocess.Popen(command, cwd=copy, stdout=out, stderr=subprocess.STDOUT))
    try:
        for run in runs:
            run.wait(timeout=RUN_TIMEOUT_S)
    finally:
        for run in runs:
            run.kill()
    for run, log in zip(runs, logs):
        assert run.returncode == 0, log.read_text()[-6000:]
    return copies


def test_ci_config_runs_end_to_end(ci_runs):
    run = ci_runs[0]
    index = (run / "results/report/index.html").read_text()
    assert "graphaudit report" in index and "MUTAG" in index
    assert (run / "results/report/index.md").exists()
    rows = (run / "results/data/tables/datasets.csv").read_text().splitlines()
    assert rows[0] == "dataset,source,graphs,nodes,edges,classes,sha256,matches_published"
    assert rows[1].startswith("MUTAG,") and rows[1].endswith(",True")
    assert "-> graphaudit.data.tasks:data_fetch" in (run / "logs/data/fetch_MUTAG.log").read_text()


def test_ci_scores_your_own_model_as_table3_scores_the_run(ci_runs):
    """ci.yaml names a CKGConv run's own folder as a bring-your-own model: its rows are that run's Table 3 rows."""
    run = ci_runs[0]
    table3 = pd.read_csv(run / "results/pattern/tables/table3.csv")
    byo = pd.read_csv(run / "results/pattern/byo/ckgconv_seed0.csv")
    mine = byo[byo["rule"] == "released"].set_index("set")
    rows = table3[table3["predictor"] == "CKGConv (released), seed 0"].set_index("set")
    columns = [
        "cw_acc",
        "ci_low",
        "ci_high",
        "cw_batch",
        "plain",
        "diff_vs_pattern_blind",
        "diff_ci_low",
        "diff_ci_high",
    ]
    pd.testing.assert_frame_equal(mine.loc[rows.index, columns], rows[columns])


def test_ci_minority_rerun_repeats_the_class0_runs_where_class0_is_the_minority(ci_runs):
    """ci.yaml re-runs MUTAG with the minority class anomalous; MUTAG's minority is class 0 (63 of 188), so its folds,
    tuned runs and protocols are UB-GOLD's own, and robustness.csv's minority rows equal the class-0 leakage."""
    run = ci_runs[0]
    folds = [
        json.loads((run / path).read_text())
        for path in ("results/glad/folds/MUTAG.json", "results/glad/minority/folds/MUTAG.json")
    ]
    assert folds[1]["settings"]["anomaly_class"] == "minority"
    assert folds[0]["folds"] == folds[1]["folds"]
    for detector in ("OCGIN", "GraphCL-IF"):
        minority = pd.read_csv(run / f"results/glad/minority/replay/{detector}/MUTAG/protocols.csv")
        class0 = pd.read_csv(run / f"results/glad/replay/{detector}/MUTAG/protocols.csv")
        class0 = class0[class0["protocol"].isin(minority["protocol"])].reset_index(drop=True)
        assert set(minority["protocol"]) == set(SETTING_PROTOCOLS["tuned"])
        pd.testing.assert_frame_equal(minority, class0)
    robustness = pd.read_csv(run / "results/glad/tables/robustness.csv").fillna({"dataset": ""})
    pooled = robustness[robustness["dataset"] == ""].set_index(["check", "versus"])["leakage"]
    for versus in ("val_normal", "last"):
        assert pooled[("minority class", versus)] == pooled[("all datasets", versus)]


def zipped_results(archive: zipfile.ZipFile) -> dict[str, list[bytes]]:
    """File name -> the contents of every result stored under that name in a Snakemake report zip."""
    stored: dict[str, list[bytes]] = {}
    for name in archive.namelist():
        if name.startswith("report/data/raw/"):
            stored.setdefault(Path(name).name, []).append(archive.read(name))
    return stored


def report_categories(page: str) -> dict[str, dict[str, list[str]]]:
    """Category -> subcategory -> result paths, as Snakemake's report page lists them (``var categories``)."""
    return json.loads(re.search(r"var categories = (\{.*?\});\n", page).group(1))


def test_snakemake_report_holds_every_declared_output(ci_runs, tmp_path):
    """`snakemake --report` on the finished ci run: the zip holds every table and figure each study declares,
    byte for byte, under the study's category, with the claims and the data table; the one-file HTML builds."""
    run = ci_runs[0]
    result = snakemake(run, "--report", str(tmp_path / "report.zip"), "--configfile", "config/ci.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "report.zip") as archive:
        stored, categories = zipped_results(archive), report_categories(archive.read("report/report.html").decode())
    dashboards = [f"results/report/figures/dashboard_{study}.png" for study in sorted(STUDIES)]
    assert categories["claims"] == {"tables": ["results/report/claims.csv"], "figures": dashboards}
    assert categories["data"] == {"tables": ["results/data/tables/datasets.csv"]}
    for study in STUDIES:
        shown = {path for paths in categories[study].values() for path in paths}
        assert shown == set(study_outputs(study)), study
        assert set(categories[study]) == {"tables", "figures"}
    for path in {path for kinds in categories.values() for paths in kinds.values() for path in paths}:
        assert (run / path).read_bytes() in stored.get(Path(path).name, []), f"{path} is not in the zip"
    single = snakemake(run, "--report", str(tmp_path / "report.html"), "--configfile", "config/ci.yaml")
    assert single.returncode == 0, single.stderr[-3000:]
    assert (tmp_path / "report.html").stat().st_size > 100_000


def test_ci_report_opens_with_the_verdicts_and_shows_every_figure(ci_runs):
    run = ci_runs[0]
    page = (run / "results/report/index.html").read_text()
    order = [page.index(f'id="{anchor}"') for anchor in ("dashboard", "failed", "data", *sorted(STUDIES))]
    assert order == sorted(order)
    per_study = {s: [p for p in study_outputs(s) if p.endswith(".png")] for s in STUDIES}
    expected = {"pattern": 4, "nodeground": 11, "glad": 3, "graphlm": 6, "llmpattern": 7}
    assert {s: len(f) for s, f in per_study.items()} == expected
    figures = [p for study_figures in per_study.values() for p in study_figures]
    for figure in figures:
        assert f'<img src="../{Path(figure).relative_to("results").as_posix()}"' in page, figure
    for study in STUDIES:
        assert f'<img src="figures/dashboard_{study}.png"' in page, study
    assert "<details><summary>" in page and '<nav><h2>Contents</h2><ul><li><a href="#dashboard">' in page


def test_ci_report_renders_in_headless_chromium(ci_runs, headless_page_problems):
    """The ci report in a real browser: every image renders, every link and anchor resolves, no script error."""
    assert headless_page_problems(ci_runs[0] / "results/report/index.html") == []


RUN_RECORDS = "results/glad/records"  # training runs: records carry wall time and peak memory by design
TYPED_RUN_RECORDS = "results/glad/typed/records"  # the typed evaluation's training runs, likewise
MINORITY_RUN_RECORDS = "results/glad/minority/records"  # the minority-class re-run's training runs, likewise
LM_RUNS = "results/graphlm/*/lm/*/s*/run.json"  # the graph language models' runs: their wall time
NEURAL_RUNS = ("results/pattern/neural/*/*/seed*/run.json", "results/pattern/neural/*/*/seed*/records.jsonl")
MACHINE_FIELDS = {"wall_s", "epoch_s", "peak_rss_mb", "records_sha256"}  # the seal of records.jsonl, which holds both
# nodeground measures what each method costs (spec 4.7-4.9): its records carry seconds and peak memory, and the
# tables built from those measurements differ in exactly these columns between two runs on one machine
NODEGROUND = "results/nodeground"
MEASURED_COLUMNS = {"fit_s", "predict_s", "peak_mem_fit_mb", "peak_mem_predict_mb", *FRONTIER_COSTS.values()}
COST_TABLES = {
    "tuning": {"cost"},
    "table7": {"cost_k_star", "full_cost"},
    "frontier": {"overhead", "log2_overhead", "on_frontier"},
}
COST_FIGURES = {"fig8", "fig15", "fig16"}  # drawn from the cost tables above
# the pattern study's neural runs report their training time (Table 9, from the scores' runs.csv)
TIMED_TABLES = {
    Path("results/pattern/neural/scores/runs.csv"): {"train_hours"},
    Path("results/pattern/tables/table9.csv"): {"train_hours"},
}
TIMED_MARKDOWN = Path("results/pattern/tables/table9.md")
REPORT_MD = Path("results/report/index.md")


def without_machine_fields(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" else [path.read_text()]
    return [{k: v for k, v in json.loads(line).items() if k not in MACHINE_FIELDS} for line in lines]


def without_measured_columns(path: Path, columns: set[str]) -> pd.DataFrame:
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    return frame.drop(columns=[c for c in columns if c in frame.columns])


def cost_table_lines(run: Path) -> set[str]:
    """The lines of nodeground's cost tables and the timed pattern table (none when the run left them out)."""
    tables = [run / NODEGROUND / "tables" / f"{name}.md" for name in COST_TABLES] + [run / TIMED_MARKDOWN]
    return {line for table in tables if table.exists() for line in table.read_text().splitlines()}


def assert_same_outside_measurements(first: Path, second: Path, relative: Path) -> None:
    """The comparison of one output of two runs, leaving out what is a measurement of the machine."""
    if (
        (
            any(relative.is_relative_to(r) for r in (RUN_RECORDS, TYPED_RUN_RECORDS, MINORITY_RUN_RECORDS))
            and relative.suffix in (".jsonl", ".json")
        )
        or relative.match(LM_RUNS)
        or any(relative.match(pattern) for pattern in NEURAL_RUNS)
    ):
        assert without_machine_fields(first / relative) == without_machine_fields(second / relative), relative
    elif relative in TIMED_TABLES:
        pd.testing.assert_frame_equal(
            *(without_measured_columns(r / relative, TIMED_TABLES[relative]) for r in (first, second))
        )
    elif (
        relative.is_relative_to(NODEGROUND) and relative.stem in COST_TABLES and relative.suffix in (".csv", ".parquet")
    ):
        columns = COST_TABLES[relative.stem]
        pd.testing.assert_frame_equal(*(without_measured_columns(r / relative, columns) for r in (first, second)))
    elif relative.is_relative_to(NODEGROUND) and relative.suffix == ".parquet":
        pd.testing.assert_frame_equal(
            *(without_measured_columns(r / relative, MEASURED_COLUMNS) for r in (first, second))
        )
    elif relative == REPORT_MD:  # it differs only in the rows of the cost tables it embeds
        changed = set((first / relative).read_text().splitlines()) - set((second / relative).read_text().splitlines())
        assert changed <= cost_table_lines(first), sorted(changed - cost_table_lines(first))[:5]
    else:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def compared_outputs(run: Path) -> list[Path]:
    """Every result file, less checkpoints (they hold the wall time; their records and scores are compared), the
    renderings of measured costs (the cost tables' markdown and figures, and the HTML page holding them)."""
    outputs = sorted(p.relative_to(run) for p in (run / "results").rglob("*") if p.is_file())
    return [
        p
        for p in outputs
        if p.name != "checkpoint.pt"
        and p not in (Path("results/report/index.html"), TIMED_MARKDOWN)
        and not (
            p.is_relative_to(NODEGROUND)
            and p.suffix in (".md", ".png", ".svg")
            and p.stem in {*COST_TABLES, *COST_FIGURES}
        )
    ] + [Path("data/processed/MUTAG.npz")]


def test_ci_rerun_is_byte_identical(ci_runs):
    """Every result file is byte-identical, except what measures the machine: in training-run records and
    nodeground's cost tables those fields are left out and the rest compared."""
    first, second = ci_runs
    outputs = compared_outputs(first)
    assert len(outputs) > 4
    run_files = [p for p in outputs if p.is_relative_to(RUN_RECORDS)]
    assert any(p.name == "records.jsonl" for p in run_files) and any(p.suffix == ".npz" for p in run_files)
    assert any(p.is_relative_to(NODEGROUND) and p.suffix == ".parquet" for p in outputs)
    for relative in outputs:
        assert_same_outside_measurements(first, second, relative)


def test_paper_config_dry_run(tmp_path):
    result = snakemake(workflow_copy(tmp_path), "-n", "--configfile", "config/paper.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "data_fetch" in result.stdout


def test_slurm_profile_dry_run_names_a_missing_account_and_runs_with_one(tmp_path):
    copy = workflow_copy(tmp_path)
    unset = {**os.environ, "GRAPHAUDIT_SLURM_ACCOUNT": ""}
    missing = subprocess.run(
        [SNAKEMAKE, "-n", "--profile", "workflow/profiles/slurm"], cwd=copy, capture_output=True, text=True, env=unset
    )
    assert missing.returncode != 0
    assert (
        "the SLURM profile needs an account: export GRAPHAUDIT_SLURM_ACCOUNT=<account>"
        in missing.stdout + missing.stderr
    )
    assert "has been submitted" not in missing.stdout + missing.stderr
    result = snakemake(copy, "-n", "--profile", "workflow/profiles/slurm", env={"GRAPHAUDIT_SLURM_ACCOUNT": "none"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "slurm_account=," in result.stdout  # none: no -A


@pytest.mark.parametrize(
    "change, key",
    [
        ({"scale": "huge"}, "scale"),
        ({"data": {"download": {"retries": 0}}}, "retries"),
        ({"data": {"mirrror": "/tmp"}}, "mirrror"),
    ],
)
def test_schema_violation_names_the_key(tmp_path, change, key):
    copy = workflow_copy(tmp_path)
    (copy / "config" / "bad.yaml").write_text(yaml.safe_dump(change))
    result = snakemake(copy, "-n", "--configfile", "config/bad.yaml")
    assert result.returncode != 0
    assert key in result.stderr + result.stdout


def test_unknown_dataset_stops_before_any_job(tmp_path):
    copy = workflow_copy(tmp_path)
    (copy / "config" / "bad.yaml").write_text(yaml.safe_dump({"data": {"datasets": ["MUTAG", "NCI"]}}))
    result = snakemake(copy, "-n", "--configfile", "config/bad.yaml")
    assert result.returncode != 0
    assert "unknown dataset 'NCI'" in result.stderr + result.stdout


# One leaf key per study, and the rules a change of it must rerun: with the ci run complete, a dry run
# with that key changed outdates exactly these rules (so params carry only what each function reads).
NARROW_RERUNS = [
    (
        {"glad": {"deep": {"bootstrap": 300}}},  # the tables with bootstrap intervals and the figures drawn from them
        {
            "leakage_glad",
            "hp_gap_glad",
            "kendall_glad",
            "decisions_glad",
            "table2_glad",
            "table23_glad",
            "table30_glad",
            "table32_glad",
            "fig3_glad",
            "fig4_glad",
            "fig5_glad",
            "report",
            "all",
        },
    ),
    (
        {"graphlm": {"sensitivity": {"sigma": 0.02}}},
        {"graphlm_sensitivity", "sensitivity_graphlm", "report", "all"},
    ),
    (
        {"llmpattern": {"translation": {"per_pattern": 3}}},
        {
            "llmpattern_items",
            "llmpattern_respond",
            "table2_llmpattern",
            "table12_llmpattern",
            "table20_llmpattern",
            "summary_llmpattern",
            "report",
            "all",
        },
    ),
    (
        {"nodeground": {"tuning": {"within": 2.0}}},  # k* of Table 7 and the checks that read it; not the curves
        {"table7_nodeground", "checks_nodeground", "report", "all"},
    ),
    (
        {"pattern": {"minesweeper": {"bp": {"damping": 0.5}}}},
        {"minesweeper_bp_pattern", "minesweeper_pattern", "table4_pattern", "report", "all"},
    ),
]


def outdated_rules(run: Path, change: dict) -> set[str]:
    """Rules a dry run would execute after ``change`` is overlaid on the ci config of a finished run."""
    (run / "config/narrow.yaml").write_text(yaml.safe_dump(change))
    result = snakemake(run, "-n", "--configfile", "config/ci.yaml", "config/narrow.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    stats = result.stdout.split("Job stats:")
    if len(stats) == 1:
        return set()
    rows = stats[1].split("total")[0].splitlines()
    return {line.split()[0] for line in rows[3:] if line.strip()}


@pytest.mark.parametrize("change, expected", NARROW_RERUNS, ids=[next(iter(c)) for c, _ in NARROW_RERUNS])
def test_one_key_reruns_only_what_reads_it(ci_runs, change, expected):
    assert outdated_rules(ci_runs[1], change) == expected

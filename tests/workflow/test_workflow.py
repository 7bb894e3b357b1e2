"""The workflow end to end: the ci config in a temporary copy (started in the background when collection ends,
``conftest.py``), its narrow rerun, dry runs, config validation, which rules a config change reruns."""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_registry import STUDIES, study_outputs, workflow_rules
from workflow_runs import (
    CI_LOG,
    NODEGROUND,
    ROOT,
    RUN_RECORDS,
    SNAKEMAKE,
    assert_same_outside_measurements,
    cheapest_job_per_rule,
    compared_outputs,
    finished_jobs,
    rerun_copy,
    rerun_log,
    snakemake,
    workflow_copy,
)

from graphaudit.common.rule import OVER_MEMORY
from graphaudit.common.workflow import is_local_module
from graphaudit.glad.replay import SETTING_PROTOCOLS
from graphaudit.report.dashboard import headline_studies

# the studies with a headline finding that applies at the ci scale: each gets a dashboard figure (pattern's headline
# findings are its quick and paper values)
DASHBOARD_STUDIES = headline_studies(sorted(str(p) for p in (ROOT / "config/claims").glob("*.yaml")), "ci")


def test_ci_config_runs_end_to_end(ci_run):
    run = ci_run
    index = (run / "results/report/index.html").read_text()
    assert "graphaudit report" in index and "MUTAG" in index
    assert (run / "results/report/index.md").exists()
    rows = (run / "results/data/tables/datasets.csv").read_text().splitlines()
    assert rows[0] == "dataset,source,graphs,nodes,edges,classes,sha256,matches_published"
    assert rows[1].startswith("MUTAG,") and rows[1].endswith(",True")
    assert "-> graphaudit.data.tasks:data_fetch" in (run / "logs/data/fetch_MUTAG.log").read_text()


def test_ci_scores_your_own_model_as_table3_scores_the_run(ci_run):
    """ci.yaml names a CKGConv run's own folder as a bring-your-own model: its rows are that run's Table 3 rows."""
    run = ci_run
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


def test_ci_minority_rerun_repeats_the_class0_runs_where_class0_is_the_minority(ci_run):
    """ci.yaml re-runs MUTAG with the minority class anomalous; MUTAG's minority is class 0 (63 of 188), so its folds,
    tuned runs and protocols are UB-GOLD's own, and robustness.csv's minority rows equal the class-0 leakage."""
    run = ci_run
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


def test_snakemake_report_holds_every_declared_output(ci_run, tmp_path):
    """`snakemake --report` on the finished ci run: the zip holds every table and figure each study declares,
    byte for byte, under the study's category, with the claims and the data table; the one-file HTML builds."""
    run = ci_run
    result = snakemake(run, "--report", str(tmp_path / "report.zip"), "--configfile", "config/ci.yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "report.zip") as archive:
        stored, categories = zipped_results(archive), report_categories(archive.read("report/report.html").decode())
    dashboards = [f"results/report/figures/dashboard_{study}.png" for study in DASHBOARD_STUDIES]
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


def test_ci_report_opens_with_the_verdicts_and_shows_every_figure(ci_run):
    run = ci_run
    page = (run / "results/report/index.html").read_text()
    order = [page.index(f'id="{anchor}"') for anchor in ("dashboard", "failed", "data", *sorted(STUDIES))]
    assert order == sorted(order)
    per_study = {s: [p for p in study_outputs(s) if p.endswith(".png")] for s in STUDIES}
    expected = {"pattern": 4, "nodeground": 11, "glad": 3, "graphlm": 6, "llmpattern": 7}
    assert {s: len(f) for s, f in per_study.items()} == expected
    figures = [p for study_figures in per_study.values() for p in study_figures]
    for figure in figures:
        assert f'<img src="../{Path(figure).relative_to("results").as_posix()}"' in page, figure
    for study in DASHBOARD_STUDIES:
        assert f'<img src="figures/dashboard_{study}.png"' in page, study
    assert "<details><summary>" in page and '<nav><h2>Contents</h2><ul><li><a href="#dashboard">' in page


def test_ci_report_renders_in_headless_chromium(ci_run, headless_page_problems):
    """The ci report in a real browser: every image renders, every link and anchor resolves, no script error."""
    assert headless_page_problems(ci_run / "results/report/index.html") == []


def ci_rule_modules() -> dict[str, str]:
    """Rule name -> the module of its entry function, for every rule of the ci config that calls one."""
    return {rule.name: rule.entry.split(":")[0] for rule in workflow_rules("config/ci.yaml") if rule.entry}


def rerun_rules() -> set[str]:
    """The rules the narrow rerun runs again, one job each: every rule that computes (trains, samples, generates,
    searches, mines: where randomness, threads and process state could leak into results) and every figure and
    the report. Table rules are left out: each study's golden tests rebuild its tables byte for byte from
    committed inputs in a fresh process."""
    return {name for name, module in ci_rule_modules().items() if not module.endswith(".tables")}


@pytest.fixture(scope="module")
def ci_rerun(ci_run, tmp_path_factory) -> tuple[Path, Path]:
    """The finished ci run and a copy of it in which the quickest job of every rerun rule ran again."""
    jobs = cheapest_job_per_rule(finished_jobs((ci_run / CI_LOG).read_text()), rerun_rules())
    local = {name for name, module in ci_rule_modules().items() if is_local_module(module)}  # figures, the report
    stages = [[job for job in jobs if job.rule not in local], [job for job in jobs if job.rule in local]]
    return ci_run, rerun_copy(ci_run, stages, tmp_path_factory.mktemp("rerun") / "run")


def test_ci_rerun_is_byte_identical(ci_rerun):
    """Every result file is byte-identical after the rerun, except what measures the machine: in training-run
    records and nodeground's cost tables those fields are left out and the rest compared."""
    first, second = ci_rerun
    outputs = compared_outputs(first)
    assert len(outputs) > 4
    run_files = [p for p in outputs if p.is_relative_to(RUN_RECORDS)]
    assert any(p.name == "records.jsonl" for p in run_files) and any(p.suffix == ".npz" for p in run_files)
    assert any(p.is_relative_to(NODEGROUND) and p.suffix == ".parquet" for p in outputs)
    for relative in outputs:
        assert_same_outside_measurements(first, second, relative)


def test_the_rerun_ran_one_job_of_every_rule_that_computes_again(ci_rerun):
    """The rerun is not a copy: every computing rule, figure and the report ran again in it."""
    _, second = ci_rerun
    rerun = {job.rule for stage in range(2) for job in finished_jobs((second / rerun_log(stage)).read_text())}
    ran = {job.rule for job in finished_jobs((ci_rerun[0] / CI_LOG).read_text())}
    assert rerun_rules() & ran <= rerun, sorted(rerun_rules() & ran - rerun)
    assert "report" in rerun and "train_run_glad" in rerun and "nodeground_search" in rerun


def test_every_job_stayed_within_its_declared_memory(ci_run):
    """No job's peak memory exceeded its rule's mem_mb (graphaudit.common.rule.log_peak_memory warns when one
    does), and every job that ran through the rule runner logged its peak."""
    logs = {path: path.read_text() for path in (ci_run / "logs").rglob("*.log")}
    over = [str(path.relative_to(ci_run)) for path, text in logs.items() if OVER_MEMORY in text]
    assert not over, over
    finished = [path for path, text in logs.items() if re.search(r"rule \w+ finished in", text)]
    assert len(finished) > 100
    assert all("peak memory" in logs[path] for path in finished), [p for p in finished if "peak memory" not in logs[p]]


def test_the_partial_report_runs_before_anything_else_with_every_judgeable_claim_pending(tmp_path):
    """`make report` on a fresh copy: no job has run, so no claim is judged; each is PENDING or, when the run
    would not produce its table or it applies at another scale, NOT RUN."""
    copy = workflow_copy(tmp_path)
    result = snakemake(
        copy,
        "report_partial",
        "--forcerun",
        "report_partial",
        "--nolock",
        "--cores",
        "1",
        "--configfile",
        "config/ci.yaml",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    verdicts = pd.read_csv(copy / "results/report/partial/claims.csv")
    assert set(verdicts["status"]) == {"PENDING", "NOT RUN"}
    datasets = verdicts[verdicts["claim"] == "u7_bzr_graphs"]
    assert datasets["status"].tolist() == ["PENDING"]  # the data table is pending too


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
def test_one_key_reruns_only_what_reads_it(ci_run, change, expected):
    assert outdated_rules(ci_run, change) == expected

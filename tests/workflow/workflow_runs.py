"""Runs of the real workflow for the workflow tests: copies of it, Snakemake in a subprocess, the ci run started in
the background when collection ends (``conftest.py``), a narrow rerun of it, and the comparison of two runs'
outputs that leaves out what measures the machine."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

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


RUN_TIMEOUT_S = 3600  # a whole ci run: about 16 minutes alone on 2 cores, beside the unit tests more


def snakemake(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    return subprocess.run([SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=timeout)


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


CI_COMMAND = ("--cores", "2", "--configfile", "config/ci.yaml")
NOT_MTIME = ("code", "input", "params", "software-env")  # Snakemake's rerun triggers less mtime
CI_LOG = "snakemake.out"


@dataclass
class BackgroundRun:
    """A Snakemake run of a workflow copy in a subprocess of its own (a process group, so stopping it stops its
    jobs too), its output in ``copy / CI_LOG``."""

    copy: Path
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen | None = None
    log: str = CI_LOG

    def start(self) -> BackgroundRun:
        with (self.copy / self.log).open("w") as out:
            self.process = subprocess.Popen(
                [SNAKEMAKE, *self.args],
                cwd=self.copy,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        return self

    def wait(self) -> Path:
        """The copy, once the run has ended well; a failed run fails the test with the end of its output."""
        assert self.process is not None, "the run was never started"
        try:
            returncode = self.process.wait(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        assert returncode == 0, (self.copy / self.log).read_text()[-6000:]
        return self.copy

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def start_ci_run() -> BackgroundRun:
    """The ci config, run end to end in a fresh copy of the workflow under a temporary folder."""
    return BackgroundRun(workflow_copy(Path(tempfile.mkdtemp(prefix="graphaudit-ci-run-")) / "run"), CI_COMMAND).start()


# ---- the narrow rerun --------------------------------------------------------------------------------------------
_STARTED = re.compile(
    r"^\[(?P<when>\w{3} \w{3} +\d+ [\d:]{8} \d{4})\]\n(?:local)?(?:rule|checkpoint) (?P<rule>\w+):\n"
    r"(?P<body>(?:    .*\n)+)",
    re.M,
)
_FINISHED = re.compile(r"^\[(?P<when>\w{3} \w{3} +\d+ [\d:]{8} \d{4})\]\nFinished jobid: (?P<job>\d+) ", re.M)


@dataclass(frozen=True)
class Job:
    """One job of a finished run, from its log: its rule, outputs and wall seconds."""

    rule: str
    outputs: tuple[str, ...]
    seconds: float


def _when(text: str) -> datetime:
    return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")


def finished_jobs(log: str) -> list[Job]:
    """Every job the run's output (``snakemake.out``) shows finishing, with its outputs and wall time."""
    finished = {int(m["job"]): _when(m["when"]) for m in _FINISHED.finditer(log)}
    jobs = []
    for match in _STARTED.finditer(log):
        fields = dict(re.findall(r"^    (\w+): (.*)$", match["body"], flags=re.M))
        job = int(fields.get("jobid", -1))
        if job in finished and fields.get("output"):
            seconds = (finished[job] - _when(match["when"])).total_seconds()
            jobs.append(Job(match["rule"], tuple(fields["output"].split(", ")), seconds))
    return jobs


def cheapest_job_per_rule(jobs: list[Job], rules: set[str]) -> list[Job]:
    """Of each of ``rules``, its quickest job in the run (the first one logged among equals)."""
    chosen: dict[str, Job] = {}
    for job in jobs:
        if job.rule in rules and (job.rule not in chosen or job.seconds < chosen[job.rule].seconds):
            chosen[job.rule] = job
    return [chosen[rule] for rule in sorted(chosen)]


def rerun_copy(run: Path, stages: list[list[Job]], where: Path) -> Path:
    """A copy of the finished ``run`` (results, data, logs and Snakemake's metadata, times kept) in which the jobs of
    each stage ran again, stage after stage: their outputs are deleted and requested as targets, only their rules
    may run and a newer input is no reason to rerun (every rerun trigger but mtime), so Snakemake reruns exactly
    them, not the jobs between them and the report."""
    copy = Path(shutil.copytree(run, where, symlinks=True))
    for stage, jobs in enumerate(stages):
        targets = sorted({output for job in jobs for output in job.outputs})
        for target in targets:
            path = copy / target
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        rules = sorted({job.rule for job in jobs})
        args = (*targets, "--allowed-rules", *rules, "--rerun-triggers", *NOT_MTIME, *CI_COMMAND)
        BackgroundRun(copy, args, log=rerun_log(stage)).start().wait()
    return copy


def rerun_log(stage: int) -> str:
    """The output of a rerun stage, beside the copied run's own ``CI_LOG``."""
    return f"rerun{stage}.out"

"""The SLURM profile: GPU requests follow the config, and on a real cluster the same DAG gives the same results.

The cluster tests need a running SLURM cluster and run only under ``make test-slurm``, which starts the one-node
cluster of ``../shared/tools/slurm-local.sh``, sets ``GRAPHAUDIT_TEST_SLURM=1`` and the account and partition
variables the profile reads, and stops the cluster afterwards. ``GRAPHAUDIT_TEST_SLURM_STUDIES`` (comma-separated)
narrows the ci config to some studies (CI runs one, to keep its time).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from workflow_runs import (
    RUN_TIMEOUT_S,
    assert_same_outside_measurements,
    compared_outputs,
    snakemake,
    workflow_copy,
)

PROFILE = ("--profile", "workflow/profiles/slurm")
# the one-node test cluster: both of its CPUs, and status polling in seconds instead of the plugin's 40 s
TEST_CLUSTER = (
    "--jobs",
    "2",
    "--max-threads",
    "2",
    "--latency-wait",
    "5",
    "--slurm-init-seconds-before-status-checks",
    "1",
    "--seconds-between-status-checks",
    "2",
)


def resources_of(dry_run_stdout: str, rule: str) -> list[str]:
    """The ``resources:`` line of every job of ``rule`` in a dry run's output."""
    blocks = re.split(r"\n(?=(?:local)?rule \w+:)", dry_run_stdout)
    return [
        line.strip()
        for block in blocks
        if block.startswith((f"rule {rule}:", f"localrule {rule}:"))
        for line in block.splitlines()
        if line.strip().startswith("resources:")
    ]


# every rule that trains or samples a model on the study's device (``gpus_for``), each with jobs in the ci config
TRAINING_RULES = (
    "train_run_glad",
    "minority_train_glad",
    "train_typed_glad",
    "nodeground_search",
    "pattern_neural_train",
    "graphlm_train",
    "graphlm_sample",
)


@pytest.mark.parametrize("overlay, gpus", [((), "gpu=0"), (("config/gpu.yaml",), "gpu=1")])
def test_training_rules_ask_a_gpu_only_when_their_device_is_cuda(tmp_path, overlay, gpus):
    result = snakemake(
        workflow_copy(tmp_path),
        "-n",
        *PROFILE,
        "--configfile",
        "config/ci.yaml",
        *overlay,
        env={"GRAPHAUDIT_SLURM_ACCOUNT": "test"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for rule in TRAINING_RULES:
        lines = resources_of(result.stdout, rule)
        assert lines and all(gpus in line.split(", ") for line in lines), (rule, lines[:2])


@pytest.fixture(scope="module")
def cluster() -> dict[str, str]:
    if os.environ.get("GRAPHAUDIT_TEST_SLURM") != "1":
        pytest.skip("needs a running SLURM cluster: `make test-slurm` starts one and runs these tests")
    return {name: os.environ[name] for name in ("GRAPHAUDIT_SLURM_ACCOUNT", "GRAPHAUDIT_SLURM_PARTITION")}


def ci_config(copy: Path) -> list[str]:
    """The ci config, narrowed to ``GRAPHAUDIT_TEST_SLURM_STUDIES`` when that is set."""
    studies = [s for s in os.environ.get("GRAPHAUDIT_TEST_SLURM_STUDIES", "").split(",") if s]
    if not studies:
        return ["--configfile", "config/ci.yaml"]
    (copy / "config/studies.yaml").write_text(yaml.safe_dump({"studies": studies}))
    return ["--configfile", "config/ci.yaml", "config/studies.yaml"]


def run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = snakemake(copy, *args, timeout=2 * RUN_TIMEOUT_S)  # each sbatch job parses the workflow twice: slow
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory) -> tuple[Path, Path, str]:
    """The (narrowed) ci config run locally and through the SLURM profile, each in its own copy; and the SLURM
    run's output."""
    local = workflow_copy(tmp_path_factory.mktemp("local"))
    run(local, "--cores", "2", *ci_config(local))
    remote = workflow_copy(tmp_path_factory.mktemp("slurm"))
    result = run(remote, *PROFILE, *TEST_CLUSTER, *ci_config(remote))
    return local, remote, result.stdout + result.stderr


def test_every_computing_job_went_through_sbatch(runs):
    _, _, output = runs
    cluster_jobs = re.findall(r"^(?:rule|checkpoint) (\w+):$", output, flags=re.M)
    local_jobs = re.findall(r"^local(?:rule|checkpoint) (\w+):$", output, flags=re.M)
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", output)
    assert cluster_jobs and local_jobs and "report" in local_jobs
    assert len(submitted) == len(cluster_jobs), (len(submitted), len(cluster_jobs))
    states = subprocess.run(
        ["sacct", "-n", "-X", "-P", "-o", "JobID,State", "-j", ",".join(submitted)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(states) == sorted(f"{job}|COMPLETED" for job in submitted), states[:5]


def test_slurm_results_equal_the_local_run(runs):
    local, remote, _ = runs
    outputs = compared_outputs(local)
    assert Path("results/report/claims.csv") in outputs
    assert sorted(p.relative_to(remote) for p in (remote / "results").rglob("*") if p.is_file()) == sorted(
        p.relative_to(local) for p in (local / "results").rglob("*") if p.is_file()
    )
    for relative in outputs:
        assert_same_outside_measurements(local, remote, relative)

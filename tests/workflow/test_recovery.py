"""Recovery as printed: an error's instruction, followed literally on the real workflow, recovers the run."""

from __future__ import annotations

import re

from workflow_runs import snakemake, workflow_copy

CI = ("--cores", "1", "--configfile", "config/ci.yaml")
FOLDS = "results/glad/folds/MUTAG.json"
PROCESSED = "data/processed/MUTAG.npz"


def test_a_corrupt_intermediate_is_rebuilt_by_the_command_its_error_prints(tmp_path):
    """MUTAG's processed GraphSet truncated after a run: the folds job that reads it stops naming the file and a
    command; that command, then a plain rerun, rebuild the GraphSet and the folds, equal to the first run's."""
    copy = workflow_copy(tmp_path)
    first = snakemake(copy, FOLDS, *CI)
    assert first.returncode == 0, first.stderr[-3000:]
    folds = (copy / FOLDS).read_bytes()
    graphset = copy / PROCESSED
    graphset.write_bytes(graphset.read_bytes()[: graphset.stat().st_size // 2])
    failed = snakemake(copy, FOLDS, "--forcerun", "make_folds_glad", *CI)
    assert failed.returncode != 0
    printed = re.search(r"rebuild it from its inputs with `snakemake (\S+) --force --cores 1`", failed.stderr)
    assert printed and printed[1] == PROCESSED, failed.stderr[-3000:]
    rebuilt = snakemake(copy, printed[1], "--force", "--cores", "1", "--configfile", "config/ci.yaml")
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    rerun = snakemake(copy, FOLDS, *CI)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (copy / FOLDS).read_bytes() == folds

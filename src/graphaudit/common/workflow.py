"""What the shared rule files compute from the config (kept out of the .smk files)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from snakemake.exceptions import WorkflowError


def study_targets(registered: Mapping[str, Sequence[str]], studies: Iterable[str]) -> list[str]:
    """Every output of the listed studies, from the aggregate outputs each study's rule file ``registered``;
    a study without a workflow yet stops with a clear message."""
    studies = list(studies)
    missing = [s for s in studies if s not in registered]
    if missing:
        available = sorted(registered)
        raise WorkflowError(f"config.studies names {missing}, which have no workflow yet; available: {available}")
    return [path for study in studies for path in registered[study]]

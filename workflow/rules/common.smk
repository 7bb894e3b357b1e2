# Shared definitions: the rule-runner script, the active datasets and study list.
import glob
from pathlib import Path

from snakemake.exceptions import WorkflowError

import graphaudit.data.tasks as data_tasks
from graphaudit.data.registry import check_names

ENV = "../../envs/graphaudit.yaml"  # every rule's software, under --sdm conda (pip into .venv is the primary install)
RUN = "../scripts/run.py"  # every rule: script: RUN, params: entry="graphaudit.<module>:<function>"
DATASETS = check_names(config["data"]["datasets"])
STUDIES = list(config["studies"])
FETCH_PARAMS = {k: v for k, v in config["data"].items() if k != "datasets"}  # a list change reruns nothing


def available_graphsets(wildcards):
    """Processed GraphSets of the datasets whose fetch found a source (decided after the checkpoint)."""
    sources = {name: checkpoints.fetch_dataset.get(dataset=name).output.source for name in DATASETS}
    return [f"data/processed/{name}.npz" for name, source in sources.items() if data_tasks.is_available(source)]


CLAIMS_FILES = sorted(Path(p).stem for p in glob.glob("config/claims/*.yaml"))
STUDY_TARGETS = {}  # study slug -> its aggregate output list; each workflow/rules/<study>.smk adds itself


def study_targets(studies):
    """Every output of the listed studies; a study without a workflow yet stops with a clear message."""
    missing = [s for s in studies if s not in STUDY_TARGETS]
    if missing:
        raise WorkflowError(
            f"config.studies names {missing}, which have no workflow yet; " f"available: {sorted(STUDY_TARGETS)}"
        )
    return [path for study in studies for path in STUDY_TARGETS[study]]

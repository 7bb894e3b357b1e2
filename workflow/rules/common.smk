# Shared definitions: the rule-runner script, the active datasets, the study list and the studies' targets.
from graphaudit.data.registry import check_names

ENV = "../../envs/graphaudit.yaml"  # every rule's software, under --sdm conda (pip into .venv is the primary install)
RUN = "../scripts/run.py"  # every rule: script: RUN, params: entry="graphaudit.<module>:<function>"
DATASETS = check_names(config["data"]["datasets"])
STUDIES = list(config["studies"])
STUDY_TARGETS = {}  # study slug -> its aggregate output list; each workflow/rules/<study>.smk adds itself

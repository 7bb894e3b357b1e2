# Shared definitions: the rule-runner script, the active datasets, the study list, the studies' targets and the
# report flag (report_output: an output shown by `snakemake --report`, under its study, with its caption).
from graphaudit.common.workflow import report_output
from graphaudit.data.registry import check_names

ENV = "../../envs/graphaudit.yaml"  # every rule's software, under --sdm conda (pip into .venv is the primary install)
RUN = "../scripts/run.py"  # every rule: script: RUN, params: entry="graphaudit.<module>:<function>"
DATASETS = check_names(config["data"]["datasets"])
STUDIES = list(config["studies"])
STUDY_TARGETS = {}  # study slug -> its aggregate output list; each workflow/rules/<study>.smk adds itself

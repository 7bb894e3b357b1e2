# Report: every study's tables and figures with its claims table, as Markdown and HTML.
import glob
from pathlib import Path

from graphaudit.common.workflow import study_targets

CLAIMS_FILES = sorted(Path(p).stem for p in glob.glob("config/claims/*.yaml"))


rule report:
    input:
        datasets=rules.datasets_data.output.table,
        claims=expand("config/claims/{claims}.yaml", claims=CLAIMS_FILES),
        studies=study_targets(STUDY_TARGETS, STUDIES),
    output:
        markdown="results/report/index.md",
        html="results/report/index.html",
        claims="results/report/claims.csv",
    log:
        "logs/report/report.log",
    conda:
        ENV
    params:
        entry="graphaudit.report.assemble:report",
        scale=config["scale"],
        studies=STUDIES,
    script:
        RUN

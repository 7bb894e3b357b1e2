# Report: the verdicts first (a dashboard per study, the failed claims), then every study's claims, tables and
# figures, as Markdown and HTML; the claims table; one dashboard figure per study with headline claims at this scale.
import glob
from pathlib import Path

from graphaudit.common.workflow import study_targets
from graphaudit.report.dashboard import headline_studies

CLAIMS_FILES = sorted(Path(p).stem for p in glob.glob("config/claims/*.yaml"))
CLAIMS_PATHS = expand("config/claims/{claims}.yaml", claims=CLAIMS_FILES)
DASHBOARDS = headline_studies(CLAIMS_PATHS, config["scale"])


rule report:
    input:
        datasets=rules.datasets_data.output.table,
        claims=CLAIMS_PATHS,
        studies=study_targets(STUDY_TARGETS, STUDIES),
    output:
        markdown="results/report/index.md",
        html="results/report/index.html",
        claims=report_output("results/report/claims.csv", "claims", "tables"),
        dashboards=report_output(
            expand("results/report/figures/dashboard_{study}.png", study=DASHBOARDS), "claims", "figures"
        ),
    log:
        "logs/report/report.log",
    conda:
        ENV
    params:
        entry="graphaudit.report.assemble:report",
        scale=config["scale"],
        studies=STUDIES,
        dashboards=DASHBOARDS,
    script:
        RUN

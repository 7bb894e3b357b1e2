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


# The report of whatever is done, at any time (`make report`, and the end of `make reproduce`, failed run or not):
# no inputs but the claims files, so it runs before or during a run; a claim whose declared table is not there yet
# is PENDING. Run it with --forcerun report_partial (its outputs exist after the first time) and --nolock.
rule report_partial:
    input:
        claims=CLAIMS_PATHS,
    output:
        markdown="results/report/partial/index.md",
        html="results/report/partial/index.html",
        claims="results/report/partial/claims.csv",
        dashboards=expand("results/report/partial/figures/dashboard_{study}.png", study=DASHBOARDS),
    log:
        "logs/report/report_partial.log",
    conda:
        ENV
    params:
        entry="graphaudit.report.assemble:report_partial",
        scale=config["scale"],
        studies=STUDIES,
        dashboards=DASHBOARDS,
        outputs=[str(path) for path in study_targets(STUDY_TARGETS, STUDIES)],
        datasets=str(rules.datasets_data.output.table),
    script:
        RUN

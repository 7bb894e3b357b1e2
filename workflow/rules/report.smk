# Report: every study's tables and figures with its claims table, as Markdown and HTML.


rule report:
    input:
        datasets="results/data/datasets.csv",
        claims=expand("config/claims/{claims}.yaml", claims=CLAIMS_FILES),
        studies=study_targets(STUDIES),
    output:
        markdown="results/report/index.md",
        html="results/report/index.html",
        claims="results/report/claims.csv",
    log:
        "logs/report/report.log",
    conda:
        ENV
    params:
        entry="graphaudit.report.assemble:build_report",
        scale=config["scale"],
        studies=STUDIES,
    script:
        RUN

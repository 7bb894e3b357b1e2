# nodeground study (paper 001), part 2: the analysis layer. It reads whatever run-level records exist under
# nodeground.records (<records>/{method}/{dataset}/{split}/p{k}.parquet, written by part 1's searches) and
# builds endpoints, cohorts, every table, figure and check; no records give empty tables and NOT RUN claims.
NG = config["nodeground"]
NG_OUT = "results/nodeground"
NG_RECORD_FILES = sorted(glob.glob(f"{NG['records']}/*/*/*/p*.parquet"))
NG_PROPERTIES = [NG["properties"]] if Path(NG["properties"]).exists() else []
NG_COHORTS = f"{NG_OUT}/cohorts.parquet"
NG_TABLES = f"{NG_OUT}/tables"
NG_FIGURES = f"{NG_OUT}/figures"


rule nodeground_records:
    input:
        records=NG_RECORD_FILES,
    output:
        trials=f"{NG_OUT}/trials_all.parquet",
        coverage=f"{NG_TABLES}/coverage.csv",
    log:
        "logs/nodeground/records.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_records",
        records=NG["records"],
    script:
        RUN


rule nodeground_endpoints:
    input:
        trials=rules.nodeground_records.output.trials,
    output:
        endpoints=f"{NG_OUT}/endpoints.parquet",
    log:
        "logs/nodeground/endpoints.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_endpoints",
        gfms=NG["gfms"],
    script:
        RUN


rule nodeground_cohorts:
    input:
        endpoints=rules.nodeground_endpoints.output.endpoints,
    output:
        cohorts=NG_COHORTS,
        dropped=f"{NG_OUT}/cohorts_dropped.parquet",
    log:
        "logs/nodeground/cohorts.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_cohorts",
        cohorts=NG["cohorts"],
    script:
        RUN


rule nodeground_elo:
    input:
        cohorts=NG_COHORTS,
    output:
        elo=f"{NG_TABLES}/elo.csv",
    log:
        "logs/nodeground/elo.log",
    benchmark:
        "benchmarks/nodeground/elo.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_elo",
        elo=NG["elo"],
        primary=NG["primary"],
        seed=config["seed"],
    script:
        RUN


rule nodeground_ranks:
    input:
        cohorts=NG_COHORTS,
    output:
        ranks=f"{NG_TABLES}/ranks.csv",
    log:
        "logs/nodeground/ranks.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_ranks",
        primary=NG["primary"],
    script:
        RUN


rule nodeground_winrate:
    input:
        cohorts=NG_COHORTS,
    output:
        winrate=f"{NG_TABLES}/winrate.csv",
    log:
        "logs/nodeground/winrate.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_winrate",
        primary=NG["primary"],
        tie_eps=NG["elo"]["tie_eps"],
    script:
        RUN


rule nodeground_frontier:
    input:
        cohorts=NG_COHORTS,
    output:
        frontier=f"{NG_TABLES}/frontier.csv",
    log:
        "logs/nodeground/frontier.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_frontier",
        primary=NG["primary"],
        mi=NG["mi"],
        reference=NG["cohorts"]["reference"],
    script:
        RUN


rule table3_nodeground:
    input:
        cohorts=NG_COHORTS,
        dropped=rules.nodeground_cohorts.output.dropped,
        endpoints=rules.nodeground_endpoints.output.endpoints,
    output:
        table3=f"{NG_TABLES}/table3.csv",
    log:
        "logs/nodeground/table3.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table3",
        reference=NG["cohorts"]["reference"],
    script:
        RUN


rule table4_nodeground:
    input:
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        table4=f"{NG_TABLES}/table4.csv",
    log:
        "logs/nodeground/table4.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table4",
    script:
        RUN


rule table5_nodeground:
    input:
        cohorts=NG_COHORTS,
        elo=rules.nodeground_elo.output.elo,
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        table5=f"{NG_TABLES}/table5.csv",
        summary=f"{NG_TABLES}/table5_summary.csv",
    log:
        "logs/nodeground/table5.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table5",
        primary=NG["primary"],
        mi=NG["mi"],
        top_k=NG["aggregation"]["top_k"],
    script:
        RUN


rule table6_nodeground:
    input:
        cohorts=NG_COHORTS,
    output:
        table6=f"{NG_TABLES}/table6.csv",
        pairs=f"{NG_TABLES}/wilcoxon.csv",
    log:
        "logs/nodeground/table6.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table6",
        primary=NG["primary"],
        wilcoxon=NG["wilcoxon"],
    script:
        RUN


rule table7_nodeground:
    input:
        trials=rules.nodeground_records.output.trials,
        cohorts=NG_COHORTS,
    output:
        table7=f"{NG_TABLES}/table7.csv",
        curve=f"{NG_TABLES}/tuning.csv",
    log:
        "logs/nodeground/table7.log",
    benchmark:
        "benchmarks/nodeground/table7.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table7",
        gfms=NG["gfms"],
        primary=NG["primary"],
        tuning=NG["tuning"],
        seed=config["seed"],
    script:
        RUN


rule table12_nodeground:
    input:
        cohorts=NG_COHORTS,
        properties=NG_PROPERTIES,
    output:
        table12=f"{NG_TABLES}/table12.csv",
        subgroups=f"{NG_TABLES}/subgroups.csv",
    log:
        "logs/nodeground/table12.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table12",
        primary=NG["primary"],
        elo=NG["elo"],
        subgroups=NG["subgroups"],
    script:
        RUN


rule nodeground_checks:
    input:
        coverage=rules.nodeground_records.output.coverage,
        table3=rules.table3_nodeground.output.table3,
        endpoints=rules.nodeground_endpoints.output.endpoints,
        elo=rules.nodeground_elo.output.elo,
        ranks=rules.nodeground_ranks.output.ranks,
        winrate=rules.nodeground_winrate.output.winrate,
        frontier=rules.nodeground_frontier.output.frontier,
        table4=rules.table4_nodeground.output.table4,
        table5=rules.table5_nodeground.output.table5,
        table5_summary=rules.table5_nodeground.output.summary,
        table6=rules.table6_nodeground.output.table6,
        pairs=rules.table6_nodeground.output.pairs,
        table7=rules.table7_nodeground.output.table7,
    output:
        checks=f"{NG_TABLES}/checks.csv",
    log:
        "logs/nodeground/checks.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_checks",
        tuning=NG["tuning"],
    script:
        RUN


rule fig7_nodeground:
    input:
        subgroups=rules.table12_nodeground.output.subgroups,
    output:
        fig7=f"{NG_FIGURES}/fig7.png",
    log:
        "logs/nodeground/fig7.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig7",
    script:
        RUN


rule fig8_nodeground:
    input:
        frontier=rules.nodeground_frontier.output.frontier,
    output:
        fig8=f"{NG_FIGURES}/fig8.png",
    log:
        "logs/nodeground/fig8.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig8",
    script:
        RUN


rule fig10_nodeground:
    input:
        elo=rules.nodeground_elo.output.elo,
    output:
        fig10=f"{NG_FIGURES}/fig10.png",
    log:
        "logs/nodeground/fig10.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig10",
    script:
        RUN


rule fig11_nodeground:
    input:
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        fig11=f"{NG_FIGURES}/fig11.png",
    log:
        "logs/nodeground/fig11.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig11",
    script:
        RUN


rule fig12_nodeground:
    input:
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        fig12=f"{NG_FIGURES}/fig12.png",
    log:
        "logs/nodeground/fig12.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig12",
    script:
        RUN


rule fig13_nodeground:
    input:
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        fig13=f"{NG_FIGURES}/fig13.png",
    log:
        "logs/nodeground/fig13.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig13",
    script:
        RUN


rule fig14_nodeground:
    input:
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        fig14=f"{NG_FIGURES}/fig14.png",
    log:
        "logs/nodeground/fig14.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig14",
    script:
        RUN


rule fig15_nodeground:
    input:
        frontier=rules.nodeground_frontier.output.frontier,
    output:
        fig15=f"{NG_FIGURES}/fig15.png",
    log:
        "logs/nodeground/fig15.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig15",
    script:
        RUN


rule fig16_nodeground:
    input:
        frontier=rules.nodeground_frontier.output.frontier,
    output:
        fig16=f"{NG_FIGURES}/fig16.png",
    log:
        "logs/nodeground/fig16.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig16",
    script:
        RUN


rule fig17_nodeground:
    input:
        winrate=rules.nodeground_winrate.output.winrate,
    output:
        fig17=f"{NG_FIGURES}/fig17.png",
    log:
        "logs/nodeground/fig17.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig17",
    script:
        RUN


rule fig18_nodeground:
    input:
        curve=rules.table7_nodeground.output.curve,
    output:
        fig18=f"{NG_FIGURES}/fig18.png",
    log:
        "logs/nodeground/fig18.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.figures:fig18",
    script:
        RUN


rule nodeground:
    input:
        rules.nodeground_records.output.coverage,
        rules.nodeground_elo.output,
        rules.nodeground_ranks.output,
        rules.nodeground_winrate.output,
        rules.nodeground_frontier.output,
        rules.table3_nodeground.output,
        rules.table4_nodeground.output,
        rules.table5_nodeground.output,
        rules.table6_nodeground.output,
        rules.table7_nodeground.output,
        rules.table12_nodeground.output,
        rules.nodeground_checks.output,
        rules.fig7_nodeground.output,
        rules.fig8_nodeground.output,
        rules.fig10_nodeground.output,
        rules.fig11_nodeground.output,
        rules.fig12_nodeground.output,
        rules.fig13_nodeground.output,
        rules.fig14_nodeground.output,
        rules.fig15_nodeground.output,
        rules.fig16_nodeground.output,
        rules.fig17_nodeground.output,
        rules.fig18_nodeground.output,


STUDY_TARGETS["nodeground"] = list(rules.nodeground.input)

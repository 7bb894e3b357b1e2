# nodeground study (paper 001), part 2: the analysis layer. It reads whatever run-level records exist under
# nodeground.records (<records>/{method}/{dataset}/{split}/p{k}.parquet, written by part 1's searches) and
# builds endpoints, cohorts, every table, figure and check; no records give empty tables and NOT RUN claims.
from graphaudit.common.workflow import gpus_for
from graphaudit.nodeground.plan import search_plan

NG = config["nodeground"]
NG_PLAN = search_plan(NG)  # the whole section as typed settings, the methods checked (user methods against their class)
NG_OUT = "results/nodeground"
NG_COHORTS = f"{NG_OUT}/cohorts.parquet"
NG_TABLES = f"{NG_OUT}/tables"
NG_FIGURES = f"{NG_OUT}/figures"


# ---- part 1, data (graphaudit.nodeground.data_tasks) -------------------------------------------------------
# nodeground.datasets: registry node datasets (read from their verified raw files, the SOURCE.json of the data
# fetch checkpoint) and CSBM designs (generated) -> one preprocessed graph each (spec 3.4), the shared splits of
# every label regime (spec 3.5) and the properties table (spec 4.2). A dataset no source provided (data.on_unavailable:
# record) gives unavailable graph and splits files: graphaudit.nodeground.graph.unavailable_reason says why.
from graphaudit.nodeground.data_tasks import data_plan

NG_DATA = data_plan(NG, config["seed"])  # checked here: a bad dataset name, CSBM design or split stops the parse
NG_GRAPH = f"{NG_OUT}/graphs/{{dataset}}.npz"
NG_SPLITS = f"{NG_OUT}/splits/{{dataset}}/{{split}}.npz"


rule nodeground_graph:
    input:
        source=lambda w: NG_DATA.sources[w.dataset],
    output:
        graph=NG_GRAPH,
    log:
        "logs/nodeground/graph_{dataset}.log",
    benchmark:
        "benchmarks/nodeground/graph_{dataset}.tsv"
    wildcard_constraints:
        dataset="[^/]+",
    conda:
        ENV
    resources:
        mem_mb=8000,
        runtime=30,
    params:
        entry="graphaudit.nodeground.data_tasks:nodeground_graph",
        csbm=lambda w: NG_DATA.csbm[w.dataset],
        seed=lambda w: NG_DATA.seeds[w.dataset],
    script:
        RUN


rule nodeground_splits:
    input:
        graph=NG_GRAPH,
    output:
        splits=NG_SPLITS,
    log:
        "logs/nodeground/splits_{dataset}_{split}.log",
    wildcard_constraints:
        dataset="[^/]+",
        split=r"\d+-\d+-\d+",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.data_tasks:nodeground_splits",
        partitions=NG["splits"]["partitions"],
        seed=config["seed"],
    script:
        RUN


rule nodeground_properties:
    input:
        graphs=expand(NG_GRAPH, dataset=NG_DATA.datasets),
    output:
        properties=NG["properties"],
    log:
        "logs/nodeground/properties.log",
    benchmark:
        "benchmarks/nodeground/properties.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.data_tasks:nodeground_properties",
    script:
        RUN


# ---- part 1, search (graphaudit.nodeground.train_tasks) ----------------------------------------------------
# One job per (method, dataset, split, partition): the default, then nodeground.search.trials - 1 unique sampled
# configurations, each trained under the caps; the rows go to records.record_path (resumable trial by trial).
NG_RECORD = f"{NG['records']}/{{method}}/{{dataset}}/{{split}}/p{{partition}}.parquet"
NG_RECORD_FILES = NG_PLAN.record_files()  # every record file of the study's DAG (the GFM block adds its own)


rule nodeground_search:
    input:
        graph=NG_GRAPH,
        splits=NG_SPLITS,
    output:
        records=NG_RECORD,
    log:
        "logs/nodeground/search/{method}/{dataset}/{split}/p{partition}.log",
    benchmark:
        "benchmarks/nodeground/search/{method}/{dataset}/{split}/p{partition}.tsv"
    wildcard_constraints:
        method=NG_PLAN.method_pattern(),
        dataset="[^/]+",
        split=r"\d+-\d+-\d+",
        partition=r"\d+",
    conda:
        ENV
    threads: NG_PLAN.settings.threads
    resources:
        **NG["resources"]["nodeground_search"],
        gpu=gpus_for(NG["device"]),  # one GPU only when nodeground.device names CUDA
    params:
        entry="graphaudit.nodeground.train_tasks:nodeground_search",
        method=NG_PLAN.method_entry,
        search=NG_PLAN.search_params(),
    script:
        RUN


# ---- part 1, GFMs (graphaudit.nodeground.gfm) --------------------------------------------------------------
# One job per (gfm, dataset, split, partition) of nodeground.gfm.run: the GFM's adapter on its verified official
# artifact (config/nodeground/gfms.yaml: sha256 checked, pickles loaded through an allow-list) adapts with the
# backbone frozen and writes one record (trial 1) at the same path as a search; a GFM without an adapter or an
# artifact, or a dataset no source provided, writes status=unavailable with the reason (missing cells for part 2).
from graphaudit.nodeground.plan import gfm_run, gfm_wildcard

NG_GFMS = gfm_run(NG["gfm"], NG["gfms"])  # checked here: each in the registry and in nodeground.gfms
NG_RECORD_FILES = NG_RECORD_FILES + NG_PLAN.record_files(tuple(NG_GFMS))


rule nodeground_gfm:
    input:
        graph=NG_GRAPH,
        splits=NG_SPLITS,
        registry=NG["gfm"]["registry"],
    output:
        trials=f"{NG['records']}/{{gfm}}/{{dataset}}/{{split}}/p{{partition}}.parquet",
    log:
        "logs/nodeground/gfm/{gfm}/{dataset}/{split}/p{partition}.log",
    benchmark:
        "benchmarks/nodeground/gfm/{gfm}/{dataset}/{split}/p{partition}.tsv"
    wildcard_constraints:
        gfm=gfm_wildcard(NG_GFMS),
        dataset="[^/]+",
        split=r"\d+-\d+-\d+",
        partition=r"\d+",
    conda:
        ENV
    threads: NG_PLAN.settings.threads
    resources:
        **NG["resources"]["nodeground_gfm"],
    params:
        entry="graphaudit.nodeground.gfm.gfm_trials:nodeground_gfm",
        artifacts=NG["gfm"]["artifacts"],
        mirror=config["data"]["mirror"],
    script:
        RUN


# ---- part 2, analysis --------------------------------------------------------------------------------------


rule nodeground_trials:
    input:
        NG_RECORD_FILES,


rule nodeground_records:
    input:
        records=NG_RECORD_FILES,
    output:
        trials=f"{NG_OUT}/trials_all.parquet",
        coverage=report_output(f"{NG_TABLES}/coverage.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/records.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_records",
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
        elo=report_output(f"{NG_TABLES}/elo.csv", "nodeground", "tables"),
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
        ranks=report_output(f"{NG_TABLES}/ranks.csv", "nodeground", "tables"),
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
        winrate=report_output(f"{NG_TABLES}/winrate.csv", "nodeground", "tables"),
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
        frontier=report_output(f"{NG_TABLES}/frontier.csv", "nodeground", "tables"),
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
        table3=report_output(f"{NG_TABLES}/table3.csv", "nodeground", "tables"),
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
        table4=report_output(f"{NG_TABLES}/table4.csv", "nodeground", "tables"),
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
        table5=report_output(f"{NG_TABLES}/table5.csv", "nodeground", "tables"),
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


rule table5_summary_nodeground:
    input:
        cohorts=NG_COHORTS,
        elo=rules.nodeground_elo.output.elo,
        ranks=rules.nodeground_ranks.output.ranks,
    output:
        table5_summary=report_output(f"{NG_TABLES}/table5_summary.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/table5_summary.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table5_summary",
        primary=NG["primary"],
        mi=NG["mi"],
        top_k=NG["aggregation"]["top_k"],
    script:
        RUN


rule nodeground_wilcoxon:
    input:
        cohorts=NG_COHORTS,
    output:
        pairs=f"{NG_OUT}/wilcoxon.parquet",
    log:
        "logs/nodeground/wilcoxon_pairs.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_wilcoxon",
        primary=NG["primary"],
        wilcoxon=NG["wilcoxon"],
    script:
        RUN


rule wilcoxon_nodeground:
    input:
        pairs=rules.nodeground_wilcoxon.output.pairs,
    output:
        wilcoxon=report_output(f"{NG_TABLES}/wilcoxon.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/wilcoxon.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:wilcoxon",
    script:
        RUN


rule table6_nodeground:
    input:
        pairs=rules.nodeground_wilcoxon.output.pairs,
    output:
        table6=report_output(f"{NG_TABLES}/table6.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/table6.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table6",
        alpha=NG["wilcoxon"]["alpha"],
    script:
        RUN


rule nodeground_tuning:
    input:
        trials=rules.nodeground_records.output.trials,
        cohorts=NG_COHORTS,
    output:
        curve=f"{NG_OUT}/tuning.parquet",
    log:
        "logs/nodeground/tuning_curve.log",
    benchmark:
        "benchmarks/nodeground/tuning.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tasks:nodeground_tuning",
        gfms=NG["gfms"],
        primary=NG["primary"],
        budgets=NG["tuning"]["budgets"],
        reorderings=NG["tuning"]["reorderings"],
        seed=config["seed"],
    script:
        RUN


rule tuning_nodeground:
    input:
        curve=rules.nodeground_tuning.output.curve,
    output:
        tuning=report_output(f"{NG_TABLES}/tuning.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/tuning.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:tuning",
    script:
        RUN


rule table7_nodeground:
    input:
        curve=rules.nodeground_tuning.output.curve,
    output:
        table7=report_output(f"{NG_TABLES}/table7.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/table7.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table7",
        within=NG["tuning"]["within"],
    script:
        RUN


rule table12_nodeground:
    input:
        cohorts=NG_COHORTS,
        properties=rules.nodeground_properties.output.properties,
    output:
        table12=report_output(f"{NG_TABLES}/table12.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/table12.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:table12",
        subgroups=NG["subgroups"],
    script:
        RUN


rule subgroups_nodeground:
    input:
        cohorts=NG_COHORTS,
        properties=rules.nodeground_properties.output.properties,
    output:
        subgroups=report_output(f"{NG_TABLES}/subgroups.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/subgroups.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:subgroups",
        primary=NG["primary"],
        elo=NG["elo"],
        subgroups=NG["subgroups"],
    script:
        RUN


rule checks_nodeground:
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
        table5_summary=rules.table5_summary_nodeground.output.table5_summary,
        table6=rules.table6_nodeground.output.table6,
        pairs=rules.wilcoxon_nodeground.output.wilcoxon,
        table7=rules.table7_nodeground.output.table7,
    output:
        checks=report_output(f"{NG_TABLES}/checks.csv", "nodeground", "tables"),
    log:
        "logs/nodeground/checks.log",
    conda:
        ENV
    params:
        entry="graphaudit.nodeground.tables:checks",
        budgets=NG["tuning"]["budgets"],
        reorderings=NG["tuning"]["reorderings"],
    script:
        RUN


rule fig7_nodeground:
    input:
        subgroups=rules.subgroups_nodeground.output.subgroups,
    output:
        fig7=report_output(f"{NG_FIGURES}/fig7.png", "nodeground", "figures"),
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
        fig8=report_output(f"{NG_FIGURES}/fig8.png", "nodeground", "figures"),
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
        fig10=report_output(f"{NG_FIGURES}/fig10.png", "nodeground", "figures"),
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
        fig11=report_output(f"{NG_FIGURES}/fig11.png", "nodeground", "figures"),
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
        fig12=report_output(f"{NG_FIGURES}/fig12.png", "nodeground", "figures"),
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
        fig13=report_output(f"{NG_FIGURES}/fig13.png", "nodeground", "figures"),
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
        fig14=report_output(f"{NG_FIGURES}/fig14.png", "nodeground", "figures"),
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
        fig15=report_output(f"{NG_FIGURES}/fig15.png", "nodeground", "figures"),
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
        fig16=report_output(f"{NG_FIGURES}/fig16.png", "nodeground", "figures"),
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
        fig17=report_output(f"{NG_FIGURES}/fig17.png", "nodeground", "figures"),
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
        curve=rules.tuning_nodeground.output.tuning,
    output:
        fig18=report_output(f"{NG_FIGURES}/fig18.png", "nodeground", "figures"),
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
        rules.table5_summary_nodeground.output,
        rules.wilcoxon_nodeground.output,
        rules.table6_nodeground.output,
        rules.tuning_nodeground.output,
        rules.table7_nodeground.output,
        rules.table12_nodeground.output,
        rules.subgroups_nodeground.output,
        rules.checks_nodeground.output,
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

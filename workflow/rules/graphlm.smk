# graphlm study (paper 003), part 1: serialization, gSpan mining, bootstrap calibration, generated-set evaluator.
# Each table and figure has its own rule <name>_graphlm -> graphaudit.graphlm.tables:<name> (figures: .figures).
from graphaudit.common.settings import load_settings
from graphaudit.graphlm import lm as graphlm_lm
from graphaudit.graphlm.settings import GraphlmSettings

GRAPHLM_CONFIG = config["graphlm"]  # params pass plain slices of it (Snakemake compares them to decide reruns)
GRAPHLM = load_settings(GraphlmSettings, GRAPHLM_CONFIG, "graphlm")
GRAPHLM_OUT = "results/graphlm"
GRAPHLM_STATS = expand(f"{GRAPHLM_OUT}/{{dataset}}/stats.json", dataset=GRAPHLM.datasets)
GRAPHLM_BOOTSTRAP = expand(
    f"{GRAPHLM_OUT}/{{dataset}}/bootstrap/r{{replicate}}.json",
    dataset=GRAPHLM.datasets,
    replicate=range(GRAPHLM.bootstrap.replicates),
)
GRAPHLM_GENERATORS = (
    {  # dataset -> the generators its generated sets come from: training-free, then each model's main set
        dataset: [*GRAPHLM.generators, *(s.name for s in graphlm_lm.main_sets(GRAPHLM.lm, dataset))]
        for dataset in GRAPHLM.datasets
    }
)
GRAPHLM_EVALUATIONS = [
    f"{GRAPHLM_OUT}/{dataset}/evaluation/{generator}.json"
    for dataset, generators in GRAPHLM_GENERATORS.items()
    for generator in generators
]
GRAPHLM_MMDS = [
    f"{GRAPHLM_OUT}/{dataset}/mmd/{generator}.json"
    for dataset, generators in GRAPHLM_GENERATORS.items()
    for generator in generators
]


rule graphlm_corpus:
    input:
        graphset="data/processed/{dataset}.npz",
    output:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        codes="results/graphlm/{dataset}/train.codes.txt",
        stats="results/graphlm/{dataset}/stats.json",
    log:
        "logs/graphlm/corpus_{dataset}.log",
    wildcard_constraints:
        dataset="[^+/]+",  # a name with + is a scale-proxy subset (rule graphlm_subset)
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_corpus",
        components=GRAPHLM_CONFIG["components"],
        dfs_code=GRAPHLM_CONFIG["dfs_code"],
        tuple_order=GRAPHLM_CONFIG["tuple_order"],
    script:
        RUN


rule graphlm_mine_training:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
    output:
        patterns="results/graphlm/{dataset}/patterns.json",
    log:
        "logs/graphlm/mine_{dataset}.log",
    benchmark:
        "benchmarks/graphlm/mine_{dataset}.tsv"
    conda:
        ENV
    threads: 4  # gBolt's OpenMP threads; Snakemake lowers this to --cores
    resources:
        mem_mb=16000,
        runtime=240,
    params:
        entry="graphaudit.graphlm.tasks:graphlm_mine_training",
        gspan=GRAPHLM_CONFIG["gspan"],
    script:
        RUN


rule graphlm_bootstrap:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        patterns="results/graphlm/{dataset}/patterns.json",
    output:
        metrics="results/graphlm/{dataset}/bootstrap/r{replicate}.json",
    log:
        "logs/graphlm/bootstrap_{dataset}_r{replicate}.log",
    conda:
        ENV
    resources:
        mem_mb=16000,
        runtime=240,
    params:
        entry="graphaudit.graphlm.tasks:graphlm_bootstrap",
        gspan=GRAPHLM_CONFIG["gspan"],
        n_gen=GRAPHLM_CONFIG["n_gen"],
    script:
        RUN


rule graphlm_generate:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
    output:
        sequences="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
    log:
        "logs/graphlm/generate_{dataset}_{generator}.log",
    wildcard_constraints:
        generator="bootstrap|random_labels|edge_swap",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_generate",
        n_gen=GRAPHLM_CONFIG["n_gen"],
    script:
        RUN


rule graphlm_evaluate:
    input:
        generated="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        patterns="results/graphlm/{dataset}/patterns.json",
        bootstrap=expand(
            "results/graphlm/{{dataset}}/bootstrap/r{replicate}.json", replicate=range(GRAPHLM.bootstrap.replicates)
        ),
    output:
        metrics="results/graphlm/{dataset}/evaluation/{generator}.json",
    log:
        "logs/graphlm/evaluate_{dataset}_{generator}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_evaluate",
        gspan=GRAPHLM_CONFIG["gspan"],
    script:
        RUN


rule graphlm_mmd:
    input:
        generated="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
        sequences="results/graphlm/{dataset}/train.dfs.txt",
    output:
        mmd="results/graphlm/{dataset}/mmd/{generator}.json",
    log:
        "logs/graphlm/mmd_{dataset}_{generator}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_mmd",
    script:
        RUN


rule graphlm_sensitivity:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        generated=lambda wildcards: [
            f"results/graphlm/{wildcards.dataset}/generated/{generator}.dfs.txt"
            for generator in GRAPHLM_GENERATORS[wildcards.dataset]
        ],
    output:
        rows="results/graphlm/{dataset}/sensitivity.json",
    log:
        "logs/graphlm/sensitivity_{dataset}.log",
    conda:
        ENV
    resources:
        mem_mb=16000,  # sigma 0.01 on ENZYMES / PROTEINS mines far more patterns than 0.1
        runtime=240,
    params:
        entry="graphaudit.graphlm.tasks:graphlm_sensitivity",
        gspan=GRAPHLM_CONFIG["gspan"],
        sigma=GRAPHLM_CONFIG["sensitivity"]["sigma"],
    script:
        RUN


rule table9_graphlm:
    input:
        stats=GRAPHLM_STATS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/table9.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/table9.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:table9",
    script:
        RUN


rule table10_graphlm:
    input:
        stats=GRAPHLM_STATS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/table10.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/table10.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:table10",
    script:
        RUN


rule patterns_graphlm:
    input:
        patterns=expand(f"{GRAPHLM_OUT}/{{dataset}}/patterns.json", dataset=GRAPHLM.datasets),
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/patterns.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/patterns.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:patterns",
    script:
        RUN


rule bootstrap_graphlm:
    input:
        bootstrap=GRAPHLM_BOOTSTRAP,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/bootstrap.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/bootstrap.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:bootstrap",
    script:
        RUN


rule evaluation_graphlm:
    input:
        evaluations=GRAPHLM_EVALUATIONS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/evaluation.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/evaluation.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:evaluation",
    script:
        RUN


rule strata_graphlm:
    input:
        evaluations=GRAPHLM_EVALUATIONS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/strata.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/strata.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:strata",
    script:
        RUN


rule sensitivity_graphlm:
    input:
        evaluations=GRAPHLM_EVALUATIONS,
        sensitivity=expand(f"{GRAPHLM_OUT}/{{dataset}}/sensitivity.json", dataset=GRAPHLM.sensitivity.datasets),
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/sensitivity.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/sensitivity.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:sensitivity",
    script:
        RUN


rule fig1_graphlm:
    input:
        evaluation=rules.evaluation_graphlm.output.table,
        bootstrap=rules.bootstrap_graphlm.output.table,
    output:
        figure=report_output(f"{GRAPHLM_OUT}/figures/fig1.png", "graphlm", "figures"),
    log:
        "logs/graphlm/figures/fig1.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.figures:fig1",
    script:
        RUN

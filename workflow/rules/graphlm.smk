# graphlm study (paper 003), part 1: serialization, gSpan mining, bootstrap calibration, generated-set evaluator.

GRAPHLM = config["graphlm"]
GRAPHLM_DATASETS = list(GRAPHLM["datasets"])
GRAPHLM_REPLICATES = list(range(GRAPHLM["bootstrap"]["replicates"]))
GRAPHLM_GENERATORS = list(GRAPHLM["generators"])


rule graphlm_corpus:
    input:
        graphset="data/processed/{dataset}.npz",
    output:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        stats="results/graphlm/{dataset}/stats.json",
    log:
        "logs/graphlm/corpus_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:build_corpus",
        components=GRAPHLM["components"],
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
        entry="graphaudit.graphlm.tasks:mine_training",
        gspan=GRAPHLM["gspan"],
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
        entry="graphaudit.graphlm.tasks:bootstrap_replicate",
        gspan=GRAPHLM["gspan"],
        n_gen=GRAPHLM["n_gen"],
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
        generator="bootstrap|random_labels",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:generate",
        n_gen=GRAPHLM["n_gen"],
    script:
        RUN


rule graphlm_evaluate:
    input:
        generated="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        patterns="results/graphlm/{dataset}/patterns.json",
        bootstrap=expand("results/graphlm/{{dataset}}/bootstrap/r{replicate}.json", replicate=GRAPHLM_REPLICATES),
    output:
        metrics="results/graphlm/{dataset}/evaluation/{generator}.json",
    log:
        "logs/graphlm/evaluate_{dataset}_{generator}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:evaluate",
        gspan=GRAPHLM["gspan"],
    script:
        RUN


rule graphlm_sensitivity:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        generated=expand("results/graphlm/{{dataset}}/generated/{generator}.dfs.txt", generator=GRAPHLM_GENERATORS),
    output:
        rows="results/graphlm/{dataset}/sensitivity.json",
    log:
        "logs/graphlm/sensitivity_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:sensitivity",
        gspan=GRAPHLM["gspan"],
        sigma=GRAPHLM["sensitivity"]["sigma"],
    script:
        RUN


rule graphlm_tables:
    input:
        stats=expand("results/graphlm/{dataset}/stats.json", dataset=GRAPHLM_DATASETS),
        patterns=expand("results/graphlm/{dataset}/patterns.json", dataset=GRAPHLM_DATASETS),
        bootstrap=expand(
            "results/graphlm/{dataset}/bootstrap/r{replicate}.json",
            dataset=GRAPHLM_DATASETS,
            replicate=GRAPHLM_REPLICATES,
        ),
        evaluations=expand(
            "results/graphlm/{dataset}/evaluation/{generator}.json",
            dataset=GRAPHLM_DATASETS,
            generator=GRAPHLM_GENERATORS,
        ),
        sensitivity=expand("results/graphlm/{dataset}/sensitivity.json", dataset=GRAPHLM["sensitivity"]["datasets"]),
    output:
        datasets="results/graphlm/tables/datasets.csv",
        serialization="results/graphlm/tables/serialization.csv",
        patterns="results/graphlm/tables/patterns.csv",
        bootstrap="results/graphlm/tables/bootstrap.csv",
        evaluation="results/graphlm/tables/evaluation.csv",
        strata="results/graphlm/tables/strata.csv",
        fig1="results/graphlm/figures/fig1.png",
        sensitivity="results/graphlm/tables/sensitivity.csv",
    log:
        "logs/graphlm/tables.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:build_tables",
    script:
        RUN


rule graphlm_mining:
    input:
        rules.graphlm_tables.output,


rule table9_graphlm:
    input:
        rules.graphlm_tables.output.datasets,


rule table10_graphlm:
    input:
        rules.graphlm_tables.output.serialization,


rule fig1_graphlm:
    input:
        rules.graphlm_tables.output.fig1,


rule graphlm:
    input:
        rules.graphlm_tables.output,


STUDY_TARGETS["graphlm"] = list(rules.graphlm.input)

# glad study (paper 002): UB-GOLD's protocol, data audits, training-free references, kernel baselines.
import graphaudit.glad.datasets as glad_datasets

GLAD = config["glad"]
GLAD_DATASETS = list(GLAD["datasets"])
GLAD_AUDITED = GLAD_DATASETS + [d for d in GLAD["audit_only"] if d not in GLAD_DATASETS]
GLAD_SHARED = {k: GLAD[k] for k in ("fit_on", "constant_features")}


def glad_graphsets(wildcards):
    return [f"data/processed/{name}.npz" for name in glad_datasets.source_datasets(wildcards.dataset)]


rule glad_folds:
    input:
        graphsets=glad_graphsets,
    output:
        folds="results/glad/folds/{dataset}.json",
    log:
        "logs/glad/folds_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:make_folds",
        protocol=GLAD["protocol"],
    script:
        RUN


rule glad_features:
    input:
        graphsets=glad_graphsets,
    output:
        features="results/glad/features/{dataset}.npz",
    log:
        "logs/glad/features_{dataset}.log",
    benchmark:
        "benchmarks/glad/features_{dataset}.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:graph_features",
        max_k=GLAD["references"]["max_k"],
        closed_form_graphlets=GLAD["closed_form_graphlets"],
        constant_features=GLAD["constant_features"],
    script:
        RUN


rule glad_audit:
    input:
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
        features="results/glad/features/{dataset}.npz",
    output:
        table="results/glad/audits/{dataset}.csv",
    log:
        "logs/glad/audit_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:audit",
        inverted_splits=GLAD["inverted_splits"],
    script:
        RUN


rule glad_reference_scores:
    input:
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
        features="results/glad/features/{dataset}.npz",
    output:
        table="results/glad/references/{dataset}.csv",
    log:
        "logs/glad/references_{dataset}.log",
    benchmark:
        "benchmarks/glad/references_{dataset}.tsv"
    conda:
        ENV
    params:
        **GLAD_SHARED,
        entry="graphaudit.glad.tasks:run_references",
        references=GLAD["references"],
    script:
        RUN


rule glad_kernel_scores:
    input:
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
    output:
        table="results/glad/kernels/{dataset}_{kernel}.csv",
    log:
        "logs/glad/kernels_{dataset}_{kernel}.log",
    benchmark:
        "benchmarks/glad/kernels_{dataset}_{kernel}.tsv"
    wildcard_constraints:
        kernel="WL|PK",
    conda:
        ENV
    resources:
        mem_mb=8000,
        runtime=240,
    params:
        **GLAD_SHARED,
        entry="graphaudit.glad.tasks:run_kernels",
        kernels=GLAD["kernels"],
    script:
        RUN


rule glad_pairing:
    input:
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
    output:
        table="results/glad/pairing/{dataset}.csv",
    log:
        "logs/glad/pairing_{dataset}.log",
    conda:
        ENV
    params:
        **GLAD_SHARED,
        entry="graphaudit.glad.tasks:run_pairing",
        kernels=GLAD["kernels"],
    script:
        RUN


rule glad_tables:
    input:
        folds=expand("results/glad/folds/{dataset}.json", dataset=GLAD_AUDITED),
        audits=expand("results/glad/audits/{dataset}.csv", dataset=GLAD_AUDITED),
        references=expand("results/glad/references/{dataset}.csv", dataset=GLAD_DATASETS),
        kernels=expand(
            "results/glad/kernels/{dataset}_{kernel}.csv", dataset=GLAD_DATASETS, kernel=GLAD["kernels"]["kernels"]
        ),
        pairing=expand("results/glad/pairing/{dataset}.csv", dataset=GLAD_DATASETS),
        published=GLAD["published_kernels"],
    output:
        audits="results/glad/tables/audits.csv",
        references="results/glad/tables/references.csv",
        kernels="results/glad/tables/kernels.csv",
        table19="results/glad/tables/table19.csv",
        table20="results/glad/tables/table20.csv",
        table21="results/glad/tables/table21.csv",
        table22="results/glad/tables/table22.csv",
        table23="results/glad/tables/table23_references.csv",
        table28="results/glad/tables/table28.csv",
        kernel_gaps="results/glad/tables/kernel_gaps.csv",
        kernel_summary="results/glad/tables/kernel_summary.csv",
    log:
        "logs/glad/tables.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:build_tables",
    script:
        RUN


rule glad_references:
    input:
        rules.glad_tables.output.references,
        rules.glad_tables.output.table23,
        rules.glad_tables.output.table28,


rule glad_audits:
    input:
        rules.glad_tables.output.audits,


rule table19_glad:
    input:
        rules.glad_tables.output.table19,


rule table20_glad:
    input:
        rules.glad_tables.output.table20,


rule table21_glad:
    input:
        rules.glad_tables.output.table21,


rule table22_glad:
    input:
        rules.glad_tables.output.table22,


include: "glad_deep.smk"


rule glad:
    input:
        rules.glad_tables.output,
        rules.glad_deep_tables.output if DEEP_DETECTORS and DEEP_DATASETS else [],
        rules.glad_deep_figures.output if DEEP_DETECTORS and DEEP_DATASETS else [],


STUDY_TARGETS["glad"] = list(rules.glad.input)

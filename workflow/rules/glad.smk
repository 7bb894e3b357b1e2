# glad study (paper 002), part 1: UB-GOLD's protocol, data audits, training-free references, kernel baselines.
# Every rule <function>_glad calls graphaudit.glad.<module>:<function>; a table rule <name>_glad writes
# results/glad/tables/<name>.csv. Part 2 (the deep detectors) is glad_deep.smk, included after this file.
import graphaudit.glad.layout as glad_layout
from graphaudit.common.settings import config_slice
from graphaudit.common.settings import load_settings
from graphaudit.glad.settings import GladSettings, KernelScoring

GLAD_CONFIG = config["glad"]  # params pass plain slices of it (Snakemake compares them to decide reruns)
GLAD = load_settings(GladSettings, GLAD_CONFIG, "glad")  # the whole section, checked before any job
GLAD_FOLDS = expand("results/glad/folds/{dataset}.json", dataset=GLAD.datasets)
GLAD_AUDITED_FOLDS = expand("results/glad/folds/{dataset}.json", dataset=GLAD.audited)
GLAD_REFERENCES = expand("results/glad/references/{dataset}.csv", dataset=GLAD.datasets)
GLAD_KERNELS = expand("results/glad/kernels/{dataset}_{kernel}.csv", dataset=GLAD.datasets, kernel=GLAD.kernels.kernels)


rule make_folds_glad:
    input:
        graphsets=glad_layout.graphsets,
    output:
        folds="results/glad/folds/{dataset}.json",
    log:
        "logs/glad/folds_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:make_folds",
        protocol=GLAD_CONFIG["protocol"],
    script:
        RUN


rule graph_features_glad:
    input:
        graphsets=glad_layout.graphsets,
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
        max_k=GLAD_CONFIG["references"]["max_k"],
        closed_form_graphlets=GLAD_CONFIG["closed_form_graphlets"],
        constant_features=GLAD_CONFIG["constant_features"],
    script:
        RUN


rule audit_glad:
    input:
        graphsets=glad_layout.graphsets,
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
        inverted_splits=GLAD_CONFIG["inverted_splits"],
    script:
        RUN


rule run_references_glad:
    input:
        graphsets=glad_layout.graphsets,
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
        entry="graphaudit.glad.tasks:run_references",
        fit_on=GLAD_CONFIG["fit_on"],
        constant_features=GLAD_CONFIG["constant_features"],
        references=GLAD_CONFIG["references"],
    script:
        RUN


rule run_kernels_glad:
    input:
        graphsets=glad_layout.graphsets,
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
        entry="graphaudit.glad.tasks:run_kernels",
        fit_on=GLAD_CONFIG["fit_on"],
        constant_features=GLAD_CONFIG["constant_features"],
        kernels=config_slice(KernelScoring, GLAD_CONFIG["kernels"]),
    script:
        RUN


rule run_pairing_glad:
    input:
        graphsets=glad_layout.graphsets,
        folds="results/glad/folds/{dataset}.json",
    output:
        table="results/glad/pairing/{dataset}.csv",
    log:
        "logs/glad/pairing_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tasks:run_pairing",
        constant_features=GLAD_CONFIG["constant_features"],
        default=GLAD_CONFIG["kernels"]["default"],
    script:
        RUN


rule audits_glad:
    input:
        audits=expand("results/glad/audits/{dataset}.csv", dataset=GLAD.audited),
    output:
        table=report_output("results/glad/tables/audits.csv", "glad", "tables"),
    log:
        "logs/glad/tables/audits.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:audits",
    script:
        RUN


rule references_glad:
    input:
        references=GLAD_REFERENCES,
    output:
        table=report_output("results/glad/tables/references.csv", "glad", "tables"),
    log:
        "logs/glad/tables/references.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:references",
    script:
        RUN


rule kernels_glad:
    input:
        kernels=GLAD_KERNELS,
    output:
        table=report_output("results/glad/tables/kernels.csv", "glad", "tables"),
    log:
        "logs/glad/tables/kernels.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:kernels",
    script:
        RUN


rule table19_glad:
    input:
        kernels=GLAD_KERNELS,
    output:
        table=report_output("results/glad/tables/table19.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table19.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table19",
    script:
        RUN


rule table20_glad:
    input:
        kernels=GLAD_KERNELS,
    output:
        table=report_output("results/glad/tables/table20.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table20.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table20",
    script:
        RUN


rule kernel_gaps_glad:
    input:
        kernels=GLAD_KERNELS,
    output:
        table=report_output("results/glad/tables/kernel_gaps.csv", "glad", "tables"),
    log:
        "logs/glad/tables/kernel_gaps.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:kernel_gaps",
    script:
        RUN


rule kernel_summary_glad:
    input:
        kernels=GLAD_KERNELS,
    output:
        table=report_output("results/glad/tables/kernel_summary.csv", "glad", "tables"),
    log:
        "logs/glad/tables/kernel_summary.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:kernel_summary",
    script:
        RUN


rule table21_glad:
    input:
        pairing=expand("results/glad/pairing/{dataset}.csv", dataset=GLAD.datasets),
        folds=GLAD_FOLDS,
    output:
        table=report_output("results/glad/tables/table21.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table21.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table21",
    script:
        RUN


rule table22_glad:
    input:
        published=GLAD.published_kernels,
        folds=GLAD_AUDITED_FOLDS,
    output:
        table=report_output("results/glad/tables/table22.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table22.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table22",
    script:
        RUN


rule table23_references_glad:
    input:
        references=GLAD_REFERENCES,
    output:
        table=report_output("results/glad/tables/table23_references.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table23_references.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table23_references",
    script:
        RUN


rule table28_glad:
    input:
        references=GLAD_REFERENCES,
    output:
        table=report_output("results/glad/tables/table28.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table28.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table28",
    script:
        RUN


rule glad_references:
    input:
        rules.references_glad.output,
        rules.table23_references_glad.output,
        rules.table28_glad.output,


rule glad_baselines:
    input:
        rules.audits_glad.output,
        rules.references_glad.output,
        rules.kernels_glad.output,
        rules.table19_glad.output,
        rules.table20_glad.output,
        rules.kernel_gaps_glad.output,
        rules.kernel_summary_glad.output,
        rules.table21_glad.output,
        rules.table22_glad.output,
        rules.table23_references_glad.output,
        rules.table28_glad.output,

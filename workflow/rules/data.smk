# Data: fetch (mirror -> packaged copy -> download), verify against the registry, process to GraphSet.
from graphaudit.data.workflow import available_graphsets, fetch_params

DATA_FETCH = fetch_params(config["data"])  # every data key but the dataset list, so a list change refetches nothing


checkpoint data_fetch:
    output:
        source="data/raw/{dataset}/SOURCE.json",
    log:
        "logs/data/fetch_{dataset}.log",
    benchmark:
        "benchmarks/data/fetch_{dataset}.tsv"
    conda:
        ENV
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        entry="graphaudit.data.tasks:data_fetch",
        data=DATA_FETCH,
    script:
        RUN


rule data_fetch_code:
    output:
        source="data/code/{code}/SOURCE.json",
    log:
        "logs/data/fetch_code_{code}.log",
    conda:
        ENV
    params:
        entry="graphaudit.data.tasks:data_fetch_code",
        data=DATA_FETCH,
    script:
        RUN


rule data_process:
    input:
        source="data/raw/{dataset}/SOURCE.json",
    output:
        graphset="data/processed/{dataset}.npz",
    log:
        "logs/data/process_{dataset}.log",
    benchmark:
        "benchmarks/data/process_{dataset}.tsv"
    conda:
        ENV
    resources:
        mem_mb=8000,
        runtime=30,
    params:
        entry="graphaudit.data.tasks:data_process",
    script:
        RUN


rule datasets_data:
    input:
        sources=expand("data/raw/{dataset}/SOURCE.json", dataset=DATASETS),
        graphsets=lambda w: available_graphsets(checkpoints.data_fetch, DATASETS),
    output:
        table=report_output("results/data/tables/datasets.csv", "data", "tables"),
    log:
        "logs/data/tables/datasets.log",
    conda:
        ENV
    params:
        entry="graphaudit.data.tables:datasets",
    script:
        RUN


rule datasets:
    input:
        rules.datasets_data.output,

# Data: fetch (mirror -> packaged copy -> download), verify against the registry, process to GraphSet.


checkpoint fetch_dataset:
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
        entry="graphaudit.data.tasks:fetch_dataset",
        data=FETCH_PARAMS,
    script:
        RUN


rule fetch_code:
    output:
        source="data/code/{code}/SOURCE.json",
    log:
        "logs/data/fetch_code_{code}.log",
    conda:
        ENV
    params:
        entry="graphaudit.data.tasks:fetch_code",
        data=FETCH_PARAMS,
    script:
        RUN


rule process_dataset:
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
        entry="graphaudit.data.tasks:process_dataset",
    script:
        RUN


rule dataset_table:
    input:
        sources=expand("data/raw/{dataset}/SOURCE.json", dataset=DATASETS),
        graphsets=available_graphsets,
    output:
        table="results/data/datasets.csv",
    log:
        "logs/data/dataset_table.log",
    conda:
        ENV
    params:
        entry="graphaudit.data.tasks:dataset_table",
    script:
        RUN


rule datasets:
    input:
        rules.dataset_table.output,

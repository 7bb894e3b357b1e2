# Data: fetch (mirror -> packaged copy -> download), verify against the registry, process to GraphSet.


checkpoint fetch_dataset:
    output:
        source="data/raw/{dataset}/SOURCE.json",
    params:
        entry="graphaudit.data.tasks:fetch_dataset",
        data=FETCH_PARAMS,
    log:
        "logs/data/fetch_{dataset}.log",
    benchmark:
        "benchmarks/data/fetch_{dataset}.tsv"
    resources:
        mem_mb=4000,
        runtime=60,
    script:
        RUN


rule fetch_code:
    output:
        source="data/code/{code}/SOURCE.json",
    params:
        entry="graphaudit.data.tasks:fetch_code",
        data=FETCH_PARAMS,
    log:
        "logs/data/fetch_code_{code}.log",
    script:
        RUN


rule process_dataset:
    input:
        source="data/raw/{dataset}/SOURCE.json",
    output:
        graphset="data/processed/{dataset}.npz",
    params:
        entry="graphaudit.data.tasks:process_dataset",
    log:
        "logs/data/process_{dataset}.log",
    benchmark:
        "benchmarks/data/process_{dataset}.tsv"
    resources:
        mem_mb=8000,
        runtime=30,
    script:
        RUN


rule dataset_table:
    input:
        sources=expand("data/raw/{dataset}/SOURCE.json", dataset=DATASETS),
        graphsets=available_graphsets,
    output:
        table="results/data/datasets.csv",
    params:
        entry="graphaudit.data.tasks:dataset_table",
    log:
        "logs/data/dataset_table.log",
    script:
        RUN


rule datasets:
    input:
        rules.dataset_table.output,

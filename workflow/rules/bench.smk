# Benchmarks: our implementation against the peer a user would otherwise pick (snakemake bench).


rule bench_tu_reader:
    input:
        source=f"data/raw/{config['bench']['tu_reader']['dataset']}/SOURCE.json",
    output:
        table="results/bench/tu_reader.csv",
    log:
        "logs/bench/tu_reader.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["tu_reader"],
        entry="graphaudit.bench.tu_reader:bench_tu_reader",
    script:
        RUN


rule bench_graphlets:
    input:
        graphset=f"data/processed/{config['bench']['graphlets']['dataset']}.npz",
    output:
        table="results/bench/graphlets.csv",
    log:
        "logs/bench/graphlets.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["graphlets"],
        entry="graphaudit.bench.graphlets:bench_graphlets",
    script:
        RUN


rule bench_mining:
    input:
        graphsets=expand("data/processed/{dataset}.npz", dataset=config["bench"]["mining"]["datasets"]),
    output:
        table="results/bench/mining.csv",
    log:
        "logs/bench/mining.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["mining"],
        entry="graphaudit.bench.mining:bench_mining",
    script:
        RUN


rule bench_pattern_gibbs:
    input:
        graphs="data/generated/pattern/official_test.npz",
    output:
        table="results/bench/pattern_gibbs.csv",
    log:
        "logs/bench/pattern_gibbs.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["pattern_gibbs"],
        entry="graphaudit.bench.pattern_gibbs:bench_pattern_gibbs",
    script:
        RUN


rule bench_pattern_matcher:
    input:
        graphs="data/generated/pattern/official_test.npz",
        library="results/pattern/library.npz",
    output:
        table="results/bench/pattern_matcher.csv",
    log:
        "logs/bench/pattern_matcher.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["pattern_matcher"],
        entry="graphaudit.bench.pattern_matcher:bench_pattern_matcher",
        per_pattern=config["pattern"]["per_pattern"]["test"],
    script:
        RUN


rule bench_cluster_gibbs:
    input:
        graphs="data/generated/cluster/test.npz",
    output:
        table="results/bench/cluster_gibbs.csv",
    log:
        "logs/bench/cluster_gibbs.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["cluster_gibbs"],
        entry="graphaudit.bench.cluster_gibbs:bench_cluster_gibbs",
    script:
        RUN


rule bench_strip_sampler:
    input:
        board="data/generated/minesweeper/board.npz",
    output:
        table="results/bench/strip_sampler.csv",
    log:
        "logs/bench/strip_sampler.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["strip_sampler"],
        entry="graphaudit.bench.strip_sampler:bench_strip_sampler",
    script:
        RUN


rule bench_llm_occurrence:
    output:
        table="results/bench/llm_occurrence.csv",
    log:
        "logs/bench/llm_occurrence.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["llm_occurrence"],
        entry="graphaudit.bench.llm_occurrence:bench_llm_occurrence",
        seed=config["seed"],
    script:
        RUN


rule bench_glad_training:
    input:
        unpack(ubgold_code),
        graphset=f"data/processed/{config['bench']['glad_training']['dataset']}.npz",
        folds=f"results/glad/folds/{config['bench']['glad_training']['dataset']}.json",
        catalogue=config["glad"].get("deep", {}).get("catalogue", "config/glad/detectors.yaml"),
    output:
        table="results/bench/glad_training.csv",
    log:
        "logs/bench/glad_training.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["glad_training"],
        entry="graphaudit.bench.glad_training:bench_glad_training",
    script:
        RUN


rule bench_nodeground_elo:
    output:
        table="results/bench/nodeground_elo.csv",
    log:
        "logs/bench/nodeground_elo.log",
    conda:
        ENV
    threads: 1
    params:
        **config["bench"]["nodeground_elo"],
        entry="graphaudit.bench.nodeground_elo:bench_nodeground_elo",
    script:
        RUN


rule bench:
    input:
        rules.bench_glad_training.output,
        rules.bench_tu_reader.output,
        rules.bench_graphlets.output,
        rules.bench_mining.output,
        rules.bench_pattern_gibbs.output,
        rules.bench_pattern_matcher.output,
        rules.bench_cluster_gibbs.output,
        rules.bench_strip_sampler.output,
        rules.bench_llm_occurrence.output,
        rules.bench_nodeground_elo.output,

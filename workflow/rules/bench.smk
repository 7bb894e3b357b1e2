# Benchmarks: our implementation against the peer a user would otherwise pick (snakemake bench).
from graphaudit.bench.settings import BenchSettings
from graphaudit.common.settings import load_settings

BENCH_CONFIG = config["bench"]  # params.bench passes a benchmark's plain slice (Snakemake compares it for reruns)
BENCH = load_settings(BenchSettings, BENCH_CONFIG, "bench")


rule bench_tu_reader:
    input:
        source=f"data/raw/{BENCH.tu_reader.dataset}/SOURCE.json",
    output:
        table="results/bench/tu_reader.csv",
    log:
        "logs/bench/tu_reader.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.tu_reader:bench_tu_reader",
        bench=BENCH_CONFIG["tu_reader"],
    script:
        RUN


rule bench_graphlets:
    input:
        graphset=f"data/processed/{BENCH.graphlets.dataset}.npz",
    output:
        table="results/bench/graphlets.csv",
    log:
        "logs/bench/graphlets.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.graphlets:bench_graphlets",
        bench=BENCH_CONFIG["graphlets"],
    script:
        RUN


rule bench_molswap:
    input:
        graphset="data/processed/NCI1.npz",
    output:
        table="results/bench/molswap.csv",
    log:
        "logs/bench/molswap.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.molswap:bench_molswap",
        bench=BENCH_CONFIG["molswap"],
    script:
        RUN


rule bench_mining:
    input:
        graphsets=expand("data/processed/{dataset}.npz", dataset=BENCH.mining.datasets),
    output:
        table="results/bench/mining.csv",
    log:
        "logs/bench/mining.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.mining:bench_mining",
        bench=BENCH_CONFIG["mining"],
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
        **BENCH_CONFIG["pattern_gibbs"],
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
        **BENCH_CONFIG["pattern_matcher"],
        entry="graphaudit.bench.pattern_matcher:bench_pattern_matcher",
        per_pattern=config["pattern"]["per_pattern"]["test"],
    script:
        RUN


rule bench_pattern_neural:
    input:
        test="data/generated/pattern/official_test.npz",
        train="data/generated/pattern/official_train.npz",
        recipes=config["pattern"]["neural"]["recipes"],
    output:
        table="results/bench/pattern_neural.csv",
    log:
        "logs/bench/pattern_neural.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.pattern_neural:bench_pattern_neural",
        bench=BENCH_CONFIG["pattern_neural"],
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
        **BENCH_CONFIG["cluster_gibbs"],
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
        **BENCH_CONFIG["strip_sampler"],
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
        entry="graphaudit.bench.llm_occurrence:bench_llm_occurrence",
        bench=BENCH_CONFIG["llm_occurrence"],
        seed=config["seed"],
    script:
        RUN


rule bench_llm_scoring:
    output:
        table="results/bench/llm_scoring.csv",
    log:
        "logs/bench/llm_scoring.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.llm_scoring:bench_llm_scoring",
        bench=BENCH_CONFIG["llm_scoring"],
        seed=config["seed"],
    script:
        RUN


rule bench_glad_training:
    input:
        unpack(ubgold_code),
        graphset=f"data/processed/{BENCH.glad_training.dataset}.npz",
        folds=f"results/glad/folds/{BENCH.glad_training.dataset}.json",
        catalogue=config["glad"]["deep"]["catalogue"],
    output:
        table="results/bench/glad_training.csv",
    log:
        "logs/bench/glad_training.log",
    conda:
        ENV
    threads: 1
    params:
        **BENCH_CONFIG["glad_training"],
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
        **BENCH_CONFIG["nodeground_elo"],
        entry="graphaudit.bench.nodeground_elo:bench_nodeground_elo",
    script:
        RUN


rule bench_nodeground_search:
    input:
        source=f"data/raw/{BENCH.nodeground_search.dataset}/SOURCE.json",
        catalogue=config["nodeground"]["catalogue"],
    output:
        table="results/bench/nodeground_search.csv",
    log:
        "logs/bench/nodeground_search.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.nodeground_search:bench_nodeground_search",
        bench=BENCH_CONFIG["nodeground_search"],
    script:
        RUN


rule bench_graphlm_training:
    input:
        corpus=f"results/graphlm/{BENCH.graphlm_training.dataset}/train.dfs.txt",
    output:
        table="results/bench/graphlm_training.csv",
    log:
        "logs/bench/graphlm_training.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.graphlm_training:bench_graphlm_training",
        bench=BENCH_CONFIG["graphlm_training"],
    script:
        RUN


rule bench_graphlm_sampling:
    input:
        corpus=f"results/graphlm/{BENCH.graphlm_sampling.dataset}/train.dfs.txt",
    output:
        table="results/bench/graphlm_sampling.csv",
    log:
        "logs/bench/graphlm_sampling.log",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.bench.graphlm_sampling:bench_graphlm_sampling",
        bench=BENCH_CONFIG["graphlm_sampling"],
    script:
        RUN


rule bench:
    input:
        rules.bench_nodeground_search.output,
        rules.bench_glad_training.output,
        rules.bench_tu_reader.output,
        rules.bench_graphlets.output,
        rules.bench_molswap.output,
        rules.bench_mining.output,
        rules.bench_pattern_gibbs.output,
        rules.bench_pattern_matcher.output,
        rules.bench_pattern_neural.output,
        rules.bench_cluster_gibbs.output,
        rules.bench_strip_sampler.output,
        rules.bench_llm_occurrence.output,
        rules.bench_llm_scoring.output,
        rules.bench_nodeground_elo.output,
        rules.bench_graphlm_training.output,
        rules.bench_graphlm_sampling.output,

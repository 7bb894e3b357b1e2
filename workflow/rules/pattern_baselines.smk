# pattern study (paper 000), part 2: generator baselines for CLUSTER and Minesweeper (Table 4, Table 15). Read after
# pattern.smk (the Snakefile includes both), whose PATTERN settings it uses; the study's target is in
# pattern_neural_tables.smk.
from graphaudit.common.settings import config_slice
from graphaudit.pattern.plan import n_cluster_shards, strip_parts
from graphaudit.pattern.settings import StripChain
from graphaudit.pattern.shards import shard_paths

CLUSTER_CONFIG = PATTERN_CONFIG["cluster"]
CLUSTER_OUT = f"{PATTERN_OUT}/cluster"
CLUSTER_SAMPLES = {v: shard_paths(f"{CLUSTER_OUT}/{v}", n_cluster_shards(PATTERN.cluster)) for v in PATTERN.cluster.run}
MS_CONFIG = PATTERN_CONFIG["minesweeper"]
MS_OUT = f"{PATTERN_OUT}/minesweeper"
MS_LAST_PART = strip_parts(PATTERN.minesweeper.strip) - 1


rule cluster_generate_pattern:
    input:
        # the official release (registry entry CLUSTER) when pattern.cluster.source is release
        **({"release": "data/processed/CLUSTER.npz"} if PATTERN.cluster.source == "release" else {}),
    output:
        graphs="data/generated/cluster/test.npz",
    log:
        "logs/pattern/cluster_generate.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.cluster.tasks:cluster_generate",
        source=CLUSTER_CONFIG["source"],
        graphs=CLUSTER_CONFIG["graphs"],
        seed=PATTERN_SEED,
    script:
        RUN


rule cluster_sample_pattern:
    input:
        graphs=rules.cluster_generate_pattern.output.graphs,
    output:
        samples=f"{CLUSTER_OUT}/{{variant}}/shard{{shard}}.npz",
    log:
        "logs/pattern/cluster_{variant}_{shard}.log",
    benchmark:
        "benchmarks/pattern/cluster_{variant}_{shard}.tsv"
    wildcard_constraints:
        variant="|".join(PATTERN.cluster.run),
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.cluster.tasks:cluster_sample",
        shard_size=CLUSTER_CONFIG["shard_size"],
        override=lambda w: CLUSTER_CONFIG["variants"][w.variant],
        seed=PATTERN_SEED,
    script:
        RUN


rule cluster_pattern:
    input:
        **{f"samples_{v}": paths for v, paths in CLUSTER_SAMPLES.items()},
        graphs=rules.cluster_generate_pattern.output.graphs,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/cluster.csv", "pattern", "tables"),
    log:
        "logs/pattern/cluster.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:cluster",
        run=CLUSTER_CONFIG["run"],
        bootstrap=PATTERN_BOOTSTRAP,
        batch=PATTERN_CONFIG["batch"],
        seed=PATTERN_SEED,
    script:
        RUN


rule cluster_differences_pattern:
    input:
        **{f"samples_{v}": paths for v, paths in CLUSTER_SAMPLES.items()},
        graphs=rules.cluster_generate_pattern.output.graphs,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/cluster_differences.csv", "pattern", "tables"),
    log:
        "logs/pattern/cluster_differences.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:cluster_differences",
        run=CLUSTER_CONFIG["run"],
        bootstrap=PATTERN_BOOTSTRAP,
        seed=PATTERN_SEED,
    script:
        RUN


rule minesweeper_board_pattern:
    input:
        # the released board (registry entry minesweeper: download or mirror) when pattern.minesweeper.source is official
        **({"source": "data/raw/minesweeper/SOURCE.json"} if PATTERN.minesweeper.source == "official" else {}),
    output:
        board="data/generated/minesweeper/board.npz",
    log:
        "logs/pattern/minesweeper_board.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper.tasks:minesweeper_board",
        source=MS_CONFIG["source"],
        seed=PATTERN_SEED,
    script:
        RUN


rule minesweeper_bp_pattern:
    input:
        board=rules.minesweeper_board_pattern.output.board,
    output:
        marginals=f"{MS_OUT}/bp_{{information}}.npz",
    log:
        "logs/pattern/minesweeper_bp_{information}.log",
    benchmark:
        "benchmarks/pattern/minesweeper_bp_{information}.tsv"
    wildcard_constraints:
        information="features|labels",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper.tasks:minesweeper_bp",
        bp=MS_CONFIG["bp"],
    script:
        RUN


rule minesweeper_selftest_pattern:
    output:
        checks=f"{MS_OUT}/self_tests.json",
    log:
        "logs/pattern/minesweeper_selftest.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper.tasks:minesweeper_selftest",
        seed=PATTERN_SEED,
    script:
        RUN


rule minesweeper_strip_pattern:
    input:
        board=rules.minesweeper_board_pattern.output.board,
        checks=rules.minesweeper_selftest_pattern.output.checks,
        previous=lambda w: ([] if int(w.part) == 0 else f"{MS_OUT}/strip/chain{w.seed}/part{int(w.part) - 1}.npz"),
    output:
        state=f"{MS_OUT}/strip/chain{{seed}}/part{{part}}.npz",
    log:
        "logs/pattern/minesweeper_strip_{seed}_{part}.log",
    benchmark:
        "benchmarks/pattern/minesweeper_strip_{seed}_{part}.tsv"
    wildcard_constraints:
        seed=r"\d+",
        part=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper.tasks:minesweeper_strip",
        strip=config_slice(StripChain, MS_CONFIG["strip"]),
    script:
        RUN


MS_CHAINS = [f"{MS_OUT}/strip/chain{s}/part{MS_LAST_PART}.npz" for s in PATTERN.minesweeper.strip.seeds]


rule minesweeper_pattern:
    input:
        board=rules.minesweeper_board_pattern.output.board,
        bp_features=f"{MS_OUT}/bp_features.npz",
        bp_labels=f"{MS_OUT}/bp_labels.npz",
        chains=MS_CHAINS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/minesweeper.csv", "pattern", "tables"),
    log:
        "logs/pattern/minesweeper.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:minesweeper",
    script:
        RUN


rule table15_pattern:
    input:
        board=rules.minesweeper_board_pattern.output.board,
        checks=rules.minesweeper_selftest_pattern.output.checks,
        chains=MS_CHAINS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table15.csv", "pattern", "tables"),
    log:
        "logs/pattern/table15.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table15",
    script:
        RUN


rule table4_pattern:
    input:
        cluster=rules.cluster_pattern.output.table,
        minesweeper=rules.minesweeper_pattern.output.table,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table4.csv", "pattern", "tables"),
    log:
        "logs/pattern/table4.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table4",
        published=PATTERN_QUOTED["table4"],
    script:
        RUN


rule pattern_baselines:
    input:
        rules.table4_pattern.output,
        rules.cluster_pattern.output,
        rules.cluster_differences_pattern.output,
        rules.minesweeper_pattern.output,
        rules.table15_pattern.output,

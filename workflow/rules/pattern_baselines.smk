# pattern study (paper 000), part 2: generator baselines for CLUSTER and Minesweeper (Table 4, Table 15).
import graphaudit.pattern.cluster_tasks as cluster_tasks
import graphaudit.pattern.minesweeper_tasks as ms_tasks

CLUSTER = {**config["pattern"]["cluster"], "seed": config["seed"]}
CLUSTER_VARIANTS = list(CLUSTER["run"])
CLUSTER_OUT = f"{PATTERN_OUT}/cluster"
MINESWEEPER = {**config["pattern"]["minesweeper"], "seed": config["seed"]}
MS_OUT = f"{PATTERN_OUT}/minesweeper"
MS_STRIP = MINESWEEPER["strip"]
MS_LAST_PART = ms_tasks.strip_parts(MS_STRIP) - 1


def cluster_shards(variant):
    return [f"{CLUSTER_OUT}/{variant}/shard{k}.npz" for k in range(cluster_tasks.n_cluster_shards(CLUSTER))]


rule cluster_generate:
    input:
        # the official release (registry entry CLUSTER) when pattern.cluster.source is release
        **({"release": "data/processed/CLUSTER.npz"} if CLUSTER["source"] == "release" else {}),
    output:
        graphs="data/generated/cluster/test.npz",
    log:
        "logs/pattern/cluster_generate.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_generate",
        cluster={k: CLUSTER[k] for k in ("seed", "source", "graphs")},
    script:
        RUN


rule cluster_sample:
    input:
        graphs=rules.cluster_generate.output.graphs,
    output:
        samples=f"{CLUSTER_OUT}/{{variant}}/shard{{shard}}.npz",
    log:
        "logs/pattern/cluster_{variant}_{shard}.log",
    benchmark:
        "benchmarks/pattern/cluster_{variant}_{shard}.tsv"
    wildcard_constraints:
        variant="|".join(CLUSTER_VARIANTS),
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_sample",
        cluster=lambda w: {
            **{k: CLUSTER[k] for k in ("seed", "shard_size")},
            "variants": {w.variant: CLUSTER["variants"][w.variant]},
        },
    script:
        RUN


rule cluster_score:
    input:
        **{f"samples_{v}": cluster_shards(v) for v in CLUSTER_VARIANTS},
        graphs=rules.cluster_generate.output.graphs,
    output:
        table=f"{PATTERN_OUT}/tables/cluster.csv",
        differences=f"{PATTERN_OUT}/tables/cluster_differences.csv",
    log:
        "logs/pattern/cluster_score.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_score",
        cluster={"seed": CLUSTER["seed"], "variants": {v: CLUSTER["variants"][v] for v in CLUSTER_VARIANTS}},
        replicates=config["pattern"]["bootstrap"]["replicates"],
        batch=config["pattern"]["batch"],
    script:
        RUN


rule ms_board:
    input:
        # the released board (registry entry minesweeper: download or mirror) when pattern.minesweeper.source is official
        **({"source": "data/raw/minesweeper/SOURCE.json"} if MINESWEEPER["source"] == "official" else {}),
    output:
        board="data/generated/minesweeper/board.npz",
    log:
        "logs/pattern/ms_board.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper_tasks:ms_board",
        minesweeper={k: MINESWEEPER[k] for k in ("seed", "source")},
    script:
        RUN


rule ms_bp:
    input:
        board=rules.ms_board.output.board,
    output:
        marginals=f"{MS_OUT}/bp_{{information}}.npz",
    log:
        "logs/pattern/ms_bp_{information}.log",
    benchmark:
        "benchmarks/pattern/ms_bp_{information}.tsv"
    wildcard_constraints:
        information="features|labels",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper_tasks:ms_bp",
        bp=MINESWEEPER["bp"],
    script:
        RUN


rule ms_selftest:
    output:
        checks=f"{MS_OUT}/self_tests.json",
    log:
        "logs/pattern/ms_selftest.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper_tasks:ms_selftest",
        seed=config["seed"],
    script:
        RUN


rule ms_strip:
    input:
        board=rules.ms_board.output.board,
        checks=rules.ms_selftest.output.checks,
        previous=lambda w: [] if int(w.part) == 0 else f"{MS_OUT}/strip/chain{w.seed}/part{int(w.part) - 1}.npz",
    output:
        state=f"{MS_OUT}/strip/chain{{seed}}/part{{part}}.npz",
    log:
        "logs/pattern/ms_strip_{seed}_{part}.log",
    benchmark:
        "benchmarks/pattern/ms_strip_{seed}_{part}.tsv"
    wildcard_constraints:
        seed=r"\d+",
        part=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper_tasks:ms_strip",
        strip=MS_STRIP,
    script:
        RUN


rule ms_score:
    input:
        board=rules.ms_board.output.board,
        bp_features=f"{MS_OUT}/bp_features.npz",
        bp_labels=f"{MS_OUT}/bp_labels.npz",
        checks=rules.ms_selftest.output.checks,
        chains=[f"{MS_OUT}/strip/chain{s}/part{MS_LAST_PART}.npz" for s in MS_STRIP["seeds"]],
    output:
        table=f"{PATTERN_OUT}/tables/minesweeper.csv",
        table15=f"{PATTERN_OUT}/tables/table15.csv",
    log:
        "logs/pattern/ms_score.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.minesweeper_tasks:ms_score",
    script:
        RUN


rule pattern_table4:
    input:
        cluster=rules.cluster_score.output.table,
        minesweeper=rules.ms_score.output.table,
    output:
        table=f"{PATTERN_OUT}/tables/table4.csv",
    log:
        "logs/pattern/table4.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.table4:table4",
        published=PATTERN_QUOTED["table4"],
    script:
        RUN


rule table4_pattern:
    input:
        rules.pattern_table4.output.table,


rule table15_pattern:
    input:
        rules.ms_score.output.table15,


rule pattern_baselines:
    input:
        rules.pattern_table4.output,
        rules.cluster_score.output,
        rules.ms_score.output,

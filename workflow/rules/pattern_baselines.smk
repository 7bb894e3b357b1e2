# pattern study (paper 000), part 2: generator baselines for CLUSTER and Minesweeper (Table 4, Table 15).
import graphaudit.pattern.cluster_tasks as cluster_tasks

CLUSTER = {**config["pattern"]["cluster"], "seed": config["seed"]}
CLUSTER_VARIANTS = list(CLUSTER["variants"])
CLUSTER_OUT = f"{PATTERN_OUT}/cluster"


def cluster_shards(variant):
    return [f"{CLUSTER_OUT}/{variant}/shard{k}.npz" for k in range(cluster_tasks.n_cluster_shards(CLUSTER))]


rule cluster_generate:
    input:
        # the official release (registry entry CLUSTER) when pattern.cluster.source is release
        **({"release": "data/processed/CLUSTER.npz"} if CLUSTER["source"] == "release" else {}),
    output:
        graphs="data/generated/cluster/test.npz",
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_generate",
        cluster={k: CLUSTER[k] for k in ("seed", "source", "graphs")},
    log:
        "logs/pattern/cluster_generate.log",
    script:
        RUN


rule cluster_sample:
    input:
        graphs=rules.cluster_generate.output.graphs,
    output:
        samples=f"{CLUSTER_OUT}/{{variant}}/shard{{shard}}.npz",
    wildcard_constraints:
        variant="|".join(CLUSTER_VARIANTS),
        shard=r"\d+",
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_sample",
        cluster=lambda w: {**{k: CLUSTER[k] for k in ("seed", "shard_size")},
                           "variants": {w.variant: CLUSTER["variants"][w.variant]}},
    log:
        "logs/pattern/cluster_{variant}_{shard}.log",
    benchmark:
        "benchmarks/pattern/cluster_{variant}_{shard}.tsv"
    script:
        RUN


rule cluster_score:
    input:
        graphs=rules.cluster_generate.output.graphs,
        **{f"samples_{v}": cluster_shards(v) for v in CLUSTER_VARIANTS},
    output:
        table=f"{PATTERN_OUT}/tables/cluster.csv",
        differences=f"{PATTERN_OUT}/tables/cluster_differences.csv",
    params:
        entry="graphaudit.pattern.cluster_tasks:cluster_score",
        cluster={k: CLUSTER[k] for k in ("seed", "variants")},
        replicates=config["pattern"]["bootstrap"]["replicates"],
        batch=config["pattern"]["batch"],
    log:
        "logs/pattern/cluster_score.log",
    script:
        RUN


rule pattern_baselines:
    input:
        rules.cluster_score.output,

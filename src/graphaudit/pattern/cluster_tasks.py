"""Rule entries of the CLUSTER baseline (Table 4, Appendix E): test graphs, sampler shards, scores.

Every sampler variant runs on the same graphs in shards of ``cluster.shard_size`` graphs; the score rule pools
the shards, computes pooled / batch / plain class-weighted accuracy with a graph-bootstrap interval, the chain
agreement, and the paired differences between variants (one set of bootstrap weights for all of them).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_npz
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.pattern.cluster import ClusterLaw, check_cluster_graphs, generate_split, release_test
from graphaudit.pattern.cluster_sampler import SamplerSettings, run_shard, settings_for
from graphaudit.pattern.graphs import DenseGraphs, pack_graphs
from graphaudit.report.tables import write_table
from graphaudit.stats.classification import (
    batch_mean,
    bootstrap_weights,
    class_weighted_accuracy,
    confusion_counts,
    graph_bootstrap,
    paired_difference,
    percentile_interval,
    plain_accuracy,
)

__all__ = [
    "CLUSTER_COLUMNS",
    "DIFFERENCE_COLUMNS",
    "cluster_generate",
    "cluster_sample",
    "cluster_score",
    "n_cluster_shards",
    "variant_settings",
]

log = logging.getLogger(__name__)

CLUSTER_COLUMNS = [
    "variant",
    "prior",
    "chains",
    "sweeps",
    "burn_in",
    "graphs",
    "pooled",
    "ci_low",
    "ci_high",
    "batch",
    "plain",
    "batch_minus_pooled",
    "plain_minus_pooled",
    "agreement_median",
    "agreement_worst",
    "swap_acceptance",
    "start_in_range",
]
DIFFERENCE_COLUMNS = ["comparison", "difference", "ci_low", "ci_high", "changed_predictions"]
# Appendix E's comparisons: the revealed nodes' factor at equal chains, then more chains and sweeps.
COMPARISONS = (("factor_short", "no_factor"), ("final", "factor_short"))


def n_cluster_shards(cfg: dict) -> int:
    return -(-int(cfg["graphs"]) // int(cfg["shard_size"]))


def variant_settings(cfg: dict, variant: str) -> SamplerSettings:
    """The sampler settings of a configured variant (the paper's, with chains / sweeps / burn-in overridden)."""
    return settings_for(variant, **(cfg["variants"][variant] or {}))


def cluster_generate(ctx: RuleContext) -> None:
    """CLUSTER test graphs: regenerated with the notebook's law, or the official release's test split."""
    cfg, law = ctx.params["cluster"], ClusterLaw()
    if cfg["source"] == "release":
        graphs = release_test(GraphSet.load(ctx.input["release"]), law)
        graphs = _first(graphs, int(cfg["graphs"]))
    else:
        graphs = generate_split(law, "test", int(cfg["graphs"]), int(cfg["seed"]))
    check_cluster_graphs(graphs, law)
    graphs.save(ctx.output["graphs"])
    log.info("CLUSTER test: %d graphs, %d nodes (%s)", graphs.num_graphs, len(graphs.y), cfg["source"])


def _first(graphs: DenseGraphs, count: int) -> DenseGraphs:
    if count > graphs.num_graphs:
        raise ValueError(f"cluster.graphs is {count} but the release's test split has {graphs.num_graphs} graphs")
    keep = range(count)
    return pack_graphs(
        [graphs.adjacency(g) for g in keep], [graphs.features(g) for g in keep], [graphs.labels(g) for g in keep]
    )


def cluster_sample(ctx: RuleContext) -> None:
    """One shard of one sampler variant."""
    cfg = ctx.params["cluster"]
    graphs = DenseGraphs.load(ctx.input["graphs"])
    size, shard = int(cfg["shard_size"]), int(ctx.wildcards["shard"])
    start, stop = shard * size, min((shard + 1) * size, graphs.num_graphs)
    settings = variant_settings(cfg, ctx.wildcards["variant"])
    write_npz(ctx.output["samples"], **run_shard(graphs, start, stop, settings, int(cfg["seed"])))


def _read_variant(paths: list[str]) -> dict[str, np.ndarray]:
    """A variant's shards concatenated in graph order (per-node arrays, per-graph arrays, settings)."""
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            parts.append({k: data[k] for k in data.files})
    parts.sort(key=lambda p: int(p["graph_index"][0]) if len(p["graph_index"]) else 0)
    out = {
        k: np.concatenate([p[k] for p in parts])
        for k in ("graph_index", "prediction", "agreement", "swap_accepted", "start_in_range")
    }
    sizes = np.concatenate([np.diff(p["node_ptr"]) for p in parts])
    out["node_ptr"] = np.concatenate([[0], np.cumsum(sizes)])
    out.update({k: parts[0][k] for k in ("prior", "chains", "sweeps", "burn_in")})
    return out


def _counts(graphs: DenseGraphs, samples: dict[str, np.ndarray]) -> np.ndarray:
    ptr, order = samples["node_ptr"], samples["graph_index"]
    if not np.array_equal(order, np.arange(graphs.num_graphs)):
        raise ValueError(
            f"the shards cover graphs {order[:5].tolist()}... not 0..{graphs.num_graphs - 1}: rerun "
            "the CLUSTER sampler shards"
        )
    predicted = [samples["prediction"][ptr[g] : ptr[g + 1]] for g in range(len(order))]
    return confusion_counts([graphs.labels(g) for g in order], predicted, ClusterLaw().blocks)


def _score(variant: str, samples: dict[str, np.ndarray], counts: np.ndarray, weights: np.ndarray, batch: int) -> dict:
    pooled = float(class_weighted_accuracy(counts.sum(axis=0)))
    low, high = percentile_interval(graph_bootstrap(counts, weights))
    batched, plain = batch_mean(counts, batch), float(plain_accuracy(counts.sum(axis=0)))
    agreement = samples["agreement"]
    return {
        "variant": variant,
        "prior": str(samples["prior"]),
        "chains": int(samples["chains"]),
        "sweeps": int(samples["sweeps"]),
        "burn_in": int(samples["burn_in"]),
        "graphs": len(counts),
        "pooled": pooled,
        "ci_low": low,
        "ci_high": high,
        "batch": batched,
        "plain": plain,
        "batch_minus_pooled": batched - pooled,
        "plain_minus_pooled": plain - pooled,
        "agreement_median": float(np.median(agreement)) if np.isfinite(agreement).all() else np.nan,
        "agreement_worst": float(np.min(agreement)) if np.isfinite(agreement).all() else np.nan,
        "swap_acceptance": float(
            samples["swap_accepted"].sum() / (samples["swap_accepted"].size * int(samples["sweeps"]))
        ),
        "start_in_range": float(np.mean(samples["start_in_range"])),
    }


def _difference(name: str, a: tuple, b: tuple, weights: np.ndarray) -> dict:
    (counts_a, samples_a), (counts_b, samples_b) = a, b
    point, reps = paired_difference(counts_a, counts_b, weights)
    low, high = percentile_interval(reps)
    changed = float(np.mean(samples_a["prediction"] != samples_b["prediction"]))
    return {"comparison": name, "difference": point, "ci_low": low, "ci_high": high, "changed_predictions": changed}


def cluster_score(ctx: RuleContext) -> None:
    """``cluster.csv`` (one row per variant) and ``cluster_differences.csv`` (Appendix E's paired changes)."""
    cfg = ctx.params["cluster"]
    graphs = DenseGraphs.load(ctx.input["graphs"])
    weights = bootstrap_weights(
        graphs.num_graphs, int(ctx.params["replicates"]), rng_for("pattern", "cluster", "bootstrap", int(cfg["seed"]))
    )
    scored = {}
    for variant in cfg["variants"]:
        samples = _read_variant(ctx.input_list(f"samples_{variant}"))
        scored[variant] = (_counts(graphs, samples), samples)
    rows = [_score(v, samples, counts, weights, int(ctx.params["batch"])) for v, (counts, samples) in scored.items()]
    write_table(
        pd.DataFrame(rows, columns=CLUSTER_COLUMNS),
        ctx.output["table"],
        title="CLUSTER generator-Bayes sampler (Table 4, Appendix E)",
    )
    diffs = [
        _difference(f"{a} - {b}", scored[a], scored[b], weights) for a, b in COMPARISONS if a in scored and b in scored
    ]
    write_table(
        pd.DataFrame(diffs, columns=DIFFERENCE_COLUMNS),
        ctx.output["differences"],
        title="CLUSTER sampler variants, paired by graph (Appendix E)",
    )
    for row in rows:
        log.info(
            "%s: pooled %.2f (%.2f-%.2f), agreement median %.3f worst %.3f",
            row["variant"],
            row["pooled"],
            row["ci_low"],
            row["ci_high"],
            row["agreement_median"],
            row["agreement_worst"],
        )

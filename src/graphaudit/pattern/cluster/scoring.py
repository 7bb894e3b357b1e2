"""Scores of the CLUSTER sampler variants (Table 4, Appendix E) from their sample shards.

Every variant ran on the same graphs, so one set of graph-bootstrap weights serves all of them: pooled /
batch / plain class-weighted accuracy with an interval per variant, the chain agreement and swap acceptance,
and the paired differences between variants (:data:`COMPARISONS`).
"""

from __future__ import annotations

import numpy as np

from graphaudit.common.integrity import read_npz
from graphaudit.common.seeds import rng_for
from graphaudit.pattern.cluster.generator import ClusterLaw
from graphaudit.pattern.dense import DenseGraphs
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
    "COMPARISONS",
    "DIFFERENCE_COLUMNS",
    "cluster_bootstrap",
    "difference_rows",
    "read_variant",
    "score_row",
    "scored_variants",
    "variant_counts",
]

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

Scored = tuple[np.ndarray, dict[str, np.ndarray]]  # (per-graph counts, the variant's samples)


def read_variant(paths: list[str]) -> dict[str, np.ndarray]:
    """A variant's shards concatenated in graph order (per-node arrays, per-graph arrays, settings)."""
    parts = [read_npz(path) for path in paths]
    parts.sort(key=lambda p: int(p["graph_index"][0]) if len(p["graph_index"]) else 0)
    out = {
        k: np.concatenate([p[k] for p in parts])
        for k in ("graph_index", "prediction", "agreement", "swap_accepted", "start_in_range")
    }
    sizes = np.concatenate([np.diff(p["node_ptr"]) for p in parts])
    out["node_ptr"] = np.concatenate([[0], np.cumsum(sizes)])
    out.update({k: parts[0][k] for k in ("prior", "chains", "sweeps", "burn_in")})
    return out


def variant_counts(graphs: DenseGraphs, samples: dict[str, np.ndarray]) -> np.ndarray:
    """Per-graph (K x K) confusion counts of a variant's predictions; the shards must cover every graph."""
    ptr, order = samples["node_ptr"], samples["graph_index"]
    if not np.array_equal(order, np.arange(graphs.num_graphs)):
        raise ValueError(
            f"the shards cover graphs {order[:5].tolist()}... not 0..{graphs.num_graphs - 1}: rerun "
            "the CLUSTER sampler shards"
        )
    predicted = [samples["prediction"][ptr[g] : ptr[g + 1]] for g in range(len(order))]
    return confusion_counts([graphs.labels(g) for g in order], predicted, ClusterLaw().blocks)


def scored_variants(graphs: DenseGraphs, shards: dict[str, list[str]]) -> dict[str, Scored]:
    """Each variant's (counts, samples), variant by variant in the order given."""
    scored = {}
    for variant, paths in shards.items():
        samples = read_variant(paths)
        scored[variant] = (variant_counts(graphs, samples), samples)
    return scored


def cluster_bootstrap(graphs: int, replicates: int, seed: int) -> np.ndarray:
    """The graph-bootstrap weights shared by every variant."""
    return bootstrap_weights(graphs, replicates, rng_for("pattern", "cluster", "bootstrap", seed))


def score_row(
    variant: str, samples: dict[str, np.ndarray], counts: np.ndarray, weights: np.ndarray, batch: int
) -> dict:
    """One :data:`CLUSTER_COLUMNS` row: the variant's settings, accuracies under the three conventions, chain
    agreement (median and worst graph), swap acceptance and the share of starts in the size range."""
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


def _difference(name: str, a: Scored, b: Scored, weights: np.ndarray) -> dict:
    (counts_a, samples_a), (counts_b, samples_b) = a, b
    point, reps = paired_difference(counts_a, counts_b, weights)
    low, high = percentile_interval(reps)
    changed = float(np.mean(samples_a["prediction"] != samples_b["prediction"]))
    return {"comparison": name, "difference": point, "ci_low": low, "ci_high": high, "changed_predictions": changed}


def difference_rows(scored: dict[str, Scored], weights: np.ndarray) -> list[dict]:
    """:data:`DIFFERENCE_COLUMNS` rows of the :data:`COMPARISONS` whose two variants both ran, paired by graph."""
    return [
        _difference(f"{a} - {b}", scored[a], scored[b], weights) for a, b in COMPARISONS if a in scored and b in scored
    ]

"""Which graphs each set evaluates, per-graph predictions read back from shards, and the scored rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.pattern.graphs import DenseGraphs
from graphaudit.stats.classification import (
    batch_mean,
    class_weighted_accuracy,
    confusion_counts,
    graph_bootstrap,
    paired_difference,
    percentile_interval,
    plain_accuracy,
)
from graphaudit.stats.metrics import auroc

__all__ = [
    "PATTERN_BLIND",
    "check_graphs",
    "counts_for",
    "evaluated_graphs",
    "n_check_shards",
    "n_shards",
    "read_shards",
    "recovery_kind",
    "recovery_rows",
    "score_row",
    "shard_of",
    "write_shard",
]

OFFICIAL = {"test": "test", "val": "val"}
PATTERN_BLIND = "Pattern-blind predictor"  # the reference row of Table 3's differences and Figure 2's band


def evaluated_graphs(set_name: str, cfg: dict) -> list[int]:
    """Graph indices scored in a set, in loader order.

    Official splits are stored pattern by pattern; a subset takes the first copies of every pattern
    (``evaluate`` graphs in all), so each pattern is represented equally. Fresh and familiar sets are scored whole.
    """
    if set_name in OFFICIAL:
        per_pattern = int(cfg["per_pattern"][set_name])
        wanted = int(cfg["evaluate"][set_name])
        copies = min(per_pattern, max(1, wanted // int(cfg["n_patterns"])))
        return [k * per_pattern + c for k in range(int(cfg["n_patterns"])) for c in range(copies)]
    return list(range(int(cfg["sets"][set_name])))


def shard_of(order: Sequence[int], shard: int, cfg: dict) -> list[int]:
    """The graphs of shard ``shard``: positions ``shard * shard_size`` onwards of ``order``."""
    size = int(cfg["shard_size"])
    return list(order[shard * size : (shard + 1) * size])


def _shard_count(order: Sequence[int], cfg: dict) -> int:
    return -(-len(order) // int(cfg["shard_size"]))


def n_shards(set_name: str, cfg: dict) -> int:
    return _shard_count(evaluated_graphs(set_name, cfg), cfg)


def check_graphs(cfg: dict) -> list[int]:
    """The official-like test graphs of the pattern-blind start checks: the first ``blind.checks.graphs``
    evaluated ones (the paper: the first 400 test graphs)."""
    return evaluated_graphs("test", cfg)[: int(cfg["blind"]["checks"]["graphs"])]


def n_check_shards(cfg: dict) -> int:
    return _shard_count(check_graphs(cfg), cfg)


def write_shard(
    path: str,
    graphs: Sequence[int],
    per_node: dict[str, list[np.ndarray]],
    per_graph: dict[str, np.ndarray] | None = None,
) -> None:
    """One shard's results: the graph indices, ``node_ptr``, every per-node field concatenated along its last axis
    (graph by graph, in ``graphs`` order) and the per-graph fields; :func:`read_shards` reads it back."""
    sizes = [values.shape[-1] for values in next(iter(per_node.values()))] if per_node else []
    nodes = {name: np.concatenate(values, axis=-1) if values else np.zeros(0) for name, values in per_node.items()}
    write_npz(
        path,
        graph=np.asarray(graphs, dtype=np.int64),
        node_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        **nodes,
        **(per_graph or {}),
    )


def read_shards(paths: Sequence[str], field: str) -> dict[int, np.ndarray]:
    """Per-graph arrays ``field`` of every shard, keyed by graph index: node values along the last axis, split
    by ``node_ptr`` (so ``(chains, nodes)`` arrays give ``(chains, n)`` per graph)."""
    out: dict[int, np.ndarray] = {}
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            ptr = data["node_ptr"]
            values = data[field]
            for i, g in enumerate(data["graph"].tolist()):
                out[g] = values[..., ptr[i] : ptr[i + 1]]
    return out


def counts_for(graphs: DenseGraphs, order: Sequence[int], predicted: dict[int, np.ndarray]) -> np.ndarray:
    """Per-graph 2 x 2 confusion counts, in ``order``; every graph must have a prediction."""
    missing = [g for g in order if g not in predicted]
    if missing:
        raise ValueError(f"no prediction for graphs {missing[:10]} ({len(missing)} in all): rerun their shards")
    return confusion_counts([graphs.labels(g) for g in order], [predicted[g] for g in order], 2)


def score_row(counts: np.ndarray, weights: np.ndarray, batch: int) -> dict[str, float]:
    """Pooled CW accuracy with its graph-bootstrap interval, batch mean and plain accuracy."""
    low, high = percentile_interval(graph_bootstrap(counts, weights))
    pooled = counts.sum(axis=0)
    return {
        "cw_acc": float(class_weighted_accuracy(pooled)),
        "ci_low": low,
        "ci_high": high,
        "cw_batch": batch_mean(counts, batch),
        "plain": float(plain_accuracy(pooled)),
    }


def difference_row(counts: np.ndarray, reference: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """Paired difference of pooled CW accuracy on the same graphs, with its interval."""
    point, reps = paired_difference(counts, reference, weights)
    low, high = percentile_interval(reps)
    return {"diff_vs_pattern_blind": point, "diff_ci_low": low, "diff_ci_high": high}


def pooled_auc(graphs: DenseGraphs, order: Sequence[int], scores: dict[int, np.ndarray]) -> float:
    """ROC AUC (in percent) of node scores pooled over the set."""
    labels = np.concatenate([graphs.labels(g) for g in order])
    return auroc(labels, np.concatenate([scores[g] for g in order]))


RECOVERY_KINDS = ("exact", "near_miss", "other_size", "low_overlap", "none")


def recovery_kind(truth: np.ndarray, predicted: np.ndarray) -> str:
    """Table 7's kinds: exact, near miss (planted size, all but 1-2 nodes shared), other size, low overlap
    (planted size, fewer shared nodes), none (no node labelled)."""
    t, p = truth.astype(bool), predicted.astype(bool)
    if not p.any():
        return "none"
    if np.array_equal(t, p):
        return "exact"
    if p.sum() != t.sum():
        return "other_size"
    return "near_miss" if int((t & ~p).sum()) <= 2 else "low_overlap"


def recovery_rows(
    set_label: str, sizes: np.ndarray, likelihood: Sequence[str], largest: Sequence[str], large_min: int = 14
) -> list[dict]:
    """Table 7: exact recovery (%) of both rules by pattern-size band, and the matcher's error kinds."""
    likelihood, largest = np.asarray(likelihood), np.asarray(largest)
    bands = [
        (f"{int(sizes.min())} to {large_min - 1}", sizes < large_min),
        (f"{large_min} to {int(sizes.max())}", sizes >= large_min),
        ("all", np.ones(len(sizes), bool)),
    ]
    rows = []
    for band, mask in bands:
        count = int(mask.sum())
        row = {
            "graphs": set_label,
            "pattern_size": band,
            "count": count,
            "exact_likelihood": 100.0 * float(np.mean(likelihood[mask] == "exact")) if count else np.nan,
            "exact_largest": 100.0 * float(np.mean(largest[mask] == "exact")) if count else np.nan,
        }
        row.update({kind: int((likelihood[mask] == kind).sum()) for kind in RECOVERY_KINDS[1:]})
        rows.append(row)
    return rows

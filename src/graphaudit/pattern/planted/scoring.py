"""PATTERN's scores.

Per-graph confusion counts of every predictor on the graphs each set evaluates
(:func:`graphaudit.pattern.plan.evaluated_graphs`), kept as a tidy table (:data:`COUNT_COLUMNS`, written once by
the scores rule); the score rows of Tables 2, 3 and 8 (pooled class-weighted accuracy with a graph-bootstrap
interval, batch mean, plain accuracy, paired differences); Table 7's recovery kinds; the per-set rows of the matcher
and Appendix B diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphaudit.common.seeds import rng_for
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.blind import threshold_predictions
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
from graphaudit.stats.metrics import auroc

__all__ = [
    "COUNT_COLUMNS",
    "GRAPH_COLUMNS",
    "MATCHER_KINDS",
    "PATTERN_BLIND",
    "RECOVERY_KINDS",
    "SET_COLUMNS",
    "SET_LABELS",
    "appendix_b_row",
    "blind_check_rows",
    "convention_row",
    "count_rows",
    "counts_for",
    "difference_row",
    "matcher_diagnostics_row",
    "official_scores",
    "pooled_auc",
    "pooled_row",
    "recovery_kind",
    "recovery_rows",
    "set_bootstrap",
    "set_counts",
    "table2_frame",
    "table3_rows",
    "table8_frame",
]

SET_LABELS = {"test": "official", "val": "validation", "familiar": "familiar", "fresh": "fresh"}
PATTERN_BLIND = "Pattern-blind predictor"  # the reference row of Table 3's differences and Figure 2's band
COUNT_COLUMNS = ["set", "predictor", "graph", "tn", "fp", "fn", "tp"]  # one graph's 2 x 2 (true, predicted) counts
GRAPH_COLUMNS = [
    "set",
    "graph",
    "nodes",
    "pattern_size",
    "matcher_kind",
    "candidates",
    "likelihood",
    "largest",
    "start_in_range",
    "entered_range",
]
SET_COLUMNS = ["set", "threshold", "auc_prior", "auc_noprior"]
MATCHER_KINDS = ("large", "scored", "fallback_largest", "none")
RECOVERY_KINDS = ("exact", "near_miss", "other_size", "low_overlap", "none")


# ---- per-graph counts ------------------------------------------------------------------------------
def counts_for(graphs: DenseGraphs, order: Sequence[int], predicted: dict[int, np.ndarray]) -> np.ndarray:
    """Per-graph 2 x 2 confusion counts, in ``order``; every graph must have a prediction."""
    missing = [g for g in order if g not in predicted]
    if missing:
        raise ValueError(f"no prediction for graphs {missing[:10]} ({len(missing)} in all): rerun their shards")
    return confusion_counts([graphs.labels(g) for g in order], [predicted[g] for g in order], 2)


def count_rows(set_name: str, predictor: str, order: Sequence[int], counts: np.ndarray) -> list[tuple]:
    """Tidy :data:`COUNT_COLUMNS` rows of one predictor's per-graph counts (graphs in ``order``)."""
    flat = counts.reshape(len(order), 4).tolist()
    return [(set_name, predictor, g, *cells) for g, cells in zip(order, flat)]


def set_counts(counts: pd.DataFrame, set_name: str) -> dict[str, np.ndarray]:
    """Per-graph counts ``(graphs, 2, 2)`` of every predictor of a set, in the order the table lists them."""
    rows = counts[counts["set"] == set_name]
    return {
        predictor: group[["tn", "fp", "fn", "tp"]].to_numpy(dtype=np.int64).reshape(-1, 2, 2)
        for predictor, group in rows.groupby("predictor", sort=False)
    }


# ---- scores ----------------------------------------------------------------------------------------
def set_bootstrap(set_name: str, graphs: int, replicates: int, seed: int) -> np.ndarray:
    """The graph-bootstrap weights of a set (the same resamples for every predictor scored on it)."""
    return bootstrap_weights(graphs, replicates, rng_for("pattern", "bootstrap", seed, set_name))


def pooled_row(counts: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """Pooled CW accuracy with its graph-bootstrap interval."""
    low, high = percentile_interval(graph_bootstrap(counts, weights))
    return {"cw_acc": float(class_weighted_accuracy(counts.sum(axis=0))), "ci_low": low, "ci_high": high}


def convention_row(counts: np.ndarray, batch: int) -> dict[str, float]:
    """The other two conventions: CW accuracy averaged over batches of ``batch`` graphs, plain accuracy."""
    return {"cw_batch": batch_mean(counts, batch), "plain": float(plain_accuracy(counts.sum(axis=0)))}


def difference_row(counts: np.ndarray, reference: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """Paired difference of pooled CW accuracy on the same graphs, with its interval."""
    point, reps = paired_difference(counts, reference, weights)
    low, high = percentile_interval(reps)
    return {"diff_vs_pattern_blind": point, "diff_ci_low": low, "diff_ci_high": high}


def table3_rows(
    counts: pd.DataFrame,
    replicates: int,
    seed: int,
    batch: int,
    extra: Mapping[str, Sequence[tuple[str, np.ndarray, dict]]] | None = None,
) -> list[dict]:
    """Table 3: every predictor on every scored set (in the counts' order), with its paired difference to the
    pattern-blind predictor. ``extra``: per set, more predictors scored the same way after the counts' ones, each
    (name, per-graph counts on the set's graphs in the counts' order, columns of its own), e.g. the neural runs."""
    rows = []
    for set_name in counts["set"].unique():
        per_predictor = {name: (c, {}) for name, c in set_counts(counts, set_name).items()}
        per_predictor |= {name: (c, columns) for name, c, columns in (extra or {}).get(set_name, [])}
        reference = per_predictor[PATTERN_BLIND][0]
        weights = set_bootstrap(set_name, len(reference), replicates, seed)
        for name, (c, columns) in per_predictor.items():
            row = {
                "predictor": name,
                "set": SET_LABELS[set_name],
                "graphs": len(reference),
                **pooled_row(c, weights),
                **convention_row(c, batch),
            }
            if name != PATTERN_BLIND:
                row.update(difference_row(c, reference, weights))
            rows.append(row | columns)
    return rows


def official_scores(counts: pd.DataFrame, replicates: int, seed: int) -> pd.DataFrame:
    """Pooled CW accuracy and interval of every predictor on the official-like test split (Table 2, Figure 2)."""
    per_predictor = set_counts(counts, "test")
    weights = set_bootstrap("test", len(per_predictor[PATTERN_BLIND]), replicates, seed) if per_predictor else None
    rows = [{"predictor": name, **pooled_row(c, weights)} for name, c in per_predictor.items()]
    return pd.DataFrame(rows, columns=["predictor", "cw_acc", "ci_low", "ci_high"])


def table2_frame(official: pd.DataFrame, published: list[dict]) -> pd.DataFrame:
    """Table 2: the quoted published scores, then the reproduced predictors on the official-like test split."""
    quoted = pd.DataFrame(published).assign(ci_low=np.nan, ci_high=np.nan, quoted=True)
    ours = official.assign(reference="this suite", first_public=np.nan, quoted=False)
    columns = ["predictor", "reference", "first_public", "cw_acc", "ci_low", "ci_high", "quoted"]
    return pd.concat([quoted[columns], ours[columns]], ignore_index=True)


def table8_frame(counts: pd.DataFrame, batch: int) -> pd.DataFrame:
    """Table 8: one set of predictions (the official-like test split) under three scoring conventions."""
    rows = [
        {"predictor": name, "cw_pooled": float(class_weighted_accuracy(c.sum(axis=0))), **convention_row(c, batch)}
        for name, c in set_counts(counts, "test").items()
    ]
    out = pd.DataFrame(rows, columns=["predictor", "cw_pooled", "cw_batch", "plain"])
    return out.assign(
        pooled_minus_batch=out["cw_pooled"] - out["cw_batch"], plain_minus_pooled=out["plain"] - out["cw_pooled"]
    )


def pooled_auc(graphs: DenseGraphs, order: Sequence[int], scores: dict[int, np.ndarray]) -> float:
    """ROC AUC (in percent) of node scores pooled over the set."""
    labels = np.concatenate([graphs.labels(g) for g in order])
    return auroc(labels, np.concatenate([scores[g] for g in order]))


# ---- Table 7 and the diagnostics -------------------------------------------------------------------
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


def matcher_diagnostics_row(set_name: str, graphs: pd.DataFrame) -> dict:
    """One set's matcher decisions (:data:`MATCHER_KINDS`), its largest candidate count and the graphs above
    170 nodes (where Eq. (2)'s size term is undefined), from :data:`GRAPH_COLUMNS` rows."""
    kinds = graphs["matcher_kind"].to_numpy()
    return {
        "set": SET_LABELS[set_name],
        "graphs": len(graphs),
        **{f"kind_{k}": int((kinds == k).sum()) for k in MATCHER_KINDS},
        "max_candidates": int(graphs["candidates"].max()) if len(graphs) else 0,
        "graphs_above_170_nodes": int((graphs["nodes"] > 170).sum()),
    }


def appendix_b_row(set_name: str, graphs: pd.DataFrame, scores: pd.Series) -> dict:
    """One set's pattern-blind diagnostics: threshold, pooled AUCs (:data:`SET_COLUMNS`), starts out of the size
    range and the latest sweep at which a chain entered it (:data:`GRAPH_COLUMNS`)."""
    start, entered = graphs["start_in_range"].to_numpy(dtype=bool), graphs["entered_range"].to_numpy()
    return {
        "set": SET_LABELS[set_name],
        "graphs": len(graphs),
        "threshold": float(scores["threshold"]),
        "auc_prior": float(scores["auc_prior"]),
        "auc_noprior": float(scores["auc_noprior"]),
        "start_out_of_range_pct": 100.0 * float((~start).mean()),
        "max_sweeps_to_range": int(entered.max()) if len(entered) else 0,
    }


def blind_check_rows(
    graphs: DenseGraphs,
    order: Sequence[int],
    chains: dict[str, dict[int, np.ndarray]],
    threshold: float,
    weights: np.ndarray,
) -> list[dict]:
    """Appendix B's start checks from the chains of :func:`graphaudit.pattern.planted.blind.start_checks`
    (``chains``: field -> graph -> posterior): planted minus usual start (both variants) and the random-start
    chains' agreement with the usual chain, with paired graph-bootstrap intervals."""

    def counts(posteriors: dict[int, np.ndarray]) -> np.ndarray:
        return counts_for(graphs, order, {g: threshold_predictions(p, threshold) for g, p in posteriors.items()})

    def paired(label: str, first: dict, second: dict, paper: float) -> dict:
        point, reps = paired_difference(counts(first), counts(second), weights)
        low, high = percentile_interval(reps)
        return {"check": label, "graphs": len(order), "value": point, "ci_low": low, "ci_high": high, "paper": paper}

    def unpaired(label: str, value: float, paper: float) -> dict:
        return {
            "check": label,
            "graphs": len(order),
            "value": value,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "paper": paper,
        }

    rows = [
        paired(
            f"planted start minus usual start, {name} (CW points)",
            chains[f"{variant}_planted"],
            chains[f"{variant}_usual"],
            0.01,
        )
        for variant, name in (("noprior", "no size prior"), ("prior", "size prior"))
    ]
    usual, random = chains["prior_usual"], chains["prior_random"]
    agreement = np.array(
        [
            np.mean(threshold_predictions(random[g], threshold) == threshold_predictions(usual[g], threshold)[None, :])
            for g in order
        ]
    )
    rows += [
        unpaired(
            "random-start chains: median agreement with the usual chain (%)", 100.0 * float(np.median(agreement)), 98.3
        ),
        unpaired(
            "random-start chains: lowest agreement with the usual chain (%)", 100.0 * float(agreement.min()), 93.5
        ),
    ]
    averaged = {g: (usual[g] + random[g].sum(axis=0)) / (1 + len(random[g])) for g in order}
    rows.append(paired("averaged posterior of all chains minus the usual chain (CW points)", averaged, usual, 0.02))
    return rows

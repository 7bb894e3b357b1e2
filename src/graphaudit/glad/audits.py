"""Dataset audits (paper Appendix C.1): class counts (U7), per-fold anomaly shares, node-count AUROC per
fold (U11), WL duplicates across classes and folds (U10), fold disjointness, Tox21 inverted splits."""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import GraphSet
from graphaudit.glad.protocol import Fold, mapped_labels
from graphaudit.stats.metrics import auroc

Row = dict[str, object]


def audit_rows(
    dataset: str,
    graphs: GraphSet,
    folds: list[Fold],
    signatures: np.ndarray,
    n_train_file: int,
    inverted_note: str | None,
) -> list[Row]:
    """Every audit value of one dataset as rows (dataset, fold, check, value); fold 'all' for totals."""
    labels = mapped_labels(graphs.get("graph_labels"))
    has_edges = graphs.edge_counts() > 0
    rows = class_count_rows(dataset, labels[:n_train_file], has_edges[:n_train_file])
    rows += fold_rows(dataset, graphs, folds)
    rows += wl_duplicate_rows(dataset, labels, folds, signatures)
    if inverted_note is not None:
        rows.append(_row(dataset, "all", "excluded_inverted_split", 1, inverted_note))
    return rows


def _row(dataset: str, fold: object, check: str, value: object, note: str = "") -> Row:
    return {"dataset": dataset, "fold": fold, "check": check, "value": value, "note": note}


def class_count_rows(dataset: str, labels: np.ndarray, has_edges: np.ndarray) -> list[Row]:
    """Graph count and per-class counts (classes 0..C-1 by sorted label code), also among graphs with edges
    (UB-GOLD's Tox21 loader drops edgeless graphs)."""
    rows = [_row(dataset, "all", "graphs", len(labels))]
    rows += [_row(dataset, "all", f"class{c}_count", int(n)) for c, n in enumerate(np.bincount(labels))]
    rows += [
        _row(dataset, "all", f"class{c}_count_with_edges", int(n))
        for c, n in enumerate(np.bincount(labels[has_edges], minlength=labels.max() + 1))
    ]
    return rows


def fold_rows(dataset: str, graphs: GraphSet, folds: list[Fold]) -> list[Row]:
    """Per fold: test size, anomalies, anomaly share (%), node-count AUROC, train/test overlap; then ranges."""
    sizes = graphs.node_counts()
    rows, shares, size_aurocs = [], [], []
    for fold in folds:
        test, y = np.asarray(fold.test), np.asarray(fold.test_labels)
        share = 100.0 * y.mean()
        size_auroc = auroc(y, sizes[test]) if 0 < y.sum() < len(y) else float("nan")
        overlap = len(set(fold.train_normal) & set(fold.test))
        shares.append(share)
        size_aurocs.append(size_auroc)
        rows += [
            _row(dataset, fold.fold, "test_graphs", len(test)),
            _row(dataset, fold.fold, "test_anomalies", int(y.sum())),
            _row(dataset, fold.fold, "test_anomaly_share", share),
            _row(dataset, fold.fold, "node_count_auroc", size_auroc),
            _row(dataset, fold.fold, "train_test_overlap", overlap),
        ]
    rows += [
        _row(dataset, "all", "test_anomalies", int(sum(sum(f.test_labels) for f in folds))),
        _row(dataset, "all", "test_anomaly_share_min", min(shares)),
        _row(dataset, "all", "test_anomaly_share_max", max(shares)),
        _row(dataset, "all", "node_count_auroc_min", float(np.nanmin(size_aurocs))),
        _row(dataset, "all", "node_count_auroc_max", float(np.nanmax(size_aurocs))),
    ]
    return rows


def wl_duplicate_rows(dataset: str, labels: np.ndarray, folds: list[Fold], signatures: np.ndarray) -> list[Row]:
    """U10: test anomalies WL-identical to a normal training graph of their fold (summed over folds), and
    graphs WL-identical to some graph of another class."""
    per_fold = []
    for fold in folds:
        normal_signatures = set(signatures[fold.train_normal].tolist())
        anomalies = np.asarray(fold.test)[np.asarray(fold.test_labels) == 1]
        per_fold.append(sum(int(s in normal_signatures) for s in signatures[anomalies].tolist()))
    rows = [_row(dataset, f.fold, "wl_test_anomalies_matching_train_normal", n) for f, n in zip(folds, per_fold)]
    rows.append(_row(dataset, "all", "wl_test_anomalies_matching_train_normal", sum(per_fold)))
    rows.append(_row(dataset, "all", "wl_graphs_matching_other_class", cross_class_duplicates(labels, signatures)))
    return rows


def cross_class_duplicates(labels: np.ndarray, signatures: np.ndarray) -> int:
    """Number of graphs whose WL signature also occurs among graphs of a different class."""
    classes_per_signature: dict[int, set[int]] = {}
    for signature, label in zip(signatures[: len(labels)].tolist(), labels.tolist()):
        classes_per_signature.setdefault(signature, set()).add(label)
    return sum(len(classes_per_signature[s]) > 1 for s in signatures[: len(labels)].tolist())

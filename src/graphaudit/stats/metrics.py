"""Anomaly and classification metrics; anomalies are the positive class, higher scores more anomalous."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve


def auroc(labels: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC in points (x100): the Mann-Whitney statistic with ties as 1/2, so constant scores give 50."""
    return float(roc_auc_score(labels, scores) * 100.0)


def auprc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Average precision in points (x100)."""
    return float(average_precision_score(labels, scores) * 100.0)


def fpr95(labels: np.ndarray, scores: np.ndarray) -> float:
    """Share of negatives flagged (x100) at the first threshold that detects 95% of the positives (UB-GOLD)."""
    fpr, tpr, _ = roc_curve(labels, scores)
    return float(fpr[np.where(tpr >= 0.95)[0][0]] * 100.0)


def detection_metrics(labels: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """AUROC, AUPRC and FPR95 of one scored test set."""
    return {"auroc": auroc(labels, scores), "auprc": auprc(labels, scores), "fpr95": fpr95(labels, scores)}


def mann_whitney_null_sd(n_pos: int, n_neg: int) -> float:
    """Standard deviation of the AUC (fraction) under random pairing: sqrt((n+ + n- + 1) / (12 n+ n-))."""
    return float(np.sqrt((n_pos + n_neg + 1) / (12.0 * n_pos * n_neg)))


def oracle_threshold(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """The single threshold t maximising class-weighted (balanced) accuracy of ``score >= t`` on these binary
    labels, and that accuracy in points: an oracle, since it reads the labels it is scored on. Ties go to the
    highest threshold; ``inf`` (nothing positive) competes as well."""
    fpr, tpr, thresholds = roc_curve(labels, scores, drop_intermediate=False)
    balanced = 50.0 * (tpr + 1.0 - fpr)
    best = int(np.argmax(balanced))
    return float(thresholds[best]), float(balanced[best])

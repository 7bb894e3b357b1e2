"""Node-classification scores of one stage (train, val or test) as NodeGround reports them (spec 3.7).

Scores are fractions in [0, 1]; the loss is the selection loss. Multiclass: cross-entropy of the softmax of the
logits, accuracy (argmax; ties go to the lowest class) and macro-F1 over *all* ``num_classes`` classes
(``labels=range(C)``: a class absent from both the stage's labels and its predictions scores F1 = 0).
Binary (class 1 positive): binary cross-entropy of the sigmoid of one logit, accuracy and positive-class
precision at p > 0.5 (logit > 0; precision 0 when nothing is predicted positive), AUROC of the logit (NaN when
the stage holds one class only). The metrics a task does not report are NaN, so every result has the keys of
:data:`SCORE_KEYS`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax
from sklearn.metrics import f1_score, precision_score, roc_auc_score

__all__ = ["SCORE_KEYS", "binary_scores", "multiclass_scores", "node_scores"]

SCORE_KEYS = ("loss", "accuracy", "macro_f1", "auroc", "precision")


def multiclass_scores(labels: np.ndarray, logits: np.ndarray, num_classes: int) -> dict[str, float]:
    """Cross-entropy, accuracy and macro-F1 of ``logits`` ``[n, C]`` against integer ``labels`` ``[n]``."""
    labels = np.asarray(labels, dtype=np.int64)
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim != 2 or logits.shape != (len(labels), num_classes):
        raise ValueError(f"multiclass logits must be [n, {num_classes}] for {len(labels)} labels, got {logits.shape}")
    predicted = logits.argmax(axis=1)
    loss = -log_softmax(logits, axis=1)[np.arange(len(labels)), labels].mean()
    macro_f1 = f1_score(labels, predicted, labels=np.arange(num_classes), average="macro", zero_division=0)
    return {
        "loss": float(loss),
        "accuracy": float((predicted == labels).mean()),
        "macro_f1": float(macro_f1),
        "auroc": float("nan"),
        "precision": float("nan"),
    }


def binary_scores(labels: np.ndarray, logit: np.ndarray) -> dict[str, float]:
    """Binary cross-entropy, accuracy, AUROC and positive-class precision of one ``logit`` per node ``[n]``."""
    labels = np.asarray(labels, dtype=np.int64)
    logit = np.asarray(logit, dtype=np.float64).reshape(-1)
    if len(logit) != len(labels):
        raise ValueError(f"binary scores need one logit per label: {len(logit)} logits, {len(labels)} labels")
    positive = labels == 1
    loss = np.where(positive, np.logaddexp(0.0, -logit), np.logaddexp(0.0, logit)).mean()
    predicted = (logit > 0.0).astype(np.int64)
    both = positive.any() and (~positive).any()
    return {
        "loss": float(loss),
        "accuracy": float((predicted == labels).mean()),
        "macro_f1": float("nan"),
        "auroc": float(roc_auc_score(labels, logit)) if both else float("nan"),
        "precision": float(precision_score(labels, predicted, pos_label=1, zero_division=0)),
    }


def node_scores(task: str, labels: np.ndarray, logits: np.ndarray, num_classes: int) -> dict[str, float]:
    """The scores of ``task`` (``multiclass``: logits ``[n, C]``; ``binary``: one logit per node ``[n]``)."""
    if task == "multiclass":
        return multiclass_scores(labels, logits, num_classes)
    if task == "binary":
        return binary_scores(labels, logits)
    raise ValueError(f"task must be 'multiclass' or 'binary', got {task!r}")

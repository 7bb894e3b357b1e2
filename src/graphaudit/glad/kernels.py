"""Kernel baselines (paper section 3.5, spec 4.10): WL subtree and propagation kernels (as GraKeL, normalised)
scored by an isolation forest or a one-class SVM, fitted on the training normals (train-fit, ranked) or
on the unlabelled test set (test-fit, UB-GOLD's path), at UB-GOLD's defaults and over its declared grid
(tuned: best mean test AUROC over the folds, an upper bound). Also the released-pairing diagnostic."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM

from graphaudit.common.progress import Progress
from graphaudit.common.seeds import rng_for, stable_seed
from graphaudit.data.graphset import GraphSet
from graphaudit.glad.grakel_io import to_grakel
from graphaudit.glad.protocol import Fold
from graphaudit.glad.settings import KernelDefault, KernelGrid, KernelScoring
from graphaudit.graphs.wl import wl_histograms, wl_subtree_kernel
from graphaudit.stats.metrics import auroc, detection_metrics

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KernelConfig:
    """One point of UB-GOLD's kernel search space (``wl_iter`` is t_max for the propagation kernel)."""

    wl_iter: int
    n_estimators: int = 200
    sample_ratio: float = 0.5

    @classmethod
    def of(cls, default: KernelDefault) -> KernelConfig:
        """The configured defaults (``glad.kernels.default``) as a point of the search space."""
        return cls(wl_iter=default.wl_iter, n_estimators=default.n_estimators, sample_ratio=default.sample_ratio)

    def label(self, scorer: str) -> str:
        if scorer == "OCSVM":
            return f"wl_iter={self.wl_iter}"
        return f"wl_iter={self.wl_iter},n_estimators={self.n_estimators},sample_ratio={self.sample_ratio}"


def search_space(scorer: str, grid: KernelGrid) -> list[KernelConfig]:
    """The declared grid: IF over trees x sample ratio x iterations (60), OCSVM over iterations (5)."""
    if scorer == "OCSVM":
        return [KernelConfig(wl_iter=w) for w in grid.wl_iter]
    return [
        KernelConfig(wl_iter=w, n_estimators=t, sample_ratio=r)
        for w, t, r in itertools.product(grid.wl_iter, grid.n_estimators, grid.sample_ratio)
    ]


class KernelMatrices:
    """Normalised kernel matrices of one dataset between any two subsets of its graphs.

    WL: GraKeL's ``WeisfeilerLehman(n_iter, VertexHistogram, normalize=True)``, computed exactly from WL
    colour histograms refined once over the whole set (a colour means the same in every subset).
    PK: GraKeL's ``Propagation(t_max, w=1, normalize=True)``. With one constant node label and no isolated
    node every node keeps the same label distribution, so the normalised kernel is all ones and is returned
    without GraKeL; GraKeL treats isolated nodes apart (REDDIT-BINARY has 21), so those sets go through it.
    """

    def __init__(self, kernel: str, graphs: GraphSet, colours: np.ndarray, max_iter: int) -> None:
        if kernel not in ("WL", "PK"):
            raise ValueError(f"unknown kernel {kernel!r}; use WL or PK")
        self.kernel, self.graphs, self.colours = kernel, graphs, colours
        isolated = np.bincount(graphs.edges.ravel(), minlength=graphs.num_nodes) == 0
        self.constant = len(np.unique(colours)) <= 1 and not isolated.any()
        self.histograms = wl_histograms(graphs, colours, max_iter + 1) if kernel == "WL" else []

    def between(
        self, fit_ids: list[int], score_ids: list[int], wl_iter: int, seed: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(K_fit, K_score): the kernel on the fitted graphs and between the scored and fitted graphs."""
        fit, score = np.asarray(fit_ids), np.asarray(score_ids)
        if self.kernel == "WL":
            used = self.histograms[: wl_iter + 1]
            return wl_subtree_kernel(used, fit, fit), wl_subtree_kernel(used, score, fit)
        if self.constant:
            return np.ones((len(fit), len(fit))), np.ones((len(score), len(fit)))
        return self._propagation(fit, score, wl_iter, seed)

    def _propagation(
        self, fit: np.ndarray, score: np.ndarray, wl_iter: int, seed: int
    ) -> tuple[np.ndarray, np.ndarray]:
        from grakel.kernels import Propagation

        model = Propagation(t_max=wl_iter, w=1, normalize=True, random_state=seed % 2**32)
        k_fit = np.nan_to_num(model.fit_transform(to_grakel(self.graphs, self.colours, fit)))
        if np.array_equal(fit, score):
            return k_fit, k_fit
        return k_fit, np.nan_to_num(model.transform(to_grakel(self.graphs, self.colours, score)))


def scorer_scores(
    scorer: str, k_fit: np.ndarray, k_score: np.ndarray, config: KernelConfig, seed: int
) -> tuple[np.ndarray, float]:
    """(anomaly scores = -decision_function, share of fitted graphs flagged (OCSVM; NaN for IF))."""
    if scorer == "IF":
        forest = IsolationForest(
            n_estimators=config.n_estimators,
            max_samples=config.sample_ratio,
            contamination="auto",
            random_state=seed % 2**32,
        ).fit(k_fit)
        return -forest.decision_function(k_score), float("nan")
    if scorer == "OCSVM":
        svm = OneClassSVM(kernel="precomputed", nu=0.1).fit(k_fit)
        return -svm.decision_function(k_score), float(np.mean(svm.predict(k_fit) == -1) * 100.0)
    raise ValueError(f"unknown scorer {scorer!r}; use IF or OCSVM")


def fold_kernels(
    matrices: KernelMatrices, fit: str, fold: Fold, fit_on: str, wl_iter: int, dataset: str
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel matrices of one fold: train-fit (training normals vs test) or test-fit (test vs test)."""
    seed = stable_seed("glad", dataset, matrices.kernel, fit, fold.fold, wl_iter)
    fit_ids = getattr(fold, fit_on) if fit == "train" else fold.test
    return matrices.between(fit_ids, fold.test, wl_iter, seed)


def kernel_rows(
    dataset: str,
    kernel: str,
    graphs: GraphSet,
    colours: np.ndarray,
    folds: list[Fold],
    settings: KernelScoring,
    fit_on: str,
) -> Iterator[dict[str, object]]:
    """Per-fold metrics of every (scorer, fit, configuration) asked for, fitted on the folds' ``fit_on`` graphs
    in train-fit; kernels computed once per iteration."""
    configs = {scorer: search_space(scorer, settings.grid) if settings.tuned else [] for scorer in settings.scorers}
    default = KernelConfig.of(settings.default)
    iterations = sorted({default.wl_iter} | {c.wl_iter for cs in configs.values() for c in cs})
    matrices = KernelMatrices(kernel, graphs, colours, max(iterations))
    progress = Progress(
        f"{dataset} {kernel} kernels",
        total=len(settings.fits) * len(folds) * len(iterations),
        logger=log,
        unit="matrices",
    )
    for fit, fold, wl_iter in itertools.product(settings.fits, folds, iterations):
        k_fit, k_score = fold_kernels(matrices, fit, fold, fit_on, wl_iter, dataset)
        constant = bool(np.ptp(k_score) == 0 and np.ptp(k_fit) == 0)
        for scorer in settings.scorers:
            wanted = [c for c in configs[scorer] if c.wl_iter == wl_iter]
            if default.wl_iter == wl_iter:
                wanted = [default] + [c for c in wanted if c != default]
            for config in wanted:
                seed = stable_seed("glad", dataset, kernel, scorer, fit, fold.fold, config.label(scorer))
                scores, flagged = scorer_scores(scorer, k_fit, k_score, config, seed)
                yield {
                    "method": f"{kernel}-{scorer}",
                    "fit": fit,
                    "dataset": dataset,
                    "fold": fold.fold,
                    "config": config.label(scorer),
                    "is_default": config == default,
                    "constant_kernel": constant,
                    "ocsvm_flagged": flagged,
                    **detection_metrics(np.asarray(fold.test_labels), scores),
                }
        progress.update()
    progress.close()


def released_pairing_rows(
    dataset: str, graphs: GraphSet, colours: np.ndarray, folds: list[Fold], config: KernelConfig
) -> list[dict[str, object]]:
    """UB-GOLD's unchanged WL-IF pipeline (test-fit, at the defaults ``config``): AUROC with the labels of a
    second shuffled pass (the released pairing) and with aligned labels, and the share of label positions that
    differ."""
    matrices = KernelMatrices("WL", graphs, colours, config.wl_iter)
    rows = []
    for fold in folds:
        k_fit, k_score = fold_kernels(matrices, "test", fold, "test", config.wl_iter, dataset)
        seed = stable_seed("glad", dataset, "WL", "IF", "test", fold.fold, config.label("IF"))
        scores, _ = scorer_scores("IF", k_fit, k_score, config, seed)
        labels = np.asarray(fold.test_labels)
        rng = rng_for("glad", dataset, "released_pairing", fold.fold)
        score_pass, label_pass = rng.permutation(len(labels)), rng.permutation(len(labels))
        rows.append(
            {
                "dataset": dataset,
                "fold": fold.fold,
                "auroc_released": auroc(labels[label_pass], scores[score_pass]),
                "auroc_aligned": auroc(labels, scores),
                "differing_share": float(np.mean(labels[score_pass] != labels[label_pass]) * 100.0),
                "n_anomalies": int(labels.sum()),
                "n_normals": int(len(labels) - labels.sum()),
            }
        )
    return rows

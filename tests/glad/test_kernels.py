"""Kernel baselines: our kernel matrices equal GraKeL's (WL subtree from shared colour histograms, PK on constant
labels), and the rows on MUTAG (from the grakel wheel): every scorer and fit, constant kernels, the released pairing."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad import kernels
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.grakel_io import to_grakel
from graphaudit.glad.kernels import KernelConfig, KernelMatrices
from graphaudit.glad.protocol import tu_folds
from graphaudit.glad.settings import KernelDefault, KernelGrid, KernelScoring


@pytest.fixture(scope="module")
def mutag(tmp_path_factory):
    graphs, _ = obtain(get_spec("MUTAG"), tmp_path_factory.mktemp("raw"), FetchOptions(allow_download=False))
    return graphs


@pytest.mark.parametrize("n_iter", [1, 3])
@pytest.mark.parametrize("constant", [False, True])
def test_wl_equals_grakel(mutag, n_iter, constant):
    from grakel.kernels import VertexHistogram, WeisfeilerLehman

    colours = np.ones(mutag.num_nodes, dtype=int) if constant else mutag.get("node_labels")
    fit, score = list(range(0, 120, 2)), list(range(1, 188, 3))
    ours_fit, ours_score = KernelMatrices("WL", mutag, colours, 3).between(fit, score, n_iter, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = WeisfeilerLehman(n_iter=n_iter, base_graph_kernel=VertexHistogram, normalize=True)
        theirs_fit = model.fit_transform(to_grakel(mutag, colours, fit))
        theirs_score = model.transform(to_grakel(mutag, colours, score))
    np.testing.assert_allclose(ours_fit, theirs_fit, atol=1e-12)
    np.testing.assert_allclose(ours_score, theirs_score, atol=1e-12)


def test_propagation_on_constant_labels_is_all_ones_as_in_grakel(mutag):
    from grakel.kernels import Propagation

    colours = np.ones(mutag.num_nodes, dtype=int)
    fit, score = list(range(40)), list(range(40, 60))
    ours_fit, ours_score = KernelMatrices("PK", mutag, colours, 3).between(fit, score, 3, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Propagation(t_max=3, w=1, normalize=True, random_state=0)
        theirs_fit = model.fit_transform(to_grakel(mutag, colours, fit))
        theirs_score = model.transform(to_grakel(mutag, colours, score))
    np.testing.assert_allclose(ours_fit, theirs_fit, atol=1e-12)
    np.testing.assert_allclose(ours_score, theirs_score, atol=1e-12)


def test_constant_shortcut_is_not_used_when_a_node_is_isolated():
    from graphaudit.data.graphset import from_edge_list

    graphs = from_edge_list("iso", np.array([0, 0, 0, 1, 1]), np.array([[0, 1], [3, 4]]))
    colours = np.ones(graphs.num_nodes, dtype=int)
    assert not KernelMatrices("PK", graphs, colours, 2).constant  # node 2 is isolated
    connected = from_edge_list("con", np.array([0, 0, 1, 1]), np.array([[0, 1], [2, 3]]))
    assert KernelMatrices("PK", connected, np.ones(4, dtype=int), 2).constant


SETTINGS = KernelScoring(
    scorers=("IF", "OCSVM"),
    fits=("train", "test"),
    tuned=False,
    default=KernelDefault(wl_iter=2, n_estimators=50, sample_ratio=0.5),
    grid=KernelGrid(wl_iter=(2,), n_estimators=(50,), sample_ratio=(0.5,)),
)


@pytest.fixture(scope="module")
def mutag_folds(mutag):
    return mutag, tu_folds(mutag.get("graph_labels"), "MUTAG", n_folds=2)


def test_kernel_rows_cover_every_scorer_and_fit(mutag_folds):
    graphs, folds = mutag_folds
    rows = list(
        kernels.kernel_rows("MUTAG", "WL", graphs, node_colours(graphs, False), folds, SETTINGS, "train_normal")
    )
    assert {(r["method"], r["fit"]) for r in rows} == {
        ("WL-IF", "train"),
        ("WL-IF", "test"),
        ("WL-OCSVM", "train"),
        ("WL-OCSVM", "test"),
    }
    assert len(rows) == 8 and all(r["is_default"] and not r["constant_kernel"] for r in rows)
    assert all(0 <= r["ocsvm_flagged"] <= 100 for r in rows if r["method"] == "WL-OCSVM")


def test_propagation_kernel_on_constant_features_gives_fifty(mutag_folds):
    graphs, folds = mutag_folds
    train_only = dataclasses.replace(SETTINGS, fits=("train",))
    rows = list(
        kernels.kernel_rows("MUTAG", "PK", graphs, node_colours(graphs, True), folds[:1], train_only, "train_normal")
    )
    assert all(r["constant_kernel"] and r["auroc"] == 50.0 for r in rows)


def test_search_space_sizes():
    grid = KernelGrid(wl_iter=(3, 4, 5, 6, 7), n_estimators=(200, 250, 300), sample_ratio=(0.3, 0.4, 0.5, 0.6))
    assert len(kernels.search_space("IF", grid)) == 60 and len(kernels.search_space("OCSVM", grid)) == 5


def test_the_configured_default_is_a_point_of_the_search_space():
    default = KernelConfig.of(SETTINGS.default)
    assert default == KernelConfig(wl_iter=2, n_estimators=50, sample_ratio=0.5)
    assert default.label("IF") == "wl_iter=2,n_estimators=50,sample_ratio=0.5" and default.label("OCSVM") == "wl_iter=2"


def test_released_pairing_rows(mutag_folds):
    graphs, folds = mutag_folds
    default = KernelConfig.of(SETTINGS.default)
    rows = kernels.released_pairing_rows("MUTAG", graphs, node_colours(graphs, False), folds, default)
    for row, fold in zip(rows, folds):
        assert row["n_anomalies"] == sum(fold.test_labels)
        assert 0 < row["differing_share"] < 100 and 0 <= row["auroc_released"] <= 100

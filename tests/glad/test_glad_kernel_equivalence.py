"""Our kernel matrices equal GraKeL's: WL subtree from shared colour histograms, PK on constant labels."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad.grakel_io import to_grakel
from graphaudit.glad.kernels import KernelMatrices


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

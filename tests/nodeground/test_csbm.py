"""Contextual SBM: class sizes and the pair matrix by hand, and generated graphs whose measured properties land
where the spec asks, across the seven grouping properties."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from graphaudit.nodeground.csbm import CSBMError, CSBMSpec, check_spec, class_sizes, generate, pair_matrix
from graphaudit.nodeground.properties import grouping_properties


def test_class_sizes_by_hand() -> None:
    assert class_sizes(10, 2, 4.0).tolist() == [8, 2]  # shares 1 : 1/4
    assert class_sizes(10, 3, 1.0).tolist() == [4, 3, 3]  # 3.33 each, the remainder to the first
    assert class_sizes(7, 3, 4.0).tolist() == [4, 2, 1]  # shares 1 : 1/2 : 1/4 -> 4, 2, 1 exactly
    with pytest.raises(CSBMError, match="at least 1"):
        class_sizes(10, 2, 0.5)


def test_pair_matrix_margins_and_adjusted_homophily() -> None:
    shares = np.array([0.5, 0.3, 0.2])
    for h in (-0.25, 0.0, 0.4, 1.0):
        pairs = pair_matrix(shares, h)
        assert np.allclose(pairs, pairs.T) and np.isclose(pairs.sum(), 1.0)
        np.testing.assert_allclose(pairs.sum(axis=1), shares)  # both endpoints follow the class shares
        chance = np.sum(shares**2)
        assert np.isclose((np.trace(pairs) - chance) / (1 - chance), h)
    with pytest.raises(CSBMError, match=r"outside \[-0.2500, 1\]"):
        pair_matrix(shares, -0.3)  # the smallest class: 0.2 / 0.8


SPECS = {
    "binary-homophilous-sparse-highdim": CSBMSpec(1000, 2, 1.0, 8, 0.7, 1000, 0.02, 1.0),
    "binary-heterophilous-imbalanced-dense": CSBMSpec(2000, 2, 4.0, 20, -0.2, 16, None, 1.0),
    "many-classes-imbalanced": CSBMSpec(3000, 12, 10.0, 10, 0.5, 128, 0.2, 1.0),
    "multiclass-heterophilous": CSBMSpec(1500, 5, 1.0, 12, -0.2, 32, None, 1.0),
    "large-sparse-degree": CSBMSpec(20000, 3, 1.5, 3, 0.1, 8, None, 1.0),
}


@pytest.mark.parametrize("name", SPECS)
def test_measured_properties_land_where_asked(name) -> None:
    spec = SPECS[name]
    props = grouping_properties(generate(name, spec))
    assert props["nodes"] == spec.nodes and props["classes"] == spec.classes
    assert props["feature_dim"] == spec.feature_dim
    assert props["avg_degree"] == 2 * round(spec.nodes * spec.avg_degree / 2) / spec.nodes
    assert abs(props["adjusted_homophily"] - spec.homophily) < 0.05
    sizes = class_sizes(spec.nodes, spec.classes, spec.imbalance)
    assert props["class_imbalance"] == sizes.max() / sizes.min()
    assert abs(props["class_imbalance"] / spec.imbalance - 1) < 0.05
    if spec.feature_density is None:
        assert props["feature_nonzero"] == 1.0
    else:
        assert abs(props["feature_nonzero"] / spec.feature_density - 1) < 0.1


def test_dense_feature_means_lie_signal_apart() -> None:
    """Class means of dense features are ``sqrt(2) * signal`` apart in expectation (checked on the estimate,
    less its sampling bias ``dim * (1/n0 + 1/n1)``)."""
    spec = CSBMSpec(4000, 2, 1.0, 4, 0.0, 400, None, 2.0)
    graph = generate("means", spec)
    means = [graph.x[graph.y == k].mean(axis=0) for k in (0, 1)]
    bias = spec.feature_dim * sum(1 / np.sum(graph.y == k) for k in (0, 1))
    squared = float(np.sum((means[0] - means[1]) ** 2)) - bias
    assert abs(squared / (2 * spec.signal**2) - 1) < 0.2


def test_sparse_features_without_signal_carry_no_class_information() -> None:
    spec = CSBMSpec(4000, 2, 1.0, 4, 0.0, 200, 0.1, 0.0)
    graph = generate("flat", spec)
    rates = [graph.x[graph.y == k].mean() for k in (0, 1)]
    assert abs(rates[0] - rates[1]) < 0.005 and abs(rates[0] - 0.1) < 0.005


def test_same_seed_same_graph_other_seed_other_graph() -> None:
    spec = SPECS["multiclass-heterophilous"]
    one, two, other = generate("g", spec), generate("g", spec), generate("g", spec, seed=1)
    for field in ("x", "edge_index", "y"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
    assert not np.array_equal(one.y, other.y)
    # the stages draw from their own seeds: a denser graph keeps the labels and features
    denser = generate("g", dataclasses.replace(spec, avg_degree=14))
    np.testing.assert_array_equal(denser.y, one.y)
    np.testing.assert_array_equal(denser.x, one.x)


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"homophily": -0.5}, "outside"),
        ({"avg_degree": 1000}, "more than 25%"),
        ({"feature_density": 1.5}, "nonzero fraction"),
        ({"feature_dim": 0}, "feature_dim >= 1"),
        ({"classes": 1}, "at least 2 classes"),
    ],
)
def test_check_spec_names_the_problem(changes, match) -> None:
    with pytest.raises(CSBMError, match=f"nodeground.csbm.bad: .*{match}"):
        check_spec("bad", dataclasses.replace(SPECS["multiclass-heterophilous"], **changes))

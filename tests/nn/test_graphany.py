"""GraphAny's analytic parts and attention against hand computations, numpy's lstsq and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from graphaudit.nn.graphany import (
    GraphAny,
    GraphAnyConfig,
    GraphAnyFit,
    conditional_gaussian_probabilities,
    distance_features,
    fit_graphany,
    fit_linear_gnns,
    graphany_edges,
    propagate_channels,
)

# a path 0 - 1 - 2, a node 3 with only a self-loop, an edge given twice and one direction only
EDGES = torch.tensor([[0, 1, 1, 2, 3, 0], [1, 0, 2, 1, 3, 1]])
X = torch.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0], [3.0, -1.0]])


def config(**changes: object) -> GraphAnyConfig:
    values = dict(
        feat_channels=("X", "L1"),
        pred_channels=("X", "L1"),
        n_hidden=4,
        n_mlp_layer=1,
        entropy=1.0,
        att_temperature=5.0,
        add_self_loop=False,
        to_bidirected=True,
    )
    return GraphAnyConfig(**{**values, **changes})


def test_graph_drops_self_loops_and_duplicates_and_adds_both_directions():
    edges = graphany_edges(torch.tensor([[0, 1, 1, 3], [1, 0, 2, 3]]), 4, add_self_loop=False, to_bidirected=True)
    assert sorted(map(tuple, edges.T.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    looped = graphany_edges(torch.tensor([[0], [1]]), 3, add_self_loop=True, to_bidirected=False)
    assert sorted(map(tuple, looped.T.tolist())) == [(0, 0), (0, 1), (1, 1), (2, 2)]


def test_channels_by_hand():
    channels = propagate_channels(X, EDGES, hops=2)
    # mean over neighbours (self-loops removed); node 3 has none and aggregates to zero
    l1 = torch.tensor([[0.0, 2.0], [2.5, 2.0], [0.0, 2.0], [0.0, 0.0]])
    torch.testing.assert_close(channels["L1"], l1)
    torch.testing.assert_close(channels["L2"], torch.tensor([[2.5, 2.0], [0.0, 2.0], [2.5, 2.0], [0.0, 0.0]]))
    h1 = X - l1
    torch.testing.assert_close(channels["H1"], h1)
    h1_mean = torch.stack([h1[1], (h1[0] + h1[2]) / 2, h1[1], torch.zeros(2)])
    torch.testing.assert_close(channels["H2"], h1 - h1_mean)
    torch.testing.assert_close(channels["X"], X)


def test_linear_gnn_solves_match_numpy_lstsq():
    rng = np.random.default_rng(0)
    features = {
        "X": torch.from_numpy(rng.normal(size=(12, 5)).astype(np.float32)),
        "L1": torch.from_numpy(rng.normal(size=(12, 20)).astype(np.float32)),
    }  # L1: under-determined
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    train = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7])
    logits = fit_linear_gnns(features, labels, train, 3)
    targets = np.eye(3)[labels[train].numpy()]
    for name, f in features.items():
        f64 = f.numpy().astype(np.float64)
        weights = np.linalg.lstsq(f64[train.numpy()], targets, rcond=None)[0]  # minimum norm, as gelss
        np.testing.assert_allclose(logits[name].numpy(), f64 @ weights, atol=1e-4)


def test_conditional_probabilities_match_scikit_learn():
    from scipy.spatial.distance import pdist, squareform
    from sklearn.manifold._utils import _binary_search_perplexity  # GraphAny's own routine, test-only

    rng = np.random.default_rng(1)
    points = (rng.normal(size=(40, 5, 7)) * rng.choice([0.01, 1.0, 30.0], size=(40, 1, 1))).astype(np.float32)
    for entropy in (1, 2):
        ours = conditional_gaussian_probabilities(points, entropy)
        theirs = np.stack(
            [_binary_search_perplexity((squareform(pdist(p)) ** 2).astype(np.float32), 2.0**entropy, 0) for p in points]
        )
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_conditional_probability_rows_reach_the_target_entropy():
    points = np.array([[[0.0], [1.0], [3.0]]], dtype=np.float32)
    p = conditional_gaussian_probabilities(points, entropy=1.0)[0]
    np.testing.assert_allclose(np.diag(p), 0.0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    entropies = [-sum(v * math.log(v) for v in row if v > 0) for row in p]
    np.testing.assert_allclose(entropies, math.log(2.0), atol=1e-5)  # perplexity 2^1


def test_distance_features_are_the_off_diagonal_entries_in_row_major_order():
    logits = {c: torch.tensor([[float(i), 0.0]]) * (k + 1) for k, (c, i) in enumerate([("X", 0), ("L1", 1), ("L2", 3)])}
    dist = distance_features(logits, ("X", "L1", "L2"), entropy=1.0)
    points = np.stack([logits[c].numpy() for c in ("X", "L1", "L2")], axis=1)
    p = conditional_gaussian_probabilities(points, 1.0)[0]
    np.testing.assert_array_equal(dist[0].numpy(), np.float32([p[0, 1], p[0, 2], p[1, 0], p[1, 2], p[2, 0], p[2, 1]]))


def test_attention_combination_by_hand():
    model = GraphAny(config()).eval()
    with torch.no_grad():  # one linear layer: scores = (d0, d1) -> (0, d0 + d1)
        model.mlp.lins[0].weight.copy_(torch.tensor([[0.0, 0.0], [1.0, 1.0]]))
        model.mlp.lins[0].bias.zero_()
    distances = torch.tensor([[0.5 * 5 * math.log(3.0), 0.5 * 5 * math.log(3.0)]])
    predictions = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])  # channel X says class 0, L1 class 1
    fused, attention = model(distances, predictions)
    # softmax((0, 5 ln 3) / 5) = (1/4, 3/4)
    torch.testing.assert_close(attention, torch.tensor([[0.25, 0.75]]))
    torch.testing.assert_close(fused, torch.tensor([[0.25, 0.75]]))


def test_a_batch_of_one_node_skips_batch_norm_as_graphany_does():
    torch.manual_seed(0)
    model = GraphAny(config(n_mlp_layer=2)).eval()
    with torch.no_grad():
        model.mlp.bns[0].running_mean.fill_(3.0)  # batch norm moves every hidden unit when it runs
    fit = GraphAnyFit(logits={"X": torch.randn(3, 2), "L1": torch.randn(3, 2)}, distances=torch.randn(3, 2))
    nodes = torch.arange(3)
    together = model.predict(fit, nodes, batch_size=3)
    one_by_one = model.predict(fit, nodes, batch_size=1)
    predictions = torch.stack([fit.logits["X"], fit.logits["L1"]], dim=1)
    with torch.no_grad():
        scores = model.mlp.lins[1](torch.relu(model.mlp.lins[0](fit.distances)))  # no batch norm
        expected = (torch.softmax(scores / 5.0, dim=-1).unsqueeze(-1) * predictions).sum(dim=1)
    torch.testing.assert_close(one_by_one, expected)
    assert not torch.allclose(together, one_by_one)


def test_fit_uses_training_labels_only():
    labels = torch.tensor([0, 1, 0, 1])
    train = torch.tensor([True, True, False, False])
    fit = fit_graphany(config(), X, EDGES, labels, train, 2)
    changed = fit_graphany(config(), X, EDGES, torch.tensor([0, 1, 1, 0]), train, 2)
    for channel in ("X", "L1"):
        torch.testing.assert_close(fit.logits[channel], changed.logits[channel])
    assert fit.distances.shape == (4, 2)


def test_config_checks_channels():
    with pytest.raises(ValueError, match="channels"):
        config(feat_channels=("X", "A1"))
    assert config(feat_channels=("X", "L1", "H2")).hops == 2
    assert config().channels == ("X", "L1")

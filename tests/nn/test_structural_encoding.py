"""UB-GOLD's structural encodings against dense matrix powers written out by hand."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from graphaudit.nn.structural_encoding import structural_encoding, with_structural_encodings
from graphaudit.nn.trainer import RunGraphs


def graph(edges: list[tuple[int, int]], n: int, graph_id: int = 0) -> Data:
    both = edges + [(b, a) for a, b in edges]
    return Data(
        x=torch.ones(n, 1),
        edge_index=torch.tensor(both, dtype=torch.long).T.reshape(2, -1),
        num_nodes=n,
        graph_id=torch.tensor([graph_id]),
    )


def dense_reference(data: Data, rw_dim: int, dg_dim: int) -> np.ndarray:
    n = data.num_nodes
    a = np.zeros((n, n))
    for i, j in data.edge_index.T.tolist():
        a[i, j] += 1
    degree = a.sum(axis=1)
    walk = a @ np.diag([1 / d if d else 0.0 for d in degree])
    power, rows = np.eye(n), []
    for _ in range(rw_dim):
        power = power @ walk
        rows.append(np.diag(power))
    one_hot = np.zeros((n, dg_dim))
    for i, d in enumerate(degree):
        one_hot[i, min(int(d), dg_dim - 1)] = 1
    return np.concatenate([np.stack(rows, axis=1), one_hot], axis=1)


def test_triangle_return_probabilities_by_hand() -> None:
    x_s = structural_encoding(graph([(0, 1), (1, 2), (2, 0)], 3), rw_dim=3, dg_dim=4).numpy()
    # a walk on a triangle returns after 1, 2, 3 steps with probabilities 0, 1/2, 1/4; every degree is 2
    np.testing.assert_allclose(x_s[:, :3], [[0, 0.5, 0.25]] * 3, rtol=1e-6)
    assert x_s[:, 3:].tolist() == [[0, 0, 1, 0]] * 3


@pytest.mark.parametrize("rw_dim,dg_dim", [(1, 1), (4, 2), (8, 8), (16, 16)])
def test_matches_dense_powers_with_isolated_nodes_and_clipped_degrees(rw_dim: int, dg_dim: int) -> None:
    star_path = graph([(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (5, 6)], 8)  # node 7 is isolated
    x_s = structural_encoding(star_path, rw_dim, dg_dim)
    assert x_s.dtype == torch.float32 and x_s.shape == (8, rw_dim + dg_dim)
    np.testing.assert_allclose(x_s.numpy(), dense_reference(star_path, rw_dim, dg_dim), rtol=1e-5, atol=1e-7)
    assert x_s[7].sum() == 1 and x_s[7, rw_dim] == 1  # isolated: never returns, degree 0


def test_run_graphs_gain_x_s_and_the_inputs_stay_untouched() -> None:
    parts = RunGraphs(train=[graph([(0, 1)], 2, 0)], test=[graph([(0, 1), (1, 2)], 3, 1)], holdout=[])
    encoded = with_structural_encodings(parts, rw_dim=2, dg_dim=3)
    assert encoded.ids() == parts.ids()
    assert encoded.test[0].x_s.shape == (3, 5)
    assert "x_s" not in parts.train[0]


def test_bad_dimensions_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        structural_encoding(graph([(0, 1)], 2), rw_dim=0)


def test_scored_groups_are_encoded_and_the_ablation_gives_ones() -> None:
    triangle, path = graph([(0, 1), (1, 2), (0, 2)], 3, 1), graph([(0, 1), (1, 2)], 3, 2)
    graphs = RunGraphs(train=[triangle], test=[], holdout=[], groups={"a": [path], "b": [triangle, path]})
    encoded = with_structural_encodings(graphs, 4, 4)
    np.testing.assert_allclose(encoded.groups["b"][1].x_s.numpy(), dense_reference(path, 4, 4), atol=1e-6)
    constant = with_structural_encodings(graphs, 4, 4, "constant")
    for part in (constant.train, *constant.groups.values()):
        for data in part:
            assert data.x_s.shape == (3, 8) and torch.equal(data.x_s, torch.ones(3, 8))
    with pytest.raises(ValueError, match="structural_input"):
        with_structural_encodings(graphs, 4, 4, "zeros")

"""The dense graph store: packed adjacency bits, features and labels round trip; truth apart."""

from __future__ import annotations

import numpy as np

from graphaudit.pattern.dense import DenseGraphs, Truth, pack_graphs


def test_pack_and_load_round_trip(tmp_path) -> None:
    triangle = np.ones((3, 3), np.uint8) - np.eye(3, dtype=np.uint8)
    path = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], np.uint8)
    graphs = pack_graphs([triangle, path], [np.array([0, 1, 2]), np.array([2, 2, 0, 1])], [np.ones(3), np.zeros(4)])
    assert graphs.num_graphs == 2 and (graphs.size(0), graphs.size(1)) == (3, 4)
    assert graphs.bit_ptr.tolist() == [0, 1, 2]  # 3 and 6 node pairs fit one byte each
    graphs.save(tmp_path / "g.npz")
    back = DenseGraphs.load(tmp_path / "g.npz")
    assert np.array_equal(back.adjacency(0), triangle) and np.array_equal(back.adjacency(1), path)
    assert back.features(1).tolist() == [2, 2, 0, 1] and back.labels(0).tolist() == [1, 1, 1]


def test_truth_round_trip(tmp_path) -> None:
    truth = Truth(np.array([0, -1]), np.array([6, 9]), np.array([[5, 6], [7, 8]]))
    truth.save(tmp_path / "t.npz")
    back = Truth.load(tmp_path / "t.npz")
    assert back.pattern_id.tolist() == [0, -1] and back.host_sizes.tolist() == [[5, 6], [7, 8]]

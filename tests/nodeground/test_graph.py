"""NodeGraph: the invariants it refuses to break, storage, PyG view, unavailable markers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphaudit.data.errors import DataUnavailableError
from graphaudit.nodeground.graph import GraphInvariantError, NodeGraph, unavailable_reason, write_unavailable

# a path 0-1-2 and an isolated node 3, each node with one self-loop; node 3 has no valid label
EDGES = np.array([[0, 0, 1, 1, 1, 2, 2, 3], [0, 1, 0, 1, 2, 1, 2, 3]], dtype=np.int64)


def toy(**changes) -> NodeGraph:
    fields = {
        "name": "toy",
        "x": np.arange(8, dtype=np.float32).reshape(4, 2),
        "edge_index": EDGES,
        "y": np.array([0, 1, 1, -1], dtype=np.int64),
        "num_classes": 2,
    }
    return NodeGraph(**{**fields, **changes})


def test_task_by_class_count() -> None:
    assert toy().task() == "binary"
    assert toy(y=np.array([0, 1, 2, -1]), num_classes=3).task() == "multiclass"
    assert toy().valid.tolist() == [True, True, True, False]


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"edge_index": EDGES[:, [0, 1, 2, 3, 4, 5, 6]]}, "exactly one self-loop"),
        ({"edge_index": EDGES[:, [0, 1, 1, 2, 3, 4, 5, 6, 7]]}, "coalesced"),
        ({"edge_index": EDGES[:, [0, 1, 3, 4, 5, 6, 7]]}, "reverse"),
        ({"edge_index": EDGES[:, [1, 0, 2, 3, 4, 5, 6, 7]]}, "coalesced"),
        ({"y": np.array([0, 1, 2, -1])}, "lie in 0..1"),
        ({"y": np.array([0, 0, 0, -1])}, "use 1 classes"),
        ({"y": np.array([0, 1, 1, -2])}, "lie in 0..1"),
        ({"x": np.zeros((4, 2))}, "float32"),
        ({"y": np.array([0, 1, 1], dtype=np.int64)}, "one entry per row"),
        ({"edge_index": EDGES.astype(np.int32)}, "int64"),
        ({"edge_index": np.array([[0, 0, 1, 1, 2, 3, 4], [0, 1, 0, 1, 2, 3, 4]])}, "endpoints"),
    ],
)
def test_broken_invariants_are_refused(changes, match) -> None:
    with pytest.raises(GraphInvariantError, match=match):
        toy(**changes)


def test_save_load_roundtrip_and_identical_bytes(tmp_path) -> None:
    graph = toy()
    graph.save(tmp_path / "a.npz")
    graph.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    back = NodeGraph.load(tmp_path / "a.npz")
    assert back.name == "toy" and back.num_classes == 2
    for field in ("x", "edge_index", "y"):
        np.testing.assert_array_equal(getattr(back, field), getattr(graph, field))
        assert getattr(back, field).dtype == getattr(graph, field).dtype
    assert unavailable_reason(tmp_path / "a.npz") is None


def test_to_pyg_holds_the_arrays() -> None:
    data = toy().to_pyg()
    assert torch.equal(data.edge_index, torch.from_numpy(EDGES))
    assert data.x.dtype == torch.float32 and data.y.tolist() == [0, 1, 1, -1] and data.num_nodes == 4


def test_unavailable_marker(tmp_path) -> None:
    path = tmp_path / "pubmed.npz"
    write_unavailable(path, "pubmed", "no mirror and downloads are disabled")
    assert unavailable_reason(path) == "no mirror and downloads are disabled"
    with pytest.raises(DataUnavailableError, match=r"pubmed is unavailable.*downloads are disabled"):
        NodeGraph.load(path)

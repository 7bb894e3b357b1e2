"""Readers: TU zips and folders, heterophilous npz, Planetoid pickles (arrays only)."""

from __future__ import annotations

import pickle
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from graphaudit.data.readers import DataFormatError, load_planetoid_pickle, read_heterophilous, read_planetoid, read_tu


@pytest.mark.parametrize("prefix", ["TINY/", "TINY//", ""])
def test_tu_zip_any_member_prefix(tmp_path, write_tu_zip, prefix):
    graphs = read_tu(write_tu_zip(tmp_path / "TINY.zip", "TINY", prefix=prefix), "TINY")
    assert (graphs.num_graphs, graphs.num_nodes, graphs.num_edges) == (2, 5, 4)
    assert graphs.edges.tolist() == [[0, 1], [0, 2], [1, 2], [3, 4]]
    assert graphs.get("edge_labels").tolist() == [7, 9, 8, 5]
    assert graphs.get("graph_labels").tolist() == [-1, 1]
    assert graphs.get("node_labels").tolist() == [0, 1, 1, 2, 0]
    np.testing.assert_allclose(graphs.get("node_attrs")[4], [-1.0, 0.25])


def test_tu_folder(tmp_path, tiny_tu):
    folder = tmp_path / "TINY"
    folder.mkdir()
    for part, text in tiny_tu.items():
        (folder / f"TINY_{part}.txt").write_text(text)
    assert read_tu(folder, "TINY").num_edges == 4


def test_tu_missing_part_names_the_file(tmp_path, write_tu_zip, tiny_tu):
    del tiny_tu["graph_labels"]
    with pytest.raises(DataFormatError, match=r"no TINY_graph_labels.txt"):
        read_tu(write_tu_zip(tmp_path / "TINY.zip", "TINY", tiny_tu), "TINY")


@pytest.mark.parametrize(
    "part, message",
    [
        ("node_labels", "node_labels has 4 rows for 5 nodes"),
        ("graph_labels", "1 graph labels for 2 graphs"),
        ("edge_labels", "7 edge labels for 8 adjacency rows"),
    ],
)
def test_tu_truncated_file(tmp_path, write_tu_zip, tiny_tu, part, message):
    tiny_tu[part] = "\n".join(tiny_tu[part].splitlines()[:-1]) + "\n"
    with pytest.raises(DataFormatError, match=message):
        read_tu(write_tu_zip(tmp_path / "TINY.zip", "TINY", tiny_tu), "TINY")


def test_tu_edge_outside_nodes(tmp_path, write_tu_zip, tiny_tu):
    tiny_tu["A"] += "5, 9\n"
    tiny_tu["edge_labels"] += "1\n"
    with pytest.raises(DataFormatError, match=r"outside 1..5"):
        read_tu(write_tu_zip(tmp_path / "TINY.zip", "TINY", tiny_tu), "TINY")


def test_tu_not_numbers(tmp_path, write_tu_zip, tiny_tu):
    tiny_tu["graph_indicator"] = "1\nx\n1\n2\n2\n"
    with pytest.raises(DataFormatError, match="not a table of numbers"):
        read_tu(write_tu_zip(tmp_path / "TINY.zip", "TINY", tiny_tu), "TINY")


def test_tu_corrupt_zip(tmp_path, write_tu_zip):
    path = write_tu_zip(tmp_path / "TINY.zip", "TINY")
    path.write_bytes(path.read_bytes()[:60])
    with pytest.raises(DataFormatError, match="not a readable zip"):
        read_tu(path, "TINY")


def test_tu_corrupt_member(tmp_path, tiny_tu):
    path = tmp_path / "TINY.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for part, text in tiny_tu.items():
            archive.writestr(f"TINY/TINY_{part}.txt", text * 50)
    data = bytearray(path.read_bytes())
    offset = data.find(b"1, 2\n2, 1") + 3
    data[offset] ^= 0x7  # flip bits inside the stored A.txt: the CRC no longer matches
    path.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match="corrupt"):
        read_tu(path, "TINY")


def test_heterophilous_npz(tmp_path):
    path = tmp_path / "toy.npz"
    masks = np.zeros((2, 4), dtype=bool)
    masks[:, 0] = True
    np.savez(
        path,
        node_features=np.eye(4, dtype=np.float32),
        node_labels=np.array([0, 1, 1, 0]),
        edges=np.array([[0, 1], [1, 2], [2, 3], [1, 0]]),
        train_masks=masks,
        val_masks=masks,
        test_masks=masks,
    )
    graphs = read_heterophilous(path, "toy")
    assert graphs.num_nodes == 4 and graphs.num_edges == 3
    assert graphs.get("train_masks").shape == (2, 4)
    directed = read_heterophilous(path, "toy", directed=True)
    assert directed.num_edges == 4


def test_heterophilous_refuses_pickled_arrays(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(
        path,
        node_features=np.zeros((2, 1)),
        node_labels=np.array([{"a": 1}, 2], dtype=object),
        edges=np.zeros((0, 2), dtype=int),
    )
    with pytest.raises(ValueError):
        read_heterophilous(path, "bad")


def test_heterophilous_missing_array(tmp_path):
    np.savez(tmp_path / "x.npz", node_features=np.zeros((2, 1)))
    with pytest.raises(DataFormatError, match="lacks arrays"):
        read_heterophilous(tmp_path / "x.npz", "x")


def _write_planetoid(folder, name="toy"):
    """A 6-node Planetoid set: 2 labelled train nodes, 2 more in allx, test ids [5, 4] (unsorted)."""
    x = sp.csr_matrix(np.array([[1, 0], [0, 1]], dtype=np.float32))
    allx = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=np.float32))
    tx = sp.csr_matrix(np.array([[2, 0], [0, 2]], dtype=np.float32))  # rows for sorted test ids 4, 5
    y = np.array([[1, 0], [0, 1]])
    ally = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    ty = np.array([[1, 0], [0, 1]])
    graph = {0: [1], 1: [0, 2], 2: [3, 3], 3: [4], 4: [5], 5: [5]}
    for part, obj in dict(x=x, y=y, tx=tx, ty=ty, allx=allx, ally=ally, graph=graph).items():
        (folder / f"ind.{name}.{part}").write_bytes(pickle.dumps(obj, protocol=2))
    (folder / f"ind.{name}.test.index").write_text("5\n4\n")


def test_planetoid_reorders_test_nodes_like_pyg(tmp_path):
    _write_planetoid(tmp_path)
    graphs = read_planetoid(tmp_path, "toy")
    assert graphs.num_nodes == 6 and graphs.num_edges == 5  # self-loop 5-5 and the repeated 2-3 dropped
    # test.index lists 5 then 4: node 5 takes the first sorted-test row (of node 4), as PyG does
    np.testing.assert_array_equal(graphs.get("node_attrs")[4:], [[0, 2], [2, 0]])
    assert graphs.get("node_target").tolist() == [0, 1, 0, 1, 1, 0]
    assert graphs.get("train_masks")[0].tolist() == [True, True, False, False, False, False]
    assert graphs.get("test_masks")[0].tolist() == [False] * 4 + [True, True]


def test_planetoid_unpickler_refuses_code(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("boom",))

    with pytest.raises(DataFormatError, match=r"refusing to load builtins.print"):
        load_planetoid_pickle(pickle.dumps(Evil()), "evil")


def test_planetoid_missing_part(tmp_path):
    _write_planetoid(tmp_path)
    (tmp_path / "ind.toy.ally").unlink()
    with pytest.raises(DataFormatError, match="missing file"):
        read_planetoid(tmp_path, "toy")


def test_planetoid_citeseer_gap_in_test_ids_is_unlabelled(tmp_path):
    """CiteSeer's test ids skip isolated nodes: PyG pads them with zero features and class 0; they have no label
    (-1 here), so no split can use them and the class counts are the published 3,312 labelled nodes'."""
    allx = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=np.float32))
    tx = sp.csr_matrix(np.array([[2, 0], [0, 2]], dtype=np.float32))  # rows for sorted test ids 4, 6
    parts = dict(x=allx[:2], y=np.eye(2)[[0, 1]], tx=tx, ty=np.eye(2)[[1, 1]], allx=allx, ally=np.eye(2)[[0, 1, 0, 1]])
    parts["graph"] = {0: [1], 1: [0], 2: [3], 3: [2], 4: [], 5: [], 6: []}
    for part, obj in parts.items():
        (tmp_path / f"ind.citeseer.{part}").write_bytes(pickle.dumps(obj, protocol=2))
    (tmp_path / "ind.citeseer.test.index").write_text("6\n4\n")
    graphs = read_planetoid(tmp_path, "citeseer")
    assert graphs.get("node_target").tolist() == [0, 1, 0, 1, 1, -1, 1]
    np.testing.assert_array_equal(graphs.get("node_attrs")[5], [0, 0])
    assert graphs.get("test_masks")[0].tolist() == [False] * 4 + [True, False, True]

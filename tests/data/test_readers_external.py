"""Readers for gnn-benchmark npz, Wiki-CS json, OGB node- and graph-property zips and PyG's benchmarking-gnns
release."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from graphaudit.data.graphset import split_members
from graphaudit.data.readers import DataFormatError
from graphaudit.data.readers_external import (
    read_benchmarking_gnns,
    read_gnn_benchmark_npz,
    read_ogb_graphprop,
    read_ogb_nodeprop,
    read_wikics_json,
)
from ogb_toys import ogb_tables, write_ogb_graphprop

# ---- gnn-benchmark npz -------------------------------------------------------------------------------

# 5 nodes; rows: 0->1 | 1->0, 1->2 | 2->2 (loop) | 3->4 twice (duplicate) | 4->3
ADJ = {"adj_indptr": [0, 1, 3, 4, 6, 7], "adj_indices": [1, 0, 2, 2, 4, 4, 3]}
# attributes 5x4: 2.5, explicit 0, -1 (not > 0: kept, as PyG does), 1, duplicate 0.5 + -0.2 (0.3 > 0), empty row
ATTR = {
    "attr_indptr": [0, 2, 3, 4, 6, 6],
    "attr_indices": [0, 2, 1, 3, 0, 0],
    "attr_data": [2.5, 0.0, -1.0, 1.0, 0.5, -0.2],
}


def gnn_benchmark_arrays(**changes: object) -> dict[str, np.ndarray]:
    arrays = {
        "adj_data": np.ones(7, dtype=np.float32),
        "adj_indices": np.array(ADJ["adj_indices"], dtype=np.int32),
        "adj_indptr": np.array(ADJ["adj_indptr"], dtype=np.int32),
        "adj_shape": np.array([5, 5]),
        "attr_data": np.array(ATTR["attr_data"], dtype=np.float32),
        "attr_indices": np.array(ATTR["attr_indices"], dtype=np.int32),
        "attr_indptr": np.array(ATTR["attr_indptr"], dtype=np.int32),
        "attr_shape": np.array([5, 4]),
        "labels": np.array([0, 1, 2, 1, 0]),
        # metadata as published: object arrays that need pickle to read
        "idx_to_node": np.array({0: "a", 1: "b"}, dtype=object),
        "class_names": np.array(["x", "y", "z"], dtype=object),
    }
    arrays.update({k: np.asarray(v) for k, v in changes.items()})
    return arrays


def write_gnn_benchmark(path: Path, drop: tuple[str, ...] = (), **changes: object) -> Path:
    arrays = {k: v for k, v in gnn_benchmark_arrays(**changes).items() if k not in drop}
    np.savez(path, **arrays)  # allow_pickle defaults to True: the object metadata is pickled
    return path


def test_gnn_benchmark_npz(tmp_path: Path) -> None:
    path = write_gnn_benchmark(tmp_path / "amazon_electronics_photo.npz")
    gs = read_gnn_benchmark_npz(path, "photo")
    assert (gs.num_graphs, gs.num_nodes, gs.num_edges, gs.directed) == (1, 5, 3, False)
    assert gs.edges.tolist() == [[0, 1], [1, 2], [3, 4]]  # loop dropped, duplicate and reverse merged
    expected_x = np.zeros((5, 4), dtype=np.float32)
    expected_x[0, 0] = expected_x[2, 3] = expected_x[3, 0] = 1
    expected_x[1, 1] = -1
    assert gs.arrays["node_attrs"].dtype == np.float32
    np.testing.assert_array_equal(gs.arrays["node_attrs"], expected_x)
    assert gs.arrays["node_target"].dtype == np.int64
    assert gs.arrays["node_target"].tolist() == [0, 1, 2, 1, 0]
    assert not any(k.endswith("_masks") for k in gs.arrays)
    data = gs.to_pyg()
    assert tuple(data.edge_index.shape) == (2, 6)


def test_gnn_benchmark_npz_matches_pyg(tmp_path: Path) -> None:
    from torch_geometric.io.npz import parse_npz

    path = write_gnn_benchmark(tmp_path / "ms_academic_cs.npz")
    ours = read_gnn_benchmark_npz(path, "cs").to_pyg()
    pyg = parse_npz({k: v for k, v in gnn_benchmark_arrays().items() if k not in ("idx_to_node", "class_names")})
    torch.testing.assert_close(ours.x, pyg.x)
    assert torch.equal(ours.y, pyg.y)
    assert sorted(map(tuple, ours.edge_index.T.tolist())) == sorted(map(tuple, pyg.edge_index.T.tolist()))


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("not_npz", "not a zip"),
        ("missing_key", r"lacks arrays \['labels'\]"),
        ("truncated", "adjacency has shape"),
        ("out_of_range", r"adj_indices must lie in 0\.\.4"),
    ],
)
def test_gnn_benchmark_npz_errors(tmp_path: Path, kind: str, match: str) -> None:
    path = tmp_path / "amazon_electronics_computers.npz"
    if kind == "not_npz":
        path.write_text("adj_data,adj_indices\n")
    elif kind == "missing_key":
        write_gnn_benchmark(path, drop=("labels",))
    elif kind == "truncated":
        write_gnn_benchmark(path, labels=[0, 1, 2, 1])
    else:
        write_gnn_benchmark(path, adj_indices=[1, 0, 2, 2, 4, 7, 3])
    with pytest.raises(DataFormatError, match=match) as info:
        read_gnn_benchmark_npz(path, "computers")
    assert "computers" in str(info.value) and str(path) in str(info.value)


# ---- Wiki-CS data.json --------------------------------------------------------------------------------------

# 4 nodes: 0->1 and 1->0 (one pair), 1->2, 2->2 (loop), 3->1 twice (repeat); 2 published train/val splits
WIKICS = {
    "features": [[0.5, 1.0], [0.0, 0.0], [1.5, -2.0], [3.0, 3.0]],
    "labels": [0, 2, 1, 2],
    "links": [[1], [0, 2], [2], [1, 1]],
    "train_masks": [[True, False, False, False], [False, True, False, False]],
    "val_masks": [[False, True, False, False], [True, False, False, False]],
    "test_mask": [False, False, True, True],
    "stopping_masks": [[False] * 4, [False] * 4],
}


def test_wikics_json_matches_pyg(tmp_path: Path) -> None:
    from torch_geometric.datasets import WikiCS
    from torch_geometric.utils import remove_self_loops

    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "data.json").write_text(json.dumps(WIKICS))
    gs = read_wikics_json(tmp_path / "raw" / "data.json", "wiki-cs")
    assert gs.edges.tolist() == [[0, 1], [1, 2], [1, 3]]
    assert gs.get("node_target").tolist() == [0, 2, 1, 2]
    assert gs.get("train_masks").shape == (2, 4) and gs.get("test_masks").tolist() == [[False, False, True, True]]
    pyg = WikiCS(str(tmp_path), is_undirected=True)[0]
    ours = gs.to_pyg()
    torch.testing.assert_close(ours.x, pyg.x)
    pyg_edges = {tuple(e) for e in remove_self_loops(pyg.edge_index)[0].t().tolist()}
    assert {tuple(e) for e in ours.edge_index.t().tolist()} == pyg_edges
    assert torch.equal(torch.from_numpy(gs.get("train_masks")).t(), pyg.train_mask)


@pytest.mark.parametrize(
    "change, match",
    [({"labels": [0, 1]}, "one per node"), ({"links": [[1], [0], [9], []]}, "outside"), ({"labels": None}, "lacks")],
)
def test_wikics_json_errors(tmp_path: Path, change: dict, match: str) -> None:
    content = {k: v for k, v in {**WIKICS, **change}.items() if v is not None}
    (tmp_path / "data.json").write_text(json.dumps(content))
    with pytest.raises(DataFormatError, match=match):
        read_wikics_json(tmp_path / "data.json", "wiki-cs")


# ---- OGB node-property zip -------------------------------------------------------------------------------

OGB_EDGES = [(0, 1), (1, 2), (2, 0), (1, 0), (3, 4), (3, 4), (5, 5)]  # 1 duplicate, 1 loop -> 5 directed edges
OGB_FEATS = np.arange(18, dtype=np.float32).reshape(6, 3) / 4
OGB_LABELS = [3, 0, 1, 1, 2, 0]


def _gz_csv(rows: list) -> bytes:
    text = "".join(",".join(str(v) for v in np.atleast_1d(row)) + "\n" for row in rows)
    return gzip.compress(text.encode())


def write_ogb(
    path: Path, top: str = "ogbn_arxiv", drop: tuple[str, ...] = (), replace: dict[str, list] | None = None
) -> Path:
    tables = {
        "raw/edge.csv.gz": OGB_EDGES,
        "raw/node-feat.csv.gz": OGB_FEATS.tolist(),
        "raw/node-label.csv.gz": OGB_LABELS,
        "raw/num-node-list.csv.gz": [6],
        "raw/num-edge-list.csv.gz": [len(OGB_EDGES)],
        "raw/node_year.csv.gz": [2010] * 6,
        "split/time/train.csv.gz": [0, 1, 2],
        "split/time/valid.csv.gz": [3],
        "split/time/test.csv.gz": [4, 5],
    }
    tables.update(replace or {})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{top}/RELEASE_v1.txt", "")
        for member, rows in tables.items():
            if member not in drop:
                zf.writestr(f"{top}/{member}", _gz_csv(rows))
    return path


def test_ogb_nodeprop(tmp_path: Path) -> None:
    gs = read_ogb_nodeprop(write_ogb(tmp_path / "arxiv.zip"), "ogbn-arxiv")
    assert (gs.num_graphs, gs.num_nodes, gs.num_edges, gs.directed) == (1, 6, 5, True)
    assert gs.edges.tolist() == [[0, 1], [1, 0], [1, 2], [2, 0], [3, 4]]
    assert gs.arrays["node_attrs"].dtype == np.float32
    np.testing.assert_array_equal(gs.arrays["node_attrs"], OGB_FEATS)
    assert gs.arrays["node_target"].dtype == np.int64
    assert gs.arrays["node_target"].tolist() == OGB_LABELS
    masks = {k: gs.arrays[k] for k in ("train_masks", "val_masks", "test_masks")}
    assert all(m.shape == (1, 6) and m.dtype == bool for m in masks.values())
    assert [int(m.sum()) for m in masks.values()] == [3, 1, 2]
    assert np.flatnonzero(masks["test_masks"][0]).tolist() == [4, 5]
    assert tuple(gs.to_pyg().edge_index.shape) == (2, 5)


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("not_zip", "not a readable zip"),
        ("missing_member", "raw/node-label.csv.gz, found no member"),
        ("truncated", r"node-label.csv.gz has 5 rows for 6 nodes"),
        ("out_of_range", r"endpoints must lie in 0\.\.5, found 0\.\.6"),
    ],
)
def test_ogb_nodeprop_errors(tmp_path: Path, kind: str, match: str) -> None:
    path = tmp_path / "arxiv.zip"
    if kind == "not_zip":
        path.write_bytes(gzip.compress(b"0,1\n"))
    elif kind == "missing_member":
        write_ogb(path, drop=("raw/node-label.csv.gz",))
    elif kind == "truncated":
        write_ogb(path, replace={"raw/node-label.csv.gz": OGB_LABELS[:5]})
    else:
        write_ogb(path, replace={"raw/edge.csv.gz": OGB_EDGES[:-1] + [(5, 6)]})
    with pytest.raises(DataFormatError, match=match) as info:
        read_ogb_nodeprop(path, "ogbn-arxiv")
    assert "ogbn-arxiv" in str(info.value) and str(path) in str(info.value)


# ---- OGB graph-property zip (tests/ogb_toys.py: four molecules) -------------------------------------------


def test_ogb_graphprop_counts_edges_and_labels(tmp_path: Path) -> None:
    gs = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "hiv.zip"), "ogbg-molhiv")
    assert (gs.num_graphs, gs.num_nodes, gs.num_edges, gs.directed) == (4, 12, 8, False)
    assert gs.node_counts().tolist() == [3, 4, 4, 1] and gs.edge_counts().tolist() == [2, 3, 3, 0]
    # local ids shifted by each graph's first node: ethanol 0..2, acetyl fluoride 3..6, chloroform 7..10, Na 11
    assert gs.edges.tolist() == [[0, 1], [1, 2], [3, 4], [4, 5], [4, 6], [7, 8], [8, 9], [8, 10]]
    assert gs.graph_edges(1).tolist() == [[0, 1], [1, 2], [1, 3]]
    assert gs.arrays["node_labels"].tolist() == [5, 5, 7, 5, 5, 7, 8, 16, 5, 16, 16, 10]  # atomic_num - 1
    assert gs.arrays["edge_labels"].tolist() == [0, 0, 0, 1, 0, 0, 0, 0]  # the C=O of acetyl fluoride
    assert gs.arrays["graph_labels"].tolist() == [0, 1, 1, 0]


def test_ogb_graphprop_keeps_the_scaffold_split_in_file_order(tmp_path: Path) -> None:
    gs = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "bbbp.zip", top="bbbp"), "ogbg-molbbbp")
    assert gs.arrays["graph_split"].tolist() == [[0, 1], [2, 0], [0, 0], [1, 0]]  # (part, position in its file)
    assert split_members(gs, "train").tolist() == [2, 0]
    assert split_members(gs, "valid").tolist() == [3] and split_members(gs, "test").tolist() == [1]


def test_ogb_graphprop_survives_a_save_load_round_trip(tmp_path: Path) -> None:
    gs = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "hiv.zip"), "ogbg-molhiv")
    gs.save(tmp_path / "hiv.npz")
    back = type(gs).load(tmp_path / "hiv.npz")
    assert sorted(back.arrays) == ["edge_labels", "graph_labels", "graph_split", "node_labels"]
    np.testing.assert_array_equal(back.arrays["graph_split"], gs.arrays["graph_split"])


def _graphprop_error_zip(path: Path, kind: str) -> Path:
    tables = ogb_tables()
    changes = {
        "truncated": {"raw/node-feat.csv.gz": tables["raw/node-feat.csv.gz"][:-1]},
        "foreign_node": {"raw/edge.csv.gz": [(0, 1), (1, 3)] + tables["raw/edge.csv.gz"][2:]},
        "features": {"raw/node-feat.csv.gz": [row[:3] for row in tables["raw/node-feat.csv.gz"]]},
        "multitask": {"raw/graph-label.csv.gz": [(y, y) for y in tables["raw/graph-label.csv.gz"]]},
        "split_twice": {"split/scaffold/test.csv.gz": [1, 0]},
        "split_range": {"split/scaffold/valid.csv.gz": [4]},
        "empty_graph": {"raw/num-node-list.csv.gz": [3, 4, 5, 0]},
        "edge_counts": {"raw/num-edge-list.csv.gz": [2, 3, 3]},
    }
    if kind == "missing_member":
        return write_ogb_graphprop(path, drop=("raw/graph-label.csv.gz",))
    return write_ogb_graphprop(path, replace=changes[kind])


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("missing_member", "raw/graph-label.csv.gz, found no member"),
        ("truncated", r"node-feat.csv.gz has 11 rows for 12 nodes"),
        ("foreign_node", r"edge.csv.gz row 1 \(1,3\) belongs to graph 0, whose 3 nodes are 0\.\.2"),
        ("features", r"node-feat.csv.gz has 3 columns, expected OGB's 9 atom features"),
        ("multitask", r"graph-label.csv.gz has 2 label columns"),
        ("split_twice", r"split test.csv.gz lists a graph twice or one of an earlier part"),
        ("split_range", r"split valid.csv.gz names graphs 4\.\.4, the set has 0\.\.3"),
        ("empty_graph", r"num-node-list.csv.gz gives graph 3 0 nodes"),
        ("edge_counts", r"num-edge-list.csv.gz has 3 rows for 4 graphs"),
    ],
)
def test_ogb_graphprop_errors(tmp_path: Path, kind: str, match: str) -> None:
    path = _graphprop_error_zip(tmp_path / "hiv.zip", kind)
    with pytest.raises(DataFormatError, match=match) as info:
        read_ogb_graphprop(path, "ogbg-molhiv")
    assert "ogbg-molhiv" in str(info.value) and str(path) in str(info.value)


# ---- benchmarking-gnns (PATTERN / CLUSTER) ------------------------------------------------------------------


def _both(*pairs: tuple[int, int]) -> torch.Tensor:
    edges = [p for u, v in pairs for p in ((u, v), (v, u))]
    return torch.tensor(edges, dtype=torch.long).reshape(-1, 2).T.contiguous()


def _one_hot(codes: list[int], width: int = 3) -> torch.Tensor:
    return torch.nn.functional.one_hot(torch.tensor(codes), width).to(torch.float)


def benchmarking_splits() -> list[list[dict[str, torch.Tensor]]]:
    g0 = {
        "x": torch.tensor([0, 1, 2]),
        "edge_index": torch.cat([_both((0, 1), (1, 2)), torch.tensor([[2], [2]])], 1),
        "y": torch.tensor([0, 1, 0]),
    }
    g1 = {"x": torch.tensor([1, 1]), "edge_index": _both((0, 1)), "edge_attr": torch.ones(2), "y": torch.tensor([1, 1])}
    g2 = {"x": _one_hot([2, 0, 1, 0]), "edge_index": _both((0, 1), (2, 3), (3, 0)), "y": torch.tensor([0, 0, 1, 1])}
    g3 = {"x": _one_hot([2]), "edge_index": torch.zeros((2, 0), dtype=torch.long), "y": torch.tensor([1])}
    return [[g0, g1], [g2], [g3]]


def write_benchmarking(path: Path, splits: object, member: str = "PATTERN_v2.pt") -> Path:
    buffer = io.BytesIO()
    torch.save(splits, buffer)
    if path.suffix == ".pt":
        path.write_bytes(buffer.getvalue())
    else:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(member, buffer.getvalue())
    return path


@pytest.mark.parametrize("file_name", ["PATTERN_v2.zip", "PATTERN_v2.pt"])
def test_benchmarking_gnns(tmp_path: Path, file_name: str) -> None:
    gs = read_benchmarking_gnns(write_benchmarking(tmp_path / file_name, benchmarking_splits()), "PATTERN")
    assert (gs.num_graphs, gs.num_nodes, gs.num_edges, gs.directed) == (4, 10, 6, False)
    assert gs.node_ptr.tolist() == [0, 3, 5, 9, 10]
    assert gs.edge_ptr.tolist() == [0, 2, 3, 6, 6]
    assert gs.arrays["graph_labels"].tolist() == [0, 0, 1, 2]
    assert gs.arrays["node_labels"].tolist() == [0, 1, 2, 1, 1, 2, 0, 1, 0, 2]
    assert gs.arrays["node_target"].dtype == np.int64
    assert gs.arrays["node_target"].tolist() == [0, 1, 0, 1, 1, 0, 0, 1, 1, 1]
    assert gs.graph_edges(0).tolist() == [[0, 1], [1, 2]]
    assert gs.graph_edges(2).tolist() == [[0, 1], [0, 3], [2, 3]]
    data = gs.to_pyg(2)
    assert tuple(data.edge_index.shape) == (2, 6)
    assert data.y.tolist() == [0, 0, 1, 1]
    assert data.x.argmax(1).tolist() == [2, 0, 1, 0]


def test_benchmarking_gnns_refuses_pickled_objects(tmp_path: Path) -> None:
    splits = benchmarking_splits()
    splits[0][0]["meta"] = np.array([1, 2], dtype=object)  # needs full pickle to load
    path = write_benchmarking(tmp_path / "CLUSTER_v2.zip", splits, member="CLUSTER_v2.pt")
    with pytest.raises(DataFormatError, match="not a torch file of tensors"):
        read_benchmarking_gnns(path, "CLUSTER")


def _bad_splits(kind: str) -> list[list[dict[str, torch.Tensor]]]:
    splits = benchmarking_splits()
    if kind == "missing_key":
        del splits[1][0]["y"]
    elif kind == "truncated":
        splits[1][0]["y"] = splits[1][0]["y"][:3]
    elif kind == "out_of_range":
        splits[0][0]["edge_index"] = torch.tensor([[0, 3], [3, 0]])
    return splits


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("not_zip", "not a readable zip"),
        ("missing_member", r"no \.pt member"),
        ("missing_key", r"val graph 0: lacks keys \['y'\]"),
        ("truncated", r"val graph 0: y has shape \(3,\) for 4 nodes"),
        ("out_of_range", r"train graph 0: edge_index endpoints must lie in 0\.\.2, found 0\.\.3"),
    ],
)
def test_benchmarking_gnns_errors(tmp_path: Path, kind: str, match: str) -> None:
    path = tmp_path / "PATTERN_v2.zip"
    if kind == "not_zip":
        path.write_bytes(b"PK but not really a zip")
    elif kind == "missing_member":
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("PATTERN_v2/readme.txt", "")
    else:
        write_benchmarking(path, _bad_splits(kind))
    with pytest.raises(DataFormatError, match=match) as info:
        read_benchmarking_gnns(path, "PATTERN")
    assert "PATTERN" in str(info.value) and str(path) in str(info.value)

"""Readers for externally published node- and graph-task files into GraphSet.

- ``read_gnn_benchmark_npz``: shchur/gnn-benchmark ``.npz`` (Amazon Computers/Photo, Coauthor CS/Physics).
- ``read_wikics_json``: pmernyei/wiki-cs-dataset ``data.json`` (Wiki-CS).
- ``read_ogb_nodeprop``: OGB node-property zips (``arxiv.zip`` layout: ``raw/*.csv.gz`` and ``split/*/``).
- ``read_ogb_graphprop``: OGB graph-property molecule zips (``hiv.zip``, ``bbbp.zip``: the same layout, many graphs).
- ``read_benchmarking_gnns``: PyG's benchmarking-gnns release (``PATTERN_v2.zip``, ``CLUSTER_v2.zip``).

None of them unpickles arbitrary objects: npz files are opened with ``allow_pickle=False`` and torch
files with ``weights_only=True``.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.data.graphset import GRAPH_SPLIT_PARTS, GraphSet, canonical_edges, from_edge_list
from graphaudit.data.readers import DataFormatError, single_graph

# ---- shchur/gnn-benchmark npz ------------------------------------------------------------------------

GNN_BENCHMARK_KEYS = (
    "adj_data",
    "adj_indices",
    "adj_indptr",
    "adj_shape",
    "attr_data",
    "attr_indices",
    "attr_indptr",
    "attr_shape",
    "labels",
)


def read_gnn_benchmark_npz(path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read a shchur/gnn-benchmark npz the way PyG's ``read_npz`` does, into a one-graph GraphSet.

    Features are binarised as float32 ``node_attrs``: every value > 0 becomes 1 (PyG's rule; a negative
    value would be kept, but the published files hold none); ``labels`` become
    int64 ``node_target``; self-loops are dropped and edges made undirected. Only the CSR and label
    arrays are read (``allow_pickle=False``); the object-dtype metadata keys are never touched.
    These sets publish no split, so no masks are stored.
    """
    where = f"{name} ({path})"
    content = _load_npz_arrays(path, GNN_BENCHMARK_KEYS, where)
    labels = content["labels"]
    if labels.ndim != 1:
        raise DataFormatError(f"{where}: labels must be one class per node, found shape {labels.shape}")
    n = len(labels)
    adj_rows, adj_cols, _, adj_shape = _csr_entries(content, "adj", where)
    if adj_shape != (n, n):
        raise DataFormatError(
            f"{where}: adjacency has shape {adj_shape} for {n} labelled nodes "
            "(expected a square matrix, one row per label; file truncated?)"
        )
    attr_rows, attr_cols, attr_data, attr_shape = _csr_entries(content, "attr", where)
    if attr_shape[0] != n:
        raise DataFormatError(
            f"{where}: attribute matrix has {attr_shape[0]} rows for {n} labelled nodes (file truncated?)"
        )
    arrays = {
        "node_attrs": _binarised_dense(attr_rows, attr_cols, attr_data, attr_shape),
        "node_target": labels.astype(np.int64),
    }
    return single_graph(name, n, np.stack([adj_rows, adj_cols], axis=1), False, arrays, str(path))


def _load_npz_arrays(path: str | os.PathLike[str], keys: tuple[str, ...], where: str) -> dict[str, np.ndarray]:
    """The named arrays of an npz, opened without pickle; other keys are not read."""
    if not os.path.isfile(path) or not zipfile.is_zipfile(path):
        found = "a file that is not a zip" if os.path.isfile(path) else "no such file"
        raise DataFormatError(f"{where}: expected an npz (zip) archive, found {found}")
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [k for k in keys if k not in archive.files]
            if missing:
                raise DataFormatError(f"{where}: npz lacks arrays {missing} (has {sorted(archive.files)[:12]})")
            return {k: archive[k] for k in keys}
    except DataFormatError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:
        raise DataFormatError(f"{where}: not a readable npz archive ({err})") from err
    except ValueError as err:  # an expected array stored as objects (refused by allow_pickle=False)
        raise DataFormatError(f"{where}: an expected array cannot be read without pickle ({err})") from err


def _csr_entries(
    content: dict[str, np.ndarray], prefix: str, where: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """Check ``<prefix>_{data,indices,indptr,shape}`` and return the stored (row, col, value) triples."""
    data, indices, indptr = (content[f"{prefix}_{part}"] for part in ("data", "indices", "indptr"))
    shape_array = np.asarray(content[f"{prefix}_shape"]).ravel()
    if len(shape_array) != 2:
        raise DataFormatError(f"{where}: {prefix}_shape must hold two sizes, found {shape_array.tolist()}")
    shape = (int(shape_array[0]), int(shape_array[1]))
    indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    if len(indptr) != shape[0] + 1 or (len(indptr) and indptr[0] != 0) or np.any(np.diff(indptr) < 0):
        raise DataFormatError(
            f"{where}: {prefix}_indptr must be {shape[0] + 1} non-decreasing offsets from 0, "
            f"found {len(indptr)} entries (file truncated?)"
        )
    if not int(indptr[-1]) == len(indices) == len(data):
        raise DataFormatError(
            f"{where}: {prefix}_indptr ends at {int(indptr[-1])} but {prefix}_indices has "
            f"{len(indices)} and {prefix}_data {len(data)} entries (file truncated?)"
        )
    if len(indices) and (indices.min() < 0 or indices.max() >= shape[1]):
        raise DataFormatError(
            f"{where}: {prefix}_indices must lie in 0..{shape[1] - 1}, found {indices.min()}..{indices.max()}"
        )
    rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(indptr))
    return rows, indices, data, shape


def _binarised_dense(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Dense float32 matrix of the (duplicate-summed) entries with every value > 0 set to 1, as PyG does."""
    import scipy.sparse as sp

    matrix = sp.coo_matrix((data, (rows, cols)), shape=shape).tocsr().tocoo()  # sums duplicate entries
    dense = np.zeros(shape, dtype=np.float32)
    dense[matrix.row, matrix.col] = matrix.data
    dense[dense > 0] = 1.0
    return dense


# ---- Wiki-CS data.json -----------------------------------------------------------------------------------

WIKICS_KEYS = ("features", "labels", "links", "train_masks", "val_masks", "test_mask")


def read_wikics_json(path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read pmernyei/wiki-cs-dataset's ``data.json`` the way PyG's ``WikiCS`` does, into a one-graph GraphSet.

    ``features`` become float32 ``node_attrs``, ``labels`` int64 ``node_target``; ``links`` (one adjacency list
    per node) become undirected edges without self-loops or repeats; the 20 published train / validation
    splits and the one test mask are kept as masks (the early-stopping masks are not read).
    """
    where = f"{name} ({path})"
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataFormatError(f"{where}: not a readable JSON file ({err})") from err
    missing = [k for k in WIKICS_KEYS if k not in content] if isinstance(content, dict) else list(WIKICS_KEYS)
    if missing:
        raise DataFormatError(f"{where}: data.json lacks {missing}")
    labels = np.asarray(content["labels"], dtype=np.int64)
    n = len(labels)
    features = np.asarray(content["features"], dtype=np.float32)
    if features.ndim != 2 or len(features) != n or len(content["links"]) != n:
        raise DataFormatError(
            f"{where}: {n} labels, {len(features)} feature rows and {len(content['links'])} adjacency lists "
            "(one per node expected; file truncated?)"
        )
    rows = np.repeat(np.arange(n, dtype=np.int64), [len(js) for js in content["links"]])
    cols = np.fromiter((j for js in content["links"] for j in js), dtype=np.int64, count=len(rows))
    if len(cols) and (cols.min() < 0 or cols.max() >= n):
        raise DataFormatError(f"{where}: adjacency lists name nodes outside 0..{n - 1}")
    masks = {
        "train_masks": np.atleast_2d(np.asarray(content["train_masks"], dtype=bool)),
        "val_masks": np.atleast_2d(np.asarray(content["val_masks"], dtype=bool)),
        "test_masks": np.atleast_2d(np.asarray(content["test_mask"], dtype=bool)),
    }
    arrays = {"node_attrs": features, "node_target": labels, **masks}
    return single_graph(name, n, np.stack([rows, cols], axis=1), False, arrays, str(path))


# ---- OGB node-property zip -----------------------------------------------------------------------------

_OGB_SPLIT = re.compile(r"(?:^|/)split/([^/]+)/(train|valid|test)\.csv\.gz$")


def read_ogb_nodeprop(zip_path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read an OGB node-property zip (``arxiv.zip`` layout) into a directed one-graph GraphSet.

    ``raw/node-feat.csv.gz`` becomes float32 ``node_attrs``, ``raw/node-label.csv.gz`` int64
    ``node_target`` (one column: a vector; several: kept as a matrix). The zip's one split folder
    (``split/time`` for arxiv) becomes ``train_masks``/``val_masks``/``test_masks`` of shape (1, N).
    Members are found by suffix, so the top folder name does not matter; ``node_year`` is not read.
    """
    zf = _open_zip(zip_path, name)
    try:

        def table(suffix: str, dtype: type) -> np.ndarray:
            return _ogb_table(zf, suffix, dtype, name, zip_path)

        num_nodes = table("raw/num-node-list.csv.gz", np.int64).ravel()
        num_edges = table("raw/num-edge-list.csv.gz", np.int64).ravel()
        edges = table("raw/edge.csv.gz", np.int64)
        features = table("raw/node-feat.csv.gz", np.float32)
        labels = table("raw/node-label.csv.gz", np.int64)
        split_ids = {part: table(suffix, np.int64).ravel() for part, suffix in _ogb_split_members(zf, name, zip_path)}
    finally:
        zf.close()
    where = f"{name} ({zip_path})"
    if len(num_nodes) != 1 or len(num_edges) != 1:
        raise DataFormatError(
            f"{where}: num-node-list/num-edge-list must describe one graph, "
            f"found {len(num_nodes)}/{len(num_edges)} rows"
        )
    n, e = int(num_nodes[0]), int(num_edges[0])
    if edges.shape[1] != 2 and len(edges):
        raise DataFormatError(f"{where}: edge.csv.gz must have two columns (src,dst), found {edges.shape[1]}")
    _expect_rows(where, "edge.csv.gz", len(edges), e, "edges (num-edge-list)")
    _expect_rows(where, "node-feat.csv.gz", len(features), n, "nodes (num-node-list)")
    _expect_rows(where, "node-label.csv.gz", len(labels), n, "nodes (num-node-list)")
    if len(edges) and (edges.min() < 0 or edges.max() >= n):
        raise DataFormatError(
            f"{where}: edge.csv.gz endpoints must lie in 0..{n - 1}, found {edges.min()}..{edges.max()}"
        )
    arrays: dict[str, np.ndarray] = {
        "node_attrs": features,
        "node_target": labels[:, 0] if labels.shape[1] == 1 else labels,
    }
    for part, key in (("train", "train_masks"), ("valid", "val_masks"), ("test", "test_masks")):
        arrays[key] = _mask_from_ids(split_ids[part], n, f"{where} split {part}.csv.gz")
    return single_graph(name, n, edges.reshape(-1, 2), True, arrays, str(zip_path))


# ---- OGB graph-property zip ------------------------------------------------------------------------------

OGB_ATOM_FEATURES = 9  # OGB's smiles2graph: atomic_num - 1, chirality, degree, charge, #H, radicals, ...


def read_ogb_graphprop(zip_path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read an OGB graph-property zip (``hiv.zip``/``bbbp.zip`` layout) into an undirected GraphSet.

    ``raw/edge.csv.gz`` lists every graph's bonds with node ids local to the graph, graph after graph, as
    ``raw/num-node-list.csv.gz`` / ``raw/num-edge-list.csv.gz`` count them. ``node_labels`` is the first of the
    nine atom features of ``raw/node-feat.csv.gz``, atomic_num - 1 as OGB stores it; ``edge_labels`` the first
    bond feature of ``raw/edge-feat.csv.gz`` (bond type: 0 single, 1 double, 2 triple, 3 aromatic);
    ``graph_labels`` the one label column of ``raw/graph-label.csv.gz`` (a single-task set). The zip's one split
    folder (``split/scaffold``) becomes ``graph_split``: part and position in the part's file. Not kept: the other
    eight atom and two bond features, and ``mapping/mol.csv.gz`` (SMILES). Members are found by suffix.
    """
    zf = _open_zip(zip_path, name)
    try:

        def table(suffix: str) -> np.ndarray:
            return _ogb_table(zf, suffix, np.int64, name, zip_path)

        num_nodes = table("raw/num-node-list.csv.gz").ravel()
        num_edges = table("raw/num-edge-list.csv.gz").ravel()
        edges = table("raw/edge.csv.gz")
        node_feat = table("raw/node-feat.csv.gz")
        edge_feat = table("raw/edge-feat.csv.gz")
        labels = table("raw/graph-label.csv.gz")
        split_ids = {part: table(suffix).ravel() for part, suffix in _ogb_split_members(zf, name, zip_path)}
    finally:
        zf.close()
    where = f"{name} ({zip_path})"
    _check_graphprop_tables(where, num_nodes, num_edges, edges, node_feat, edge_feat, labels)
    owner = np.repeat(np.arange(len(num_nodes)), num_edges)
    edges = edges.reshape(-1, 2)
    _check_local_ids(where, edges, owner, num_nodes)
    node_ptr = np.concatenate([[0], np.cumsum(num_nodes)])
    try:
        return from_edge_list(
            name,
            np.repeat(np.arange(len(num_nodes)), num_nodes),
            edges + node_ptr[owner][:, None],
            directed=False,
            node_labels=node_feat[:, 0],
            edge_labels=edge_feat[:, 0],
            graph_labels=labels[:, 0],
            graph_split=_graph_split(split_ids, len(num_nodes), where),
        )
    except ValueError as err:
        raise DataFormatError(f"{where}: {err}") from err


def _check_graphprop_tables(
    where: str,
    num_nodes: np.ndarray,
    num_edges: np.ndarray,
    edges: np.ndarray,
    node_feat: np.ndarray,
    edge_feat: np.ndarray,
    labels: np.ndarray,
) -> None:
    """Every table of a graph-property zip has the rows and columns the two count lists imply."""
    graphs = len(num_nodes)
    _expect_rows(where, "num-edge-list.csv.gz", len(num_edges), graphs, "graphs (num-node-list)")
    _expect_rows(where, "graph-label.csv.gz", len(labels), graphs, "graphs (num-node-list)")
    empty = np.flatnonzero(num_nodes < 1)
    if len(empty):
        raise DataFormatError(f"{where}: num-node-list.csv.gz gives graph {empty[0]} {num_nodes[empty[0]]} nodes")
    if np.any(num_edges < 0):
        raise DataFormatError(f"{where}: num-edge-list.csv.gz holds a negative edge count")
    _expect_rows(where, "node-feat.csv.gz", len(node_feat), int(num_nodes.sum()), "nodes (num-node-list)")
    _expect_rows(where, "edge.csv.gz", len(edges), int(num_edges.sum()), "edges (num-edge-list)")
    _expect_rows(where, "edge-feat.csv.gz", len(edge_feat), int(num_edges.sum()), "edges (num-edge-list)")
    if len(edges) and edges.shape[1] != 2:
        raise DataFormatError(f"{where}: edge.csv.gz must have two columns (src,dst), found {edges.shape[1]}")
    if node_feat.shape[1] != OGB_ATOM_FEATURES:
        raise DataFormatError(
            f"{where}: node-feat.csv.gz has {node_feat.shape[1]} columns, expected OGB's {OGB_ATOM_FEATURES} atom "
            "features (is this a molecule set?)"
        )
    if labels.shape[1] != 1:
        raise DataFormatError(
            f"{where}: graph-label.csv.gz has {labels.shape[1]} label columns; the reader takes single-task sets"
        )


def _check_local_ids(where: str, edges: np.ndarray, owner: np.ndarray, num_nodes: np.ndarray) -> None:
    """Each edge row names nodes 0..n_g-1 of its own graph ``g``."""
    bad = np.flatnonzero((edges < 0).any(axis=1) | (edges >= num_nodes[owner][:, None]).any(axis=1))
    if len(bad):
        row, graph = int(bad[0]), int(owner[bad[0]])
        raise DataFormatError(
            f"{where}: edge.csv.gz row {row} ({edges[row, 0]},{edges[row, 1]}) belongs to graph {graph}, whose "
            f"{num_nodes[graph]} nodes are 0..{num_nodes[graph] - 1} (file truncated or reordered?)"
        )


def _graph_split(split_ids: dict[str, np.ndarray], graphs: int, where: str) -> np.ndarray:
    """``graph_split`` (part, position in the part's file) from the split files' graph ids; -1 for no part."""
    split = np.full((graphs, 2), -1, dtype=np.int64)
    for code, part in enumerate(GRAPH_SPLIT_PARTS):
        ids = split_ids[part]
        if len(ids) and (ids.min() < 0 or ids.max() >= graphs):
            raise DataFormatError(
                f"{where}: split {part}.csv.gz names graphs {ids.min()}..{ids.max()}, the set has 0..{graphs - 1}"
            )
        if len(np.unique(ids)) != len(ids) or np.any(split[ids, 0] >= 0):
            raise DataFormatError(f"{where}: split {part}.csv.gz lists a graph twice or one of an earlier part")
        split[ids, 0] = code
        split[ids, 1] = np.arange(len(ids))
    return split


# ---- OGB zip helpers ---------------------------------------------------------------------------------------


def _ogb_table(zf: zipfile.ZipFile, suffix: str, dtype: type, name: str, path: str | os.PathLike[str]) -> np.ndarray:
    """The headerless gzipped CSV member ending in ``suffix`` as a 2-D array."""
    member = _zip_member(zf, suffix, name, path)
    return _read_gz_csv(zf, member, dtype, f"{name} ({path} member {member})")


def _open_zip(path: str | os.PathLike[str], name: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise DataFormatError(f"{name} ({path}): not a readable zip archive ({err})") from err


def _zip_member(zf: zipfile.ZipFile, suffix: str, name: str, path: str | os.PathLike[str]) -> str:
    """The one member whose path is ``suffix`` or ends with ``/suffix``."""
    found = [m for m in zf.namelist() if m == suffix or m.endswith("/" + suffix)]
    if len(found) != 1:
        what = "no member" if not found else f"{len(found)} members ({found[:4]})"
        raise DataFormatError(f"{name} ({path}): expected one member ending in {suffix}, found {what}")
    return found[0]


def _ogb_split_members(zf: zipfile.ZipFile, name: str, path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """(part, suffix) for train/valid/test of the zip's single split folder."""
    found: dict[str, set[str]] = {}
    for member in zf.namelist():
        match = _OGB_SPLIT.search(member)
        if match:
            found.setdefault(match.group(1), set()).add(match.group(2))
    if len(found) != 1:
        raise DataFormatError(f"{name} ({path}): expected one split/<kind>/ folder, found {sorted(found) or 'none'}")
    ((kind, parts),) = found.items()
    missing = sorted({"train", "valid", "test"} - parts)
    if missing:
        raise DataFormatError(f"{name} ({path}): split/{kind}/ lacks {[f'{p}.csv.gz' for p in missing]}")
    return [(part, f"split/{kind}/{part}.csv.gz") for part in ("train", "valid", "test")]


def _read_gz_csv(zf: zipfile.ZipFile, member: str, dtype: type, where: str) -> np.ndarray:
    """A headerless gzipped CSV member as a 2-D array (zero rows for an empty file)."""
    try:
        with zf.open(member) as handle:
            frame = pd.read_csv(handle, header=None, compression="gzip", dtype=dtype, engine="c")
    except pd.errors.EmptyDataError:
        return np.zeros((0, 1), dtype=dtype)
    except (ValueError, OSError, EOFError, zlib.error, zipfile.BadZipFile) as err:
        raise DataFormatError(f"{where}: not a gzipped table of numbers ({err})") from err
    return frame.to_numpy()


def _expect_rows(where: str, file: str, found: int, expected: int, what: str) -> None:
    if found != expected:
        raise DataFormatError(f"{where}: {file} has {found} rows for {expected} {what} (file truncated?)")


def _mask_from_ids(ids: np.ndarray, n: int, where: str) -> np.ndarray:
    """A (1, n) boolean mask from node ids, which must lie in 0..n-1."""
    if len(ids) and (ids.min() < 0 or ids.max() >= n):
        raise DataFormatError(f"{where}: node ids must lie in 0..{n - 1}, found {ids.min()}..{ids.max()}")
    mask = np.zeros((1, n), dtype=bool)
    mask[0, ids] = True
    return mask


# ---- PyG benchmarking-gnns (PATTERN, CLUSTER) -------------------------------------------------------------

SPLIT_NAMES = ("train", "val", "test")


def read_benchmarking_gnns(path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read PyG's benchmarking-gnns release (``PATTERN_v2.zip``/``CLUSTER_v2.zip`` or the extracted ``.pt``).

    All graphs go into one GraphSet in the published order train, val, test. ``graph_labels`` holds
    each graph's split code (0 = train, 1 = val, 2 = test), not a class. ``node_labels`` is the
    categorical node feature (the value of a 1-D ``x``, the argmax of a one-hot ``x``), ``node_target``
    the per-node class ``y``. Edges are undirected; ``edge_attr`` is not read. The file is loaded with
    ``torch.load(weights_only=True)`` (a zip member is read into memory; pass the ``.pt`` to avoid that).
    """
    splits = _load_benchmarking_splits(path, name)
    where = f"{name} ({path})"
    sizes, local_edges, labels, targets, codes = [], [], [], [], []
    for code, (split, graphs) in enumerate(zip(SPLIT_NAMES, splits)):
        for i, graph in enumerate(graphs):
            here = f"{where}: {split} graph {i}"
            node_labels, target, edge_index = _benchmarking_graph(graph, here)
            sizes.append(len(node_labels))
            labels.append(node_labels)
            targets.append(target)
            local_edges.append(edge_index)
            codes.append(code)
    return _graph_collection(
        name,
        np.array(sizes, dtype=np.int64),
        local_edges,
        {
            "node_labels": _concat(labels),
            "node_target": _concat(targets),
            "graph_labels": np.array(codes, dtype=np.int64),
        },
        where,
    )


def _load_benchmarking_splits(path: str | os.PathLike[str], name: str) -> list[list[Any]]:
    """The three split lists of the torch file, inside a zip or given directly."""
    import torch

    source = Path(path)
    if source.suffix == ".pt":
        where, payload = f"{name} ({path})", source
    else:
        zf = _open_zip(path, name)
        try:
            members = zf.namelist()
            pts = [m for m in members if m.endswith(".pt")]
            if not pts:
                raise DataFormatError(f"{name} ({path}): no .pt member in the zip (members: {members[:8]})")
            preferred = [m for m in pts if m.rsplit("/", 1)[-1].startswith(name)]
            member = (preferred or pts)[0]
            where = f"{name} ({path} member {member})"
            try:
                payload = io.BytesIO(zf.read(member))
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:
                raise DataFormatError(f"{where}: member is corrupt ({err})") from err
        finally:
            zf.close()
    try:
        splits = torch.load(payload, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError, ValueError, AttributeError, TypeError) as err:
        raise DataFormatError(
            f"{where}: not a torch file of tensors, lists and dicts ({type(err).__name__}: "
            f"{str(err).splitlines()[0] if str(err) else ''})"
        ) from err
    if (
        not isinstance(splits, (list, tuple))
        or len(splits) != 3
        or not all(isinstance(s, (list, tuple)) for s in splits)
    ):
        found = type(splits).__name__ + (f" of length {len(splits)}" if hasattr(splits, "__len__") else "")
        raise DataFormatError(f"{where}: expected a list of 3 lists (train, val, test), found {found}")
    return [list(s) for s in splits]


def _benchmarking_graph(graph: Any, where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(node labels, node targets, local edges (E, 2)) of one graph dict, checked."""
    if not isinstance(graph, dict):
        raise DataFormatError(f"{where}: expected a dict of tensors, found {type(graph).__name__}")
    missing = [k for k in ("x", "edge_index", "y") if k not in graph]
    if missing:
        raise DataFormatError(f"{where}: lacks keys {missing} (has {sorted(graph)})")
    node_labels = _categorical(_numpy(graph["x"]), where)
    n = len(node_labels)
    target = _numpy(graph["y"])
    if target.ndim != 1 or len(target) != n:
        raise DataFormatError(
            f"{where}: y has shape {tuple(target.shape)} for {n} nodes (expected one class per node; truncated?)"
        )
    edge_index = _numpy(graph["edge_index"])
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise DataFormatError(f"{where}: edge_index must have shape (2, E), found {tuple(edge_index.shape)}")
    if edge_index.size and (edge_index.min() < 0 or edge_index.max() >= n):
        raise DataFormatError(
            f"{where}: edge_index endpoints must lie in 0..{n - 1}, found {edge_index.min()}..{edge_index.max()}"
        )
    return node_labels, target.astype(np.int64), edge_index.T.astype(np.int64)


def _numpy(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def _categorical(x: np.ndarray, where: str) -> np.ndarray:
    """Integer class codes from a 1-D (or one-column) code vector or a 2-D one-hot matrix."""
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim == 1:
        codes = x.astype(np.int64)
        if not np.array_equal(codes, x):
            raise DataFormatError(f"{where}: 1-D x must hold integer category codes")
        return codes
    if x.ndim != 2 or (len(x) and not (np.all((x == 0) | (x == 1)) and np.all(x.sum(axis=1) == 1))):
        raise DataFormatError(
            f"{where}: x must be a vector of category codes or a one-hot matrix, "
            f"found shape {tuple(x.shape)} that is not one-hot"
        )
    return x.argmax(axis=1).astype(np.int64)


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _graph_collection(
    name: str, sizes: np.ndarray, local_edges: list[np.ndarray], arrays: dict[str, np.ndarray], where: str
) -> GraphSet:
    """An undirected GraphSet from per-graph sizes and local edges (empty graphs are kept)."""
    node_ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=node_ptr[1:])
    counts = np.array([len(e) for e in local_edges], dtype=np.int64)
    offsets = np.repeat(node_ptr[:-1], counts)
    edges = (np.concatenate(local_edges) if local_edges else np.zeros((0, 2), dtype=np.int64)) + offsets[:, None]
    try:
        # sorted by (u, v) with u < v: edges come out grouped by graph in graph order
        edges, _ = canonical_edges(edges, directed=False, num_nodes=int(node_ptr[-1]))
        edge_ptr = np.searchsorted(edges[:, 0], node_ptr, side="left")
        return GraphSet(name=name, node_ptr=node_ptr, edge_ptr=edge_ptr, edges=edges, directed=False, arrays=arrays)
    except ValueError as err:
        raise DataFormatError(f"{where}: {err}") from err

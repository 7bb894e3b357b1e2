"""Readers from published file formats into GraphSet: TU text, heterophilous npz, Planetoid ``ind.*``."""

from __future__ import annotations

import codecs
import importlib
import io
import os
import pickle
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from graphaudit.data.graphset import GraphSet, from_edge_list


class DataFormatError(ValueError):
    """A file does not have the layout its format promises."""


# ---- TU collection -------------------------------------------------------------------------------


class _TUFiles:
    """Access ``NAME_<part>.txt`` inside a zip (``NAME/`` or ``NAME//`` member paths) or a folder."""

    def __init__(self, source: str | os.PathLike[str], name: str) -> None:
        self.source, self.name = Path(source), name
        if self.source.is_dir():
            self._members = {p.name: p for p in self.source.rglob(f"{name}_*.txt")}
            self._zip = None
        else:
            try:
                self._zip = zipfile.ZipFile(self.source)
            except (zipfile.BadZipFile, OSError) as err:
                raise DataFormatError(f"{self.source} is not a readable zip archive ({err})") from err
            self._members = {m.rsplit("/", 1)[-1]: m for m in self._zip.namelist() if m.endswith(".txt")}

    def has(self, part: str) -> bool:
        return f"{self.name}_{part}.txt" in self._members

    def read(self, part: str) -> bytes:
        key = f"{self.name}_{part}.txt"
        if key not in self._members:
            raise DataFormatError(f"{self.source}: no {key} (members: {sorted(self._members)[:8]})")
        if self._zip is None:
            return Path(self._members[key]).read_bytes()
        try:
            return self._zip.read(self._members[key])
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:  # CRC errors are BadZipFile
            raise DataFormatError(f"{self.source}: member {key} is corrupt ({type(err).__name__}: {err})") from err

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def _parse_table(data: bytes, dtype: type, what: str) -> np.ndarray:
    """Parse comma-separated numbers (one row per line) with pandas' C parser."""
    if not data.strip():
        return np.zeros((0, 1), dtype=dtype)
    try:
        frame = pd.read_csv(io.BytesIO(data), header=None, sep=",", skipinitialspace=True, dtype=dtype, engine="c")
    except (ValueError, pd.errors.ParserError) as err:
        raise DataFormatError(f"{what}: not a table of numbers ({err})") from err
    return frame.to_numpy()


def read_tu(source: str | os.PathLike[str], name: str) -> GraphSet:
    """Read a TU-format data set from its zip or folder into a GraphSet.

    Node labels, edge labels and graph labels keep their published integer codes; node attributes
    (when published) are float arrays. Edges become undirected pairs (the files list both directions).
    """
    files = _TUFiles(source, name)
    try:
        where = f"{name} ({source})"
        indicator = _parse_table(files.read("graph_indicator"), np.int64, f"{where} graph_indicator")[:, 0] - 1
        n = len(indicator)
        adjacency = _parse_table(files.read("A"), np.int64, f"{where} A") - 1
        if adjacency.shape[1] != 2:
            raise DataFormatError(f"{where}: {name}_A.txt must have two columns, found {adjacency.shape[1]}")
        graph_labels = _parse_table(files.read("graph_labels"), np.int64, f"{where} graph_labels")[:, 0]
        arrays: dict[str, np.ndarray] = {"graph_labels": graph_labels}
        if files.has("node_labels"):
            arrays["node_labels"] = _parse_table(files.read("node_labels"), np.int64, f"{where} node_labels")[:, 0]
        if files.has("node_attributes"):
            arrays["node_attrs"] = _parse_table(
                files.read("node_attributes"), np.float64, f"{where} node_attributes"
            ).astype(np.float32)
        if files.has("edge_labels"):
            labels = _parse_table(files.read("edge_labels"), np.int64, f"{where} edge_labels")[:, 0]
            if len(labels) != len(adjacency):
                raise DataFormatError(f"{where}: {len(labels)} edge labels for {len(adjacency)} adjacency rows")
            arrays["edge_labels"] = labels
    finally:
        files.close()
    for key in ("node_labels", "node_attrs"):
        if key in arrays and len(arrays[key]) != n:
            raise DataFormatError(f"{where}: {key} has {len(arrays[key])} rows for {n} nodes (file truncated?)")
    graphs = int(indicator.max()) + 1 if n else 0
    if len(graph_labels) != graphs:
        raise DataFormatError(f"{where}: {len(graph_labels)} graph labels for {graphs} graphs (file truncated?)")
    if len(adjacency) and (adjacency.min() < 0 or adjacency.max() >= n):
        raise DataFormatError(f"{where}: edge endpoints outside 1..{n} (file truncated?)")
    try:
        return from_edge_list(name, indicator, adjacency, directed=False, **arrays)
    except ValueError as err:
        raise DataFormatError(f"{where}: {err}") from err


# ---- heterophilous-graphs npz ----------------------------------------------------------------------


def read_heterophilous(path: str | os.PathLike[str], name: str, directed: bool = False) -> GraphSet:
    """Read a ``yandex-research/heterophilous-graphs`` npz (no pickle) into a one-graph GraphSet."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            needed = ("node_features", "node_labels", "edges")
            missing = [k for k in needed if k not in archive.files]
            if missing:
                raise DataFormatError(f"{name} ({path}): npz lacks arrays {missing}")
            content = {k: archive[k] for k in archive.files}
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:
        raise DataFormatError(f"{name} ({path}): not a readable npz archive ({type(err).__name__}: {err})") from err
    n = len(content["node_labels"])
    arrays = {"node_attrs": content["node_features"].astype(np.float32), "node_target": content["node_labels"]}
    for split in ("train_masks", "val_masks", "test_masks"):
        if split in content:
            arrays[split] = np.atleast_2d(content[split]).astype(bool)
    return single_graph(name, n, content["edges"], directed, arrays, str(path))


def single_graph(
    name: str, n: int, edges: np.ndarray, directed: bool, arrays: dict[str, np.ndarray], where: str
) -> GraphSet:
    try:
        return from_edge_list(name, np.zeros(n, dtype=np.int64), edges, directed=directed, **arrays)
    except ValueError as err:
        raise DataFormatError(f"{name} ({where}): {err}") from err


# ---- Planetoid ind.* -------------------------------------------------------------------------------

PLANETOID_PARTS = ("x", "y", "tx", "ty", "allx", "ally", "graph", "test.index")

_PICKLE_ALLOWED: dict[tuple[str, str], Callable[[], object]] = {
    ("numpy", "ndarray"): lambda: np.ndarray,
    ("numpy", "dtype"): lambda: np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): lambda: importlib.import_module("numpy._core.multiarray")._reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): lambda: importlib.import_module("numpy._core.multiarray")._reconstruct,
    ("_codecs", "encode"): lambda: codecs.encode,  # how Python 3 writes bytes into protocol-2 pickles
    ("scipy.sparse.csr", "csr_matrix"): lambda: __import__("scipy.sparse", fromlist=["csr_matrix"]).csr_matrix,
    ("scipy.sparse._csr", "csr_matrix"): lambda: __import__("scipy.sparse", fromlist=["csr_matrix"]).csr_matrix,
    ("collections", "defaultdict"): lambda: __import__("collections").defaultdict,
    ("__builtin__", "list"): lambda: list,
    ("builtins", "list"): lambda: list,
}


class _ArraysOnlyUnpickler(pickle.Unpickler):
    """Unpickler that builds only numpy arrays, scipy CSR matrices, lists and defaultdicts."""

    def find_class(self, module: str, name: str) -> object:
        factory = _PICKLE_ALLOWED.get((module, name))
        if factory is None:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}: Planetoid files hold only arrays")
        return factory()


def load_planetoid_pickle(data: bytes, what: str) -> object:
    """Unpickle one Planetoid part with the arrays-only unpickler (``latin1`` for Python 2 pickles)."""
    try:
        return _ArraysOnlyUnpickler(io.BytesIO(data), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as err:
        raise DataFormatError(f"{what}: cannot be read as a Planetoid pickle ({err})") from err


def read_planetoid(folder: str | os.PathLike[str], name: str) -> GraphSet:
    """Read Planetoid's ``ind.<name>.*`` files the way PyG's ``Planetoid`` does (public split).

    Test nodes are put back in graph order. CiteSeer's isolated test ids (inside the test id range but absent
    from ``test.index``) get zero features as in PyG, but label -1 (no label) where PyG gives them class 0.
    """
    folder = Path(folder)
    parts = {}
    for part in PLANETOID_PARTS:
        path = folder / f"ind.{name}.{part}"
        if not path.exists():
            raise DataFormatError(f"{name}: missing file {path}")
        if part == "test.index":
            parts[part] = np.array([int(v) for v in path.read_text().split()], dtype=np.int64)
        else:
            parts[part] = load_planetoid_pickle(path.read_bytes(), f"{name} {path}")
    return _assemble_planetoid(name, parts)


def _dense(matrix: object) -> np.ndarray:
    return np.asarray(matrix.todense() if hasattr(matrix, "todense") else matrix)


def _assemble_planetoid(name: str, parts: dict[str, object]) -> GraphSet:
    _x, tx, allx = (_dense(parts[k]).astype(np.float32) for k in ("x", "tx", "allx"))
    y, ty, ally = (_dense(parts[k]) for k in ("y", "ty", "ally"))
    test_index = parts["test.index"]
    sorted_test = np.sort(test_index)
    if name == "citeseer":  # isolated test nodes have no rows; pad as PyG does
        span = int(sorted_test[-1] - sorted_test[0] + 1)
        tx_ext = np.zeros((span, tx.shape[1]), dtype=np.float32)
        tx_ext[sorted_test - sorted_test[0]] = tx
        ty_ext = np.zeros((span, ty.shape[1]), dtype=ty.dtype)
        ty_ext[sorted_test - sorted_test[0]] = ty
        tx, ty = tx_ext, ty_ext
    features = np.concatenate([allx, tx])
    labels = np.concatenate([ally, ty]).argmax(axis=1).astype(np.int64)
    features[test_index] = features[sorted_test]
    labels[test_index] = labels[sorted_test]
    n = len(labels)
    unlabelled = np.ones(n, dtype=bool)
    unlabelled[: len(ally)] = False
    unlabelled[test_index] = False
    labels[unlabelled] = -1
    graph = parts["graph"]
    rows = np.fromiter((u for u, vs in graph.items() for _ in vs), dtype=np.int64)
    cols = np.fromiter((v for vs in graph.values() for v in vs), dtype=np.int64)
    masks = np.zeros((3, 1, n), dtype=bool)
    masks[0, 0, : len(y)] = True
    masks[1, 0, len(y) : len(y) + 500] = True
    masks[2, 0, test_index] = True
    arrays = {
        "node_attrs": features,
        "node_target": labels,
        "train_masks": masks[0],
        "val_masks": masks[1],
        "test_masks": masks[2],
    }
    return single_graph(name, n, np.stack([rows, cols], axis=1), False, arrays, "Planetoid files")

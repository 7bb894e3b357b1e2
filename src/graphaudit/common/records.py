"""Evaluation records: one JSON line per evaluation point, per-item arrays keyed by item id.

A record is a flat-ish dict (step, seed, split metrics, config hash, versions). Per-item scores live in
a sibling ``.npz`` whose arrays are indexed by an explicit ``item_id`` array, never by loader order.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from graphaudit.common.atomic import write_npz, write_text
from graphaudit.common.integrity import read_npz


def environment_versions() -> dict[str, str]:
    """Versions of Python and the numeric libraries, stored with every record."""
    import importlib.metadata as md

    versions = {"python": platform.python_version()}
    for package in ("numpy", "scipy", "torch", "torch_geometric", "scikit_learn", "faiss_cpu", "graphaudit"):
        try:
            versions[package] = md.version(package.replace("_", "-"))
        except md.PackageNotFoundError:
            continue
    return versions


def write_records(path: str | os.PathLike[str], records: Iterable[Mapping[str, Any]]) -> None:
    """Write records as JSON lines (sorted keys) atomically."""
    lines = [json.dumps(dict(r), sort_keys=True, default=_plain) for r in records]
    write_text(path, "".join(line + "\n" for line in lines))


def append_record(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Append one record and fsync, so a resumed run keeps every point already evaluated.

    A torn last line (a run killed mid-write) is cut off first, so the new record starts a clean line.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    drop_torn_tail(path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(dict(record), sort_keys=True, default=_plain) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def drop_torn_tail(path: str | os.PathLike[str]) -> None:
    """Truncate ``path`` after its last newline when it ends inside a line."""
    if not os.path.exists(path):
        return
    with open(path, "rb+") as handle:
        data = handle.read()
        if data and not data.endswith(b"\n"):
            handle.truncate(data.rfind(b"\n") + 1)


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read JSON-line records of a file that may still be written; a torn last line (a run killed mid-write) is
    dropped, others must parse."""
    return _parse_records(Path(path).read_bytes(), path, torn_tail_allowed=True)


def read_finished_records(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], str]:
    """The records of a finished file and the sha256 of its bytes (which a summary of the run keeps, to check the
    records by). No kill can have torn a finished file, so a torn last line is an error like any other."""
    data = Path(path).read_bytes()
    return _parse_records(data, path, torn_tail_allowed=False), hashlib.sha256(data).hexdigest()


def _parse_records(data: bytes, path: str | os.PathLike[str], torn_tail_allowed: bool) -> list[dict[str, Any]]:
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err}); the records file is corrupt") from err
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            if torn_tail_allowed and number == len(lines) and not data.endswith(b"\n"):
                break
            raise ValueError(f"{path}: line {number} is not valid JSON ({err}); the records file is corrupt") from err
    return records


def write_item_scores(path: str | os.PathLike[str], item_id: np.ndarray, **scores: np.ndarray) -> None:
    """Write per-item arrays keyed by ``item_id`` (unique ids, one row per item)."""
    ids = np.asarray(item_id)
    if len(np.unique(ids)) != len(ids):
        raise ValueError("item_id must be unique: per-item scores are keyed by item id")
    for name, values in scores.items():
        if len(values) != len(ids):
            raise ValueError(f"scores {name!r} have {len(values)} rows but there are {len(ids)} item ids")
    write_npz(path, item_id=ids, **scores)


def read_item_scores(path: str | os.PathLike[str], item_id: np.ndarray) -> dict[str, np.ndarray]:
    """Read per-item arrays (CRC-checked) and reorder them to the requested ``item_id`` order."""
    archive = read_npz(path)
    position = {key: i for i, key in enumerate(archive.pop("item_id").tolist())}
    missing = [i for i in np.asarray(item_id).tolist() if i not in position]
    if missing:
        raise KeyError(f"{path}: no scores for item ids {missing[:5]} (of {len(missing)} missing)")
    order = np.array([position[i] for i in np.asarray(item_id).tolist()], dtype=np.int64)
    return {name: values[order] for name, values in archive.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} in a record")

"""Atomic file writes: write to a temporary sibling, fsync, then rename over the target.

Temporary files and folders are created with the permissions a plain ``open()`` or ``mkdir()`` would give
(0666 / 0777 less the umask), not ``tempfile``'s private 0600 / 0700, which the rename would carry over to the
output: collaborators sharing a results folder on a cluster can read what the workflow writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _fresh_name(target.parent, f".{target.name}.", ".tmp")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask applies, as for open()
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file for writing that replaces ``path`` only when the block succeeds."""
    if "w" not in mode:
        raise ValueError(f"atomic_open writes whole files; mode must contain 'w', got {mode!r}")
    with atomic_path(path) as tmp:
        with open(tmp, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


def fresh_dir(parent: str | os.PathLike[str], prefix: str, suffix: str = "") -> Path:
    """A new empty folder in ``parent`` (created with its parents), named ``prefix<random>suffix`` and made the
    way ``mkdir`` makes one (0777 less the umask; ``tempfile.mkdtemp`` gives 0700)."""
    Path(parent).mkdir(parents=True, exist_ok=True)
    folder = _fresh_name(Path(parent), prefix, suffix)
    folder.mkdir(mode=0o777)  # fails if the name exists: never shares a folder with another writer
    return folder


def discard_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries that interrupted atomic writes left under ``folder`` (``.<name>.<random>.tmp``, the
    process killed before its rename) and return them. Only for a folder that one job alone writes."""
    left = sorted(Path(folder).rglob(".*.tmp")) if Path(folder).is_dir() else []
    for path in left:
        path.unlink(missing_ok=True)
    return left


def _fresh_name(parent: Path, prefix: str, suffix: str) -> Path:
    return parent / f"{prefix}{secrets.token_hex(8)}{suffix}"


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8, Unix newlines)."""
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted JSON atomically, so reruns give identical bytes."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def write_npz(path: str | os.PathLike[str], **arrays: np.ndarray) -> None:
    """Write arrays to an ``.npz`` atomically and byte-reproducibly (fixed zip timestamps, no pickle).

    ``numpy.savez`` stamps each member with the current time, so two identical runs would differ;
    this writer fixes the stamp so a rerun gives the same bytes.
    """
    with atomic_open(path, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            if array.dtype == object:
                raise TypeError(f"array {name!r} has dtype object; .npz files here must load without pickle")
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(array, order="C"), allow_pickle=False)


def write_parquet(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``frame`` (without its index) as parquet atomically, every page with its CRC-32, which
    :func:`graphaudit.common.integrity.read_parquet` checks: without it most flipped bits read back silently."""
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False, engine="pyarrow", write_page_checksum=True)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")

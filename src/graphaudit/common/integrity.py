"""Integrity of stored intermediates: a truncated or bit-rotten file is an error naming it and what to do.

Every binary intermediate the suite writes carries CRC-32s: ``.npz`` files (:func:`graphaudit.common.atomic.write_npz`:
GraphSets, shards, score files) and torch checkpoints are zip archives with one per member, parquet frames
(:func:`graphaudit.common.atomic.write_parquet`) have one per page. numpy checks a member's CRC only when a read
happens to reach its end, torch and pyarrow (by default) never do, so the readers here check every member or
page they read: a truncated file, a flipped bit or a broken deflate stream raises :class:`CorruptFileError`,
never a bare ``BadZipFile``, ``zlib.error``, ``ArrowInvalid`` or ``RuntimeError`` that names no file.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["REBUILD", "CorruptFileError", "check_zip", "read_npz", "read_parquet", "rebuild_remedy"]

REBUILD = "rebuild"  # the default remedy: :func:`rebuild_remedy` of the damaged file


def rebuild_remedy(path: str | os.PathLike[str]) -> str:
    """What rebuilds a damaged output of the workflow, followed literally. Deleting the file alone is not enough:
    Snakemake does not remake a missing intermediate whose dependents are up to date ("Nothing to be done")."""
    return (
        f"rebuild it from its inputs with `snakemake {path} --force --cores 1` (add your run's --configfile), then "
        "run the workflow again: what depends on it reruns"
    )


_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, ValueError)  # ValueError: a garbled .npy header


class CorruptFileError(RuntimeError):
    """A stored file is truncated, corrupt or does not match what its writer recorded.

    ``path`` is the file, ``problem`` what is wrong with it, ``remedy`` what to do; the message holds all three.
    """

    def __init__(self, path: str | os.PathLike[str], problem: str, remedy: str = REBUILD) -> None:
        self.path, self.problem = Path(path), problem
        self.remedy = rebuild_remedy(path) if remedy == REBUILD else remedy
        super().__init__(f"{self.path}: {problem}; {self.remedy}")

    def with_remedy(self, remedy: str) -> CorruptFileError:
        """The same error with the remedy a caller that knows the workflow can name; raise it ``from None``, so
        that the traceback shows one instruction, the right one, not also the one it replaces."""
        return CorruptFileError(self.path, self.problem, remedy)


def check_zip(path: str | os.PathLike[str], remedy: str = REBUILD) -> None:
    """Read every member of the zip archive ``path`` and check its CRC-32 (a torch checkpoint is one)."""
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
    except _UNREADABLE as err:
        raise CorruptFileError(path, f"truncated or corrupt ({type(err).__name__}: {err})", remedy) from err
    if bad is not None:
        raise CorruptFileError(path, f"member {bad} fails its CRC-32 check (the file is corrupt)", remedy)


def read_npz(path: str | os.PathLike[str], names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """The arrays ``names`` (default: all) of an ``.npz`` file, each member's CRC-32 checked, without pickle.

    A missing file raises ``FileNotFoundError`` and a missing array ``KeyError``, as ``numpy.load`` does; a
    truncated or corrupt file raises :class:`CorruptFileError`.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = {member.removesuffix(".npy"): member for member in archive.namelist()}
            wanted = list(members) if names is None else list(names)
            missing = [name for name in wanted if name not in members]
            if missing:
                raise KeyError(f"{path}: no arrays {missing} (it has {sorted(members)})")
            return {name: _read_member(archive, members[name]) for name in wanted}
    except _UNREADABLE as err:
        raise CorruptFileError(path, f"truncated or corrupt ({type(err).__name__}: {err})") from err


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A parquet frame with every page's CRC-32 checked (pages written without one cannot be checked); a missing
    file raises ``FileNotFoundError``, a truncated or corrupt one :class:`CorruptFileError`."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path}: no such parquet file")
    try:
        return pd.read_parquet(path, engine="pyarrow", page_checksum_verification=True)
    except Exception as err:  # pyarrow raises OSError, ArrowInvalid, and pandas KeyError or JSON errors
        raise CorruptFileError(path, f"not a readable parquet file ({type(err).__name__}: {err})") from err


def _read_member(archive: zipfile.ZipFile, member: str) -> np.ndarray:
    with archive.open(member) as handle:
        array = np.lib.format.read_array(handle, allow_pickle=False)
        handle.read()  # to the member's end, where zipfile compares the CRC-32 (BadZipFile on a mismatch)
    return array

"""Tidy intermediate tables of the pattern study (per-graph counts, pattern ids, diagnostics) as CSV files.

An upstream rule writes one with :func:`write_frame` (atomically, no index, Unix newlines) and the table
functions read it back with :func:`read_frame`, which parses every float to the exact double that was
written, so a table built from an intermediate file is the one built in memory.
"""

from __future__ import annotations

import os

import pandas as pd

from graphaudit.common.atomic import write_text

__all__ = ["read_frame", "write_frame"]


def write_frame(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``frame`` as CSV to ``path`` atomically."""
    write_text(path, frame.to_csv(index=False, lineterminator="\n"))


def read_frame(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A CSV written by :func:`write_frame`: floats exact (round trip), only empty cells missing (so a kind
    named ``none`` stays a string)."""
    return pd.read_csv(path, float_precision="round_trip", keep_default_na=False, na_values=[""])

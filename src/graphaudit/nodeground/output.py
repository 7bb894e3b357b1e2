"""Writing the study's tables and intermediate frames reproducibly."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_parquet
from graphaudit.common.integrity import read_parquet
from graphaudit.report.tables import write_table

__all__ = ["SIGNIFICANT", "read_frame", "rounded", "write_frame", "write_result"]

SIGNIFICANT = 10
"""Significant digits kept in written tables: far beyond what any claim reads, and coarse enough that a
last-bit difference of a linear-algebra library does not change the bytes of a golden table."""


def rounded(frame: pd.DataFrame, digits: int = SIGNIFICANT) -> pd.DataFrame:
    """``frame`` with every float column rounded to ``digits`` significant digits."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_float_dtype(out[column]):
            values = out[column].to_numpy(dtype=np.float64)
            finite = np.isfinite(values) & (values != 0)
            scale = np.zeros_like(values)
            scale[finite] = digits - 1 - np.floor(np.log10(np.abs(values[finite])))
            out[column] = [float(np.round(v, int(s))) if f else v for v, s, f in zip(values, scale, finite)]
    return out


def write_result(frame: pd.DataFrame, path: str | os.PathLike[str], title: str) -> None:
    """A study table: CSV plus Markdown twin, floats rounded to :data:`SIGNIFICANT` digits."""
    write_table(rounded(frame).reset_index(drop=True), path, title=title)


def write_frame(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """An intermediate frame as parquet, written atomically with page checksums."""
    write_parquet(frame.reset_index(drop=True), path)


def read_frame(path: str | os.PathLike[str]) -> pd.DataFrame:
    """An intermediate frame written by :func:`write_frame`, its checksums checked."""
    return read_parquet(path)

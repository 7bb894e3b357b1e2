"""Tables: a CSV with named columns and a rendered Markdown twin, both written atomically."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from graphaudit.common.atomic import write_text


def write_table(frame: pd.DataFrame, csv_path: str | os.PathLike[str], title: str | None = None) -> None:
    """Write ``frame`` to ``csv_path`` and its Markdown rendering to the same path with ``.md``."""
    write_text(csv_path, frame.to_csv(index=False, lineterminator="\n"))
    markdown = (f"# {title}\n\n" if title else "") + to_markdown(frame) + "\n"
    write_text(Path(csv_path).with_suffix(".md"), markdown)


def read_tables(paths: list[str]) -> pd.DataFrame:
    """The rows of several tables written by :func:`write_table`, one after another; a table without columns
    (an empty frame writes a bare newline) adds nothing."""
    frames = [pd.read_csv(p) for p in paths if Path(p).stat().st_size > 1]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def to_markdown(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; numbers right-aligned, floats with up to 4 significant decimals."""
    header = "| " + " | ".join(format_cell(str(c)) for c in frame.columns) + " |"
    align = (
        "|"
        + "|".join(
            "---:" if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) else "---"
            for c in frame.columns
        )
        + "|"
    )
    rows = ["| " + " | ".join(format_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, align, *rows])


def format_value(value: Any) -> str:
    """Plain text of a value: empty for missing, whole floats as integers, other floats with up to 4 decimals
    (or 4 significant digits)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        if abs(value) >= 1e4 or (value != 0 and abs(value) < 1e-3):
            return f"{value:.4g}"
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value)


def format_cell(value: Any) -> str:
    """A Markdown table cell: :func:`format_value` with pipes escaped and line breaks as spaces."""
    text = format_value(value).replace("|", "\\|")
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")

"""Figures: every figure is a PNG with an SVG twin, written atomically and byte-identically on rerun."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from graphaudit.common.atomic import atomic_path


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend, with SVG ids from a fixed salt (not uuid4)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "graphaudit"
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, png: str | os.PathLike[str]) -> None:
    """Write ``figure`` to ``png`` and its ``.svg`` twin without timestamps or software stamps; close it."""
    for path, fmt in ((Path(png), "png"), (Path(png).with_suffix(".svg"), "svg")):
        with atomic_path(path) as tmp:
            figure.savefig(tmp, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None})
    pyplot().close(figure)

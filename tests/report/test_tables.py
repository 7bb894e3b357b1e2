"""Markdown rendering of tables and write_table's CSV + .md twin."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphaudit.report.tables import format_cell, to_markdown, write_table


def sample_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["a|b", None, "x\ny"],
            "acc": [0.5, np.nan, 3.14159],
            "n": [1, 20, 300],
            "ok": [True, False, True],
            "big": [12345.6, 0.0001234, 0.0],
        }
    )


EXPECTED_MARKDOWN = "\n".join(
    [
        "| name | acc | n | ok | big |",
        "|---|---:|---:|---|---:|",
        "| a\\|b | 0.5 | 1 | True | 1.235e+04 |",
        "|  |  | 20 | False | 0.0001234 |",
        "| x y | 3.1416 | 300 | True | 0 |",
    ]
)


def test_to_markdown_exact_text() -> None:
    assert to_markdown(sample_frame()) == EXPECTED_MARKDOWN


def test_to_markdown_header_only_for_empty_frame() -> None:
    frame = pd.DataFrame({"a": pd.Series([], dtype=float), "b": pd.Series([], dtype=object)})
    assert to_markdown(frame) == "| a | b |\n|---:|---|"


@pytest.mark.parametrize(
    "value, text",
    [
        (None, ""),
        (float("nan"), ""),
        (np.float64("nan"), ""),
        (1.0, "1"),
        (0.0, "0"),
        (0.25, "0.25"),
        (2.0 / 3.0, "0.6667"),
        (-2.5, "-2.5"),
        (9999.5, "9999.5"),
        (10000.0, "10000"),  # whole floats print as integers (counts in mixed columns)
        (123456.5, "1.235e+05"),
        (0.001, "0.001"),
        (0.00049999, "0.0005"),
        (0.0009, "0.0009"),
        (0.00001234567, "1.235e-05"),
        (np.float64(0.125), "0.125"),
        (7, "7"),
        (np.int64(42), "42"),
        (pd.NA, ""),  # a missing cell of a nullable integer column (seeds of the rows that have none)
        (True, "True"),
        ("PASS", "PASS"),
        ("a|b|c", "a\\|b\\|c"),
        ("two\nlines", "two lines"),
    ],
)
def test_format_cell(value: object, text: str) -> None:
    assert format_cell(value) == text


@given(st.text(alphabet=st.characters(blacklist_characters="\r")))
def test_format_cell_text_is_one_safe_line(value: str) -> None:
    text = format_cell(value)
    assert "\n" not in text
    assert all(i > 0 and text[i - 1] == "\\" for i, ch in enumerate(text) if ch == "|")
    assert text.replace("\\|", "|").replace(" ", "") == value.replace("\n", "").replace(" ", "")


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_format_cell_float_is_close(value: float) -> None:
    text = format_cell(value)
    back = float(text)
    # 4 significant digits in scientific notation, 4 decimals otherwise
    assert math.isclose(back, value, rel_tol=5e-4, abs_tol=5e-5)


def test_write_table_csv_and_markdown(tmp_path: Path) -> None:
    csv_path = tmp_path / "out" / "scores.csv"
    frame = pd.DataFrame({"model": ["GIN", "GCN"], "acc": [0.9, 0.85]})
    write_table(frame, csv_path, title="Scores")
    assert csv_path.read_text() == "model,acc\nGIN,0.9\nGCN,0.85\n"
    assert (tmp_path / "out" / "scores.md").read_text() == (
        "# Scores\n\n| model | acc |\n|---|---:|\n| GIN | 0.9 |\n| GCN | 0.85 |\n"
    )
    pd.testing.assert_frame_equal(pd.read_csv(csv_path), frame)


def test_write_table_without_title(tmp_path: Path) -> None:
    csv_path = tmp_path / "t.csv"
    write_table(pd.DataFrame({"k": [1]}), csv_path)
    assert (tmp_path / "t.md").read_text() == "| k |\n|---:|\n| 1 |\n"


def test_header_pipes_are_escaped_and_carriage_returns_become_spaces() -> None:
    text = to_markdown(pd.DataFrame({"a|b": ["x\ry"]}))
    assert text.splitlines()[0] == "| a\\|b |"
    assert text.splitlines()[2] == "| x y |"

"""The llmpattern figures: each writes its PNG and SVG (byte-identical on rerun), and the data each plots,
checked on hand-made records (the frames, not the pixels)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern import figures
from graphaudit.llmpattern.figures import detection_frame, fig2_frame, fig4_frame, fig5_frame

from .golden import EXPECTED


def _records(mode: str, responder: str, **fields) -> dict:
    return {"mode": mode, "responder": responder, "repo_error": None, **fields}


ISO = [
    _records("repo", "r", variant="faithful", mentions_degree=True),
    _records("repo", "r", variant="faithful", mentions_degree=True),
    _records("repo", "r", variant="faithful", mentions_degree=False),
    _records("clean", "r", variant="faithful", mentions_degree=False),  # the same answer, scored again
]
KCORE = [
    _records("repo", "r", degree_hits=[[3, 1, 2], [5, 2, 2]]),
    _records("repo", "r", degree_hits=[[3, 0, 2]]),
    {**_records("repo", "r", degree_hits=[[3, 9, 9]]), "repo_error": "int() raises"},
]
FREQUENT = [
    _records("repo", "r", extracted=["triangle", "triangle", "other"]),
    _records("repo", "r", extracted=["square"]),
    _records("repo", "s", extracted=[]),
]


def test_fig2_share_of_answers_mentioning_degree() -> None:
    frame = fig2_frame(ISO)
    assert frame.to_dict("records") == [
        {"responder": "r", "variant": "faithful", "answers": 3, "mentions_degree": 2, "share": pytest.approx(2 / 3)}
    ]


def test_fig4_precision_by_degree_pools_the_answers() -> None:
    frame = fig4_frame(KCORE)
    assert list(frame["degree"]) == [3, 5]
    assert list(frame["hits"]) == [1, 2] and list(frame["predicted"]) == [4, 2]
    assert list(frame["precision"]) == [0.25, 1.0]


def test_fig5_shares_of_the_extracted_primitives() -> None:
    frame = fig5_frame(FREQUENT)
    assert frame[["pattern", "count", "share"]].values.tolist() == [
        ["triangle", 2, 0.5],
        ["square", 1, 0.25],
        ["other", 1, 0.25],
    ]
    assert set(frame["responder"]) == {"r"}  # s extracted nothing


def test_detection_frame_keeps_repo_zero_shot_cells_of_the_scales() -> None:
    table = pd.read_csv(EXPECTED / "table18.csv")
    frame = detection_frame(table, ("small", "medium"))
    assert list(frame.columns) == ["scale", "fmt", "pattern", "responder", "value"]
    expected = table[(table["mode"] == "repo") & (table["style"] == "zero_shot")]
    assert len(frame) == len(expected) and set(frame["scale"]) == {"small"}
    assert frame["pattern"].iloc[0] == "triangle" and list(frame["fmt"].drop_duplicates()) == ["AL", "EL"]


def _write_records(path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("name", "inputs"),
    [
        ("fig1", "table18"),
        ("fig3", "table19"),
        ("fig7", "table18"),
        ("fig8", "table19"),
        ("fig2", ISO),
        ("fig4", KCORE),
        ("fig5", FREQUENT),
        ("fig5", []),  # nothing to plot still gives a figure
    ],
)
def test_figures_write_png_and_svg_identically_on_rerun(tmp_path, name: str, inputs) -> None:
    if isinstance(inputs, str):
        given = {"table": str(EXPECTED / f"{inputs}.csv")}
    else:
        given = {"records": [_write_records(tmp_path / "records.jsonl", inputs)]}
    written = []
    for run in ("a", "b"):
        png = tmp_path / run / f"{name}.png"
        png.parent.mkdir()
        getattr(figures, name)(RuleContext(input=given, output={"figure": str(png)}))
        assert png.stat().st_size > 0 and png.with_suffix(".svg").stat().st_size > 0
        written.append((png.read_bytes(), png.with_suffix(".svg").read_bytes()))
    assert written[0] == written[1]

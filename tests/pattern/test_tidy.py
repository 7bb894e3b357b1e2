"""Tidy intermediate CSVs: written and read back with exact floats, kinds such as ``none`` kept as strings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphaudit.pattern.tidy import read_frame, write_frame


def test_round_trip_is_exact(tmp_path) -> None:
    values = np.random.default_rng(0).random(200) * 100
    frame = pd.DataFrame(
        {"set": "test", "kind": ["none", "exact"] * 100, "value": values, "missing": [np.nan] + [1.5] * 199}
    )
    write_frame(frame, tmp_path / "f.csv")
    back = read_frame(tmp_path / "f.csv")
    assert back["value"].tolist() == values.tolist()
    assert back["kind"].tolist()[:2] == ["none", "exact"] and np.isnan(back.loc[0, "missing"])
    write_frame(back, tmp_path / "g.csv")
    assert (tmp_path / "f.csv").read_bytes() == (tmp_path / "g.csv").read_bytes()

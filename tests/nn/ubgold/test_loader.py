"""UB-GOLD's verified tree as imported: device calls rewritten and counted, an edited file refused. Needs the
data mirror (UB-GOLD's archive)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphaudit.data.errors import ChecksumMismatchError
from graphaudit.nn import OCGINConfig
from graphaudit.nn.ubgold import detectors as ubgold
from graphaudit.nn.ubgold import loader


def test_device_calls_are_rewritten_and_counted(active: Path) -> None:
    ubgold.OCGIN(2, OCGINConfig(hidden_dim=4, num_layer=2))
    counts = loader.rewrite_counts()
    assert counts["GAOOD.nn.ocgin"] == 2  # .to('cuda') of the centre and of init_center's batches
    assert counts["GAOOD.nn.encoder"] == 0


def test_a_file_edited_after_verification_is_not_imported(ubgold_tree: Path, tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    shutil.copytree(ubgold_tree, copy)
    metric = copy / "GAOOD" / "metric" / "metric.py"
    metric.write_text(metric.read_text() + "\n# edited\n")
    loader.activate(copy)
    try:
        with pytest.raises(ChecksumMismatchError, match=r"metric.py"):
            loader.import_module("metric.metric")
    finally:
        loader.activate(ubgold_tree)

"""Outputs get the permissions of the umask, as a plain open() or mkdir() would give them, not mkstemp's 0600 or
mkdtemp's 0700: collaborators sharing a results folder can read what the workflow wrote."""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fault_toys import config, ocgin, toy_graphs

from graphaudit.common.atomic import fresh_dir, write_json, write_npz, write_text
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import DatasetSpec, Stats
from graphaudit.nn import train
from graphaudit.nn.trainer import CHECKPOINT, RECORDS


@pytest.fixture(params=[0o022, 0o027, 0o002], ids=oct)
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_follow_the_umask(tmp_path: Path, umask: int) -> None:
    write_text(tmp_path / "a.md", "text")
    write_json(tmp_path / "b.json", {"x": 1})
    write_npz(tmp_path / "c.npz", x=np.arange(3))
    plain = tmp_path / "plain.txt"
    plain.write_text("what open() gives")
    assert {mode(tmp_path / name) for name in ("a.md", "b.json", "c.npz")} == {mode(plain)} == {0o666 & ~umask}


def test_fresh_folders_follow_the_umask(tmp_path: Path, umask: int) -> None:
    folder = fresh_dir(tmp_path / "parent", ".x.", ".staging")
    assert folder.name.startswith(".x.") and folder.name.endswith(".staging") and mode(folder) == 0o777 & ~umask


def test_training_outputs_follow_the_umask(tmp_path: Path, umask: int) -> None:
    train(ocgin, toy_graphs(), config(num_epoch=2), tmp_path)
    assert mode(tmp_path / CHECKPOINT) == mode(tmp_path / RECORDS) == 0o666 & ~umask


def test_a_fetched_dataset_folder_follows_the_umask(tmp_path: Path, umask: int, tiny_tu: dict[str, str]) -> None:
    (tmp_path / "mirror").mkdir()
    with zipfile.ZipFile(tmp_path / "mirror" / "TINY.zip", "w") as archive:
        for part, text in tiny_tu.items():
            archive.writestr(f"TINY/TINY_{part}.txt", text)
    spec = DatasetSpec(
        name="TINY",
        format="tu",
        task="graph",
        files=("TINY.zip",),
        urls=("http://127.0.0.1:9/TINY.zip",),
        stats=Stats(graphs=2, nodes=5),
        stats_source="hand-made test set",
    )
    obtain(spec, tmp_path / "raw", FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=False))
    folder = tmp_path / "raw" / "TINY"
    assert mode(folder) == 0o777 & ~umask
    assert {mode(path) for path in folder.iterdir()} == {0o666 & ~umask}

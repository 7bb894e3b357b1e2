"""Atomic writes: content, failure leaves the old file, reproducible npz, sorted JSON."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from graphaudit.common.atomic import atomic_open, atomic_path, write_json, write_npz, write_text


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_write_text_writes_content_and_creates_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "note.txt"
    write_text(target, "héllo\nworld\n")
    assert target.read_bytes() == "héllo\nworld\n".encode()
    assert leftovers(target.parent) == []


def test_write_text_replaces_existing(tmp_path: Path) -> None:
    target = tmp_path / "note.txt"
    target.write_text("old")
    write_text(target, "new")
    assert target.read_text() == "new"


def test_failure_inside_atomic_open_keeps_old_target_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("old content")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_open(target, "w") as handle:
            handle.write("half-written")
            raise RuntimeError("boom")
    assert target.read_text() == "old content"
    assert list(tmp_path.iterdir()) == [target]


def test_failure_without_existing_target_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    with pytest.raises(KeyError):
        with atomic_open(target, "w") as handle:
            handle.write("x")
            raise KeyError("stop")
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_failure_removes_temp(tmp_path: Path) -> None:
    target = tmp_path / "t.bin"
    with pytest.raises(ValueError):
        with atomic_path(target) as tmp:
            assert tmp.parent == tmp_path and tmp != target
            tmp.write_bytes(b"data")
            raise ValueError
    assert list(tmp_path.iterdir()) == []


def test_atomic_open_refuses_read_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        with atomic_open(tmp_path / "x", "r"):
            pass
    with pytest.raises(ValueError):
        with atomic_open(tmp_path / "x", "a"):
            pass


def test_write_json_sorted_indented(tmp_path: Path) -> None:
    target = tmp_path / "o.json"
    write_json(target, {"b": 1, "a": {"d": [1, 2], "c": None}})
    expected = '{\n  "a": {\n    "c": null,\n    "d": [\n      1,\n      2\n    ]\n  },\n  "b": 1\n}\n'
    assert target.read_text() == expected


def test_write_json_numpy_and_paths(tmp_path: Path) -> None:
    target = tmp_path / "o.json"
    write_json(target, {"z": np.int64(3), "y": np.float32(0.5), "x": np.array([[1, 2], [3, 4]]), "w": Path("p/q")})
    assert json.loads(target.read_text()) == {"w": "p/q", "x": [[1, 2], [3, 4]], "y": 0.5, "z": 3}
    assert list(json.loads(target.read_text())) == ["w", "x", "y", "z"]


def test_write_json_unserialisable_keeps_old(tmp_path: Path) -> None:
    target = tmp_path / "o.json"
    write_json(target, {"a": 1})
    with pytest.raises(TypeError):
        write_json(target, {"a": object()})
    assert json.loads(target.read_text()) == {"a": 1}
    assert leftovers(tmp_path) == []


def test_write_npz_round_trip(tmp_path: Path) -> None:
    target = tmp_path / "arr.npz"
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    floats = np.array([0.5, -1.25, np.nan])
    strings = np.array(["a", "bc"])
    write_npz(target, ints=ints, floats=floats, strings=strings)
    with np.load(target, allow_pickle=False) as archive:
        assert sorted(archive.files) == ["floats", "ints", "strings"]
        np.testing.assert_array_equal(archive["ints"], ints)
        assert archive["ints"].dtype == np.int32
        np.testing.assert_array_equal(archive["floats"], floats)
        np.testing.assert_array_equal(archive["strings"], strings)


def test_write_npz_non_contiguous_input(tmp_path: Path) -> None:
    target = tmp_path / "arr.npz"
    base = np.arange(20).reshape(4, 5)
    write_npz(target, t=base.T, s=base[:, ::2])
    with np.load(target) as archive:
        np.testing.assert_array_equal(archive["t"], base.T)
        np.testing.assert_array_equal(archive["s"], base[:, ::2])


def test_write_npz_byte_identical_and_fixed_timestamps(tmp_path: Path) -> None:
    arrays = {"b": np.linspace(0, 1, 100), "a": np.arange(7)}
    write_npz(tmp_path / "one.npz", **arrays)
    write_npz(tmp_path / "two.npz", **dict(reversed(list(arrays.items()))))
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    with zipfile.ZipFile(io.BytesIO((tmp_path / "one.npz").read_bytes())) as archive:
        assert [i.filename for i in archive.infolist()] == ["a.npy", "b.npy"]
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in archive.infolist())


def test_write_npz_refuses_object_arrays_and_keeps_old(tmp_path: Path) -> None:
    target = tmp_path / "arr.npz"
    write_npz(target, x=np.arange(3))
    before = target.read_bytes()
    with pytest.raises(TypeError, match="object"):
        write_npz(target, x=np.arange(3), y=np.array([{"a": 1}, None], dtype=object))
    assert target.read_bytes() == before
    assert leftovers(tmp_path) == []

"""Evaluation records (JSON lines) and per-item scores keyed by item id."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.common.records import (
    append_record,
    environment_versions,
    read_item_scores,
    read_records,
    write_item_scores,
    write_records,
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=10),
    st.floats(allow_nan=False, allow_infinity=False),
)
record_strategy = st.dictionaries(st.text(min_size=1, max_size=8), json_scalars, max_size=5)


@settings(max_examples=50, deadline=None)
@given(st.lists(record_strategy, max_size=6))
def test_write_read_round_trip_property(tmp_path_factory: pytest.TempPathFactory, records: list[dict]) -> None:
    path = tmp_path_factory.mktemp("rec") / "records.jsonl"
    write_records(path, records)
    assert read_records(path) == records


def test_write_records_sorted_keys_and_numpy(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    write_records(path, [{"step": np.int64(2), "acc": np.float64(0.75), "per_class": np.array([1, 2])}])
    assert path.read_text() == '{"acc": 0.75, "per_class": [1, 2], "step": 2}\n'
    with pytest.raises(TypeError):
        write_records(tmp_path / "bad.jsonl", [{"x": object()}])


def test_append_record_adds_lines(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "r.jsonl"
    append_record(path, {"step": 1, "loss": 0.5})
    append_record(path, {"step": 2, "loss": 0.25})
    assert path.read_text() == '{"loss": 0.5, "step": 1}\n{"loss": 0.25, "step": 2}\n'
    assert read_records(path) == [{"loss": 0.5, "step": 1}, {"loss": 0.25, "step": 2}]


def test_append_after_write_records(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    write_records(path, [{"step": 0}])
    append_record(path, {"step": 1})
    assert [r["step"] for r in read_records(path)] == [0, 1]


def test_torn_last_line_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"step": 1}\n{"step": 2}\n{"step": 3, "lo')
    assert read_records(path) == [{"step": 1}, {"step": 2}]


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"step": 1}\n\n   \n{"step": 2}\n')
    assert read_records(path) == [{"step": 1}, {"step": 2}]


def test_corrupt_middle_line_raises(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"step": 1}\n{"step": 2, \n{"step": 3}\n')
    with pytest.raises(ValueError, match="line 2"):
        read_records(path)


def test_resume_after_torn_line_keeps_records(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"step": 1}\n{"step": 2, "lo')  # run killed mid-write
    append_record(path, {"step": 2})  # resumed run re-evaluates step 2
    append_record(path, {"step": 3})
    assert read_records(path) == [{"step": 1}, {"step": 2}, {"step": 3}]


def test_environment_versions_has_python_and_numpy() -> None:
    versions = environment_versions()
    assert versions["numpy"] == np.__version__
    assert versions["python"].count(".") == 2


def test_item_scores_reordered_by_item_id(tmp_path: Path) -> None:
    path = tmp_path / "scores.npz"
    write_item_scores(
        path, np.array([10, 30, 20]), score=np.array([1.0, 3.0, 2.0]), correct=np.array([True, False, True])
    )
    got = read_item_scores(path, np.array([20, 10, 30]))
    assert sorted(got) == ["correct", "score"]
    np.testing.assert_array_equal(got["score"], [2.0, 1.0, 3.0])
    np.testing.assert_array_equal(got["correct"], [True, True, False])
    subset = read_item_scores(path, [30])
    np.testing.assert_array_equal(subset["score"], [3.0])


def test_item_scores_string_ids(tmp_path: Path) -> None:
    path = tmp_path / "scores.npz"
    write_item_scores(path, np.array(["g1", "g2"]), y=np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(read_item_scores(path, np.array(["g2", "g1"]))["y"], [[3, 4], [1, 2]])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=20, unique=True), st.randoms(use_true_random=False))
def test_item_scores_permutation_property(tmp_path_factory: pytest.TempPathFactory, ids: list[int], rnd) -> None:
    path = tmp_path_factory.mktemp("scores") / "s.npz"
    values = np.array(ids, dtype=np.float64) * 2 + 1
    write_item_scores(path, np.array(ids), v=values)
    wanted = list(ids)
    rnd.shuffle(wanted)
    np.testing.assert_array_equal(read_item_scores(path, np.array(wanted))["v"], np.array(wanted) * 2.0 + 1)


def test_duplicate_item_ids_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        write_item_scores(tmp_path / "s.npz", np.array([1, 2, 1]), v=np.zeros(3))
    assert not (tmp_path / "s.npz").exists()


def test_length_mismatch_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'v' have 2 rows but there are 3"):
        write_item_scores(tmp_path / "s.npz", np.array([1, 2, 3]), v=np.zeros(2))
    assert not (tmp_path / "s.npz").exists()


def test_missing_ids_raise_keyerror(tmp_path: Path) -> None:
    path = tmp_path / "s.npz"
    write_item_scores(path, np.array([1, 2, 3]), v=np.zeros(3))
    with pytest.raises(KeyError, match=r"\[4, 5\]"):
        read_item_scores(path, np.array([1, 4, 5]))

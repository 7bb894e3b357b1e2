"""Shared stratified splits: shares by hand, disjointness, coverage, stratification, invalid labels, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.data.errors import DataUnavailableError
from graphaudit.nodeground.graph import write_unavailable
from graphaudit.nodeground.preprocess import preprocess
from graphaudit.nodeground.splits import Splits, class_counts, make_splits, split_shares


def graph_with_classes(sizes: list[int], invalid: int = 0, name: str = "toy"):
    labels = np.concatenate([np.repeat(np.arange(len(sizes)), sizes), np.full(invalid, -1)])
    labels = np.random.default_rng(0).permutation(labels)
    return preprocess(name, np.zeros((len(labels), 1)), np.zeros((0, 2), dtype=np.int64), labels)


def test_split_shares() -> None:
    np.testing.assert_allclose(split_shares("10-10-80"), [0.1, 0.1, 0.8])
    np.testing.assert_allclose(split_shares("50-25-25"), [0.5, 0.25, 0.25])
    with pytest.raises(ValueError, match="sum to 100"):
        split_shares("10-10-70")
    with pytest.raises(ValueError, match="train-val-test"):
        split_shares("80/20")


def test_class_counts_by_hand() -> None:
    assert class_counts(10, np.array([0.1, 0.1, 0.8])).tolist() == [1, 1, 8]
    assert class_counts(7, np.array([0.5, 0.25, 0.25])).tolist() == [3, 2, 2]  # remainders .5, .75, .75
    assert class_counts(1, np.array([0.1, 0.1, 0.8])).tolist() == [0, 0, 1]
    assert class_counts(13, np.array([0.1, 0.1, 0.8])).tolist() == [1, 1, 11]  # 1.3, 1.3, 10.4
    assert class_counts(6, np.array([0.5, 0.25, 0.25])).tolist() == [3, 2, 1]  # 3, 1.5, 1.5: a tie goes earlier


SIZES = [1, 2, 7, 13, 40, 101, 250]


@pytest.mark.parametrize("split", ["10-10-80", "50-25-25"])
def test_masks_are_disjoint_cover_valid_nodes_and_are_stratified(split) -> None:
    graph = graph_with_classes(SIZES, invalid=17)
    splits = make_splits(graph, split, partitions=5)
    assert splits.train.shape == (5, graph.num_nodes) and splits.split == split
    shares = split_shares(split)
    for k in range(5):
        train, val, test = splits.masks(k)
        assert not (train & val).any() and not (train & test).any() and not (val & test).any()
        np.testing.assert_array_equal(train | val | test, graph.valid)  # every valid node, no invalid one
        for label, size in enumerate(SIZES):
            in_class = graph.y == label
            counts = np.array([np.sum(m & in_class) for m in (train, val, test)])
            assert np.all(np.abs(counts - size * shares) < 1), (label, counts)


def test_determinism_and_independent_partitions(tmp_path) -> None:
    graph = graph_with_classes([60, 40])
    one, two = make_splits(graph, "10-10-80"), make_splits(graph, "10-10-80")
    np.testing.assert_array_equal(one.train, two.train)
    np.testing.assert_array_equal(one.test, two.test)
    assert len({one.train[k].tobytes() for k in range(5)}) == 5  # five different partitions
    other_seed = make_splits(graph, "10-10-80", seed_parts=(1,))
    assert not np.array_equal(other_seed.train, one.train)
    other_name = make_splits(graph_with_classes([60, 40], name="other"), "10-10-80")
    assert not np.array_equal(other_name.train, one.train)
    one.save(tmp_path / "a.npz")
    two.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    back = Splits.load(tmp_path / "a.npz")
    assert back.split == "10-10-80" and back.partitions == 5
    np.testing.assert_array_equal(back.val, one.val)


def test_overlapping_masks_are_refused() -> None:
    mask = np.array([[True, False]])
    with pytest.raises(ValueError, match="two of train, val and test"):
        Splits("10-10-80", mask, mask, ~mask)


def test_unavailable_splits_file(tmp_path) -> None:
    write_unavailable(tmp_path / "s.npz", "pubmed", "not mirrored")
    with pytest.raises(DataUnavailableError, match="not mirrored"):
        Splits.load(tmp_path / "s.npz")

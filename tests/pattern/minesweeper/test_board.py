"""Minesweeper board: the official file's facts (mirror only), its regeneration, own masks, scoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphaudit.data.errors import StatisticsMismatchError
from graphaudit.data.readers import DataFormatError
from graphaudit.pattern.minesweeper.board import (
    Board,
    check_regenerated,
    counts_from_mines,
    grid_edges,
    mask_auroc,
    read_official,
    regenerate_board,
)


@pytest.fixture(scope="module")
def official_path(mirror: Path) -> Path:
    path = mirror / "heterophilous" / "minesweeper.npz"
    if not path.is_file():
        pytest.skip(
            f"{path} is not in the data mirror; the official-board checks need the released "
            "minesweeper.npz under <mirror>/heterophilous/"
        )
    return path


@pytest.fixture(scope="module")
def regenerated() -> Board:
    return regenerate_board(0)


def test_official_file_has_every_fact_of_the_spec(official_path: Path) -> None:
    board = read_official(official_path)
    assert board.source == "official" and board.side == 100
    assert int(board.labels.sum()) == 2000
    assert (board.counts == -1).sum() == 5000
    assert np.bincount(board.counts[board.counts >= 0]).tolist() == [858, 1726, 1442, 677, 232, 65]
    assert int(board.labels[board.counts >= 0].sum()) == 988
    assert board.train_masks.sum(axis=1).tolist() == [5000] * 10
    assert (board.test_masks[0] & board.test_masks[1]).sum() == 623  # the spec's overlap of two test masks


def _tampered(official_path: Path, tmp_path: Path, **changes: np.ndarray) -> Path:
    with np.load(official_path) as archive:
        arrays = {k: archive[k] for k in archive.files}
    arrays.update(changes)
    path = tmp_path / "minesweeper.npz"
    np.savez(path, **arrays)
    return path


def test_official_reader_rejects_a_changed_file(official_path: Path, tmp_path: Path) -> None:
    with np.load(official_path) as archive:
        labels, masks = archive["node_labels"].copy(), archive["test_masks"].copy()
    labels[0] = 1 - labels[0]
    with pytest.raises(StatisticsMismatchError, match="mines, not 2000"):
        read_official(_tampered(official_path, tmp_path, node_labels=labels))
    masks[0, np.flatnonzero(masks[0])[0]] = False
    with pytest.raises(StatisticsMismatchError, match="test_masks"):
        read_official(_tampered(official_path, tmp_path, test_masks=masks))
    (tmp_path / "broken.npz").write_bytes(official_path.read_bytes()[:1000])
    with pytest.raises(DataFormatError, match="not a readable npz"):
        read_official(tmp_path / "broken.npz")


def test_regenerated_board_equals_the_official_labels_and_features(official_path: Path, regenerated: Board) -> None:
    official = read_official(official_path)
    check_regenerated(regenerated, official)
    with np.load(official_path) as archive:
        assert np.array_equal(regenerated.counts + 1, np.argmax(archive["node_features"], axis=1))
        assert np.array_equal(regenerated.labels, archive["node_labels"])


def test_check_regenerated_names_the_difference(regenerated: Board) -> None:
    labels = regenerated.labels.copy()
    labels[:3] = 1 - labels[:3]
    other = Board(
        side=100,
        counts=regenerated.counts,
        labels=labels,
        train_masks=regenerated.train_masks,
        val_masks=regenerated.val_masks,
        test_masks=regenerated.test_masks,
        source="official",
    )
    with pytest.raises(StatisticsMismatchError, match=r"labels differ .* in 3 cells"):
        check_regenerated(regenerated, other)


def test_own_masks_are_stratified_and_disjoint_within_a_split(regenerated: Board) -> None:
    board = regenerated
    assert board.source == "regenerated" and int(board.labels.sum()) == 2000
    for masks, cells, mines in (
        (board.train_masks, 5000, 1000),
        (board.val_masks, 2500, 500),
        (board.test_masks, 2500, 500),
    ):
        assert masks.shape == (10, 10000)
        assert masks.sum(axis=1).tolist() == [cells] * 10
        assert masks[:, board.labels == 1].sum(axis=1).tolist() == [mines] * 10
    cover = board.train_masks.astype(int) + board.val_masks + board.test_masks
    assert (cover == 1).all()
    assert not np.array_equal(board.test_masks[0], board.test_masks[1])
    again, other = regenerate_board(0), regenerate_board(1)
    assert np.array_equal(again.test_masks, board.test_masks)
    assert not np.array_equal(other.test_masks, board.test_masks)


def test_board_round_trips_and_exposes_only_counts_or_train_labels(regenerated: Board, tmp_path: Path) -> None:
    regenerated.save(tmp_path / "board.npz")
    loaded = Board.load(tmp_path / "board.npz")
    for name in ("counts", "labels", "train_masks", "val_masks", "test_masks"):
        assert np.array_equal(getattr(loaded, name), getattr(regenerated, name))
    assert (loaded.side, loaded.source) == (100, "regenerated")
    assert loaded.count_grid().shape == (100, 100)
    clamp = loaded.train_clamp(3).ravel()
    assert np.array_equal(clamp >= 0, loaded.train_masks[3])
    assert np.array_equal(clamp[loaded.train_masks[3]], loaded.labels[loaded.train_masks[3]])


def test_grid_edges_and_counts_on_small_grids() -> None:
    assert len(grid_edges(3)) == 20 and len(grid_edges(100)) == 39402
    assert grid_edges(2).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    centre = np.zeros((3, 3), dtype=np.uint8)
    centre[1, 1] = 1
    counts = counts_from_mines(centre, np.eye(3, dtype=bool))
    assert counts.tolist() == [[-1, 1, 1], [1, -1, 1], [1, 1, -1]]
    assert counts_from_mines(np.ones((3, 3), dtype=np.uint8), np.zeros((3, 3), bool))[1, 1] == 5  # 8 capped at 5


def test_mask_auroc_hand_case() -> None:
    labels = np.array([1, 0, 1, 0])
    scores = np.array([0.9, 0.1, 0.4, 0.6])  # 3 of the 4 mine/non-mine pairs ordered correctly
    masks = np.array([[True, True, True, True], [True, True, False, False]])
    result = mask_auroc(scores, labels, masks)
    assert result.per_mask == (75.0, 100.0)
    assert result.mean == 87.5
    assert result.sd == pytest.approx(25 / np.sqrt(2))

"""The numpy strip-update reference against the numba kernel, and the bench rule entry."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graphaudit.bench.strip_sampler import bench_strip_sampler, reference_strip_updates
from graphaudit.common.rule import RuleContext
from graphaudit.pattern.minesweeper.board import Board, counts_from_mines, stratified_masks
from graphaudit.pattern.minesweeper.strip import strip_updates


def small_board(seed: int, side: int) -> Board:
    rng = np.random.default_rng(seed)
    mines = (rng.random((side, side)) < 0.25).astype(np.uint8)
    counts = counts_from_mines(mines, rng.random((side, side)) < 0.5).ravel()
    train, val, test = stratified_masks(mines.ravel(), rng, n_masks=2)
    return Board(
        side=side,
        counts=counts,
        labels=mines.ravel(),
        train_masks=train,
        val_masks=val,
        test_masks=test,
        source="regenerated",
    )


@pytest.mark.parametrize("weight", [None, 0.7, 50.0])
def test_numba_strips_equal_the_numpy_reference(weight: float | None) -> None:
    board = small_board(0, 13)
    rng = np.random.default_rng(1)
    state = board.labels.reshape(13, 13) if weight is None else (rng.random((13, 13)) < 0.2).astype(np.uint8)
    for width in (1, 3, 4):
        starts = rng.integers(0, 13 - width + 1, size=8)
        uniforms = rng.random((8, 12))
        ours = strip_updates(state, board.count_grid(), starts, width, uniforms, weight)
        peer = reference_strip_updates(state, board.count_grid(), starts, width, uniforms, weight)
        assert np.array_equal(ours.board, peer.board)
        assert np.abs(ours.marginals - peer.marginals).max() < 1e-12


def test_bench_rule_writes_the_table(tmp_path) -> None:
    small_board(2, 12).save(tmp_path / "board.npz")
    ctx = RuleContext(
        input={"board": str(tmp_path / "board.npz")},
        output={"table": str(tmp_path / "bench.csv")},
        params={"strips": 3},
    )
    bench_strip_sampler(ctx)
    table = pd.read_csv(tmp_path / "bench.csv")
    assert list(table["benchmark"]) == ["strip_sampler", "strip_sampler"]
    assert (table["ratio"] > 0).all() and (table["peer_s"] > 0).all()

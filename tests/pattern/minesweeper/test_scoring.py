"""Minesweeper scores: Table 15's code rows and criteria, the belief-propagation and strip-sampler rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from graphaudit.common.atomic import write_npz
from graphaudit.pattern.minesweeper.board import Board
from graphaudit.pattern.minesweeper.scoring import (
    MINESWEEPER_COLUMNS,
    TABLE15_COLUMNS,
    board_label,
    bp_row,
    code_rows,
    convergence_rows,
)
from graphaudit.stats.convergence import ess_bulk


def _board() -> Board:
    labels = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0], np.uint8)
    test = np.array([[1, 1, 1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1, 1]], bool)
    counts = np.full(9, -1, np.int8)
    return Board(3, counts, labels, ~test, np.zeros_like(test), test, source="regenerated")


def test_code_rows_compare_with_the_tolerance() -> None:
    rows = code_rows({"full_width": 1e-12, "single_strips": 1e-6, "tolerance": 1e-9})
    assert [r["met"] for r in rows] == ["yes", "no"] and rows[0]["required"] == "within 1e-09"


def test_bp_rows_score_each_mask(tmp_path) -> None:
    board = _board()
    perfect = board.labels.astype(float)
    swapped = np.where(np.arange(9) < 4, 1.0 - perfect, perfect)  # mask 0's mines ranked last
    write_npz(
        tmp_path / "f.npz",
        marginals=perfect[None],
        last_change=np.array([0.01]),
        sweeps=np.array([400]),
        contradictions=np.array([0]),
    )
    write_npz(
        tmp_path / "l.npz",
        marginals=np.stack([swapped, perfect]),
        last_change=np.array([0.02, 0.03]),
        sweeps=np.array([400, 400]),
        contradictions=np.array([0, 0]),
    )
    features = bp_row(board, str(tmp_path / "f.npz"), "features")
    assert set(features) == set(MINESWEEPER_COLUMNS) and features["board"] == board_label(board)
    assert (features["mean_auc"], features["sd_auc"], features["sweeps"]) == (100.0, 0.0, 400)
    labels = bp_row(board, str(tmp_path / "l.npz"), "labels")  # mask m scored with the run of mask m
    assert labels["information"] == "features, training labels" and labels["last_change"] == 0.03
    assert (labels["min_auc"], labels["max_auc"]) == (0.0, 100.0) and labels["mean_auc"] == pytest.approx(50.0)


@dataclass
class _Chain:
    """What convergence_rows reads of a chain state."""

    mine_trace: np.ndarray
    trace: np.ndarray
    kept_sweeps: int
    phase: str = "sample"

    def marginals(self) -> np.ndarray:
        return np.full(4, self.trace.mean())


def test_convergence_rows_report_the_draws_each_statistic_read() -> None:
    rng = np.random.default_rng(0)
    chains = [_Chain(rng.normal(size=n), rng.normal(size=n), n) for n in (30, 25)]
    rows = {(r["criterion"], r["check"]): r for r in convergence_rows(chains, [99.0, 99.1])}
    cut = np.stack([c.mine_trace[:25] for c in chains])  # every chain cut to the shortest: 2 x 25 draws per sweep
    ess = rows[("Effective sample size", "mine count")]
    assert ess["draws"] == 50 and ess["observed"] == pytest.approx(ess_bulk(cut))
    assert rows[("Split R-hat", "trace")]["draws"] == 50
    assert rows[("Chain agreement", "trace, first half against second")]["draws"] == 50
    assert np.isnan(rows[("Valid chains", "chains that reach a valid board")]["draws"])
    assert all(set(r) == set(TABLE15_COLUMNS) for r in rows.values())

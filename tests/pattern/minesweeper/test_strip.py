"""Strip sampler: the enumeration self-tests, valid and correctly distributed draws, sweeps, annealing, resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphaudit.pattern.minesweeper.bp import neighbour_mines
from graphaudit.pattern.minesweeper.strip import (
    Annealing,
    ChainState,
    combine_chains,
    enumerate_strip,
    label_trace_weights,
    run_chain,
    self_test_full_width,
    self_test_strips,
    start_chain,
    strip_bounds,
    strip_updates,
    sweep,
    violated_counts,
)


def small_board(seed: int, rows: int, cols: int, rate: float = 0.2, revealed: float = 0.5):
    """(mines, counts) of a random board with a share ``revealed`` of its counts shown."""
    rng = np.random.default_rng(seed)
    mines = (rng.random((rows, cols)) < rate).astype(np.uint8)
    counts = np.minimum(neighbour_mines(mines), 5).astype(np.int8)
    counts[rng.random((rows, cols)) >= revealed] = -1
    return mines, counts


@pytest.mark.parametrize("seed", [0, 1])
def test_self_tests_match_enumeration(seed: int) -> None:
    assert self_test_full_width(seed) < 1e-9
    assert self_test_strips(seed) < 1e-9


def test_ffbs_draws_follow_the_exact_conditional() -> None:
    mines, counts = small_board(3, 3, 2, rate=0.4, revealed=0.7)
    exact = enumerate_strip(mines, counts, 0, 2)
    rng = np.random.default_rng(0)
    draws = np.array([strip_updates(mines, counts, [0], 2, rng.random(2)).board for _ in range(4000)])
    assert all(violated_counts(board, counts) == 0 for board in draws)
    assert np.abs(draws.mean(axis=0) - exact).max() < 0.03  # 4 standard errors at most about 0.03


def test_hard_sweeps_keep_a_valid_board_valid() -> None:
    mines, counts = small_board(4, 9, 11, revealed=0.4)
    rng = np.random.default_rng(1)
    board = mines
    for _ in range(20):
        board, marginals = sweep(board, counts, rng)
        assert violated_counts(board, counts) == 0
        assert marginals.shape == (2, 9, 11) and ((marginals >= 0) & (marginals <= 1)).all()
    assert not np.array_equal(board, mines)  # the chain moves


def test_hard_update_on_an_invalid_board_says_to_anneal() -> None:
    mines, counts = small_board(5, 6, 6, revealed=0.8)
    wrong = 1 - mines
    assert violated_counts(wrong, counts) > 0
    with pytest.raises(RuntimeError, match="anneal first"):
        sweep(wrong, counts, np.random.default_rng(0))


def test_strip_tiling_clips_the_borders() -> None:
    assert strip_bounds(10, 0, 4) == [(0, 4), (4, 8), (8, 10)]
    assert strip_bounds(10, 2, 4) == [(0, 2), (2, 6), (6, 10)]
    assert strip_bounds(10, 3, 4) == [(0, 3), (3, 7), (7, 10)]


def test_annealing_schedule() -> None:
    schedule = Annealing()
    weight, at_cap, history = schedule.start, 0, []
    for _ in range(88 + 60 + 1):
        history.append(weight)
        weight, at_cap = schedule.next(weight, at_cap)
    assert history[0] == 0.3 and history[1] == pytest.approx(0.318)
    assert history[87] < 50 and history[88] == 50  # 0.3 x 1.06^88 passes the cap
    assert history[88:148] == [50.0] * 60 and history[148] == 1.0  # 60 sweeps at the cap, then reset


def test_annealing_reaches_a_valid_board_on_a_small_board() -> None:
    _, counts = small_board(6, 16, 16)
    state = run_chain(start_chain(counts, seed=1), counts, 400, stop_when_valid=True)
    assert state.phase == "sample" and violated_counts(state.board, counts) == 0
    assert state.violations[-1] == 0 and (state.violations[:-1] > 0).all()
    assert len(state.violations) == state.anneal_sweeps


def test_resumed_chain_is_bit_identical(tmp_path: Path) -> None:
    mines, counts = small_board(7, 12, 12)
    weights = label_trace_weights(mines, np.ones_like(mines, dtype=bool))
    start = start_chain(counts, seed=2, burn_in=3)
    whole = run_chain(start, counts, 60, weights)
    half = run_chain(start, counts, 30, weights)
    half.save(tmp_path / "chain.npz")
    resumed = run_chain(ChainState.load(tmp_path / "chain.npz"), counts, 30, weights)
    assert whole.phase == "sample" and whole.kept_sweeps > 0  # the run crosses annealing and burn-in
    for name in ("board", "marginal_sum", "marginal_count", "mine_trace", "trace", "violations"):
        assert np.array_equal(getattr(whole, name), getattr(resumed, name)), name
    assert (whole.rng_state, whole.weight, whole.anneal_sweeps, whole.sample_sweeps) == (
        resumed.rng_state,
        resumed.weight,
        resumed.anneal_sweeps,
        resumed.sample_sweeps,
    )


def test_trace_weights_touch_only_the_trace() -> None:
    mines, counts = small_board(8, 10, 10)
    start = start_chain(counts, seed=3, burn_in=2)
    plain = run_chain(start, counts, 60)
    traced = run_chain(start, counts, 60, label_trace_weights(mines, np.ones_like(mines, dtype=bool)))
    assert np.array_equal(plain.marginal_sum, traced.marginal_sum) and np.array_equal(plain.board, traced.board)
    assert (plain.trace == 0).all() and traced.trace.mean() > 0  # mines get higher conditionals than non-mines
    assert np.array_equal(traced.mine_trace, traced.mine_trace.round())


def test_chains_are_tied_to_their_board_and_combined_with_equal_weight() -> None:
    _, counts = small_board(9, 8, 8)
    state = start_chain(counts, seed=4)
    with pytest.raises(ValueError, match="different count grid"):
        run_chain(state, np.where(counts == 0, -1, counts), 1)
    with pytest.raises(ValueError, match="no kept sweeps"):
        state.marginals()
    a = run_chain(start_chain(counts, seed=4, burn_in=1), counts, 80)
    b = run_chain(start_chain(counts, seed=5, burn_in=1), counts, 120)
    assert np.allclose(combine_chains([a, b]), (a.marginals() + b.marginals()) / 2)

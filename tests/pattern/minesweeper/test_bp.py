"""Minesweeper belief propagation: exact on trees, clamping, damping, and what the inference may read."""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

from graphaudit.pattern.minesweeper import bp as ms_bp
from graphaudit.pattern.minesweeper import strip as ms_strip
from graphaudit.pattern.minesweeper.bp import belief_propagation, factor_graph, neighbour_mines


def enumerate_marginals(counts: np.ndarray, clamp: np.ndarray | None = None, prior: float = 0.2) -> np.ndarray:
    """P(mine) per cell by summing over every board that meets the counts (and the clamp)."""
    rows, cols = counts.shape
    boards = np.array(list(itertools.product((0, 1), repeat=rows * cols)), dtype=np.int64).reshape(-1, rows, cols)
    near = np.array([neighbour_mines(b) for b in boards])
    ok = np.where(counts == 5, near >= 5, near == counts) | (counts == -1)
    keep = ok.reshape(len(boards), -1).all(axis=1)
    if clamp is not None:
        keep &= ((clamp == -1) | (boards == clamp)).reshape(len(boards), -1).all(axis=1)
    ones = boards.reshape(len(boards), -1).sum(axis=1)
    weight = keep * prior**ones * (1 - prior) ** (rows * cols - ones)
    return np.tensordot(weight, boards, axes=1) / weight.sum()


# A 1 x 7 line: counts at columns 1, 3, 5 give factors {0,2}, {2,4}, {4,6}, a chain (a tree factor graph);
# its two solutions are mines {0, 4} or {2, 6}.
LINE = np.array([[-1, 1, -1, 1, -1, 1, -1]], dtype=np.int8)


@pytest.mark.parametrize("damping", [0.0, 0.9])
def test_bp_is_exact_on_a_tree(damping: float) -> None:
    result = belief_propagation(LINE, damping=damping)
    assert np.abs(result.marginals - enumerate_marginals(LINE)).max() < 1e-12
    assert result.sweeps == 400 and result.contradictions == 0 and result.last_change < 1e-12


@pytest.mark.parametrize("count", [2, 5])
def test_bp_is_exact_for_one_factor_including_a_capped_count(count: int) -> None:
    counts = np.full((3, 3), -1, dtype=np.int8)
    counts[1, 1] = count  # 5 means "five or more" of the 8 neighbours
    result = belief_propagation(counts)
    assert np.abs(result.marginals - enumerate_marginals(counts)).max() < 1e-12
    assert result.marginals[1, 1] == pytest.approx(0.2)  # a cell's own count does not involve it


def test_clamped_cells_are_fixed_and_condition_the_rest() -> None:
    clamp = np.full(LINE.shape, -1, dtype=np.int8)
    clamp[0, 2] = 1
    result = belief_propagation(LINE, clamp=clamp)
    assert result.marginals[0, 2] == 1.0
    assert np.abs(result.marginals - enumerate_marginals(LINE, clamp)).max() < 1e-12
    assert max(result.marginals[0, 0], result.marginals[0, 4]) < 1e-12  # count 1 is used up by cell 2


def test_damping_makes_an_oscillating_tiny_case_converge() -> None:
    counts = np.array([[-1, 2, -1, 2], [3, 4, -1, -1], [-1, 2, 3, 2]], dtype=np.int8)
    assert belief_propagation(counts, damping=0.0).last_change > 0.1
    damped = belief_propagation(counts, damping=0.9)
    assert damped.last_change < 1e-10 and damped.contradictions == 0


def test_bp_is_deterministic_and_checks_its_inputs() -> None:
    counts = np.array([[1, -1, 0], [-1, 2, -1], [0, -1, 1]], dtype=np.int8)
    first, second = belief_propagation(counts, sweeps=30), belief_propagation(counts, sweeps=30)
    assert np.array_equal(first.marginals, second.marginals) and first.last_change == second.last_change
    with pytest.raises(ValueError, match=r"-1 \(unknown\) or 0..5"):
        belief_propagation(np.array([[6, -1]]))
    with pytest.raises(ValueError, match="clamp must be"):
        belief_propagation(counts, clamp=np.zeros((2, 2)))


def test_factor_graph_lists_each_revealed_cells_neighbours() -> None:
    counts = np.array([[0, -1, -1], [-1, -1, -1], [-1, -1, 3]], dtype=np.int8)
    f_count, f_ptr, f_var, v_ptr, v_edge = factor_graph(counts)
    assert f_count.tolist() == [0, 3]
    assert f_var[f_ptr[0] : f_ptr[1]].tolist() == [1, 3, 4] and f_var[f_ptr[1] : f_ptr[2]].tolist() == [4, 5, 7]
    assert f_var[v_edge[v_ptr[4] : v_ptr[5]]].tolist() == [4, 4]  # the centre is in both factors


def test_inference_reads_only_counts_and_clamps() -> None:
    """The paper's point: inference never sees labels or the board's construction recipe."""
    assert list(inspect.signature(belief_propagation).parameters) == ["counts", "clamp", "sweeps", "damping", "prior"]
    for module in (ms_bp, ms_strip):
        source = inspect.getsource(module)
        assert "minesweeper import" not in source and "permutation" not in source

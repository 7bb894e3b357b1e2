"""Benchmark: one Minesweeper strip update (FFBS over pairs of strip rows) in numba against plain numpy.

The numpy reference is what one would write first: per row, a Python loop over the touched revealed
counts builds the transition table by broadcasting over (a, b, c) = (row t-1, row t, row t+1); forward
filtering, the backward pass and backward sampling loop over rows with vectorised state arithmetic. It is
the same math as :func:`graphaudit.pattern.minesweeper.strip.strip_updates` and consumes the same uniforms: the
sampled strips must be identical (sampling reads only the forward pass, whose sums run in the same order),
and the marginals agree to rounding (the backward sums are ordered differently), which the benchmark checks.
Both sides apply the same sequence of strips one after the other, as a sweep does.
"""

from __future__ import annotations

import logging

import numpy as np

from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.pattern.minesweeper.board import Board
from graphaudit.pattern.minesweeper.bp import COUNT_CAP, MINE_RATE, UNKNOWN
from graphaudit.pattern.minesweeper.strip import SOFT_FLOOR, STRIP_WIDTH, StripDraw, strip_updates

__all__ = [
    "bench_rows",
    "bench_strip_sampler",
    "reference_row_potential",
    "reference_strip_update",
    "reference_strip_updates",
]

log = logging.getLogger(__name__)

REPEATS = 3
MARGINAL_TOLERANCE = 1e-12
SOFT_WEIGHT = 50.0  # the annealing cap: the weight at which most soft sweeps run


def _bits(width: int) -> np.ndarray:
    """(2^w, w) 0/1 matrix: bit j of each row value."""
    return (np.arange(1 << width)[:, None] >> np.arange(width)[None, :]) & 1


def reference_row_potential(
    board: np.ndarray, counts: np.ndarray, c0: int, width: int, t: int, weight: float | None
) -> np.ndarray:
    """(S, S, S) potential of strip rows (t-1, t, t+1) for the revealed counts of row t touching the strip."""
    height, n_cols = board.shape
    bits = _bits(width)
    size = 1 << width
    distance = np.zeros((size, size, size), dtype=np.int64)
    for c in range(max(0, c0 - 1), min(n_cols, c0 + width + 1)):
        if counts[t, c] == UNKNOWN:
            continue
        outside = sum(
            int(board[r, cc])
            for r in (t - 1, t, t + 1)
            for cc in (c - 1, c, c + 1)
            if 0 <= r < height and 0 <= cc < n_cols and (r, cc) != (t, c) and not c0 <= cc < c0 + width
        )
        near = np.abs(np.arange(width) + c0 - c) <= 1
        up = bits[:, near].sum(axis=1) if t - 1 >= 0 else np.zeros(size, dtype=np.int64)
        mid = bits[:, near & (np.arange(width) + c0 != c)].sum(axis=1)
        down = bits[:, near].sum(axis=1) if t + 1 < height else np.zeros(size, dtype=np.int64)
        total = up[:, None, None] + mid[None, :, None] + down[None, None, :] + outside
        if counts[t, c] == COUNT_CAP:
            distance += np.maximum(COUNT_CAP - total, 0)
        else:
            distance += np.abs(total - counts[t, c])
    if weight is None:
        return (distance == 0).astype(np.float64)
    return np.exp(-np.minimum(weight * (distance - distance.min()), SOFT_FLOOR))


def _draw(weights: np.ndarray, uniform: float) -> int:
    cumulative = np.cumsum(weights)
    return min(int(np.searchsorted(cumulative, uniform * cumulative[-1], side="right")), len(weights) - 1)


def reference_strip_update(
    board: np.ndarray,
    counts: np.ndarray,
    c0: int,
    width: int,
    uniforms: np.ndarray,
    weight: float | None = None,
    prior: float = MINE_RATE,
) -> StripDraw:
    """One strip update in numpy, row by row: the new board (a copy) and the strip's marginals (1, H, width)."""
    board, counts = np.asarray(board, dtype=np.uint8), np.asarray(counts)
    height, size = board.shape[0], 1 << width
    ones = _bits(width).sum(axis=1)
    prior_row = prior**ones * (1.0 - prior) ** (width - ones)
    phi = np.stack([reference_row_potential(board, counts, c0, width, t, weight) for t in range(height)])
    alpha = np.empty((height - 1, size, size))
    alpha[0] = prior_row[:, None] * prior_row[None, :] * phi[0, 0]
    alpha[0] /= alpha[0].max()
    for t in range(1, height - 1):
        alpha[t] = (alpha[t - 1][:, :, None] * phi[t]).sum(axis=0) * prior_row[None, :]
        alpha[t] /= alpha[t].max()
    beta = np.empty_like(alpha)
    beta[-1] = phi[height - 1, :, :, 0]
    beta[-1] /= beta[-1].max()
    for t in range(height - 3, -1, -1):
        beta[t] = (phi[t + 1] * (prior_row[None, :] * beta[t + 1])[None, :, :]).sum(axis=2)
        beta[t] /= beta[t].max()
    gamma = alpha * beta
    gamma /= gamma.sum(axis=(1, 2), keepdims=True)
    bits = _bits(width)
    marginals = np.empty((height, width))
    marginals[:-1] = gamma.sum(axis=2) @ bits
    marginals[-1] = gamma[-1].sum(axis=0) @ bits
    rows = np.empty(height, dtype=np.int64)
    pick = _draw((alpha[-1] * phi[height - 1, :, :, 0]).ravel(), uniforms[0])
    rows[-2], rows[-1] = divmod(pick, size)
    for t in range(height - 3, -1, -1):
        rows[t] = _draw(alpha[t][:, rows[t + 1]] * phi[t + 1][:, rows[t + 1], rows[t + 2]], uniforms[height - 2 - t])
    new = board.copy()
    new[:, c0 : c0 + width] = bits[rows]
    return StripDraw(board=new, marginals=marginals[None])


def reference_strip_updates(
    board: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    width: int,
    uniforms: np.ndarray,
    weight: float | None = None,
    prior: float = MINE_RATE,
) -> StripDraw:
    """:func:`graphaudit.pattern.minesweeper.strip.strip_updates` in numpy: the strips one after the other."""
    draws = []
    for c0, row in zip(np.atleast_1d(starts), np.atleast_2d(uniforms)):
        draws.append(reference_strip_update(board, counts, int(c0), width, row, weight, prior))
        board = draws[-1].board
    return StripDraw(board=board, marginals=np.concatenate([d.marginals for d in draws]))


def _states(board: Board, rng: np.random.Generator) -> list[tuple[str, np.ndarray, float | None]]:
    """Two states to update from: the board's own mine layout (valid: hard updates, as in sampling) and a
    prior draw (soft updates at the annealing cap)."""
    side = board.side
    prior_draw = (rng.random((side, side)) < MINE_RATE).astype(np.uint8)
    return [
        ("hard, valid board", board.labels.reshape(side, side).astype(np.uint8), None),
        (f"soft (weight {SOFT_WEIGHT:g}), prior draw", prior_draw, SOFT_WEIGHT),
    ]


def bench_rows(board: Board, strips: int, seed: int) -> list[dict[str, object]]:
    """Time ``strips`` successive strip updates (width 4, random positions) per state, numba against numpy, on
    the same boards and uniforms; raise if the sampled boards differ or a marginal differs by more than 1e-12."""
    rng = np.random.default_rng(seed)
    counts = board.count_grid()
    rows = []
    for name, state, weight in _states(board, rng):
        starts = rng.integers(0, board.side - STRIP_WIDTH + 1, size=strips)
        uniforms = rng.random((strips, board.side - 1))
        strip_updates(state, counts, starts[:1], STRIP_WIDTH, uniforms[:1], weight)  # compile outside the timing
        results: dict[str, StripDraw] = {}
        ours_s = best_time(
            lambda: results.update(ours=strip_updates(state, counts, starts, STRIP_WIDTH, uniforms, weight)), REPEATS
        )
        peer_s = best_time(
            lambda: results.update(peer=reference_strip_updates(state, counts, starts, STRIP_WIDTH, uniforms, weight)),
            1,
        )
        ours, peer = results["ours"], results["peer"]
        if not np.array_equal(ours.board, peer.board):
            raise RuntimeError(f"{name}: numba and numpy strip updates drew different boards from the same uniforms")
        if np.abs(ours.marginals - peer.marginals).max() > MARGINAL_TOLERANCE:
            raise RuntimeError(f"{name}: numba and numpy strip marginals differ by more than {MARGINAL_TOLERANCE}")
        log.info("%s: %d strips, numba %.3fs, numpy %.2fs, ratio %.1f", name, strips, ours_s, peer_s, peer_s / ours_s)
        rows.append(
            {
                "benchmark": "strip_sampler",
                "input": f"{strips} strip updates ({name}), {board.source} board",
                "ours_s": ours_s,
                "peer": "numpy row-by-row reference",
                "peer_s": peer_s,
            }
        )
    return rows


def bench_strip_sampler(ctx: RuleContext) -> None:
    """Rule entry: ``ctx.params["strips"]`` strip updates on the board ``ctx.input["board"]``; writes
    ``ctx.output["table"]``."""
    board = Board.load(ctx.input["board"])
    rows = bench_rows(board, int(ctx.params["strips"]), stable_seed("bench", "strip_sampler"))
    write_bench(ctx.output["table"], rows)

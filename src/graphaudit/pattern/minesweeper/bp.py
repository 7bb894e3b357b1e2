"""Minesweeper belief propagation (spec 4.7): per-cell mine marginals from the revealed counts alone.

Inputs are a grid of revealed counts (-1 unknown, 0..4, 5 = "five or more") and, optionally, a clamp grid
holding fixed labels (-1 = free, 0/1 = fixed; the labelled variant fixes one mask's training cells). The
functions take nothing else, so they cannot read labels or the board's construction recipe.

Model. One binary variable per cell with independent prior P(mine) = :data:`MINE_RATE`; one factor per
revealed cell over its <= 8 neighbours (not the cell itself), the indicator that their sum equals the count,
or is >= 5 for a capped count.

Choices where the paper is silent (pitfall 22):

- **Schedule: parallel (flooding).** Each sweep computes every variable->factor message from the previous
  sweep's factor->variable messages, then every factor->variable message, then the beliefs. The result does
  not depend on any visiting order, and reruns are bit-identical.
- **Damping 0.9 on the old message**, applied to factor->variable messages only, in the probability domain:
  m <- 0.9 m_old + 0.1 m_new on the normalised message (libDAI's convention: damping = weight of the old
  message). Variable->factor messages are recomputed exactly from the damped messages.
- **Last change** = max over cells of |b_t - b_{t-1}| of the mine beliefs in the final sweep.
- Factor->variable messages use dynamic programming over the count distribution of the other neighbours
  (prefix and suffix count distributions, so each message costs O(9) after O(9 k) per factor).
- A factor whose other neighbours make both values impossible (only possible with contradictory clamps or
  counts) keeps its old message and is counted in ``contradictions``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

__all__ = [
    "COUNT_CAP",
    "MINE_RATE",
    "UNKNOWN",
    "BPResult",
    "as_clamp_grid",
    "as_count_grid",
    "belief_propagation",
    "factor_graph",
    "neighbour_mines",
]

MINE_RATE = 0.2
COUNT_CAP = 5  # a revealed 5 means "five or more"
UNKNOWN = -1
DAMPING = 0.9
SWEEPS = 400
_MAX_NEIGHBOURS = 8


@dataclass(frozen=True, eq=False)
class BPResult:
    """``marginals`` (rows, cols) P(mine) per cell; ``sweeps`` run; ``last_change`` max |Δ belief| in the last
    sweep; ``contradictions`` messages left unchanged because both values were impossible; ``seconds``."""

    marginals: np.ndarray
    sweeps: int
    last_change: float
    contradictions: int
    seconds: float


# ---- input checks (shared with the strip sampler) -------------------------------------------------------
def as_count_grid(counts: np.ndarray) -> np.ndarray:
    """The revealed counts as a C-contiguous int8 2-D grid after checking values lie in -1..5."""
    counts = np.asarray(counts)
    if counts.ndim != 2 or min(counts.shape) < 1:
        raise ValueError(f"counts must be a 2-D grid (rows, cols), got shape {counts.shape}")
    if counts.size and (counts.min() < UNKNOWN or counts.max() > COUNT_CAP):
        raise ValueError(f"counts must be -1 (unknown) or 0..{COUNT_CAP}, got {counts.min()}..{counts.max()}")
    return np.ascontiguousarray(counts, dtype=np.int8)


def as_clamp_grid(clamp: np.ndarray | None, shape: tuple[int, int]) -> np.ndarray:
    """A clamp grid (-1 free, 0/1 fixed) of ``shape`` as int8; ``None`` means nothing is clamped."""
    if clamp is None:
        return np.full(shape, -1, dtype=np.int8)
    clamp = np.asarray(clamp)
    if clamp.shape != shape or not np.isin(clamp, (-1, 0, 1)).all():
        raise ValueError(f"clamp must be a {shape} grid of -1 (free), 0 or 1, got shape {clamp.shape}")
    return np.ascontiguousarray(clamp, dtype=np.int8)


def neighbour_mines(mines: np.ndarray) -> np.ndarray:
    """Mined neighbours (8-neighbourhood, the cell itself excluded) of every cell of a 2-D 0/1 grid (int64)."""
    mines = np.asarray(mines, dtype=np.int64)
    padded = np.pad(mines, 1)
    rows, cols = mines.shape
    total = np.zeros((rows, cols), dtype=np.int64)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                total += padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    return total


# ---- factor graph ---------------------------------------------------------------------------------------
def factor_graph(counts: np.ndarray) -> tuple[np.ndarray, ...]:
    """CSR factor graph of a count grid: ``(f_count, f_ptr, f_var, v_ptr, v_edge)``.

    Factor f (one per revealed cell, in cell order) has count ``f_count[f]`` and edges
    ``f_ptr[f]:f_ptr[f+1]`` whose variables (flat cell indices) are ``f_var``; variable v's edges are
    ``v_edge[v_ptr[v]:v_ptr[v+1]]`` (indices into ``f_var``).
    """
    counts = as_count_grid(counts)
    rows, cols = counts.shape
    f_cells = np.flatnonzero(counts.ravel() != UNKNOWN)
    r, c = np.divmod(f_cells, cols)
    nbr_r = r[:, None] + np.array([-1, -1, -1, 0, 0, 1, 1, 1])[None, :]
    nbr_c = c[:, None] + np.array([-1, 0, 1, -1, 1, -1, 0, 1])[None, :]
    inside = (nbr_r >= 0) & (nbr_r < rows) & (nbr_c >= 0) & (nbr_c < cols)
    f_ptr = np.zeros(len(f_cells) + 1, dtype=np.int64)
    np.cumsum(inside.sum(axis=1), out=f_ptr[1:])
    f_var = (nbr_r * cols + nbr_c)[inside].astype(np.int64)
    v_edge = np.argsort(f_var, kind="stable").astype(np.int64)
    v_ptr = np.zeros(rows * cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(f_var, minlength=rows * cols), out=v_ptr[1:])
    return counts.ravel()[f_cells].astype(np.int64), f_ptr, f_var, v_ptr, v_edge


# ---- kernels --------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _allowed(total: int, count: int, cap: int) -> bool:
    return total == count or (count == cap and total >= cap)


@numba.njit(cache=True)
def _variable_messages(v_ptr, v_edge, clamp, prior, m_fv, q_vf) -> int:
    """q_vf[e] = (P(x=0), P(x=1)) of the message from e's variable to e's factor, from its other factors.

    Both components are kept (here and in ``m_fv``) rather than one probability, so a message near 0 or 1
    keeps its small side exactly instead of rounding 1 - p to 0 (which would fake certainty)."""
    bad = 0
    for v in range(v_ptr.shape[0] - 1):
        for i in range(v_ptr[v], v_ptr[v + 1]):
            e = v_edge[i]
            if clamp[v] >= 0:
                q_vf[e, 0], q_vf[e, 1] = 1.0 - clamp[v], float(clamp[v])
                continue
            zero, one = 1.0 - prior, prior
            for j in range(v_ptr[v], v_ptr[v + 1]):
                if j != i:
                    zero *= m_fv[v_edge[j], 0]
                    one *= m_fv[v_edge[j], 1]
            if zero + one > 0.0:
                q_vf[e, 0], q_vf[e, 1] = zero / (zero + one), one / (zero + one)
            else:
                q_vf[e, 0], q_vf[e, 1] = 1.0 - prior, prior
                bad += 1
    return bad


@numba.njit(cache=True)
def _factor_messages(f_count, f_ptr, q_vf, damping, cap, m_fv, pre, suf) -> int:
    """Damped factor->variable messages by prefix/suffix count distributions (``pre``/``suf`` are (9, 9)
    work arrays: row j holds the distribution of the number of mines among edges before / from j)."""
    bad = 0
    for f in range(f_count.shape[0]):
        start, k, count = f_ptr[f], f_ptr[f + 1] - f_ptr[f], f_count[f]
        pre[:, :] = 0.0
        suf[:, :] = 0.0
        pre[0, 0] = 1.0
        for j in range(k):
            q0, q1 = q_vf[start + j, 0], q_vf[start + j, 1]
            pre[j + 1, 0] = pre[j, 0] * q0
            for s in range(1, j + 2):
                pre[j + 1, s] = pre[j, s] * q0 + pre[j, s - 1] * q1
        suf[k, 0] = 1.0
        for j in range(k - 1, -1, -1):
            q0, q1 = q_vf[start + j, 0], q_vf[start + j, 1]
            suf[j, 0] = suf[j + 1, 0] * q0
            for s in range(1, k - j + 1):
                suf[j, s] = suf[j + 1, s] * q0 + suf[j + 1, s - 1] * q1
        for j in range(k):
            zero, one = 0.0, 0.0
            for a in range(j + 1):  # a mines before j, b after j
                for b in range(k - j):
                    weight = pre[j, a] * suf[j + 1, b]
                    if _allowed(a + b, count, cap):
                        zero += weight
                    if _allowed(a + b + 1, count, cap):
                        one += weight
            if zero + one > 0.0:
                e = start + j
                m_fv[e, 0] = damping * m_fv[e, 0] + (1.0 - damping) * zero / (zero + one)
                m_fv[e, 1] = damping * m_fv[e, 1] + (1.0 - damping) * one / (zero + one)
            else:
                bad += 1
    return bad


@numba.njit(cache=True)
def _beliefs(v_ptr, v_edge, clamp, prior, m_fv, out) -> float:
    """Write P(mine) of every cell to ``out``; return the largest change."""
    change = 0.0
    for v in range(v_ptr.shape[0] - 1):
        if clamp[v] >= 0:
            value = float(clamp[v])
        else:
            zero, one = 1.0 - prior, prior
            for j in range(v_ptr[v], v_ptr[v + 1]):
                zero *= m_fv[v_edge[j], 0]
                one *= m_fv[v_edge[j], 1]
            value = one / (zero + one) if zero + one > 0.0 else prior
        change = max(change, abs(value - out[v]))
        out[v] = value
    return change


@numba.njit(cache=True)
def _run(f_count, f_ptr, v_ptr, v_edge, clamp, prior, damping, cap, sweeps, beliefs):
    m_fv = np.full((f_ptr[-1], 2), 0.5)
    q_vf = np.empty((f_ptr[-1], 2))
    pre = np.empty((_MAX_NEIGHBOURS + 1, _MAX_NEIGHBOURS + 1))
    suf = np.empty((_MAX_NEIGHBOURS + 1, _MAX_NEIGHBOURS + 1))
    change, bad = 0.0, 0
    for _ in range(sweeps):
        bad += _variable_messages(v_ptr, v_edge, clamp, prior, m_fv, q_vf)
        bad += _factor_messages(f_count, f_ptr, q_vf, damping, cap, m_fv, pre, suf)
        change = _beliefs(v_ptr, v_edge, clamp, prior, m_fv, beliefs)
    return change, bad


def belief_propagation(
    counts: np.ndarray,
    clamp: np.ndarray | None = None,
    sweeps: int = SWEEPS,
    damping: float = DAMPING,
    prior: float = MINE_RATE,
) -> BPResult:
    """Damped loopy BP for ``sweeps`` parallel sweeps (no early stop: the paper stops at its limit).

    ``counts``: (rows, cols) grid, -1 unknown, 0..4, 5 = >= 5. ``clamp``: optional grid of the same shape,
    -1 free, 0/1 fixed (e.g. one mask's training labels); clamped cells report their fixed value.
    """
    counts = as_count_grid(counts)
    clamp_flat = as_clamp_grid(clamp, counts.shape).ravel()
    if sweeps < 1 or not 0.0 <= damping < 1.0 or not 0.0 < prior < 1.0:
        raise ValueError(f"need sweeps >= 1, 0 <= damping < 1, 0 < prior < 1; got {sweeps}, {damping}, {prior}")
    f_count, f_ptr, _, v_ptr, v_edge = factor_graph(counts)
    beliefs = np.where(clamp_flat >= 0, clamp_flat, prior).astype(np.float64)
    start = time.perf_counter()
    change, bad = _run(
        f_count, f_ptr, v_ptr, v_edge, clamp_flat, float(prior), float(damping), COUNT_CAP, int(sweeps), beliefs
    )
    return BPResult(
        marginals=beliefs.reshape(counts.shape),
        sweeps=int(sweeps),
        last_change=float(change),
        contradictions=int(bad),
        seconds=time.perf_counter() - start,
    )

"""The Minesweeper strip sampler (spec 4.7, paper Appendix F): exact strip conditionals by FFBS.

Model: independent mines with prior :data:`~graphaudit.pattern.minesweeper.bp.MINE_RATE`, conditioned on every
revealed count (-1 unknown, 5 = five or more). The inputs are the count grid and, for the diagnostic trace only, a
weight grid (:func:`label_trace_weights`); the marginals never depend on the weights, and no function here
reads labels or the board's construction recipe.

**Strip update.** Columns ``c0 .. c0+w-1`` (w <= 4) are redrawn over the full height from their conditional
given every cell outside. Constraints: every revealed cell whose neighbourhood touches the strip (columns
``c0-1 .. c0+w``); the constraint centred on row t involves strip rows t-1, t, t+1, so along the rows the
conditional is a Markov chain whose state is a pair of consecutive strip rows (2^(2w) states, 2^w next-row
options). Forward filtering gives alpha, backward sampling (Carter & Kohn 1994) draws the strip with one
pre-drawn uniform per row (H - 1 in all), and a backward pass gives beta; alpha * beta is each strip cell's
exact conditional marginal (Rao-Blackwellised), which is what the chain averages.

*Hard* updates use indicator constraints. *Soft* updates (annealing) use exp(-lambda * D) with D the total
distance of the touched counts from the board's counts (|count - c|; for a capped 5 the distance to the set
>= 5). Each row's soft table is divided by its best transition (a constant, so the conditional is unchanged)
and floored at exp(-:data:`SOFT_FLOOR`) so the forward pass can never underflow; the floor touches only
transitions more than 600 nats worse than the row's best.

**Sweep.** Strips tile the board at a random offset o in 0..w-1: strip j covers columns
[o + (j-1)w, o + jw) clipped to the board, so the border strips are narrower (width o and (W - o) mod w;
empty ones are skipped), left to right; then the same on the transposed board (row strips), with its own
offset. Every cell is therefore updated exactly twice per sweep.

**Chain** (:class:`ChainState`, :func:`start_chain`, :func:`run_chain`). Start from a prior draw; anneal with
soft sweeps (weight 0.3, x1.06 after each sweep, capped at 50; after 60 sweeps at the cap it resets to 1)
until no count is violated (checked after every sweep); then hard sweeps, the first ``burn_in`` (200) are
discarded, and afterwards every sweep adds both of its strip conditionals per cell to ``marginal_sum``
(``marginal_count`` += 2) and appends the mine count and the trace to the per-sweep traces. The state holds the
board, the numpy bit-generator state, the annealing phase and all accumulators, so a chain saved after any
sweep and resumed continues bit-identically.

**Trace.** The paper leaves it undefined (pitfall 13). Here trace = sum(weights * m_sweep), m_sweep the mean of
the sweep's two strip conditionals per cell; with :func:`label_trace_weights` on test mask 0 it is the mean
conditional on that mask's mines minus that on its non-mines (labels enter the diagnostic only).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field, replace

import numba
import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.common.seeds import rng_for
from graphaudit.pattern.minesweeper.bp import COUNT_CAP, MINE_RATE, UNKNOWN, as_count_grid, neighbour_mines

__all__ = [
    "MAX_WIDTH",
    "SOFT_FLOOR",
    "STRIP_WIDTH",
    "Annealing",
    "ChainState",
    "StripDraw",
    "combine_chains",
    "enumerate_strip",
    "label_trace_weights",
    "run_chain",
    "self_test_full_width",
    "self_test_strips",
    "start_chain",
    "strip_bounds",
    "strip_updates",
    "sweep",
    "violated_counts",
]

STRIP_WIDTH = 4
MAX_WIDTH = 4
SOFT_FLOOR = 600.0
BURN_IN = 200
_MAX_CONSTRAINTS = MAX_WIDTH + 2
_MAX_DISTANCE = 8 * _MAX_CONSTRAINTS
_FAILED = 1  # kernel status: some row of the strip conditional had no admissible state


# ---- kernels --------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _popcount(x: int) -> int:
    bits = 0
    while x:
        bits += x & 1
        x >>= 1
    return bits


@numba.njit(cache=True)
def _row_constraints(board, counts, c0, w, t, parts, down, allowed) -> int:
    """Constraints centred on row ``t`` that touch the strip; returns how many (K).

    For constraint k: ``parts[k, i, v]`` = strip mines of row value v (bits = strip columns) inside its
    neighbourhood on row t-1 (i=0) and row t (i=1); ``down[k, s, v]`` = its distance from its count when rows
    t-1 and t hold s of its mines and row t+1 has value v; ``allowed[k, s]`` = bitmask of the v with distance 0.
    """
    height, width = board.shape
    k = 0
    for c in range(max(0, c0 - 1), min(width, c0 + w + 1)):
        count = counts[t, c]
        if count < 0:
            continue
        outside, m_up, m_mid, m_down = 0, 0, 0, 0
        for dr in range(-1, 2):
            r = t + dr
            if r < 0 or r >= height:
                continue
            for dc in range(-1, 2):
                cc = c + dc
                if (dr == 0 and dc == 0) or cc < 0 or cc >= width:
                    continue
                if c0 <= cc < c0 + w:
                    bit = 1 << (cc - c0)
                    if dr == -1:
                        m_up |= bit
                    elif dr == 0:
                        m_mid |= bit
                    else:
                        m_down |= bit
                else:
                    outside += board[r, cc]
        for v in range(1 << w):
            parts[k, 0, v] = _popcount(v & m_up)
            parts[k, 1, v] = _popcount(v & m_mid)
        for s in range(6):  # at most 3 mines above and 2 beside the centre
            allowed[k, s] = 0
            for v in range(1 << w):
                total = s + _popcount(v & m_down) + outside
                d = max(0, COUNT_CAP - total) if count == COUNT_CAP else abs(total - count)
                down[k, s, v] = d
                if d == 0:
                    allowed[k, s] |= 1 << v
        k += 1
    return k


@numba.njit(cache=True)
def _hard_table(n_cons, parts, allowed, size, phi_row) -> None:
    """phi_row[(a*S + b)*S + c] = 1 if rows (t-1, t, t+1) = (a, b, c) meet every constraint of row t, else 0
    (the AND of the constraints' bitmasks of admissible c)."""
    for a in range(size):
        for b in range(size):
            mask = (1 << size) - 1
            for k in range(n_cons):
                mask &= allowed[k, parts[k, 0, a] + parts[k, 1, b]]
            row = (a * size + b) * size
            for c in range(size):
                phi_row[row + c] = (mask >> c) & 1


@numba.njit(cache=True)
def _soft_distances(n_cons, parts, down, size, total) -> None:
    """total[(a*S + b)*S + c] = summed distance of the constraints of row t from their counts."""
    for a in range(size):
        for b in range(size):
            row = (a * size + b) * size
            for c in range(size):
                total[row + c] = 0
            for k in range(n_cons):
                s = parts[k, 0, a] + parts[k, 1, b]
                for c in range(size):
                    total[row + c] += down[k, s, c]


@numba.njit(cache=True)
def _soft_table(n_cons, parts, down, size, exp_table, total, phi_row) -> None:
    """phi_row = exp_table[D - min D] (``exp_table[d]`` = exp(-min(weight d, floor)))."""
    cells = size * size * size
    _soft_distances(n_cons, parts, down, size, total)
    best = total[0]
    for i in range(1, cells):
        best = min(best, total[i])
    for i in range(cells):
        phi_row[i] = exp_table[total[i] - best]


@numba.njit(cache=True)
def _draw(weights, uniform) -> int:
    """First index whose running sum exceeds ``uniform`` x total (numpy: searchsorted(cumsum, u*total, 'right'))."""
    running = 0.0
    cumulative = np.empty(weights.shape[0])
    for i in range(weights.shape[0]):
        running += weights[i]
        cumulative[i] = running
    target = uniform * running
    for i in range(weights.shape[0]):
        if cumulative[i] > target:
            return i
    return weights.shape[0] - 1


@numba.njit(cache=True)
def _scale_by_max(row) -> bool:
    top = 0.0
    for x in row:
        top = max(top, x)
    if top <= 0.0:
        return False
    for i in range(row.shape[0]):
        row[i] /= top
    return True


@numba.njit(cache=True)
def _tables(board, counts, c0, w, hard, weight, phi) -> None:
    """phi[t] for every centre row t (see :func:`_hard_table` / :func:`_soft_table`; 1 where no count touches)."""
    size = 1 << w
    parts = np.empty((_MAX_CONSTRAINTS, 2, size), dtype=np.int64)
    down = np.empty((_MAX_CONSTRAINTS, 6, size), dtype=np.int32)
    allowed = np.empty((_MAX_CONSTRAINTS, 6), dtype=np.int64)
    total = np.empty(size * size * size, dtype=np.int32)
    exp_table = np.empty(_MAX_DISTANCE + 1)
    for d in range(_MAX_DISTANCE + 1):
        exp_table[d] = math.exp(-min(weight * d, SOFT_FLOOR))
    for t in range(board.shape[0]):
        n_cons = _row_constraints(board, counts, c0, w, t, parts, down, allowed)
        if n_cons == 0:
            phi[t, : size * size * size] = 1.0
        elif hard:
            _hard_table(n_cons, parts, allowed, size, phi[t])
        else:
            _soft_table(n_cons, parts, down, size, exp_table, total, phi[t])


@numba.njit(cache=True)
def _forward(phi, prior_row, size, height, alpha) -> bool:
    """alpha[t, a*S + b] over strip rows (t, t+1), each row scaled by its maximum; False if a row is empty.

    Sums over a run in increasing a (zero terms skipped, which adds nothing), so numpy's reduction over the
    first axis gives the same bits; backward sampling reads only alpha and phi."""
    pairs = size * size
    for b in range(size):
        for c in range(size):
            alpha[0, b * size + c] = prior_row[b] * prior_row[c] * phi[0, b * size + c]
    if not _scale_by_max(alpha[0, :pairs]):
        return False
    acc = np.empty(size)
    for t in range(1, height - 1):
        for b in range(size):
            acc[:] = 0.0
            for a in range(size):
                x = alpha[t - 1, a * size + b]
                if x == 0.0:
                    continue
                row = (a * size + b) * size
                for c in range(size):
                    acc[c] += x * phi[t, row + c]
            for c in range(size):
                alpha[t, b * size + c] = acc[c] * prior_row[c]
        if not _scale_by_max(alpha[t, :pairs]):
            return False
    return True


@numba.njit(cache=True, fastmath=True)
def _backward(phi, prior_row, size, height, hard, alpha, beta) -> bool:
    """beta[t, a*S + b] = P(constraints of rows > t | strip rows t, t+1), each row scaled by its maximum.
    (fastmath: these sums feed only the marginals, where rounding order is immaterial.)"""
    pairs = size * size
    last = height - 2
    for i in range(pairs):
        beta[last, i] = phi[height - 1, i * size]
    if not _scale_by_max(beta[last, :pairs]):
        return False
    weighted = np.empty(size)
    for t in range(last - 1, -1, -1):
        for b in range(size):
            for c in range(size):
                weighted[c] = prior_row[c] * beta[t + 1, b * size + c]
            for a in range(size):
                s = 0.0
                if not hard or alpha[t, a * size + b] > 0.0:  # hard: beta is never needed where alpha is 0
                    row = (a * size + b) * size
                    for c in range(size):
                        s += phi[t + 1, row + c] * weighted[c]
                beta[t, a * size + b] = s
        if not _scale_by_max(beta[t, :pairs]):
            return False
    return True


@numba.njit(cache=True, fastmath=True)
def _marginals(alpha, beta, w, height, marg) -> bool:
    """marg[r, j] = P(strip cell (r, j) is a mine) from alpha * beta of pair state r (the last row from the
    second row of the last pair)."""
    size = 1 << w
    last = height - 2
    row_mass = np.empty(size)
    for t in range(height - 1):
        row_mass[:] = 0.0
        second = np.zeros(size)
        norm = 0.0
        for a in range(size):
            for b in range(size):
                g = alpha[t, a * size + b] * beta[t, a * size + b]
                row_mass[a] += g
                second[b] += g
                norm += g
        if norm <= 0.0:
            return False
        for j in range(w):
            marg[t, j] = 0.0
            if t == last:
                marg[t + 1, j] = 0.0
            for v in range(size):
                if (v >> j) & 1:
                    marg[t, j] += row_mass[v] / norm
                    if t == last:
                        marg[t + 1, j] += second[v] / norm
    return True


@numba.njit(cache=True)
def _sample(phi, alpha, size, height, uniforms, rows) -> None:
    """Backward sampling: the last pair of rows from alpha * phi of the last row, then each earlier row given
    the two below it, one uniform per draw."""
    last = height - 2
    pairs = size * size
    weights = np.empty(pairs)
    for i in range(pairs):
        weights[i] = alpha[last, i] * phi[height - 1, i * size]
    pick = _draw(weights, uniforms[0])
    rows[last], rows[last + 1] = pick // size, pick % size
    options = np.empty(size)
    for t in range(last - 1, -1, -1):
        b, c = rows[t + 1], rows[t + 2]
        for a in range(size):
            options[a] = alpha[t, a * size + b] * phi[t + 1, (a * size + b) * size + c]
        rows[t] = _draw(options, uniforms[last - t])


@numba.njit(cache=True)
def _strip_update(board, counts, c0, w, hard, weight, prior, uniforms, marg, phi, alpha, beta) -> int:
    """Redraw columns c0..c0+w-1 of ``board`` in place by FFBS; write each strip cell's conditional P(mine) to
    ``marg[:, :w]``. Returns 0, or ``_FAILED`` (board untouched) if the conditional is empty."""
    height = board.shape[0]
    size = 1 << w
    prior_row = np.empty(size)
    for v in range(size):
        ones = _popcount(v)
        prior_row[v] = prior**ones * (1.0 - prior) ** (w - ones)
    _tables(board, counts, c0, w, hard, weight, phi)
    if not _forward(phi, prior_row, size, height, alpha):
        return _FAILED
    if not _backward(phi, prior_row, size, height, hard, alpha, beta):
        return _FAILED
    if not _marginals(alpha, beta, w, height, marg):
        return _FAILED
    rows = np.empty(height, dtype=np.int64)
    _sample(phi, alpha, size, height, uniforms, rows)
    for t in range(height):
        for j in range(w):
            board[t, c0 + j] = (rows[t] >> j) & 1
    return 0


@numba.njit(cache=True)
def _strip_sequence(board, counts, starts, widths, hard, weight, prior, uniforms, marg_out) -> int:
    """Strip updates (columns ``starts[j] .. starts[j] + widths[j] - 1`` with ``uniforms[j]``) one after the
    other on ``board`` in place, sharing one set of work arrays; strip j's conditionals go to
    ``marg_out[j, :, :widths[j]]``. Returns 0, or j + 1 for the first strip whose conditional is empty."""
    height = board.shape[0]
    size = 1 << MAX_WIDTH
    phi = np.empty((height, size * size * size))
    alpha = np.empty((height, size * size))
    beta = np.empty((height, size * size))
    for j in range(starts.shape[0]):
        if _strip_update(
            board, counts, starts[j], widths[j], hard, weight, prior, uniforms[j], marg_out[j], phi, alpha, beta
        ):
            return j + 1
    return 0


# ---- strip updates and sweeps ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StripDraw:
    """Strip updates applied in order: the new ``board`` (a copy) and each strip's conditional P(mine) per
    cell, ``marginals`` (strips, H, width)."""

    board: np.ndarray
    marginals: np.ndarray


def _check_board(board: np.ndarray, counts: np.ndarray) -> np.ndarray:
    board = np.asarray(board)
    if board.shape != counts.shape or not np.isin(board, (0, 1)).all():
        raise ValueError(f"board must be a 0/1 grid of the counts' shape {counts.shape}, got {board.shape}")
    if board.shape[0] < 2:
        raise ValueError("strips need at least 2 rows")
    return np.ascontiguousarray(board, dtype=np.uint8)


def _weight_args(weight: float | None) -> tuple[bool, float]:
    """(hard, weight): ``None`` = hard constraints, a positive number = soft penalty weight."""
    if weight is None:
        return True, 0.0
    if not weight > 0:
        raise ValueError(f"soft penalty weight must be positive, got {weight}")
    return False, float(weight)


def _run_strips(
    board: np.ndarray,
    counts: np.ndarray,
    bounds: list[tuple[int, int]],
    uniforms: np.ndarray,
    weight: float | None,
    prior: float,
    where: str,
) -> np.ndarray:
    """Apply the strips ``bounds`` (column ranges) to ``board`` in place; returns (strips, H, MAX_WIDTH)."""
    hard, weight_value = _weight_args(weight)
    starts = np.array([lo for lo, _ in bounds], dtype=np.int64)
    widths = np.array([hi - lo for lo, hi in bounds], dtype=np.int64)
    marginals = np.zeros((len(bounds), board.shape[0], MAX_WIDTH))
    failed = _strip_sequence(
        board,
        counts,
        starts,
        widths,
        hard,
        weight_value,
        float(prior),
        np.ascontiguousarray(uniforms, dtype=np.float64),
        marginals,
    )
    if failed:
        lo, hi = bounds[failed - 1]
        raise RuntimeError(
            f"the strip conditional of {where} {lo}..{hi - 1} is empty: the board outside it violates "
            "a revealed count that touches it; hard updates need a valid board, so anneal first"
        )
    return marginals


def strip_updates(
    board: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    width: int,
    uniforms: np.ndarray,
    weight: float | None = None,
    prior: float = MINE_RATE,
) -> StripDraw:
    """Redraw the strips of columns ``starts[j] .. starts[j]+width-1`` one after the other from their exact
    conditionals (``weight=None``: hard constraints; a number: soft penalty weight), strip j with
    ``uniforms[j]`` (H - 1 values in [0, 1)). ``board`` is not modified."""
    counts = as_count_grid(counts)
    new = _check_board(board, counts).copy()
    starts = np.atleast_1d(np.asarray(starts, dtype=np.int64))
    if not 1 <= width <= MAX_WIDTH or starts.min() < 0 or starts.max() > counts.shape[1] - width:
        raise ValueError(f"strips of width 1..{MAX_WIDTH} must lie on the board's {counts.shape[1]} columns")
    uniforms = np.asarray(uniforms, dtype=np.float64).reshape(len(starts), -1)
    if uniforms.shape[1] != counts.shape[0] - 1:
        raise ValueError(f"each strip update needs {counts.shape[0] - 1} uniforms, got {uniforms.shape[1]}")
    bounds = [(int(c0), int(c0) + width) for c0 in starts]
    marginals = _run_strips(new, counts, bounds, uniforms, weight, prior, "columns")
    return StripDraw(board=new, marginals=marginals[:, :, :width])


def strip_bounds(n_columns: int, offset: int, width: int = STRIP_WIDTH) -> list[tuple[int, int]]:
    """The (start, stop) column ranges of one tiling at ``offset`` (border strips clipped, empty ones skipped)."""
    starts = range(offset - width, n_columns, width)
    return [(max(s, 0), min(s + width, n_columns)) for s in starts if min(s + width, n_columns) > max(s, 0)]


def sweep(
    board: np.ndarray,
    counts: np.ndarray,
    rng: np.random.Generator,
    weight: float | None = None,
    width: int = STRIP_WIDTH,
    prior: float = MINE_RATE,
) -> tuple[np.ndarray, np.ndarray]:
    """One sweep (column strips, then row strips, each tiling at its own random offset) of a copy of ``board``.

    Returns ``(board, marginals)`` with marginals (2, H, W): each cell's strip conditional from the column
    pass and from the row pass. Draws from ``rng`` in a fixed order: column offset, one row of H - 1 uniforms
    per column strip, row offset, one row of W - 1 uniforms per row strip.
    """
    counts = as_count_grid(counts)
    new = _check_board(board, counts).copy()
    if min(counts.shape) < 2 or not 1 <= width <= MAX_WIDTH:
        raise ValueError(f"sweeps need at least 2 rows and columns and 1 <= width <= {MAX_WIDTH}")
    marginals = np.empty((2,) + counts.shape)
    for phase, grid, where in ((0, counts, "columns"), (1, np.ascontiguousarray(counts.T), "rows")):
        bounds = strip_bounds(grid.shape[1], int(rng.integers(width)), width)
        uniforms = rng.random((len(bounds), grid.shape[0] - 1))
        work = new if phase == 0 else np.ascontiguousarray(new.T)
        strips = _run_strips(work, grid, bounds, uniforms, weight, prior, where)
        out = np.empty(grid.shape)
        for (lo, hi), strip in zip(bounds, strips):
            out[:, lo:hi] = strip[:, : hi - lo]
        if phase == 1:
            new[...] = work.T
        marginals[phase] = out if phase == 0 else out.T
    return new, marginals


def violated_counts(board: np.ndarray, counts: np.ndarray) -> int:
    """How many revealed counts the board violates (a capped 5 is met by five or more mines)."""
    counts = as_count_grid(counts)
    near = neighbour_mines(board)
    revealed = counts != UNKNOWN
    met = (near == counts) | ((counts == COUNT_CAP) & (near >= COUNT_CAP))
    return int((revealed & ~met).sum())


# ---- chains ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Annealing:
    """The soft-constraint schedule: ``start`` weight, x ``growth`` after each sweep up to ``cap``; after
    ``cap_sweeps`` sweeps at the cap the weight resets to ``reset`` and rises again."""

    start: float = 0.3
    growth: float = 1.06
    cap: float = 50.0
    cap_sweeps: int = 60
    reset: float = 1.0

    def next(self, weight: float, at_cap: int) -> tuple[float, int]:
        """(weight, sweeps at cap) after a sweep run at ``weight``."""
        if weight < self.cap:
            return min(weight * self.growth, self.cap), 0
        at_cap += 1
        return (self.reset, 0) if at_cap >= self.cap_sweeps else (weight, at_cap)


@dataclass(frozen=True, eq=False)
class ChainState:
    """Everything a strip-sampler chain needs to continue bit-identically (see the module docstring).

    ``phase`` is ``"anneal"`` or ``"sample"``; ``weight``/``at_cap`` the annealing schedule's position;
    ``violations`` the violated counts after each annealing sweep; ``marginal_sum``/``marginal_count`` the
    post-burn-in accumulators; ``mine_trace``/``trace`` one value per kept sweep; ``counts_sha256`` ties the
    state to its board.
    """

    seed: int
    board: np.ndarray
    rng_state: dict
    phase: str
    weight: float
    at_cap: int
    anneal_sweeps: int
    sample_sweeps: int
    marginal_sum: np.ndarray
    marginal_count: np.ndarray
    mine_trace: np.ndarray
    trace: np.ndarray
    violations: np.ndarray
    counts_sha256: str
    width: int = STRIP_WIDTH
    prior: float = MINE_RATE
    burn_in: int = BURN_IN
    schedule: Annealing = field(default_factory=Annealing)

    @property
    def kept_sweeps(self) -> int:
        return max(self.sample_sweeps - self.burn_in, 0)

    def marginals(self) -> np.ndarray:
        """The chain's Rao-Blackwellised P(mine) per cell (mean of every kept strip conditional)."""
        if not self.marginal_count.all():
            raise ValueError(
                f"chain {self.seed} has no kept sweeps yet ({self.sample_sweeps} hard sweeps, "
                f"burn-in {self.burn_in}); run it longer"
            )
        return self.marginal_sum / self.marginal_count

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the state to one ``.npz`` (arrays, plus the scalars and RNG state as a JSON string)."""
        meta = {
            "seed": self.seed,
            "rng_state": self.rng_state,
            "phase": self.phase,
            "weight": self.weight,
            "at_cap": self.at_cap,
            "anneal_sweeps": self.anneal_sweeps,
            "sample_sweeps": self.sample_sweeps,
            "counts_sha256": self.counts_sha256,
            "width": self.width,
            "prior": self.prior,
            "burn_in": self.burn_in,
            "schedule": asdict(self.schedule),
        }
        write_npz(
            path,
            board=self.board,
            marginal_sum=self.marginal_sum,
            marginal_count=self.marginal_count,
            mine_trace=self.mine_trace,
            trace=self.trace,
            violations=self.violations,
            meta=np.array(json.dumps(meta, sort_keys=True)),
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ChainState:
        """Read a state written by :meth:`save`."""
        arrays = read_npz(path)
        meta = json.loads(str(arrays.pop("meta")))
        meta["schedule"] = Annealing(**meta["schedule"])
        return cls(**meta, **arrays)


def _digest(counts: np.ndarray) -> str:
    return hashlib.sha256(
        np.ascontiguousarray(counts, dtype=np.int8).tobytes() + str(counts.shape).encode()
    ).hexdigest()


def start_chain(
    counts: np.ndarray,
    seed: int,
    width: int = STRIP_WIDTH,
    prior: float = MINE_RATE,
    burn_in: int = BURN_IN,
    schedule: Annealing = Annealing(),
) -> ChainState:
    """A new chain: a board drawn from the prior with ``rng_for("pattern", "minesweeper", "strip_chain", seed)``."""
    counts = as_count_grid(counts)
    rng = rng_for("pattern", "minesweeper", "strip_chain", seed)
    board = (rng.random(counts.shape) < prior).astype(np.uint8)
    return ChainState(
        seed=int(seed),
        board=board,
        rng_state=rng.bit_generator.state,
        phase="anneal",
        weight=schedule.start,
        at_cap=0,
        anneal_sweeps=0,
        sample_sweeps=0,
        marginal_sum=np.zeros(counts.shape),
        marginal_count=np.zeros(counts.shape, dtype=np.int64),
        mine_trace=np.zeros(0),
        trace=np.zeros(0),
        violations=np.zeros(0, dtype=np.int64),
        counts_sha256=_digest(counts),
        width=width,
        prior=prior,
        burn_in=burn_in,
        schedule=schedule,
    )


def label_trace_weights(labels: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Trace weights for diagnostics only: +1/#mines on the mines among ``cells`` (a bool grid, e.g. test
    mask 0), -1/#non-mines on its non-mines, 0 elsewhere; the trace is then mean P on mines minus on others."""
    labels, cells = np.asarray(labels), np.asarray(cells, dtype=bool)
    mines, others = cells & (labels == 1), cells & (labels == 0)
    if not mines.any() or not others.any():
        raise ValueError("trace cells must hold both mines and non-mines")
    return mines / mines.sum() - others / others.sum()


def run_chain(
    state: ChainState,
    counts: np.ndarray,
    sweeps: int,
    trace_weights: np.ndarray | None = None,
    stop_when_valid: bool = False,
) -> ChainState:
    """Continue ``state`` by ``sweeps`` sweeps (annealing or sampling, whichever phase it is in); returns the new
    state (the input is not modified). ``trace_weights`` (H, W) define the trace (zeros if omitted).
    ``stop_when_valid`` ends the run at the sweep that first reaches a valid board."""
    counts = as_count_grid(counts)
    if _digest(counts) != state.counts_sha256:
        raise ValueError(f"chain {state.seed} was started on a different count grid; resume it on its own board")
    weights = np.zeros(counts.shape) if trace_weights is None else np.asarray(trace_weights, dtype=np.float64)
    if weights.shape != counts.shape:
        raise ValueError(f"trace weights must have the board's shape {counts.shape}, got {weights.shape}")
    rng = np.random.default_rng(0)
    rng.bit_generator.state = state.rng_state
    board, phase, weight, at_cap = state.board, state.phase, state.weight, state.at_cap
    anneal_sweeps, sample_sweeps = state.anneal_sweeps, state.sample_sweeps
    marginal_sum, marginal_count = state.marginal_sum.copy(), state.marginal_count.copy()
    mines, trace, violations = list(state.mine_trace), list(state.trace), list(state.violations)
    for _ in range(sweeps):
        if phase == "anneal":
            board, _ = sweep(board, counts, rng, weight, state.width, state.prior)
            anneal_sweeps += 1
            violations.append(violated_counts(board, counts))
            if violations[-1] == 0:
                phase = "sample"
                if stop_when_valid:
                    break
            else:
                weight, at_cap = state.schedule.next(weight, at_cap)
            continue
        board, marginals = sweep(board, counts, rng, None, state.width, state.prior)
        sample_sweeps += 1
        if sample_sweeps > state.burn_in:
            marginal_sum += marginals[0] + marginals[1]
            marginal_count += 2
            mines.append(float(board.sum()))
            trace.append(float(np.sum(weights * (marginals[0] + marginals[1]) / 2.0)))
    return replace(
        state,
        board=board,
        rng_state=rng.bit_generator.state,
        phase=phase,
        weight=weight,
        at_cap=at_cap,
        anneal_sweeps=anneal_sweeps,
        sample_sweeps=sample_sweeps,
        marginal_sum=marginal_sum,
        marginal_count=marginal_count,
        mine_trace=np.array(mines, dtype=float),
        trace=np.array(trace, dtype=float),
        violations=np.array(violations, dtype=np.int64),
    )


def combine_chains(states: list[ChainState]) -> np.ndarray:
    """P(mine) per cell averaged over chains, each chain weighted equally (pitfall 23: the paper's
    "averaged over updates and chains" could also weight chains by their sweeps; equal weights keep one long
    chain from dominating)."""
    if not states:
        raise ValueError("combine_chains needs at least one chain")
    return np.mean([state.marginals() for state in states], axis=0)


# ---- self-tests against brute-force enumeration ---------------------------------------------------------
def enumerate_strip(
    board: np.ndarray, counts: np.ndarray, c0: int, width: int, weight: float | None = None, prior: float = MINE_RATE
) -> np.ndarray:
    """Brute-force conditional P(mine) of the strip cells given the rest of ``board``: every 0/1 fill of the
    strip weighted by prior x product over *all* revealed counts of the indicator (``weight=None``) or
    exp(-weight x distance). Exponential in the strip size: for tests on small boards only (<= 22 cells)."""
    counts = as_count_grid(counts)
    board = _check_board(board, counts)
    height, cells = counts.shape[0], counts.shape[0] * width
    if cells > 22:
        raise ValueError(f"enumerating {cells} strip cells is too slow; use a smaller board")
    revealed = counts != UNKNOWN
    numerator, denominator = np.zeros(cells), 0.0
    for chunk in np.array_split(np.arange(2**cells), max(1, 2**cells // 65536)):
        fills = ((chunk[:, None] >> np.arange(cells)[None, :]) & 1).astype(np.uint8)
        boards = np.broadcast_to(board, (len(chunk),) + board.shape).copy()
        boards[:, :, c0 : c0 + width] = fills.reshape(len(chunk), height, width)
        padded = np.pad(boards.astype(np.int64), ((0, 0), (1, 1), (1, 1)))
        near = sum(
            padded[:, 1 + dr : 1 + dr + height, 1 + dc : 1 + dc + counts.shape[1]]
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if dr or dc
        )
        distance = np.where(counts == COUNT_CAP, np.maximum(COUNT_CAP - near, 0), np.abs(near - counts))
        distance = np.where(revealed, distance, 0).reshape(len(chunk), -1).sum(axis=1)
        potential = (distance == 0).astype(float) if weight is None else np.exp(-weight * distance)
        ones = fills.sum(axis=1)
        mass = potential * prior**ones * (1 - prior) ** (cells - ones)
        numerator += mass @ fills
        denominator += mass.sum()
    if denominator == 0:
        raise ValueError("no fill of the strip satisfies the counts; the board outside it is inconsistent")
    return (numerator / denominator).reshape(height, width)


def _test_board(rng: np.random.Generator, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A dense random board (mine rate 0.45, so capped 5s occur) with 60% of counts revealed."""
    mines = (rng.random((rows, cols)) < 0.45).astype(np.uint8)
    counts = np.minimum(neighbour_mines(mines), COUNT_CAP).astype(np.int8)
    counts[rng.random((rows, cols)) >= 0.6] = UNKNOWN
    return mines, counts


def self_test_full_width(seed: int = 0, rows: int = 5, cols: int = 4) -> float:
    """Max |error| of a strip as wide as a small board (exact posterior) against enumeration of all boards."""
    rng = np.random.default_rng(seed)
    mines, counts = _test_board(rng, rows, cols)
    draw = strip_updates(mines, counts, [0], cols, rng.random(rows - 1))
    return float(np.abs(draw.marginals[0] - enumerate_strip(mines, counts, 0, cols)).max())


def self_test_strips(seed: int = 0, rows: int = 4, cols: int = 7, soft_weight: float = 0.8) -> float:
    """Max |error| of single strips (interior, border, narrow) against enumeration of their conditionals given
    the outside: hard constraints on a valid board, and soft ones on a random (invalid) board."""
    rng = np.random.default_rng(seed)
    mines, counts = _test_board(rng, rows, cols)
    random_board = (rng.random((rows, cols)) < MINE_RATE).astype(np.uint8)
    errors = []
    for c0, width in ((0, 4), (2, 4), (3, 4), (0, 1), (5, 2)):
        for board, weight in ((mines, None), (random_board, soft_weight)):
            draw = strip_updates(board, counts, [c0], width, rng.random(rows - 1), weight)
            errors.append(np.abs(draw.marginals[0] - enumerate_strip(board, counts, c0, width, weight)).max())
    return float(max(errors))

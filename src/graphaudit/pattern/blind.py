"""The pattern-blind predictor: generator-aware Bayes for PATTERN without knowing the patterns (spec 4.4).

Model: six blocks, five host blocks and one pattern block (index :data:`PATTERN_BLOCK`), with edge
probabilities :data:`PATTERN_BLOCKS`; node features are ignored. Size prior: each block size iid
U{5..34} and nodes shuffled, so P(z) ∝ Π_k s_k! · 1[5 ≤ s_k ≤ 34 ∀k].

Pipeline (:func:`pattern_blind_posterior`): a mean-field fit with random restarts (:func:`mean_field`)
gives the start z = argmax of the memberships; a Gibbs chain (:func:`gibbs`) then estimates
P(v in the pattern block) as the share of retained sweeps in which v sits there (0/1 per sweep, not
Rao-Blackwellised; pitfall 20). :func:`threshold_predictions` at :func:`class_prior_threshold` is the
Eq. (1) decision that maximises expected class-weighted accuracy.

Randomness. Mean field draws its Dirichlet starts from the generator it is given. The Gibbs chain draws
one uniform per node-update up front (``(sweeps, N)``, from ``default_rng(seed)``) and the numba kernel
only consumes them, so any implementation given the same uniforms makes the same moves (the numpy
reference in :mod:`graphaudit.bench.pattern_gibbs` replays them exactly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from graphaudit.pattern.generator import PatternLaw

LAW = PatternLaw()  # the release's generator law (notebook v2), which the predictor assumes
PATTERN_BLOCK = LAW.blocks
SIZE_RANGE = LAW.host_size  # every block, the pattern's included, is treated as sized U{5..34}


def _pattern_blocks() -> np.ndarray:
    blocks = np.full((LAW.blocks + 1, LAW.blocks + 1), LAW.q)
    np.fill_diagonal(blocks, LAW.p)
    blocks[PATTERN_BLOCK, :] = blocks[:, PATTERN_BLOCK] = LAW.pattern_host
    blocks[PATTERN_BLOCK, PATTERN_BLOCK] = LAW.p  # the pattern's internal edges
    blocks.setflags(write=False)
    return blocks


PATTERN_BLOCKS = _pattern_blocks()


@dataclass(frozen=True, eq=False)
class MeanField:
    """A mean-field fit: ``resp`` (N, K) soft memberships of the kept restart, its ELBO ``objective``, its
    index ``restart`` and the final ELBO of every restart (``restart_objectives``)."""

    resp: np.ndarray
    objective: float
    restart: int
    restart_objectives: np.ndarray


@dataclass(frozen=True, eq=False)
class ChainTrace:
    """A raw Gibbs chain: the assignment after every sweep (``assignments``, (sweeps, N) int8) and the
    1-based sweep during which all block sizes first were in range (0: in range at the start; -1: never)."""

    assignments: np.ndarray
    entered_range: int


@dataclass(frozen=True, eq=False)
class GibbsResult:
    """``pattern_share``: per node, the share of retained sweeps spent in :data:`PATTERN_BLOCK`;
    ``entered_range`` as in :class:`ChainTrace`; ``start_in_range``: the start had every size in range."""

    pattern_share: np.ndarray
    entered_range: int
    start_in_range: bool


@dataclass(frozen=True, eq=False)
class BlindResult:
    """The pattern-blind posterior of one graph and the diagnostics of the run that made it."""

    posterior: np.ndarray
    start_in_range: bool
    entered_range: int
    mf_objective: float


# ---- input checks -----------------------------------------------------------------------------------
def as_adjacency(adj: np.ndarray) -> np.ndarray:
    """The graph as a C-contiguous uint8 matrix, after checking it is square, symmetric, 0/1, loop-free."""
    adj = np.asarray(adj)
    if adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
        raise ValueError(f"adjacency must be a square matrix, got shape {adj.shape}")
    if not np.isin(adj, (0, 1)).all():
        raise ValueError("adjacency entries must be 0/1")
    adj = np.ascontiguousarray(adj, dtype=np.uint8)
    if (adj != adj.T).any() or adj.diagonal().any():
        raise ValueError("adjacency must be symmetric with a zero diagonal")
    return adj


def log_blocks(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log B, log(1 - B))`` after checking B is a symmetric K x K matrix of probabilities in (0, 1)."""
    blocks = np.asarray(blocks, dtype=np.float64)
    if blocks.ndim != 2 or blocks.shape[0] != blocks.shape[1] or not np.allclose(blocks, blocks.T):
        raise ValueError(f"block matrix must be square and symmetric, got shape {blocks.shape}")
    if not ((blocks > 0) & (blocks < 1)).all():
        raise ValueError("block probabilities must lie strictly between 0 and 1")
    return np.log(blocks), np.log1p(-blocks)


def csr(adj: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists of a 0/1 adjacency matrix: ``(indptr (N+1,), neighbours)``, each list ascending."""
    rows, cols = np.nonzero(adj)
    indptr = np.zeros(adj.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=adj.shape[0]), out=indptr[1:])
    return indptr, cols.astype(np.int64)


def chain_state(adj: np.ndarray, z: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr, sizes)`` for assignment ``z``: nbr[v, l] counts v's neighbours in block l (int64, (N, K))."""
    onehot = np.eye(k, dtype=np.int64)[z]
    return adj.astype(np.int64) @ onehot, onehot.sum(axis=0)


def in_range(sizes: np.ndarray, size_range: tuple[int, int]) -> bool:
    """Whether every block size lies in ``size_range`` (inclusive)."""
    return bool(((sizes >= size_range[0]) & (sizes <= size_range[1])).all())


# ---- mean field -------------------------------------------------------------------------------------
def elbo(adj: np.ndarray, blocks: np.ndarray, resp: np.ndarray) -> float:
    """ELBO of soft memberships ``resp`` under the SBM with a uniform prior over blocks.

    E_q[log P(A | z)] over unordered pairs + E_q[log P(z)] (= -N log K, the uniform prior: the spec does not
    name the objective, pitfall 15, and the block-size prior is left to the Gibbs chain) + entropy of q.
    """
    adj = as_adjacency(adj)
    log_b, log_1mb = log_blocks(blocks)
    neighbours = adj.astype(np.float64) @ resp
    non_neighbours = resp.sum(axis=0)[None, :] - resp - neighbours
    pairs = 0.5 * (np.sum(resp * (neighbours @ log_b.T)) + np.sum(resp * (non_neighbours @ log_1mb.T)))
    entropy = -np.sum(resp * np.log(np.where(resp > 0, resp, 1.0)))
    return float(pairs - resp.shape[0] * math.log(resp.shape[1]) + entropy)


@numba.njit(cache=True)
def _coordinate_ascent(
    indptr: np.ndarray,
    neighbours: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    resp: np.ndarray,
    free: np.ndarray,
    iterations: int,
    tol: float,
) -> None:
    """Update ``resp`` in place, one node at a time (each update uses the others' current memberships, so
    the ELBO never decreases; all-nodes-at-once updates can oscillate); rows with ``free[v]`` False are
    held fixed. Stops when no entry moved by more than ``tol`` in an iteration."""
    n, k = resp.shape
    near = np.empty(k)
    logit = np.empty(k)
    for _ in range(iterations):
        column = resp.sum(axis=0)  # kept up to date below; recomputed so rounding cannot drift
        change = 0.0
        for v in range(n):
            if not free[v]:
                continue
            near[:] = 0.0
            for i in range(indptr[v], indptr[v + 1]):
                for b in range(k):
                    near[b] += resp[neighbours[i], b]
            for a in range(k):
                total = 0.0
                for b in range(k):
                    total += near[b] * log_b[a, b] + (column[b] - resp[v, b] - near[b]) * log_1mb[a, b]
                logit[a] = total
            top = logit.max()
            norm = 0.0
            for a in range(k):
                logit[a] = math.exp(logit[a] - top)
                norm += logit[a]
            for a in range(k):
                weight = logit[a] / norm
                change = max(change, abs(weight - resp[v, a]))
                column[a] += weight - resp[v, a]
                resp[v, a] = weight
        if change < tol:
            return


def _check_clamp(clamp: np.ndarray | None, n: int, k: int) -> np.ndarray:
    """``clamp`` as int64 (N,), -1 for free nodes; all free when None."""
    if clamp is None:
        return np.full(n, -1, dtype=np.int64)
    clamp = np.asarray(clamp)
    if clamp.shape != (n,) or clamp.min(initial=-1) < -1 or clamp.max(initial=-1) >= k:
        raise ValueError(f"clamp must hold {n} entries, each a block index in 0..{k - 1} or -1 (free)")
    return clamp.astype(np.int64)


def mean_field(
    adj: np.ndarray,
    blocks: np.ndarray,
    rng: np.random.Generator,
    restarts: int = 8,
    iterations: int = 200,
    tol: float = 1e-6,
    clamp: np.ndarray | None = None,
) -> MeanField:
    """Fit soft block memberships by coordinate ascent from ``restarts`` Dirichlet(1) starts; keep the
    restart with the highest :func:`elbo` (first on ties). Works for any symmetric K x K block matrix.

    ``clamp`` (N,) pins node v to block ``clamp[v]`` (a one-hot row that is never updated; -1 = free), e.g.
    CLUSTER's revealed nodes. Every restart still draws a Dirichlet row for every node, so a fit without
    clamped nodes consumes ``rng`` exactly as before.
    """
    adj = as_adjacency(adj)
    log_b, log_1mb = log_blocks(blocks)
    clamp = _check_clamp(clamp, adj.shape[0], len(log_b))
    fixed = np.flatnonzero(clamp >= 0)
    indptr, neighbours = csr(adj)
    fits, objectives = [], np.empty(restarts)
    for restart in range(restarts):
        resp = rng.dirichlet(np.ones(len(log_b)), size=adj.shape[0])
        resp[fixed] = np.eye(len(log_b))[clamp[fixed]]
        _coordinate_ascent(indptr, neighbours, log_b, log_1mb, resp, clamp < 0, iterations, tol)
        fits.append(resp)
        objectives[restart] = elbo(adj, blocks, resp)
    best = int(np.argmax(objectives))
    return MeanField(resp=fits[best], objective=float(objectives[best]), restart=best, restart_objectives=objectives)


# ---- Gibbs sampler ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _log_weights(
    v: int,
    z: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    size_prior: bool,
    lo: int,
    hi: int,
    out: np.ndarray,
) -> None:
    """Unnormalised log-probabilities of node ``v`` joining each block (``out``, -inf = forbidden).

    Likelihood: Σ_l nbr[v,l] log B[k,l] + (sizes[l] - [l = z_v] - nbr[v,l]) log(1 - B[k,l]). With the size
    prior add log(s_k + 1) (s_k: size of k without v) and apply the range rule. A node in a block of at
    most ``lo`` nodes stays (a block below range must not shrink; one at ``lo`` would leave the range);
    a node in a block above ``hi`` must leave; no block may grow beyond ``hi``. In range this is exactly
    the conditional of P(z) ∝ Π s_k! 1[in range]; out of range it only moves sizes towards the range.
    """
    k = sizes.shape[0]
    current = z[v]
    for a in range(k):
        total = 0.0
        for b in range(k):
            others = sizes[b] - nbr[v, b] - (1 if b == current else 0)
            total += nbr[v, b] * log_b[a, b] + others * log_1mb[a, b]
        out[a] = total
    if size_prior:
        _add_size_weights(v, z, sizes, 1, lo, hi, out)


@numba.njit(cache=True)
def _add_size_weights(v: int, z: np.ndarray, sizes: np.ndarray, shift: int, lo: int, hi: int, out: np.ndarray) -> None:
    """Add the size prior's log(s_k + shift) (s_k: size of k without ``v``) to ``out`` and apply the range
    rule of :func:`_log_weights` (shift 1: prior Π s_k!; shift 0: CLUSTER's Π (s_k - 1)!)."""
    k = sizes.shape[0]
    current = z[v]
    for a in range(k):
        out[a] += math.log(sizes[a] - (1 if a == current else 0) + shift)
    if sizes[current] <= lo:
        for a in range(k):
            if a != current:
                out[a] = -np.inf
        return
    if sizes[current] > hi:
        out[current] = -np.inf
    for a in range(k):
        if a != current and sizes[a] >= hi:
            out[a] = -np.inf


@numba.njit(cache=True)
def _draw(log_weights: np.ndarray, uniform: float, cumulative: np.ndarray) -> int:
    """Index k of the first cumulative weight above ``uniform`` x total (numpy: ``searchsorted(..., 'right')``)."""
    top = log_weights.max()
    total = 0.0
    for a in range(log_weights.shape[0]):
        total += math.exp(log_weights[a] - top)
        cumulative[a] = total
    target = uniform * total
    for a in range(log_weights.shape[0]):
        if cumulative[a] > target:
            return a
    return log_weights.shape[0] - 1  # unreachable: uniform < 1


@numba.njit(cache=True)
def _out_of_range(size: int, lo: int, hi: int) -> int:
    return 1 if size < lo or size > hi else 0


@numba.njit(cache=True)
def _blocks_out_of_range(sizes: np.ndarray, lo: int, hi: int) -> int:
    """How many blocks have a size outside ``lo..hi``."""
    count = 0
    for size in sizes:
        count += _out_of_range(size, lo, hi)
    return count


@numba.njit(cache=True)
def _move(
    v: int,
    new: int,
    indptr: np.ndarray,
    neighbours: np.ndarray,
    z: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    lo: int,
    hi: int,
) -> int:
    """Move node ``v`` into block ``new``, updating ``z``, the block sizes and its neighbours' block counts;
    returns the change in the number of blocks whose size is out of ``lo..hi``."""
    old = z[v]
    before = _out_of_range(sizes[old], lo, hi) + _out_of_range(sizes[new], lo, hi)
    sizes[old] -= 1
    sizes[new] += 1
    z[v] = new
    for i in range(indptr[v], indptr[v + 1]):
        nbr[neighbours[i], old] -= 1
        nbr[neighbours[i], new] += 1
    return _out_of_range(sizes[old], lo, hi) + _out_of_range(sizes[new], lo, hi) - before


@numba.njit(cache=True)
def _chain(
    indptr: np.ndarray,
    neighbours: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    z: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    uniforms: np.ndarray,
    size_prior: bool,
    lo: int,
    hi: int,
    trace: np.ndarray,
) -> int:
    """Run ``len(uniforms)`` sweeps (nodes 0..N-1 in order), updating ``z``/``nbr``/``sizes`` in place and
    writing the assignment after each sweep to ``trace``; returns the entry sweep (see :class:`ChainTrace`)."""
    k = sizes.shape[0]
    outside = _blocks_out_of_range(sizes, lo, hi)
    entered = 0 if outside == 0 else -1
    weights = np.empty(k)
    cumulative = np.empty(k)
    for sweep in range(uniforms.shape[0]):
        for v in range(z.shape[0]):
            _log_weights(v, z, nbr, sizes, log_b, log_1mb, size_prior, lo, hi, weights)
            new = _draw(weights, uniforms[sweep, v], cumulative)
            if new == z[v]:
                continue
            outside += _move(v, new, indptr, neighbours, z, nbr, sizes, lo, hi)
            if entered < 0 and outside == 0:
                entered = sweep + 1
        trace[sweep] = z
    return entered


def _check_start(start: np.ndarray, n: int, k: int) -> np.ndarray:
    start = np.asarray(start)
    if start.shape != (n,) or start.min(initial=0) < 0 or start.max(initial=0) >= k:
        raise ValueError(f"start must be {n} block indices in 0..{k - 1}")
    return start.astype(np.int64)


def _check_feasible(n: int, k: int, size_range: tuple[int, int]) -> None:
    if not k * size_range[0] <= n <= k * size_range[1]:
        raise ValueError(f"no assignment of {n} nodes to {k} blocks has every size in {size_range}")


def conditional_log_weights(
    adj: np.ndarray,
    blocks: np.ndarray,
    z: np.ndarray,
    v: int,
    size_prior: bool,
    size_range: tuple[int, int] = SIZE_RANGE,
) -> np.ndarray:
    """The Gibbs log-weights of node ``v`` over the K blocks given the rest of ``z`` (the kernel's own
    function, for tests and diagnostics)."""
    adj = as_adjacency(adj)
    log_b, log_1mb = log_blocks(blocks)
    z = _check_start(z, adj.shape[0], len(log_b))
    nbr, sizes = chain_state(adj, z, len(log_b))
    out = np.empty(len(log_b))
    _log_weights(v, z, nbr, sizes, log_b, log_1mb, size_prior, size_range[0], size_range[1], out)
    return out


def sample_chain(
    adj: np.ndarray,
    blocks: np.ndarray,
    start: np.ndarray,
    uniforms: np.ndarray,
    size_prior: bool,
    size_range: tuple[int, int] = SIZE_RANGE,
) -> ChainTrace:
    """Run one sweep per row of ``uniforms`` ((sweeps, N), in [0, 1)) from assignment ``start``."""
    adj = as_adjacency(adj)
    log_b, log_1mb = log_blocks(blocks)
    z = _check_start(start, adj.shape[0], len(log_b)).copy()
    if size_prior:
        _check_feasible(adj.shape[0], len(log_b), size_range)
    uniforms = np.ascontiguousarray(uniforms, dtype=np.float64)
    if uniforms.ndim != 2 or uniforms.shape[1] != adj.shape[0]:
        raise ValueError(f"uniforms must have shape (sweeps, {adj.shape[0]}), got {uniforms.shape}")
    nbr, sizes = chain_state(adj, z, len(log_b))
    indptr, neighbours = csr(adj)
    trace = np.empty(uniforms.shape, dtype=np.int8)
    entered = _chain(
        indptr, neighbours, log_b, log_1mb, z, nbr, sizes, uniforms, size_prior, size_range[0], size_range[1], trace
    )
    return ChainTrace(assignments=trace, entered_range=int(entered))


def gibbs(
    adj: np.ndarray,
    blocks: np.ndarray,
    start: np.ndarray,
    seed: int | np.random.SeedSequence,
    sweeps: int,
    burn_in: int,
    size_prior: bool,
    size_range: tuple[int, int] = SIZE_RANGE,
) -> GibbsResult:
    """Gibbs chain of ``sweeps`` sweeps; P(pattern) of each node over the sweeps after ``burn_in``.

    The weight of moving into block k is (s_k + 1) x likelihood with ``size_prior`` (plus the range rule of
    :func:`_log_weights`), the likelihood alone without it (pitfall 19: no size prior and no range rule,
    i.e. uniform over assignments). Retained sweeps are counted from ``burn_in`` whether or not the chain
    has entered the range; callers check ``entered_range <= burn_in``.
    """
    if not 0 <= burn_in < sweeps:
        raise ValueError(f"need 0 <= burn_in < sweeps, got burn_in={burn_in}, sweeps={sweeps}")
    if len(blocks) <= PATTERN_BLOCK:
        raise ValueError(f"the pattern block {PATTERN_BLOCK} needs at least {PATTERN_BLOCK + 1} blocks")
    n = np.asarray(adj).shape[0]
    uniforms = np.random.default_rng(seed).random((sweeps, n))
    trace = sample_chain(adj, blocks, start, uniforms, size_prior, size_range)
    start_sizes = np.bincount(np.asarray(start), minlength=len(blocks))
    return GibbsResult(
        pattern_share=(trace.assignments[burn_in:] == PATTERN_BLOCK).mean(axis=0),
        entered_range=trace.entered_range,
        start_in_range=in_range(start_sizes, size_range),
    )


def pattern_blind_posterior(
    adj: np.ndarray,
    seed: int,
    size_prior: bool = True,
    sweeps: int = 1000,
    burn_in: int = 200,
    restarts: int = 8,
    iterations: int = 200,
    start: np.ndarray | None = None,
) -> BlindResult:
    """P(node in the pattern block) for one graph: mean field (``restarts`` x ``iterations``), then Gibbs from
    the argmax assignment, or from ``start`` when given (the planted-start check). The no-size-prior variant
    of the spec is ``size_prior=False, sweeps=250, burn_in=50``.

    ``seed`` feeds a :class:`numpy.random.SeedSequence` whose two children drive the mean-field starts and
    the Gibbs uniforms, so the two stages never share a stream.
    """
    mf_seed, gibbs_seed = np.random.SeedSequence(seed).spawn(2)
    fit = mean_field(adj, PATTERN_BLOCKS, np.random.default_rng(mf_seed), restarts, iterations)
    begin = np.argmax(fit.resp, axis=1) if start is None else start
    chain = gibbs(adj, PATTERN_BLOCKS, begin, gibbs_seed, sweeps, burn_in, size_prior)
    return BlindResult(
        posterior=chain.pattern_share,
        start_in_range=chain.start_in_range,
        entered_range=chain.entered_range,
        mf_objective=fit.objective,
    )


def start_checks(
    adj: np.ndarray,
    labels: np.ndarray,
    seed: int,
    size_prior: bool,
    sweeps: int,
    burn_in: int,
    restarts: int = 8,
    iterations: int = 200,
    random_chains: int = 0,
) -> dict[str, np.ndarray]:
    """The Appendix B robustness chains of one graph: the usual chain (identical to
    :func:`pattern_blind_posterior` with the same seed), a chain started at the planted nodes with every other
    node in its most probable host block under the same fit (it reads the test labels: a check, not a
    predictor; same Gibbs random numbers as the usual chain), and ``random_chains`` chains from uniformly
    random assignments. Returns posteriors: ``usual`` (N,), ``planted`` (N,), ``random`` (chains, N)."""
    mf_seed, gibbs_seed, random_seed = np.random.SeedSequence(seed).spawn(3)  # the first two as the usual run
    fit = mean_field(adj, PATTERN_BLOCKS, np.random.default_rng(mf_seed), restarts, iterations)
    usual = np.argmax(fit.resp, axis=1)
    planted = np.argmax(fit.resp[:, :PATTERN_BLOCK], axis=1)
    planted[np.asarray(labels) == 1] = PATTERN_BLOCK
    rng = np.random.default_rng(random_seed)
    starts = [rng.integers(0, len(PATTERN_BLOCKS), size=len(adj)) for _ in range(random_chains)]
    chain_seeds = random_seed.spawn(random_chains)

    def share(start: np.ndarray, chain_seed: np.random.SeedSequence) -> np.ndarray:
        return gibbs(adj, PATTERN_BLOCKS, start, chain_seed, sweeps, burn_in, size_prior).pattern_share

    return {
        "usual": share(usual, gibbs_seed),
        "planted": share(planted, gibbs_seed),
        "random": np.array([share(z, s) for z, s in zip(starts, chain_seeds)]).reshape(random_chains, len(adj)),
    }


# ---- decision (Eq. 1) -------------------------------------------------------------------------------
def class_prior_threshold(n_pattern: int, n_total: int) -> float:
    """n₁ / (n₀ + n₁): the threshold of Eq. (1); use the training split's pattern share (pitfall 26)."""
    if not 0 <= n_pattern <= n_total or n_total == 0:
        raise ValueError(f"need 0 <= n_pattern <= n_total and n_total > 0, got {n_pattern}, {n_total}")
    return n_pattern / n_total


def threshold_predictions(posterior: np.ndarray, threshold: float) -> np.ndarray:
    """ŷ = 1 iff p > threshold (strict): with the class-prior threshold this maximises the expected
    class-weighted accuracy node by node (Eq. 1)."""
    return (np.asarray(posterior) > threshold).astype(np.uint8)

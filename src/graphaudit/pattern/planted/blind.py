"""The pattern-blind predictor: generator-aware Bayes for PATTERN without knowing the patterns (spec 4.4).

Model: six blocks, five host blocks and one pattern block (index :data:`PATTERN_BLOCK`), with edge
probabilities :data:`PATTERN_BLOCKS`; node features are ignored. Size prior: each block size iid
U{5..34} and nodes shuffled, so P(z) ∝ Π_k s_k! · 1[5 ≤ s_k ≤ 34 ∀k].

Pipeline (:func:`pattern_blind_posterior`): a mean-field fit with random restarts
(:func:`~graphaudit.pattern.blocks.mean_field`) gives the start z = argmax of the memberships; a Gibbs chain
(:func:`gibbs`) then estimates
P(v in the pattern block) as the share of retained sweeps in which v sits there (0/1 per sweep, not
Rao-Blackwellised; pitfall 20). :func:`threshold_predictions` at :func:`class_prior_threshold` is the
Eq. (1) decision that maximises expected class-weighted accuracy.

Randomness. Mean field draws its Dirichlet starts from the generator it is given. The Gibbs chain draws
one uniform per node-update up front (``(sweeps, N)``, from ``default_rng(seed)``) and the numba kernel
only consumes them, so any implementation given the same uniforms makes the same moves (the numpy
reference in :mod:`graphaudit.bench.pattern_gibbs` replays them exactly).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from graphaudit.pattern.blocks import (
    as_adjacency,
    blocks_out_of_range,
    chain_state,
    csr,
    draw_block,
    in_range,
    log_blocks,
    log_weights,
    mean_field,
    move_node,
)
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.generator import PatternLaw

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


# ---- PATTERN's Gibbs chain ------------------------------------------------------------------------
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
    outside = blocks_out_of_range(sizes, lo, hi)
    entered = 0 if outside == 0 else -1
    weights = np.empty(k)
    cumulative = np.empty(k)
    for sweep in range(uniforms.shape[0]):
        for v in range(z.shape[0]):
            log_weights(v, z, nbr, sizes, log_b, log_1mb, size_prior, lo, hi, weights)
            new = draw_block(weights, uniforms[sweep, v], cumulative)
            if new == z[v]:
                continue
            outside += move_node(v, new, indptr, neighbours, z, nbr, sizes, lo, hi)
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
    log_weights(v, z, nbr, sizes, log_b, log_1mb, size_prior, size_range[0], size_range[1], out)
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
    :func:`~graphaudit.pattern.blocks.log_weights`), the likelihood alone without it (pitfall 19: no size
    prior and no range rule, i.e. uniform over assignments). Retained sweeps are counted from ``burn_in``
    whether or not the chain has entered the range; callers check ``entered_range <= burn_in``.
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


def training_threshold(train: DenseGraphs) -> float:
    """:func:`class_prior_threshold` at the training split's pattern-node share."""
    return class_prior_threshold(int(train.y.sum()), len(train.y))


def threshold_predictions(posterior: np.ndarray, threshold: float) -> np.ndarray:
    """ŷ = 1 iff p > threshold (strict): with the class-prior threshold this maximises the expected
    class-weighted accuracy node by node (Eq. 1)."""
    return (np.asarray(posterior) > threshold).astype(np.uint8)

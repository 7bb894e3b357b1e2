"""The stochastic block model shared by the PATTERN and CLUSTER predictors: edge sampling, input checks,
mean-field fits and the numba pieces of a single-node Gibbs update.

A block model here is a symmetric K x K matrix B of edge probabilities; an assignment z gives every node a
block. :func:`mean_field` fits soft memberships by coordinate ascent (the start of every chain, and the
matcher's host fit). A Gibbs sweep is built from :func:`log_weights` (a node's log-probability of joining
each block given the rest, optionally with a size prior), :func:`add_size_weights` (the size prior and its
range rule), :func:`draw_block` (the draw from pre-drawn uniforms) and :func:`move_node` (the bookkeeping of
block sizes and neighbour counts): the PATTERN predictor (:mod:`graphaudit.pattern.planted.blind`) and the
CLUSTER sampler (:mod:`graphaudit.pattern.cluster.sampler`) assemble their chains from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

__all__ = [
    "MeanField",
    "add_size_weights",
    "as_adjacency",
    "bernoulli_symmetric",
    "blocks_out_of_range",
    "chain_state",
    "csr",
    "draw_block",
    "elbo",
    "in_range",
    "log_blocks",
    "log_weights",
    "mean_field",
    "move_node",
]


@dataclass(frozen=True, eq=False)
class MeanField:
    """A mean-field fit: ``resp`` (N, K) soft memberships of the kept restart, its ELBO ``objective``, its
    index ``restart`` and the final ELBO of every restart (``restart_objectives``)."""

    resp: np.ndarray
    objective: float
    restart: int
    restart_objectives: np.ndarray


def bernoulli_symmetric(rng: np.random.Generator, prob: np.ndarray) -> np.ndarray:
    """Symmetric 0/1 matrix with independent upper-triangle entries of the given probabilities."""
    n = len(prob)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    return (upper | upper.T).astype(np.uint8)


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


# ---- Gibbs update -----------------------------------------------------------------------------------
@numba.njit(cache=True)
def log_weights(
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
        add_size_weights(v, z, sizes, 1, lo, hi, out)


@numba.njit(cache=True)
def add_size_weights(v: int, z: np.ndarray, sizes: np.ndarray, shift: int, lo: int, hi: int, out: np.ndarray) -> None:
    """Add the size prior's log(s_k + shift) (s_k: size of k without ``v``) to ``out`` and apply the range
    rule of :func:`log_weights` (shift 1: prior Π s_k!; shift 0: CLUSTER's Π (s_k - 1)!)."""
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
def draw_block(weights: np.ndarray, uniform: float, cumulative: np.ndarray) -> int:
    """Index k of the first cumulative weight above ``uniform`` x total (numpy: ``searchsorted(..., 'right')``)."""
    top = weights.max()
    total = 0.0
    for a in range(weights.shape[0]):
        total += math.exp(weights[a] - top)
        cumulative[a] = total
    target = uniform * total
    for a in range(weights.shape[0]):
        if cumulative[a] > target:
            return a
    return weights.shape[0] - 1  # unreachable: uniform < 1


@numba.njit(cache=True)
def _out_of_range(size: int, lo: int, hi: int) -> int:
    return 1 if size < lo or size > hi else 0


@numba.njit(cache=True)
def blocks_out_of_range(sizes: np.ndarray, lo: int, hi: int) -> int:
    """How many blocks have a size outside ``lo..hi``."""
    count = 0
    for size in sizes:
        count += _out_of_range(size, lo, hi)
    return count


@numba.njit(cache=True)
def move_node(
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

"""The CLUSTER generator-Bayes sampler (spec 4.6, paper Appendix E).

Posterior. Given a graph's edges and its K revealed nodes (feature r + 1 marks block r), the generator
(:class:`~graphaudit.pattern.cluster.generator.ClusterLaw`: sizes iid U{lo..hi}, nodes shuffled, edges
independent with probability p within and q across blocks, one revealed node per block chosen uniformly)
gives, for sizes s_1..s_K all in range,

    ``revealed`` prior:  P(z | A) ∝ Π_j (s_j - 1)! × Π_{u<v} B[z_u,z_v]^a_uv (1 - B[z_u,z_v])^(1 - a_uv)

(shuffling gives Π s_j!, revealing one node of each block multiplies by Π 1/s_j). The earlier variant, the
``plain`` prior, leaves the revealed factor out: Π_j s_j!. Both keep the sizes in range and the revealed nodes
in their blocks; one revealed node per block means there is no label switching.

Sweep. (a) Every unlabelled node, in index order (the generator shuffles nodes, so index order is random with
respect to the blocks; pitfall 21), is redrawn from its full conditional: block k gets weight s_k × likelihood
(``revealed``) or (s_k + 1) × likelihood (``plain``), s_k counting block k without the node, with the range
rule of :func:`graphaudit.pattern.blocks.log_weights` (a node in a block at or below ``lo`` stays, one in a
block above ``hi`` leaves, no block grows past ``hi``): in range it is exactly the conditional, and an
out-of-range start (a mean-field argmax can have any sizes) only moves towards the range; the sweep during
which all sizes first were in range is recorded. (b) For every block pair a < b in lexicographic order,
propose exchanging all their unlabelled nodes, accepted by Metropolis. The proposal is an involution, and the
sizes swap with the nodes, so both priors are unchanged. Which edges change likelihood? B is exchangeable (p
on the diagonal, q elsewhere), so a pair's probability depends only on whether its ends share a block. Two
moved nodes share a block after the swap iff they did before; a moved node and a node in a third block are
across blocks before and after; the revealed nodes r_a, r_b do not move, so only the pairs (r_a or r_b, moved
node) change. Their log-likelihood follows from four neighbour counts, so a proposal costs O(1) and an
accepted swap O(N) (block columns of the neighbour counts are exchanged and corrected by the rows of r_a and
r_b). A general block matrix would change other pairs too, which is why the model is parametrised by p and q
rather than a free matrix.

Chains and randomness. One mean-field fit (revealed nodes clamped,
:func:`~graphaudit.pattern.blocks.mean_field`) gives the start of every chain: the paper says each chain
starts from the most probable blocks under a mean-field fit (pitfall 21 leaves open whether the fits differ);
here all chains share the fit and differ only in their random numbers. The graph seed feeds a
:class:`numpy.random.SeedSequence` whose children are taken in order: child 0 draws the mean-field starts,
child 1 + c drives chain c, which spawns a node stream ((sweeps, N) uniforms, a labelled node's entry unread)
and a swap stream ((sweeps, K(K-1)/2)). So chain c is the same whatever the number of chains, and a longer
chain begins with the shorter chain's sweeps. The numba kernel only consumes the pre-drawn uniforms, so the
numpy reference in :mod:`graphaudit.bench.cluster_gibbs` replays it exactly. The graph seed does not depend on
the variant, so variants are compared on common random numbers (same fit, same first chains).

Output. A node's block probabilities are its frequencies (0/1 per sweep, pitfall 20) over the kept sweeps of
all chains; the prediction is their argmax (not the class-weighted optimum; the paper notes it). Chain
agreement: for each chain after the first, the share of the graph's nodes (revealed ones included) whose
argmax under that chain equals the argmax under the earlier chains pooled; the graph's value is the minimum
(NaN with one chain). Argmax ties go to the lowest block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numba
import numpy as np

from graphaudit.common.progress import track
from graphaudit.common.seeds import stable_seed
from graphaudit.pattern.blocks import (
    MeanField,
    add_size_weights,
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
from graphaudit.pattern.cluster.generator import ClusterLaw, revealed_nodes
from graphaudit.pattern.dense import DenseGraphs

__all__ = [
    "PRIORS",
    "VARIANTS",
    "ChainTrace",
    "GraphResult",
    "SamplerSettings",
    "block_pairs",
    "chain_agreement",
    "chain_uniforms",
    "conditional_log_weights",
    "graph_seed",
    "mean_field_start",
    "run_graph",
    "run_shard",
    "sample_chain",
    "sample_graph",
    "settings_for",
    "size_shift",
    "swap_log_ratio",
]

LAW = ClusterLaw()  # the notebook's law, which the sampler assumes unless given another
PRIORS = {"revealed": 0, "plain": 1}  # prior -> the shift c of the size weight s_k + c


@dataclass(frozen=True)
class SamplerSettings:
    """One sampler variant: ``prior`` (``revealed`` or ``plain``), chains x sweeps with ``burn_in`` discarded,
    and the mean-field fit (``restarts`` x ``iterations``; the spec gives none for CLUSTER, so PATTERN's)."""

    prior: str
    chains: int
    sweeps: int
    burn_in: int
    restarts: int = 8
    iterations: int = 200

    def __post_init__(self) -> None:
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {sorted(PRIORS)}, got {self.prior!r}")
        if self.chains < 1 or self.restarts < 1 or self.iterations < 0:
            raise ValueError(
                f"need chains >= 1, restarts >= 1, iterations >= 0; got {self.chains}, "
                f"{self.restarts}, {self.iterations}"
            )
        if not 0 <= self.burn_in < self.sweeps:
            raise ValueError(f"need 0 <= burn_in < sweeps, got burn_in={self.burn_in}, sweeps={self.sweeps}")


VARIANTS = {
    "final": SamplerSettings(prior="revealed", chains=8, sweeps=800, burn_in=200),
    "no_factor": SamplerSettings(prior="plain", chains=2, sweeps=400, burn_in=100),
    "factor_short": SamplerSettings(prior="revealed", chains=2, sweeps=400, burn_in=100),
}


def settings_for(
    variant: str, chains: int | None = None, sweeps: int | None = None, burn_in: int | None = None
) -> SamplerSettings:
    """The named variant of :data:`VARIANTS`, with chains / sweeps / burn-in overridden where given (small
    scales)."""
    if variant not in VARIANTS:
        raise ValueError(f"CLUSTER sampler variant must be one of {sorted(VARIANTS)}, got {variant!r}")
    base = VARIANTS[variant]
    return replace(
        base,
        chains=base.chains if chains is None else chains,
        sweeps=base.sweeps if sweeps is None else sweeps,
        burn_in=base.burn_in if burn_in is None else burn_in,
    )


@dataclass(frozen=True, eq=False)
class ChainTrace:
    """A raw chain: the assignment after every sweep (``assignments``, (sweeps, N) int8), which swap
    proposals were accepted (``accepted``, (sweeps, pairs) bool, pairs as :func:`block_pairs`), and the
    1-based sweep during which all sizes first were in range (0: in range at the start; -1: never)."""

    assignments: np.ndarray
    accepted: np.ndarray
    entered_range: int


@dataclass(frozen=True, eq=False)
class GraphResult:
    """One graph: ``chain_counts`` (chains, N, K) kept-sweep counts of each node in each block,
    ``frequency`` (N, K) their pooled shares, ``agreement`` (see the module docstring), ``swap_accepted``
    (chains, pairs) accepted swaps over all sweeps, ``entered_range`` (chains,), ``start_in_range`` and the
    mean-field objective."""

    chain_counts: np.ndarray
    frequency: np.ndarray
    agreement: float
    swap_accepted: np.ndarray
    entered_range: np.ndarray
    start_in_range: bool
    mf_objective: float

    @property
    def prediction(self) -> np.ndarray:
        """Most frequent block of each node (lowest on ties)."""
        return self.frequency.argmax(axis=1)

    @property
    def chain_argmax(self) -> np.ndarray:
        """(chains, N): most frequent block of each node in each chain."""
        return self.chain_counts.argmax(axis=2)


# ---- numba kernel -----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _node_log_weights(
    v: int,
    z: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    shift: int,
    lo: int,
    hi: int,
    out: np.ndarray,
) -> None:
    """Log-weights of node ``v`` joining each block: likelihood + log(s_k + shift) (s_k without v; never 0
    for shift 0, as every block holds its revealed node), then the range rule (-inf = forbidden)."""
    log_weights(v, z, nbr, sizes, log_b, log_1mb, False, lo, hi, out)
    add_size_weights(v, z, sizes, shift, lo, hi, out)


@numba.njit(cache=True)
def _pairs(edges: int, pairs: int, log_p: float, log_1mp: float) -> float:
    return edges * log_p + (pairs - edges) * log_1mp


@numba.njit(cache=True)
def _swap_log_ratio(
    a: int,
    b: int,
    revealed: np.ndarray,
    adj: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
) -> float:
    """log P(swapped) - log P(current): the pairs (r_a or r_b, unlabelled node of a or b) before and after
    the unlabelled nodes of blocks a and b trade places (the only pairs that change; module docstring)."""
    ra, rb = revealed[a], revealed[b]
    joint = adj[ra, rb]
    free_a, free_b = sizes[a] - 1, sizes[b] - 1
    ra_ua, rb_ua = nbr[ra, a], nbr[rb, a] - joint  # edges from r_a, r_b to a's unlabelled nodes
    ra_ub, rb_ub = nbr[ra, b] - joint, nbr[rb, b]  # ... and to b's
    before = (
        _pairs(ra_ua, free_a, log_b[a, a], log_1mb[a, a])
        + _pairs(rb_ua, free_a, log_b[b, a], log_1mb[b, a])
        + _pairs(ra_ub, free_b, log_b[a, b], log_1mb[a, b])
        + _pairs(rb_ub, free_b, log_b[b, b], log_1mb[b, b])
    )
    after = (
        _pairs(ra_ua, free_a, log_b[a, b], log_1mb[a, b])
        + _pairs(rb_ua, free_a, log_b[b, b], log_1mb[b, b])
        + _pairs(ra_ub, free_b, log_b[a, a], log_1mb[a, a])
        + _pairs(rb_ub, free_b, log_b[b, a], log_1mb[b, a])
    )
    return after - before


@numba.njit(cache=True)
def _apply_swap(
    a: int, b: int, revealed: np.ndarray, adj: np.ndarray, z: np.ndarray, nbr: np.ndarray, sizes: np.ndarray
) -> None:
    """Move a's unlabelled nodes to b and b's to a. A node's neighbours in a afterwards are its neighbours
    in b before, less r_b, plus r_a (and vice versa), so the counts update in O(N)."""
    ra, rb = revealed[a], revealed[b]
    for u in range(z.shape[0]):
        in_a, in_b = nbr[u, a], nbr[u, b]
        nbr[u, a] = in_b - adj[u, rb] + adj[u, ra]
        nbr[u, b] = in_a - adj[u, ra] + adj[u, rb]
        if u == ra or u == rb:
            continue
        if z[u] == a:
            z[u] = b
        elif z[u] == b:
            z[u] = a
    sizes[a], sizes[b] = sizes[b], sizes[a]


@numba.njit(cache=True)
def _chain(
    indptr: np.ndarray,
    neighbours: np.ndarray,
    adj: np.ndarray,
    revealed: np.ndarray,
    free: np.ndarray,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    z: np.ndarray,
    nbr: np.ndarray,
    sizes: np.ndarray,
    node_uniforms: np.ndarray,
    swap_uniforms: np.ndarray,
    shift: int,
    lo: int,
    hi: int,
    trace: np.ndarray,
    accepted: np.ndarray,
) -> int:
    """Run one sweep per row of the uniforms, updating ``z``/``nbr``/``sizes`` in place and filling ``trace``
    and ``accepted``; returns the range-entry sweep (see :class:`ChainTrace`)."""
    k = sizes.shape[0]
    outside = blocks_out_of_range(sizes, lo, hi)
    entered = 0 if outside == 0 else -1
    weights = np.empty(k)
    cumulative = np.empty(k)
    for sweep in range(node_uniforms.shape[0]):
        for v in range(z.shape[0]):
            if not free[v]:
                continue
            _node_log_weights(v, z, nbr, sizes, log_b, log_1mb, shift, lo, hi, weights)
            new = draw_block(weights, node_uniforms[sweep, v], cumulative)
            if new == z[v]:
                continue
            outside += move_node(v, new, indptr, neighbours, z, nbr, sizes, lo, hi)
            if entered < 0 and outside == 0:
                entered = sweep + 1
        pair = 0
        for a in range(k):
            for b in range(a + 1, k):
                delta = _swap_log_ratio(a, b, revealed, adj, nbr, sizes, log_b, log_1mb)
                if delta >= 0.0 or swap_uniforms[sweep, pair] < math.exp(delta):
                    _apply_swap(a, b, revealed, adj, z, nbr, sizes)
                    accepted[sweep, pair] = True
                pair += 1
        trace[sweep] = z
    return entered


# ---- checked entry points ---------------------------------------------------------------------------
def block_pairs(k: int) -> np.ndarray:
    """(K(K-1)/2, 2) block pairs a < b in the order the sweep proposes their swaps."""
    return np.array([(a, b) for a in range(k) for b in range(a + 1, k)], dtype=np.int64).reshape(-1, 2)


def size_shift(prior: str) -> int:
    """c in the size weight s_k + c of a prior (``revealed``: 0, ``plain``: 1)."""
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {sorted(PRIORS)}, got {prior!r}")
    return PRIORS[prior]


def _check_revealed(revealed: np.ndarray, n: int, k: int) -> np.ndarray:
    revealed = np.asarray(revealed)
    if revealed.shape != (k,) or len(np.unique(revealed)) != k or revealed.min() < 0 or revealed.max() >= n:
        raise ValueError(f"revealed must list {k} distinct node indices in 0..{n - 1} (the node of block r at r)")
    return revealed.astype(np.int64)


def _check_state(z: np.ndarray, revealed: np.ndarray, n: int, k: int) -> np.ndarray:
    z = np.asarray(z)
    if z.shape != (n,) or z.min(initial=0) < 0 or z.max(initial=0) >= k:
        raise ValueError(f"an assignment must be {n} block indices in 0..{k - 1}")
    if not np.array_equal(z[revealed], np.arange(k)):
        raise ValueError("an assignment must keep revealed node r in block r; fix z[revealed] = 0..K-1")
    return z.astype(np.int64)


def _check_feasible(n: int, law: ClusterLaw) -> None:
    if not law.blocks * law.size[0] <= n <= law.blocks * law.size[1]:
        raise ValueError(
            f"no assignment of {n} nodes to {law.blocks} blocks has every size in {law.size}; "
            "is the graph from this law?"
        )


def _model(
    adj: np.ndarray, law: ClusterLaw, revealed: np.ndarray, z: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Checked ``(adj, log B, log(1-B), revealed, z, free mask)`` for a graph under ``law``."""
    adj = as_adjacency(adj)
    n, k = adj.shape[0], law.blocks
    if k < 2:
        raise ValueError(f"the sampler needs at least 2 blocks, got {k}")
    log_b, log_1mb = log_blocks(law.block_matrix())
    revealed = _check_revealed(revealed, n, k)
    z = _check_state(z, revealed, n, k)
    free = np.ones(n, dtype=bool)
    free[revealed] = False
    return adj, log_b, log_1mb, revealed, z, free


def conditional_log_weights(
    adj: np.ndarray, law: ClusterLaw, revealed: np.ndarray, z: np.ndarray, v: int, prior: str
) -> np.ndarray:
    """The kernel's log-weights of unlabelled node ``v`` over the K blocks given the rest of ``z``."""
    adj, log_b, log_1mb, revealed, z, free = _model(adj, law, revealed, z)
    if not free[v]:
        raise ValueError(f"node {v} is revealed; its block is fixed")
    nbr, sizes = chain_state(adj, z, law.blocks)
    out = np.empty(law.blocks)
    _node_log_weights(v, z, nbr, sizes, log_b, log_1mb, size_shift(prior), law.size[0], law.size[1], out)
    return out


def swap_log_ratio(adj: np.ndarray, law: ClusterLaw, revealed: np.ndarray, z: np.ndarray, a: int, b: int) -> float:
    """The kernel's log acceptance ratio for exchanging the unlabelled nodes of blocks ``a`` and ``b``."""
    adj, log_b, log_1mb, revealed, z, _ = _model(adj, law, revealed, z)
    nbr, sizes = chain_state(adj, z, law.blocks)
    return float(_swap_log_ratio(a, b, revealed, adj, nbr, sizes, log_b, log_1mb))


def sample_chain(
    adj: np.ndarray,
    law: ClusterLaw,
    revealed: np.ndarray,
    start: np.ndarray,
    node_uniforms: np.ndarray,
    swap_uniforms: np.ndarray,
    prior: str,
) -> ChainTrace:
    """Run one sweep per row of the uniforms (node: (sweeps, N), swap: (sweeps, K(K-1)/2), in [0, 1)) from
    ``start`` (revealed node r in block r)."""
    adj, log_b, log_1mb, revealed, z, free = _model(adj, law, revealed, start)
    n, k = adj.shape[0], law.blocks
    _check_feasible(n, law)
    node_uniforms = np.ascontiguousarray(node_uniforms, dtype=np.float64)
    swap_uniforms = np.ascontiguousarray(swap_uniforms, dtype=np.float64)
    sweeps = len(node_uniforms)
    if node_uniforms.shape != (sweeps, n) or swap_uniforms.shape != (sweeps, k * (k - 1) // 2):
        raise ValueError(
            f"uniforms must have shapes (sweeps, {n}) and (sweeps, {k * (k - 1) // 2}), got "
            f"{node_uniforms.shape} and {swap_uniforms.shape}"
        )
    nbr, sizes = chain_state(adj, z, k)
    indptr, neighbours = csr(adj)
    trace = np.empty((sweeps, n), dtype=np.int8)
    accepted = np.zeros(swap_uniforms.shape, dtype=bool)
    entered = _chain(
        indptr,
        neighbours,
        adj,
        revealed,
        free,
        log_b,
        log_1mb,
        z,
        nbr,
        sizes,
        node_uniforms,
        swap_uniforms,
        size_shift(prior),
        law.size[0],
        law.size[1],
        trace,
        accepted,
    )
    return ChainTrace(assignments=trace, accepted=accepted, entered_range=int(entered))


# ---- one graph --------------------------------------------------------------------------------------
def graph_seed(seed: int, graph: int) -> int:
    """The stable seed of graph ``graph`` (index in its store) for run seed ``seed``; variant-independent."""
    return stable_seed("cluster", "sampler", seed, graph)


def chain_uniforms(chain_seed: np.random.SeedSequence, sweeps: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(node uniforms (sweeps, N), swap uniforms (sweeps, K(K-1)/2)) of one chain, from its two children."""
    node_seed, swap_seed = chain_seed.spawn(2)
    return (
        np.random.default_rng(node_seed).random((sweeps, n)),
        np.random.default_rng(swap_seed).random((sweeps, k * (k - 1) // 2)),
    )


def mean_field_start(
    adj: np.ndarray, law: ClusterLaw, revealed: np.ndarray, rng: np.random.Generator, restarts: int, iterations: int
) -> tuple[np.ndarray, MeanField]:
    """The argmax of a mean-field fit with revealed node r clamped to block r, and the fit."""
    clamp = np.full(np.asarray(adj).shape[0], -1, dtype=np.int64)
    clamp[revealed] = np.arange(law.blocks)
    fit = mean_field(adj, law.block_matrix(), rng, restarts, iterations, clamp=clamp)
    return fit.resp.argmax(axis=1), fit


def chain_agreement(chain_counts: np.ndarray) -> float:
    """min over chains c >= 1 of the share of nodes whose argmax under chain c equals their argmax under
    chains 0..c-1 pooled (``chain_counts``: (chains, N, K)); NaN for a single chain."""
    chain_counts = np.asarray(chain_counts)
    if chain_counts.ndim != 3 or len(chain_counts) == 0:
        raise ValueError(f"chain counts must have shape (chains, N, K), got {chain_counts.shape}")
    if len(chain_counts) == 1:
        return float("nan")
    pooled = np.cumsum(chain_counts, axis=0)
    return float(
        min(
            np.mean(chain_counts[c].argmax(axis=1) == pooled[c - 1].argmax(axis=1)) for c in range(1, len(chain_counts))
        )
    )


def _kept_counts(assignments: np.ndarray, burn_in: int, k: int) -> np.ndarray:
    kept = assignments[burn_in:].astype(np.int64)
    return (kept[:, :, None] == np.arange(k)).sum(axis=0)


def sample_graph(adj: np.ndarray, x: np.ndarray, law: ClusterLaw, settings: SamplerSettings, seed: int) -> GraphResult:
    """Run a variant on one graph (adjacency, features 0..K): one clamped mean-field fit, then the chains
    from its argmax (module docstring for the seeds)."""
    revealed = revealed_nodes(x, law.blocks)
    n, k = np.asarray(adj).shape[0], law.blocks
    _check_feasible(n, law)
    mf_seed, *chain_seeds = np.random.SeedSequence(seed).spawn(1 + settings.chains)
    start, fit = mean_field_start(
        adj, law, revealed, np.random.default_rng(mf_seed), settings.restarts, settings.iterations
    )
    counts = np.empty((settings.chains, n, k), dtype=np.int64)
    accepted = np.empty((settings.chains, k * (k - 1) // 2), dtype=np.int64)
    entered = np.empty(settings.chains, dtype=np.int64)
    for c, chain_seed in enumerate(chain_seeds):
        node_u, swap_u = chain_uniforms(chain_seed, settings.sweeps, n, k)
        trace = sample_chain(adj, law, revealed, start, node_u, swap_u, settings.prior)
        counts[c] = _kept_counts(trace.assignments, settings.burn_in, k)
        accepted[c] = trace.accepted.sum(axis=0)
        entered[c] = trace.entered_range
    pooled = counts.sum(axis=0)
    return GraphResult(
        chain_counts=counts,
        frequency=pooled / pooled.sum(axis=1, keepdims=True),
        agreement=chain_agreement(counts),
        swap_accepted=accepted,
        entered_range=entered,
        start_in_range=in_range(np.bincount(start, minlength=k), law.size),
        mf_objective=fit.objective,
    )


def run_graph(
    graphs: DenseGraphs, g: int, settings: SamplerSettings, seed: int = 0, law: ClusterLaw = LAW
) -> GraphResult:
    """:func:`sample_graph` on graph ``g`` of a store, seeded by :func:`graph_seed` (seed, g)."""
    if not 0 <= g < graphs.num_graphs:
        raise IndexError(f"graph {g} is not in a store of {graphs.num_graphs} graphs")
    return sample_graph(graphs.adjacency(g), graphs.features(g), law, settings, graph_seed(seed, g))


def run_shard(
    graphs: DenseGraphs, start: int, stop: int, settings: SamplerSettings, seed: int = 0, law: ClusterLaw = LAW
) -> dict[str, np.ndarray]:
    """Graphs ``start..stop-1`` of a store, as arrays for :func:`graphaudit.common.atomic.write_npz`.

    Per node (shard order): ``prediction`` uint8, ``frequency`` float32 (nodes, K), ``chain_argmax`` uint8
    (nodes, chains). Per graph: ``graph_index`` (store index), ``node_ptr`` (G+1, into the node arrays),
    ``agreement``, ``swap_accepted`` (G, chains, pairs; out of ``sweeps`` proposals each), ``entered_range``
    (G, chains), ``start_in_range``, ``mf_objective``. Settings: ``prior``, ``chains``, ``sweeps``,
    ``burn_in``.
    """
    if not 0 <= start <= stop <= graphs.num_graphs:
        raise ValueError(f"shard {start}..{stop} is not within the store's {graphs.num_graphs} graphs")
    results = [
        run_graph(graphs, g, settings, seed, law)
        for g in track(range(start, stop), f"CLUSTER {settings.prior} sampler, graphs {start}..{stop - 1}")
    ]
    sizes = [len(r.frequency) for r in results]

    def nodes(values: list[np.ndarray], tail: tuple[int, ...], dtype: type) -> np.ndarray:
        return np.concatenate(values).astype(dtype) if values else np.zeros((0, *tail), dtype=dtype)

    return {
        "graph_index": np.arange(start, stop, dtype=np.int64),
        "node_ptr": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        "prediction": nodes([r.prediction for r in results], (), np.uint8),
        "frequency": nodes([r.frequency for r in results], (law.blocks,), np.float32),
        "chain_argmax": nodes([r.chain_argmax.T for r in results], (settings.chains,), np.uint8),
        "agreement": np.array([r.agreement for r in results], dtype=np.float64),
        "swap_accepted": np.array([r.swap_accepted for r in results], dtype=np.int64).reshape(
            len(results), settings.chains, law.blocks * (law.blocks - 1) // 2
        ),
        "entered_range": np.array([r.entered_range for r in results], dtype=np.int64).reshape(
            len(results), settings.chains
        ),
        "start_in_range": np.array([r.start_in_range for r in results], dtype=bool),
        "mf_objective": np.array([r.mf_objective for r in results], dtype=np.float64),
        "prior": np.array(settings.prior),
        "chains": np.array(settings.chains, dtype=np.int64),
        "sweeps": np.array(settings.sweeps, dtype=np.int64),
        "burn_in": np.array(settings.burn_in, dtype=np.int64),
    }

"""MCMC convergence diagnostics: rank-normalised split R-hat and bulk ESS (Vehtari et al. 2021), and the
chain-agreement statistics of the Minesweeper strip sampler's Table 15.

Draws come as an array (chains, draws). The R-hat and ESS estimators follow the paper's reference algorithm
(as in the ``posterior`` R package and ArviZ): chains are split in halves (the middle draw of an odd-length
chain is dropped), all draws are replaced by normal scores of their pooled ranks, and

- R-hat = max(R-hat of the rank-normalised split chains, R-hat of the rank-normalised *folded* split chains
  |x - median(x)|), each sqrt(var+ / W) with var+ = (n-1)/n W + B/n;
- bulk ESS = S / tau on the rank-normalised split chains, tau from the multi-chain autocorrelations
  truncated by Geyer's initial positive sequence and made monotone (initial monotone sequence), with tau
  bounded below by 1 / log10(S) (antithetic chains).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "auc_spread",
    "between_chain_sd_quantile",
    "ess_bulk",
    "half_difference",
    "potential_scale_reduction",
    "rank_normalise",
    "split_chains",
    "split_rhat",
]


def _draws(chains: np.ndarray, min_draws: int = 4) -> np.ndarray:
    chains = np.asarray(chains, dtype=np.float64)
    if chains.ndim == 1:
        chains = chains[None, :]
    if chains.ndim != 2 or chains.shape[1] < min_draws:
        raise ValueError(f"draws must be (chains, draws) with at least {min_draws} draws, got shape {chains.shape}")
    if not np.isfinite(chains).all():
        raise ValueError("draws must be finite")
    return chains


def split_chains(chains: np.ndarray) -> np.ndarray:
    """Each chain's first and second halves as separate chains (2M, n // 2); an odd middle draw is dropped."""
    chains = _draws(chains)
    half = chains.shape[1] // 2
    return np.concatenate([chains[:, :half], chains[:, -half:]])


def rank_normalise(chains: np.ndarray) -> np.ndarray:
    """Normal scores of the pooled average ranks: Phi^-1((r - 3/8) / (S + 1/4)) (Blom's offsets)."""
    chains = np.asarray(chains, dtype=np.float64)
    ranks = stats.rankdata(chains, method="average").reshape(chains.shape)
    return stats.norm.ppf((ranks - 0.375) / (chains.size + 0.25))


def potential_scale_reduction(chains: np.ndarray) -> float:
    """Gelman-Rubin R-hat of the chains as given: sqrt(((n-1)/n W + B/n) / W), W the mean within-chain
    variance, B/n the variance of the chain means (both ddof=1). Equal constant chains give 1; unequal
    constant chains give inf."""
    chains = _draws(chains, min_draws=2)
    n = chains.shape[1]
    within = chains.var(axis=1, ddof=1).mean()
    between_over_n = chains.mean(axis=1).var(ddof=1)
    if within == 0:
        return 1.0 if between_over_n == 0 else float("inf")
    return float(np.sqrt(((n - 1) / n * within + between_over_n) / within))


def split_rhat(chains: np.ndarray) -> float:
    """Rank-normalised split R-hat (Vehtari et al. 2021): the larger of the bulk and folded (tail) values."""
    chains = _draws(chains)
    bulk = potential_scale_reduction(rank_normalise(split_chains(chains)))
    folded = np.abs(chains - np.median(chains))
    tail = potential_scale_reduction(rank_normalise(split_chains(folded)))
    return max(bulk, tail)


def _autocovariance(chains: np.ndarray) -> np.ndarray:
    """Biased (divide by n) autocovariance of each chain at every lag, by FFT."""
    n = chains.shape[1]
    centred = chains - chains.mean(axis=1, keepdims=True)
    spectrum = np.fft.rfft(centred, n=2 * n, axis=1)
    return np.fft.irfft(spectrum * np.conj(spectrum), n=2 * n, axis=1)[:, :n] / n


def _ess(chains: np.ndarray) -> float:
    """Multi-chain ESS of the draws as given (Geyer initial positive + monotone sequence)."""
    m, n = chains.shape
    if np.ptp(chains) < np.finfo(float).resolution:
        return float(chains.size)
    acov = _autocovariance(chains)
    within = acov[:, 0].mean() * n / (n - 1.0)
    var_plus = within * (n - 1.0) / n + (chains.mean(axis=1).var(ddof=1) if m > 1 else 0.0)
    rho = np.zeros(n)
    rho[0] = 1.0
    even, odd = 1.0, 1.0 - (within - acov[:, 1].mean()) / var_plus
    rho[1] = odd
    t = 1
    while t < n - 3 and even + odd > 0.0:  # initial positive sequence of paired autocorrelations
        even = 1.0 - (within - acov[:, t + 1].mean()) / var_plus
        odd = 1.0 - (within - acov[:, t + 2].mean()) / var_plus
        if even + odd >= 0.0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0.0:
        rho[last + 1] = even
    t = 1
    while t <= last - 2:  # initial monotone sequence
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2.0
        t += 2
    tau = -1.0 + 2.0 * rho[: last + 1].sum() + rho[last + 1 : last + 2].sum()
    return float(chains.size / max(tau, 1.0 / np.log10(chains.size)))


def ess_bulk(chains: np.ndarray) -> float:
    """Bulk effective sample size: :func:`_ess` of the rank-normalised split chains."""
    return _ess(rank_normalise(split_chains(chains)))


def auc_spread(per_chain_auc: np.ndarray) -> float:
    """Range (max - min) of the chains' AUCs (Table 15 "spread of the chains' AUCs")."""
    values = np.asarray(per_chain_auc, dtype=np.float64)
    if values.size == 0:
        raise ValueError("need at least one chain's AUC")
    return float(values.max() - values.min())


def half_difference(chains: np.ndarray) -> float:
    """Largest over chains of |mean of the first half - mean of the second half| of a per-sweep trace."""
    split = split_chains(chains)
    m = split.shape[0] // 2
    return float(np.abs(split[:m].mean(axis=1) - split[m:].mean(axis=1)).max())


def between_chain_sd_quantile(marginals: np.ndarray, q: float = 99.0) -> float:
    """The ``q``-th percentile over cells of the between-chain SD (ddof=1) of the marginals ((chains, cells));
    the paper's statistic is unnamed (pitfall 13): SD is our reading."""
    marginals = np.asarray(marginals, dtype=np.float64)
    if marginals.ndim < 2 or marginals.shape[0] < 2:
        raise ValueError(f"need marginals of at least 2 chains as (chains, cells...), got shape {marginals.shape}")
    return float(np.percentile(marginals.reshape(marginals.shape[0], -1).std(axis=0, ddof=1), q))

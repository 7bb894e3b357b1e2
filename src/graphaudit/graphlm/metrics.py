"""Pattern-level metrics, memorization, bootstrap calibration and frequency strata (spec §4.7-4.9).

A pattern table maps a canonical pattern key to its support count, the number of graphs of a
database that contain it; the database size ``n`` is passed alongside, so s(g) = count / n.
A pattern missing from a table has support 0: it was not mined, and recomputing its exact
below-threshold support would change what missing mass, novel mass and JSD mean (§4.7).
Undefined quantities are NaN, never an exception, so one degenerate condition cannot stop a sweep.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.special import rel_entr
from scipy.stats import spearmanr

NAN = float("nan")
LN2 = math.log(2.0)

Table = dict[str, int]


def supports(table: Table, n: int, keys: Iterable[str]) -> np.ndarray:
    """s(g) = count / n for each key, 0 for keys absent from the table.

    An empty database (n = 0, e.g. no generated graph parsed) is allowed with an empty table:
    every support is then 0 and the metrics that need a distribution come out NaN.
    """
    counts = np.array([table.get(k, 0) for k in keys], dtype=float)
    if n <= 0:
        if table:
            raise ValueError(f"a table with patterns needs a positive database size, got {n}")
        return counts
    return counts / n


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rho with average ranks; NaN with fewer than 2 points or a constant side.

    The constant check is done here because scipy would warn and return NaN anyway.
    """
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return NAN
    return float(spearmanr(a, b)[0])


def jensen_shannon(x: np.ndarray, y: np.ndarray) -> float:
    """JSD in nats of two non-negative weight vectors, each normalised to sum 1; NaN if one is all zero.

    Not scipy's ``jensenshannon``, which returns the square root. The result is clipped to
    [0, ln 2] to absorb rounding, so disjoint supports give ln 2 and equal ones give 0.
    """
    sx, sy = float(np.sum(x)), float(np.sum(y))
    if sx <= 0.0 or sy <= 0.0:
        return NAN
    p, q = x / sx, y / sy
    m = (p + q) / 2.0
    value = 0.5 * float(np.sum(rel_entr(p, m))) + 0.5 * float(np.sum(rel_entr(q, m)))
    return min(max(value, 0.0), LN2)


def _share(part: float, whole: float) -> float:
    return part / whole if whole > 0 else NAN


def pattern_metrics(train: Table, n_train: int, gen: Table, n_gen: int) -> dict[str, float]:
    """rho (on C = P_tr ∩ P_gen), rho_tk (on P_tr, zeros for missing), JSD, missing/novel mass and counts.

    p = s / sum(s) over U = P_tr ∪ P_gen; with zeros outside each table that sum is over the table.
    """
    union = sorted(set(train) | set(gen))  # a fixed order makes jsd(a, b) == jsd(b, a) bit for bit
    s_tr = supports(train, n_train, union)
    s_gen = supports(gen, n_gen, union)
    in_tr = np.array([k in train for k in union], dtype=bool)
    in_gen = np.array([k in gen for k in union], dtype=bool)
    shared = in_tr & in_gen
    return {
        "rho": spearman(s_tr[shared], s_gen[shared]),
        "rho_tk": spearman(s_tr[in_tr], s_gen[in_tr]),
        "jsd": jensen_shannon(s_tr, s_gen),
        "missing_mass": _share(float(np.sum(s_tr[in_tr & ~in_gen])), float(np.sum(s_tr))),
        "novel_mass": _share(float(np.sum(s_gen[in_gen & ~in_tr])), float(np.sum(s_gen))),
        "shared": int(shared.sum()),
        "train_only": int((in_tr & ~in_gen).sum()),
        "gen_only": int((in_gen & ~in_tr).sum()),
        "n_train_patterns": int(in_tr.sum()),
        "n_gen_patterns": int(in_gen.sum()),
    }


STRATA = ("Head", "Torso", "Tail")


def frequency_strata(train: Table) -> dict[str, list[str]]:
    """Head = {s >= q_0.9}, Tail = {s <= q_0.1}, Torso = the rest, with ties kept together (§4.9).

    Quantiles use numpy's default (linear interpolation) over the support values of P_tr; on
    MUTAG (634 patterns) this gives 70 / 440 / 124, the paper's sizes, where the Hazen/Weibull
    family gives 63 / 447 / 124. Counts are used instead of count / n: the same order and cuts,
    without rounding. Head and Tail can only overlap when q_0.1 == q_0.9; Head then takes the
    shared patterns so the strata stay disjoint. Keys are listed by support descending, then key.
    """
    keys = sorted(train, key=lambda k: (-train[k], k))
    if not keys:
        return {name: [] for name in STRATA}
    values = np.array([train[k] for k in keys], dtype=float)
    q_low, q_high = np.quantile(values, [0.1, 0.9])
    head = values >= q_high
    tail = (values <= q_low) & ~head
    torso = ~head & ~tail
    return {name: [k for k, keep in zip(keys, mask) if keep] for name, mask in zip(STRATA, (head, torso, tail))}


def stratum_metrics(train: Table, n_train: int, gen: Table, n_gen: int, keys: Sequence[str]) -> dict[str, float]:
    """Metrics restricted to one stratum S of P_tr; gen-only patterns belong to no stratum (§4.9).

    missing_mass = sum of s_tr over S \\ P_gen / sum of s_tr over S; jsd renormalises s_tr and s_gen
    over S (NaN when no pattern of S was generated, as p_gen is then undefined); rho on S ∩ P_gen;
    rho_tk on S with s_gen = 0; coverage = |S ∩ P_gen| / |S| (the TCR for the Tail).
    """
    outside = [k for k in keys if k not in train]
    if outside:
        raise ValueError(f"stratum keys must be training patterns; {len(outside)} are not, e.g. {outside[0]!r}")
    s_tr = supports(train, n_train, keys)
    s_gen = supports(gen, n_gen, keys)
    present = np.array([k in gen for k in keys], dtype=bool)
    return {
        "size": len(keys),
        "shared": int(present.sum()),
        "coverage": _share(float(present.sum()), float(len(keys))),
        "missing_mass": _share(float(np.sum(s_tr[~present])), float(np.sum(s_tr))),
        "jsd": jensen_shannon(s_tr, s_gen),
        "rho": spearman(s_tr[present], s_gen[present]),
        "rho_tk": spearman(s_tr, s_gen),
    }


def memorization(train_codes: Sequence[str], gen_codes: Sequence[str]) -> dict[str, float]:
    """Exact-match memorization on canonical codes; generated samples count with multiplicity.

    precision = EM = share of generated samples whose code is a training code, novelty = 1 - EM,
    unique = distinct generated codes / n_gen, recall = distinct generated codes found in training
    / distinct training codes.
    """
    train_set = set(train_codes)
    gen_set = set(gen_codes)
    n_gen = len(gen_codes)
    em = _share(float(sum(code in train_set for code in gen_codes)), float(n_gen))
    return {
        "unique": _share(float(len(gen_set)), float(n_gen)),
        "precision": em,
        "novelty": 1.0 - em,
        "recall": _share(float(len(gen_set & train_set)), float(len(train_set))),
        "n_gen": n_gen,
    }


def bootstrap_summary(values: Sequence[float]) -> dict[str, float]:
    """Median, mean, sample sd (ddof = 1) and the Figure 1 band mean ± 1.96 sd of bootstrap values.

    NaN values (a metric undefined in one resample) are dropped; ``n`` counts the values kept
    and ``n_nan`` the ones dropped. sd needs two values, the rest one.
    """
    arr = np.asarray(values, dtype=float)
    kept = arr[~np.isnan(arr)]
    n = len(kept)
    mean = float(np.mean(kept)) if n else NAN
    sd = float(np.std(kept, ddof=1)) if n >= 2 else NAN
    return {
        "median": float(np.median(kept)) if n else NAN,
        "mean": mean,
        "sd": sd,
        "band_low": mean - 1.96 * sd,
        "band_high": mean + 1.96 * sd,
        "n": n,
        "n_nan": int(len(arr) - n),
    }


def calibrate(model_value: float, values: Sequence[float]) -> dict[str, float]:
    """Place a model metric in its bootstrap reference (Algorithm 2) plus the summary fields.

    delta = model - median; z = (model - mean) / sd, NaN when sd is 0 or undefined;
    pctile = share of bootstrap values <= model (non-strict), in [0, 1] and in steps of 1/R.
    """
    summary = bootstrap_summary(values)
    kept = np.asarray(values, dtype=float)
    kept = kept[~np.isnan(kept)]
    sd = summary["sd"]
    defined = not math.isnan(model_value) and len(kept) > 0
    return {
        "model": model_value,
        "delta": model_value - summary["median"],
        "z": (model_value - summary["mean"]) / sd if sd > 0 else NAN,
        "pctile": float(np.mean(kept <= model_value)) if defined else NAN,
        **summary,
    }

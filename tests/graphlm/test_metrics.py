"""graphlm metrics (spec §4.7-4.9) on hand-computed cases, the MUTAG strata sizes and a JSD property."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.graphlm.metrics import (
    bootstrap_summary,
    calibrate,
    frequency_strata,
    memorization,
    pattern_metrics,
    stratum_metrics,
)

LN2 = math.log(2.0)


# ---- pattern_metrics -----------------------------------------------------------------------


def test_jsd_disjoint_is_ln2_and_identical_is_zero() -> None:
    disjoint = pattern_metrics({"a": 1, "b": 1}, 4, {"c": 2, "d": 2}, 4)
    assert disjoint["jsd"] == pytest.approx(LN2, abs=1e-15)
    assert (disjoint["shared"], disjoint["train_only"], disjoint["gen_only"]) == (0, 2, 2)
    assert disjoint["missing_mass"] == 1.0 and disjoint["novel_mass"] == 1.0
    uneven = pattern_metrics({"a": 7, "b": 3, "c": 1}, 11, {"x": 5}, 9)  # non-dyadic weights
    assert uneven["jsd"] == pytest.approx(LN2, abs=1e-15)
    same = pattern_metrics({"a": 5, "b": 3, "c": 1}, 10, {"a": 5, "b": 3, "c": 1}, 10)
    assert same["jsd"] == 0.0
    assert same["missing_mass"] == 0.0 and same["novel_mass"] == 0.0
    assert same["rho"] == pytest.approx(1.0) and same["rho_tk"] == pytest.approx(1.0)
    # Same proportions at another database size: p is normalised, so still 0.
    assert pattern_metrics({"a": 2, "b": 1}, 4, {"a": 4, "b": 2}, 8)["jsd"] == pytest.approx(0.0, abs=1e-15)


def test_masses_and_jsd_by_hand() -> None:
    # s_tr = (.6, .4, .2) sums to 1.2, so p_tr = (1/2, 1/3, 1/6); s_gen = (1, .2), p_gen = (5/6, 1/6).
    out = pattern_metrics({"A": 6, "B": 4, "C": 2}, 10, {"A": 5, "D": 1}, 5)
    assert out["missing_mass"] == pytest.approx(1 / 3 + 1 / 6)
    assert out["novel_mass"] == pytest.approx(1 / 6)
    # U = (A, B, C, D): p = (1/2, 1/3, 1/6, 0), q = (5/6, 0, 0, 1/6), m = (2/3, 1/6, 1/12, 1/12).
    expected = 0.25 * math.log(0.75) + LN2 / 3 + 5 / 12 * math.log(1.25)
    assert out["jsd"] == pytest.approx(expected, rel=1e-12)
    assert (out["shared"], out["train_only"], out["gen_only"]) == (1, 2, 1)
    assert (out["n_train_patterns"], out["n_gen_patterns"]) == (3, 2)
    assert math.isnan(out["rho"])  # |C| = 1


def test_rho_nan_cases() -> None:
    assert math.isnan(pattern_metrics({"a": 3, "b": 1}, 5, {"c": 2}, 5)["rho"])  # |C| = 0
    assert math.isnan(pattern_metrics({"a": 3, "b": 1}, 5, {"a": 2}, 5)["rho"])  # |C| = 1
    constant_gen = pattern_metrics({"a": 3, "b": 1, "c": 2}, 5, {"a": 2, "b": 2, "c": 2}, 5)
    assert math.isnan(constant_gen["rho"]) and math.isnan(constant_gen["rho_tk"])
    constant_train = pattern_metrics({"a": 2, "b": 2}, 5, {"a": 1, "b": 3}, 5)
    assert math.isnan(constant_train["rho"]) and math.isnan(constant_train["rho_tk"])
    assert math.isnan(pattern_metrics({"a": 2}, 5, {"a": 1}, 5)["rho_tk"])  # one training pattern


def test_rho_tk_uses_zeros_for_missing_patterns() -> None:
    # s_gen over P_tr = (1, 0, 0, 2): ranks (3, 1.5, 1.5, 4) against (4, 3, 2, 1); rho = -1.5 / sqrt(5 * 4.5).
    out = pattern_metrics({"a": 4, "b": 3, "c": 2, "d": 1}, 10, {"a": 1, "d": 2, "z": 9}, 10)
    assert out["rho_tk"] == pytest.approx(-math.sqrt(0.1), rel=1e-12)
    assert out["rho"] == pytest.approx(-1.0)  # C = {a, d}: (4, 1) against (1, 2)


def test_empty_generated_table_gives_nans() -> None:
    out = pattern_metrics({"a": 3, "b": 1}, 5, {}, 0)
    assert out["missing_mass"] == 1.0
    assert all(math.isnan(out[k]) for k in ("jsd", "novel_mass", "rho", "rho_tk"))
    with pytest.raises(ValueError):
        pattern_metrics({"a": 3}, 5, {"a": 1}, 0)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(1, 20), min_size=1),
    st.dictionaries(st.sampled_from("defghijk"), st.integers(1, 20), min_size=1),
    st.integers(0, 10),
    st.integers(0, 10),
)
def test_jsd_symmetric_and_bounded(a: dict[str, int], b: dict[str, int], extra_a: int, extra_b: int) -> None:
    n_a, n_b = max(a.values()) + extra_a, max(b.values()) + extra_b
    forward, backward = pattern_metrics(a, n_a, b, n_b), pattern_metrics(b, n_b, a, n_a)
    assert forward["jsd"] == backward["jsd"]
    assert 0.0 <= forward["jsd"] <= LN2
    assert forward["missing_mass"] == pytest.approx(backward["novel_mass"])
    if not set(a) & set(b):
        assert forward["jsd"] == pytest.approx(LN2, abs=1e-15)


# ---- strata --------------------------------------------------------------------------------


def test_strata_keep_ties_together() -> None:
    # Sorted counts 1,1,1,1,2,2,3,5,5,5: q_0.1 = 1 (between two 1s), q_0.9 = 5 (between two 5s),
    # so Head and Tail take every tied pattern, 3 / 3 / 4 rather than 1 / 8 / 1.
    train = {"t1": 1, "t2": 1, "t3": 1, "t4": 1, "m1": 2, "m2": 2, "m3": 3, "h1": 5, "h2": 5, "h3": 5}
    strata = frequency_strata(train)
    assert strata == {"Head": ["h1", "h2", "h3"], "Torso": ["m3", "m1", "m2"], "Tail": ["t1", "t2", "t3", "t4"]}


def test_strata_interpolated_cuts_and_degenerate_ties() -> None:
    # Counts 1..10: q_0.1 = 1.9, q_0.9 = 9.1 by linear interpolation.
    strata = frequency_strata({f"p{i:02d}": i for i in range(1, 11)})
    assert strata["Head"] == ["p10"] and strata["Tail"] == ["p01"] and len(strata["Torso"]) == 8
    # All supports equal: q_0.1 = q_0.9, Head takes the overlap so the strata stay disjoint.
    assert frequency_strata({"a": 4, "b": 4, "c": 4}) == {"Head": ["a", "b", "c"], "Torso": [], "Tail": []}
    assert frequency_strata({}) == {"Head": [], "Torso": [], "Tail": []}


def test_stratum_metrics_by_hand() -> None:
    train = {"a": 8, "b": 6, "c": 4, "d": 2}
    gen = {"a": 5, "b": 2, "d": 2, "x": 1}  # x is gen-only and belongs to no stratum
    out = stratum_metrics(train, 10, gen, 5, ["b", "c", "d"])
    assert out["size"] == 3 and out["shared"] == 2
    assert out["coverage"] == pytest.approx(2 / 3)
    assert out["missing_mass"] == pytest.approx(0.4 / 1.2)  # s_tr(c) / (s_tr(b) + s_tr(c) + s_tr(d))
    # p_tr = (1/2, 1/3, 1/6), p_gen = (1/2, 0, 1/2), m = (1/2, 1/6, 1/3).
    assert out["jsd"] == pytest.approx(LN2 / 12 + 0.25 * math.log(1.5), rel=1e-12)
    assert math.isnan(out["rho"])  # S ∩ P_gen = {b, d}, s_gen constant (0.4, 0.4)
    assert out["rho_tk"] == pytest.approx(0.0, abs=1e-12)  # (.6, .4, .2) against (.4, 0, .4)
    none_generated = stratum_metrics(train, 10, {"x": 1}, 5, ["c", "d"])
    assert none_generated["missing_mass"] == 1.0 and none_generated["coverage"] == 0.0
    assert math.isnan(none_generated["jsd"])
    with pytest.raises(ValueError):
        stratum_metrics(train, 10, gen, 5, ["x"])


def test_mutag_strata_sizes(tmp_path) -> None:
    from graphaudit.data.fetch import FetchOptions, obtain
    from graphaudit.data.registry import get_spec
    from graphaudit.mining.gspan import graphs_from_graphset, mine

    mutag, _ = obtain(get_spec("MUTAG"), tmp_path, FetchOptions(mirror=None, allow_download=False))
    counts = mine(graphs_from_graphset(mutag), sigma=0.1, upper=8)
    assert len(counts) == 634
    strata = frequency_strata(counts)
    assert [len(strata[s]) for s in ("Head", "Torso", "Tail")] == [70, 440, 124]


# ---- memorization and calibration ----------------------------------------------------------


def test_memorization_counts_duplicates() -> None:
    out = memorization(["A", "B", "C", "A"], ["A", "A", "B", "X", "X", "Y"])
    assert out["n_gen"] == 6
    assert out["unique"] == pytest.approx(4 / 6)
    assert out["precision"] == pytest.approx(0.5)  # A, A, B with multiplicity
    assert out["novelty"] == pytest.approx(0.5)
    assert out["recall"] == pytest.approx(2 / 3)  # {A, B} of {A, B, C}
    empty = memorization(["A"], [])
    assert empty["n_gen"] == 0
    assert all(math.isnan(empty[k]) for k in ("unique", "precision", "novelty"))


def test_calibrate_by_hand() -> None:
    values = [float(v) for v in range(1, 11)]  # median = mean = 5.5, sd = sqrt(55 / 6)
    sd = math.sqrt(55 / 6)
    summary = bootstrap_summary(values)
    assert summary["median"] == 5.5 and summary["mean"] == 5.5 and summary["n"] == 10
    assert summary["sd"] == pytest.approx(sd)
    assert (summary["band_low"], summary["band_high"]) == pytest.approx((5.5 - 1.96 * sd, 5.5 + 1.96 * sd))
    out = calibrate(8.0, values)
    assert out["delta"] == 2.5 and out["z"] == pytest.approx(2.5 / sd)
    assert out["pctile"] == 0.8  # 1..8 are <= 8
    assert calibrate(7.5, values)["pctile"] == 0.7
    assert calibrate(0.5, values)["pctile"] == 0.0 and calibrate(11.0, values)["pctile"] == 1.0
    flat = calibrate(3.0, [2.0, 2.0, 2.0])
    assert flat["delta"] == 1.0 and math.isnan(flat["z"]) and flat["pctile"] == 1.0


def test_calibrate_undefined_inputs() -> None:
    partial = bootstrap_summary([1.0, float("nan"), 3.0])
    assert partial["n"] == 2 and partial["n_nan"] == 1 and partial["mean"] == 2.0
    single = bootstrap_summary([4.0])
    assert single["median"] == 4.0 and math.isnan(single["sd"])
    assert all(math.isnan(v) for k, v in calibrate(1.0, []).items() if k not in ("model", "n", "n_nan"))
    assert math.isnan(calibrate(float("nan"), [1.0, 2.0])["pctile"])

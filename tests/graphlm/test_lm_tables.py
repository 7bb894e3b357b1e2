"""The language models' tables from hand-made evaluations: which sample set each table reads, means and sample
sds over decoding seeds, the calibration band, the derived checks of spec 7B, and the trajectory's correlation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from graphaudit.common.settings import load_settings
from graphaudit.graphlm import tables
from graphaudit.graphlm.lm import SampleSet
from graphaudit.graphlm.settings import LmSettings

LM = load_settings(
    LmSettings,
    {
        **yaml.safe_load(open("config/config.yaml", encoding="utf-8"))["graphlm"]["lm"],
        "checkpoints": 3,
        "decodings": ["both_default", "tp_high"],
        "decode_seeds": [0, 1, 2],
    },
)


def evaluation(dataset: str, sample: SampleSet, value: float) -> dict:
    """An evaluation whose every metric is ``value`` (strata: Head ``value``, Torso ``value / 2``, Tail 0)."""
    stratum = {k: value for k in ("missing_mass", "rho", "rho_tk", "jsd", "coverage", "shared", "size")}
    overall = {"rho": value, "rho_tk": value, "jsd": value, "missing_mass": value, "novel_mass": value}
    overall |= {"n_train_patterns": 10, "n_gen_patterns": 11, "shared": 9}
    return {
        "dataset": dataset,
        "generator": sample.name,
        "unique": value,
        "precision": value,
        "novelty": 1 - value,
        "overall": overall,
        "calibration": {"delta": 0.0, "z": value, "pctile": 0.5, "band_low": 0.4, "band_high": 0.6},
        "strata": {
            "head": stratum,
            "torso": {k: v / 2 for k, v in stratum.items()},
            "tail": {k: 0.0 for k in stratum},
        },
    }


def test_lm_frame_keeps_only_sample_sets_and_joins_their_summaries() -> None:
    sample = SampleSet("dfs", 42, 3, "both_default", 0)
    free = {**evaluation("M", sample, 0.5), "generator": "bootstrap"}
    summary = {"dataset": "M", "name": sample.name, "samples": 8, "unparsed": 1, "at_limit": 0, "string_precision": 1}
    frame = tables.lm_frame([evaluation("M", sample, 0.5), free], [summary])
    assert list(frame.columns) == tables.LM_COLUMNS and len(frame) == 1
    row = frame.iloc[0]
    assert (row["checkpoint"], row["decode_seed"], row["unparsed"], row["torso_rho"]) == (3, 0, 1, 0.25)


def _frame() -> pd.DataFrame:
    """MUTAG, both serializations: the final checkpoint at three decoding seeds (metric 0.5, 0.7, 0.9 for DFS),
    tp_high (0.2), and two earlier checkpoints (0.1, 0.3)."""
    rows = []
    for serialization, shift in (("dfs", 0.0), ("dgmg", 0.05)):
        for dseed, value in enumerate((0.5, 0.7, 0.9)):
            rows.append(evaluation("M", SampleSet(serialization, 42, 3, "both_default", dseed), value + shift))
        rows.append(evaluation("M", SampleSet(serialization, 42, 3, "tp_high", 0), 0.2))
        for k, value in ((1, 0.1), (2, 0.3)):
            rows.append(evaluation("M", SampleSet(serialization, 42, k, "both_default", 0), value))
    return tables.lm_frame(rows)


def test_table1_reads_the_main_dfs_set() -> None:
    table = tables.table1_frame(_frame(), LM)
    assert len(table) == 1 and table.iloc[0]["precision"] == 0.5 and table.iloc[0]["rho"] == 0.5


def test_calibration_marks_the_band_and_reads_the_bootstrap_jsd() -> None:
    replicates = [
        {"dataset": "M", "overall": {"rho": r, "jsd": j, "missing_mass": 0.0}} for r, j in ((1, 0.1), (1, 0.3))
    ]
    dfs = tables.calibration_frame(_frame(), replicates, LM, "dfs").iloc[0]
    dgmg = tables.calibration_frame(_frame(), replicates, LM, "dgmg").iloc[0]
    assert dfs["boot_jsd"] == pytest.approx(0.2) and bool(dfs["inside_band"])  # 0.5 in [0.4, 0.6]
    assert dgmg["rho"] == pytest.approx(0.55) and bool(dgmg["inside_band"])


def test_strata_tables_average_over_decoding_seeds_with_the_sample_sd() -> None:
    row = tables.strata_table_frame(_frame(), LM, "dfs").iloc[0]
    assert row["mm_head"] == pytest.approx(0.7) and row["mm_head_sd"] == pytest.approx(0.2)  # sd of 0.5, 0.7, 0.9
    assert row["mm_torso"] == pytest.approx(0.35) and row["mm_tail"] == 0.0 and row["n"] == 3
    assert row["tail_rho_gap"] == pytest.approx(0.7)
    assert row["tail_mm_ratio"] == 0.0  # the Tail lost nothing (0 over Head's 0.7)
    dgmg = tables.strata_table_frame(_frame(), LM, "dgmg").iloc[0]
    assert dgmg["rho_head"] == pytest.approx(0.75)


def test_ratio_conventions() -> None:
    assert tables._ratio(1.0, 4.0) == 0.25
    assert tables._ratio(0.1, 0.0) == math.inf
    assert math.isnan(tables._ratio(0.0, 0.0))


def test_table15_is_the_head_tail_gap_of_the_means() -> None:
    row = tables.table15_frame(_frame(), LM).iloc[0]
    assert (row["rho_head"], row["rho_tail"], row["tcr"]) == pytest.approx((0.7, 0.0, 0.0))
    assert row["delta_rho"] == pytest.approx(0.7)


def test_table16_has_both_serializations_and_the_spread_ratios() -> None:
    table = tables.table16_frame(_frame(), LM).set_index("serialization")
    assert list(table.index) == ["dfs", "dgmg"]
    assert table.loc["dfs", "head_rho_sd"] == pytest.approx(0.2)
    assert table.loc["dfs", "tail_rho_sd"] == 0.0 and table.loc["dfs", "tail_head_sd_ratio"] == 0.0  # 0 over 0.2
    assert math.isnan(table.loc["dfs", "tail_tk_sd_ratio"])  # 0 over 0


def test_table19_compares_each_decoding_with_both_default() -> None:
    table = tables.table19_frame(_frame(), LM)
    tp_high = table[(table["serialization"] == "dfs") & (table["decoding"] == "tp_high")].iloc[0]
    assert tp_high["rho_minus_default"] == pytest.approx(0.2 - 0.5)
    assert tp_high["novelty_minus_default"] == pytest.approx(0.8 - 0.5)
    assert len(table) == 4  # two decodings x two serializations, decoding seed 0 only


def test_table20_joins_the_records_and_correlates_precision_and_rho() -> None:
    records = [{"checkpoint": k, "step": 10 * k, "tokens": 100 * k, "train_loss": 1 / k} for k in (1, 2, 3)]
    runs = [{"dataset": "M", "serialization": s, "seed": 42, "records": records} for s in ("dfs", "dgmg")]
    table = tables.table20_frame(_frame(), runs, LM)
    dfs = table[table["serialization"] == "dfs"]
    assert list(dfs["checkpoint"]) == [1, 2, 3] and list(dfs["step"]) == [10, 20, 30]
    assert list(dfs["precision"]) == [0.1, 0.3, 0.5]
    assert np.allclose(dfs["precision_rho_spearman"], 1.0)  # precision and rho move together by construction


def test_table24_groups_by_training_seed() -> None:
    table = tables.table24_frame(_frame(), LM)
    assert list(table["serialization"]) == ["dfs", "dgmg"] and list(table["n"]) == [3, 3]


def test_table12_compares_dgmg_with_dfs_precision() -> None:
    row = tables.table12_frame(_frame(), LM).iloc[0]
    assert row["dgmg_precision"] == pytest.approx(0.55) and row["dfs_precision"] == 0.5
    assert bool(row["dgmg_at_least_dfs"])


def test_table5_marks_the_direction() -> None:
    nll = [
        {
            "dataset": "M",
            "serialization": "dfs",
            "seed": 42,
            "hit": 3,
            "miss": 2,
            "nll_hit": 1.0,
            "nll_miss": 2.0,
            "mw_p": 0.2,
        }
    ]
    assert bool(tables.table5_frame(nll).iloc[0]["hits_lower"])


def test_table6_splits_the_variance_between_checkpoints_and_decodings() -> None:
    row = tables.table6_frame(_frame(), LM).set_index("serialization").loc["dfs"]
    ckpt = np.var([0.1, 0.3, 0.5], ddof=1)  # the trajectory's rho at decoding seed 0
    decode = np.var([0.5, 0.2], ddof=1)  # both_default and tp_high at the final checkpoint
    assert row["rho_ckpt"] == pytest.approx(ckpt / (ckpt + decode)) and row["rho_decode"] == pytest.approx(
        decode / (ckpt + decode)
    )
    assert (row["checkpoints"], row["decodings"]) == (3, 2)


def test_the_scale_proxy_table_reads_each_subset_and_its_novel_part() -> None:
    from graphaudit.graphlm.lm import main_set, subset_name
    from graphaudit.graphlm.settings import ScaleSettings

    scale = ScaleSettings("NCI1", (100, 200, 400))
    main = main_set(LM, "dfs", 42)
    evaluations = []
    for size, em, rho, rho_novel, novel in (
        (100, 0.9, 0.95, 0.90, 10),
        (200, 0.7, 0.96, 0.93, 150),
        (400, 0.4, 0.92, 0.90, 600),
    ):
        e = evaluation(subset_name("NCI1", size), main, rho)
        evaluations.append(e | {"precision": em})
        n = evaluation(subset_name("NCI1", size), main, rho_novel)
        evaluations.append(n | {"generator": f"{main.name}-novel", "n_lines": novel + 1, "n_invalid": 1})
    table = tables.scale_frame(evaluations, scale, LM)
    assert list(table["n"]) == [100, 200, 400] and list(table["novel_graphs"]) == [10, 150, 600]
    assert table["em_n_spearman"].iloc[0] == pytest.approx(-1.0)
    assert table["rho_min"].iloc[0] == pytest.approx(0.92)
    assert table["novel_gap_max"].iloc[0] == pytest.approx(0.03)  # the 100-graph set's 0.05 gap is not judged
    assert table["proxy"].str.startswith("proxy").all()
    assert tables.scale_frame([], ScaleSettings(None, (1, 2)), LM).empty


def _mmd(dataset: str, generator: str, value: float) -> dict:
    keys = ("degree", "clustering", "orbit", "spectral", "wl", "coverage", "diversity")
    return {"dataset": dataset, "generator": generator, "n_generated": 10, **dict.fromkeys(keys, value)}


def test_mmd_tables_read_the_main_sets_and_label_the_stand_ins() -> None:
    dfs, dgmg = (SampleSet(s, 42, 3, "both_default", 0).name for s in ("dfs", "dgmg"))
    other = SampleSet("dfs", 42, 1, "both_default", 0).name  # a trajectory set: in no MMD table
    mmds = [_mmd("M", dfs, 0.001), _mmd("M", dgmg, 0.002), _mmd("M", other, 0.5), _mmd("M", "edge_swap", 0.004)]
    mmds += [_mmd("P", dfs, 0.003), _mmd("P", "edge_swap", 0.006)]
    t7 = tables.table7_frame(mmds, LM)
    assert list(t7["dataset"]) == ["M", "P"] and list(t7["degree_x1e3"]) == pytest.approx([1.0, 3.0])
    t8 = tables.table8_frame(mmds, LM).set_index("model")
    assert t8.loc["LLM-DFS", "degree_x1e3"] == pytest.approx(2.0) and t8.loc["LLM-DFS", "datasets"] == 2
    assert t8.loc["edge_swap (training-free)", "wl"] == pytest.approx(0.005)
    assert t8.loc["LLM-DGMG", "datasets"] == 1 and len(t8) == 3
    t11 = tables.table11_frame(mmds, LM).set_index("dataset")
    assert t11.loc["M", "wl_mmd_dgmg"] == 0.002 and math.isnan(t11.loc["P", "coverage_dgmg"])


def test_table22_runs_the_training_free_generators_and_names_why_the_external_ones_do_not_run() -> None:
    swap = {**evaluation("M", SampleSet("dfs", 42, 3, "both_default", 0), 0.1), "generator": "edge_swap"}
    model = evaluation("M", SampleSet("dfs", 42, 3, "both_default", 0), 0.9)
    table = tables.table22_frame([swap, model], [_mmd("M", "edge_swap", 0.02)], ("bootstrap", "edge_swap"))
    assert list(table["model"]) == ["edge_swap", "DiGress", "GraphRNN", "DGMG-official"]
    run = table.iloc[0]
    assert (run["kind"], run["mem_rate"], run["wl"], run["not_run"]) == ("stand-in (training-free)", 0.1, 0.02, "")
    assert table.iloc[1:]["not_run"].str.contains("another project's GPU code").all()


def test_figure_2_heights_are_the_decoding_seed_means_of_each_stratum_with_jsd() -> None:
    from graphaudit.graphlm.figures import fig2_frame

    row = fig2_frame(_frame(), LM).iloc[0]
    assert row["jsd_head"] == pytest.approx(0.7) and row["jsd_head_sd"] == pytest.approx(0.2)  # DFS 0.5, 0.7, 0.9
    assert row["jsd_torso"] == pytest.approx(0.35) and row["rho_torso_sd"] == pytest.approx(0.1)
    assert row["mm_tail"] == 0.0 and row["n"] == 3  # tp_high and the earlier checkpoints are left out

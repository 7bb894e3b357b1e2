"""Every table of the glad study, one rule entry each: rule ``<name>_glad`` calls ``<name>`` here and writes
``results/glad/tables/<name>.csv`` (+ ``.md``).

Each reads tidy intermediate files written by upstream rules: part 1 the per-dataset rows (``audits/``,
``references/``, ``kernels/``, ``pairing/``, ``folds/``), the deep tables the per-fold replays of every detector
and dataset (``replay/{detector}/{dataset}/{protocols,null,size_matched}.csv``) and part 1's reference and
kernel tables, the typed tables (part 4) the control rows of every GX seed and MolSwap set (``typed/controls/``),
the GX sets' metadata and the MolSwap validation checks. The assembly is :mod:`graphaudit.glad.baselines`
(part 1), :mod:`graphaudit.glad.leaderboard` (the deep detectors) and :mod:`graphaudit.glad.typed` (typed
anomalies). Only the tables with bootstrap intervals read ``params.bootstrap``, so a change of it reruns those
alone.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.common.yamlfile import read_yaml
from graphaudit.glad import baselines, blindness, typed, typed_sets
from graphaudit.glad import leaderboard as lb
from graphaudit.glad.datasets import SECONDARY, UB9
from graphaudit.glad.protocol import Fold, read_folds
from graphaudit.report.tables import read_tables, write_table

log = logging.getLogger(__name__)

ANALYSIS_SEED = stable_seed("glad", "dataset-bootstrap")
TABLE2_PROTOCOLS = ("oracle_own", "last", "val_normal", "hp_free")
PER_DATASET = {"table24": "oracle_own", "table25": "last", "table26": "val_normal", "table27": "hp_free"}


def _write(ctx: RuleContext, frame: pd.DataFrame, title: str | None) -> None:
    write_table(frame, ctx.output["table"], title=title)


# ---- part 1: audits, references, kernel baselines --------------------------------------------------------


def _folds_by_dataset(ctx: RuleContext) -> dict[str, list[Fold]]:
    """Input ``folds``: every dataset's folds, by the dataset named in its file."""
    return {json.loads(Path(p).read_text(encoding="utf-8"))["dataset"]: read_folds(p) for p in ctx.input_list("folds")}


def audits(ctx: RuleContext) -> None:
    """Every dataset's audit rows (input ``audits``)."""
    _write(ctx, read_tables(ctx.input_list("audits")), "Dataset audits (U7, U10, U11)")


def references(ctx: RuleContext) -> None:
    """Every dataset's training-free reference rows per fold (input ``references``)."""
    _write(ctx, read_tables(ctx.input_list("references")), "Training-free references per fold")


def kernels(ctx: RuleContext) -> None:
    """Every kernel baseline row per fold and configuration (input ``kernels``)."""
    frame = baselines.kernel_long_table(read_tables(ctx.input_list("kernels")))
    _write(ctx, frame, "Kernel baselines per fold and configuration")


def table19(ctx: RuleContext) -> None:
    """Table 19: kernel baselines on UB9 (input ``kernels``)."""
    frame = baselines.kernel_table(read_tables(ctx.input_list("kernels")), list(UB9))
    _write(ctx, frame, "Table 19: kernel baselines, UB9")


def table20(ctx: RuleContext) -> None:
    """Table 20: kernel baselines on the secondary datasets (input ``kernels``)."""
    frame = baselines.kernel_table(read_tables(ctx.input_list("kernels")), list(SECONDARY))
    _write(ctx, frame, "Table 20: kernel baselines, secondary datasets")


def kernel_gaps(ctx: RuleContext) -> None:
    """The kernel baselines' hyperparameter gap on UB9 (input ``kernels``)."""
    frame = baselines.kernel_gaps(read_tables(ctx.input_list("kernels")), list(UB9))
    _write(ctx, frame, "Kernel hyperparameter gap (tuned - default), UB9")


def kernel_summary(ctx: RuleContext) -> None:
    """The share of training normals OCSVM flags (input ``kernels``)."""
    _write(ctx, baselines.kernel_summary(read_tables(ctx.input_list("kernels"))), "Kernel baselines: summaries")


def table21(ctx: RuleContext) -> None:
    """Table 21: UB-GOLD's unchanged WL-IF pipeline (inputs ``pairing``, ``folds``)."""
    frame = baselines.pairing_table(read_tables(ctx.input_list("pairing")), _folds_by_dataset(ctx))
    _write(ctx, frame, "Table 21: UB-GOLD's unchanged WL-IF pipeline")


def table22(ctx: RuleContext) -> None:
    """Table 22: the published kernel AUROCs of the datasets with folds and their z against random pairing
    (inputs ``published``, ``folds``)."""
    folds = _folds_by_dataset(ctx)
    published = read_yaml(ctx.input["published"])["published"]
    frame = baselines.chance_z_table([p for p in published if p["dataset"] in folds], folds)
    _write(ctx, frame, "Table 22: published kernel AUROCs with z against random pairing")


def table23_references(ctx: RuleContext) -> None:
    """Table 23's reference rows: the training-free references on UB9 (input ``references``)."""
    frame = baselines.reference_table(read_tables(ctx.input_list("references")), list(UB9))
    _write(ctx, frame, "Table 23 (reference rows): training-free references, UB9")


def table28(ctx: RuleContext) -> None:
    """Tables 28-29's reference rows: the training-free references on the secondary datasets."""
    frame = baselines.reference_table(read_tables(ctx.input_list("references")), list(SECONDARY))
    _write(ctx, frame, "Tables 28-29 (reference rows): training-free references, secondary datasets")


# ---- the deep detectors: every replay, read back ---------------------------------------------------------


def _analysis(ctx: RuleContext, n_resamples: int = 0) -> lb.Analysis:
    """The analysis of every replay (input ``protocols``); dataset resamples only for a bootstrap table."""
    analysis = lb.build_analysis(read_tables(ctx.input_list("protocols")), n_resamples, ANALYSIS_SEED)
    log.info(
        "analysis: %d complete detectors %s on %d datasets (%s)",
        len(analysis.detectors),
        analysis.detectors,
        len(analysis.datasets),
        analysis.scope,
    )
    return analysis


def _bootstrapped(ctx: RuleContext) -> lb.Analysis:
    """:func:`_analysis` with ``params.bootstrap`` paired dataset resamples."""
    return _analysis(ctx, ctx.params["bootstrap"])


def _extra_rows(ctx: RuleContext) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Part 1's references and kernel settings (inputs ``references``, ``kernels``: their tables)."""
    return pd.read_csv(ctx.input["references"]), baselines.kernel_settings(pd.read_csv(ctx.input["kernels"]))


def leaderboard(ctx: RuleContext) -> None:
    """Fold means per detector, dataset and protocol (input ``protocols``)."""
    frame = lb.fold_means(read_tables(ctx.input_list("protocols")))
    _write(ctx, frame, "Fold means per detector, dataset and protocol")


def leakage(ctx: RuleContext) -> None:
    """Checkpoint leakage per detector and pooled, with bootstrap intervals."""
    frame = lb.leakage_table(_bootstrapped(ctx))
    _write(ctx, frame, "Checkpoint leakage: Oracle (UB-GOLD rule) minus Val-Normal / Last")


def hp_gap(ctx: RuleContext) -> None:
    """The hyperparameter gap per detector and pooled, with bootstrap intervals."""
    _write(ctx, lb.hp_gap_table(_bootstrapped(ctx)), "Hyperparameter gap: Val-Normal minus HP-Free")


def kendall(ctx: RuleContext) -> None:
    """Kendall tau-b between the protocols' leaderboards, with bootstrap intervals."""
    _write(ctx, lb.kendall_table(_bootstrapped(ctx)), "Kendall tau-b between leaderboards")


def decisions(ctx: RuleContext) -> None:
    """The pre-registered decisions G1, G2(a-c) and G from leakage, hyperparameter gap and tau-b."""
    analysis = _bootstrapped(ctx)
    frame = lb.decisions_table(
        lb.leakage_table(analysis), lb.hp_gap_table(analysis), lb.kendall_table(analysis), analysis
    )
    _write(ctx, frame, "Pre-registered decisions G1, G2(a), G2(b), G2(c) and G (spec 4.6)")


def friedman(ctx: RuleContext) -> None:
    """Friedman, Iman-Davenport and Nemenyi CD per protocol."""
    rows, _ = lb.friedman_tables(_analysis(ctx))
    _write(ctx, rows, "Friedman, Iman-Davenport and Nemenyi CD per protocol")


def pairwise(ctx: RuleContext) -> None:
    """Pairwise exact Wilcoxon tests over datasets, Holm-adjusted within a protocol."""
    _, pairs = lb.friedman_tables(_analysis(ctx))
    _write(ctx, pairs, "Pairwise exact Wilcoxon over datasets, Holm within protocol")


def perm_null(ctx: RuleContext) -> None:
    """Selection on noise against the observed selection gain (inputs ``protocols``, ``null``)."""
    frame = lb.perm_null_table(read_tables(ctx.input_list("null")), _analysis(ctx))
    _write(ctx, frame, "Selection on noise: permuted-label best minus last against the observed")


def size_matched(ctx: RuleContext) -> None:
    """Val-Normal AUROC on size-matched test subsets (input ``size_matched``, ``params.min_retained``)."""
    frame = lb.size_matched_table(read_tables(ctx.input_list("size_matched")), ctx.params["min_retained"])
    _write(ctx, frame, "Val-Normal AUROC on size-matched test subsets")


def robustness(ctx: RuleContext) -> None:
    """Pooled leakage leaving datasets out, per dataset, without flagged runs, on the default runs and with the
    minority class anomalous (input ``minority``: the re-run's protocols, none when it is not configured)."""
    minority_files = ctx.input_list("minority")
    minority = (
        lb.build_analysis(read_tables(minority_files), 0, ANALYSIS_SEED, required=lb.MINORITY_REQUIRED)
        if minority_files
        else None
    )
    frame = lb.robustness_table(_analysis(ctx), minority)
    _write(ctx, frame, "Robustness: leakage per dataset, leaving one out, on the default-setting runs, minority class")


def table2(ctx: RuleContext) -> None:
    """Table 2: the main leaderboard, ranks among the detectors (inputs ``protocols``, ``references``,
    ``kernels``)."""
    analysis = _bootstrapped(ctx)
    extra = lb.reference_rows(*_extra_rows(ctx), analysis.datasets)
    frame = lb.leaderboard_table(analysis, extra, TABLE2_PROTOCOLS, rank_detectors_only=True)
    _write(ctx, frame, "Table 2: main leaderboard (ranks among the detectors; references, kernels)")


def table23(ctx: RuleContext) -> None:
    """Table 23: the full leaderboard, ranks among all rows (inputs ``protocols``, ``references``, ``kernels``)."""
    analysis = _bootstrapped(ctx)
    extra = lb.reference_rows(*_extra_rows(ctx), analysis.datasets)
    frame = lb.leaderboard_table(analysis, extra, lb.LEADERBOARD_PROTOCOLS)
    _write(ctx, frame, "Table 23: full leaderboard (detectors implemented here, kernels, references)")


def _per_dataset(ctx: RuleContext, table: str) -> None:
    """Tables 24-27: one protocol's AUROC per detector, reference, kernel and dataset."""
    protocol, analysis = PER_DATASET[table], _analysis(ctx)
    extra = lb.reference_rows_per_dataset(*_extra_rows(ctx), protocol)
    frame = lb.per_dataset_table(analysis, extra[extra["dataset"].isin(analysis.datasets)], protocol)
    _write(ctx, frame, f"{table.title()}: {protocol} AUROC per dataset")


def table24(ctx: RuleContext) -> None:
    """Table 24: Oracle (the detector's own rule) AUROC per dataset."""
    _per_dataset(ctx, "table24")


def table25(ctx: RuleContext) -> None:
    """Table 25: Last AUROC per dataset."""
    _per_dataset(ctx, "table25")


def table26(ctx: RuleContext) -> None:
    """Table 26: Val-Normal AUROC per dataset."""
    _per_dataset(ctx, "table26")


def table27(ctx: RuleContext) -> None:
    """Table 27: HP-Free AUROC per dataset."""
    _per_dataset(ctx, "table27")


def table30(ctx: RuleContext) -> None:
    """Table 30: leakage vs Val-Normal and vs Last per detector, side by side."""
    _write(ctx, lb.leakage_side_by_side(lb.leakage_table(_bootstrapped(ctx))), "Table 30: leakage per detector")


def table31(ctx: RuleContext) -> None:
    """Table 31: the label-free selectors on the pilot detectors."""
    _write(ctx, lb.selectors_table(_analysis(ctx)), "Table 31: label-free selectors, pilot detectors")


def table32(ctx: RuleContext) -> None:
    """Table 32: Kendall tau-b between rankings (the ``kendall`` table under the paper's number)."""
    _write(ctx, lb.kendall_table(_bootstrapped(ctx)), "Table 32: Kendall tau-b between rankings")


def table33(ctx: RuleContext) -> None:
    """Table 33: AUPRC and FPR95 under Oracle, Val-Normal and HP-Free."""
    _write(ctx, lb.auprc_fpr_table(_analysis(ctx)), "Table 33: AUPRC and FPR95")


def table34(ctx: RuleContext) -> None:
    """Table 34: Friedman p per protocol, the smallest pairwise p and the Holm rejections."""
    _write(ctx, lb.significance_table(*lb.friedman_tables(_analysis(ctx))), "Table 34: significance tests")


# ---- part 4: typed anomalies -----------------------------------------------------------------------------


def _controls(ctx: RuleContext, name: str) -> pd.DataFrame:
    """The control rows of input ``name`` (every file; none: an empty frame with the control columns)."""
    frame = read_tables(ctx.input_list(name) if name in ctx.input else [])
    return frame if len(frame) else pd.DataFrame(columns=typed.CONTROL_COLUMNS)


def gx_sets(ctx: RuleContext) -> None:
    """The saved GX sets per feature variant, seed and part: graphs, node counts, m - n (input ``metadata``)."""
    metadata = [json.loads(Path(p).read_text(encoding="utf-8")) for p in ctx.input_list("metadata")]
    _write(ctx, typed.gx_sets_table(metadata), "GX sets: graphs and sizes per feature variant, seed and part")


def typed_controls(ctx: RuleContext) -> None:
    """Every control AUROC per seed of the GX types and MolSwap sets (inputs ``gx``, ``molswap``)."""
    frames = [f for f in (_controls(ctx, "gx"), _controls(ctx, "molswap")) if len(f)]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=typed.CONTROL_COLUMNS)
    _write(ctx, frame, "Typed-anomaly controls per seed (size only, graphlet count + LW, edge-label pair + LW)")


def table12(ctx: RuleContext) -> None:
    """Table 12: MolSwap v1's controls and computed verdicts (input ``controls``: the v1 types' control rows)."""
    _write(ctx, typed.v1_table(_controls(ctx, "controls")), "Table 12: MolSwap v1 controls (retired)")


def table13(ctx: RuleContext) -> None:
    """Table 13: the 26 MS-v2 candidates' controls, pass labels and the fixed selection rule's choice (input
    ``controls``: the candidates' control rows)."""
    _write(ctx, typed.design_table(_controls(ctx, "controls")), "Table 13: the 26 MS-v2 design candidates")


def table14(ctx: RuleContext) -> None:
    """Table 14: the final types' controls and computed validity (inputs ``gx``: the GX seeds' control rows,
    ``molswap``: the MS-v2 final types' rows, absent when MolSwap is off)."""
    frame = typed.validity_table(_controls(ctx, "gx"), _controls(ctx, "molswap"))
    _write(ctx, frame, "Table 14: control results for the final typed types")


def molswap_validation(ctx: RuleContext) -> None:
    """The MolSwap validation on the saved files, summed over seeds (input ``checks``)."""
    frame = typed.validation_table(pd.read_csv(ctx.input["checks"], keep_default_na=False, na_values=[""]))
    _write(ctx, frame, "MolSwap validation: replayed edits, variants, isomorphism and negative controls")


# ---- part 4: the typed evaluation (Tables 3, 15-18; graphaudit.glad.blindness) -----------------------------------


def _typed_replay(ctx: RuleContext) -> pd.DataFrame:
    """Every typed run's replay rows (input ``replays``: one file per detector, typed set and x_s)."""
    frame = read_tables(ctx.input_list("replays"))
    return frame if len(frame) else pd.DataFrame(columns=typed_sets.REPLAY_COLUMNS)


def _table14(ctx: RuleContext) -> pd.DataFrame:
    """Table 14 (input ``table14``): which types are valid."""
    return pd.read_csv(ctx.input["table14"])


def table3(ctx: RuleContext) -> None:
    """Table 3: the confirmatory and pilot detectors on GX T1a / T3a / T3b and MS1-MS3 (inputs ``replays``;
    params ``threshold``)."""
    frame = blindness.table3_frame(blindness.cell_means(_typed_replay(ctx)), ctx.params["threshold"])
    _write(ctx, frame, "Table 3: typed anomalies, mean Val-Normal AUROC over the seeds")


def table15(ctx: RuleContext) -> None:
    """Table 15: every detector, type and variant, and the controls (inputs ``replays``, ``table14``; params
    ``threshold``)."""
    cells = blindness.cell_means(_typed_replay(ctx))
    frame = blindness.table15_frame(cells, _table14(ctx), ctx.params["threshold"])
    _write(ctx, frame, "Table 15: typed anomalies for every detector, and the controls")


def table16(ctx: RuleContext) -> None:
    """Table 16: seed-bootstrap 95% intervals of Table 15's cells (inputs ``replays``; params ``bootstrap``,
    ``threshold``)."""
    frame = blindness.table16_frame(_typed_replay(ctx), ctx.params["bootstrap"], ctx.params["threshold"])
    _write(ctx, frame, "Table 16: seed-bootstrap 95% intervals of the typed results")


def table17(ctx: RuleContext) -> None:
    """Table 17: the blindness decision, its sensitivity rows and the scope test (inputs ``replays``, ``table14``;
    params ``threshold``)."""
    cells = blindness.cell_means(_typed_replay(ctx))
    frame = blindness.table17_frame(cells, _table14(ctx), ctx.params["threshold"])
    _write(ctx, frame, "Table 17: decision summary")


def table18(ctx: RuleContext) -> None:
    """Table 18: the confirmatory decision under other blindness thresholds (inputs ``replays``, ``table14``;
    params ``thresholds``)."""
    cells = blindness.cell_means(_typed_replay(ctx))
    frame = blindness.table18_frame(cells, _table14(ctx), ctx.params["thresholds"])
    _write(ctx, frame, "Table 18: the decision under other blindness thresholds (post hoc)")

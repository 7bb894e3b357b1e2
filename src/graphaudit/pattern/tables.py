"""The pattern study's tables, one rule entry each, named after the table it writes
(``results/pattern/tables/<name>.csv`` and its Markdown twin).

PATTERN (Tables 2, 3, 6, 7, 8 and the Appendix A / B diagnostics) reads the scores rule's tidy per-graph files
(``results/pattern/scores/``), the library and the start-check chains; CLUSTER and Minesweeper read their
samplers' shards; Table 4 is assembled from ``cluster.csv`` and ``minesweeper.csv``. The neural tables (Table 3's
neural rows, Tables 9-14, ``oracle_auc``) read the neural runs' tidy scores (``results/pattern/neural/scores/``,
:mod:`graphaudit.pattern.neural_tables`) beside the pattern-blind predictors'; Tables 1 and 5 the quoted scores
and the generators' laws (:mod:`graphaudit.pattern.benchmarks`).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.pattern import neural_tables
from graphaudit.pattern.baselines import table4_frame
from graphaudit.pattern.benchmarks import table1_frame, table5_frame
from graphaudit.pattern.cluster import scoring as cluster_scoring
from graphaudit.pattern.cluster.generator import ClusterLaw
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.minesweeper import scoring as ms_scoring
from graphaudit.pattern.minesweeper.board import Board
from graphaudit.pattern.minesweeper.strip import ChainState
from graphaudit.pattern.neural_tables import Scored
from graphaudit.pattern.plan import check_graphs
from graphaudit.pattern.planted import checks, scoring
from graphaudit.pattern.planted.blind import training_threshold
from graphaudit.pattern.planted.generator import law_for
from graphaudit.pattern.planted.library import load_library, reuse_table
from graphaudit.pattern.settings import BootstrapSettings, Generation, GeneratorLaw, Selection, StartChecks
from graphaudit.pattern.shards import read_shards
from graphaudit.pattern.tidy import read_frame
from graphaudit.report.tables import write_table

__all__ = [
    "appendix_b",
    "blind_checks",
    "cluster",
    "cluster_differences",
    "generator_checks",
    "matcher_diagnostics",
    "minesweeper",
    "oracle_auc",
    "table1",
    "table2",
    "table3",
    "table4",
    "table5",
    "table6",
    "table7",
    "table8",
    "table9",
    "table10",
    "table11",
    "table12",
    "table13",
    "table14",
    "table15",
]

log = logging.getLogger(__name__)

START_CHAINS = ("prior_usual", "prior_planted", "prior_random", "noprior_usual", "noprior_planted")


# ---- PATTERN ---------------------------------------------------------------------------------------
def table2(ctx: RuleContext) -> None:
    """Table 2: the quoted published scores and the reproduced predictors on the official-like test split."""
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    official = scoring.official_scores(read_frame(ctx.input["counts"]), bootstrap.replicates, ctx.params["seed"])
    write_table(
        scoring.table2_frame(official, ctx.params["published"]),
        ctx.output["table"],
        title="Table 2: official-like test split, published (quoted) and reproduced predictors",
    )


TABLE3_COLUMNS = ["predictor", *neural_tables.SCORED_COLUMNS, "model", "protocol", "seed", "not_run"]


def table3(ctx: RuleContext) -> None:
    """Table 3: every predictor on the official-like, familiar and fresh sets, with paired differences: the
    matcher, the largest-match rule and the pattern-blind predictors, then every neural run at the released rule's
    epoch (``model``, ``protocol``, ``seed``; ``not_run``: why a paper claim cannot be judged on a run this size)."""
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    rows = scoring.table3_rows(
        read_frame(ctx.input["counts"]),
        bootstrap.replicates,
        ctx.params["seed"],
        ctx.params["batch"],
        neural_tables.table3_extra(Scored.load(ctx)),
    )
    frame = pd.DataFrame(rows, columns=TABLE3_COLUMNS).astype({"seed": "Int64"})
    write_table(frame, ctx.output["table"], title="Table 3: official-like, familiar and fresh sets")


def table9(ctx: RuleContext) -> None:
    """Table 9: CKGConv under the released protocol by seed and checkpoint rule (Appendix D)."""
    write_table(
        neural_tables.table9_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 9: CKGConv, released patterns, by seed and checkpoint rule (epochs from zero)",
    )


def table10(ctx: RuleContext) -> None:
    """Table 10: every neural run by pattern size, beside the pattern-blind predictor on the same graphs."""
    write_table(
        neural_tables.table10_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 10: accuracy by pattern size (released rule), the pattern-blind predictor on the same graphs",
    )


def table11(ctx: RuleContext) -> None:
    """Table 11: CKGConv trained without the withheld patterns, on held-out and kept official-like test graphs."""
    write_table(
        neural_tables.table11_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 11: CKGConv trained without the withheld patterns (held_out), official-like test graphs",
    )


def table12(ctx: RuleContext) -> None:
    """Table 12: GRIT under the released protocol by seed, with its micro-batching."""
    write_table(
        neural_tables.table12_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 12: GRIT, released configuration (micro_batches: batches per optimizer step; epochs from zero)",
    )


def table13(ctx: RuleContext) -> None:
    """Table 13: CKGConv trained with a new pattern per graph against the same-seed released model."""
    write_table(
        neural_tables.table13_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 13: CKGConv trained and validated on a new pattern per graph (fresh_trained) against released",
    )


def table14(ctx: RuleContext) -> None:
    """Table 14: class-recall differences from the pattern-blind predictor on the fresh graphs."""
    write_table(
        neural_tables.table14_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Table 14: class recalls minus the pattern-blind predictor's on the fresh graphs (paired intervals)",
    )


def oracle_auc(ctx: RuleContext) -> None:
    """The neural runs' oracle best-threshold accuracy on the fresh graphs and their ROC AUC gaps (Section 4.2,
    Appendix H)."""
    write_table(
        neural_tables.oracle_auc_frame(Scored.load(ctx)),
        ctx.output["table"],
        title="Oracle best threshold on the fresh graphs and pooled ROC AUC of the neural runs (released rule)",
    )


def table1(ctx: RuleContext) -> None:
    """Table 1: the published scores of PATTERN, CLUSTER and Minesweeper, quoted from the paper."""
    write_table(
        table1_frame(ctx.params["published"]),
        ctx.output["table"],
        title="Table 1: published scores on the three benchmarks (quoted from the paper, not reproduced)",
    )


def table5(ctx: RuleContext) -> None:
    """Table 5: what each generator draws, from the laws this run's generators used and its library's sizes."""
    generation = ctx.settings("pattern", Generation)
    write_table(
        table5_frame(
            law_for(generation.version, generation.size_law),
            generation.version,
            generation.size_law,
            generation.n_patterns,
            generation.per_pattern,
            [p.size for p in load_library(ctx.input["library"])],
            ClusterLaw(),
        ),
        ctx.output["table"],
        title="Table 5: what each generator draws (from the project's generator laws)",
    )


def table6(ctx: RuleContext) -> None:
    """Table 6: reuse of the planted patterns (by canonical key) across the official-like splits."""
    rows = reuse_table(read_frame(ctx.input["ids"]), load_library(ctx.input["library"]))
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Table 6: planted patterns by canonical form")


def table7(ctx: RuleContext) -> None:
    """Table 7: exact recovery of the likelihood matcher and the largest-match rule by pattern size, with the
    matcher's error kinds, per scored set."""
    rows = []
    for set_name, graphs in read_frame(ctx.input["graphs"]).groupby("set", sort=False):
        rows += scoring.recovery_rows(
            scoring.SET_LABELS[set_name],
            graphs["pattern_size"].to_numpy(),
            graphs["likelihood"].tolist(),
            graphs["largest"].tolist(),
        )
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Table 7: exact recovery by pattern size, error kinds")


def table8(ctx: RuleContext) -> None:
    """Table 8: the official-like test split's predictions under three scoring conventions."""
    frame = scoring.table8_frame(read_frame(ctx.input["counts"]), ctx.params["batch"])
    write_table(frame, ctx.output["table"], title="Table 8: one set of predictions, three conventions")


def generator_checks(ctx: RuleContext) -> None:
    """Generator checks against the released patterns' statistics (Appendix A, D)."""
    law = ctx.settings("law", GeneratorLaw)
    rows = checks.generator_checks(
        load_library(ctx.input["library"]), DenseGraphs.load(ctx.input["train"]), law_for(law.version, law.size_law)
    )
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Generator checks (Appendix A, D)")


def matcher_diagnostics(ctx: RuleContext) -> None:
    """The likelihood matcher's decisions and fallbacks per scored set."""
    rows = [
        scoring.matcher_diagnostics_row(set_name, graphs)
        for set_name, graphs in read_frame(ctx.input["graphs"]).groupby("set", sort=False)
    ]
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Likelihood matcher: decisions and fallbacks")


def appendix_b(ctx: RuleContext) -> None:
    """Appendix B's pattern-blind diagnostics per scored set: threshold, pooled AUCs, starts and range entry."""
    graphs = read_frame(ctx.input["graphs"])
    rows = [
        scoring.appendix_b_row(row["set"], graphs[graphs["set"] == row["set"]], row)
        for _, row in read_frame(ctx.input["sets"]).iterrows()
    ]
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Appendix B: pattern-blind diagnostics")


def blind_checks(ctx: RuleContext) -> None:
    """Appendix B's start checks on the first official-like test graphs, with paired graph-bootstrap intervals."""
    selection, start = ctx.settings("selection", Selection), ctx.settings("checks", StartChecks)
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    order = check_graphs(selection, start)
    weights = scoring.set_bootstrap("start_checks", len(order), bootstrap.replicates, ctx.params["seed"])
    paths = ctx.input_list("chains")
    rows = scoring.blind_check_rows(
        DenseGraphs.load(ctx.input["test"]),
        order,
        {field: read_shards(paths, field) for field in START_CHAINS},
        training_threshold(DenseGraphs.load(ctx.input["train"])),
        weights,
    )
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Appendix B: pattern-blind start checks")


# ---- CLUSTER ---------------------------------------------------------------------------------------
def _cluster_variants(ctx: RuleContext) -> tuple[dict[str, cluster_scoring.Scored], np.ndarray]:
    graphs = DenseGraphs.load(ctx.input["graphs"])
    scored = cluster_scoring.scored_variants(graphs, {v: ctx.input_list(f"samples_{v}") for v in ctx.params["run"]})
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    return scored, cluster_scoring.cluster_bootstrap(graphs.num_graphs, bootstrap.replicates, ctx.params["seed"])


def cluster(ctx: RuleContext) -> None:
    """``cluster.csv``: one row per CLUSTER sampler variant (Table 4's CLUSTER rows, Appendix E)."""
    scored, weights = _cluster_variants(ctx)
    rows = [
        cluster_scoring.score_row(v, samples, counts, weights, ctx.params["batch"])
        for v, (counts, samples) in scored.items()
    ]
    write_table(
        pd.DataFrame(rows, columns=cluster_scoring.CLUSTER_COLUMNS),
        ctx.output["table"],
        title="CLUSTER generator-Bayes sampler (Table 4, Appendix E)",
    )
    for row in rows:
        log.info(
            "%s: pooled %.2f (%.2f-%.2f), agreement median %.3f worst %.3f",
            row["variant"],
            row["pooled"],
            row["ci_low"],
            row["ci_high"],
            row["agreement_median"],
            row["agreement_worst"],
        )


def cluster_differences(ctx: RuleContext) -> None:
    """``cluster_differences.csv``: Appendix E's paired changes between the sampler variants."""
    scored, weights = _cluster_variants(ctx)
    write_table(
        pd.DataFrame(cluster_scoring.difference_rows(scored, weights), columns=cluster_scoring.DIFFERENCE_COLUMNS),
        ctx.output["table"],
        title="CLUSTER sampler variants, paired by graph (Appendix E)",
    )


# ---- Minesweeper -----------------------------------------------------------------------------------
def _board_and_chains(ctx: RuleContext) -> tuple[Board, list[ChainState]]:
    return Board.load(ctx.input["board"]), [ChainState.load(p) for p in ctx.input_list("chains")]


def minesweeper(ctx: RuleContext) -> None:
    """``minesweeper.csv``: belief propagation (features; features and training labels) and the strip
    sampler, with their diagnostics (Table 4's Minesweeper rows)."""
    board, states = _board_and_chains(ctx)
    rows = [
        ms_scoring.bp_row(board, ctx.input["bp_features"], "features"),
        ms_scoring.bp_row(board, ctx.input["bp_labels"], "labels"),
        ms_scoring.strip_row(board, states, ms_scoring.chain_aucs(board, states)),
    ]
    write_table(
        pd.DataFrame(rows, columns=ms_scoring.MINESWEEPER_COLUMNS),
        ctx.output["table"],
        title=f"Minesweeper generator baselines (Table 4; {ms_scoring.board_label(board)})",
    )
    for row in rows:
        log.info("%s (%s): %.2f +- %.2f", row["method"], row["information"], row["mean_auc"], row["sd_auc"])


def table15(ctx: RuleContext) -> None:
    """Table 15: the strip sampler's code checks and convergence criteria."""
    board, states = _board_and_chains(ctx)
    rows = ms_scoring.code_rows(ms_scoring.read_checks(ctx.input["checks"])) + ms_scoring.convergence_rows(
        states, ms_scoring.chain_aucs(board, states)
    )
    write_table(
        pd.DataFrame(rows, columns=ms_scoring.TABLE15_COLUMNS),
        ctx.output["table"],
        title=f"Convergence criteria of the strip sampler (Table 15; {ms_scoring.board_label(board)}; draws: chains x "
        "kept sweeps, the paper's unit)",
    )


# ---- Table 4 ---------------------------------------------------------------------------------------
def table4(ctx: RuleContext) -> None:
    """Table 4: the CLUSTER and Minesweeper generator baselines beside the best published results."""
    frame = table4_frame(
        pd.read_csv(ctx.input["cluster"]), pd.read_csv(ctx.input["minesweeper"]), ctx.params["published"]
    )
    write_table(frame, ctx.output["table"], title="Table 4: generator baselines for CLUSTER and Minesweeper")

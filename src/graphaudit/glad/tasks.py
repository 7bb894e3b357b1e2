"""Rule entry points of the glad study (called through :mod:`graphaudit.common.rule`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from graphaudit.common.atomic import write_json, write_npz
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.glad import audits, kernels, references, tables
from graphaudit.glad.datasets import UB9, is_tox21, load_glad_graphs, node_colours
from graphaudit.glad.protocol import folds_to_json, read_folds, tox21_trials, tu_folds
from graphaudit.graphs.graphlets import graphlet_counts, graphlet_counts_closed_form
from graphaudit.graphs.wl import wl_signatures
from graphaudit.report.tables import read_tables, write_table

log = logging.getLogger(__name__)

SECONDARY = ("DD", "COLLAB", "Tox21_p53", "Tox21_MMP", "MUTAG")


def rule_graphs(ctx: RuleContext) -> tuple[GraphSet, int]:
    """The rule's dataset (``ctx.input["graphsets"]``, wildcard ``dataset``) as :func:`load_glad_graphs` gives it."""
    return load_glad_graphs(ctx.wildcards["dataset"], [GraphSet.load(p) for p in ctx.input_list("graphsets")])


def make_folds(ctx: RuleContext) -> None:
    """Write ``results/glad/folds/{dataset}.json``: every later rule reads its folds from there."""
    dataset, protocol = ctx.wildcards["dataset"], ctx.params["protocol"]
    graphs, n_train = rule_graphs(ctx)
    if is_tox21(dataset):
        folds = tox21_trials(
            graphs,
            n_train,
            dataset,
            protocol["tox21_trials"],
            protocol["tox21_anomaly_label"],
            protocol["holdout_share"],
        )
    else:
        folds = tu_folds(
            graphs.get("graph_labels"), dataset, protocol["folds"], protocol["anomaly_class"], protocol["holdout_share"]
        )
    write_json(ctx.output["folds"], folds_to_json(dataset, "tox21" if is_tox21(dataset) else "tu", folds, protocol))


def graph_features(ctx: RuleContext) -> None:
    """Graph statistics the references and audits share: graphlet counts and WL signatures."""
    dataset = ctx.wildcards["dataset"]
    graphs, _ = rule_graphs(ctx)
    closed_form = dataset in ctx.params["closed_form_graphlets"]
    counts = graphlet_counts_closed_form(graphs) if closed_form else graphlet_counts(graphs, ctx.params["max_k"])
    constant = dataset in ctx.params["constant_features"]
    signatures = wl_signatures(graphs, use_node_labels=not constant)
    log.info(
        "%s: %d graphlet types (%s), %d WL classes",
        dataset,
        counts.shape[1],
        "closed form 3-4" if closed_form else f"ESU 3-{ctx.params['max_k']}",
        len(np.unique(signatures)),
    )
    write_npz(ctx.output["features"], graphlets=counts, wl=signatures)


def audit(ctx: RuleContext) -> None:
    """Audit rows of one dataset (U7, U10, U11, fold disjointness, inverted Tox21 splits)."""
    dataset = ctx.wildcards["dataset"]
    graphs, n_train = rule_graphs(ctx)
    with np.load(ctx.input["features"]) as features:
        signatures = features["wl"]
    rows = audits.audit_rows(
        dataset, graphs, read_folds(ctx.input["folds"]), signatures, n_train, ctx.params["inverted_splits"].get(dataset)
    )
    write_table(pd.DataFrame(rows), ctx.output["table"])


def run_references(ctx: RuleContext) -> None:
    """The training-free references of one dataset, one row per (reference, fold)."""
    dataset, settings = ctx.wildcards["dataset"], ctx.params["references"]
    graphs, _ = rule_graphs(ctx)
    folds, fit_on = read_folds(ctx.input["folds"]), ctx.params["fit_on"]
    with np.load(ctx.input["features"]) as features:
        counts = features["graphlets"]
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    forest = settings["isolation_forest"]
    graphlet_x = references.graphlet_features(graphs, counts)
    rows = references.score_folds(
        "Size only", dataset, folds, references.size_features(graphs), references.lw_scores, fit_on
    )
    rows += references.score_folds("Graphlet count + LW", dataset, folds, graphlet_x, references.lw_scores, fit_on)
    rows += references.score_folds(
        "Graphlet count + IF",
        dataset,
        folds,
        graphlet_x,
        lambda tr, te, seed: references.isolation_forest_scores(tr, te, seed, **forest),
        fit_on,
    )
    rows += references.wl_histogram_rows(
        dataset, graphs, colours, folds, fit_on, settings["wl_iterations"], settings["wl_max_train"], forest
    )
    if dataset not in ctx.params["constant_features"]:
        rows += references.score_folds(
            "Edge-label pair + LW",
            dataset,
            folds,
            references.edge_label_pair_features(graphs, colours),
            references.lw_scores,
            fit_on,
        )
    write_table(pd.DataFrame(rows), ctx.output["table"])


def run_kernels(ctx: RuleContext) -> None:
    """One kernel (WL or PK) on one dataset: every scorer, fit mode and configuration asked for."""
    dataset, kernel = ctx.wildcards["dataset"], ctx.wildcards["kernel"]
    graphs, _ = rule_graphs(ctx)
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    settings = {**ctx.params["kernels"], "fit_on": ctx.params["fit_on"]}
    rows = list(kernels.kernel_rows(dataset, kernel, graphs, colours, read_folds(ctx.input["folds"]), settings))
    write_table(pd.DataFrame(rows), ctx.output["table"])


def run_pairing(ctx: RuleContext) -> None:
    """The released-pairing diagnostic (Table 21) of one dataset."""
    dataset = ctx.wildcards["dataset"]
    graphs, _ = rule_graphs(ctx)
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    rows = kernels.released_pairing_rows(
        dataset, graphs, colours, read_folds(ctx.input["folds"]), ctx.params["kernels"]["default"]
    )
    write_table(pd.DataFrame(rows), ctx.output["table"])


def build_tables(ctx: RuleContext) -> None:
    """Every glad table of this part from the per-dataset rows."""
    folds = {json.loads(Path(p).read_text(encoding="utf-8"))["dataset"]: read_folds(p) for p in ctx.input_list("folds")}
    out = ctx.output
    audit_rows = read_tables(ctx.input_list("audits"))
    write_table(audit_rows, out["audits"], title="Dataset audits (U7, U10, U11)")
    refs = read_tables(ctx.input_list("references"))
    write_table(refs, out["references"], title="Training-free references per fold")
    kernel_rows = read_tables(ctx.input_list("kernels"))
    write_table(
        tables.kernel_long_table(kernel_rows), out["kernels"], title="Kernel baselines per fold and configuration"
    )
    write_table(tables.kernel_table(kernel_rows, list(UB9)), out["table19"], title="Table 19: kernel baselines, UB9")
    write_table(
        tables.kernel_table(kernel_rows, list(SECONDARY)),
        out["table20"],
        title="Table 20: kernel baselines, secondary datasets",
    )
    write_table(
        tables.kernel_gaps(kernel_rows, list(UB9)),
        out["kernel_gaps"],
        title="Kernel hyperparameter gap (tuned - default), UB9",
    )
    write_table(tables.kernel_summary(kernel_rows), out["kernel_summary"], title="Kernel baselines: summaries")
    write_table(
        tables.pairing_table(read_tables(ctx.input_list("pairing")), folds),
        out["table21"],
        title="Table 21: UB-GOLD's unchanged WL-IF pipeline",
    )
    published = yaml.safe_load(Path(ctx.input["published"]).read_text(encoding="utf-8"))["published"]
    write_table(
        tables.chance_z_table([p for p in published if p["dataset"] in folds], folds),
        out["table22"],
        title="Table 22: published kernel AUROCs with z against random pairing",
    )
    write_table(
        tables.reference_table(refs, list(UB9)),
        out["table23"],
        title="Table 23 (reference rows): training-free references, UB9",
    )
    write_table(
        tables.reference_table(refs, list(SECONDARY)),
        out["table28"],
        title="Tables 28-29 (reference rows): training-free references, secondary datasets",
    )

"""Rule entry points of the glad study's per-dataset steps (called through :mod:`graphaudit.common.rule`):
folds, graph features, audits, training-free references, kernel baselines, the released-pairing diagnostic.
The tables are :mod:`graphaudit.glad.tables`."""

from __future__ import annotations

import dataclasses
import logging

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_json, write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import settings_dict
from graphaudit.data.graphset import GraphSet
from graphaudit.glad import audits, kernels, references
from graphaudit.glad.datasets import is_tox21, load_glad_graphs, node_colours
from graphaudit.glad.protocol import folds_to_json, read_folds, tox21_trials, tu_folds
from graphaudit.glad.settings import KernelDefault, KernelScoring, ProtocolSettings, ReferenceSettings
from graphaudit.graphs.graphlets import graphlet_counts, graphlet_counts_closed_form
from graphaudit.graphs.wl import wl_signatures
from graphaudit.report.tables import write_table

log = logging.getLogger(__name__)


def rule_graphs(ctx: RuleContext) -> tuple[GraphSet, int]:
    """The rule's dataset (``ctx.input["graphsets"]``, wildcard ``dataset``) as :func:`load_glad_graphs` gives it."""
    return load_glad_graphs(ctx.wildcards["dataset"], [GraphSet.load(p) for p in ctx.input_list("graphsets")])


def make_folds(ctx: RuleContext) -> None:
    """Write ``results/glad/folds/{dataset}.json``: every later rule reads its folds from there."""
    _write_folds(ctx, ctx.settings("protocol", ProtocolSettings))


def minority_folds(ctx: RuleContext) -> None:
    """Write ``results/glad/minority/folds/{dataset}.json``: the folds of ``glad.protocol`` with the least frequent
    class anomalous, whatever its ``anomaly_class`` says (the minority-class re-run, paper F.11)."""
    _write_folds(ctx, dataclasses.replace(ctx.settings("protocol", ProtocolSettings), anomaly_class="minority"))


def _write_folds(ctx: RuleContext, protocol: ProtocolSettings) -> None:
    dataset = ctx.wildcards["dataset"]
    graphs, n_train = rule_graphs(ctx)
    if is_tox21(dataset):
        made = tox21_trials(
            graphs, n_train, dataset, protocol.tox21_trials, protocol.tox21_anomaly_label, protocol.holdout_share
        )
    else:
        made = tu_folds(
            graphs.get("graph_labels"), dataset, protocol.folds, protocol.anomaly_class, protocol.holdout_share
        )
    kind = "tox21" if is_tox21(dataset) else "tu"
    write_json(ctx.output["folds"], folds_to_json(dataset, kind, made, settings_dict(protocol)))


def graph_features(ctx: RuleContext) -> None:
    """Graph statistics the references and audits share: graphlet counts and WL signatures."""
    dataset, max_k = ctx.wildcards["dataset"], ctx.params["max_k"]
    graphs, _ = rule_graphs(ctx)
    closed_form = dataset in ctx.params["closed_form_graphlets"]
    counts = graphlet_counts_closed_form(graphs) if closed_form else graphlet_counts(graphs, max_k)
    constant = dataset in ctx.params["constant_features"]
    signatures = wl_signatures(graphs, use_node_labels=not constant)
    log.info(
        "%s: %d graphlet types (%s), %d WL classes",
        dataset,
        counts.shape[1],
        "closed form 3-4" if closed_form else f"ESU 3-{max_k}",
        len(np.unique(signatures)),
    )
    write_npz(ctx.output["features"], graphlets=counts, wl=signatures)


def audit(ctx: RuleContext) -> None:
    """Audit rows of one dataset (U7, U10, U11, fold disjointness, inverted Tox21 splits)."""
    dataset = ctx.wildcards["dataset"]
    graphs, n_train = rule_graphs(ctx)
    signatures = read_npz(ctx.input["features"], ("wl",))["wl"]
    inverted_note = ctx.params["inverted_splits"].get(dataset)  # None: not an inverted split
    rows = audits.audit_rows(dataset, graphs, read_folds(ctx.input["folds"]), signatures, n_train, inverted_note)
    write_table(pd.DataFrame(rows), ctx.output["table"])


def run_references(ctx: RuleContext) -> None:
    """The training-free references of one dataset, one row per (reference, fold)."""
    dataset, settings = ctx.wildcards["dataset"], ctx.settings("references", ReferenceSettings)
    graphs, _ = rule_graphs(ctx)
    fold_list, fit_on = read_folds(ctx.input["folds"]), ctx.params["fit_on"]
    counts = read_npz(ctx.input["features"], ("graphlets",))["graphlets"]
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    forest = settings.isolation_forest
    graphlet_x = references.graphlet_features(graphs, counts)
    rows = references.score_folds(
        "Size only", dataset, fold_list, references.size_features(graphs), references.lw_scores, fit_on
    )
    rows += references.score_folds("Graphlet count + LW", dataset, fold_list, graphlet_x, references.lw_scores, fit_on)
    rows += references.score_folds(
        "Graphlet count + IF",
        dataset,
        fold_list,
        graphlet_x,
        lambda tr, te, seed: references.isolation_forest_scores(tr, te, seed, forest),
        fit_on,
    )
    rows += references.wl_histogram_rows(
        dataset, graphs, colours, fold_list, fit_on, settings.wl_iterations, settings.wl_max_train, forest
    )
    if dataset not in ctx.params["constant_features"]:
        rows += references.score_folds(
            "Edge-label pair + LW",
            dataset,
            fold_list,
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
    scoring, fold_list = ctx.settings("kernels", KernelScoring), read_folds(ctx.input["folds"])
    rows = list(kernels.kernel_rows(dataset, kernel, graphs, colours, fold_list, scoring, ctx.params["fit_on"]))
    write_table(pd.DataFrame(rows), ctx.output["table"])


def run_pairing(ctx: RuleContext) -> None:
    """The released-pairing diagnostic (Table 21) of one dataset."""
    dataset = ctx.wildcards["dataset"]
    graphs, _ = rule_graphs(ctx)
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    default = kernels.KernelConfig.of(ctx.settings("default", KernelDefault))
    rows = kernels.released_pairing_rows(dataset, graphs, colours, read_folds(ctx.input["folds"]), default)
    write_table(pd.DataFrame(rows), ctx.output["table"])

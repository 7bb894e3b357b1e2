"""Part 3's tables from saved predictions (Section 4, Appendix D): every neural run's per-node probabilities,
and a user's own model's (bring your own model), scored by the rules that score the pattern-blind predictors.

Scoring. A predictions file (``predictions_<set>.npz``, the shard format of :mod:`graphaudit.pattern.shards`)
holds ``prob_<rule>``, the pattern-class probability of every node at the epoch checkpoint rule ``<rule>``
picked. A node is labelled pattern when ``p > 0.5`` (the released threshold,
:func:`graphaudit.pattern.neural.neural_labels`), and the labels become the same per-graph 2 x 2 counts as the
pattern-blind predictors' (:func:`graphaudit.pattern.planted.scoring.counts_for`), on the same graphs in the
same order. Pooled class-weighted accuracy, its graph-bootstrap interval and every paired difference reuse the
resamples of the set (:func:`~graphaudit.pattern.planted.scoring.set_bootstrap`), so a model and the
pattern-blind predictor are resampled together; comparisons between different graph sets (familiar against
official, held-out against kept graphs) use independent resamples. ROC AUC and the oracle threshold read the
probabilities pooled over a set.

Rule entries (through :mod:`graphaudit.common.rule`): :func:`neural_scores` turns every run folder into tidy
files under ``results/pattern/neural/scores/`` (``counts.csv``: per run, checkpoint rule, set and graph the
confusion counts; ``sets.csv``: per run, rule and set the pooled AUC, the oracle threshold and its accuracy,
and the accuracy the training loop logged; ``runs.csv``: per run and rule the chosen epoch, the run's budget
and why a paper claim cannot be judged on it; ``graphs.csv``: every scored graph's planted pattern id and
size), and the table functions of :mod:`graphaudit.pattern.tables` build Tables 3 (neural rows), 9-14 and the
oracle / AUC table from them (:class:`Scored`). :func:`byo` scores a user's predictions folder by the same
functions.

Protocols: ``released``; ``held_out`` (its ``run.json`` lists ``withheld_patterns``, the withheld patterns' library
indices, as the sets' truth files record them in ``pattern_id``);
``fresh_trained``. A table lists the runs that exist and leaves out the protocols that were not run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.common.integrity import read_npz
from graphaudit.common.rule import RuleContext
from graphaudit.pattern.dense import DenseGraphs, Truth
from graphaudit.pattern.neural_plan import load_recipes, neural_recipe
from graphaudit.pattern.plan import evaluated_graphs
from graphaudit.pattern.planted.blind import threshold_predictions
from graphaudit.pattern.planted.scoring import PATTERN_BLIND, SET_LABELS, counts_for, set_bootstrap
from graphaudit.pattern.settings import BootstrapSettings, Selection
from graphaudit.pattern.shards import read_shards
from graphaudit.pattern.tidy import read_frame, write_frame
from graphaudit.report.tables import write_table
from graphaudit.stats.classification import (
    batch_mean,
    class_weighted_accuracy,
    graph_bootstrap,
    percentile_interval,
    plain_accuracy,
)
from graphaudit.stats.metrics import auroc, oracle_threshold

__all__ = [
    "AUC_GAP_EXPECTED",
    "BLIND_NOPRIOR",
    "COUNT_COLUMNS",
    "GRAPH_COLUMNS",
    "LARGE_MIN",
    "MODEL_LABELS",
    "PAPER_RULE",
    "PAPER_TRAIN_GRAPHS",
    "RUN_COLUMNS",
    "SET_SCORE_COLUMNS",
    "THRESHOLD",
    "Scored",
    "budget_reason",
    "byo",
    "byo_frame",
    "host_recall",
    "neural_scores",
    "oracle_auc_frame",
    "pattern_recall",
    "predictor_label",
    "score_predictions",
    "table3_extra",
    "table9_frame",
    "table10_frame",
    "table11_frame",
    "table12_frame",
    "table13_frame",
    "table14_frame",
]

log = logging.getLogger(__name__)

THRESHOLD = 0.5  # the released loops' threshold (GraphGym's model.thresh) on the sigmoid of the logit
PAPER_RULE = "released"  # the checkpoint rule the paper reports (spec 4.8)
LARGE_MIN = 14  # Tables 10 and 11 split the patterns at 14 nodes
AUC_GAP_EXPECTED = 1.0  # Appendix H: familiar minus fresh ROC AUC of at least 1 point was the pre-registered gap
BLIND_NOPRIOR = "Pattern-blind, no size prior"  # the scores rule's name of the sampler without the size prior
MODEL_LABELS = {"ckgconv": "CKGConv", "grit": "GRIT"}
PAPER_TRAIN_GRAPHS = {"released": 10_000, "held_out": 8_000, "fresh_trained": 10_000}
"""Training graphs of the paper's runs per protocol (Appendix D): the paper's budget, with the released recipe."""

COUNT_COLUMNS = ["protocol", "model", "seed", "rule", "set", "graph", "tn", "fp", "fn", "tp"]
SET_SCORE_COLUMNS = ["protocol", "model", "seed", "rule", "set", "auc", "oracle_threshold", "oracle_cw_acc", "logged"]
RUN_COLUMNS = [
    "protocol",
    "model",
    "seed",
    "rule",
    "epoch",
    "epochs",
    "max_epochs",
    "train_hours",
    "device",
    "batch_size",
    "micro_batches",
    "train_graphs",
    "parameters",
    "withheld",
    "not_run",
]
GRAPH_COLUMNS = ["set", "graph", "pattern_id", "pattern_size"]
RUN_KEY = ["protocol", "model", "seed"]
CELLS = ["tn", "fp", "fn", "tp"]


# ---- statistics --------------------------------------------------------------------------------------------------
def pattern_recall(counts: np.ndarray) -> np.ndarray:
    """100 x recall of the pattern class (sensitivity) of pooled ``(..., 2, 2)`` counts."""
    counts = np.asarray(counts, dtype=np.float64)
    return 100.0 * counts[..., 1, 1] / counts[..., 1, :].sum(axis=-1)


def host_recall(counts: np.ndarray) -> np.ndarray:
    """100 x recall of the host class (specificity) of pooled ``(..., 2, 2)`` counts."""
    counts = np.asarray(counts, dtype=np.float64)
    return 100.0 * counts[..., 0, 0] / counts[..., 0, :].sum(axis=-1)


Statistic = Callable[[np.ndarray], np.ndarray]
Estimate = tuple[float, float, float]  # point, 95% interval low, high
MISSING: Estimate = (np.nan, np.nan, np.nan)


def _score(counts: np.ndarray, weights: np.ndarray, statistic: Statistic = class_weighted_accuracy) -> Estimate:
    """The statistic of pooled counts and its graph-bootstrap interval."""
    if not len(counts):
        return MISSING
    return (float(statistic(counts.sum(axis=0))), *percentile_interval(graph_bootstrap(counts, weights, statistic)))


def _paired(
    a: np.ndarray, b: np.ndarray, weights: np.ndarray, statistic: Statistic = class_weighted_accuracy
) -> Estimate:
    """statistic(a) - statistic(b) on the same graphs, with the interval of the same resamples."""
    if not len(a):
        return MISSING
    point = float(statistic(a.sum(axis=0)) - statistic(b.sum(axis=0)))
    reps = graph_bootstrap(a, weights, statistic) - graph_bootstrap(b, weights, statistic)
    return (point, *percentile_interval(reps))


def _unpaired(a: np.ndarray, weights_a: np.ndarray, b: np.ndarray, weights_b: np.ndarray) -> Estimate:
    """CW(a) - CW(b) on different graph sets, each resampled on its own."""
    if not len(a) or not len(b):
        return MISSING
    point = float(class_weighted_accuracy(a.sum(axis=0)) - class_weighted_accuracy(b.sum(axis=0)))
    return (point, *percentile_interval(graph_bootstrap(a, weights_a) - graph_bootstrap(b, weights_b)))


def _cells(name: str, estimate: Estimate) -> dict[str, float]:
    return dict(zip(_estimate_columns(name), estimate))


def _estimate_columns(name: str) -> list[str]:
    return [name, f"{name}_ci_low", f"{name}_ci_high"]


def _cw(counts: np.ndarray) -> float:
    return float(class_weighted_accuracy(counts.sum(axis=0))) if len(counts) else np.nan


# ---- scoring one source of predictions ---------------------------------------------------------------------------
def prediction_rules(path: str | Path) -> list[str]:
    """The checkpoint rules of a predictions file: its ``prob_<rule>`` fields, in file order."""
    return [name.removeprefix("prob_") for name in read_npz(path) if name.startswith("prob_")]


def score_predictions(
    paths: Mapping[str, str | Path], graphs: Mapping[str, DenseGraphs], orders: Mapping[str, Sequence[int]]
) -> tuple[list[tuple], list[dict]]:
    """One model's predictions files (set -> path) on the sets' graphs, graphs in ``orders``: per rule and set the
    count rows ``(rule, set, graph, tn, fp, fn, tp)`` and ``{rule, set, auc, oracle_threshold, oracle_cw_acc}``."""
    count_rows, set_rows = [], []
    for set_name, path in paths.items():
        order, stored = orders[set_name], graphs[set_name]
        labels = np.concatenate([stored.labels(g) for g in order])
        for rule in prediction_rules(path):
            probs = read_shards([str(path)], f"prob_{rule}")
            counts = counts_for(stored, order, {g: threshold_predictions(p, THRESHOLD) for g, p in probs.items()})
            count_rows += [(rule, set_name, g, *cells) for g, cells in zip(order, counts.reshape(-1, 4).tolist())]
            pooled = np.concatenate([probs[g] for g in order])
            threshold, best = oracle_threshold(labels, pooled)
            set_rows.append(
                {
                    "rule": rule,
                    "set": set_name,
                    "auc": auroc(labels, pooled),
                    "oracle_threshold": threshold,
                    "oracle_cw_acc": best,
                }
            )
    return count_rows, set_rows


def _graph_rows(truths: Mapping[str, Truth], orders: Mapping[str, Sequence[int]]) -> pd.DataFrame:
    rows = [(s, g, int(t.pattern_id[g]), int(t.pattern_size[g])) for s, t in truths.items() for g in orders[s]]
    return pd.DataFrame(rows, columns=GRAPH_COLUMNS)


# ---- runs --------------------------------------------------------------------------------------------------------
def budget_reason(run: Mapping[str, Any], recipes: Mapping[str, Any]) -> str:
    """Why a paper claim cannot be judged on ``run`` (its ``run.json``): '' when it trained the released recipe
    (``recipes``: ``config/pattern/neural.yaml``) on the paper's number of training graphs, else what it cut."""
    full = neural_recipe(run["model"], recipes[run["model"]])
    cuts = [
        f"{key} {value} (released {asdict(full.model_config)[key]})"
        for key, value in run["model_config"].items()
        if asdict(full.model_config).get(key) != value
    ]
    trained = run["train_config"]
    cuts += [
        f"{key} {trained[key]} (released {getattr(full, key)})"
        for key in ("max_epochs", "batch_size", "lr")
        if trained[key] != getattr(full, key)
    ]
    paper = PAPER_TRAIN_GRAPHS.get(run["protocol"])
    if paper is not None and run["graphs"]["train"] < paper:
        cuts.append(f"{run['graphs']['train']} training graphs (paper {paper:,})")
    if not cuts:
        return ""
    return f"needs the paper's GPU budget; this run: {', '.join(cuts)}"


def _run_rows(run: Mapping[str, Any], withheld: Sequence[int], reason: str) -> list[dict]:
    """:data:`RUN_COLUMNS` rows of one run, one per checkpoint rule."""
    trained = run["train_config"]
    return [
        {
            "protocol": run["protocol"],
            "model": run["model"],
            "seed": int(run["seed"]),
            "rule": rule,
            "epoch": epoch,
            "epochs": int(run["epochs"]),
            "max_epochs": int(trained["max_epochs"]),
            "train_hours": float(run["wall_s"]) / 3600.0,
            "device": run["device"],
            "batch_size": int(trained["batch_size"]),
            "micro_batches": int(trained["micro_batches"]),
            "train_graphs": int(run["graphs"]["train"]),
            "parameters": int(run["parameters"]),
            "withheld": json.dumps(sorted(withheld)),
            "not_run": reason,
        }
        for rule, epoch in run["chosen"].items()
    ]


def run_withheld(run: Mapping[str, Any], path: str) -> list[int]:
    """The withheld patterns' library indices of a run (``run.json``'s ``withheld_patterns``, empty but for the
    held-out protocol)."""
    patterns = run.get("withheld_patterns", [])
    if not all(isinstance(k, int) and k >= 0 for k in patterns):
        raise ValueError(
            f"{path}: 'withheld_patterns' must list library indices (non-negative integers), got {patterns}"
        )
    return sorted(patterns)


def _set_inputs(
    ctx: RuleContext, selection: Selection, sets: Sequence[str]
) -> tuple[dict[str, DenseGraphs], dict[str, Truth], dict[str, list[int]]]:
    graphs = {s: DenseGraphs.load(ctx.input[f"graphs_{s}"]) for s in sets}
    truths = {s: Truth.load(ctx.input[f"truth_{s}"]) for s in sets}
    return graphs, truths, {s: evaluated_graphs(s, selection) for s in sets}


def neural_scores(ctx: RuleContext) -> None:
    """Every run folder (``input.runs``: their ``run.json``; the predictions beside them) as the tidy files the
    neural tables read: ``counts``, ``sets``, ``runs`` and ``graphs`` (module docstring)."""
    selection, sets = ctx.settings("selection", Selection), list(ctx.params["sets"])
    graphs, truths, orders = _set_inputs(ctx, selection, sets)
    recipes = load_recipes(ctx.input["recipes"])
    declared = set(ctx.input_list("predictions"))
    counts, scores, runs = [], [], []
    for run_path in ctx.input_list("runs"):
        folder = Path(run_path).parent
        run = json.loads(Path(run_path).read_text(encoding="utf-8"))
        paths = {s: str(folder / f"predictions_{s}.npz") for s in sets}
        undeclared = sorted(set(paths.values()) - declared)
        if undeclared:
            raise ValueError(f"{run_path}: the rule does not declare {undeclared} as inputs")
        withheld = run_withheld(run, run_path)
        key = (run["protocol"], run["model"], int(run["seed"]))
        rows, set_rows = score_predictions({s: paths[s] for s in sets}, graphs, orders)
        counts += [(*key, *row) for row in rows]
        for row in set_rows:
            logged = run.get("at_chosen", {}).get(row["rule"], {}).get(f"{row['set']}_acc")
            scores.append({**dict(zip(RUN_KEY, key)), **row, "logged": np.nan if logged is None else 100.0 * logged})
        runs += _run_rows(run, withheld, budget_reason(run, recipes))
        log.info("%s %s seed %d: %d rules on %s", *key, len(run["chosen"]), sets)
    write_frame(pd.DataFrame(counts, columns=COUNT_COLUMNS), ctx.output["counts"])
    write_frame(pd.DataFrame(scores, columns=SET_SCORE_COLUMNS), ctx.output["sets"])
    write_frame(pd.DataFrame(runs, columns=RUN_COLUMNS).astype({"epoch": "Int64"}), ctx.output["runs"])
    write_frame(_graph_rows(truths, orders), ctx.output["graphs"])


# ---- the scored runs, as the tables read them --------------------------------------------------------------------
def predictor_label(model: str, protocol: str, seed: int) -> str:
    """A neural row's predictor in Table 3, e.g. ``CKGConv (released), seed 0``."""
    return f"{MODEL_LABELS.get(model, model)} ({protocol}), seed {seed}"


@dataclass(frozen=True, eq=False)
class Scored:
    """The neural runs' tidy scores (:func:`neural_scores`' files) beside the pattern-blind predictors' per-graph
    counts (the scores rule's ``counts.csv``, :data:`graphaudit.pattern.planted.scoring.COUNT_COLUMNS`) and
    pooled AUCs (its ``sets.csv``), with the bootstrap settings."""

    counts: pd.DataFrame
    sets: pd.DataFrame
    runs: pd.DataFrame
    graphs: pd.DataFrame
    blind: pd.DataFrame
    blind_sets: pd.DataFrame
    replicates: int
    seed: int
    _weights: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, ctx: RuleContext) -> Scored:
        """From a table rule's inputs ``neural_{counts,sets,runs,graphs}``, ``counts`` and ``blind_sets``."""
        bootstrap = ctx.settings("bootstrap", BootstrapSettings)
        frames = {name: read_frame(ctx.input[f"neural_{name}"]) for name in ("counts", "sets", "runs", "graphs")}
        return cls(
            **frames,
            blind=read_frame(ctx.input["counts"]),
            blind_sets=read_frame(ctx.input["blind_sets"]),
            replicates=bootstrap.replicates,
            seed=int(ctx.params["seed"]),
        )

    # -- which runs
    def run_keys(self, protocol: str | None = None, model: str | None = None) -> list[tuple[str, str, int]]:
        """(protocol, model, seed) of every run, in the runs file's order, optionally of one protocol / model."""
        runs = self.runs[(self.runs["rule"] == PAPER_RULE) & self.runs["epoch"].notna()]
        if protocol:
            runs = runs[runs["protocol"] == protocol]
        if model:
            runs = runs[runs["model"] == model]
        return [(p, m, int(s)) for p, m, s in runs[RUN_KEY].itertuples(index=False)]

    def rules(self, key: tuple[str, str, int]) -> list[str]:
        return self._run_frame(key)["rule"].tolist()

    def run(self, key: tuple[str, str, int], rule: str = PAPER_RULE) -> pd.Series:
        rows = self._run_frame(key)
        return rows[rows["rule"] == rule].iloc[0]

    def has(self, key: tuple[str, str, int], rule: str = PAPER_RULE) -> bool:
        rows = self._run_frame(key)
        return bool((rows["rule"] == rule).any())

    def _run_frame(self, key: tuple[str, str, int]) -> pd.DataFrame:
        p, m, s = key
        return self.runs[(self.runs["protocol"] == p) & (self.runs["model"] == m) & (self.runs["seed"] == s)]

    def set_names(self) -> list[str]:
        """The scored sets, in the scores rule's order."""
        return list(self.blind["set"].unique())

    # -- per-graph counts, every predictor aligned to the pattern-blind rows' graph order
    def order(self, set_name: str) -> np.ndarray:
        rows = self.blind[(self.blind["set"] == set_name) & (self.blind["predictor"] == PATTERN_BLIND)]
        return rows["graph"].to_numpy()

    def blind_counts(self, set_name: str, predictor: str = PATTERN_BLIND) -> np.ndarray:
        rows = self.blind[(self.blind["set"] == set_name) & (self.blind["predictor"] == predictor)]
        return _aligned(rows, self.order(set_name), f"{predictor} on {set_name}")

    def model_counts(self, key: tuple[str, str, int], set_name: str, rule: str = PAPER_RULE) -> np.ndarray:
        p, m, s = key
        c = self.counts
        rows = c[
            (c["protocol"] == p) & (c["model"] == m) & (c["seed"] == s) & (c["rule"] == rule) & (c["set"] == set_name)
        ]
        return _aligned(rows, self.order(set_name), f"{predictor_label(m, p, s)} ({rule}) on {set_name}")

    def model_set(self, key: tuple[str, str, int], set_name: str, rule: str = PAPER_RULE) -> pd.Series | None:
        """The run's pooled AUC, oracle threshold and logged accuracy on a set (None if the set was not scored)."""
        p, m, s = key
        c = self.sets
        rows = c[
            (c["protocol"] == p) & (c["model"] == m) & (c["seed"] == s) & (c["rule"] == rule) & (c["set"] == set_name)
        ]
        return rows.iloc[0] if len(rows) else None

    def pattern_ids(self, set_name: str) -> np.ndarray:
        """Each graph's planted library pattern, in :meth:`order`."""
        return self._graph_field(set_name, "pattern_id")

    def pattern_sizes(self, set_name: str) -> np.ndarray:
        return self._graph_field(set_name, "pattern_size")

    def _graph_field(self, set_name: str, column: str) -> np.ndarray:
        rows = self.graphs[self.graphs["set"] == set_name].set_index("graph")[column]
        return rows.loc[self.order(set_name)].to_numpy()

    def weights(self, set_name: str, graphs: int, subset: str = "") -> np.ndarray:
        """The bootstrap resamples of a set (those of its Table 3 rows), or of a named subset of its graphs."""
        name = f"{set_name}:{subset}" if subset else set_name
        if (name, subset, graphs) not in self._weights:
            self._weights[(name, subset, graphs)] = set_bootstrap(name, graphs, self.replicates, self.seed)
        return self._weights[(name, subset, graphs)]

    def not_run(self, *keys: tuple[str, str, int]) -> str:
        """The budget reasons of the runs a row reads, joined."""
        reasons = dict.fromkeys(str(self.run(k)["not_run"]) for k in keys if self.has(k))
        return " ".join(r for r in reasons if r and r != "nan")


def _aligned(rows: pd.DataFrame, order: np.ndarray, what: str) -> np.ndarray:
    """``(graphs, 2, 2)`` counts of ``rows`` (one per graph) in ``order``; every graph must be there."""
    by_graph = rows.set_index("graph")[CELLS]
    missing = sorted(set(order.tolist()) - set(by_graph.index.tolist()))
    if missing or len(by_graph) != len(order):
        raise ValueError(
            f"{what}: counts for {len(by_graph)} graphs, the set scores {len(order)} (missing {missing[:10]})"
        )
    return by_graph.loc[order].to_numpy(dtype=np.int64).reshape(-1, 2, 2)


# ---- Table 3's neural rows ---------------------------------------------------------------------------------------
def table3_extra(scored: Scored) -> dict[str, list[tuple[str, np.ndarray, dict]]]:
    """Table 3's neural rows per set: (predictor, per-graph counts at the released rule's epoch, its columns
    ``model``, ``protocol``, ``seed``, ``not_run``), every run in order."""
    return {
        set_name: [
            (
                predictor_label(key[1], key[0], key[2]),
                scored.model_counts(key, set_name),
                {"model": key[1], "protocol": key[0], "seed": key[2], "not_run": scored.not_run(key)},
            )
            for key in scored.run_keys()
        ]
        for set_name in scored.set_names()
    }


# ---- Tables 9, 12, 13: one model per protocol and seed -----------------------------------------------------------
def _set_scores(scored: Scored, key: tuple[str, str, int], rule: str = PAPER_RULE, prefix: str = "") -> dict[str, Any]:
    """Per scored set the pooled accuracy with its interval, and the accuracy the training loop logged."""
    row: dict[str, Any] = {}
    for set_name in scored.set_names():
        counts = scored.model_counts(key, set_name, rule)
        label = prefix + SET_LABELS[set_name]
        row.update(_cells(label, _score(counts, scored.weights(set_name, len(counts)))))
        logged = scored.model_set(key, set_name, rule)
        row[f"{label}_logged"] = np.nan if logged is None else logged["logged"]
    return row


def _set_columns(scored: Scored, prefix: str = "") -> list[str]:
    """The columns of :func:`_set_scores`."""
    labels = [prefix + SET_LABELS[s] for s in scored.set_names()]
    return [c for label in labels for c in (*_estimate_columns(label), f"{label}_logged")]


def _between_sets(scored: Scored, key: tuple[str, str, int], first: str, second: str, rule: str) -> Estimate:
    """Unpaired difference of a model's accuracy on two sets (NaN when one was not scored)."""
    if first not in scored.set_names() or second not in scored.set_names():
        return MISSING
    a, b = scored.model_counts(key, first, rule), scored.model_counts(key, second, rule)
    return _unpaired(a, scored.weights(first, len(a)), b, scored.weights(second, len(b)))


def _minus_blind(scored: Scored, key: tuple[str, str, int], set_name: str, rule: str = PAPER_RULE) -> Estimate:
    """A model minus the pattern-blind predictor on the same graphs of a set, paired."""
    if set_name not in scored.set_names():
        return MISSING
    counts = scored.model_counts(key, set_name, rule)
    return _paired(counts, scored.blind_counts(set_name), scored.weights(set_name, len(counts)))


RUN_ID_COLUMNS = ["model", "protocol", "seed", "rule", "epoch", "epochs", "max_epochs"]


def _run_columns(scored: Scored, key: tuple[str, str, int], rule: str = PAPER_RULE) -> dict[str, Any]:
    """:data:`RUN_ID_COLUMNS`: the run, the checkpoint rule, the epoch it chose (from zero) and the epochs run."""
    run = scored.run(key, rule)
    return {
        "model": key[1],
        "protocol": key[0],
        "seed": key[2],
        "rule": rule,
        "epoch": int(run["epoch"]),
        "epochs": int(run["epochs"]),
        "max_epochs": int(run["max_epochs"]),
    }


def table9_frame(scored: Scored, model: str = "ckgconv", protocol: str = "released") -> pd.DataFrame:
    """Table 9: one model under one protocol, by seed and checkpoint rule (the epoch each rule picks, counted from
    zero), its accuracy on every set, familiar minus official and fresh minus familiar (unpaired), fresh minus the
    pattern-blind predictor (paired), the training time and device."""
    rows = []
    for key in scored.run_keys(protocol, model):
        for rule in scored.rules(key):
            run = scored.run(key, rule)
            if pd.isna(run["epoch"]):
                continue  # a rule that picked no epoch kept no predictions
            rows.append(
                {
                    **_run_columns(scored, key, rule),
                    "train_hours": float(run["train_hours"]),
                    "device": run["device"],
                    **_set_scores(scored, key, rule),
                    **_cells("familiar_minus_official", _between_sets(scored, key, "familiar", "test", rule)),
                    **_cells("fresh_minus_familiar", _between_sets(scored, key, "fresh", "familiar", rule)),
                    **_cells("fresh_minus_blind", _minus_blind(scored, key, "fresh", rule)),
                    "not_run": scored.not_run(key),
                }
            )
    differences = ("familiar_minus_official", "fresh_minus_familiar", "fresh_minus_blind")
    columns = [
        *RUN_ID_COLUMNS,
        "train_hours",
        "device",
        *_set_columns(scored),
        *(c for name in differences for c in _estimate_columns(name)),
        "not_run",
    ]
    return pd.DataFrame(rows, columns=columns)


def table12_frame(scored: Scored, model: str = "grit", protocol: str = "released") -> pd.DataFrame:
    """Table 12: GRIT by seed at the released rule's epoch: accuracy on every set, official minus fresh
    (unpaired), fresh minus the pattern-blind predictor (paired), familiar minus fresh ROC AUC against the
    pre-registered gap (:data:`AUC_GAP_EXPECTED`), epochs trained and chosen, and the micro-batches per step."""
    rows = []
    for key in scored.run_keys(protocol, model):
        run = scored.run(key)
        familiar, fresh = scored.model_set(key, "familiar"), scored.model_set(key, "fresh")
        gap = np.nan if familiar is None or fresh is None else float(familiar["auc"] - fresh["auc"])
        rows.append(
            {
                **_run_columns(scored, key),
                **_set_scores(scored, key),
                **_cells("official_minus_fresh", _between_sets(scored, key, "test", "fresh", PAPER_RULE)),
                **_cells("fresh_minus_blind", _minus_blind(scored, key, "fresh")),
                "auc_familiar_minus_fresh": gap,
                "auc_gap_held": "" if np.isnan(gap) else ("yes" if gap >= AUC_GAP_EXPECTED else "no"),
                "batch_size": int(run["batch_size"]),
                "micro_batches": int(run["micro_batches"]),
                "device": run["device"],
                "not_run": scored.not_run(key),
            }
        )
    columns = [
        *RUN_ID_COLUMNS,
        *_set_columns(scored),
        *_estimate_columns("official_minus_fresh"),
        *_estimate_columns("fresh_minus_blind"),
        "auc_familiar_minus_fresh",
        "auc_gap_held",
        "batch_size",
        "micro_batches",
        "device",
        "not_run",
    ]
    return pd.DataFrame(rows, columns=columns)


def table13_frame(scored: Scored, model: str = "ckgconv") -> pd.DataFrame:
    """Table 13: the model trained and validated on a new pattern per graph (``fresh_trained``) against the
    same-seed model of the released protocol: both on every set, the fresh gain (paired on the fresh graphs), the
    fresh-trained model minus the pattern-blind predictor (paired), epochs trained and chosen."""
    rows = []
    for key in scored.run_keys("fresh_trained", model):
        released = ("released", model, key[2])
        has_released = scored.has(released)
        ours = _set_scores(scored, key, prefix="trained_")
        theirs = _set_scores(scored, released, prefix="released_") if has_released else {}
        gain = MISSING
        if has_released and "fresh" in scored.set_names():
            a, b = scored.model_counts(key, "fresh"), scored.model_counts(released, "fresh")
            gain = _paired(a, b, scored.weights("fresh", len(a)))
        rows.append(
            {
                **_run_columns(scored, key),
                **ours,
                **theirs,
                **_cells("fresh_gain", gain),
                **_cells("fresh_minus_blind", _minus_blind(scored, key, "fresh")),
                "released_epoch": int(scored.run(released)["epoch"]) if has_released else pd.NA,
                "not_run": scored.not_run(key, released),
            }
        )
    columns = [
        *RUN_ID_COLUMNS,
        *_set_columns(scored, "trained_"),
        *_set_columns(scored, "released_"),
        *_estimate_columns("fresh_gain"),
        *_estimate_columns("fresh_minus_blind"),
        "released_epoch",
        "not_run",
    ]
    return pd.DataFrame(rows, columns=columns).astype({"released_epoch": "Int64"})


# ---- Table 10: by pattern size -----------------------------------------------------------------------------------
SIZE_GROUPS = (f"under {LARGE_MIN} nodes", f"{LARGE_MIN} nodes or more")


def _size_masks(sizes: np.ndarray) -> dict[str, np.ndarray]:
    return {SIZE_GROUPS[0]: sizes < LARGE_MIN, SIZE_GROUPS[1]: sizes >= LARGE_MIN}


TABLE10_COLUMNS = ["model", "protocol", "seed", "set", "pattern_size", "graphs", "cw_acc", "blind_cw_acc", "not_run"]


def table10_frame(scored: Scored) -> pd.DataFrame:
    """Table 10: every run's accuracy (released rule) on each set's graphs with patterns under 14 nodes and with 14
    or more, beside the pattern-blind predictor on the same graphs."""
    rows = []
    for key in scored.run_keys():
        for set_name in scored.set_names():
            counts, blind = scored.model_counts(key, set_name), scored.blind_counts(set_name)
            for group, mask in _size_masks(scored.pattern_sizes(set_name)).items():
                rows.append(
                    {
                        "model": key[1],
                        "protocol": key[0],
                        "seed": key[2],
                        "set": SET_LABELS[set_name],
                        "pattern_size": group,
                        "graphs": int(mask.sum()),
                        "cw_acc": _cw(counts[mask]),
                        "blind_cw_acc": _cw(blind[mask]),
                        "not_run": scored.not_run(key),
                    }
                )
    return pd.DataFrame(rows, columns=TABLE10_COLUMNS)


TABLE11_COLUMNS = [
    *RUN_ID_COLUMNS,
    "withheld_patterns",
    "graphs_held_out",
    "graphs_held_out_small",
    "graphs_kept",
    *_estimate_columns("held_out"),
    *_estimate_columns("kept"),
    *_estimate_columns("held_out_minus_kept"),
    *_estimate_columns("blind_held_out"),
    *_estimate_columns("blind_kept"),
    *_estimate_columns("held_out_minus_blind"),
    *_estimate_columns("held_out_minus_blind_noprior"),
    "all_patterns_held_out",
    *_estimate_columns("held_out_minus_all_patterns"),
    *_estimate_columns("kept_minus_all_patterns"),
    "held_out_large",
    "held_out_small",
    "kept_large",
    "kept_small",
    "not_run",
]


# ---- Table 11: held-out against kept patterns --------------------------------------------------------------------
def table11_frame(scored: Scored, model: str = "ckgconv") -> pd.DataFrame:
    """Table 11: each held-out run on the official-like test graphs split by whether their planted pattern was
    withheld from its training: both parts with intervals, held-out minus kept (unpaired), the pattern-blind
    predictors on both parts, held-out minus the pattern-blind predictor (with and without the size prior) and
    minus the same-seed released model (paired), kept minus that model (paired), and both parts by pattern size."""
    rows = []
    for key in scored.run_keys("held_out", model):
        withheld = json.loads(scored.run(key)["withheld"])
        held = np.isin(scored.pattern_ids("test"), withheld)
        large = scored.pattern_sizes("test") >= LARGE_MIN
        released = ("released", model, key[2])
        counts, blind = scored.model_counts(key, "test"), scored.blind_counts("test")
        noprior = scored.blind_counts("test", BLIND_NOPRIOR)
        everything = scored.model_counts(released, "test") if scored.has(released) else None
        parts = {"held_out": held, "kept": ~held}
        w = {name: scored.weights("test", int(mask.sum()), name) for name, mask in parts.items()}
        row: dict[str, Any] = {
            **_run_columns(scored, key),
            "withheld_patterns": len(withheld),
            "graphs_held_out": int(held.sum()),
            "graphs_held_out_small": int((held & ~large).sum()),
            "graphs_kept": int((~held).sum()),
        }
        for name, mask in parts.items():
            row.update(_cells(name, _score(counts[mask], w[name])))
        row.update(_cells("held_out_minus_kept", _unpaired(counts[held], w["held_out"], counts[~held], w["kept"])))
        for name, mask in parts.items():
            row.update(_cells(f"blind_{name}", _score(blind[mask], w[name])))
        row.update(_cells("held_out_minus_blind", _paired(counts[held], blind[held], w["held_out"])))
        row.update(_cells("held_out_minus_blind_noprior", _paired(counts[held], noprior[held], w["held_out"])))
        row["all_patterns_held_out"] = np.nan if everything is None else _cw(everything[held])
        for name, mask in parts.items():
            estimate = MISSING if everything is None else _paired(counts[mask], everything[mask], w[name])
            row.update(_cells(f"{name}_minus_all_patterns", estimate))
        for name, mask in parts.items():
            row[f"{name}_large"] = _cw(counts[mask & large])
            row[f"{name}_small"] = _cw(counts[mask & ~large])
        row["not_run"] = scored.not_run(key, released)
        rows.append(row)
    return pd.DataFrame(rows, columns=TABLE11_COLUMNS)


TABLE14_COLUMNS = [
    "model",
    "protocol",
    "seed",
    "pattern_recall",
    "host_recall",
    "blind_pattern_recall",
    "blind_host_recall",
    *_estimate_columns("pattern_recall_diff"),
    *_estimate_columns("host_recall_diff"),
    "not_run",
]


# ---- Table 14: class recalls -------------------------------------------------------------------------------------
def table14_frame(scored: Scored, set_name: str = "fresh") -> pd.DataFrame:
    """Table 14: every run's pattern recall (sensitivity) and host recall (specificity) on the fresh graphs minus
    the pattern-blind predictor's, in points, with paired graph-bootstrap intervals (exploratory in the paper)."""
    if set_name not in scored.set_names():
        return pd.DataFrame(columns=TABLE14_COLUMNS)
    blind = scored.blind_counts(set_name)
    rows = []
    for key in scored.run_keys():
        counts = scored.model_counts(key, set_name)
        weights = scored.weights(set_name, len(counts))
        rows.append(
            {
                "model": key[1],
                "protocol": key[0],
                "seed": key[2],
                "pattern_recall": float(pattern_recall(counts.sum(axis=0))),
                "host_recall": float(host_recall(counts.sum(axis=0))),
                "blind_pattern_recall": float(pattern_recall(blind.sum(axis=0))),
                "blind_host_recall": float(host_recall(blind.sum(axis=0))),
                **_cells("pattern_recall_diff", _paired(counts, blind, weights, pattern_recall)),
                **_cells("host_recall_diff", _paired(counts, blind, weights, host_recall)),
                "not_run": scored.not_run(key),
            }
        )
    return pd.DataFrame(rows, columns=TABLE14_COLUMNS)


# ---- the oracle threshold and the AUC gaps -----------------------------------------------------------------------
def oracle_auc_frame(scored: Scored, set_name: str = "fresh") -> pd.DataFrame:
    """Section 4.2 / Appendix H: every run's accuracy on the fresh graphs at the released threshold and at the
    single best threshold chosen with their labels (an oracle), against the pattern-blind predictor; its pooled
    ROC AUC on every set, familiar minus fresh, and the pattern-blind samplers' AUCs on the fresh graphs."""
    blind_aucs = scored.blind_sets.set_index("set")
    rows = []
    for key in scored.run_keys():
        row: dict[str, Any] = {"model": key[1], "protocol": key[0], "seed": key[2]}
        fresh = scored.model_set(key, set_name)
        counts = scored.model_counts(key, set_name) if fresh is not None else np.zeros((0, 2, 2))
        blind = _cw(scored.blind_counts(set_name)) if fresh is not None else np.nan
        row.update(
            {
                "cw_acc": _cw(counts),
                "oracle_threshold": np.nan if fresh is None else float(fresh["oracle_threshold"]),
                "oracle_cw_acc": np.nan if fresh is None else float(fresh["oracle_cw_acc"]),
                "blind_cw_acc": blind,
            }
        )
        row["oracle_minus_blind"] = row["oracle_cw_acc"] - blind
        for s in scored.set_names():
            row[f"auc_{SET_LABELS[s]}"] = float(scored.model_set(key, s)["auc"])
        row["auc_familiar_minus_fresh"] = row.get("auc_familiar", np.nan) - row.get("auc_fresh", np.nan)
        has_blind = set_name in blind_aucs.index
        row["blind_auc_prior"] = float(blind_aucs.loc[set_name, "auc_prior"]) if has_blind else np.nan
        row["blind_auc_noprior"] = float(blind_aucs.loc[set_name, "auc_noprior"]) if has_blind else np.nan
        row["blind_auc_minus_model"] = row["blind_auc_prior"] - row.get("auc_fresh", np.nan)
        row["not_run"] = scored.not_run(key)
        rows.append(row)
    columns = [
        "model",
        "protocol",
        "seed",
        "cw_acc",
        "oracle_threshold",
        "oracle_cw_acc",
        "blind_cw_acc",
        "oracle_minus_blind",
        *(f"auc_{SET_LABELS[s]}" for s in scored.set_names()),
        "auc_familiar_minus_fresh",
        "blind_auc_prior",
        "blind_auc_noprior",
        "blind_auc_minus_model",
        "not_run",
    ]
    return pd.DataFrame(rows, columns=columns)


# ---- bring your own model ----------------------------------------------------------------------------------------
SCORED_COLUMNS = [  # a predictor's scores on one set, as Table 3 and the bring-your-own table give them
    "set",
    "graphs",
    "cw_acc",
    "ci_low",
    "ci_high",
    "cw_batch",
    "plain",
    "diff_vs_pattern_blind",
    "diff_ci_low",
    "diff_ci_high",
]
BYO_COLUMNS = [
    "rule",
    *SCORED_COLUMNS,
    "pattern_recall_diff",
    "host_recall_diff",
    f"cw_under_{LARGE_MIN}",
    f"cw_{LARGE_MIN}_or_more",
    f"blind_under_{LARGE_MIN}",
    f"blind_{LARGE_MIN}_or_more",
    "auc",
    "oracle_threshold",
    "oracle_cw_acc",
]


def byo_frame(
    paths: Mapping[str, str | Path],
    graphs: Mapping[str, DenseGraphs],
    truths: Mapping[str, Truth],
    orders: Mapping[str, Sequence[int]],
    blind: pd.DataFrame,
    replicates: int,
    seed: int,
    batch: int,
) -> pd.DataFrame:
    """A user's predictions files (set -> path, the neural runs' format) scored on every set and for every
    ``prob_<rule>`` field, by the functions that score the neural runs: pooled CW accuracy with its interval
    (the resamples of Table 3), batch mean and plain accuracy, minus the pattern-blind predictor (paired), class-recall
    differences, both pattern-size groups beside the pattern-blind predictor, pooled ROC AUC and the oracle
    threshold."""
    count_rows, set_rows = score_predictions(paths, graphs, orders)
    columns = ["protocol", "model", "seed", *COUNT_COLUMNS[3:]]
    counts = pd.DataFrame([("byo", "byo", 0, *r) for r in count_rows], columns=columns)
    sets = pd.DataFrame([{"protocol": "byo", "model": "byo", "seed": 0, **r, "logged": np.nan} for r in set_rows])
    scored = Scored(
        counts=counts,
        sets=sets,
        runs=pd.DataFrame(columns=RUN_COLUMNS),
        graphs=_graph_rows(truths, orders),
        blind=blind,
        blind_sets=pd.DataFrame(columns=["set", "auc_prior", "auc_noprior"]),
        replicates=replicates,
        seed=seed,
    )
    key = ("byo", "byo", 0)
    rows = []
    for row in set_rows:
        rule, set_name = row["rule"], row["set"]
        mine, reference = scored.model_counts(key, set_name, rule), scored.blind_counts(set_name)
        weights = scored.weights(set_name, len(mine))
        masks = _size_masks(scored.pattern_sizes(set_name))
        small, large = masks.values()
        rows.append(
            {
                "rule": rule,
                "set": SET_LABELS[set_name],
                "graphs": len(mine),
                **dict(zip(("cw_acc", "ci_low", "ci_high"), _score(mine, weights))),
                "cw_batch": batch_mean(mine, batch),
                "plain": float(plain_accuracy(mine.sum(axis=0))),
                **dict(
                    zip(("diff_vs_pattern_blind", "diff_ci_low", "diff_ci_high"), _paired(mine, reference, weights))
                ),
                "pattern_recall_diff": _paired(mine, reference, weights, pattern_recall)[0],
                "host_recall_diff": _paired(mine, reference, weights, host_recall)[0],
                BYO_COLUMNS[13]: _cw(mine[small]),
                BYO_COLUMNS[14]: _cw(mine[large]),
                BYO_COLUMNS[15]: _cw(reference[small]),
                BYO_COLUMNS[16]: _cw(reference[large]),
                "auc": row["auc"],
                "oracle_threshold": row["oracle_threshold"],
                "oracle_cw_acc": row["oracle_cw_acc"],
            }
        )
    return pd.DataFrame(rows, columns=BYO_COLUMNS)


def byo(ctx: RuleContext) -> None:
    """Bring your own model (``wildcards.name``): its ``predictions_<set>.npz`` files (``input.predictions_<set>``)
    scored on the scored sets beside the pattern-blind predictor, one row per checkpoint field and set."""
    selection, sets = ctx.settings("selection", Selection), list(ctx.params["sets"])
    graphs, truths, orders = _set_inputs(ctx, selection, sets)
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    frame = byo_frame(
        {s: ctx.input[f"predictions_{s}"] for s in sets},
        graphs,
        truths,
        orders,
        read_frame(ctx.input["counts"]),
        bootstrap.replicates,
        int(ctx.params["seed"]),
        int(ctx.params["batch"]),
    )
    title = f"Your model {ctx.wildcards['name']!r}, scored as the neural runs are"
    write_table(frame, ctx.output["table"], title=title)

"""Rule entry points of the PATTERN study, part 1 (called through :mod:`graphaudit.common.rule`)."""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from graphaudit.common.progress import track
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for, stable_seed
from graphaudit.data.graphset import GraphSet
from graphaudit.pattern import checks, matcher, scoring
from graphaudit.pattern.blind import class_prior_threshold, pattern_blind_posterior, start_checks, threshold_predictions
from graphaudit.pattern.canon import (
    canonical_key,
    library_from_labels,
    load_library,
    planted_pattern,
    reuse_table,
    save_library,
)
from graphaudit.pattern.figures import figure1, figure2
from graphaudit.pattern.generator import draw_library, familiar_set, fresh_set, law_for, official_split
from graphaudit.pattern.graphs import DenseGraphs
from graphaudit.pattern.release import release_splits, release_truth
from graphaudit.report.tables import write_table
from graphaudit.stats.classification import bootstrap_weights, paired_difference, percentile_interval

log = logging.getLogger(__name__)

SPLITS = ("train", "val", "test")
SET_NAMES = {"test": "official", "val": "validation", "familiar": "familiar", "fresh": "fresh"}


def _law(cfg: dict):
    return law_for(int(cfg["version"]), cfg["size_law"])


def generate(ctx: RuleContext) -> None:
    """Official-like train/val/test splits (regenerated from one drawn library, or the official release when
    ``pattern.source: release``), and the fresh and familiar test sets."""
    cfg = ctx.params["pattern"]
    law, seed = _law(cfg), int(cfg["seed"])
    if cfg["source"] == "release":
        splits = release_splits(GraphSet.load(ctx.input["release"]))
        train = splits["train"]
        patterns, _ = library_from_labels(
            planted_pattern(train.adjacency(g), train.features(g), train.labels(g)) for g in range(train.num_graphs)
        )
        official = {split: (graphs, release_truth(graphs, patterns)) for split, graphs in splits.items()}
        library = [(p.adj, p.features) for p in patterns]
    else:
        library = draw_library(law, int(cfg["n_patterns"]), seed)
        official = {
            split: official_split(library, law, split, int(cfg["per_pattern"][split]), seed) for split in SPLITS
        }
    sets = {
        **{f"official_{split}": pair for split, pair in official.items()},
        "fresh": fresh_set(law, int(cfg["sets"]["fresh"]), seed, cfg["size_law"]),
        "familiar": familiar_set(library, law, int(cfg["sets"]["familiar"]), seed),
    }
    for name, (graphs, truth) in sets.items():
        graphs.save(ctx.output[name])
        truth.save(ctx.output[f"truth_{name}"])
        log.info("%s: %d graphs, pattern-node share %.4f", name, graphs.num_graphs, graphs.y.mean())


def _key(graphs: DenseGraphs, g: int) -> str:
    return canonical_key(*planted_pattern(graphs.adjacency(g), graphs.features(g), graphs.labels(g)))


def _keys(graphs: DenseGraphs) -> list[str]:
    return [_key(graphs, g) for g in range(graphs.num_graphs)]


def library(ctx: RuleContext) -> None:
    """The library read off the training labels only, and Table 6 (reuse across the splits by canonical key)."""
    train = DenseGraphs.load(ctx.input["train"])
    found = (
        planted_pattern(train.adjacency(g), train.features(g), train.labels(g))
        for g in track(range(train.num_graphs), "training patterns")
    )
    patterns, train_keys = library_from_labels(found)
    save_library(ctx.output["library"], patterns)
    rows = reuse_table(
        train_keys, _keys(DenseGraphs.load(ctx.input["val"])), _keys(DenseGraphs.load(ctx.input["test"])), patterns
    )
    write_table(pd.DataFrame(rows), ctx.output["table6"], title="Table 6: planted patterns by canonical form")


def generator_checks(ctx: RuleContext) -> None:
    """Generator checks against the released patterns' statistics (Appendix A, D)."""
    rows = checks.generator_checks(
        load_library(ctx.input["library"]), DenseGraphs.load(ctx.input["train"]), _law(ctx.params["pattern"])
    )
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Generator checks (Appendix A, D)")


def shard_graphs(ctx: RuleContext) -> list[int]:
    """The graphs of this shard of the set's evaluated graphs."""
    cfg = ctx.params["pattern"]
    return scoring.shard_of(scoring.evaluated_graphs(ctx.wildcards["set"], cfg), int(ctx.wildcards["shard"]), cfg)


def _blind_seed(cfg: dict, set_name: str, variant: str, g: int) -> int:
    """The seed of a graph's pattern-blind run; the start checks reuse it so their usual chain is that run."""
    return stable_seed("pattern", "blind", cfg["seed"], set_name, variant, g)


def blind(ctx: RuleContext) -> None:
    """Pattern-blind posteriors (with or without the size prior) for one shard of a set."""
    cfg, variant, set_name = ctx.params["pattern"], ctx.wildcards["variant"], ctx.wildcards["set"]
    settings = cfg["blind"][variant]
    graphs = DenseGraphs.load(ctx.input["graphs"])
    posteriors, in_range, entered = [], [], []
    chosen = shard_graphs(ctx)
    for g in track(chosen, f"pattern-blind {variant} {set_name}"):
        result = pattern_blind_posterior(
            graphs.adjacency(g),
            _blind_seed(cfg, set_name, variant, g),
            size_prior=variant == "prior",
            sweeps=int(settings["sweeps"]),
            burn_in=int(settings["burn_in"]),
            restarts=int(cfg["blind"]["restarts"]),
            iterations=int(cfg["blind"]["iterations"]),
        )
        posteriors.append(result.posterior)
        in_range.append(result.start_in_range)
        entered.append(result.entered_range)
    scoring.write_shard(
        ctx.output["posterior"],
        chosen,
        {"posterior": posteriors},
        {"start_in_range": np.asarray(in_range, dtype=bool), "entered_range": np.asarray(entered, dtype=np.int64)},
    )


def _set_predictions(ctx: RuleContext, set_name: str, threshold: float) -> dict[str, dict[int, np.ndarray]]:
    """Predicted labels per predictor of one set, keyed by graph."""
    prior = scoring.read_shards(ctx.input_list(f"blind_prior_{set_name}"), "posterior")
    noprior = scoring.read_shards(ctx.input_list(f"blind_noprior_{set_name}"), "posterior")
    shards = ctx.input_list(f"matcher_{set_name}")
    return {
        "Likelihood matcher": scoring.read_shards(shards, "likelihood"),
        "Largest-match rule": scoring.read_shards(shards, "largest"),
        scoring.PATTERN_BLIND: {g: threshold_predictions(p, threshold) for g, p in prior.items()},
        "Pattern-blind, no size prior": {g: threshold_predictions(p, threshold) for g, p in noprior.items()},
        "Pattern-blind, threshold 1/2": {g: threshold_predictions(p, 0.5) for g, p in prior.items()},
    }


def _matcher_rows(ctx: RuleContext, set_name: str, graphs: DenseGraphs, order: list[int]) -> tuple[list, dict]:
    """Table 7 rows of a set and its matcher diagnostics (kinds, fallbacks, candidates, graphs above 170 nodes)."""
    shards = ctx.input_list(f"matcher_{set_name}")
    likelihood, largest = scoring.read_shards(shards, "likelihood"), scoring.read_shards(shards, "largest")
    kinds: list[str] = []
    candidates: list[int] = []
    for path in shards:
        with np.load(path, allow_pickle=False) as data:
            kinds += data["kind"].tolist()
            candidates += data["n_candidates"].tolist()
    truth = {g: graphs.labels(g) for g in order}
    sizes = np.array([int(truth[g].sum()) for g in order])
    rows = scoring.recovery_rows(
        SET_NAMES[set_name],
        sizes,
        [scoring.recovery_kind(truth[g], likelihood[g]) for g in order],
        [scoring.recovery_kind(truth[g], largest[g]) for g in order],
    )
    kind_counts = pd.Series(kinds).value_counts()
    diagnostics = {
        "set": SET_NAMES[set_name],
        "graphs": len(order),
        **{f"kind_{k}": int(kind_counts.get(k, 0)) for k in ("large", "scored", "fallback_largest", "none")},
        "max_candidates": max(candidates, default=0),
        "graphs_above_170_nodes": sum(int(graphs.size(g) > 170) for g in order),
    }
    return rows, diagnostics


def _blind_diagnostics(ctx: RuleContext, set_name: str) -> dict[str, float]:
    start, entered = [], []
    for path in ctx.input_list(f"blind_prior_{set_name}"):
        with np.load(path, allow_pickle=False) as data:
            start.append(data["start_in_range"])
            entered.append(data["entered_range"])
    start_all, entered_all = np.concatenate(start), np.concatenate(entered)
    return {
        "start_out_of_range_pct": 100.0 * float((~start_all).mean()),
        "max_sweeps_to_range": int(entered_all.max()) if len(entered_all) else 0,
    }


def tables(ctx: RuleContext) -> None:
    """Tables 2, 3, 7 and 8, matcher and Appendix B diagnostics, Figure 2, from the saved per-graph predictions."""
    cfg = ctx.params["pattern"]
    train_labels = DenseGraphs.load(ctx.input["train"]).y
    threshold = class_prior_threshold(int(train_labels.sum()), len(train_labels))
    rows3, rows7, rows_m, rows_b = [], [], [], []
    for set_name in ctx.params["sets"]:
        graphs = DenseGraphs.load(ctx.input[set_name])
        order = scoring.evaluated_graphs(set_name, cfg)
        weights = bootstrap_weights(
            len(order), int(cfg["bootstrap"]["replicates"]), rng_for("pattern", "bootstrap", cfg["seed"], set_name)
        )
        counts = {
            name: scoring.counts_for(graphs, order, pred)
            for name, pred in _set_predictions(ctx, set_name, threshold).items()
        }
        for name, c in counts.items():
            row = {
                "predictor": name,
                "set": SET_NAMES[set_name],
                "graphs": len(order),
                **scoring.score_row(c, weights, int(cfg["batch"])),
            }
            if name != scoring.PATTERN_BLIND:
                row.update(scoring.difference_row(c, counts[scoring.PATTERN_BLIND], weights))
            rows3.append(row)
        recovery, diagnostics = _matcher_rows(ctx, set_name, graphs, order)
        rows7 += recovery
        rows_m.append(diagnostics)
        posterior = {
            variant: scoring.read_shards(ctx.input_list(f"blind_{variant}_{set_name}"), "posterior")
            for variant in ("prior", "noprior")
        }
        rows_b.append(
            {
                "set": SET_NAMES[set_name],
                "graphs": len(order),
                "threshold": threshold,
                "auc_prior": scoring.pooled_auc(graphs, order, posterior["prior"]),
                "auc_noprior": scoring.pooled_auc(graphs, order, posterior["noprior"]),
                **_blind_diagnostics(ctx, set_name),
            }
        )
    table3 = pd.DataFrame(rows3)
    write_table(table3, ctx.output["table3"], title="Table 3: official-like, familiar and fresh sets")
    official = table3[table3["set"] == SET_NAMES["test"]]
    write_table(
        _table2(official, ctx.params["published"]),
        ctx.output["table2"],
        title="Table 2: official-like test split, published (quoted) and reproduced predictors",
    )
    write_table(_table8(official), ctx.output["table8"], title="Table 8: one set of predictions, three conventions")
    write_table(pd.DataFrame(rows7), ctx.output["table7"], title="Table 7: exact recovery by pattern size, error kinds")
    write_table(pd.DataFrame(rows_m), ctx.output["matcher"], title="Likelihood matcher: decisions and fallbacks")
    write_table(pd.DataFrame(rows_b), ctx.output["appendix_b"], title="Appendix B: pattern-blind diagnostics")
    figure2(ctx.params["published"], official, ctx.output["fig2"])


def _table2(official: pd.DataFrame, published: list[dict]) -> pd.DataFrame:
    quoted = pd.DataFrame(published).assign(ci_low=np.nan, ci_high=np.nan, quoted=True)
    ours = official.assign(reference="this suite", first_public=np.nan, quoted=False)
    columns = ["predictor", "reference", "first_public", "cw_acc", "ci_low", "ci_high", "quoted"]
    return pd.concat([quoted[columns], ours[columns]], ignore_index=True)


def _table8(official: pd.DataFrame) -> pd.DataFrame:
    out = official[["predictor", "cw_acc", "cw_batch", "plain"]].rename(columns={"cw_acc": "cw_pooled"})
    return out.assign(
        pooled_minus_batch=out["cw_pooled"] - out["cw_batch"], plain_minus_pooled=out["plain"] - out["cw_pooled"]
    )


def reuse_figure(ctx: RuleContext) -> None:
    """Figure 1: the first test graph whose pattern has the configured size, beside the first training graph
    that carries the same pattern (matched by canonical key)."""
    train, test = DenseGraphs.load(ctx.input["train"]), DenseGraphs.load(ctx.input["test"])
    size = int(ctx.params["size"])
    sizes = np.array([int(test.labels(g).sum()) for g in range(test.num_graphs)])
    g_test = int(np.argmin(np.abs(sizes - size)))  # the first graph at the size closest to the one asked
    key = _key(test, g_test)
    g_train = next(
        g for g in range(train.num_graphs) if int(train.labels(g).sum()) == sizes[g_test] and _key(train, g) == key
    )
    panels = [
        (f"training graph {g_train}", train.adjacency(g_train), train.features(g_train), train.labels(g_train)),
        (f"test graph {g_test}", test.adjacency(g_test), test.features(g_test), test.labels(g_test)),
    ]
    figure1(panels, ctx.output["fig1"], seed=stable_seed("pattern", "fig1", ctx.params["seed"]))


def match(ctx: RuleContext) -> None:
    """Likelihood matcher and largest-match rule for one shard, with per-graph diagnostics (CPU time goes to the
    log and the rule's benchmark file, so the predictions stay byte-identical on rerun)."""
    cfg, set_name = ctx.params["pattern"], ctx.wildcards["set"]
    graphs, patterns = DenseGraphs.load(ctx.input["graphs"]), load_library(ctx.input["library"])
    noprior = scoring.read_shards([ctx.input["noprior"]], "posterior")
    law = matcher.host_size_law()
    chosen = shard_graphs(ctx)
    fields: dict[str, list] = {
        k: [] for k in ("likelihood", "largest", "kind", "kind_largest", "pattern", "pattern_largest", "n_candidates")
    }
    start = time.process_time()
    for g in track(chosen, f"matcher {set_name}"):
        adj, features = graphs.adjacency(g), graphs.features(g)
        short = matcher.shortlist(noprior[g], int(cfg["matcher"]["shortlist"]))
        resp = matcher.fit_host(
            adj,
            rng_for("pattern", "host_fit", cfg["seed"], set_name, g),
            int(cfg["blind"]["restarts"]),
            int(cfg["blind"]["iterations"]),
        )
        best, rule = matcher.match_both(adj, features, patterns, short, resp, law)
        for name, value in (
            ("likelihood", best.labels),
            ("largest", rule.labels),
            ("kind", best.kind),
            ("kind_largest", rule.kind),
            ("pattern", best.pattern),
            ("pattern_largest", rule.pattern),
            ("n_candidates", best.n_candidates),
        ):
            fields[name].append(value)
    log.info(
        "%s shard %s: %d graphs, %.1f CPU s", set_name, ctx.wildcards["shard"], len(chosen), time.process_time() - start
    )
    scoring.write_shard(
        ctx.output["predictions"],
        chosen,
        {"likelihood": fields["likelihood"], "largest": fields["largest"]},
        {
            "kind": np.array(fields["kind"], dtype=np.str_),
            "kind_largest": np.array(fields["kind_largest"], dtype=np.str_),
            "pattern": np.asarray(fields["pattern"], dtype=np.int64),
            "pattern_largest": np.asarray(fields["pattern_largest"], dtype=np.int64),
            "n_candidates": np.asarray(fields["n_candidates"], dtype=np.int64),
        },
    )


def blind_checks(ctx: RuleContext) -> None:
    """Appendix B robustness chains for one shard of the official-like test graphs: planted start (both
    variants) and extra random-start chains (size prior)."""
    cfg, checks_cfg = ctx.params["pattern"], ctx.params["pattern"]["blind"]["checks"]
    graphs = DenseGraphs.load(ctx.input["graphs"])
    chosen = scoring.shard_of(scoring.check_graphs(cfg), int(ctx.wildcards["shard"]), cfg)
    out: dict[str, list[np.ndarray]] = {
        k: [] for k in ("prior_usual", "prior_planted", "prior_random", "noprior_usual", "noprior_planted")
    }
    for g in track(chosen, "pattern-blind start checks"):
        adj, labels = graphs.adjacency(g), graphs.labels(g)
        for variant, chains in (("prior", int(checks_cfg["random_chains"])), ("noprior", 0)):
            settings = cfg["blind"][variant]
            result = start_checks(
                adj,
                labels,
                _blind_seed(cfg, "test", variant, g),
                variant == "prior",
                int(settings["sweeps"]),
                int(settings["burn_in"]),
                int(cfg["blind"]["restarts"]),
                int(cfg["blind"]["iterations"]),
                chains,
            )
            out[f"{variant}_usual"].append(result["usual"])
            out[f"{variant}_planted"].append(result["planted"])
            if chains:
                out["prior_random"].append(result["random"])
    scoring.write_shard(ctx.output["chains"], chosen, out)


def blind_checks_table(ctx: RuleContext) -> None:
    """Appendix B start checks: planted minus usual start (both variants) and the random-start chains' agreement
    with the usual chain, with paired graph-bootstrap intervals."""
    cfg = ctx.params["pattern"]
    train_labels = DenseGraphs.load(ctx.input["train"]).y
    threshold = class_prior_threshold(int(train_labels.sum()), len(train_labels))
    graphs, paths = DenseGraphs.load(ctx.input["test"]), ctx.input_list("chains")
    order = scoring.check_graphs(cfg)
    weights = bootstrap_weights(
        len(order), int(cfg["bootstrap"]["replicates"]), rng_for("pattern", "bootstrap", cfg["seed"], "start_checks")
    )

    def counts(posteriors: dict[int, np.ndarray]) -> np.ndarray:
        predicted = {g: threshold_predictions(p, threshold) for g, p in posteriors.items()}
        return scoring.counts_for(graphs, order, predicted)

    def paired(label: str, first: dict, second: dict, paper: float) -> dict:
        point, reps = paired_difference(counts(first), counts(second), weights)
        low, high = percentile_interval(reps)
        return {"check": label, "graphs": len(order), "value": point, "ci_low": low, "ci_high": high, "paper": paper}

    rows = [
        paired(
            f"planted start minus usual start, {name} (CW points)",
            scoring.read_shards(paths, f"{variant}_planted"),
            scoring.read_shards(paths, f"{variant}_usual"),
            0.01,
        )
        for variant, name in (("noprior", "no size prior"), ("prior", "size prior"))
    ]
    usual, random = scoring.read_shards(paths, "prior_usual"), scoring.read_shards(paths, "prior_random")
    agreement = np.array(
        [
            np.mean(threshold_predictions(random[g], threshold) == threshold_predictions(usual[g], threshold)[None, :])
            for g in order
        ]
    )
    rows += [
        {
            "check": "random-start chains: median agreement with the usual chain (%)",
            "graphs": len(order),
            "value": 100.0 * float(np.median(agreement)),
            "ci_low": np.nan,
            "ci_high": np.nan,
            "paper": 98.3,
        },
        {
            "check": "random-start chains: lowest agreement with the usual chain (%)",
            "graphs": len(order),
            "value": 100.0 * float(agreement.min()),
            "ci_low": np.nan,
            "ci_high": np.nan,
            "paper": 93.5,
        },
    ]
    averaged = {g: (usual[g] + random[g].sum(axis=0)) / (1 + len(random[g])) for g in order}
    rows.append(paired("averaged posterior of all chains minus the usual chain (CW points)", averaged, usual, 0.02))
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Appendix B: pattern-blind start checks")

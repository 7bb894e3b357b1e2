"""Rule entries of the PATTERN benchmark up to the tables (called through :mod:`graphaudit.common.rule`).

``generate`` writes the graph sets, ``library`` the training library and every graph's pattern id, ``blind``,
``match`` and ``start_chains`` the per-graph predictions shard by shard, and ``scores`` turns the
predictions into the tidy per-graph counts and diagnostics that :mod:`graphaudit.pattern.tables` reads.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from graphaudit.common.progress import track
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for, stable_seed
from graphaudit.data.graphset import GraphSet
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.plan import check_graphs, evaluated_graphs, shard_graphs
from graphaudit.pattern.planted import matcher
from graphaudit.pattern.planted.blind import (
    pattern_blind_posterior,
    start_checks,
    threshold_predictions,
    training_threshold,
)
from graphaudit.pattern.planted.generator import draw_library, familiar_set, fresh_set, law_for, official_split
from graphaudit.pattern.planted.library import (
    graph_keys,
    library_from_labels,
    load_library,
    pattern_ids,
    planted_pattern,
    release_truth,
    save_library,
)
from graphaudit.pattern.planted.scoring import (
    COUNT_COLUMNS,
    GRAPH_COLUMNS,
    PATTERN_BLIND,
    SET_COLUMNS,
    count_rows,
    counts_for,
    pooled_auc,
    recovery_kind,
)
from graphaudit.pattern.release import release_splits
from graphaudit.pattern.settings import BlindChains, BlindSettings, Generation, HostFit, MatcherSettings, Selection
from graphaudit.pattern.shards import read_graph_field, read_shards, shard_of, write_shard
from graphaudit.pattern.tidy import write_frame

__all__ = ["blind", "blind_seed", "generate", "library", "match", "scores", "start_chains"]

log = logging.getLogger(__name__)

SPLITS = ("train", "val", "test")


def generate(ctx: RuleContext) -> None:
    """Official-like train/val/test splits (regenerated from one drawn library, or the official release when
    ``pattern.source: release``), and the fresh and familiar test sets."""
    cfg, seed = ctx.settings("pattern", Generation), ctx.params["seed"]
    law = law_for(cfg.version, cfg.size_law)
    if cfg.source == "release":
        splits = release_splits(GraphSet.load(ctx.input["release"]))
        train = splits["train"]
        patterns, _ = library_from_labels(
            planted_pattern(train.adjacency(g), train.features(g), train.labels(g)) for g in range(train.num_graphs)
        )
        official = {split: (graphs, release_truth(graphs, patterns)) for split, graphs in splits.items()}
        library = [(p.adj, p.features) for p in patterns]
    else:
        library = draw_library(law, cfg.n_patterns, seed)
        official = {
            split: official_split(library, law, split, getattr(cfg.per_pattern, split), seed) for split in SPLITS
        }
    sets = {
        **{f"official_{split}": pair for split, pair in official.items()},
        "fresh": fresh_set(law, cfg.sets.fresh, seed, cfg.size_law),
        "familiar": familiar_set(library, law, cfg.sets.familiar, seed),
    }
    for name, (graphs, truth) in sets.items():
        graphs.save(ctx.output[name])
        truth.save(ctx.output[f"truth_{name}"])
        log.info("%s: %d graphs, pattern-node share %.4f", name, graphs.num_graphs, graphs.y.mean())


def library(ctx: RuleContext) -> None:
    """The library read off the training labels only, and every official-like graph's pattern id by canonical
    key (Table 6's input)."""
    train = DenseGraphs.load(ctx.input["train"])
    found = (
        planted_pattern(train.adjacency(g), train.features(g), train.labels(g))
        for g in track(range(train.num_graphs), "training patterns")
    )
    patterns, train_keys = library_from_labels(found)
    save_library(ctx.output["library"], patterns)
    keys = {"train": train_keys, **{s: graph_keys(DenseGraphs.load(ctx.input[s])) for s in ("val", "test")}}
    write_frame(pattern_ids(keys, patterns), ctx.output["ids"])


def blind_seed(seed: int, set_name: str, variant: str, g: int) -> int:
    """The seed of a graph's pattern-blind run; the start checks reuse it so their usual chain is that run."""
    return stable_seed("pattern", "blind", seed, set_name, variant, g)


def _shard(ctx: RuleContext, selection: Selection) -> list[int]:
    return shard_graphs(ctx.wildcards["set"], int(ctx.wildcards["shard"]), selection)


def blind(ctx: RuleContext) -> None:
    """Pattern-blind posteriors (with or without the size prior) for one shard of a set."""
    selection, chains = ctx.settings("selection", Selection), ctx.settings("blind", BlindChains)
    variant, set_name, seed = ctx.wildcards["variant"], ctx.wildcards["set"], ctx.params["seed"]
    length = getattr(chains, variant)
    graphs = DenseGraphs.load(ctx.input["graphs"])
    posteriors, in_range, entered = [], [], []
    chosen = _shard(ctx, selection)
    for g in track(chosen, f"pattern-blind {variant} {set_name}"):
        result = pattern_blind_posterior(
            graphs.adjacency(g),
            blind_seed(seed, set_name, variant, g),
            size_prior=variant == "prior",
            sweeps=length.sweeps,
            burn_in=length.burn_in,
            restarts=chains.restarts,
            iterations=chains.iterations,
        )
        posteriors.append(result.posterior)
        in_range.append(result.start_in_range)
        entered.append(result.entered_range)
    write_shard(
        ctx.output["posterior"],
        chosen,
        {"posterior": posteriors},
        {"start_in_range": np.asarray(in_range, dtype=bool), "entered_range": np.asarray(entered, dtype=np.int64)},
    )


def match(ctx: RuleContext) -> None:
    """Likelihood matcher and largest-match rule for one shard, with per-graph diagnostics (CPU time goes to the
    log and the rule's benchmark file, so the predictions stay byte-identical on rerun)."""
    selection, host = ctx.settings("selection", Selection), ctx.settings("host", HostFit)
    shortlist, set_name, seed = (
        ctx.settings("matcher", MatcherSettings).shortlist,
        ctx.wildcards["set"],
        ctx.params["seed"],
    )
    graphs, patterns = DenseGraphs.load(ctx.input["graphs"]), load_library(ctx.input["library"])
    noprior = read_shards([ctx.input["noprior"]], "posterior")
    law = matcher.host_size_law()
    chosen = _shard(ctx, selection)
    fields: dict[str, list] = {
        k: [] for k in ("likelihood", "largest", "kind", "kind_largest", "pattern", "pattern_largest", "n_candidates")
    }
    start = time.process_time()
    for g in track(chosen, f"matcher {set_name}"):
        adj, features = graphs.adjacency(g), graphs.features(g)
        short = matcher.shortlist(noprior[g], shortlist)
        resp = matcher.fit_host(adj, rng_for("pattern", "host_fit", seed, set_name, g), host.restarts, host.iterations)
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
    write_shard(
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


def start_chains(ctx: RuleContext) -> None:
    """Appendix B robustness chains for one shard of the official-like test graphs: planted start (both
    variants) and extra random-start chains (size prior)."""
    selection, settings, seed = (
        ctx.settings("selection", Selection),
        ctx.settings("blind", BlindSettings),
        ctx.params["seed"],
    )
    graphs = DenseGraphs.load(ctx.input["graphs"])
    chosen = shard_of(check_graphs(selection, settings.checks), int(ctx.wildcards["shard"]), selection.shard_size)
    out: dict[str, list[np.ndarray]] = {
        k: [] for k in ("prior_usual", "prior_planted", "prior_random", "noprior_usual", "noprior_planted")
    }
    for g in track(chosen, "pattern-blind start checks"):
        adj, labels = graphs.adjacency(g), graphs.labels(g)
        for variant, chains in (("prior", settings.checks.random_chains), ("noprior", 0)):
            length = getattr(settings, variant)
            result = start_checks(
                adj,
                labels,
                blind_seed(seed, "test", variant, g),
                variant == "prior",
                length.sweeps,
                length.burn_in,
                settings.restarts,
                settings.iterations,
                chains,
            )
            out[f"{variant}_usual"].append(result["usual"])
            out[f"{variant}_planted"].append(result["planted"])
            if chains:
                out["prior_random"].append(result["random"])
    write_shard(ctx.output["chains"], chosen, out)


def _set_predictions(ctx: RuleContext, set_name: str, threshold: float) -> dict[str, dict[int, np.ndarray]]:
    """Predicted labels per predictor of one set, keyed by graph (the order Tables 3 and 8 list them)."""
    prior = read_shards(ctx.input_list(f"blind_prior_{set_name}"), "posterior")
    noprior = read_shards(ctx.input_list(f"blind_noprior_{set_name}"), "posterior")
    shards = ctx.input_list(f"matcher_{set_name}")
    return {
        "Likelihood matcher": read_shards(shards, "likelihood"),
        "Largest-match rule": read_shards(shards, "largest"),
        PATTERN_BLIND: {g: threshold_predictions(p, threshold) for g, p in prior.items()},
        "Pattern-blind, no size prior": {g: threshold_predictions(p, threshold) for g, p in noprior.items()},
        "Pattern-blind, threshold 1/2": {g: threshold_predictions(p, 0.5) for g, p in prior.items()},
    }


def _graph_rows(ctx: RuleContext, set_name: str, graphs: DenseGraphs, order: list[int]) -> list[tuple]:
    """:data:`GRAPH_COLUMNS` rows of a set: size, planted size, the matcher's decision and candidates, both
    rules' recovery kinds, and the pattern-blind chain's start and range entry."""
    matches, blinds = ctx.input_list(f"matcher_{set_name}"), ctx.input_list(f"blind_prior_{set_name}")
    likelihood, largest = read_shards(matches, "likelihood"), read_shards(matches, "largest")
    kind, candidates = read_graph_field(matches, "kind"), read_graph_field(matches, "n_candidates")
    start, entered = read_graph_field(blinds, "start_in_range"), read_graph_field(blinds, "entered_range")
    rows = []
    for g in order:
        truth = graphs.labels(g)
        rows.append(
            (
                set_name,
                g,
                graphs.size(g),
                int(truth.sum()),
                kind[g],
                candidates[g],
                recovery_kind(truth, likelihood[g]),
                recovery_kind(truth, largest[g]),
                start[g],
                entered[g],
            )
        )
    return rows


def scores(ctx: RuleContext) -> None:
    """Tidy per-graph results of every scored set: confusion counts of each predictor (``counts``), per-graph
    diagnostics (``graphs``), and per set the decision threshold and the pattern-blind posteriors' pooled
    AUCs (``sets``)."""
    selection = ctx.settings("selection", Selection)
    threshold = training_threshold(DenseGraphs.load(ctx.input["train"]))
    counts, per_graph, per_set = [], [], []
    for set_name in ctx.params["sets"]:
        graphs = DenseGraphs.load(ctx.input[set_name])
        order = evaluated_graphs(set_name, selection)
        for name, predicted in _set_predictions(ctx, set_name, threshold).items():
            counts += count_rows(set_name, name, order, counts_for(graphs, order, predicted))
        per_graph += _graph_rows(ctx, set_name, graphs, order)
        aucs = [
            pooled_auc(graphs, order, read_shards(ctx.input_list(f"blind_{variant}_{set_name}"), "posterior"))
            for variant in ("prior", "noprior")
        ]
        per_set.append((set_name, threshold, *aucs))
    write_frame(pd.DataFrame(counts, columns=COUNT_COLUMNS), ctx.output["counts"])
    write_frame(pd.DataFrame(per_graph, columns=GRAPH_COLUMNS), ctx.output["graphs"])
    write_frame(pd.DataFrame(per_set, columns=SET_COLUMNS), ctx.output["sets"])

"""Rule entry points of the graphlm study, part 1 (called through :mod:`graphaudit.common.rule`): the
training corpus, its patterns, the bootstrap reference, generated sets and their evaluation. The tables
are assembled from these files by :mod:`graphaudit.graphlm.tables`."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphaudit.common.atomic import write_json, write_text
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.common.settings import settings_dict
from graphaudit.data.graphset import GraphSet
from graphaudit.graphlm import corpus as corpus_lib
from graphaudit.graphlm import metrics
from graphaudit.graphlm.settings import GspanSettings
from graphaudit.graphs.dfscode import LabeledGraph, dfs_text
from graphaudit.graphs.mmd import mmd_table
from graphaudit.mining.engine import mine_patterns, resolve_backend

log = logging.getLogger(__name__)

GENERATORS = {
    "bootstrap": corpus_lib.bootstrap_sample,
    "random_labels": corpus_lib.random_label_graphs,
    "edge_swap": corpus_lib.edge_swap_graphs,
}
STRATA = ("head", "torso", "tail")
SENSITIVITY_COLUMNS = ["dataset", "generator", "sigma", "n_train_patterns", "rho", "jsd", "missing"]


def read_json(path: str) -> Any:
    """One JSON file written by a graphlm rule."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _write_sequences(path: str, graphs: list[LabeledGraph]) -> None:
    write_text(path, "".join(dfs_text(g) + "\n" for g in graphs))


def _mine(graphs: list[LabeledGraph], gspan: GspanSettings, threads: int = 1) -> dict[str, int]:
    return mine_patterns(
        graphs,
        sigma=gspan.sigma,
        upper=gspan.upper,
        max_projection=gspan.max_projection,
        backend=gspan.backend,
        threads=threads,
    )


def graphlm_corpus(ctx: RuleContext) -> None:
    """The training corpus and the Table 9 / Table 10 statistics. ``sequences`` holds each corpus graph's exact
    minimum DFS code (gSpan's order: what mining and the evaluator read); ``codes`` the text the language models
    are trained on, built as ``dfs_code`` and ``tuple_order`` say (the paper's greedy Algorithm 1 in its own
    field order reproduces its vocabularies and unique codes), from which Table 10's DFS columns and the unique
    training codes are counted; ``iso_classes`` counts the corpus's isomorphism classes."""
    graphs = GraphSet.load(ctx.input["graphset"])
    order, algorithm = ctx.params["tuple_order"], ctx.params["dfs_code"]
    corpus, texts = corpus_lib.corpus_sequences(graphs, ctx.params["components"], order, algorithm)
    _write_sequences(ctx.output["sequences"], corpus)
    write_text(ctx.output["codes"], "".join(text + "\n" for text in texts))
    whole = corpus_lib.training_corpus(graphs, "all")
    stats = {
        "dataset": ctx.wildcards["dataset"],
        **corpus_lib.dataset_statistics(graphs),
        "unique_codes": len(set(texts)),
        "iso_classes": len({dfs_text(g) for g in corpus}),
        **corpus_lib.serialization_statistics(corpus, whole, order, texts=texts),
    }
    write_json(ctx.output["stats"], stats)


def graphlm_subset(ctx: RuleContext) -> None:
    """A scale-proxy corpus: the first ``size`` graphs of a seeded permutation of the dataset's corpus (so the
    subsets of one dataset are nested), both its exact-code and its training-text lines."""
    dataset, size = ctx.wildcards["dataset"], int(ctx.wildcards["size"])
    sequences, codes = _lines(ctx.input["sequences"]), _lines(ctx.input["codes"])
    if not 1 <= size <= len(sequences):
        raise ValueError(f"graphlm.scale.sizes: {size} graphs asked of {dataset}, which has {len(sequences)}")
    keep = rng_for("graphlm", dataset, "scale").permutation(len(sequences))[:size]
    write_text(ctx.output["sequences"], "".join(sequences[i] + "\n" for i in keep))
    write_text(ctx.output["codes"], "".join(codes[i] + "\n" for i in keep))


def graphlm_novel(ctx: RuleContext) -> None:
    """The novel-only subset of a generated set (spec 4.12): its graphs whose code no training graph has."""
    training = set(_lines(ctx.input["sequences"]))
    novel = [line for line in _lines(ctx.input["generated"]) if line.strip() and line not in training]
    write_text(ctx.output["generated"], "".join(line + "\n" for line in novel))


def graphlm_mine_training(ctx: RuleContext) -> None:
    """gSpan on the training corpus: pattern key -> support count, and the frequency strata."""
    corpus, invalid = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    if invalid:
        raise ValueError(f"{ctx.input['sequences']}: {invalid} training sequences do not parse")
    gspan = ctx.settings("gspan", GspanSettings)
    engine = resolve_backend(gspan.backend, gspan.max_projection)
    patterns = _mine(corpus, replace(gspan, backend=engine), ctx.threads)
    strata = metrics.frequency_strata(patterns)
    log.info(
        "%s: %d patterns with %s (head %d, torso %d, tail %d)",
        ctx.wildcards["dataset"],
        len(patterns),
        engine,
        *(len(strata[s.capitalize()]) for s in STRATA),
    )
    write_json(
        ctx.output["patterns"],
        {
            "dataset": ctx.wildcards["dataset"],
            "n": len(corpus),
            **settings_dict(gspan),
            "engine": engine,
            "patterns": patterns,
            "strata": strata,
        },
    )


def _compare(train: dict, generated: list[LabeledGraph], gspan: GspanSettings) -> dict:
    """Pattern metrics of a generated set against the training patterns, overall and per stratum."""
    gen = _mine(generated, gspan)
    overall = metrics.pattern_metrics(train["patterns"], train["n"], gen, len(generated))
    per_stratum = {
        name.lower(): metrics.stratum_metrics(train["patterns"], train["n"], gen, len(generated), keys)
        for name, keys in train["strata"].items()
    }
    return {"overall": overall, "strata": per_stratum}


def graphlm_bootstrap(ctx: RuleContext) -> None:
    """One bootstrap resample (n_gen draws with replacement), mined and compared with the training patterns."""
    dataset, replicate = ctx.wildcards["dataset"], int(ctx.wildcards["replicate"])
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    rng = rng_for("graphlm", dataset, "bootstrap", replicate)
    sample = corpus_lib.bootstrap_sample(corpus, ctx.params["n_gen"], rng)
    compared = _compare(read_json(ctx.input["patterns"]), sample, ctx.settings("gspan", GspanSettings))
    write_json(ctx.output["metrics"], {"dataset": dataset, "replicate": replicate, **compared})


def graphlm_generate(ctx: RuleContext) -> None:
    """A training-free generated set in the evaluator's sequence format."""
    dataset, generator = ctx.wildcards["dataset"], ctx.wildcards["generator"]
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    graphs = GENERATORS[generator](corpus, ctx.params["n_gen"], rng_for("graphlm", dataset, "generate", generator))
    _write_sequences(ctx.output["sequences"], graphs)


def graphlm_evaluate(ctx: RuleContext) -> None:
    """The generated-set evaluator: memorization, pattern metrics, strata and bootstrap calibration."""
    gspan = ctx.settings("gspan", GspanSettings)
    lines = [line for line in _lines(ctx.input["generated"]) if line.strip()]
    generated, invalid = corpus_lib.read_sequences(lines)
    train_codes = _lines(ctx.input["sequences"])
    memorized = metrics.memorization(train_codes, [dfs_text(g) for g in generated])
    compared = _compare(read_json(ctx.input["patterns"]), generated, gspan)
    boot_rho = [read_json(p)["overall"]["rho"] for p in ctx.input_list("bootstrap")]
    calibration = metrics.calibrate(compared["overall"]["rho"], boot_rho)
    write_json(
        ctx.output["metrics"],
        {
            "dataset": ctx.wildcards["dataset"],
            "generator": ctx.wildcards["generator"],
            "sigma": gspan.sigma,
            "n_lines": len(lines),
            "n_invalid": invalid,
            **memorized,
            **compared,
            "calibration": calibration,
        },
    )


def graphlm_supports(ctx: RuleContext) -> None:
    """Figure 4's points: every pattern of the training or the generated set with its support on each side (0 where
    it was not mined: the zero convention of spec 4.7)."""
    train = read_json(ctx.input["patterns"])
    generated, _ = corpus_lib.read_sequences([line for line in _lines(ctx.input["generated"]) if line.strip()])
    gen = _mine(generated, ctx.settings("gspan", GspanSettings))
    keys = sorted(set(train["patterns"]) | set(gen))
    s_tr = metrics.supports(train["patterns"], train["n"], keys)
    s_gen = metrics.supports(gen, len(generated), keys)
    write_json(
        ctx.output["supports"],
        {
            "dataset": ctx.wildcards["dataset"],
            "generator": ctx.wildcards["generator"],
            "patterns": {k: [float(a), float(b)] for k, a, b in zip(keys, s_tr, s_gen)},
        },
    )


def graphlm_mmd(ctx: RuleContext) -> None:
    """Whole-graph MMDs and WL metrics of a generated set against the training corpus (Tables 7, 8, 11):
    :func:`graphaudit.graphs.mmd.mmd_table` with its GRAN defaults; the corpus is the graphs the models learn
    (one component each)."""
    train, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    generated, invalid = corpus_lib.read_sequences([line for line in _lines(ctx.input["generated"]) if line.strip()])
    write_json(
        ctx.output["mmd"],
        {
            "dataset": ctx.wildcards["dataset"],
            "generator": ctx.wildcards["generator"],
            "n_invalid": invalid,
            **mmd_table(train, generated),
        },
    )


def graphlm_sensitivity(ctx: RuleContext) -> None:
    """Table 17 analogue: each generated set against the training set at a lower minimum support."""
    gspan = replace(ctx.settings("gspan", GspanSettings), sigma=ctx.params["sigma"])
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    train = _mine(corpus, gspan)
    rows = []
    for path in ctx.input_list("generated"):
        generated, _ = corpus_lib.read_sequences(_lines(path))
        overall = metrics.pattern_metrics(train, len(corpus), _mine(generated, gspan), len(generated))
        rows.append(sensitivity_row(ctx.wildcards["dataset"], Path(path).name.split(".")[0], gspan.sigma, overall))
    write_json(ctx.output["rows"], rows)


def sensitivity_row(dataset: str, generator: str, sigma: float, overall: dict) -> dict:
    """One row of the sensitivity table (:data:`SENSITIVITY_COLUMNS`) from a set's overall pattern metrics."""
    return {
        "dataset": dataset,
        "generator": generator,
        "sigma": sigma,
        "n_train_patterns": overall["n_train_patterns"],
        "rho": overall["rho"],
        "jsd": overall["jsd"],
        "missing": overall["missing_mass"],
    }

"""Rule entry points of the graphlm study, part 1 (called through :mod:`graphaudit.common.rule`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from graphaudit.common.atomic import write_json, write_text
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.graphlm import corpus as corpus_lib
from graphaudit.graphlm import metrics
from graphaudit.graphlm.figures import figure1
from graphaudit.graphs.dfscode import LabeledGraph, dfs_text
from graphaudit.mining.engine import mine_patterns, resolve_backend
from graphaudit.report.tables import write_table

log = logging.getLogger(__name__)

GENERATORS = {"bootstrap": corpus_lib.bootstrap_sample, "random_labels": corpus_lib.random_label_graphs}
STRATA = ("head", "torso", "tail")
SENSITIVITY_COLUMNS = ["dataset", "generator", "sigma", "n_train_patterns", "rho", "jsd", "missing"]


def _read_json(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def _write_sequences(path: str, graphs: list[LabeledGraph]) -> None:
    write_text(path, "".join(dfs_text(g) + "\n" for g in graphs))


def _mine(graphs: list[LabeledGraph], gspan: dict, threads: int = 1) -> dict[str, int]:
    return mine_patterns(
        graphs,
        sigma=gspan["sigma"],
        upper=gspan["upper"],
        max_projection=gspan.get("max_projection"),
        backend=gspan.get("backend", "auto"),
        threads=threads,
    )


def build_corpus(ctx: RuleContext) -> None:
    """The serialized training corpus (one DFS text per graph) and the Table 9 / Table 10 statistics."""
    graphs = GraphSet.load(ctx.input["graphset"])
    corpus = corpus_lib.training_corpus(graphs, ctx.params["components"])
    _write_sequences(ctx.output["sequences"], corpus)
    whole = corpus_lib.training_corpus(graphs, "all")
    stats = {
        "dataset": ctx.wildcards["dataset"],
        **corpus_lib.dataset_statistics(graphs),
        "unique_codes": len({dfs_text(g) for g in corpus}),
        **corpus_lib.serialization_statistics(corpus, whole),
    }
    write_json(ctx.output["stats"], stats)


def mine_training(ctx: RuleContext) -> None:
    """gSpan on the training corpus: pattern key -> support count, and the frequency strata."""
    corpus, invalid = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    if invalid:
        raise ValueError(f"{ctx.input['sequences']}: {invalid} training sequences do not parse")
    gspan = ctx.params["gspan"]
    engine = resolve_backend(gspan.get("backend", "auto"), gspan.get("max_projection"))
    patterns = _mine(corpus, {**gspan, "backend": engine}, ctx.threads)
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
            **gspan,
            "engine": engine,
            "patterns": patterns,
            "strata": strata,
        },
    )


def _compare(train: dict, generated: list[LabeledGraph], gspan: dict) -> dict:
    """Pattern metrics of a generated set against the training patterns, overall and per stratum."""
    gen = _mine(generated, gspan)
    overall = metrics.pattern_metrics(train["patterns"], train["n"], gen, len(generated))
    per_stratum = {
        name.lower(): metrics.stratum_metrics(train["patterns"], train["n"], gen, len(generated), keys)
        for name, keys in train["strata"].items()
    }
    return {"overall": overall, "strata": per_stratum}


def bootstrap_replicate(ctx: RuleContext) -> None:
    """One bootstrap resample (n_gen draws with replacement), mined and compared with the training patterns."""
    dataset, replicate = ctx.wildcards["dataset"], int(ctx.wildcards["replicate"])
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    rng = rng_for("graphlm", dataset, "bootstrap", replicate)
    sample = corpus_lib.bootstrap_sample(corpus, ctx.params["n_gen"], rng)
    compared = _compare(_read_json(ctx.input["patterns"]), sample, ctx.params["gspan"])
    write_json(ctx.output["metrics"], {"dataset": dataset, "replicate": replicate, **compared})


def generate(ctx: RuleContext) -> None:
    """A training-free generated set in the evaluator's sequence format."""
    dataset, generator = ctx.wildcards["dataset"], ctx.wildcards["generator"]
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    graphs = GENERATORS[generator](corpus, ctx.params["n_gen"], rng_for("graphlm", dataset, "generate", generator))
    _write_sequences(ctx.output["sequences"], graphs)


def evaluate(ctx: RuleContext) -> None:
    """The generated-set evaluator: memorization, pattern metrics, strata and bootstrap calibration."""
    lines = [line for line in _lines(ctx.input["generated"]) if line.strip()]
    generated, invalid = corpus_lib.read_sequences(lines)
    train_codes = _lines(ctx.input["sequences"])
    memorized = metrics.memorization(train_codes, [dfs_text(g) for g in generated])
    compared = _compare(_read_json(ctx.input["patterns"]), generated, ctx.params["gspan"])
    boot_rho = [_read_json(p)["overall"]["rho"] for p in ctx.input_list("bootstrap")]
    calibration = metrics.calibrate(compared["overall"]["rho"], boot_rho)
    write_json(
        ctx.output["metrics"],
        {
            "dataset": ctx.wildcards["dataset"],
            "generator": ctx.wildcards["generator"],
            "sigma": ctx.params["gspan"]["sigma"],
            "n_lines": len(lines),
            "n_invalid": invalid,
            **memorized,
            **compared,
            "calibration": calibration,
        },
    )


def sensitivity(ctx: RuleContext) -> None:
    """Table 17 analogue: each generated set against the training set at a lower minimum support."""
    gspan = {**ctx.params["gspan"], "sigma": ctx.params["sigma"]}
    corpus, _ = corpus_lib.read_sequences(_lines(ctx.input["sequences"]))
    train = _mine(corpus, gspan)
    rows = []
    for path in ctx.input_list("generated"):
        generated, _ = corpus_lib.read_sequences(_lines(path))
        overall = metrics.pattern_metrics(train, len(corpus), _mine(generated, gspan), len(generated))
        rows.append(_sensitivity_row(ctx.wildcards["dataset"], Path(path).name.split(".")[0], gspan["sigma"], overall))
    write_json(ctx.output["rows"], rows)


def build_tables(ctx: RuleContext) -> None:
    """Tables 9-10, pattern counts and strata sizes, bootstrap reference, evaluations and strata."""
    stats = [_read_json(p) for p in ctx.input_list("stats")]
    table9 = ["dataset", "graphs", "avg_nodes", "avg_edges", "max_nodes", "avg_degree", "density", "unique_codes"]
    write_table(pd.DataFrame(stats)[table9], ctx.output["datasets"], title="Table 9: dataset statistics")
    table10 = ["dataset", "dfs_mean_len", "dfs_max_len", "dfs_vocab", "dgmg_mean_len", "dgmg_max_len", "dgmg_vocab"]
    write_table(
        pd.DataFrame(stats)[table10], ctx.output["serialization"], title="Table 10: serialized-sequence statistics"
    )
    write_table(
        pd.DataFrame([_pattern_row(_read_json(p)) for p in ctx.input_list("patterns")]),
        ctx.output["patterns"],
        title="Training patterns and frequency strata",
    )
    write_table(
        _bootstrap_table(ctx.input_list("bootstrap")), ctx.output["bootstrap"], title="Graph-level bootstrap reference"
    )
    evaluations = [_read_json(p) for p in ctx.input_list("evaluations")]
    evaluation = pd.DataFrame([_evaluation_row(e) for e in evaluations])
    write_table(
        evaluation, ctx.output["evaluation"], title="Generated sets: memorization, pattern metrics and calibration"
    )
    figure1(evaluation, pd.read_csv(ctx.output["bootstrap"]), ctx.output["fig1"])
    write_table(
        _sensitivity_table(evaluations, ctx.input_list("sensitivity")),
        ctx.output["sensitivity"],
        title="Table 17 analogue: minimum-support sensitivity",
    )
    write_table(
        pd.DataFrame([row for e in evaluations for row in _strata_rows(e)]),
        ctx.output["strata"],
        title="Frequency strata of the generated sets",
    )


def _sensitivity_table(evaluations: list[dict], paths: list[str]) -> pd.DataFrame:
    """Rows at the main support (from the evaluations) and at the lower one, for the datasets swept."""
    low = [row for path in paths for row in json.loads(Path(path).read_text(encoding="utf-8"))]
    swept = {row["dataset"] for row in low}
    main = [
        _sensitivity_row(e["dataset"], e["generator"], e["sigma"], e["overall"])
        for e in evaluations
        if e["dataset"] in swept
    ]
    return pd.DataFrame(main + low, columns=SENSITIVITY_COLUMNS)


def _sensitivity_row(dataset: str, generator: str, sigma: float, overall: dict) -> dict:
    return {
        "dataset": dataset,
        "generator": generator,
        "sigma": sigma,
        "n_train_patterns": overall["n_train_patterns"],
        "rho": overall["rho"],
        "jsd": overall["jsd"],
        "missing": overall["missing_mass"],
    }


def _pattern_row(content: dict) -> dict:
    sizes = {s: len(content["strata"][s.capitalize()]) for s in STRATA}
    return {
        "dataset": content["dataset"],
        "sigma": content["sigma"],
        "upper": content["upper"],
        "n_patterns": len(content["patterns"]),
        **sizes,
    }


def _bootstrap_table(paths: list[str]) -> pd.DataFrame:
    by_dataset: dict[str, list[dict]] = {}
    for path in paths:
        content = _read_json(path)
        by_dataset.setdefault(content["dataset"], []).append(content["overall"])
    rows = []
    for dataset, replicates in by_dataset.items():
        rho = metrics.bootstrap_summary([r["rho"] for r in replicates])
        rows.append(
            {
                "dataset": dataset,
                "replicates": rho["n"],
                "rho_median": rho["median"],
                "rho_mean": rho["mean"],
                "rho_sd": rho["sd"],
                "jsd_mean": metrics.bootstrap_summary([r["jsd"] for r in replicates])["mean"],
                "missing_mass_mean": metrics.bootstrap_summary([r["missing_mass"] for r in replicates])["mean"],
            }
        )
    return pd.DataFrame(rows)


def _evaluation_row(e: dict) -> dict:
    overall, calibration = e["overall"], e["calibration"]
    return {
        "dataset": e["dataset"],
        "generator": e["generator"],
        "unique": e["unique"],
        "precision": e["precision"],
        "novelty": e["novelty"],
        "n_train_patterns": overall["n_train_patterns"],
        "n_gen_patterns": overall["n_gen_patterns"],
        "rho": overall["rho"],
        "jsd": overall["jsd"],
        "missing": overall["missing_mass"],
        "rho_delta": calibration["delta"],
        "z": calibration["z"],
        "pctile": calibration["pctile"],
        "n_invalid": e["n_invalid"],
    }


def _strata_rows(e: dict) -> list[dict]:
    return [
        {"dataset": e["dataset"], "generator": e["generator"], "stratum": name, **values}
        for name, values in e["strata"].items()
    ]

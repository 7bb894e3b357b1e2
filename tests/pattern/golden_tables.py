"""The pattern golden set: small committed intermediate files (``golden/inputs/``), made once by a miniature run
of the study's upstream rule functions, and every table the table functions build from them
(``golden/expected/``), rebuilt byte for byte by ``tests/pattern/test_tables.py`` (the DomainBed
``test_collect_results`` model).

Regenerate after a deliberate change, review the diff (``git diff tests/pattern/golden``) and say why in the
commit::

    .venv/bin/python -m tests.pattern.golden_tables --tables   # the expected tables from the committed inputs
    .venv/bin/python -m tests.pattern.golden_tables --neural   # first the neural runs' scores (synthetic runs)
    .venv/bin/python -m tests.pattern.golden_tables --inputs   # first the inputs as well (the miniature run)
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np

from graphaudit.common.atomic import write_json
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.common.settings import config_slice, load_settings
from graphaudit.pattern import neural_tables, tables
from graphaudit.pattern.cluster import tasks as cluster_tasks
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.minesweeper import tasks as ms_tasks
from graphaudit.pattern.minesweeper.board import Board, counts_from_mines, stratified_masks
from graphaudit.pattern.neural_plan import load_recipes, neural_recipe
from graphaudit.pattern.plan import evaluated_graphs, n_check_shards, n_shards
from graphaudit.pattern.planted import tasks as planted_tasks
from graphaudit.pattern.settings import BlindChains, Selection, StartChecks
from graphaudit.pattern.shards import write_shard

GOLDEN = Path(__file__).resolve().parent / "golden"
RECIPES = Path(__file__).resolve().parents[2] / "config/pattern/neural.yaml"  # the released recipes (the budget check)
INPUTS = GOLDEN / "inputs"
EXPECTED = GOLDEN / "expected"

SEED = 0
GENERATION = {
    "version": 2,
    "size_law": "release",
    "source": "regenerate",
    "n_patterns": 3,
    "per_pattern": {"train": 4, "val": 2, "test": 2},
    "sets": {"fresh": 3, "familiar": 3},
}
SELECTION = {
    "n_patterns": 3,
    "per_pattern": GENERATION["per_pattern"],
    "evaluate": {"test": 6, "val": 6},
    "sets": GENERATION["sets"],
    "shard_size": 4,
}
SETS = ["test", "familiar", "fresh"]
BLIND = {
    "restarts": 2,
    "iterations": 30,
    "prior": {"sweeps": 60, "burn_in": 10},
    "noprior": {"sweeps": 40, "burn_in": 10},
    "checks": {"graphs": 3, "random_chains": 2},
}
BOOTSTRAP = {"replicates": 50}
BATCH = 2  # smaller than a set, so the batch mean differs from the pooled accuracy
CLUSTER_RUN = ["final", "factor_short", "no_factor"]
CLUSTER_VARIANTS = {  # final with more chains and sweeps than the two earlier samplers, as in the paper
    "final": {"chains": 3, "sweeps": 40, "burn_in": 10},
    "factor_short": {"chains": 2, "sweeps": 30, "burn_in": 10},
    "no_factor": {"chains": 2, "sweeps": 30, "burn_in": 10},
}
BP = {"sweeps": 30, "damping": 0.9}
STRIP = {"sweeps": 120, "sweeps_per_part": 60, "burn_in": 5}
STRIP_SEEDS = (1000, 1001)
PUBLISHED = [
    {"predictor": "GatedGCN-PE", "reference": "Dwivedi et al. (2023)", "first_public": 2020, "cw_acc": 86.5},
    {"predictor": "GRIT", "reference": "Ma et al. (2023)", "first_public": 2023, "cw_acc": 87.2},
]
PUBLISHED_TABLE1 = [
    {"benchmark": "PATTERN", "metric": "class-weighted accuracy", "without_graph": 50.52, "best_published": 89.75},
    {"benchmark": "Minesweeper", "metric": "ROC AUC", "without_graph": 50.89, "note": "a preprint"},
]
NEURAL_RUNS = {  # (protocol, model, seed): (training graphs, the released recipe or a reduced one, signal strength)
    ("released", "ckgconv", 0): (10_000, True, 2.0),
    ("released", "ckgconv", 1): (40, False, 1.0),
    ("released", "grit", 0): (40, False, 1.5),
    ("held_out", "ckgconv", 0): (32, False, 1.0),
    ("fresh_trained", "ckgconv", 0): (40, False, 1.2),
}
WITHHELD = [1]  # the held-out run's withheld library pattern
NEURAL_CHOSEN = {"released": 3, "best_validation": 2, "last": 4}  # epochs each checkpoint rule picked (from zero)
PUBLISHED_TABLE4 = [
    {"benchmark": "CLUSTER", "estimate": 81.6, "sd_over_seeds": 0.19, "diagnostics": "GRPE-Small"},
    {"benchmark": "Minesweeper", "estimate": 99.55, "sd_over_splits": 0.15, "diagnostics": "SIES"},
]
"""The golden run's settings (pinned here, not read from the config, so a config change cannot move it)."""

NEURAL_INPUTS = {
    **{f"neural_{name}": f"neural/{name}.csv" for name in ("counts", "sets", "runs", "graphs")},
    "counts": "scores/counts.csv",
    "blind_sets": "scores/sets.csv",
}
NEURAL_PARAMS = {"bootstrap": BOOTSTRAP, "seed": SEED}

# table -> (inputs under golden/inputs/, params); list-valued inputs are globbed
TABLES: dict[str, tuple[dict[str, str], dict]] = {
    "table1": ({}, {"published": PUBLISHED_TABLE1}),
    "table2": ({"counts": "scores/counts.csv"}, {"published": PUBLISHED, "bootstrap": BOOTSTRAP, "seed": SEED}),
    "table3": (NEURAL_INPUTS, {"bootstrap": BOOTSTRAP, "batch": BATCH, "seed": SEED}),
    "table5": ({"library": "library.npz"}, {"pattern": GENERATION}),
    "table6": ({"library": "library.npz", "ids": "pattern_ids.csv"}, {}),
    "table7": ({"graphs": "scores/graphs.csv"}, {}),
    "table8": ({"counts": "scores/counts.csv"}, {"batch": BATCH}),
    "generator_checks": (
        {"library": "library.npz", "train": "official_train.npz"},
        {"law": {"version": 2, "size_law": "release"}},
    ),
    "matcher_diagnostics": ({"graphs": "scores/graphs.csv"}, {}),
    "appendix_b": ({"graphs": "scores/graphs.csv", "sets": "scores/sets.csv"}, {}),
    "blind_checks": (
        {"train": "official_train.npz", "test": "official_test.npz", "chains": "start_chains/shard*.npz"},
        {"selection": SELECTION, "checks": BLIND["checks"], "bootstrap": BOOTSTRAP, "seed": SEED},
    ),
    "cluster": (
        {"graphs": "cluster/test.npz", **{f"samples_{v}": f"cluster/{v}/shard*.npz" for v in CLUSTER_RUN}},
        {"run": CLUSTER_RUN, "bootstrap": BOOTSTRAP, "batch": BATCH, "seed": SEED},
    ),
    "cluster_differences": (
        {"graphs": "cluster/test.npz", **{f"samples_{v}": f"cluster/{v}/shard*.npz" for v in CLUSTER_RUN}},
        {"run": CLUSTER_RUN, "bootstrap": BOOTSTRAP, "seed": SEED},
    ),
    "minesweeper": (
        {
            "board": "minesweeper/board.npz",
            "bp_features": "minesweeper/bp_features.npz",
            "bp_labels": "minesweeper/bp_labels.npz",
            "chains": "minesweeper/chain*.npz",
        },
        {},
    ),
    "table15": (
        {
            "board": "minesweeper/board.npz",
            "checks": "minesweeper/self_tests.json",
            "chains": "minesweeper/chain*.npz",
        },
        {},
    ),
    "table4": ({"cluster": "@cluster", "minesweeper": "@minesweeper"}, {"published": PUBLISHED_TABLE4}),
    **{name: (NEURAL_INPUTS, NEURAL_PARAMS) for name in ("table9", "table10", "table11", "table12", "table13")},
    "table14": (NEURAL_INPUTS, NEURAL_PARAMS),
    "oracle_auc": (NEURAL_INPUTS, NEURAL_PARAMS),
}
"""Every table, in build order: ``@name`` is the table ``name`` just built (Table 4 reads two of them)."""


def _resolve(pattern: str, inputs: Path, out: Path) -> str | list[str]:
    if pattern.startswith("@"):
        return str(out / f"{pattern[1:]}.csv")
    if "*" in pattern:
        return [str(p) for p in sorted(inputs.glob(pattern))]
    return str(inputs / pattern)


def build_tables(inputs: Path, out: Path) -> Path:
    """Every table of :data:`TABLES` from the intermediate files under ``inputs``, written to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, (needs, params) in TABLES.items():
        ctx = RuleContext(
            input={key: _resolve(pattern, inputs, out) for key, pattern in needs.items()},
            output={"table": str(out / f"{name}.csv")},
            params=params,
        )
        getattr(tables, name)(ctx)
    return out


def _run(function, input: dict, output: dict, params: dict, wildcards: dict | None = None) -> None:
    function(RuleContext(input=input, output=output, params=params, wildcards=wildcards or {}))


def _pattern_inputs(work: Path, inputs: Path) -> None:
    """The miniature PATTERN run: generate, library, predictors, start chains, scores."""
    files = {f"official_{s}": f"official_{s}" for s in ("train", "val", "test")} | {
        "fresh": "fresh",
        "familiar": "familiar",
    }
    data = {name: str(work / f"{stem}.npz") for name, stem in files.items()}
    truth = {f"truth_{name}": str(work / f"truth_{stem}.npz") for name, stem in files.items()}
    _run(planted_tasks.generate, {}, {**data, **truth}, {"pattern": GENERATION, "seed": SEED})
    shutil.copy(data["official_train"], inputs / "official_train.npz")
    shutil.copy(data["official_test"], inputs / "official_test.npz")
    splits = {"train": data["official_train"], "val": data["official_val"], "test": data["official_test"]}
    library = {"library": str(inputs / "library.npz"), "ids": str(inputs / "pattern_ids.csv")}
    _run(planted_tasks.library, splits, library, {})
    set_file = {"test": data["official_test"], "familiar": data["familiar"], "fresh": data["fresh"]}
    selection = load_settings(Selection, SELECTION)
    shards: dict[str, list[str]] = {}
    for set_name in SETS:
        for k in range(n_shards(set_name, selection)):
            wildcards = {"set": set_name, "shard": str(k)}
            for variant in ("prior", "noprior"):
                path = str(work / set_name / f"blind_{variant}" / f"shard{k}.npz")
                _run(
                    planted_tasks.blind,
                    {"graphs": set_file[set_name]},
                    {"posterior": path},
                    {"selection": SELECTION, "blind": config_slice(BlindChains, BLIND), "seed": SEED},
                    {**wildcards, "variant": variant},
                )
                shards.setdefault(f"blind_{variant}_{set_name}", []).append(path)
            path = str(work / set_name / "matcher" / f"shard{k}.npz")
            _run(
                planted_tasks.match,
                {
                    "graphs": set_file[set_name],
                    "library": library["library"],
                    "noprior": shards[f"blind_noprior_{set_name}"][-1],
                },
                {"predictions": path},
                {
                    "selection": SELECTION,
                    "host": {"restarts": BLIND["restarts"], "iterations": BLIND["iterations"]},
                    "matcher": {"shortlist": 60},
                    "seed": SEED,
                },
                wildcards,
            )
            shards.setdefault(f"matcher_{set_name}", []).append(path)
    checks = load_settings(StartChecks, BLIND["checks"])
    for k in range(n_check_shards(selection, checks)):
        _run(
            planted_tasks.start_chains,
            {"graphs": data["official_test"]},
            {"chains": str(inputs / "start_chains" / f"shard{k}.npz")},
            {"selection": SELECTION, "blind": BLIND, "seed": SEED},
            {"shard": str(k)},
        )
    scores = {name: str(inputs / "scores" / f"{name}.csv") for name in ("counts", "graphs", "sets")}
    _run(
        planted_tasks.scores,
        {**{s: set_file[s] for s in SETS}, **shards, "train": data["official_train"]},
        scores,
        {"selection": SELECTION, "sets": SETS},
    )


def _golden_probabilities(labels: np.ndarray, strength: float, rng: np.random.Generator) -> np.ndarray:
    """Per-node pattern probabilities that separate the classes by ``strength`` logits, with noise."""
    return (1.0 / (1.0 + np.exp(-(strength * (2.0 * labels - 1.0) - 0.5 + rng.normal(0.0, 1.5, len(labels)))))).astype(
        np.float32
    )


def _golden_run(folder: Path, key: tuple[str, str, int], sets: dict[str, str], recipes: dict) -> None:
    """One synthetic run folder: ``run.json`` (the released recipe, or a reduced one), a predictions file per set with
    one probability field per checkpoint rule (a held-out run's ``run.json`` lists its withheld patterns)."""
    protocol, model, seed = key
    train_graphs, released, strength = NEURAL_RUNS[key]
    recipe = neural_recipe(model, recipes[model])
    model_config = {**asdict(recipe.model_config), **({} if released else {"hidden": 8, "layers": 1})}
    selection = load_settings(Selection, SELECTION)
    for set_name, path in sets.items():
        graphs, order = DenseGraphs.load(path), evaluated_graphs(set_name, selection)
        fields = {}
        for rule in NEURAL_CHOSEN:
            rng = rng_for("golden", "neural", *key, set_name, rule)
            fields[f"prob_{rule}"] = [_golden_probabilities(graphs.labels(g), strength, rng) for g in order]
        write_shard(str(folder / f"predictions_{set_name}.npz"), order, fields)
    run = {
        "protocol": protocol,
        "model": model,
        "seed": seed,
        "device": "cpu",
        "epochs": 5,
        "chosen": NEURAL_CHOSEN,
        "model_config": model_config,
        "train_config": {
            "max_epochs": recipe.max_epochs if released else 5,
            "batch_size": recipe.batch_size,
            "lr": recipe.lr,
            "micro_batches": 2 if model == "grit" else 1,
        },
        "graphs": {"train": train_graphs},
        "parameters": 1000,
        "wall_s": 7200.0,
        "withheld_patterns": WITHHELD if protocol == "held_out" else [],
    }
    write_json(folder / "run.json", run)


def _neural_inputs(work: Path, inputs: Path) -> None:
    """The neural runs' tidy scores from synthetic run folders on the golden sets (regenerated as the miniature
    PATTERN run draws them): what ``neural_scores`` writes from real runs."""
    files = {f"official_{s}": f"official_{s}" for s in ("train", "val", "test")} | {
        "fresh": "fresh",
        "familiar": "familiar",
    }
    data = {name: str(work / f"{stem}.npz") for name, stem in files.items()}
    truth = {f"truth_{name}": str(work / f"truth_{stem}.npz") for name, stem in files.items()}
    _run(planted_tasks.generate, {}, {**data, **truth}, {"pattern": GENERATION, "seed": SEED})
    stems = {"test": "official_test", "familiar": "familiar", "fresh": "fresh"}
    sets = {s: data[stems[s]] for s in SETS}
    recipes = load_recipes(RECIPES)
    runs = []
    for key in NEURAL_RUNS:
        folder = work / "neural" / key[0] / key[1] / f"seed{key[2]}"
        folder.mkdir(parents=True)
        _golden_run(folder, key, sets, recipes)
        runs.append(folder)
    _run(
        neural_tables.neural_scores,
        {
            **{f"graphs_{s}": sets[s] for s in SETS},
            **{f"truth_{s}": truth[f"truth_{stems[s]}"] for s in SETS},
            "runs": [str(f / "run.json") for f in runs],
            "predictions": [str(f / f"predictions_{s}.npz") for f in runs for s in SETS],
            "recipes": str(RECIPES),
        },
        {name: str(inputs / "neural" / f"{name}.csv") for name in ("counts", "sets", "runs", "graphs")},
        {"selection": SELECTION, "sets": SETS},
    )


def _cluster_inputs(inputs: Path) -> None:
    graphs = str(inputs / "cluster" / "test.npz")
    _run(cluster_tasks.cluster_generate, {}, {"graphs": graphs}, {"source": "regenerate", "graphs": 4, "seed": SEED})
    for variant in CLUSTER_RUN:
        for k in range(2):
            _run(
                cluster_tasks.cluster_sample,
                {"graphs": graphs},
                {"samples": str(inputs / "cluster" / variant / f"shard{k}.npz")},
                {"shard_size": 2, "override": CLUSTER_VARIANTS[variant], "seed": SEED},
                {"variant": variant, "shard": str(k)},
            )


def small_board(seed: int = 1, side: int = 12) -> Board:
    """A small regenerated-style board: mines at 0.2, half the counts unknown, two stratified masks."""
    rng = np.random.default_rng(seed)
    mines = (rng.random((side, side)) < 0.2).astype(np.uint8)
    counts = counts_from_mines(mines, rng.random((side, side)) < 0.5).ravel()
    train, val, test = stratified_masks(mines.ravel(), rng, n_masks=2)
    return Board(side, counts, mines.ravel(), train, val, test, source="regenerated")


def _minesweeper_inputs(work: Path, inputs: Path) -> None:
    folder = inputs / "minesweeper"
    folder.mkdir(parents=True, exist_ok=True)
    board, checks = str(folder / "board.npz"), str(folder / "self_tests.json")
    small_board().save(board)
    for information in ("features", "labels"):
        _run(
            ms_tasks.minesweeper_bp,
            {"board": board},
            {"marginals": str(folder / f"bp_{information}.npz")},
            {"bp": BP},
            {"information": information},
        )
    _run(ms_tasks.minesweeper_selftest, {}, {"checks": checks}, {"seed": SEED})
    parts = -(-STRIP["sweeps"] // STRIP["sweeps_per_part"])
    for seed in STRIP_SEEDS:
        previous: list[str] | str = []
        for part in range(parts):
            state = str(folder / f"chain{seed}.npz") if part == parts - 1 else str(work / f"chain{seed}_{part}.npz")
            _run(
                ms_tasks.minesweeper_strip,
                {"board": board, "checks": checks, "previous": previous},
                {"state": state},
                {"strip": STRIP},
                {"seed": str(seed), "part": str(part)},
            )
            previous = state


def build_inputs(inputs: Path = INPUTS) -> None:
    """The miniature run of the upstream rule functions, leaving only the files the tables read in ``inputs``."""
    shutil.rmtree(inputs, ignore_errors=True)
    (inputs / "scores").mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        _pattern_inputs(Path(work), inputs)
        _neural_inputs(Path(work) / "neural_sets", inputs)
        _cluster_inputs(inputs)
        _minesweeper_inputs(Path(work), inputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", action="store_true", help="rerun the miniature study for the inputs first")
    parser.add_argument("--tables", action="store_true", help="rebuild the expected tables from the inputs")
    parser.add_argument("--neural", action="store_true", help="rerun the neural inputs first (synthetic runs)")
    args = parser.parse_args()
    if not (args.inputs or args.tables or args.neural):
        parser.error("say --tables (expected tables), --neural or --inputs (inputs, then tables)")
    if args.inputs:
        build_inputs()
    elif args.neural:
        shutil.rmtree(INPUTS / "neural", ignore_errors=True)
        with tempfile.TemporaryDirectory() as work:
            _neural_inputs(Path(work), INPUTS)
    shutil.rmtree(EXPECTED, ignore_errors=True)
    build_tables(INPUTS, EXPECTED)
    print(f"wrote {EXPECTED}; review the diff before committing")


if __name__ == "__main__":
    main()

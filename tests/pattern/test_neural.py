"""Part 3's rule entries (graphaudit.pattern.neural): the RRWP cache against a dense float64 reference, the model a
recipe builds, and a tiny run end to end whose saved predictions score, through the pattern-blind predictors' path,
to the accuracy its records logged (the plan they read: test_neural_plan.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.nn.rrwp import rrwp
from graphaudit.pattern.dense import DenseGraphs, pack_graphs
from graphaudit.pattern.neural import (
    MODELS,
    build_model,
    edge_index_of,
    neural_labels,
    pattern_neural_rrwp,
    pattern_neural_train,
    read_rrwp_cache,
)
from graphaudit.pattern.neural_plan import (
    FRESH_SETS,
    MODEL_CONFIGS,
    NEURAL_SETS,
    RrwpPlan,
    neural_graphs,
    neural_recipe,
)
from graphaudit.pattern.planted.scoring import counts_for
from graphaudit.pattern.planted.tasks import generate
from graphaudit.pattern.settings import NeuralScale, NeuralShards, Selection
from graphaudit.stats.classification import class_weighted_accuracy

from .neural_inputs import RECIPES, SELECTION, SHARDS

RELEASED_SETS = {name: file for name, file in NEURAL_SETS.items() if name not in FRESH_SETS}  # what released reads


# ---- RRWP cache -------------------------------------------------------------------------------------------------
def dense_reference(adjacency: np.ndarray, steps: int, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(node channels (n, k_abs), pair channels (n, n, k) with [i, j] = P^k[i, j]) in float64 with numpy."""
    degree = adjacency.sum(axis=1, keepdims=True)
    walk = np.divide(adjacency, degree, out=np.zeros(adjacency.shape), where=degree > 0)
    last = steps - 1 if variant == "grit" else steps  # grit: I .. P^(steps-1); ckgconv: I .. P^steps
    powers = [np.linalg.matrix_power(walk, k) for k in range(last + 1)]
    pairs = np.stack(powers, axis=-1)
    nodes = np.stack([np.diag(p) for p in powers], axis=-1)
    return (nodes if variant == "grit" else nodes[:, 1:]), pairs


def hand_graphs() -> DenseGraphs:
    house = np.zeros((5, 5), np.uint8)
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (3, 4)]:
        house[a, b] = house[b, a] = 1
    star = np.zeros((6, 6), np.uint8)  # node 5 isolated
    star[0, 1:5] = star[1:5, 0] = 1
    rng = np.random.default_rng(4)
    upper = np.triu(rng.random((30, 30)) < 0.4, 1)
    dense = (upper | upper.T).astype(np.uint8)
    adjs = [house, star, dense]
    return pack_graphs(adjs, [np.arange(len(a)) % 3 for a in adjs], [np.arange(len(a)) % 2 for a in adjs])


@pytest.mark.parametrize("variant", ["grit", "ckgconv"])
def test_the_cached_rrwp_is_the_per_graph_encoding_and_the_dense_reference(tmp_path, variant: str) -> None:
    graphs = hand_graphs()
    graphs.save(tmp_path / "fresh.npz")
    plan = RrwpPlan(steps=21, add_identity=True, variant=variant)
    selection = SELECTION | {"sets": {"fresh": 3, "familiar": 2}}
    out = {"rrwp": str(tmp_path / "shard0.npz")}
    shards = {"train_graphs": 4, "rrwp_shard_size": 5}
    pattern_neural_rrwp(
        RuleContext(
            input={"graphs": str(tmp_path / "fresh.npz")},
            output=out,
            params={"rrwp": vars(plan), "selection": selection, "graphs": shards},
            wildcards={"model": variant, "set": "fresh", "shard": "0"},
        )
    )
    cached = read_rrwp_cache([out["rrwp"]], plan)
    assert sorted(cached) == [0, 1, 2]
    for g in range(3):
        adjacency = graphs.adjacency(g)
        direct = rrwp(edge_index_of(adjacency), graphs.size(g), 21, True, variant)
        for name in ("abs_pe", "rel_index", "rel_val", "degree"):
            assert torch.equal(getattr(cached[g], name), getattr(direct, name)), (g, name)
        nodes, pairs = dense_reference(adjacency.astype(np.float64), 21, variant)
        dense = np.zeros_like(pairs)
        source, target = cached[g].rel_index.numpy()
        dense[target, source] = cached[g].rel_val.numpy()  # stored as the edge j -> i with P^k[i, j]
        np.testing.assert_allclose(dense, pairs, rtol=0, atol=1e-6)
        np.testing.assert_allclose(cached[g].abs_pe.numpy(), nodes, rtol=0, atol=1e-6)
        np.testing.assert_array_equal(cached[g].degree.numpy(), adjacency.sum(axis=1))
        assert not (np.abs(pairs).sum(axis=-1)[dense.sum(axis=-1) == 0] > 0).any()  # no nonzero pair left out
    with pytest.raises(ValueError, match="rerun"):
        read_rrwp_cache([out["rrwp"]], RrwpPlan(steps=8, add_identity=True, variant=variant))


# ---- models -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", list(MODEL_CONFIGS))
def test_a_recipe_builds_its_model_with_its_config(model: str) -> None:
    assert set(MODELS) == set(MODEL_CONFIGS)
    scale = NeuralScale(hidden=8, layers=1)
    recipe = neural_recipe(model, RECIPES[model], scale)
    built = build_model(recipe)
    assert isinstance(built, MODELS[model]) and built.config == recipe.model_config
    assert isinstance(recipe.model_config, MODEL_CONFIGS[model])


# ---- a tiny run end to end --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("neural")
    names = list(RELEASED_SETS.values())
    output = {n: str(folder / f"{n}.npz") for n in names} | {f"truth_{n}": str(folder / f"t_{n}.npz") for n in names}
    generation = {
        "version": 2,
        "size_law": "release",
        "source": "regenerate",
        "n_patterns": 2,
        "per_pattern": SELECTION["per_pattern"],
        "sets": SELECTION["sets"],
    }
    generate(RuleContext(output=output, params={"pattern": generation, "seed": 5}))
    return folder


def _cache(folder: Path, model: str, plan: RrwpPlan) -> dict[str, list[str]]:
    selection, shards = load_settings(Selection, SELECTION), load_settings(NeuralShards, SHARDS)
    paths: dict[str, list[str]] = {}
    for name, file in RELEASED_SETS.items():
        count = -(-len(neural_graphs(name, selection, shards)) // SHARDS["rrwp_shard_size"])
        paths[name] = [str(folder / f"{model}_{name}_{k}.npz") for k in range(count)]
        for k, path in enumerate(paths[name]):
            pattern_neural_rrwp(
                RuleContext(
                    input={"graphs": str(folder / f"{file}.npz")},
                    output={"rrwp": path},
                    params={"rrwp": vars(plan), "selection": SELECTION, "graphs": SHARDS},
                    wildcards={"model": model, "set": name, "shard": str(k)},
                )
            )
    return paths


@pytest.mark.parametrize("model", ["ckgconv", "grit"])
def test_a_run_writes_records_and_predictions_that_score_as_logged(generated: Path, tmp_path, model: str) -> None:
    torch.set_num_threads(1)
    scale = {"hidden": 8, "layers": 1, "max_epochs": 3, "warmup_epochs": 1, "batch_size": 2}
    plan = neural_recipe(model, RECIPES[model], load_settings(NeuralScale, scale)).rrwp
    cache = _cache(generated, model, plan)
    sets = ["val", "test", "familiar", "fresh"]
    inputs = {f"graphs_{name}": str(generated / f"{file}.npz") for name, file in RELEASED_SETS.items()}
    inputs |= {f"rrwp_{name}": paths for name, paths in cache.items()}
    run_dir = tmp_path / "released" / model / "seed0"
    outputs = {"records": str(run_dir / "records.jsonl"), "run": str(run_dir / "run.json")}
    outputs |= {"weights": str(run_dir / "model.safetensors")}
    outputs |= {f"predictions_{name}": str(run_dir / f"predictions_{name}.npz") for name in sets}
    params = {
        "recipe": RECIPES[model],
        "scale": scale,
        "micro_batches": 1,
        "neural": SHARDS | {"device": "auto", "checkpoint_every_s": 1e9},
        "selection": SELECTION,
        "sets": ["test", "familiar", "fresh"],
        "seed": 0,
    }
    ctx = RuleContext(
        input=inputs, output=outputs, params=params, wildcards={"model": model, "protocol": "released", "seed": "0"}
    )
    pattern_neural_train(ctx)
    records = read_records(outputs["records"])
    assert [r["epoch"] for r in records] == [0, 1, 2] and {r["model"] for r in records} == {model}
    summary = json.loads(Path(outputs["run"]).read_text())
    assert summary["graphs"] == {"train": 4, "val": 2, "test": 4, "familiar": 2, "fresh": 2}
    assert not (run_dir / "checkpoint.pt").exists()
    for rule, epoch in summary["chosen"].items():
        if epoch is None:
            continue
        for name in sets:
            graphs = DenseGraphs.load(inputs[f"graphs_{name}"])
            order = neural_graphs(name, load_settings(Selection, SELECTION), load_settings(NeuralShards, SHARDS))
            labels = neural_labels(outputs[f"predictions_{name}"], rule)
            assert sorted(labels) == sorted(order)
            pooled = counts_for(graphs, order, labels).sum(axis=0)
            assert round(float(class_weighted_accuracy(pooled)) / 100, 5) == records[epoch][f"{name}_acc"], (rule, name)

"""The held_out and fresh_trained protocols (graphaudit.pattern.protocols) and the round-trip control
(graphaudit.pattern.round_trip): the held-out draw within the size groups, the withheld patterns absent from the
held-out training and validation graphs by canonical form, the fresh training patterns distinct and new, the round
trip's identity (and that a broken conversion fails it), and a tiny run of every protocol through the trainer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from safetensors.torch import load_file

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.nn.rrwp import rrwp
from graphaudit.pattern import round_trip
from graphaudit.pattern.dense import DenseGraphs, Truth, pack_graphs
from graphaudit.pattern.neural import (
    edge_index_of,
    graph_data,
    neural_labels,
    pattern_neural_rrwp,
    pattern_neural_train,
    protocol_orders,
)
from graphaudit.pattern.neural_plan import (
    NEURAL_SETS,
    RrwpPlan,
    graph_file,
    load_recipes,
    neural_graphs,
    neural_recipe,
    rrwp_files,
)
from graphaudit.pattern.planted.generator import PatternLaw, distinct_fresh_splits, law_for
from graphaudit.pattern.planted.library import graph_key, graph_keys, load_library
from graphaudit.pattern.planted.scoring import counts_for
from graphaudit.pattern.planted.tasks import generate, library
from graphaudit.pattern.protocols import (
    SIZE_GROUPS,
    allocate,
    draw_held_out,
    kept_graphs,
    pattern_neural_fresh_splits,
    pattern_neural_held_out,
    size_group,
    withheld_patterns,
)
from graphaudit.pattern.round_trip import (
    compare_predictions,
    pattern_neural_round_trip,
    reassemble,
    same_inputs,
    take_apart,
)
from graphaudit.pattern.settings import FreshSplits, NeuralScale, NeuralShards, Selection
from graphaudit.stats.classification import class_weighted_accuracy

ROOT = Path(__file__).resolve().parents[2]
RECIPES = load_recipes(ROOT / "config/pattern/neural.yaml")
SELECTION = {
    "n_patterns": 6,
    "per_pattern": {"train": 3, "val": 2, "test": 2},
    "evaluate": {"test": 12, "val": 6},
    "sets": {"fresh": 4, "familiar": 4},
    "shard_size": 4,
}
SHARDS = {"train_graphs": 12, "rrwp_shard_size": 5}
FRESH = {"train": 6, "val": 3}
WITHHELD = 2
SEED = 3
SCALE = {"hidden": 8, "layers": 1, "max_epochs": 2, "warmup_epochs": 0, "batch_size": 4}


class _Wildcards(dict):
    """Snakemake's wildcards as the input functions read them (attributes and ``keys``)."""

    __getattr__ = dict.__getitem__


# ---- the held-out draw ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("groups", "total", "shares"),
    [
        ([24, 76], 20, [5, 15]),  # the released library: the paper's 5 small + 15 large
        ([27, 73], 20, [5, 15]),  # 5.4 / 14.6
        ([30, 70], 20, [6, 14]),
        ([2, 8], 2, [0, 2]),  # 0.4 / 1.6
        ([1, 1], 1, [1, 0]),  # a tie goes to the earlier group
        ([0, 10], 3, [0, 3]),
        ([5, 5], 10, [5, 5]),
    ],
)
def test_allocate_splits_a_count_by_largest_remainder(groups: list[int], total: int, shares: list[int]) -> None:
    assert allocate(groups, total) == shares


@given(st.lists(st.integers(0, 60), min_size=1, max_size=4).filter(lambda g: sum(g) > 0), st.data())
def test_allocate_is_within_one_of_every_quota(groups: list[int], data: st.DataObject) -> None:
    total = data.draw(st.integers(0, sum(groups)))
    shares = allocate(groups, total)
    assert sum(shares) == total
    for share, size in zip(shares, groups):
        assert 0 <= share <= size
        assert abs(share - total * size / sum(groups)) < 1


def test_allocate_refuses_more_than_there_is() -> None:
    with pytest.raises(ValueError, match="cannot take"):
        allocate([2, 3], 6)


def released_profile() -> list[int]:
    """Pattern sizes with the released library's groups: 24 under 14 nodes, 76 of 14 or more, interleaved."""
    small, large = list(range(6, 14)) * 3, list(range(14, 34)) * 4
    sizes = small + large[:76]
    return [sizes[k] for k in np.random.default_rng(0).permutation(100)]


def test_the_held_out_draw_takes_each_groups_share_and_is_seeded() -> None:
    sizes = released_profile()
    assert sum(s < 14 for s in sizes) == 24
    drawn = draw_held_out(sizes, 20, seed=0)
    assert drawn == sorted(set(drawn)) and len(drawn) == 20 and all(0 <= k < 100 for k in drawn)
    groups = [size_group(sizes[k]) for k in drawn]
    assert (groups.count(SIZE_GROUPS[0]), groups.count(SIZE_GROUPS[1])) == (5, 15)
    assert draw_held_out(sizes, 20, seed=0) == drawn  # deterministic
    others = [draw_held_out(sizes, 20, seed=s) for s in range(1, 6)]
    assert any(o != drawn for o in others)  # and the seed matters
    for other in others:
        other_groups = [size_group(sizes[k]) for k in other]
        assert other_groups.count(SIZE_GROUPS[0]) == 5


def test_size_groups_split_at_14_nodes() -> None:
    assert [size_group(s) for s in (6, 13, 14, 34)] == ["under 14", "under 14", "14 or more", "14 or more"]


@pytest.mark.parametrize("count", [0, 4])
def test_the_held_out_draw_keeps_some_patterns(count: int) -> None:
    with pytest.raises(ValueError, match="fewer than all"):
        draw_held_out([6, 20, 30, 12], count, seed=0)


# ---- data: generated sets, library, held-out files, fresh splits --------------------------------------------------
@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("protocols")
    names = ["official_train", "official_val", "official_test", "fresh", "familiar"]
    output = {n: str(folder / f"{n}.npz") for n in names} | {f"truth_{n}": str(folder / f"t_{n}.npz") for n in names}
    generation = {
        "version": 2,
        "size_law": "release",
        "source": "regenerate",
        "n_patterns": SELECTION["n_patterns"],
        "per_pattern": SELECTION["per_pattern"],
        "sets": SELECTION["sets"],
    }
    generate(RuleContext(output=output, params={"pattern": generation, "seed": SEED}))
    splits = {s: str(folder / f"official_{s}.npz") for s in ("train", "val", "test")}
    library(
        RuleContext(
            input=splits, output={"library": str(folder / "library.npz"), "ids": str(folder / "pattern_ids.csv")}
        )
    )
    pattern_neural_held_out(
        RuleContext(
            input={"library": str(folder / "library.npz"), "ids": str(folder / "pattern_ids.csv"), **splits}
            | {"familiar": str(folder / "familiar.npz")},
            output={"patterns": str(folder / "patterns.csv"), "graphs": str(folder / "graphs.csv")},
            params={"held_out": {"patterns": WITHHELD}, "seed": SEED},
        )
    )
    fresh_outputs = {s: str(folder / f"{s}.npz") for s in ("fresh_train", "fresh_val")}
    fresh_outputs |= {f"truth_{s}": str(folder / f"t_{s}.npz") for s in ("fresh_train", "fresh_val")}
    pattern_neural_fresh_splits(
        RuleContext(
            input={"library": str(folder / "library.npz"), "fresh": str(folder / "fresh.npz")},
            output=fresh_outputs | {"summary": str(folder / "fresh_splits.json")},
            params={"law": {"version": 2, "size_law": "release"}, "splits": FRESH, "seed": SEED},
        )
    )
    return folder


def _selection() -> Selection:
    return load_settings(Selection, SELECTION)


def _shards() -> NeuralShards:
    return load_settings(NeuralShards, SHARDS)


def test_the_held_out_files_name_the_withheld_patterns_by_canonical_form(data: Path) -> None:
    patterns = load_library(data / "library.npz")
    withheld = withheld_patterns(str(data / "patterns.csv"))
    assert withheld == draw_held_out([p.size for p in patterns], WITHHELD, SEED)
    withheld_keys = {patterns[k].key for k in withheld}
    for name, file in [("train", "official_train"), ("val", "official_val"), ("test", "official_test")]:
        graphs = DenseGraphs.load(data / f"{file}.npz")
        kept = set(kept_graphs(str(data / "graphs.csv"), name))
        for g in range(graphs.num_graphs):
            assert (g in kept) == (graph_key(graphs, g) not in withheld_keys), (name, g)
    familiar = DenseGraphs.load(data / "familiar.npz")
    kept = set(kept_graphs(str(data / "graphs.csv"), "familiar"))
    assert kept == {g for g in range(familiar.num_graphs) if graph_key(familiar, g) not in withheld_keys}


def test_held_out_training_and_validation_graphs_carry_no_withheld_pattern(data: Path) -> None:
    withheld_keys = {load_library(data / "library.npz")[k].key for k in withheld_patterns(str(data / "patterns.csv"))}
    released = protocol_orders("released", ["train", "val", "test"], _selection(), _shards())
    held_out = protocol_orders(
        "held_out", ["train", "val", "test"], _selection(), _shards(), held_out_graphs=str(data / "graphs.csv")
    )
    assert held_out["test"] == released["test"]  # every protocol scores the same graphs
    for name, file in [("train", "official_train"), ("val", "official_val")]:
        graphs = DenseGraphs.load(data / f"{file}.npz")
        assert held_out[name], name
        assert not {graph_key(graphs, g) for g in held_out[name]} & withheld_keys, name
        dropped = [g for g in released[name] if g not in held_out[name]]
        assert {graph_key(graphs, g) for g in dropped} <= withheld_keys
        assert held_out[name] == [g for g in released[name] if g not in dropped]  # the order is kept
    per_pattern = SHARDS["train_graphs"] // SELECTION["n_patterns"]
    assert len(held_out["train"]) == per_pattern * (SELECTION["n_patterns"] - WITHHELD)  # 8,000 of 10,000 in the paper


def test_the_fresh_training_patterns_are_distinct_and_new(data: Path) -> None:
    forbidden = {p.key for p in load_library(data / "library.npz")}
    forbidden |= set(graph_keys(DenseGraphs.load(data / "fresh.npz")))
    keys = []
    for name, count in [("fresh_train", FRESH["train"]), ("fresh_val", FRESH["val"])]:
        graphs = DenseGraphs.load(data / f"{name}.npz")
        truth = Truth.load(data / f"t_{name}.npz")
        assert graphs.num_graphs == count
        assert (truth.pattern_id == -1).all()
        np.testing.assert_array_equal(truth.pattern_size, [int(graphs.labels(g).sum()) for g in range(count)])
        assert all(6 <= s <= 34 for s in truth.pattern_size)
        keys += graph_keys(graphs)
    assert len(set(keys)) == len(keys)
    assert not set(keys) & forbidden
    summary = json.loads((data / "fresh_splits.json").read_text())
    assert summary["graphs"] == {"fresh_train": FRESH["train"], "fresh_val": FRESH["val"]}
    assert summary["forbidden"]["both"] == len(forbidden)


def test_fresh_training_splits_reject_forbidden_and_repeated_patterns() -> None:
    law = law_for(2)
    made, rejected = distinct_fresh_splits(law, {"a": 3}, seed=1, forbidden=set())
    assert rejected == {"forbidden": 0, "repeated": 0}
    first = graph_key(made["a"][0], 0)
    again, rejected = distinct_fresh_splits(law, {"a": 3}, seed=1, forbidden={first})
    assert rejected == {"forbidden": 1, "repeated": 0}
    assert graph_key(again["a"][0], 0) != first
    for g in (1, 2):  # later graphs draw from their own generators: unchanged
        assert graph_key(again["a"][0], g) == graph_key(made["a"][0], g)
    # edgeless patterns of one feature value: a pattern is its size, 29 of them (6..34)
    plain = PatternLaw(p=0.0, features=1)
    made, rejected = distinct_fresh_splits(plain, {"a": 20, "b": 9}, seed=0, forbidden=set())
    sizes = np.concatenate([made[s][1].pattern_size for s in ("a", "b")])
    assert sorted(sizes.tolist()) == list(range(6, 35)) and rejected["repeated"] > 0


def test_fresh_training_splits_stop_when_the_law_is_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphaudit.pattern.planted.generator.MAX_REJECTIONS", 50)
    plain = PatternLaw(p=0.0, features=1)
    with pytest.raises(RuntimeError, match="exhausted"):
        distinct_fresh_splits(plain, {"a": 30}, seed=0, forbidden=set())


def test_fresh_training_splits_are_deterministic(data: Path, tmp_path: Path) -> None:
    outputs = {s: str(tmp_path / f"{s}.npz") for s in ("fresh_train", "fresh_val")}
    outputs |= {f"truth_{s}": str(tmp_path / f"t_{s}.npz") for s in ("fresh_train", "fresh_val")}
    pattern_neural_fresh_splits(
        RuleContext(
            input={"library": str(data / "library.npz"), "fresh": str(data / "fresh.npz")},
            output=outputs | {"summary": str(tmp_path / "summary.json")},
            params={"law": {"version": 2, "size_law": "release"}, "splits": FRESH, "seed": SEED},
        )
    )
    for name in ("fresh_train", "fresh_val"):
        assert Path(outputs[name]).read_bytes() == (data / f"{name}.npz").read_bytes()


# ---- round trip pieces ------------------------------------------------------------------------------------------
def _hand_graphs() -> DenseGraphs:
    rng = np.random.default_rng(2)
    adjs = []
    for n in (5, 9, 14):
        upper = np.triu(rng.random((n, n)) < 0.4, 1)
        adjs.append((upper | upper.T).astype(np.uint8))
    adjs[0][:, 4] = adjs[0][4, :] = 0  # an isolated node
    return pack_graphs(adjs, [rng.integers(0, 3, len(a)) for a in adjs], [rng.integers(0, 2, len(a)) for a in adjs])


def test_taking_a_graph_apart_and_reassembling_it_gives_it_back(tmp_path: Path) -> None:
    graphs = _hand_graphs()
    plan = RrwpPlan(6, True, "ckgconv")
    converted = [
        graph_data(graphs, g, rrwp(edge_index_of(graphs.adjacency(g)), graphs.size(g), 6, True, "ckgconv"))
        for g in range(graphs.num_graphs)
    ]
    back = reassemble([take_apart(d) for d in converted])
    for g in range(graphs.num_graphs):
        np.testing.assert_array_equal(back.adjacency(g), graphs.adjacency(g))
        np.testing.assert_array_equal(back.features(g), graphs.features(g))
        np.testing.assert_array_equal(back.labels(g), graphs.labels(g))
    trip = round_trip.round_trip_data(converted, plan, tmp_path)
    assert all(same_inputs(a, b) for a, b in zip(converted, trip))
    changed = trip[1].clone()
    changed.rrwp_val = changed.rrwp_val + 1e-7
    assert not same_inputs(converted[1], changed)
    recast = trip[2].clone()
    recast.y = recast.y.int()
    assert not same_inputs(converted[2], recast)


def test_take_apart_refuses_a_conversion_that_changed_the_graph() -> None:
    graphs = _hand_graphs()
    data = graph_data(graphs, 1)
    scaled = data.clone()
    scaled.x = scaled.x * 2
    with pytest.raises(ValueError, match="one-hot"):
        take_apart(scaled)
    one_way = data.clone()
    one_way.edge_index = one_way.edge_index[:, one_way.edge_index[0] < one_way.edge_index[1]]
    with pytest.raises(ValueError, match="reverse"):
        take_apart(one_way)


def test_compare_predictions_counts_differing_labels() -> None:
    a = np.array([0.1, 0.6, 0.5, 0.9], dtype=np.float32)
    b = np.array([0.1, 0.4, 0.5000001, 0.9], dtype=np.float32)
    out = compare_predictions(a, b)
    assert out["labels_differing"] == 2 and not out["labels_identical"] and not out["probabilities_identical"]
    assert out["max_abs_difference"] == pytest.approx(0.2, abs=1e-6)
    assert compare_predictions(a, a.copy()) == {
        "labels_identical": True,
        "labels_differing": 0,
        "probabilities_identical": True,
        "max_abs_difference": 0.0,
    }


# ---- a tiny run of every protocol, and its round trip -------------------------------------------------------------
def _cache(data: Path, model: str, plan: RrwpPlan, names: list[str]) -> None:
    fresh = load_settings(FreshSplits, FRESH)
    for name in names:
        count = -(-len(neural_graphs(name, _selection(), _shards(), fresh)) // SHARDS["rrwp_shard_size"])
        for k in range(count):
            path = data / "rrwp" / model / name / f"shard{k}.npz"
            if path.exists():
                continue
            pattern_neural_rrwp(
                RuleContext(
                    input={"graphs": str(data / f"{NEURAL_SETS[name]}.npz")},
                    output={"rrwp": str(path)},
                    params={"rrwp": vars(plan), "selection": SELECTION, "graphs": SHARDS, "fresh": FRESH},
                    wildcards={"model": model, "set": name, "shard": str(k)},
                )
            )


def _train(data: Path, out: Path, protocol: str, model: str = "ckgconv") -> RuleContext:
    """One tiny run, its inputs found by the rule file's input functions."""
    torch.set_num_threads(1)
    plan = neural_recipe(model, RECIPES[model], load_settings(NeuralScale, SCALE)).rrwp
    _cache(data, model, plan, list(NEURAL_SETS))
    sets = ["val", "test", "familiar", "fresh"]
    wildcards = _Wildcards(model=model, protocol=protocol, seed="0")
    inputs: dict[str, object] = {}
    for name in ["train", *sets]:
        files = rrwp_files(str(data / "rrwp"), name, _selection(), _shards(), load_settings(FreshSplits, FRESH))
        inputs[f"rrwp_{name}"] = files(wildcards)
        inputs[f"graphs_{name}"] = graph_file(str(data), name)(wildcards)
    inputs |= {"held_out_patterns": str(data / "patterns.csv"), "held_out_graphs": str(data / "graphs.csv")}
    run_dir = out / protocol / model / "seed0"
    outputs = {"records": str(run_dir / "records.jsonl"), "run": str(run_dir / "run.json")}
    outputs |= {"weights": str(run_dir / "model.safetensors")}
    outputs |= {f"predictions_{name}": str(run_dir / f"predictions_{name}.npz") for name in sets}
    params = {
        "recipe": RECIPES[model],
        "scale": SCALE,
        "micro_batches": 1,
        "neural": SHARDS | {"device": "cpu", "checkpoint_every_s": 1e9},
        "selection": SELECTION,
        "sets": ["test", "familiar", "fresh"],
        "fresh": FRESH if protocol == "fresh_trained" else None,
        "seed": 0,
    }
    ctx = RuleContext(input=inputs, output=outputs, params=params, wildcards=dict(wildcards))
    pattern_neural_train(ctx)
    return ctx


@pytest.fixture(scope="module")
def runs(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, RuleContext]:
    out = tmp_path_factory.mktemp("runs")
    return {protocol: _train(data, out, protocol) for protocol in ("released", "held_out", "fresh_trained")}


@pytest.mark.parametrize("protocol", ["released", "held_out", "fresh_trained"])
def test_every_protocol_trains_and_scores_the_same_test_graphs(runs: dict[str, RuleContext], protocol: str) -> None:
    ctx = runs[protocol]
    summary = json.loads(Path(ctx.output["run"]).read_text())
    records = read_records(ctx.output["records"])
    assert [r["epoch"] for r in records] == [0, 1] and {r["protocol"] for r in records} == {protocol}
    expected_sets = {
        "released": ("official_train", "official_val"),
        "held_out": ("official_train", "official_val"),
        "fresh_trained": ("fresh_train", "fresh_val"),
    }[protocol]
    assert (summary["graph_sets"]["train"], summary["graph_sets"]["val"]) == expected_sets
    assert {summary["graph_sets"][s] for s in ("test", "familiar", "fresh")} == {"official_test", "familiar", "fresh"}
    released = json.loads(Path(runs["released"].output["run"]).read_text())
    for name in ("test", "familiar", "fresh"):  # the same scored graphs as the released protocol
        assert summary["graphs"][name] == released["graphs"][name]
        graphs = DenseGraphs.load(ctx.input[f"graphs_{name}"])
        labels = neural_labels(ctx.output[f"predictions_{name}"], "last")
        assert sorted(labels) == sorted(neural_labels(runs["released"].output[f"predictions_{name}"], "last"))
        pooled = counts_for(graphs, sorted(labels), labels).sum(axis=0)
        assert round(float(class_weighted_accuracy(pooled)) / 100, 5) == records[-1][f"{name}_acc"]
    if protocol == "held_out":
        assert summary["withheld_patterns"] == withheld_patterns(ctx.input["held_out_patterns"])
        assert len(summary["withheld_patterns"]) == WITHHELD
        assert summary["graphs"]["train"] < released["graphs"]["train"]
        assert summary["graphs"]["val"] < released["graphs"]["val"]
    else:
        assert summary["withheld_patterns"] == []
    if protocol == "fresh_trained":
        assert (summary["graphs"]["train"], summary["graphs"]["val"]) == (FRESH["train"], FRESH["val"])
        val = neural_labels(ctx.output["predictions_val"], "last")
        assert sorted(val) == list(range(FRESH["val"]))
    weights = load_file(ctx.output["weights"])
    start = json.loads(Path(runs["released"].output["run"]).read_text())["train_config"]["seed"]
    assert summary["train_config"]["seed"] == start  # the same seed starts every protocol from the same weights
    assert weights and all(torch.isfinite(v.float()).all() for v in weights.values())


def _round_trip(ctx: RuleContext, out: Path, graphs: int = 200) -> dict:
    wildcards = _Wildcards(ctx.wildcards)
    files = rrwp_files(str(Path(ctx.input["graphs_test"]).parent / "rrwp"), "test", _selection(), _shards())
    result = out / "round_trip.json"
    pattern_neural_round_trip(
        RuleContext(
            input={
                "graphs_test": ctx.input["graphs_test"],
                "rrwp_test": files(wildcards),
                "weights": ctx.output["weights"],
                "predictions_test": ctx.output["predictions_test"],
            },
            output={"round_trip": str(result)},
            params={"recipe": RECIPES["ckgconv"], "scale": SCALE, "selection": SELECTION, "graphs": graphs},
            wildcards=dict(wildcards),
        )
    )
    return json.loads(result.read_text())


@pytest.mark.parametrize("protocol", ["released", "fresh_trained"])
def test_the_round_trip_gives_identical_predictions(runs: dict[str, RuleContext], tmp_path: Path, protocol: str):
    result = _round_trip(runs[protocol], tmp_path)
    assert result["passed"] and result["inputs_identical"] and result["probabilities_identical"]
    assert result["graphs"] == SELECTION["evaluate"]["test"]  # 200 asked, all 12 evaluated test graphs taken
    assert result["accuracy"]["loader"] == result["accuracy"]["round_trip"]
    assert result["saved"]["labels_identical"] and result["saved"]["rule"] == "last"
    assert result["saved"]["max_abs_difference"] < 1e-6  # the saved weights are the last epoch's


def test_the_round_trip_fails_when_the_conversion_changes_the_graphs(
    runs: dict[str, RuleContext], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = round_trip.take_apart

    def swapped_features(data):  # a conversion that confuses two feature values
        features, edges, labels = real(data)
        return np.where(features == 0, 1, np.where(features == 1, 0, features)).astype(np.uint8), edges, labels

    monkeypatch.setattr(round_trip, "take_apart", swapped_features)
    result = _round_trip(runs["released"], tmp_path, graphs=5)
    assert result["graphs"] == 5
    assert not result["inputs_identical"] and not result["passed"]
    assert not result["probabilities_identical"]

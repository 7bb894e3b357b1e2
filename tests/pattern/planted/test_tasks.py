"""PATTERN's rule entries up to the tables: generate and library on a tiny study, scores on handmade shards."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.pattern.dense import DenseGraphs, pack_graphs
from graphaudit.pattern.planted.scoring import COUNT_COLUMNS, GRAPH_COLUMNS, PATTERN_BLIND, SET_COLUMNS
from graphaudit.pattern.planted.tasks import generate, library, scores
from graphaudit.pattern.shards import write_shard
from graphaudit.pattern.tidy import read_frame

GENERATION = {
    "version": 2,
    "size_law": "release",
    "source": "regenerate",
    "n_patterns": 2,
    "per_pattern": {"train": 3, "val": 1, "test": 2},
    "sets": {"fresh": 2, "familiar": 2},
}


def test_generate_then_library_give_every_graph_its_pattern_id(tmp_path) -> None:
    names = ["official_train", "official_val", "official_test", "fresh", "familiar"]
    output = {n: str(tmp_path / f"{n}.npz") for n in names} | {
        f"truth_{n}": str(tmp_path / f"t_{n}.npz") for n in names
    }
    generate(RuleContext(output=output, params={"pattern": GENERATION, "seed": 3}))
    assert DenseGraphs.load(output["official_train"]).num_graphs == 6
    splits = {"train": output["official_train"], "val": output["official_val"], "test": output["official_test"]}
    out = {"library": str(tmp_path / "library.npz"), "ids": str(tmp_path / "ids.csv")}
    library(RuleContext(input=splits, output=out))
    ids = read_frame(out["ids"])
    assert ids.groupby("split", sort=False)["pattern"].apply(list).to_dict() == {
        "train": [0, 0, 0, 1, 1, 1],
        "val": [0, 1],
        "test": [0, 0, 1, 1],
    }


def test_scores_write_tidy_counts_and_diagnostics(tmp_path) -> None:
    labels = [np.array([1, 1, 0, 0], np.uint8), np.array([0, 1, 1, 0, 0], np.uint8)]
    graphs = pack_graphs(
        [np.zeros((len(y), len(y)), np.uint8) for y in labels], [np.zeros(len(y), np.uint8) for y in labels], labels
    )
    graphs.save(tmp_path / "fresh.npz")
    train = pack_graphs([np.zeros((4, 4), np.uint8)], [np.zeros(4, np.uint8)], [np.array([1, 0, 0, 0], np.uint8)])
    train.save(tmp_path / "train.npz")  # pattern share 1/4: the threshold
    prior = [np.array([0.9, 0.3, 0.2, 0.0]), np.array([0.0, 0.8, 0.6, 0.1, 0.0])]
    noprior = [np.array([0.9, 0.9, 0.1, 0.1]), np.array([0.2, 0.2, 0.2, 0.2, 0.2])]
    matcher = [np.array([1, 1, 0, 0]), np.array([0, 0, 0, 0, 0])]
    paths = {k: str(tmp_path / f"{k}.npz") for k in ("prior", "noprior", "matcher")}
    in_range = {"start_in_range": np.array([True, False]), "entered_range": np.array([0, 7])}
    write_shard(paths["prior"], [0, 1], {"posterior": prior}, in_range)
    write_shard(paths["noprior"], [0, 1], {"posterior": noprior}, in_range)
    kinds = {"kind": np.array(["large", "none"]), "n_candidates": np.array([1, 0])}
    write_shard(paths["matcher"], [0, 1], {"likelihood": matcher, "largest": matcher}, kinds)
    output = {k: str(tmp_path / f"{k}.csv") for k in ("counts", "graphs", "sets")}
    selection = {
        "n_patterns": 2,
        "per_pattern": {"train": 1, "val": 1, "test": 1},
        "evaluate": {"test": 2, "val": 2},
        "sets": {"fresh": 2, "familiar": 2},
        "shard_size": 2,
    }
    inputs = {"fresh": str(tmp_path / "fresh.npz"), "train": str(tmp_path / "train.npz")}
    inputs |= {"blind_prior_fresh": [paths["prior"]], "blind_noprior_fresh": [paths["noprior"]]}
    inputs |= {"matcher_fresh": [paths["matcher"]]}
    scores(RuleContext(input=inputs, output=output, params={"selection": selection, "sets": ["fresh"]}))
    counts = read_frame(output["counts"])
    assert list(counts.columns) == COUNT_COLUMNS and len(counts) == 10
    blind = counts[counts["predictor"] == PATTERN_BLIND][["tn", "fp", "fn", "tp"]].to_numpy().tolist()
    assert blind == [[2, 0, 0, 2], [3, 0, 0, 2]]  # posterior > 1/4 (the training share) finds both patterns
    half = counts[counts["predictor"] == "Pattern-blind, threshold 1/2"][["tn", "fp", "fn", "tp"]].to_numpy()
    assert half.tolist() == [[2, 0, 1, 1], [3, 0, 0, 2]]  # at 1/2, graph 0's node 1 (0.3) is missed
    per_graph = read_frame(output["graphs"])
    assert list(per_graph.columns) == GRAPH_COLUMNS
    assert per_graph[["nodes", "pattern_size", "matcher_kind", "likelihood"]].values.tolist() == [
        [4, 2, "large", "exact"],
        [5, 2, "none", "none"],
    ]
    assert per_graph["start_in_range"].tolist() == [True, False] and per_graph["entered_range"].tolist() == [0, 7]
    sets = read_frame(output["sets"])
    assert list(sets.columns) == SET_COLUMNS and sets.loc[0, "threshold"] == 0.25
    assert sets.loc[0, "auc_prior"] == pytest.approx(100.0) and sets.loc[0, "auc_noprior"] < 100.0

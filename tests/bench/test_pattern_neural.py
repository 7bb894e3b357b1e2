"""The pattern neural benchmark: the dense numpy RRWP reference by hand and against ours, the equality check, and
the rule entry on tiny graphs (RRWP rows checked and timed, a training row per model)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from graphaudit.bench.pattern_neural import bench_pattern_neural, check_equal, numpy_rrwp
from graphaudit.common.rule import RuleContext
from graphaudit.nn.rrwp import rrwp
from graphaudit.pattern.dense import pack_graphs
from graphaudit.pattern.neural import edge_index_of
from graphaudit.pattern.neural_plan import RrwpPlan

PATH3 = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])


def test_the_reference_walks_the_path_on_three_nodes_by_hand() -> None:
    abs_pe, index, values = numpy_rrwp(PATH3, RrwpPlan(3, True, "grit"))  # channels I, P, P^2
    assert abs_pe.tolist() == [[1, 0, 0.5], [1, 0, 1], [1, 0, 0.5]]
    assert index.tolist() == [[0, 1, 2, 0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1, 2, 2, 2]]  # every pair, stored j -> i
    assert values[1].tolist() == [0, 1, 0] and values[2].tolist() == [0, 0, 0.5]  # (0, 1): P only; (0, 2): P^2 only
    ckg_abs, _, ckg_values = numpy_rrwp(PATH3, RrwpPlan(3, False, "ckgconv"))  # I, P, P^2, P^3; nodes drop I
    assert ckg_values.shape == (9, 4) and ckg_abs.tolist() == [[0, 0.5, 0], [0, 1, 0], [0, 0.5, 0]]


@pytest.mark.parametrize("variant", ["grit", "ckgconv"])
def test_the_reference_equals_ours_on_random_graphs(variant: str) -> None:
    rng = np.random.default_rng(0)
    for n in (5, 12, 30):
        upper = np.triu(rng.random((n, n)) < 0.2, 1)
        adjacency = (upper | upper.T).astype(np.int64)
        plan = RrwpPlan(21, True, variant)
        check_equal(rrwp(edge_index_of(adjacency), n, 21, True, variant), numpy_rrwp(adjacency, plan), 0)


def test_a_different_encoding_is_refused() -> None:
    plan = RrwpPlan(3, True, "grit")
    ours = rrwp(edge_index_of(PATH3), 3, 3, True, "grit")
    wrong = type(ours)(ours.abs_pe, ours.rel_index, ours.rel_val + 1e-4, ours.degree)
    with pytest.raises(RuntimeError, match="rel_val differs"):
        check_equal(wrong, numpy_rrwp(PATH3, plan), 7)
    shuffled = type(ours)(ours.abs_pe, torch.flip(ours.rel_index, [1]), ours.rel_val, ours.degree)
    with pytest.raises(RuntimeError, match="pairs differ"):
        check_equal(shuffled, numpy_rrwp(PATH3, plan), 7)


def test_rule_entry_writes_checked_rrwp_rows_and_a_training_row_per_model(tmp_path) -> None:
    rng = np.random.default_rng(1)
    adjacency, features, labels = [], [], []
    for n in (6, 9, 7):
        upper = np.triu(rng.random((n, n)) < 0.5, 1)
        adjacency.append((upper | upper.T).astype(np.uint8))
        features.append(rng.integers(0, 3, n).astype(np.uint8))
        labels.append((np.arange(n) < 2).astype(np.uint8))
    graphs = pack_graphs(adjacency, features, labels)
    graphs.save(tmp_path / "set.npz")
    ctx = RuleContext(
        input={
            "test": str(tmp_path / "set.npz"),
            "train": str(tmp_path / "set.npz"),
            "recipes": "config/pattern/neural.yaml",
        },
        output={"table": str(tmp_path / "pattern_neural.csv")},
        params={"bench": {"models": ["ckgconv", "grit"], "graphs": 3, "train_graphs": 2, "repeats": 1}},
    )
    bench_pattern_neural(ctx)
    table = pd.read_csv(tmp_path / "pattern_neural.csv")
    assert table["benchmark"].tolist() == ["pattern_neural_rrwp"] * 4 + ["pattern_neural_training"] * 2
    assert (table["ratio"][:4] > 0).all() and table["peer_s"][4:].isna().all()
    assert "ckgconv, released recipe, one epoch of 2 PATTERN graphs" in table["input"][4]

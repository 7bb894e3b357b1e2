"""Deep-run settings from the catalogue, UB-GOLD's node features and the run's graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from graphaudit.data.graphset import from_edge_list
from graphaudit.glad.catalogue import backend_of
from graphaudit.glad.deep import (
    detector_builder,
    detector_graphs,
    modal_settings,
    node_features,
    run_facts,
    run_graphs,
    run_settings,
    train_config,
)
from graphaudit.glad.protocol import Fold
from graphaudit.nn import OCGIN

CATALOGUE = yaml.safe_load((Path(__file__).parents[2] / "config/glad/detectors.yaml").read_text(encoding="utf-8"))


def test_tuned_line_overrides_the_defaults() -> None:
    settings = run_settings(CATALOGUE, "OCGIN", "BZR", "tuned")
    assert settings.train == {"num_epoch": 500, "eval_freq": 4, "batch_size": 128, "batch_size_test": 9999, "lr": 1e-3}
    assert settings.options["hidden_dim"] == 32 and settings.options["num_layer"] == 4
    assert settings.source == "script line" and settings.family == "end_to_end"


def test_default_setting_keeps_only_the_batch_sizes_of_the_line() -> None:
    """A1: every option back to mymain.py's defaults except the batch sizes (GLocalKD: 300 / 1)."""
    settings = run_settings(CATALOGUE, "GLocalKD", "NCI1", "default")
    assert settings.train["num_epoch"] == 400 and settings.train["lr"] == 1e-4
    assert (settings.train["batch_size"], settings.train["batch_size_test"]) == (300, 1)
    assert settings.options["hidden_dim"] == 16 and settings.options["num_layer"] == 5
    assert settings.train["lr_step_size"] == 50 and settings.train["shuffle_train"] is False  # U18 in both
    assert settings.source == "defaults"


def test_dataset_without_a_script_line_takes_the_modal_line() -> None:
    settings = run_settings(CATALOGUE, "OCGTL", "MUTAG", "tuned")
    assert settings.source == "modal (no script line)"
    assert (settings.train["lr"], settings.options["hidden_dim"], settings.options["num_layer"]) == (1e-3, 32, 4)


def test_two_stage_lines_and_overrides() -> None:
    aids = run_settings(CATALOGUE, "InfoGraph-IF", "AIDS", "tuned")
    bzr = run_settings(CATALOGUE, "InfoGraph-IF", "BZR", "tuned")
    assert (aids.train["eval_freq"], bzr.train["eval_freq"], bzr.train["num_epoch"]) == (1, 2, 30)
    assert bzr.source == "script line (all datasets)" and bzr.family == "two_stage"
    assert run_settings(CATALOGUE, "InfoGraph-OCSVM", "BZR", "default").options["num_layer"] == 2
    assert run_settings(CATALOGUE, "GraphCL-IF", "BZR", "default").train["num_epoch"] == 400


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown detector"):
        run_settings(CATALOGUE, "GLADX", "BZR", "tuned")
    with pytest.raises(ValueError, match="setting must be"):
        run_settings(CATALOGUE, "OCGIN", "BZR", "best")
    bad = run_settings(CATALOGUE, "OCGIN", "BZR", "tuned")
    bad.options["num_heads"] = 2
    with pytest.raises(ValueError, match="num_heads"):
        detector_builder(CATALOGUE, bad, 3)


def test_train_config_caps_the_budget_and_keeps_the_seed() -> None:
    settings = run_settings(CATALOGUE, "OCGIN", "BZR", "tuned")
    assert train_config(settings, 3408, "cpu", max_epochs=40).num_epoch == 40
    assert train_config(settings, 3408, "cpu").num_epoch == 500
    assert train_config(settings, 3408, "cpu").seed == 3408


def test_builder_makes_the_configured_detector() -> None:
    detector = detector_builder(CATALOGUE, run_settings(CATALOGUE, "OCGIN", "BZR", "tuned"), 7)()
    assert isinstance(detector, OCGIN) and detector.config.hidden_dim == 32 and detector.net.out_dim == 4 * 32


def test_train_config_carries_the_test_rng() -> None:
    settings = run_settings(CATALOGUE, "OCGIN", "BZR", "tuned")
    assert train_config(settings, 1, "cpu").test_rng == "coupled"
    assert train_config(settings, 1, "cpu", test_rng="isolated").test_rng == "isolated"
    glocalkd = run_settings(CATALOGUE, "GLocalKD", "BZR", "tuned")  # its test batches are built once
    assert train_config(glocalkd, 1, "cpu", test_rng="coupled").test_rng == "isolated"


def test_run_facts_fill_the_padding_of_glocalkd_only() -> None:
    facts = run_facts(toy_set())
    assert facts == {"max_nodes_num": 3}
    glocalkd = detector_builder(CATALOGUE, run_settings(CATALOGUE, "GLocalKD", "BZR", "tuned"), 3, facts=facts)()
    assert glocalkd.config.max_nodes_num == 3
    ocgin = detector_builder(CATALOGUE, run_settings(CATALOGUE, "OCGIN", "BZR", "tuned"), 3, facts=facts)()
    assert not hasattr(ocgin.config, "max_nodes_num")


UB_GOLD_TWELVE = [
    "OCGIN",
    "OCGTL",
    "GLocalKD",
    "SIGNET",
    "GLADC",
    "CVTGAD",
    "GOOD-D",
    "GraphDE",
    "GraphCL-IF",
    "GraphCL-OCSVM",
    "InfoGraph-IF",
    "InfoGraph-OCSVM",
]


def test_every_ubgold_detector_has_both_backends() -> None:
    assert sorted(CATALOGUE["detectors"]) == sorted(UB_GOLD_TWELVE)
    for name in UB_GOLD_TWELVE:
        assert {"model", "ubgold", "config"} <= set(CATALOGUE["detectors"][name]), name


def with_own_only(name: str) -> dict:
    """The catalogue plus a detector of the user's own (no UB-GOLD adapter), copied from ``name``'s entry."""
    entry = {k: v for k, v in CATALOGUE["detectors"][name].items() if k != "ubgold"}
    return {**CATALOGUE, "detectors": {**CATALOGUE["detectors"], "Mine": entry}}


@pytest.mark.parametrize(
    "backend, available, expected",
    [
        (
            "auto",
            True,
            {
                "OCGIN": "ubgold",
                "OCGTL": "ubgold",
                "GLocalKD": "ubgold",
                "SIGNET": "ubgold",
                "GraphCL-IF": "ubgold",
                "Mine": "own",
            },
        ),
        ("auto", False, {"OCGIN": "own", "OCGTL": "own", "SIGNET": "own"}),
        ("own", True, {"OCGIN": "own", "OCGTL": "own", "SIGNET": "own"}),
        ("ubgold", False, {"OCGIN": "ubgold", "OCGTL": "ubgold"}),
    ],
)
def test_backend_of_each_detector(backend: str, available: bool, expected: dict[str, str]) -> None:
    catalogue = with_own_only("OCGIN")
    assert {d: backend_of(catalogue, d, backend, available) for d in expected} == expected


def test_explicit_ubgold_needs_an_adapter() -> None:
    with pytest.raises(ValueError, match="Mine has no UB-GOLD adapter"):
        backend_of(with_own_only("OCGIN"), "Mine", "ubgold", True)
    with pytest.raises(ValueError, match="backend must be one of"):
        backend_of(CATALOGUE, "OCGIN", "theirs", True)


def toy_set():
    """Graph 0: path 0-1-2 (labels 3, 5, 5); graph 1: one edge (labels 4, 3); graph 2: a single node (label 5)."""
    return from_edge_list(
        "toy",
        np.array([0, 0, 0, 1, 1, 2]),
        np.array([[0, 1], [1, 2], [3, 4]]),
        node_labels=np.array([3, 5, 5, 4, 3, 5]),
        graph_labels=np.array([0, 1, 1]),
    )


def test_node_features_are_one_hot_labels_shifted_to_zero() -> None:
    graphs = toy_set()
    columns, width = node_features(graphs.get("node_labels"))
    assert width == 3 and columns.tolist() == [0, 2, 2, 1, 0, 2]
    data = detector_graphs(graphs, columns, width, [1, 2, 0])
    assert [int(d.graph_id) for d in data] == [1, 2, 0]
    assert data[0].x.tolist() == [[0, 1, 0], [1, 0, 0]]
    assert data[1].x.tolist() == [[0, 0, 1]] and data[1].edge_index.shape == (2, 0)
    assert sorted(map(tuple, data[2].edge_index.T.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert all("y" not in d for d in data)


def test_run_graphs_train_on_the_fit_part() -> None:
    fold = Fold(fold=0, seed=3407, train_normal=[0, 2], holdout=[2], fit=[0], test=[1], test_labels=[1])
    graphs, width = run_graphs(toy_set(), toy_set().get("node_labels"), fold)
    assert width == 3
    assert graphs.ids() == {"train": [0], "test": [1], "holdout": [2]}


def test_typed_runs_take_the_modal_configuration() -> None:
    """Spec 9.2: OCGIN's modal line (lr 1e-3, hidden 32, 4 layers, 500 epochs), GLocalKD's batches 300 / 1 with its
    fixed schedule, the two-stage detectors' shared line, CVTGAD's GCN; the ablation's option goes on top."""
    ocgin = modal_settings(CATALOGUE, "OCGIN")
    assert ocgin.source == "modal"
    assert ocgin.train["lr"] == 1e-3 and ocgin.train["num_epoch"] == 500
    assert ocgin.options["hidden_dim"] == 32 and ocgin.options["num_layer"] == 4
    glocalkd = modal_settings(CATALOGUE, "GLocalKD")
    assert (glocalkd.train["batch_size"], glocalkd.train["batch_size_test"], glocalkd.train["num_epoch"]) == (
        300,
        1,
        150,
    )
    assert glocalkd.train["lr_step_size"] == 50 and glocalkd.options["output_dim"] == 128
    infograph = modal_settings(CATALOGUE, "InfoGraph-IF")
    assert infograph.source == "script line (all datasets)" and infograph.train["eval_freq"] == 2
    cvtgad = modal_settings(CATALOGUE, "CVTGAD", {"structural_input": "constant"})
    assert cvtgad.options["GNN_Encoder"] == "GCN" and cvtgad.train["num_epoch"] == 800
    assert cvtgad.options["structural_input"] == "constant"
    assert modal_settings(CATALOGUE, "GraphDE").options["num_layer"] == 2

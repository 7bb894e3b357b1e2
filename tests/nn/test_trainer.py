"""The resumable trainer: bit-identical resume, RNG-isolated recording, id-keyed scores, flags, trajectories."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import assert_same_runs, ring, stable_records
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.data.graphset import from_edge_list
from graphaudit.nn import (
    OCGIN,
    Detector,
    OCGINConfig,
    RunGraphs,
    TrainConfig,
    graphs_with_ids,
    load_trajectory,
    train,
    trainer,
)
from graphaudit.nn.trainer import CHECKPOINT, RECORDS


def toy_graphs() -> RunGraphs:
    """12 training rings, 6 test rings plus 2 relabelled ones, 3 held-out rings; ids deliberately unordered."""
    train_graphs = [ring(100 + i, 4 + i % 5) for i in range(12)]
    test = [ring(57 - 3 * i, 4 + i % 4) for i in range(6)] + [ring(7, 5, label=1), ring(300, 6, label=1)]
    holdout = [ring(90 - i, 5 + i) for i in range(3)]
    return RunGraphs(train=train_graphs, test=test, holdout=holdout)


def ocgin() -> OCGIN:
    return OCGIN(2, OCGINConfig(hidden_dim=8, num_layer=2))


def config(**changes: object) -> TrainConfig:
    base = {
        "num_epoch": 6,
        "eval_freq": 2,
        "batch_size": 4,
        "batch_size_test": 3,
        "lr": 1e-2,
        "seed": 3407,
        "device": "cpu",
    }
    return TrainConfig(**{**base, **changes})


def weights(detector: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in detector.state_dict().items()}


def assert_same_weights(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_records_one_line_per_evaluation_point(tmp_path: Path) -> None:
    result = train(ocgin, toy_graphs(), config(), tmp_path)
    records = read_records(tmp_path / RECORDS)
    assert result.completed and result.device == "cpu"
    assert [r["epoch"] for r in records] == [2, 4, 6]
    first = records[0]
    assert first["device"] == "cpu" and first["seed"] == 3407 and first["detector"] == "OCGIN"
    assert first["n_test"] == 8 and first["n_holdout"] == 3 and first["nonfinite_test"] == 0
    assert len({r["config_hash"] for r in records}) == 1 and "torch" in first["versions"]
    assert all(np.isfinite(r["train_loss"]) for r in records)


@pytest.mark.parametrize(
    "changes", [{}, {"lr_step_size": 2, "lr_gamma": 0.5, "shuffle_train": False}], ids=["plain", "per-batch-lr-decay"]
)
def test_resume_is_bit_identical(tmp_path: Path, changes: dict) -> None:
    whole = train(ocgin, toy_graphs(), config(**changes), tmp_path / "whole")
    first = train(ocgin, toy_graphs(), config(**changes), tmp_path / "split", stop_after_epoch=3)
    assert not first.completed and first.epoch == 3
    resumed = train(ocgin, toy_graphs(), config(**changes), tmp_path / "split")
    assert resumed.completed
    assert_same_weights(weights(whole.detector), weights(resumed.detector))
    assert_same_runs(tmp_path / "whole", tmp_path / "split")


def test_learning_rate_decays_per_batch(tmp_path: Path) -> None:
    """12 training graphs in batches of 4 make 3 steps an epoch: after 6 epochs, 18 steps, 9 halvings."""
    decayed = train(ocgin, toy_graphs(), config(lr_step_size=2, lr_gamma=0.5), tmp_path / "decay")
    plain = train(ocgin, toy_graphs(), config(), tmp_path / "plain")
    content = torch.load(tmp_path / "decay" / CHECKPOINT, weights_only=True)
    lr = content["optimisation"]["optimizer"]["param_groups"][0]["lr"]
    assert lr == pytest.approx(1e-2 * 0.5**9)
    assert not torch.equal(
        weights(decayed.detector)["net.convs.0.nn.0.weight"], weights(plain.detector)["net.convs.0.nn.0.weight"]
    )


def test_resume_drops_records_written_after_the_checkpoint(tmp_path: Path) -> None:
    """A run killed between a record and its checkpoint redoes that point instead of duplicating it."""
    whole = train(ocgin, toy_graphs(), config(), tmp_path / "whole")
    train(ocgin, toy_graphs(), config(), tmp_path / "split", stop_after_epoch=3)
    with open(tmp_path / "split" / RECORDS, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"epoch": 4, "train_loss": 0.0}) + "\n" + '{"epoch": 6, "tor')
    resumed = train(ocgin, toy_graphs(), config(), tmp_path / "split")
    assert stable_records(tmp_path / "whole") == stable_records(tmp_path / "split")
    assert_same_weights(weights(whole.detector), weights(resumed.detector))


def test_resume_refuses_another_configuration(tmp_path: Path) -> None:
    train(ocgin, toy_graphs(), config(), tmp_path, stop_after_epoch=2)
    with pytest.raises(ValueError, match="another configuration"):
        train(ocgin, toy_graphs(), config(lr=1e-3), tmp_path)


def test_a_stale_checkpoint_is_discarded_on_request_and_the_run_starts_over(tmp_path: Path) -> None:
    train(ocgin, toy_graphs(), config(), tmp_path / "stale", stop_after_epoch=4)
    train(ocgin, toy_graphs(), config(lr=1e-3), tmp_path / "stale", restart_stale=True)
    train(ocgin, toy_graphs(), config(lr=1e-3), tmp_path / "fresh")
    assert stable_records(tmp_path / "stale") == stable_records(tmp_path / "fresh")


def test_the_hash_follows_the_detector_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = trainer.config_hash(ocgin(), toy_graphs(), config())
    monkeypatch.setattr(trainer, "_source_digest", lambda cls: "edited" + cls.__name__)
    assert trainer.config_hash(ocgin(), toy_graphs(), config()) != before


def test_isolated_recording_does_not_change_the_trajectory(tmp_path: Path) -> None:
    """test_rng isolated: scoring after every epoch (shuffled, small test batches) leaves the same weights as
    never scoring."""
    recorded = train(ocgin, toy_graphs(), config(eval_freq=1, test_rng="isolated"), tmp_path / "every")
    silent = train(ocgin, toy_graphs(), config(eval_freq=100, test_rng="isolated"), tmp_path / "never")
    assert len(read_records(tmp_path / "every" / RECORDS)) == 6
    assert not (tmp_path / "never" / RECORDS).exists()
    assert_same_weights(weights(recorded.detector), weights(silent.detector))


def test_coupled_test_passes_shape_the_trajectory(tmp_path: Path) -> None:
    """test_rng coupled (UB-GOLD): the shuffled test pass draws from the training RNG, so evaluating changes
    the later training batches; the hold-out pass never does (same weights with or without hold-out graphs)."""
    coupled = train(ocgin, toy_graphs(), config(eval_freq=1), tmp_path / "coupled")
    isolated = train(ocgin, toy_graphs(), config(eval_freq=1, test_rng="isolated"), tmp_path / "isolated")
    first, second = weights(coupled.detector), weights(isolated.detector)
    assert any(not torch.equal(first[k], second[k]) for k in first)
    no_holdout = RunGraphs(train=toy_graphs().train, test=toy_graphs().test, holdout=[])
    without = train(ocgin, no_holdout, config(eval_freq=1), tmp_path / "without")
    assert_same_weights(first, weights(without.detector))


def test_unknown_test_rng_is_rejected() -> None:
    with pytest.raises(ValueError, match="test_rng"):
        config(test_rng="shared")


def test_scores_are_keyed_by_graph_id_under_shuffling(tmp_path: Path) -> None:
    graphs = toy_graphs()
    result = train(ocgin, graphs, config(num_epoch=2, shuffle_test=True, batch_size_test=3), tmp_path)
    stored = np.load(tmp_path / "scores" / "epoch_000002.test.npz")
    by_id = dict(zip(stored["item_id"].tolist(), stored["score"].tolist()))
    detector = result.detector.eval()
    with torch.no_grad():
        for graph in graphs.test:
            alone = float(detector.score(Batch.from_data_list([graph]))[0])
            assert by_id[int(graph.graph_id)] == pytest.approx(alone, rel=1e-5, abs=1e-6)


@dataclass(frozen=True)
class _NoConfig:
    pass


class NaNOnOddIds(Detector):
    """A detector whose score is NaN for odd graph ids and +inf for id 300: non-finite values must be counted."""

    def __init__(self) -> None:
        super().__init__()
        self.config = _NoConfig()
        self.weight = torch.nn.Parameter(torch.ones(2))

    def loss(self, batch: Batch) -> torch.Tensor:
        from torch_geometric.utils import scatter

        return scatter((batch.x @ self.weight) ** 2, batch.batch, dim_size=batch.num_graphs, reduce="mean")

    def score(self, batch: Batch) -> torch.Tensor:
        score = self.loss(batch)
        score = torch.where(batch.graph_id % 2 == 1, torch.full_like(score, float("nan")), score)
        return torch.where(batch.graph_id == 300, torch.full_like(score, float("inf")), score)


def test_nonfinite_scores_are_counted_not_hidden(tmp_path: Path) -> None:
    graphs = toy_graphs()
    train(NaNOnOddIds, graphs, config(num_epoch=2), tmp_path)
    record = read_records(tmp_path / RECORDS)[0]
    odd_test = sum(int(g.graph_id) % 2 for g in graphs.test)
    odd_holdout = sum(int(g.graph_id) % 2 for g in graphs.holdout)
    assert record["nonfinite_test"] == odd_test + 1
    assert record["nonfinite_holdout"] == odd_holdout
    stored = np.load(tmp_path / "scores" / "epoch_000002.test.npz")
    assert np.isnan(stored["score"][stored["item_id"] % 2 == 1]).all()
    assert np.isposinf(stored["score"][stored["item_id"] == 300]).all()


def test_records_convert_to_a_trajectory(tmp_path: Path) -> None:
    graphs = toy_graphs()
    train(ocgin, graphs, config(), tmp_path)
    trajectory = load_trajectory(tmp_path)
    records = read_records(tmp_path / RECORDS)
    assert trajectory.epochs.tolist() == [2, 4, 6]
    assert trajectory.train_loss.tolist() == [r["train_loss"] for r in records]
    assert trajectory.test_ids.tolist() == sorted(int(g.graph_id) for g in graphs.test)
    assert trajectory.holdout_ids.tolist() == sorted(int(g.graph_id) for g in graphs.holdout)
    stored = np.load(tmp_path / "scores" / "epoch_000004.test.npz")
    order = np.argsort(stored["item_id"])
    np.testing.assert_array_equal(trajectory.test_scores[1], stored["score"][order].astype(np.float64))


def test_graphs_with_ids_drop_labels_and_keep_ids() -> None:
    graphs = from_edge_list(
        "toy",
        np.array([0, 0, 0, 1, 1]),
        np.array([[0, 1], [1, 2], [3, 4]]),
        node_labels=np.array([0, 1, 1, 0, 2]),
        graph_labels=np.array([1, 0]),
    )
    converted = graphs_with_ids(graphs, [1, 0])
    assert [int(g.graph_id) for g in converted] == [1, 0]
    assert all("y" not in g for g in converted)
    assert converted[0].x.shape == (2, 3)


def test_run_graphs_need_unique_ids() -> None:
    with pytest.raises(ValueError, match="not unique"):
        RunGraphs(train=[ring(1, 4), ring(1, 5)], test=[ring(2, 4)], holdout=[])
    with pytest.raises(ValueError, match="no graph_id"):
        RunGraphs(train=[Data(x=torch.ones(2, 2))], test=[ring(2, 4)], holdout=[])


def test_checkpoint_loads_with_weights_only(tmp_path: Path) -> None:
    train(ocgin, toy_graphs(), config(num_epoch=2), tmp_path)
    content = torch.load(tmp_path / CHECKPOINT, weights_only=True)
    assert content["epoch"] == 2 and set(content["rng"]) >= {"python", "numpy", "torch", "loader"}


class CountingOCGIN(OCGIN):
    """OCGIN (GraphNorm: per-graph statistics) that remembers the sizes of the batches it scores."""

    def __init__(self) -> None:
        super().__init__(2, OCGINConfig(hidden_dim=8, num_layer=2))
        self.scored_batches: list[int] = []

    def score(self, batch: Batch) -> torch.Tensor:
        self.scored_batches.append(batch.num_graphs)
        return super().score(batch)


class WholeBatchOCGIN(CountingOCGIN):
    batch_independent_scores = True


class BatchDependentOCGIN(CountingOCGIN):
    batch_independent_scores = False


def test_batch_independent_detectors_score_in_large_batches(tmp_path: Path) -> None:
    """batch_size_test 1 (GLocalKD's UB-GOLD setting) scores one graph at a time, unless the detector's scores
    do not depend on the batch: then whole parts at once, with the same scores."""
    large = train(WholeBatchOCGIN, toy_graphs(), config(batch_size_test=1), tmp_path / "large")
    single = train(BatchDependentOCGIN, toy_graphs(), config(batch_size_test=1), tmp_path / "single")
    assert set(single.detector.scored_batches) == {1}
    assert set(large.detector.scored_batches) == {8, 3}  # 8 test graphs, 3 held-out normals
    for a, b in zip(read_records(tmp_path / "large" / RECORDS), read_records(tmp_path / "single" / RECORDS)):
        x, y = np.load(tmp_path / "large" / a["test_scores"]), np.load(tmp_path / "single" / b["test_scores"])
        assert np.array_equal(x["item_id"], y["item_id"]) and np.allclose(x["score"], y["score"], rtol=1e-5)


class SelectsOnScoreReportsNegated(OCGIN):
    """OCGIN with an extra score column, ``negated`` (= -score, NaN for id 300), which the tables report; it also
    counts its ``end_epoch`` calls and notes the count at every scoring batch."""

    score_columns = ("negated",)
    reported_score = "negated"

    def __init__(self) -> None:
        super().__init__(2, OCGINConfig(hidden_dim=8, num_layer=2))
        self.closed_epochs = 0
        self.closed_at_scoring: list[int] = []

    def end_epoch(self) -> None:
        self.closed_epochs += 1

    def scores(self, batch: Batch) -> dict[str, torch.Tensor]:
        self.closed_at_scoring.append(self.closed_epochs)
        score = self.score(batch)
        negated = torch.where(batch.graph_id == 300, torch.full_like(score, float("nan")), -score)
        return {"score": score, "negated": negated}


def test_extra_score_columns_are_recorded_and_the_reported_one_is_read_back(tmp_path: Path) -> None:
    train(SelectsOnScoreReportsNegated, toy_graphs(), config(), tmp_path)
    records = read_records(tmp_path / RECORDS)
    assert all(r["score_columns"] == ["score", "negated"] and r["reported_score"] == "negated" for r in records)
    assert all(r["nonfinite_test"] == 1 and r["nonfinite_holdout"] == 0 for r in records)  # id 300's NaN counts
    stored = np.load(tmp_path / records[1]["test_scores"])
    assert sorted(stored.files) == ["item_id", "negated", "score"]
    finite = stored["item_id"] != 300
    np.testing.assert_array_equal(stored["negated"][finite], -stored["score"][finite])
    trajectory = load_trajectory(tmp_path)
    order = np.argsort(stored["item_id"])
    np.testing.assert_array_equal(trajectory.oracle_test_scores[1], stored["score"][order].astype(np.float64))
    np.testing.assert_array_equal(trajectory.test_scores[1], stored["negated"][order].astype(np.float64))
    holdout = np.load(tmp_path / records[1]["holdout_scores"])
    np.testing.assert_array_equal(
        trajectory.holdout_scores[1], holdout["negated"][np.argsort(holdout["item_id"])].astype(np.float64)
    )


def test_end_epoch_runs_once_per_epoch_before_its_evaluation(tmp_path: Path) -> None:
    result = train(SelectsOnScoreReportsNegated, toy_graphs(), config(batch_size_test=8), tmp_path)
    assert result.detector.closed_epochs == 6
    assert result.detector.closed_at_scoring == [2, 2, 4, 4, 6, 6]  # one test and one hold-out batch per point


def test_detectors_without_extra_columns_keep_their_records_and_files(tmp_path: Path) -> None:
    train(ocgin, toy_graphs(), config(num_epoch=2), tmp_path)
    record = read_records(tmp_path / RECORDS)[0]
    assert "score_columns" not in record and "reported_score" not in record
    assert sorted(np.load(tmp_path / record["test_scores"]).files) == ["item_id", "score"]
    assert load_trajectory(tmp_path).oracle_test_scores is None


class MissingColumn(SelectsOnScoreReportsNegated):
    def scores(self, batch: Batch) -> dict[str, torch.Tensor]:
        return {"score": self.score(batch)}


class UnknownReported(SelectsOnScoreReportsNegated):
    reported_score = "raw"


def test_inconsistent_score_columns_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="negated"):
        train(MissingColumn, toy_graphs(), config(num_epoch=2), tmp_path / "missing")
    with pytest.raises(ValueError, match="reported_score"):
        train(UnknownReported, toy_graphs(), config(num_epoch=2), tmp_path / "unknown")


class BatchCentred(Detector):
    """A batch-dependent score: a graph's node count minus the mean node count of its batch (CVTGAD's and GOOD-D's
    scores depend on the other graphs of the batch in the same way, U23)."""

    def __init__(self) -> None:
        super().__init__()
        self.config = _NoConfig()
        self.weight = torch.nn.Parameter(torch.ones(2))

    def loss(self, batch: Batch) -> torch.Tensor:
        from torch_geometric.utils import scatter

        return scatter((batch.x @ self.weight) ** 2, batch.batch, dim_size=batch.num_graphs, reduce="mean")

    def score(self, batch: Batch) -> torch.Tensor:
        sizes = torch.bincount(batch.batch, minlength=batch.num_graphs).float()
        return sizes - sizes.mean() + 0.0 * self.weight.sum()


def grouped_graphs(test: bool = False) -> RunGraphs:
    """Rings to train on, three held out; groups ``small`` and ``large``: the same four test normals with small
    or large anomalous rings (the test part empty unless ``test``)."""
    normals = [ring(10 + i, 6) for i in range(4)]
    return RunGraphs(
        train=[ring(100 + i, 4 + i % 5) for i in range(8)],
        test=normals if test else [],
        holdout=[ring(90 - i, 5 + i) for i in range(3)],
        groups={
            "small": normals + [ring(50 + i, 3, label=1) for i in range(2)],
            "large": normals + [ring(60 + i, 20, label=1) for i in range(2)],
        },
    )


def test_each_group_is_scored_as_its_own_batch(tmp_path: Path) -> None:
    graphs = grouped_graphs()
    train(BatchCentred, graphs, config(num_epoch=2, eval_freq=2, batch_size_test=9999), tmp_path)
    record = read_records(tmp_path / RECORDS)[0]
    assert record["n_test"] == 0 and record["n_groups"] == {"small": 6, "large": 6}
    assert record["nonfinite_groups"] == {"small": 0, "large": 0}
    for name, part in graphs.groups.items():
        stored = np.load(tmp_path / record["group_scores"][name])
        sizes = np.array([g.num_nodes for g in part], dtype=np.float64)
        joint = dict(zip([int(g.graph_id) for g in part], sizes - sizes.mean()))  # the group as one batch
        for graph_id, score in zip(stored["item_id"].tolist(), stored["score"].tolist()):
            assert score == pytest.approx(joint[graph_id], abs=1e-5)
    small, large = (np.load(tmp_path / record["group_scores"][n]) for n in ("small", "large"))
    shared = dict(zip(small["item_id"].tolist(), small["score"].tolist()))
    assert all(
        shared[i] != pytest.approx(s) for i, s in zip(large["item_id"].tolist(), large["score"].tolist()) if i < 20
    )


def test_a_group_reads_back_as_a_trajectory_with_the_run_hold_out(tmp_path: Path) -> None:
    graphs = grouped_graphs(test=True)
    train(ocgin, graphs, config(num_epoch=4, eval_freq=2), tmp_path)
    whole, large = load_trajectory(tmp_path), load_trajectory(tmp_path, group="large")
    assert large.test_ids.tolist() == sorted(int(g.graph_id) for g in graphs.groups["large"])
    np.testing.assert_array_equal(large.holdout_scores, whole.holdout_scores)
    assert trainer.record_groups(read_records(tmp_path / RECORDS)[0]) == ["large", "small"]
    with pytest.raises(ValueError, match="no group 'medium'"):
        load_trajectory(tmp_path, group="medium")


def test_groups_do_not_change_the_trajectory_when_scoring_is_isolated(tmp_path: Path) -> None:
    plain, grouped = grouped_graphs(test=True), grouped_graphs(test=True)
    plain = RunGraphs(train=plain.train, test=plain.test, holdout=plain.holdout)
    train(ocgin, plain, config(test_rng="isolated"), tmp_path / "plain")
    train(ocgin, grouped, config(test_rng="isolated"), tmp_path / "grouped")
    a, b = load_trajectory(tmp_path / "plain"), load_trajectory(tmp_path / "grouped")
    np.testing.assert_array_equal(a.holdout_scores, b.holdout_scores)
    np.testing.assert_array_equal(a.test_scores, b.test_scores)


def test_a_resumed_run_with_groups_is_bit_identical(tmp_path: Path) -> None:
    train(ocgin, grouped_graphs(), config(), tmp_path / "whole")
    train(ocgin, grouped_graphs(), config(), tmp_path / "parts", stop_after_epoch=3)
    train(ocgin, grouped_graphs(), config(), tmp_path / "parts")
    assert stable_records(tmp_path / "whole") == stable_records(tmp_path / "parts")
    for name in ("small", "large"):
        a, b = load_trajectory(tmp_path / "whole", group=name), load_trajectory(tmp_path / "parts", group=name)
        np.testing.assert_array_equal(a.test_scores, b.test_scores)


def test_group_names_must_name_files_and_a_run_needs_something_to_score() -> None:
    graphs = grouped_graphs()
    with pytest.raises(ValueError, match="not a group name"):
        RunGraphs(train=graphs.train, test=[], holdout=[], groups={"a/b": graphs.groups["small"]})
    with pytest.raises(ValueError, match="not a group name"):
        RunGraphs(train=graphs.train, test=[], holdout=[], groups={"holdout": graphs.groups["small"]})
    with pytest.raises(ValueError, match="at least one training graph and one test graph"):
        RunGraphs(train=graphs.train, test=[], holdout=[])


def test_node_pair_memory_takes_the_largest_batch_of_any_part() -> None:
    """Training batches of 2 of the rings (largest 9 + 8 nodes = 17, a ring of n has n + 1 nodes), scoring batches
    of 3 of any scored part (the large group: 21 + 21 + 7 = 49 nodes)."""
    graphs = grouped_graphs()
    settings = config(batch_size=2, batch_size_test=3)
    assert trainer.node_pair_bytes(graphs, settings, scoring=2, training=1) == 49**2 * 2
    assert trainer.node_pair_bytes(graphs, settings, scoring=0, training=10) == 17**2 * 10

"""CVTGAD: the own model against loop-by-loop references on tiny inputs, its normalised (selection) and raw
(reported) scores, resume, replay through the recorded columns, and parity with UB-GOLD's own module (same
initial weights and draws; three epochs through ``train`` agree to the bit). The parity tests need the data
mirror (UB-GOLD's archive)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import CLIQUE_ID, assert_bitwise_parity, assert_same_runs, clique, ring
from torch_geometric.data import Batch

from graphaudit.common.records import read_records
from graphaudit.nn import CVTGAD, CVTGADConfig, RunGraphs, TrainConfig, load_trajectory, train
from graphaudit.nn.cvtgad import CrossAttention, adaptive_weights, graph_contrast_loss, node_contrast_loss
from graphaudit.nn.structural_encoding import structural_encoding
from graphaudit.nn.trainer import RECORDS
from graphaudit.nn.ubgold import cvtgad as ubgold
from graphaudit.selection import TestLabels as Labels  # aliased: pytest would collect "Test*" names
from graphaudit.selection import select
from graphaudit.selection.rules import evaluate
from graphaudit.stats.metrics import auroc

SMALL = {"hidden_dim": 4, "num_layer": 2, "rw_dim": 3, "dg_dim": 3, "alpha": 0.5}


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(20)],
        test=[ring(100 + i, 5 + i % 4) for i in range(7)] + [clique(CLIQUE_ID, 6)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


def settings(**changes: object) -> TrainConfig:
    base = {
        "num_epoch": 3,
        "eval_freq": 1,
        "batch_size": 6,
        "batch_size_test": 4,
        "lr": 1e-2,
        "seed": 3407,
        "device": "cpu",
        "test_rng": "coupled",
    }
    return TrainConfig(**{**base, **changes})


def own(**changes: object) -> CVTGAD:
    return CVTGAD(2, CVTGADConfig(**{**SMALL, **changes}))


def batch_of(detector: CVTGAD, graphs: list) -> Batch:
    prepared = detector.prepare_graphs(RunGraphs(train=graphs, test=graphs[:1], holdout=[]))
    return Batch.from_data_list(list(prepared.train))


# ---- losses and attention against loops ---------------------------------------------------------------------


def _cos(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(a @ b / (a.norm() * b.norm()))


def test_graph_contrast_loss_matches_a_loop() -> None:
    torch.manual_seed(0)
    x, y = torch.randn(4, 3, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)
    s = [[math.exp(_cos(x[i], y[j]) / 0.2) for j in range(4)] for i in range(4)]
    expected = []
    for i in range(4):
        column = sum(s[j][i] for j in range(4))
        row = sum(s[i][j] for j in range(4))
        expected.append((-math.log(s[i][i] / (column - s[i][i])) - math.log(s[i][i] / (row - s[i][i]))) / 2)
    np.testing.assert_allclose(graph_contrast_loss(x, y).numpy(), expected, rtol=1e-12)


def test_node_contrast_loss_matches_a_loop_and_only_contrasts_nodes_of_the_same_graph() -> None:
    torch.manual_seed(1)
    x, y = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
    batch = torch.tensor([0, 0, 1, 1, 1])
    expected = []
    for graph in (0, 1):
        nodes = [i for i in range(5) if batch[i] == graph]
        per_node = []
        for i in nodes:
            positive = math.exp(_cos(x[i], y[i]) / 0.2)
            column = sum(math.exp(_cos(x[j], y[i]) / 0.2) for j in nodes)
            row = sum(math.exp(_cos(x[i], y[j]) / 0.2) for j in nodes)
            per_node.append(
                (-math.log(positive / (column - positive + 1e-12)) - math.log(positive / (row - positive + 1e-12))) / 2
            )
        expected.append(sum(per_node) / len(per_node))
    got = node_contrast_loss(x, y, batch)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    alone = node_contrast_loss(x[2:], y[2:], torch.zeros(3, dtype=torch.long))
    np.testing.assert_allclose(alone.numpy(), got[1:].numpy(), rtol=1e-12)


def _linear(layer: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    out = x @ layer.weight.detach().double().T
    return out if layer.bias is None else out + layer.bias.detach().double()


def _mlp(block: torch.nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    return _linear(block[2], torch.relu(_linear(block[0], x)))


def _layer_norm(norm: torch.nn.LayerNorm, x: torch.Tensor) -> torch.Tensor:
    mean = sum(x) / len(x)
    variance = sum((v - mean) ** 2 for v in x) / len(x)
    return (x - mean) / math.sqrt(variance + norm.eps) * norm.weight.detach().double() + norm.bias.detach().double()


def _reference_view(
    block: CrossAttention, own_view: str, other_view: str, own_x: torch.Tensor, other_x: torch.Tensor
) -> list[torch.Tensor]:
    """One view's output, row by row: queries of this view against keys of the other, the softmax over keys,
    each column divided by its sum plus 1e-9, this view's values, residual, layer norm, bias-free feed-forward."""
    mine, theirs = (
        _mlp(getattr(block, f"{own_view}_projection_network"), own_x),
        _mlp(getattr(block, f"{other_view}_projection_network"), other_x),
    )
    residual = _mlp(getattr(block, f"{own_view}_residual_block"), mine)
    queries = _linear(getattr(block, f"{own_view}_w_qs"), mine)
    keys = _linear(getattr(block, f"{other_view}_w_ks"), theirs)
    values = _linear(getattr(block, f"{own_view}_w_vs"), mine)
    rows, width = len(own_x), own_x.shape[1]
    attention = []
    for i in range(rows):
        logits = [float(queries[i] @ keys[j]) / math.sqrt(width) for j in range(rows)]
        top = max(logits)
        weights = [math.exp(v - top) for v in logits]
        attention.append([w / sum(weights) for w in weights])
    columns = [sum(attention[i][j] for i in range(rows)) for j in range(rows)]
    out = []
    for i in range(rows):
        attended = sum(attention[i][j] / (1e-9 + columns[j]) * values[j] for j in range(rows))
        state = _layer_norm(getattr(block, f"{own_view}_add_norm1"), residual[i] + attended)
        out.append(state + _linear(getattr(block, f"{own_view}_fc_ffn"), state))
    return out


def test_cross_attention_matches_a_loop() -> None:
    torch.manual_seed(2)
    block = CrossAttention(4, 4)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    out_a, out_b = block(a, b)
    expected_a = torch.stack(_reference_view(block, "A", "B", a.double(), b.double()))
    expected_b = torch.stack(_reference_view(block, "B", "A", b.double(), a.double()))
    np.testing.assert_allclose(out_a.detach().numpy(), expected_a.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_b.detach().numpy(), expected_b.numpy(), rtol=1e-5, atol=1e-6)


def test_adaptive_weights_by_hand() -> None:
    assert adaptive_weights(4.0, 1.0, 0.5) == pytest.approx((4 / 3, 2 / 3), rel=1e-15)  # (2, 1) over mean 1.5
    assert adaptive_weights(4.0, 1.0, 0.0) == (1.0, 1.0)


# ---- the detector ----------------------------------------------------------------------------------------------


def test_config_refuses_what_ubgold_cannot_run() -> None:
    with pytest.raises(ValueError, match="must be equal"):
        CVTGADConfig(rw_dim=8, dg_dim=16)
    with pytest.raises(ValueError, match="GNN_Encoder"):
        CVTGADConfig(GNN_Encoder="SAGE")
    with pytest.raises(ValueError, match="graph_level_pool"):
        CVTGADConfig(graph_level_pool="global_add_pool")


def test_prepare_graphs_adds_the_structural_encodings() -> None:
    graphs = toy_graphs()
    prepared = own().prepare_graphs(graphs)
    for original, encoded in zip(graphs.test, prepared.test):
        assert "x_s" not in original and encoded.x_s.shape == (original.num_nodes, 6)
        assert torch.equal(encoded.x_s, structural_encoding(original, 3, 3))


def test_epoch_statistics_weights_and_scores() -> None:
    """One epoch by hand: the parts collected in training give mean and population sd; the next objective
    weighs the two means by adaptive_weights; ``score`` is the normalised sum and ``raw_score`` g + n."""
    torch.manual_seed(3)
    detector = own().train()
    batches = [batch_of(detector, [ring(i, 4 + i % 5) for i in range(k, k + 4)]) for k in (0, 4)]
    parts = []
    for batch in batches:
        with torch.no_grad():
            g, n = detector.loss_parts(batch)
        _, objective = detector.objective(batch)
        assert float(objective.detach()) == pytest.approx(float(g.mean() + n.mean()), rel=1e-6)  # first epoch: 1 and 1
        parts.append((g, n))
    detector.end_epoch()
    g_all = np.concatenate([p[0].numpy() for p in parts]).astype(np.float64)
    n_all = np.concatenate([p[1].numpy() for p in parts]).astype(np.float64)
    moments = (g_all.mean(), g_all.std(), n_all.mean(), n_all.std())
    assert detector.adaptive.moments() == pytest.approx(moments, rel=1e-12)
    weight_g, weight_n = adaptive_weights(moments[1], moments[3], 0.5)
    with torch.no_grad():
        g, n = detector.loss_parts(batches[0])
        _, objective = detector.objective(batches[0])
        assert float(objective) == pytest.approx(float(weight_g * g.mean() + weight_n * n.mean()), rel=1e-6)
        scores = detector.eval().scores(batches[1])
        g, n = detector.loss_parts(batches[1])
    expected = (g.double() - moments[0]) / moments[1] + (n.double() - moments[2]) / moments[3]
    np.testing.assert_allclose(scores["score"].numpy(), expected.numpy(), rtol=1e-5)
    np.testing.assert_allclose(scores["raw_score"].numpy(), (g + n).numpy(), rtol=1e-6)


def test_without_adaptive_the_score_is_the_raw_sum_and_nothing_is_collected() -> None:
    torch.manual_seed(4)
    detector = own(is_adaptive=False).train()
    batch = batch_of(detector, [ring(i, 5) for i in range(4)])
    detector.objective(batch)
    detector.end_epoch()
    assert int(detector.adaptive.epochs) == 0
    with torch.no_grad():
        scores = detector.eval().scores(batch)
    assert torch.equal(scores["score"], scores["raw_score"])


def test_adaptive_scores_need_a_trained_epoch() -> None:
    detector = own().eval()
    with pytest.raises(ValueError, match="one training epoch"):
        detector.scores(batch_of(detector, [ring(1, 5), ring(2, 6)]))


def test_scores_depend_on_the_scoring_batch_as_in_ubgold() -> None:
    """U23: the cross-attention runs over every graph and node of the batch."""
    torch.manual_seed(5)
    detector = own(is_adaptive=False).eval()
    graphs = [ring(1, 5), ring(2, 7), clique(3, 5)]
    with torch.no_grad():
        together = detector.score(batch_of(detector, graphs))
        alone = detector.score(batch_of(detector, graphs[:2]))
    assert not torch.allclose(together[:2], alone, rtol=1e-4)


def test_resume_is_bit_identical_with_the_epoch_statistics(tmp_path: Path) -> None:
    whole = train(own, toy_graphs(), settings(num_epoch=4), tmp_path / "whole")
    train(own, toy_graphs(), settings(num_epoch=4), tmp_path / "split", stop_after_epoch=2)
    resumed = train(own, toy_graphs(), settings(num_epoch=4), tmp_path / "split")
    assert_same_runs(tmp_path / "whole", tmp_path / "split")
    assert torch.equal(whole.detector.adaptive.statistics, resumed.detector.adaptive.statistics)
    for record in read_records(tmp_path / "whole" / RECORDS):
        a, b = np.load(tmp_path / "whole" / record["test_scores"]), np.load(tmp_path / "split" / record["test_scores"])
        assert np.array_equal(a["raw_score"], b["raw_score"])


def test_oracle_selects_on_the_normalised_score_and_reports_the_raw_one(tmp_path: Path) -> None:
    """U15 replayed from the records: the oracle ranks checkpoints by the AUROC of ``score`` and the table
    shows the AUROC of ``raw_score`` at the chosen checkpoint."""
    graphs = toy_graphs()
    train(own, graphs, settings(num_epoch=4), tmp_path)
    records = read_records(tmp_path / RECORDS)
    assert records[0]["reported_score"] == "raw_score"
    ids = np.array(sorted(int(g.graph_id) for g in graphs.test))
    labels = Labels(ids=ids, labels=(ids == CLIQUE_ID).astype(int))
    y = labels.labels
    normalised, raw = [], []
    for record in records:
        stored = np.load(tmp_path / record["test_scores"])
        order = np.argsort(stored["item_id"])
        normalised.append(auroc(y, stored["score"][order]))
        raw.append(auroc(y, stored["raw_score"][order]))
    trajectory = load_trajectory(tmp_path)
    selection = select("oracle", trajectory, labels)
    assert selection.index == int(np.argmax(normalised))  # the first strict maximum
    assert evaluate(selection, trajectory, labels) == pytest.approx(raw[selection.index])


# ---- parity with UB-GOLD's own module -------------------------------------------------------------------------

PARITY = {
    "GIN": {"GNN_Encoder": "GIN"},
    "GCN": {"GNN_Encoder": "GCN"},
    "GAT": {"GNN_Encoder": "GAT"},
    "GIN-max-plain": {"GNN_Encoder": "GIN", "graph_level_pool": "global_max_pool", "is_adaptive": False},
}


def _parameters(detector: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in detector.parameters()]


@pytest.mark.parametrize("name", sorted(PARITY))
def test_same_seed_gives_the_same_initial_weights(active: Path, name: str) -> None:
    config = CVTGADConfig(**{**SMALL, **PARITY[name]})
    torch.manual_seed(11)
    mine = _parameters(CVTGAD(2, config))
    after_own = torch.randn(4)
    torch.manual_seed(11)
    theirs = _parameters(ubgold.CVTGAD(2, config))
    assert torch.equal(after_own, torch.randn(4))  # both consumed the same draws
    assert len(mine) == len(theirs) > 0
    assert all(a.shape == b.shape and torch.equal(a, b) for a, b in zip(mine, theirs))


@pytest.mark.parametrize("name", sorted(PARITY))
def test_own_and_ubgold_train_alike_for_three_epochs(active: Path, tmp_path: Path, name: str) -> None:
    config = CVTGADConfig(**{**SMALL, **PARITY[name]})
    train(lambda: CVTGAD(2, config), toy_graphs(), settings(), tmp_path / "own")
    train(lambda: ubgold.CVTGAD(2, config), toy_graphs(), settings(), tmp_path / "ubgold")
    records = assert_bitwise_parity(tmp_path / "own", tmp_path / "ubgold", columns=("score", "raw_score"))
    assert all(r["nonfinite_test"] == r["nonfinite_holdout"] == 0 for r in records)


def test_ubgold_cross_attention_constant_follows_the_run_device(active: Path) -> None:
    detector = ubgold.CVTGAD(2, CVTGADConfig(**SMALL))
    assert detector.model.Cross_Attention_g.k.device == torch.device("cpu")
    assert float(detector.model.Cross_Attention_n.k) == pytest.approx(math.sqrt(8))  # E = hidden 4 x 2 layers

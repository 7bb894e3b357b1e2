"""GLocalKD as UB-GOLD runs it: dense padded blocks, the encoder against a loop-by-loop formula, the
distillation error over padded positions, the original's gradient (loss-scaled, clipped), a frozen target,
UB-GOLD's training settings through the trainer, batch-dependent scores and single-node graphs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import CLIQUE_ID, assert_finite_and_clique_stands_out, assert_same_runs, clique, ring
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.nn import RunGraphs, TrainConfig, train
from graphaudit.nn.glocalkd import GLOCALKD_TRAINING, GLocalKD, GLocalKDConfig, GraphConvEncoder, dense_blocks
from graphaudit.nn.trainer import CHECKPOINT, RECORDS

SMALL = GLocalKDConfig(hidden_dim=8, num_layer=3, output_dim=16)


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(24)],
        test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


def single_node(graph_id: int) -> Data:
    return Data(
        x=torch.tensor([[1.0, 0.0]]), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([graph_id])
    )


def with_isolated_nodes(graph_id: int) -> Data:
    """An edge 0-1 and two isolated nodes."""
    return Data(
        x=torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]),
        edge_index=torch.tensor([[0, 1], [1, 0]]),
        graph_id=torch.tensor([graph_id]),
    )


def build() -> GLocalKD:
    return GLocalKD(2, SMALL)


SETTINGS = TrainConfig(
    num_epoch=30, eval_freq=3, batch_size=8, batch_size_test=64, lr=1e-2, seed=3407, device="cpu", **GLOCALKD_TRAINING
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[GLocalKD, Path]:
    run_dir = tmp_path_factory.mktemp("glocalkd")
    result = train(build, toy_graphs(), SETTINGS, run_dir)
    assert result.completed
    return result.detector, run_dir


def loop_reference(encoder: GraphConvEncoder, graphs: list[Data], size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """UB-GOLD's formula written out: every graph padded to ``size`` rows, H' = normalize((A H + H) W + b),
    then ReLU and, per node position, standardisation over the batch's graphs and features; max over rows."""
    blocks = []
    for graph in graphs:
        n = graph.num_nodes
        adj = torch.zeros(size, size)
        adj[graph.edge_index[0], graph.edge_index[1]] = 1.0
        h = torch.zeros(size, graph.x.shape[1])
        h[:n] = graph.x
        blocks.append((adj, h))
    hs = [h for _, h in blocks]
    for layer, conv in enumerate(encoder.convs):
        hs = [adj @ h + h for (adj, _), h in zip(blocks, hs)]
        hs = [h @ conv.weight + conv.bias for h in hs]
        hs = [h / h.norm(dim=1, keepdim=True).clamp_min(1e-12) for h in hs]
        if layer < len(encoder.convs) - 1:
            stack = torch.stack(hs).clamp_min(0.0)  # (B, N, F)
            mean = stack.mean(dim=(0, 2), keepdim=True)
            var = ((stack - mean) ** 2).mean(dim=(0, 2), keepdim=True)
            hs = list((stack - mean) / torch.sqrt(var + 1e-5))
    nodes = torch.stack(hs)
    return nodes, nodes.max(dim=1).values


# ---- the network ---------------------------------------------------------------------------------------


def test_dense_blocks_pad_features_and_mark_each_edge_once() -> None:
    """A doubled edge is still a 1, padded rows are zero, and a graph larger than the size is refused."""
    graph = Data(x=torch.tensor([[1.0, 0.0], [0.0, 1.0]]), edge_index=torch.tensor([[0, 0, 1], [1, 1, 0]]))
    x, adj = dense_blocks(Batch.from_data_list([graph, ring(1, 3)]), max_nodes_num=5)
    assert x.shape == (2, 5, 2) and adj.shape == (2, 5, 5)
    assert adj[0, 0, 1] == 1.0 and adj[0, 1, 0] == 1.0 and float(adj[0].sum()) == 2.0
    assert torch.equal(x[0, 2:], torch.zeros(3, 2)) and torch.equal(x[1, 4:], torch.zeros(1, 2))
    with pytest.raises(ValueError, match="max_nodes_num"):
        dense_blocks(Batch.from_data_list([ring(1, 6)]), max_nodes_num=5)


def test_encoder_hand_computed_on_a_path() -> None:
    """Path 0-1-2, one-hot features, identity weights, no bias or bn: the first layer gives the rows of
    (A + I) normalised, r0 = (a, a, 0), r1 = (b, b, b), r2 = (0, a, a) with a = 1/sqrt 2, b = 1/sqrt 3;
    the second sums neighbours again: node 1 = r0 + r1 + r2 = (a + b, 2a + b, a + b), normalised."""
    encoder = GraphConvEncoder(3, 3, 2, 3, bn=False, bias=False, dropout=0.0)
    with torch.no_grad():
        for conv in encoder.convs:
            conv.weight.copy_(torch.eye(3))
    path = Batch.from_data_list([Data(x=torch.eye(3), edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]))])
    with torch.no_grad():
        nodes, graph = encoder(*dense_blocks(path, None))
    a, b = 1 / math.sqrt(2), 1 / math.sqrt(3)
    rows = torch.tensor([[a + b, a + b, b], [a + b, 2 * a + b, a + b], [b, a + b, a + b]])
    expected = rows / rows.norm(dim=1, keepdim=True)
    torch.testing.assert_close(nodes[0], expected)
    torch.testing.assert_close(graph[0], expected.max(dim=0).values)
    assert float(graph[0, 1]) == pytest.approx((2 * a + b) / math.sqrt(2 * (a + b) ** 2 + (2 * a + b) ** 2))


def test_encoder_matches_the_loop_formula_with_bias_bn_and_padding() -> None:
    torch.manual_seed(1)
    encoder = GraphConvEncoder(3, 5, 4, 6, bn=True, bias=True, dropout=0.1).eval()
    with torch.no_grad():
        for conv in encoder.convs:
            conv.bias.normal_()
    graphs = [ring(0, 5), ring(1, 3), clique(2, 4)]
    for graph in graphs:
        graph.x = torch.randn(graph.num_nodes, 3)
    with torch.no_grad():
        nodes, pooled = encoder(*dense_blocks(Batch.from_data_list(graphs), 8))
        ref_nodes, ref_pooled = loop_reference(encoder, graphs, 8)
    torch.testing.assert_close(nodes, ref_nodes, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(pooled, ref_pooled, rtol=1e-5, atol=1e-6)
    assert nodes.shape == (3, 8, 6)


def test_default_config_is_ubgold_and_sets_the_widths() -> None:
    assert GLocalKDConfig() == GLocalKDConfig(
        hidden_dim=16,
        num_layer=5,
        output_dim=256,
        bn=True,
        bias=True,
        clip=0.1,
        predictor_dropout=0.1,
        max_nodes_num=None,
    )
    model = GLocalKD(10)
    shapes = [tuple(conv.weight.shape) for conv in model.predictor.convs]
    assert shapes == [(10, 16), (16, 16), (16, 16), (16, 16), (16, 256)]  # stored in x out, as the original
    assert [conv.dropout for conv in model.target.convs] == [0.0] * 5
    assert [conv.dropout for conv in model.predictor.convs] == [0.0, 0.1, 0.1, 0.1, 0.0]  # middle inputs only
    bound = math.sqrt(6 / 16)  # Kaiming uniform with the original's fan (the output width)
    assert all(conv.weight.abs().max() <= bound for conv in model.target.convs[:-1])
    assert all(torch.equal(conv.bias, torch.zeros_like(conv.bias)) for conv in model.predictor.convs)


def test_ubgold_training_settings() -> None:
    assert GLOCALKD_TRAINING == {"lr_step_size": 50, "lr_gamma": 0.5, "shuffle_train": False}
    settings = TrainConfig(**GLOCALKD_TRAINING)
    assert (settings.lr_step_size, settings.lr_gamma, settings.shuffle_train) == (50, 0.5, False)


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="num_layer"):
        GLocalKDConfig(num_layer=1)
    with pytest.raises(ValueError, match="clip"):
        GLocalKDConfig(clip=0.0)
    with pytest.raises(ValueError, match="dropout"):
        GLocalKDConfig(predictor_dropout=1.0)
    with pytest.raises(TypeError):
        GLocalKDConfig(dropout=0.3)  # UB-GOLD's shared option never reaches GLocalKD
    with pytest.raises(ValueError, match="max_nodes_num"):
        GLocalKDConfig(max_nodes_num=0)


# ---- error, gradient, frozen target ---------------------------------------------------------------------


def test_error_is_graph_mse_plus_node_mse_over_padded_positions() -> None:
    """Node MSE averages over all max_nodes_num positions (padded ones too): padding changes the error."""
    torch.manual_seed(0)
    model = GLocalKD(2, GLocalKDConfig(hidden_dim=8, num_layer=3, output_dim=16, max_nodes_num=9)).eval()
    batch = Batch.from_data_list([ring(0, 4), clique(1, 5)])
    with torch.no_grad():
        errors = model.score(batch)
        x, adj = dense_blocks(batch, 9)
        (node_pred, graph_pred), (node_target, graph_target) = model.predictor(x, adj), model.target(x, adj)
        expected = ((graph_pred - graph_target) ** 2).mean(dim=1) + ((node_pred - node_target) ** 2).mean(dim=(1, 2))
        torch.testing.assert_close(errors, expected, rtol=1e-6, atol=0)
        model.predictor.load_state_dict(model.target.state_dict())
        assert torch.equal(model.score(batch), torch.zeros(2))  # a perfect predictor has zero error


def test_dropout_only_in_the_training_predictor() -> None:
    torch.manual_seed(0)
    model = GLocalKD(2, SMALL).train()
    batch = Batch.from_data_list([ring(0, 6), ring(1, 7)])
    blocks = dense_blocks(batch, None)
    assert torch.equal(model.target(*blocks)[0], model.target(*blocks)[0])
    assert not torch.equal(model.predictor(*blocks)[0], model.predictor(*blocks)[0])
    model.eval()
    assert torch.equal(model.score(batch), model.score(batch))


def test_gradient_is_loss_scaled_then_clipped_like_the_original() -> None:
    """The original: L = mean(graph MSE) + mean(node MSE), L.backward(L.detach()), then
    clip_grad_norm_(predictor, clip) before the step."""
    torch.manual_seed(0)
    clip = 1e-3
    model = GLocalKD(2, GLocalKDConfig(hidden_dim=8, num_layer=3, output_dim=16, clip=clip)).eval()
    batch = Batch.from_data_list([ring(0, 4), ring(1, 6), clique(2, 5)])
    params = list(model.predictor.parameters())
    graph_error, node_error = model.errors(batch)
    batch_loss = graph_error.mean() + node_error.mean()
    plain = torch.autograd.grad(batch_loss, params)
    losses, objective = model.objective(batch)
    torch.testing.assert_close(losses, (graph_error + node_error).detach(), rtol=0, atol=0)
    objective.backward()
    for parameter, grad in zip(params, plain):
        torch.testing.assert_close(parameter.grad, batch_loss.detach() * grad)
    assert torch.nn.utils.get_total_norm([p.grad for p in params]) > clip  # so clipping has work to do
    model.before_step()
    total = torch.nn.utils.get_total_norm([p.grad for p in params])
    assert float(total) == pytest.approx(clip, rel=1e-3)
    assert all(p.grad is None for p in model.target.parameters())


def test_target_is_frozen_and_unchanged_by_training(trained: tuple[GLocalKD, Path]) -> None:
    detector, run_dir = trained
    torch.manual_seed(SETTINGS.seed)  # the trainer seeds, then builds: the same initial weights
    initial = build()
    assert all(not p.requires_grad for p in detector.target.parameters())
    assert all(p.requires_grad for p in detector.predictor.parameters())
    for (name, before), after in zip(initial.target.state_dict().items(), detector.target.state_dict().values()):
        assert torch.equal(before, after), name
    assert not torch.equal(initial.predictor.convs[0].weight, detector.predictor.convs[0].weight)
    content = torch.load(run_dir / CHECKPOINT, weights_only=True)
    optimizer = content["optimisation"]["optimizer"]
    assert len(optimizer["state"]) == len(list(detector.predictor.parameters()))  # Adam never saw the target
    # 24 graphs in batches of 8: 3 steps an epoch, 90 in 30 epochs, so StepLR(50, 0.5) halved once
    assert optimizer["param_groups"][0]["lr"] == pytest.approx(SETTINGS.lr * 0.5)


def test_training_loss_falls(trained: tuple[GLocalKD, Path]) -> None:
    _, run_dir = trained
    records = read_records(run_dir / RECORDS)
    losses = [r["train_loss"] for r in records]
    assert [r["epoch"] for r in records] == list(range(3, 31, 3)) and all(np.isfinite(losses))
    assert np.mean(losses[-3:]) < 0.5 * np.mean(losses[:3])


def test_scores_are_finite_and_the_clique_stands_out(trained: tuple[GLocalKD, Path]) -> None:
    assert_finite_and_clique_stands_out(trained[1])


def test_scores_depend_on_the_batch_as_in_ubgold(trained: tuple[GLocalKD, Path]) -> None:
    """The per-call BatchNorm standardises each node position over the batch's graphs, so a graph scores
    differently alone and in a batch (UB-GOLD scores one at a time); the trainer is told so."""
    detector = trained[0].eval()
    graphs = toy_graphs().test + [single_node(500), with_isolated_nodes(501)]
    with torch.no_grad():
        together = detector.score(Batch.from_data_list(graphs))
        alone = torch.cat([detector.score(Batch.from_data_list([g])) for g in graphs])
    assert together.shape == (len(graphs),) and torch.isfinite(together).all() and torch.isfinite(alone).all()
    assert not torch.allclose(together, alone)
    assert GLocalKD.batch_independent_scores is False


def test_single_node_graph_gives_finite_scores_loss_and_gradients() -> None:
    torch.manual_seed(0)
    model = GLocalKD(2, SMALL)
    batch = Batch.from_data_list([single_node(0)])
    model.objective(batch)[1].backward()
    assert all(torch.isfinite(p.grad).all() for p in model.predictor.parameters())
    model.eval()
    with torch.no_grad():
        score = model.score(batch)
    assert score.shape == (1,) and torch.isfinite(score).all() and score.item() >= 0.0


def test_resume_is_bit_identical_with_ubgold_settings(tmp_path: Path) -> None:
    """Batches of 2: 12 steps an epoch, so the first halving (step 50) falls after the split at epoch 3."""
    config = TrainConfig(
        num_epoch=6, eval_freq=2, batch_size=2, batch_size_test=3, lr=1e-2, seed=3407, device="cpu", **GLOCALKD_TRAINING
    )
    whole = train(build, toy_graphs(), config, tmp_path / "whole")
    first = train(build, toy_graphs(), config, tmp_path / "split", stop_after_epoch=3)
    assert not first.completed and first.epoch == 3
    resumed = train(build, toy_graphs(), config, tmp_path / "split")
    assert resumed.completed
    a, b = whole.detector.state_dict(), resumed.detector.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert_same_runs(tmp_path / "whole", tmp_path / "split")
    lr = torch.load(tmp_path / "split" / CHECKPOINT, weights_only=True)["optimisation"]["optimizer"]
    assert lr["param_groups"][0]["lr"] == pytest.approx(1e-2 * 0.5)  # 72 steps: one halving

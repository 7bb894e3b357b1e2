"""SIGNET: the dual hypergraph, the cross-view loss, importance weights, degenerate graphs, training and resume."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.nn import RunGraphs, TrainConfig, train
from graphaudit.nn.signet import SIGNET, SIGNETConfig, cross_view_infonce, dual_hypergraph
from graphaudit.nn.trainer import RECORDS
from nn_toys import CLIQUE_ID, assert_finite_and_clique_stands_out, assert_same_runs, clique, ring, stable_records

SMALL = SIGNETConfig(hidden_dim=8, encoder_layers=2, explainer_layers=2, explainer_hidden_dim=4)
SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=3e-3, seed=3407,
                       device="cpu")


def small_signet() -> SIGNET:
    return SIGNET(2, SMALL)


def undirected(pairs: list[tuple[int, int]]) -> torch.Tensor:
    edges = torch.tensor(pairs, dtype=torch.long).T
    return torch.cat([edges, edges.flip(0)], dim=1)


def edgeless(graph_id: int, n: int) -> Data:
    return Data(x=torch.ones(n, 2), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([graph_id]))


def toy_graphs() -> RunGraphs:
    return RunGraphs(train=[ring(i, 4 + i % 6) for i in range(24)],
                     test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
                     holdout=[ring(200 + i, 6) for i in range(3)])


def odd_graphs() -> list[Data]:
    """A ring, a clique, an edgeless graph of 3 nodes and a single node."""
    return [ring(1, 5), clique(2, 4), edgeless(3, 3), edgeless(4, 1)]


# ---- dual hypergraph ----------------------------------------------------------------------------------

def test_dual_hypergraph_of_a_triangle_with_a_pendant() -> None:
    """Triangle 0-1-2 plus pendant 3 on node 0, both directions given: 4 edges -> 4 hypergraph nodes."""
    x = torch.arange(8, dtype=torch.float).reshape(4, 2)
    edge_index = undirected([(1, 0), (2, 1), (0, 2), (3, 0)])
    hyper = dual_hypergraph(x, edge_index, torch.zeros(4, dtype=torch.long))
    assert hyper.num_nodes == 4
    assert hyper.edges.tolist() == [[0, 1], [0, 2], [0, 3], [1, 2]]
    # hypergraph node k lies in the hyperedges of its two endpoints
    assert hyper.incidence.tolist() == [[0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 0, 2, 0, 3, 1, 2]]
    hyperedge_sizes = torch.bincount(hyper.incidence[1], minlength=4).tolist()
    assert hyperedge_sizes == [3, 2, 2, 1]  # = the original node degrees
    torch.testing.assert_close(hyper.x, torch.tensor([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0], [3.0, 4.0]]))
    assert hyper.batch.tolist() == [0, 0, 0, 0]


def test_dual_hypergraph_of_a_batch_with_a_self_loop_and_an_edgeless_graph() -> None:
    """Graph 0: self-loop on node 0 and edge 0-1; graph 1: isolated nodes 2 and 3; graph 2: edge 4-5."""
    x = torch.eye(6)
    edge_index = torch.cat([torch.tensor([[0], [0]]), undirected([(0, 1), (4, 5)])], dim=1)
    hyper = dual_hypergraph(x, edge_index, torch.tensor([0, 0, 1, 1, 2, 2]))
    assert hyper.edges.tolist() == [[0, 0], [0, 1], [4, 5]]
    assert hyper.incidence.tolist() == [[0, 1, 1, 2, 2], [0, 0, 1, 4, 5]]  # the loop is in one hyperedge
    assert hyper.batch.tolist() == [0, 0, 2]
    torch.testing.assert_close(hyper.x[0], x[0])
    empty = dual_hypergraph(torch.ones(3, 2), torch.zeros(2, 0, dtype=torch.long), torch.zeros(3, dtype=torch.long))
    assert empty.num_nodes == 0 and empty.x.shape == (0, 2) and empty.incidence.shape == (2, 0)


# ---- loss and weights --------------------------------------------------------------------------------

def test_cross_view_infonce_matches_a_hand_computed_case() -> None:
    """cos matrix S = [[1, r], [0, r]] with r = 1/sqrt(2); one negative per direction, so lse = that value:
    graph 0: ((S01 - S00) + (S10 - S00)) / 2 = (r - 2) / 2; graph 1: ((S10 - S11) + (S01 - S11)) / 2 = -r / 2."""
    z1 = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    z2 = torch.tensor([[3.0, 0.0], [1.0, 1.0]])
    r = 1 / math.sqrt(2)
    torch.testing.assert_close(cross_view_infonce(z1, z2, 1.0), torch.tensor([(r - 2) / 2, -r / 2]))
    torch.testing.assert_close(cross_view_infonce(z1, z2, 0.5), torch.tensor([r - 2, -r]))
    # alone, a graph has no negatives: the positive term only
    torch.testing.assert_close(cross_view_infonce(z1[1:], z2[1:], 0.5), torch.tensor([-2 * r]))


def test_importance_is_normalised_per_graph_and_edges_take_the_endpoint_product() -> None:
    torch.manual_seed(0)
    model = small_signet()
    batch = Batch.from_data_list(odd_graphs())
    hyper = dual_hypergraph(batch.x, batch.edge_index, batch.batch)
    with torch.no_grad():
        p = model.node_log_probability(batch).exp()
        node_weight, edge_weight = model.importance(batch, hyper)
    assert ((p > 0) & (p < 1)).all()
    for g in range(batch.num_graphs):
        nodes = batch.batch == g
        torch.testing.assert_close(node_weight[nodes], p[nodes] / p[nodes].max())
        edges = hyper.batch == g
        if edges.any():
            product = p[hyper.edges[edges, 0]] * p[hyper.edges[edges, 1]]
            torch.testing.assert_close(edge_weight[edges], product / product.max())
    assert edge_weight.shape == (hyper.num_nodes,)
    assert hyper.num_nodes == (5 + 1) + (6 + 1)  # C5 and K4, each with a pendant edge


# ---- degenerate graphs, batch independence --------------------------------------------------------------

def test_edgeless_and_single_node_graphs_give_finite_losses_scores_and_gradients() -> None:
    torch.manual_seed(0)
    model = small_signet()
    batch = Batch.from_data_list(odd_graphs())
    losses = model.loss(batch)
    assert losses.shape == (4,) and torch.isfinite(losses).all()
    losses.mean().backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    model.eval()
    with torch.no_grad():
        scores = model.score(batch)
        _, hyper_emb = model.embed(batch)
        empty_view = model.hyper_head(torch.zeros(1, hyper_emb.shape[1]))
    assert torch.isfinite(scores).all()
    # an empty hypergraph pools to zeros: its embedding is the projection of the zero vector
    torch.testing.assert_close(hyper_emb[2:], empty_view.expand(2, -1))
    # the score is minus the positive term of the graph's cross-view loss, within [-1/T, 1/T]
    assert (scores.abs() <= 1 / SMALL.temperature + 1e-5).all()


def test_score_does_not_depend_on_the_batch() -> None:
    torch.manual_seed(0)
    model = small_signet().eval()
    graphs = odd_graphs() + toy_graphs().test
    with torch.no_grad():
        together = model.score(Batch.from_data_list(graphs))
        alone = torch.cat([model.score(Batch.from_data_list([g])) for g in graphs])
        reversed_ = model.score(Batch.from_data_list(graphs[::-1])).flip(0)
    torch.testing.assert_close(together, alone, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(together, reversed_, rtol=1e-5, atol=1e-5)


# ---- training through the trainer --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("signet")
    train(small_signet, toy_graphs(), SETTINGS, run_dir)
    return run_dir


def test_training_loss_decreases(trained: Path) -> None:
    losses = [r["train_loss"] for r in read_records(trained / RECORDS)]
    assert len(losses) == SETTINGS.num_epoch
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_scores_are_finite_and_the_clique_stands_out(trained: Path) -> None:
    assert_finite_and_clique_stands_out(trained)


def test_resume_is_bit_identical(tmp_path: Path) -> None:
    settings = TrainConfig(num_epoch=6, eval_freq=2, batch_size=5, batch_size_test=4, lr=3e-3, seed=3407,
                           device="cpu")
    graphs = RunGraphs(train=[ring(i, 4 + i % 6) for i in range(11)] + [edgeless(50, 2), edgeless(51, 1)],
                       test=[ring(100 + i, 5 + i % 4) for i in range(5)] + [clique(CLIQUE_ID, 6), edgeless(60, 3)],
                       holdout=[ring(200, 6), edgeless(201, 1)])
    whole = train(small_signet, graphs, settings, tmp_path / "whole")
    first = train(small_signet, graphs, settings, tmp_path / "split", stop_after_epoch=3)
    assert not first.completed and first.epoch == 3
    resumed = train(small_signet, graphs, settings, tmp_path / "split")
    assert resumed.completed
    a, b = whole.detector.state_dict(), resumed.detector.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert_same_runs(tmp_path / "whole", tmp_path / "split")
    assert len(stable_records(tmp_path / "whole")) == 3


# ---- configuration ------------------------------------------------------------------------------------------

def test_default_config_is_ubgold_default() -> None:
    assert SIGNETConfig() == SIGNETConfig(hidden_dim=16, encoder_layers=5, pooling="add", readout="concat",
                                          explainer="gin", explainer_layers=5, explainer_hidden_dim=8,
                                          explainer_readout="add")
    model = SIGNET(3)
    assert model.graph_head[0].in_features == 16 * 5  # readout concat of 5 layers
    assert model.explainer_head.in_features == 8  # explainer readout add keeps the width
    assert len(model.explainer.convs) == 5 and len(model.hyper_encoder.mlps) == 5


@pytest.mark.parametrize("options, match", [({"pooling": "sum"}, "pooling"), ({"readout": "mean"}, "readout"),
                                            ({"explainer_readout": "max"}, "explainer_readout"),
                                            ({"explainer": "gcn"}, "explainer"), ({"encoder_layers": 0}, "encoder"),
                                            ({"temperature": 0.0}, "temperature")])
def test_invalid_options_are_rejected(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SIGNETConfig(**options)

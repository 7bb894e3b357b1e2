"""SIGNET as UB-GOLD runs it: the dual hypergraph, loss_nce, the importance weights and their gradient, batch
dependence, degenerate graphs, training and resume."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import CLIQUE_ID, assert_same_runs, clique, ring, stable_records
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.nn import RunGraphs, TrainConfig, train
from graphaudit.nn.scatter_max import scatter_max
from graphaudit.nn.signet import SIGNET, SIGNETConfig, dual_hypergraph, loss_nce
from graphaudit.nn.trainer import RECORDS

SMALL = SIGNETConfig(hidden_dim=8, encoder_layers=2, explainer_layers=2, explainer_hidden_dim=4)
SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=3e-3, seed=3407, device="cpu")


def small_signet() -> SIGNET:
    return SIGNET(2, SMALL)


def undirected(pairs: list[tuple[int, int]]) -> torch.Tensor:
    edges = torch.tensor(pairs, dtype=torch.long).T
    return torch.cat([edges, edges.flip(0)], dim=1)


def edgeless(graph_id: int, n: int) -> Data:
    return Data(x=torch.ones(n, 2), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([graph_id]))


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(24)],
        test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


# ---- dual hypergraph ----------------------------------------------------------------------------------


def test_dual_hypergraph_of_a_path() -> None:
    """Path 0-1-2 given in both directions: 4 directed entries -> 4 hypergraph nodes, each in the hyperedges
    of its two endpoints (ids 0-2) and in a self-loop hyperedge of its own (ids 3-6)."""
    edge_index = undirected([(0, 1), (1, 2)])  # entries: 0->1, 1->2, 1->0, 2->1
    incidence, edge_batch = dual_hypergraph(edge_index, torch.zeros(3, dtype=torch.long))
    assert incidence.tolist() == [[0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 2, 3], [0, 1, 1, 2, 1, 0, 2, 1, 3, 4, 5, 6]]
    assert edge_batch.tolist() == [0, 0, 0, 0]


def test_dual_hypergraph_drops_nodes_met_once_and_refuses_an_edgeless_batch() -> None:
    """A directed edge 0->1 alone: nodes 0 and 1 each occur once, so only the self-loops remain."""
    incidence, edge_batch = dual_hypergraph(torch.tensor([[0], [1]]), torch.tensor([0, 0]))
    assert incidence.tolist() == [[0], [2]] and edge_batch.tolist() == [0]
    with pytest.raises(ValueError, match="at least one edge"):
        dual_hypergraph(torch.zeros(2, 0, dtype=torch.long), torch.zeros(3, dtype=torch.long))


# ---- loss, weights, scatter_max -------------------------------------------------------------------------


def test_loss_nce_matches_a_hand_computed_case() -> None:
    """cos matrix S = [[1, r], [0, r]] (r = 1/sqrt 2), temperature 1: graph 0 has column sum e + 1 and row
    sum e + e^r, so loss = (-log(e / 1) - log(e / e^r)) / 2 (the 1e-10 terms aside)."""
    z1 = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    z2 = torch.tensor([[3.0, 0.0], [1.0, 1.0]])
    r = 1 / math.sqrt(2)
    e = math.e
    graph0 = (-math.log(e / 1.0) - math.log(e / math.exp(r))) / 2
    graph1 = (-math.log(math.exp(r) / math.exp(r)) - math.log(math.exp(r) / 1.0)) / 2
    torch.testing.assert_close(loss_nce(z1, z2, 1.0), torch.tensor([graph0, graph1]))


def test_scatter_max_sends_the_gradient_to_the_first_maximum() -> None:
    """Groups {0, 1, 2} (values 1, 3, 3: a tie) and {3} (value 2); group 2 is empty."""
    src = torch.tensor([[1.0, 3.0, 3.0, 2.0]], requires_grad=True)
    out, arg = scatter_max(src, torch.tensor([0, 0, 0, 1]), dim_size=3)
    assert out.tolist() == [[3.0, 2.0, 0.0]] and arg.tolist() == [[1, 3, 4]]
    (out * torch.tensor([[10.0, 20.0, 30.0]])).sum().backward()
    assert src.grad.tolist() == [[0.0, 10.0, 0.0, 20.0]]


def test_importance_weights_lie_within_a_fortieth_of_one() -> None:
    """Explainer softmax per graph, divided by the graph's maximum, mapped to 1 + (2w - 1) / 40."""
    torch.manual_seed(0)
    model = small_signet()
    batch = Batch.from_data_list([ring(1, 5), clique(2, 4), ring(3, 3)])
    with torch.no_grad():
        p = model.explainer(batch.x, batch.edge_index, batch.batch)
    for g in range(batch.num_graphs):
        torch.testing.assert_close(p[batch.batch == g].sum(), torch.tensor(1.0))
    weights = (2 * (p / p.max()) - 1) / 40 + 1
    assert (weights >= 1 - 1 / 40 - 1e-6).all() and (weights <= 1 + 1 / 40 + 1e-6).all()


# ---- degenerate graphs, batch dependence --------------------------------------------------------------


def test_a_graph_without_edges_makes_its_batch_not_finite_as_in_ubgold() -> None:
    """Its hypergraph view is empty, pools to zeros and projects to the zero vector (zero biases), whose
    cosine similarity is 0 / 0: every loss of the batch is NaN, which the trainer counts, never hides."""
    torch.manual_seed(0)
    model = small_signet()
    with torch.no_grad():
        mixed = model.loss(Batch.from_data_list([edgeless(3, 3), ring(1, 5), clique(2, 4), edgeless(5, 2)]))
        clean = model.loss(Batch.from_data_list([ring(1, 5), clique(2, 4)]))
    assert mixed.shape == (4,) and torch.isnan(mixed).all()
    assert torch.isfinite(clean).all()


def test_scores_depend_on_the_scoring_batch_as_in_ubgold() -> None:
    """The score is loss_nce over the scoring batch: the other graphs are its negatives."""
    torch.manual_seed(0)
    model = small_signet().eval()
    graphs = toy_graphs().test
    with torch.no_grad():
        together = model.score(Batch.from_data_list(graphs))
        halves = torch.cat([model.score(Batch.from_data_list(part)) for part in (graphs[:4], graphs[4:])])
    assert torch.isfinite(together).all() and not torch.allclose(together, halves)
    assert SIGNET.batch_independent_scores is False


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


def test_scores_are_finite(trained: Path) -> None:
    """Finite at every evaluation point. (Unlike the other detectors, UB-GOLD's SIGNET need not rank the toy
    clique high: a graph unlike every other is an easy positive for the contrastive score.)"""
    assert all(r["nonfinite_test"] == 0 and r["nonfinite_holdout"] == 0 for r in read_records(trained / RECORDS))


def test_resume_is_bit_identical(tmp_path: Path) -> None:
    settings = TrainConfig(num_epoch=6, eval_freq=2, batch_size=5, batch_size_test=4, lr=3e-3, seed=3407, device="cpu")
    graphs = RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(13)],
        test=[ring(100 + i, 5 + i % 4) for i in range(5)] + [clique(CLIQUE_ID, 6)],
        holdout=[ring(200, 6), ring(201, 4)],
    )
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
    assert SIGNETConfig() == SIGNETConfig(
        hidden_dim=16,
        encoder_layers=5,
        pooling="add",
        readout="concat",
        explainer="gin",
        explainer_layers=5,
        explainer_hidden_dim=8,
        explainer_readout="add",
    )
    model = SIGNET(3)
    assert model.proj_head[0].in_features == 16 * 5  # readout concat of 5 layers
    assert model.explainer.mlp.in_features == 8  # explainer readout add keeps the width
    assert len(model.explainer.convs) == 5 and len(model.encoder_hyper.convs) == 5


@pytest.mark.parametrize(
    "options, match",
    [
        ({"pooling": "sum"}, "pooling"),
        ({"readout": "mean"}, "readout"),
        ({"explainer_readout": "max"}, "explainer_readout"),
        ({"explainer": "gcn"}, "explainer"),
        ({"pooling": "mean"}, "pooling"),
        ({"encoder_layers": 0}, "encoder"),
        ({"temperature": 0.0}, "temperature"),
    ],
)
def test_invalid_options_are_rejected(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SIGNETConfig(**options)

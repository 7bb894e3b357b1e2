"""GraphDE as UB-GOLD runs it: the structure model, the classifier and the GraphDE-A loss against loop and
dense references on tiny graphs, the score and its orientation (A5), test-time negative sampling (U14), the
trainer's one step per epoch and eval mode after the first evaluation, the catalogue entry, and parity with
UB-GOLD's own module (same initial weights and draws, three epochs through ``train`` agree to the bit)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from nn_toys import CLIQUE_ID, assert_bitwise_parity, assert_same_runs, clique, ring
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader
from torch_geometric.utils import batched_negative_sampling

from graphaudit.common.seeds import stable_seed
from graphaudit.glad.deep import detector_builder, run_settings
from graphaudit.nn import GraphDE, GraphDEConfig, RunGraphs, TrainConfig, train
from graphaudit.nn.graphde import environment_loss, normal_probability, oriented, with_normal_labels
from graphaudit.nn.trainer import CHECKPOINT

SMALL = GraphDEConfig(hidden_dim=8, num_layer=2)
CATALOGUE = yaml.safe_load((Path(__file__).parents[2] / "config/glad/detectors.yaml").read_text(encoding="utf-8"))
IN_DIM = 3


def mixed(data: Data) -> Data:
    """Node i gets feature one-hot(i mod 3): the toys' constant features would make every cosine 1."""
    x = torch.zeros(data.num_nodes, IN_DIM)
    x[torch.arange(data.num_nodes), torch.arange(data.num_nodes) % IN_DIM] = 1.0
    data.x = x
    return data


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[mixed(ring(i, 4 + i % 6)) for i in range(20)],
        test=[mixed(ring(100 + i, 5 + i % 4)) for i in range(7)] + [mixed(clique(CLIQUE_ID, 6))],
        holdout=[mixed(ring(200 + i, 6)) for i in range(3)],
    )


def undirected(pairs: list[tuple[int, int]]) -> torch.Tensor:
    edges = torch.tensor(pairs, dtype=torch.long).T
    return torch.cat([edges, edges.flip(0)], dim=1)


def tiny_batch() -> Batch:
    """Graph 0: triangle 0-1-2 with pendant 3 (8 directed edges); graph 1: a 5-cycle (10); labels y = 0.
    Features are uniform in [0, 1): no two nodes alike (a cosine of 1 puts a non-edge's -log(1 - p) at
    -log(1e-4), where float32 keeps only 3 digits)."""
    generator = torch.Generator().manual_seed(1)
    first = Data(edge_index=undirected([(0, 1), (1, 2), (2, 0), (0, 3)]), num_nodes=4)
    second = Data(edge_index=undirected([(i, (i + 1) % 5) for i in range(5)]), num_nodes=5)
    for g in (first, second):
        g.x = torch.rand(g.num_nodes, IN_DIM, generator=generator)
        g.y = torch.zeros(1, dtype=torch.long)
    return Batch.from_data_list([first, second])


def small_model(config: GraphDEConfig = SMALL, seed: int = 0) -> GraphDE:
    torch.manual_seed(seed)
    return GraphDE(IN_DIM, config).eval()


# ---- structure model ----------------------------------------------------------------------------------


def pair_probability(h: np.ndarray, u: int, v: int, offset: float) -> float:
    """mean over the 2 chunks of (cos(h_u, h_v) + 1) / 2 + offset, one pair at a time."""
    values = []
    for a, b in zip(np.split(h[u], 2), np.split(h[v], 2)):
        cosine = a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-8)
        values.append((cosine + 1) / 2 + offset)
    return float(np.mean(values))


def test_structure_nll_matches_a_loop_over_edges_and_the_same_negatives() -> None:
    model = small_model(GraphDEConfig(hidden_dim=8, num_layer=2, neg_ratio=0.25))
    batch = tiny_batch()
    random.seed(7)
    nll = model.structure(batch.x, batch.edge_index, batch.batch)
    random.seed(7)  # the negatives come from Python's random: draw them again, as the model did
    negatives = batched_negative_sampling(batch.edge_index, batch.batch, int(0.25 * batch.edge_index.size(1)))
    weight = model.structure.embed.weight.detach().double().numpy()
    bias = model.structure.embed.bias.detach().double().numpy()
    h = np.maximum(batch.x.double().numpy() @ weight.T + bias, 0.0)
    graph_of = batch.batch.numpy()
    edges = {(u, v) for u, v in batch.edge_index.T.tolist()}
    expected = []
    for g in range(2):
        positive = [
            -math.log(pair_probability(h, u, v, 1e-4)) for u, v in batch.edge_index.T.tolist() if graph_of[u] == g
        ]
        negative = [
            -math.log(1 - pair_probability(h, u, v, -1e-4)) for u, v in negatives.T.tolist() if graph_of[u] == g
        ]
        assert 0 < len(negative) <= 4  # int(0.25 x 18 edges of the batch) per graph, where non-edges allow
        expected.append((np.mean(positive) + np.mean(negative)) / 2)
    assert all((u, v) not in edges and graph_of[u] == graph_of[v] for u, v in negatives.T.tolist())
    np.testing.assert_allclose(nll.detach().numpy(), expected, rtol=1e-5)


def test_structure_nll_without_negatives_is_the_mean_edge_nll() -> None:
    model = small_model(GraphDEConfig(hidden_dim=8, num_layer=2, neg_ratio=0.0))
    batch = tiny_batch()
    state = random.getstate()
    nll = model.structure(batch.x, batch.edge_index, batch.batch)
    assert random.getstate() == state  # nothing drawn
    weight = model.structure.embed.weight.detach().double().numpy()
    h = np.maximum(batch.x.double().numpy() @ weight.T + model.structure.embed.bias.detach().double().numpy(), 0.0)
    graph_of = batch.batch.numpy()
    expected = [
        np.mean(
            [-math.log(pair_probability(h, u, v, 1e-4)) for u, v in batch.edge_index.T.tolist() if graph_of[u] == g]
        )
        for g in range(2)
    ]
    np.testing.assert_allclose(nll.detach().numpy(), expected, rtol=1e-5)


# ---- classifier and loss -------------------------------------------------------------------------------


def test_logits_match_a_dense_gcn_with_batchnorm_on_its_running_statistics() -> None:
    """Eval mode: each GCNConv is D^-1/2 (A + I) D^-1/2 X W^T + b; BatchNorm divides by sqrt(1 + eps) (its
    running statistics start at mean 0, variance 1); max pooling per graph; the MLP."""
    model = small_model()
    batch = tiny_batch()
    n = batch.num_nodes
    adjacency = np.eye(n)
    for u, v in batch.edge_index.T.tolist():
        adjacency[v, u] = 1.0
    scale = 1 / np.sqrt(adjacency.sum(axis=1))
    propagate = scale[:, None] * adjacency * scale[None, :]
    x = batch.x.double().numpy()
    convs = model.backbone.convs
    for i, conv in enumerate(convs):
        x = propagate @ x @ conv.lin.weight.detach().double().numpy().T + conv.bias.detach().double().numpy()
        if i < len(convs) - 1:
            x = np.maximum(x, 0.0) / np.sqrt(1 + 1e-5)
    pooled = np.stack([x[batch.batch.numpy() == g].max(axis=0) for g in range(2)])
    first, last = model.classifier[0], model.classifier[2]
    hidden = np.maximum(pooled @ first.weight.detach().double().numpy().T + first.bias.detach().double().numpy(), 0)
    expected = hidden @ last.weight.detach().double().numpy().T + last.bias.detach().double().numpy()
    np.testing.assert_allclose(model.logits(batch).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("prior_ratio", [0.0, 0.2])
def test_environment_loss_matches_the_formula_graph_by_graph(prior_ratio: float) -> None:
    """Per graph: e = p_in / (p_in + 1/4) with p_in = exp(-nll_A - nll_y); loss = mean over graphs of
    e nll_y + e nll_A + 2 (1 - e) log 2 + KL((e, 1 - e) || (1 - prior, prior))."""
    generator = torch.Generator().manual_seed(3)
    structure_nll = torch.rand(5, generator=generator) * 3
    logits = torch.randn(5, 2, generator=generator)
    y = torch.tensor([0, 0, 1, 0, 0])
    loss = environment_loss(structure_nll, logits, y, prior_ratio)
    prior = (1 - prior_ratio, prior_ratio)
    per_graph = []
    for a, row, label in zip(structure_nll.double().tolist(), logits.double().tolist(), y.tolist()):
        b = math.log(math.exp(row[0]) + math.exp(row[1])) - row[label]
        inlier = math.exp(-a - b)
        e = inlier / (inlier + 0.25)
        kl = sum(p * (math.log(p) - math.log(q)) for p, q in zip(prior, (e, 1 - e)) if p > 0)
        per_graph.append(e * b + e * a + 2 * (1 - e) * math.log(2) + kl)
    assert loss.item() == pytest.approx(np.mean(per_graph), rel=1e-5)


def test_batch_loss_is_the_environment_loss_then_scores_the_batch_for_its_draws() -> None:
    model = small_model()
    batch = tiny_batch()
    random.seed(2)
    loss = model.batch_loss(batch)
    after = random.getstate()
    random.seed(2)
    expected = environment_loss(
        model.structure(batch.x, batch.edge_index, batch.batch), model.logits(batch), batch.y, 0.0
    )
    model.structure(batch.x, batch.edge_index, batch.batch)  # UB-GOLD's loss_func also scores the batch
    assert torch.equal(loss, expected) and random.getstate() == after
    losses, objective = model.objective(batch)
    assert losses.shape == (2,) and not losses.requires_grad and objective.requires_grad
    with pytest.raises(ValueError, match="y = 0"):
        model.batch_loss(Batch.from_data_list([mixed(ring(0, 5))]))


# ---- score ---------------------------------------------------------------------------------------------


def test_normal_probability_and_orientation() -> None:
    """exp(-nll) / (exp(-nll) + 1/2): nll 0 -> 2/3, nll log 2 -> 1/2; negated is the paper's orientation (A5)."""
    probability = normal_probability(torch.tensor([0.0, math.log(2)]))
    np.testing.assert_allclose(probability.numpy(), [2 / 3, 1 / 2], rtol=1e-6)
    assert torch.equal(oriented(probability, "negated"), -probability)
    assert torch.equal(oriented(probability, "ubgold"), probability)
    with pytest.raises(ValueError, match="orientation"):
        oriented(probability, "reversed")


def test_score_is_the_negated_normal_probability_unless_ubgold_orientation() -> None:
    negated, ubgold = small_model(), small_model(GraphDEConfig(hidden_dim=8, num_layer=2, orientation="ubgold"))
    batch = tiny_batch()
    random.seed(4)
    paper = negated.score(batch)
    random.seed(4)
    theirs = ubgold.score(batch)
    random.seed(4)
    expected = normal_probability(ubgold.structure(batch.x, batch.edge_index, batch.batch))
    assert torch.equal(theirs, expected) and torch.equal(paper, -theirs)
    assert bool(((theirs > 0) & (theirs < 1)).all())


def test_scores_draw_negatives_at_test_time() -> None:
    """U14: two eval-mode scorings of the same batch differ; the same Python RNG state gives the same scores."""
    model = small_model()
    batch = tiny_batch()
    with torch.no_grad():
        random.seed(9)
        first, second = model.score(batch), model.score(batch)
        random.seed(9)
        again = model.score(batch)
    assert not torch.equal(first, second) and torch.equal(first, again)


def test_training_graphs_get_label_zero_on_copies() -> None:
    graphs = toy_graphs()
    labelled = with_normal_labels(graphs)
    assert all(int(g.y) == 0 for g in labelled.train) and labelled.ids() == graphs.ids()
    assert all(g.y is None for g in graphs.train) and labelled.test is graphs.test


def test_bad_options_are_refused() -> None:
    for bad in (
        {"orientation": "reversed"},
        {"dropout": 1.0},
        {"neg_ratio": -0.1},
        {"prior_ratio": 1.5},
        {"hidden_dim": 0},
        {"num_layer": -1},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            GraphDEConfig(**bad)


# ---- training: one step per epoch, eval mode after the first evaluation -------------------------------


class ModeRecordingGraphDE(GraphDE):
    """Records the module mode of every training batch."""

    def __init__(self, in_dim: int, config: GraphDEConfig) -> None:
        super().__init__(in_dim, config)
        self.modes: list[bool] = []

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        self.modes.append(self.training)
        return super().objective(batch)


def test_training_is_one_adam_step_per_epoch_and_eval_mode_after_the_first_evaluation(tmp_path: Path) -> None:
    settings = TrainConfig(num_epoch=4, eval_freq=2, batch_size=6, batch_size_test=4, lr=1e-2, seed=1, device="cpu")
    result = train(lambda: ModeRecordingGraphDE(IN_DIM, SMALL), toy_graphs(), settings, tmp_path)
    assert result.detector.modes == [True] * 8 + [False] * 8  # 4 batches of 20 graphs; evaluated after epoch 2
    state = torch.load(tmp_path / CHECKPOINT, weights_only=True)["optimisation"]["optimizer"]["state"]
    assert {int(s["step"]) for s in state.values()} == {4}


def test_an_epoch_is_ubgold_fit_step_on_the_mean_batch_loss(tmp_path: Path) -> None:
    """One epoch through the trainer = GAOOD/detector/GraphDE.py's fit loop written out: all_loss summed over
    the batches from 0, divided by their number, one backward and Adam step."""
    settings = TrainConfig(num_epoch=1, eval_freq=2, batch_size=6, batch_size_test=4, lr=1e-2, seed=5, device="cpu")
    trained = train(lambda: GraphDE(IN_DIM, SMALL), toy_graphs(), settings, tmp_path).detector
    random.seed(5)
    np.random.seed(5)
    torch.manual_seed(5)
    model = GraphDE(IN_DIM, SMALL)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(stable_seed("nn.trainer", "loader", 5))
    loader = DataLoader(list(with_normal_labels(toy_graphs()).train), batch_size=6, shuffle=True, generator=generator)
    model.train()
    all_loss, n_bw = 0, 0
    for data in loader:
        n_bw += 1
        all_loss += model.batch_loss(data)
    all_loss /= n_bw
    optimizer.zero_grad()
    all_loss.backward()
    optimizer.step()
    for mine, reference in zip(trained.parameters(), model.parameters()):
        assert torch.equal(mine, reference)


def test_resumed_run_matches_an_uninterrupted_one(tmp_path: Path) -> None:
    settings = TrainConfig(num_epoch=4, eval_freq=2, batch_size=6, batch_size_test=4, lr=1e-2, seed=2, device="cpu")
    train(lambda: GraphDE(IN_DIM, SMALL), toy_graphs(), settings, tmp_path / "whole")
    train(lambda: GraphDE(IN_DIM, SMALL), toy_graphs(), settings, tmp_path / "parts", stop_after_epoch=3)
    train(lambda: GraphDE(IN_DIM, SMALL), toy_graphs(), settings, tmp_path / "parts")
    assert_same_runs(tmp_path / "whole", tmp_path / "parts")


# ---- catalogue -----------------------------------------------------------------------------------------


def test_catalogue_lines_of_graphde() -> None:
    reddit = run_settings(CATALOGUE, "GraphDE", "REDDIT-BINARY", "tuned")  # A2: dangling flag dropped
    assert reddit.train["num_epoch"] == 80 and reddit.train["batch_size_test"] == 9999
    assert (reddit.train["batch_size"], reddit.options["num_layer"], reddit.options["hidden_dim"]) == (64, 2, 64)
    assert run_settings(CATALOGUE, "GraphDE", "NCI1", "tuned").train["batch_size_test"] == 64
    default = run_settings(CATALOGUE, "GraphDE", "DD", "default")
    assert (default.train["num_epoch"], default.train["batch_size"], default.train["batch_size_test"]) == (400, 64, 16)
    assert (default.options["num_layer"], default.options["hidden_dim"], default.options["dropout"]) == (5, 16, 0.3)
    modal = run_settings(CATALOGUE, "GraphDE", "MUTAG", "tuned")
    assert modal.source == "modal (no script line)" and modal.train["num_epoch"] == 400
    assert {s.options["orientation"] for s in (reddit, default, modal)} == {"negated"}  # A5
    detector = detector_builder(CATALOGUE, reddit, IN_DIM)()
    assert isinstance(detector, GraphDE) and detector.config.bn and len(detector.backbone.convs) == 3


# ---- parity with UB-GOLD's own module ------------------------------------------------------------------


def named_weights(detector: torch.nn.Module) -> list[torch.Tensor]:
    """Parameters in creation order; UB-GOLD's unused GraphDE-V logits (all ones, no draw) left out."""
    return [p.detach().clone() for name, p in detector.named_parameters() if not name.endswith("e_logits")]


def test_same_seed_gives_the_same_initial_weights_and_draws(active: Path) -> None:
    from graphaudit.nn.ubgold.graphde import GraphDE as UBGoldGraphDE

    torch.manual_seed(11)
    own = GraphDE(IN_DIM, SMALL)
    after_own = torch.randn(4)
    torch.manual_seed(11)
    theirs = UBGoldGraphDE(IN_DIM, SMALL)
    after_theirs = torch.randn(4)
    mine, other = named_weights(own), named_weights(theirs)
    assert len(mine) == len(other) == 16
    assert all(torch.equal(a, b) for a, b in zip(mine, other)) and torch.equal(after_own, after_theirs)
    assert theirs.model.gnn_model.batch_norm == (None,)  # U14: the truthy tuple that turns BatchNorm on


def test_ubgold_refuses_batchnorm_off(active: Path) -> None:
    from graphaudit.nn.ubgold.graphde import GraphDE as UBGoldGraphDE

    with pytest.raises(ValueError, match="BatchNorm"):
        UBGoldGraphDE(IN_DIM, GraphDEConfig(bn=False))


@pytest.mark.parametrize("orientation", ["negated", "ubgold"])
def test_own_and_ubgold_train_alike_for_three_epochs(active: Path, tmp_path: Path, orientation: str) -> None:
    from graphaudit.nn.ubgold.graphde import GraphDE as UBGoldGraphDE

    config = GraphDEConfig(hidden_dim=8, num_layer=2, orientation=orientation)
    settings = TrainConfig(
        num_epoch=3, eval_freq=1, batch_size=6, batch_size_test=4, lr=1e-2, seed=3407, device="cpu", test_rng="coupled"
    )
    train(lambda: GraphDE(IN_DIM, config), toy_graphs(), settings, tmp_path / "own")
    train(lambda: UBGoldGraphDE(IN_DIM, config), toy_graphs(), settings, tmp_path / "ubgold")
    records = assert_bitwise_parity(tmp_path / "own", tmp_path / "ubgold")
    for record in records:
        scores = np.load(tmp_path / "own" / record["test_scores"])["score"]
        assert (scores < 0).all() == (orientation == "negated")

"""GraphCL-IF/OCSVM and InfoGraph-IF/OCSVM: the outlier stage fitted on the last training batch, InfoGraph's
projected-fit / unprojected-score mismatch, the augmentations, the objectives, determinism and resume."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.nn import RunGraphs, TrainConfig, train
from graphaudit.nn import two_stage
from graphaudit.nn.trainer import RECORDS
from graphaudit.nn.two_stage import (AUGMENTATIONS, TWO_STAGE_SCHEDULE, GraphCLIF, GraphCLIFConfig, GraphCLOCSVM,
                                     GraphCLOCSVMConfig, InfoGraphIF, InfoGraphIFConfig, InfoGraphOCSVM,
                                     InfoGraphOCSVMConfig, drop_nodes, graphcl_view, local_global_jsd, mask_features,
                                     node_and_graph_states, nt_xent, random_walk_subgraph, remove_edges)
from nn_toys import CLIQUE_ID, assert_same_runs, clique, ring, stable_records

Augmentation = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
BUILDERS = {
    "GraphCLIF": lambda: GraphCLIF(2, GraphCLIFConfig(hidden_dim=8, num_layer=2)),
    "GraphCLOCSVM": lambda: GraphCLOCSVM(2, GraphCLOCSVMConfig(hidden_dim=8, num_layer=2)),
    "InfoGraphIF": lambda: InfoGraphIF(2, InfoGraphIFConfig(hidden_dim=8)),
    "InfoGraphOCSVM": lambda: InfoGraphOCSVM(2, InfoGraphOCSVMConfig(hidden_dim=8)),
}


def batch_of(graphs: list[Data]) -> Batch:
    return Batch.from_data_list(graphs)


def stored(detector: torch.nn.Module) -> dict:
    return detector.state_dict()["_extra_state"]


def snapshot(detector: torch.nn.Module) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in detector.state_dict().items():
        out[key] = (value.detach().clone() if isinstance(value, torch.Tensor)
                    else (value["fit_rows"].clone(), value["fit_count"]))
    return out


def assert_same_state(a: dict[str, object], b: dict[str, object]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], torch.Tensor):
            assert torch.equal(a[key], b[key]), key
        else:
            assert torch.equal(a[key][0], b[key][0]) and a[key][1] == b[key][1], key


# ---- defaults and options ---------------------------------------------------------------------------------

def test_defaults_are_ubgold_defaults() -> None:
    for config in (GraphCLIFConfig(), InfoGraphIFConfig()):
        assert (config.IF_n_trees, config.IF_sample_ratio, config.hidden_dim) == (200, 0.5, 16)
    for config in (GraphCLOCSVMConfig(), InfoGraphOCSVMConfig()):
        assert (config.gamma, config.nuOCSVM, config.hidden_dim) == ("scale", 0.1, 16)
    assert GraphCLIFConfig().num_layer == 5 and GraphCLOCSVMConfig().num_layer == 5
    assert InfoGraphIFConfig().num_layer == 2 and InfoGraphOCSVMConfig().num_layer == 2
    assert GraphCLIFConfig().norm_layer == "gn" and GraphCLIFConfig().aggregation == "add"
    assert TWO_STAGE_SCHEDULE["GraphCL-IF"] == {"num_epoch": 30, "eval_freq": 4}
    assert all(TWO_STAGE_SCHEDULE[name] == {"num_epoch": 30, "eval_freq": 2}
               for name in ("GraphCL-OCSVM", "InfoGraph-IF", "InfoGraph-OCSVM"))


def test_infograph_ocsvm_runs_only_with_two_layers() -> None:
    for layers in (1, 3, 5):
        with pytest.raises(ValueError, match="num_layer 2"):
            InfoGraphOCSVM(2, InfoGraphOCSVMConfig(num_layer=layers))
    InfoGraphOCSVM(2)
    assert InfoGraphIF(2, InfoGraphIFConfig(num_layer=5)).global_head.shortcut.in_features == 16 * 5


def test_invalid_outlier_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="IF_sample_ratio"):
        GraphCLIFConfig(IF_sample_ratio=0.0)
    with pytest.raises(ValueError, match="IF_n_trees"):
        GraphCLIFConfig(IF_n_trees=0)
    with pytest.raises(ValueError, match="nuOCSVM"):
        GraphCLOCSVMConfig(nuOCSVM=1.5)


# ---- the objectives ---------------------------------------------------------------------------------------

def test_nt_xent_matches_a_hand_computed_case() -> None:
    """Cosine logits / 0.2: [[5, 5], [0, 0]] for views e1, e2 vs e1, e1. Rows give -log 2 each; column 0 is
    softmax(5, 0)[0], column 1 softmax(5, 0)[1]."""
    first = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    assert torch.allclose(nt_xent(first, first), torch.full((2,), math.log1p(math.exp(-5))))
    losses = nt_xent(first, torch.tensor([[3.0, 0.0], [1.0, 0.0]]))
    expected = [(math.log(2) + math.log1p(math.exp(-5))) / 2, (math.log(2) + math.log1p(math.exp(5))) / 2]
    torch.testing.assert_close(losses, torch.tensor(expected))
    assert nt_xent(first[:1], first[:1]).item() == 0.0  # one graph: its only candidate is the positive


def test_local_global_jsd_matches_a_hand_computed_case() -> None:
    """Graphs (1), (2); nodes 1, 0 in graph 0 and -1 in graph 1: scores g0 (1, 0, -1), g1 (2, 0, -2)."""
    def sp(v: float) -> float:
        return math.log1p(math.exp(v))
    losses = local_global_jsd(torch.tensor([[1.0], [2.0]]), torch.tensor([[1.0], [0.0], [-1.0]]),
                              torch.tensor([0, 0, 1]))
    expected = [2 * ((sp(-1) + sp(0)) / 3 + sp(-1) / 3) - 2 * math.log(2),
                2 * (sp(2) / 3 + (sp(2) + sp(0)) / 3) - 2 * math.log(2)]
    torch.testing.assert_close(losses, torch.tensor(expected))
    batch_loss = (sp(-1) + sp(0) + sp(2)) / 3 + (sp(-1) + sp(2) + sp(0)) / 3 - 2 * math.log(2)
    assert losses.mean().item() == pytest.approx(batch_loss)
    single = local_global_jsd(torch.tensor([[1.0]]), torch.tensor([[1.0], [2.0]]), torch.tensor([0, 0]))
    assert single.item() == pytest.approx((sp(-1) + sp(-2)) / 2 - 2 * math.log(2))  # no negatives: term is 0


def test_node_states_pool_to_the_encoder_embedding() -> None:
    torch.manual_seed(0)
    detector = InfoGraphIF(2, InfoGraphIFConfig(hidden_dim=4, num_layer=3))
    batch = batch_of([ring(i, 4 + i) for i in range(3)])
    nodes, graphs = node_and_graph_states(detector.encoder, batch)
    assert nodes.shape == (batch.num_nodes, 12)
    torch.testing.assert_close(graphs, detector.encoder(batch))


# ---- augmentations ----------------------------------------------------------------------------------------

def random_batch(num_graphs: int = 40, size: int = 50, width: int = 500) -> Batch:
    """Graphs of ``size`` nodes with undirected edges at density 0.1, all-ones features of ``width`` columns."""
    generator = torch.Generator().manual_seed(7)
    graphs = []
    for g in range(num_graphs):
        pairs = torch.combinations(torch.arange(size), 2)
        pairs = pairs[torch.rand(len(pairs), generator=generator) < 0.1].T
        graphs.append(Data(x=torch.ones(size, width), edge_index=torch.cat([pairs, pairs.flip(0)], dim=1),
                           graph_id=torch.tensor([g])))
    return batch_of(graphs)


def edge_set(edge_index: torch.Tensor) -> set[tuple[int, int]]:
    return set(map(tuple, edge_index.T.tolist()))


def assert_induced(kept: torch.Tensor, original: torch.Tensor) -> None:
    """``kept`` is exactly the subgraph of ``original`` induced on the nodes ``kept`` touches."""
    nodes = set(kept.flatten().tolist())
    induced = {(u, v) for u, v in edge_set(original) if u in nodes and v in nodes}
    assert edge_set(kept) == induced


def test_edge_removing_drops_a_tenth_of_the_edges() -> None:
    batch = random_batch()
    torch.manual_seed(1)
    x, kept = remove_edges(batch.x, batch.edge_index)
    assert x is batch.x and edge_set(kept) <= edge_set(batch.edge_index)
    assert kept.size(1) / batch.edge_index.size(1) == pytest.approx(0.9, abs=0.02)


def test_node_dropping_isolates_a_tenth_of_the_nodes() -> None:
    """Kept edges are those between kept nodes (an induced subgraph); both ends kept: 0.9 ** 2 of the edges."""
    batch = random_batch()
    torch.manual_seed(2)
    x, kept = drop_nodes(batch.x, batch.edge_index)
    assert x is batch.x
    assert_induced(kept, batch.edge_index)
    assert kept.size(1) / batch.edge_index.size(1) == pytest.approx(0.81, abs=0.05)


def test_feature_masking_zeroes_a_tenth_of_the_columns() -> None:
    batch = random_batch(num_graphs=2)
    torch.manual_seed(3)
    shares = []
    for _ in range(10):
        x, edge_index = mask_features(batch.x, batch.edge_index)
        assert edge_index is batch.edge_index and x.shape == batch.x.shape
        zero = (x == 0).all(dim=0)
        assert ((x == 1).all(dim=0) | zero).all()  # whole columns, for every node at once
        shares.append(zero.float().mean().item())
    assert np.mean(shares) == pytest.approx(0.1, abs=0.03)
    assert (batch.x == 1).all()


def test_random_walk_keeps_the_subgraph_the_walks_visit() -> None:
    batch = random_batch()
    torch.manual_seed(4)
    x, kept = random_walk_subgraph(batch.x, batch.edge_index)
    assert x is batch.x
    assert_induced(kept, batch.edge_index)
    assert 0 < kept.size(1) < batch.edge_index.size(1)
    torch.manual_seed(5)
    big_ring = ring(0, 100)
    _, arc = random_walk_subgraph(big_ring.x, big_ring.edge_index, num_seeds=1, length=10)
    assert 2 <= arc.size(1) <= 2 * 10 and arc.size(1) % 2 == 0  # one walk: a path of at most 10 ring edges
    small = batch_of([ring(i, 5) for i in range(4)])  # 24 nodes, 1000 seeds: every node is visited
    assert edge_set(random_walk_subgraph(small.x, small.edge_index)[1]) == edge_set(small.edge_index)


def test_a_view_keeps_nodes_graphs_and_ids_and_draws_uniformly(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = batch_of([ring(10, 5), Data(x=torch.ones(1, 2), edge_index=torch.zeros(2, 0, dtype=torch.long),
                                         graph_id=torch.tensor([11])), ring(12, 3, label=1)])
    before = batch.edge_index.clone()
    torch.manual_seed(6)
    for _ in range(20):
        view = graphcl_view(batch)
        assert view.x.shape == batch.x.shape and view.num_graphs == 3
        assert torch.equal(view.batch, batch.batch) and torch.equal(view.graph_id, batch.graph_id)
        assert edge_set(view.edge_index) <= edge_set(batch.edge_index)
    assert torch.equal(batch.edge_index, before)
    chosen: list[int] = []

    def recorder(k: int) -> Augmentation:
        def augment(x: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            chosen.append(k)
            return x, edge_index
        return augment

    monkeypatch.setattr(two_stage, "AUGMENTATIONS", tuple(recorder(k) for k in range(len(AUGMENTATIONS))))
    for _ in range(400):
        graphcl_view(batch)
    counts = np.bincount(chosen, minlength=4)
    assert len(AUGMENTATIONS) == 4 and (np.abs(counts - 100) < 30).all()


# ---- the outlier stage --------------------------------------------------------------------------------------

def test_outlier_model_is_fitted_on_the_last_training_batch_only() -> None:
    torch.manual_seed(0)
    detector = GraphCLOCSVM(2, GraphCLOCSVMConfig(hidden_dim=4, num_layer=2))
    first = batch_of([ring(i, 4 + i) for i in range(6)])
    last = batch_of([ring(10 + i, 5 + i % 3, label=1) for i in range(8)])
    test = batch_of([ring(20 + i, 4 + i) for i in range(5)] + [clique(CLIQUE_ID, 6)])
    detector.train()
    detector.loss(first)
    detector.loss(last)
    detector.eval()
    detector.loss(first)  # evaluation-mode losses fit nothing
    with torch.no_grad():
        rows = {name: detector.encoder(b).numpy() for name, b in (("first", first), ("last", last), ("test", test))}
        scores = detector.score(test).numpy()
    state = stored(detector)
    assert state["fit_count"] == 2 and state["fit_rows"].shape == (8, detector.encoder.out_dim)
    np.testing.assert_allclose(state["fit_rows"].numpy(), rows["last"], rtol=1e-6)
    expected = -OneClassSVM(gamma="scale", nu=0.1).fit(rows["last"]).decision_function(rows["test"])
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-6)
    both = OneClassSVM(gamma="scale", nu=0.1).fit(np.concatenate([rows["first"], rows["last"]]))
    assert not np.allclose(scores, -both.decision_function(rows["test"]), rtol=1e-3)


def test_infograph_fits_projected_but_scores_unprojected_embeddings() -> None:
    """Global head set by hand to g -> 2 g + 1 (the three-layer block zeroed, the shortcut 2 I with bias 1)."""
    torch.manual_seed(0)
    detector = InfoGraphOCSVM(2, InfoGraphOCSVMConfig(hidden_dim=4))
    with torch.no_grad():
        detector.global_head.block[4].weight.zero_()
        detector.global_head.block[4].bias.zero_()
        detector.global_head.shortcut.weight.copy_(2 * torch.eye(8))
        detector.global_head.shortcut.bias.fill_(1.0)
    train_batch = batch_of([ring(i, 4 + i % 5) for i in range(10)])
    test = batch_of([ring(20 + i, 4 + i) for i in range(5)] + [clique(CLIQUE_ID, 6)])
    detector.train()
    detector.loss(train_batch)
    detector.eval()
    with torch.no_grad():
        fitted = (2 * detector.encoder(train_batch) + 1).numpy()
        embeddings = detector.encoder(test).numpy()
        scores = detector.score(test).numpy()
    np.testing.assert_allclose(stored(detector)["fit_rows"].numpy(), fitted, rtol=1e-5, atol=1e-6)
    model = OneClassSVM(gamma="scale", nu=0.1).fit(fitted)
    np.testing.assert_allclose(scores, -model.decision_function(embeddings), rtol=1e-4, atol=1e-6)
    assert not np.allclose(scores, -model.decision_function(2 * embeddings + 1), rtol=1e-3)


def test_scores_are_deterministic_and_survive_a_state_dict_round_trip() -> None:
    torch.manual_seed(0)
    build = BUILDERS["GraphCLIF"]
    detector = build()
    test = batch_of([ring(20 + i, 4 + i % 5) for i in range(10)] + [clique(CLIQUE_ID, 6)])
    with pytest.raises(RuntimeError, match="no outlier model fitted"):
        detector.eval().score(test)
    detector.train()
    detector.loss(batch_of([ring(i, 4 + i % 6) for i in range(16)]))
    detector.eval()
    with torch.no_grad():
        once, twice = detector.score(test), detector.score(test)
        restored = build()
        restored.load_state_dict(detector.state_dict())
        again = restored.eval().score(test)
    assert torch.equal(once, twice) and torch.equal(once, again)
    assert torch.isfinite(once).all() and once.shape == (test.num_graphs,)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_degenerate_graphs_give_finite_losses_and_scores(name: str) -> None:
    """A single node, isolated nodes, a one-graph last batch (the IF then fits one row)."""
    torch.manual_seed(0)
    detector = BUILDERS[name]()
    lone = Data(x=torch.tensor([[1.0, 0.0]]), edge_index=torch.zeros(2, 0, dtype=torch.long),
                graph_id=torch.tensor([1]))
    isolated = Data(x=torch.eye(2)[[0, 1, 1]], edge_index=torch.tensor([[0, 1], [1, 0]]), graph_id=torch.tensor([2]))
    mixed = batch_of([lone, isolated, ring(3, 4)])
    detector.train()
    for batch in (mixed, batch_of([lone])):
        assert torch.isfinite(detector.loss(batch)).all()
    with torch.no_grad():
        assert torch.isfinite(detector.eval().score(mixed)).all()


# ---- training -----------------------------------------------------------------------------------------------

def small_run() -> RunGraphs:
    return RunGraphs(train=[ring(i, 4 + i % 6) for i in range(24)],
                     test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
                     holdout=[ring(200 + i, 6) for i in range(3)])


def small_config() -> TrainConfig:
    return TrainConfig(num_epoch=6, eval_freq=2, batch_size=8, batch_size_test=5, lr=1e-2, seed=3407, device="cpu")


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_resume_is_bit_identical(tmp_path: Path, name: str) -> None:
    build = BUILDERS[name]
    whole = train(build, small_run(), small_config(), tmp_path / "whole")
    first = train(build, small_run(), small_config(), tmp_path / "split", stop_after_epoch=3)
    assert not first.completed
    resumed = train(build, small_run(), small_config(), tmp_path / "split")
    assert_same_state(snapshot(whole.detector), snapshot(resumed.detector))
    assert_same_runs(tmp_path / "whole", tmp_path / "split")
    records = stable_records(tmp_path / "whole")
    assert len(records) == 3 and all(r["nonfinite_test"] == r["nonfinite_holdout"] == 0 for r in records)
    assert stored(whole.detector)["fit_count"] == 6 * 3  # 24 graphs in batches of 8, six epochs


def clique_run() -> RunGraphs:
    """64 training rings in batches of 32 (the outlier model is fitted on the last 32) and a 16-clique: GraphNorm
    standardises node states per graph, so a near-regular clique needs some size to stand out from near-regular
    rings (with 16 the checks below held for seeds 3400-3409 at every evaluation point; with 8 GraphCL-IF missed
    in 2 of 10)."""
    return RunGraphs(train=[ring(i, 4 + i % 6) for i in range(64)],
                     test=[ring(100 + i, 4 + i % 6) for i in range(12)] + [clique(CLIQUE_ID, 16)],
                     holdout=[ring(200 + i, 6) for i in range(3)])


@pytest.fixture(scope="module", params=["GraphCLIF", "GraphCLOCSVM", "InfoGraphIF"])
def trained(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, object]:
    run_dir = tmp_path_factory.mktemp(request.param)
    config = TrainConfig(num_epoch=10, eval_freq=2, batch_size=32, batch_size_test=64, lr=1e-2, seed=3407,
                         device="cpu")
    result = train(BUILDERS[request.param], clique_run(), config, run_dir)
    return request.param, run_dir, result.detector


def last_scores(run_dir: Path) -> dict[int, float]:
    record = read_records(run_dir / RECORDS)[-1]
    scores = np.load(run_dir / record["test_scores"])
    assert np.isfinite(scores["score"]).all()
    return dict(zip(scores["item_id"].tolist(), scores["score"].tolist()))


def test_the_clique_stands_out_after_training(trained: tuple[str, Path, object]) -> None:
    """GraphCL-IF/OCSVM flag the clique through their own scores. InfoGraph-IF's own scores cannot be asked to:
    its forest is fitted on projected rows but scores unprojected ones (U19), and almost every unprojected
    coordinate falls outside the fitted range, so the clique's rank is a coin flip over seeds. For it the test
    checks that the trained encoder separates the clique: a forest on its unprojected training embeddings."""
    name, run_dir, detector = trained
    scores = last_scores(run_dir)
    if name.startswith("GraphCL"):
        normal = [s for gid, s in scores.items() if gid != CLIQUE_ID]
        assert scores[CLIQUE_ID] > np.median(normal)
        return
    graphs = clique_run()
    with torch.no_grad():
        train_rows = detector.eval().encoder(batch_of(list(graphs.train))).numpy()
        test_rows = detector.encoder(batch_of(list(graphs.test))).numpy()
    forest = IsolationForest(n_estimators=200, max_samples=0.5, random_state=0).fit(train_rows)
    separated = -forest.decision_function(test_rows)
    assert separated[-1] > np.median(separated[:-1])

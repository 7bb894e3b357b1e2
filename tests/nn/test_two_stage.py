"""GraphCL-IF/OCSVM and InfoGraph-IF/OCSVM as UB-GOLD runs them: the augmentations (against a loop-by-loop reading
of PyGCL and torch_sparse, and against the PyGCL shim the ubgold backend runs on), the objectives (hand-computed
cases), the outlier stage refitted per training batch on numpy's global RNG, InfoGraph's projected-fit /
unprojected-score mismatch, determinism and resume; then parity with UB-GOLD's own modules (backend ubgold:
same initial weights and draws, same losses and per-graph scores over three epochs, to the bit)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import CLIQUE_ID, assert_bitwise_parity, assert_same_runs, clique, ring, stable_records
from sklearn.ensemble import IsolationForest
from sklearn.svm import OneClassSVM
from torch_geometric.data import Batch, Data
from torch_geometric.nn import global_add_pool

from graphaudit.common.records import read_records
from graphaudit.nn import RunGraphs, TrainConfig, train, two_stage
from graphaudit.nn.trainer import RECORDS
from graphaudit.nn.two_stage import (
    AUGMENTATIONS,
    TWO_STAGE_SCHEDULE,
    GraphCLIF,
    GraphCLIFConfig,
    GraphCLOCSVM,
    GraphCLOCSVMConfig,
    InfoGraphIF,
    InfoGraphIFConfig,
    InfoGraphOCSVM,
    InfoGraphOCSVMConfig,
    drop_nodes,
    graphcl_loss,
    graphcl_view,
    info_nce,
    local_global_jsd,
    mask_features,
    random_walk_subgraph,
    remove_edges,
)
from graphaudit.nn.ubgold import pygcl_shim
from graphaudit.nn.ubgold import two_stage as ubgold

Augmentation = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
TREES = 25  # forests of UB-GOLD's 200 trees cost a second per fit here, and the tests refit per batch
BUILDERS = {
    "GraphCLIF": lambda: GraphCLIF(2, GraphCLIFConfig(hidden_dim=8, num_layer=2, IF_n_trees=TREES)),
    "GraphCLOCSVM": lambda: GraphCLOCSVM(2, GraphCLOCSVMConfig(hidden_dim=8, num_layer=2)),
    "InfoGraphIF": lambda: InfoGraphIF(2, InfoGraphIFConfig(hidden_dim=8, IF_n_trees=TREES)),
    "InfoGraphOCSVM": lambda: InfoGraphOCSVM(2, InfoGraphOCSVMConfig(hidden_dim=8)),
}


def batch_of(graphs: list[Data]) -> Batch:
    return Batch.from_data_list(graphs)


def embed(detector: torch.nn.Module, batch: Batch) -> torch.Tensor:
    """Unprojected graph embeddings of ``batch`` in the detector's current mode, without gradients."""
    with torch.no_grad():
        return detector.encoder(batch.x, batch.edge_index, batch.batch)[1]


def stored(detector: torch.nn.Module) -> dict:
    return detector.state_dict()["_extra_state"]


def snapshot(detector: torch.nn.Module) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in detector.state_dict().items():
        out[key] = (
            value.detach().clone() if isinstance(value, torch.Tensor) else (value["rows"].clone(), value["numpy_state"])
        )
    return out


def assert_same_state(a: dict[str, object], b: dict[str, object]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], torch.Tensor):
            assert torch.equal(a[key], b[key]), key
        else:
            (rows_a, state_a), (rows_b, state_b) = a[key], b[key]
            assert torch.equal(rows_a, rows_b) and torch.equal(state_a[1], state_b[1]), key
            assert state_a[:1] + state_a[2:] == state_b[:1] + state_b[2:], key


# ---- defaults and options ---------------------------------------------------------------------------------


def test_defaults_are_ubgold_defaults() -> None:
    for config in (GraphCLIFConfig(), InfoGraphIFConfig()):
        assert (config.IF_n_trees, config.IF_sample_ratio, config.hidden_dim) == (200, 0.5, 16)
    for config in (GraphCLOCSVMConfig(), InfoGraphOCSVMConfig()):
        assert (config.gamma, config.nuOCSVM, config.hidden_dim) == ("scale", 0.1, 16)
    assert GraphCLIFConfig().num_layer == 5 and GraphCLOCSVMConfig().num_layer == 5
    assert InfoGraphIFConfig().num_layer == 2 and InfoGraphOCSVMConfig().num_layer == 2
    assert TWO_STAGE_SCHEDULE["GraphCL-IF"] == {"num_epoch": 30, "eval_freq": 4}
    assert all(
        TWO_STAGE_SCHEDULE[name] == {"num_epoch": 30, "eval_freq": 2}
        for name in ("GraphCL-OCSVM", "InfoGraph-IF", "InfoGraph-OCSVM")
    )


def test_infograph_ocsvm_runs_only_with_two_layers() -> None:
    for layers in (1, 3, 5):
        with pytest.raises(ValueError, match="num_layer 2"):
            InfoGraphOCSVM(2, InfoGraphOCSVMConfig(num_layer=layers))
    InfoGraphOCSVM(2)
    assert InfoGraphIF(2, InfoGraphIFConfig(num_layer=5)).global_head.shortcut.in_features == 16 * 5


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="IF_sample_ratio"):
        GraphCLIFConfig(IF_sample_ratio=0.0)
    with pytest.raises(ValueError, match="IF_n_trees"):
        GraphCLIFConfig(IF_n_trees=0)
    with pytest.raises(ValueError, match="nuOCSVM"):
        GraphCLOCSVMConfig(nuOCSVM=1.5)
    with pytest.raises(ValueError, match="hidden_dim"):
        InfoGraphIFConfig(hidden_dim=0)


def test_the_encoder_is_ubgolds_gconv() -> None:
    """GIN MLPs with biases, ReLU then BatchNorm per layer; graph embedding = per-layer sum pools, concatenated."""
    torch.manual_seed(0)
    detector = InfoGraphIF(2, InfoGraphIFConfig(hidden_dim=4, num_layer=3))
    encoder = detector.encoder
    assert all(isinstance(norm, torch.nn.BatchNorm1d) for norm in encoder.norms)
    assert all(layer.bias is not None for conv in encoder.convs for layer in conv.nn if hasattr(layer, "bias"))
    batch = batch_of([ring(i, 4 + i) for i in range(3)])
    detector.eval()
    nodes, graphs = detector.encoder(batch.x, batch.edge_index, batch.batch)
    assert nodes.shape == (batch.num_nodes, 12) and graphs.shape == (3, 12)
    torch.testing.assert_close(graphs, global_add_pool(nodes, batch.batch))
    x = batch.x
    for layer, (conv, norm) in enumerate(zip(encoder.convs, encoder.norms)):
        aggregated = x.clone().index_add_(0, batch.edge_index[1], x[batch.edge_index[0]])
        x = torch.relu(conv.nn(aggregated))
        x = (x - norm.running_mean) / torch.sqrt(norm.running_var + norm.eps) * norm.weight + norm.bias
        torch.testing.assert_close(nodes[:, 4 * layer : 4 * (layer + 1)], x)


# ---- the objectives ---------------------------------------------------------------------------------------


def test_info_nce_matches_hand_computed_cases() -> None:
    """Cosine logits / 0.2. Views e1, e2 against themselves: [[5, 0], [0, 5]] both ways. Views e1, e2 against
    e1, e1: [[5, 5], [0, 0]] one way (each row -log 2), [[5, 0], [5, 0]] the other."""
    first = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    close = {"abs": 1e-6}  # float32: 5 - log(e^5 + 1) keeps about 1e-7 of 5
    assert info_nce(first, first).item() == pytest.approx(math.log1p(math.exp(-5)), **close)
    assert graphcl_loss(first, first).item() == pytest.approx(math.log1p(math.exp(-5)), **close)
    second = torch.tensor([[3.0, 0.0], [1.0, 0.0]])
    assert info_nce(first, second).item() == pytest.approx(math.log(2), **close)
    backward = (math.log1p(math.exp(-5)) + math.log1p(math.exp(5))) / 2
    assert info_nce(second, first).item() == pytest.approx(backward, **close)
    assert graphcl_loss(first, second).item() == pytest.approx((math.log(2) + backward) / 2, **close)
    assert info_nce(first[:1], first[:1]).item() == 0.0  # one graph: its only candidate is the positive


def softplus(v: float) -> float:
    return math.log1p(math.exp(v))


def test_local_global_jsd_matches_a_hand_computed_case() -> None:
    """Graphs (1), (2); nodes 1, 0 in graph 0 and -1 in graph 1: scores g0 (1, 0, -1), g1 (2, 0, -2).
    Positives (1, 0, -2): E_pos = log 2 - mean softplus(-s); negatives (-1, 2, 0): E_neg = mean softplus(s) - log 2."""
    loss = local_global_jsd(torch.tensor([[1.0], [2.0]]), torch.tensor([[1.0], [0.0], [-1.0]]), torch.tensor([0, 0, 1]))
    e_pos = math.log(2) - (softplus(-1) + softplus(0) + softplus(2)) / 3
    e_neg = (softplus(-1) + softplus(2) + softplus(0)) / 3 - math.log(2)
    assert loss.item() == pytest.approx(e_neg - e_pos, abs=1e-6)


def test_local_global_jsd_of_one_graph_is_nan_as_in_ubgold() -> None:
    """No negative pairs: PyGCL divides the negative sum by 0 negatives."""
    loss = local_global_jsd(torch.tensor([[1.0]]), torch.tensor([[1.0], [2.0]]), torch.tensor([0, 0]))
    assert math.isnan(loss.item())


def test_the_shims_losses_equal_the_own_to_the_bit() -> None:
    generator = torch.Generator().manual_seed(0)
    first, second = torch.randn(6, 5, generator=generator), torch.randn(6, 5, generator=generator)
    contrast = pygcl_shim.DualBranchContrast(loss=pygcl_shim.InfoNCE(tau=0.2), mode="G2G")
    assert torch.equal(contrast(g1=first, g2=second, batch=None), graphcl_loss(first, second))
    nodes, membership = torch.randn(14, 5, generator=generator), torch.tensor([0] * 5 + [1] * 4 + [2] * 5)
    single = pygcl_shim.SingleBranchContrast(loss=pygcl_shim.JSD(), mode="G2L")
    assert torch.equal(single(h=nodes, g=first[:3], batch=membership), local_global_jsd(first[:3], nodes, membership))


# ---- augmentations ----------------------------------------------------------------------------------------


def random_batch(num_graphs: int = 40, size: int = 50, width: int = 500) -> Batch:
    """Graphs of ``size`` nodes with undirected edges at density 0.1, all-ones features of ``width`` columns."""
    generator = torch.Generator().manual_seed(7)
    graphs = []
    for g in range(num_graphs):
        pairs = torch.combinations(torch.arange(size), 2)
        pairs = pairs[torch.rand(len(pairs), generator=generator) < 0.1].T
        graphs.append(
            Data(
                x=torch.ones(size, width),
                edge_index=torch.cat([pairs, pairs.flip(0)], dim=1),
                graph_id=torch.tensor([g]),
            )
        )
    return batch_of(graphs)


def with_isolated_nodes() -> Batch:
    """Two rings with isolated nodes between them (ids 6-8) and after them (17-18): the walk quirk's ground."""
    isolated = Data(x=torch.ones(3, 2), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([1]))
    tail = Data(x=torch.ones(2, 2), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([3]))
    return batch_of([ring(0, 5), isolated, ring(2, 7), tail])


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


def test_node_dropping_keeps_the_subgraph_of_nine_tenths_of_the_nodes() -> None:
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


def reference_walk_edges(edge_index: torch.Tensor, num_seeds: int, length: int) -> set[tuple[int, int]]:
    """PyGCL's random_walk_subgraph over torch_sparse 0.6.18's CPU kernel, one walk and one step at a time, drawing
    as they do: the seeds (randint over max + 1 nodes), then one (seeds, length) block of uniforms."""
    num_nodes = int(edge_index.max()) + 1
    edges = sorted(map(tuple, edge_index.T.tolist()))
    rowptr = [sum(1 for u, _ in edges if u < v) for v in range(num_nodes + 1)]
    col = [v for _, v in edges]
    start = torch.randint(0, num_nodes, (num_seeds,)).tolist()
    rand = torch.rand(num_seeds, length)
    visited = set(start)
    for n, cur in enumerate(start):
        for step in range(length):
            degree = rowptr[cur + 1] - rowptr[cur]
            cur = col[rowptr[cur] + int(float(rand[n, step]) * degree)]
            visited.add(cur)
    return {(u, v) for u, v in map(tuple, edge_index.T.tolist()) if u in visited and v in visited}


def test_random_walk_follows_torch_sparses_kernel_step_by_step() -> None:
    """Few seeds over a batch with isolated nodes: a walk at an isolated node moves to the first out-neighbour
    of the next node with out-edges; own and shim agree with the loop-by-loop reading on 100 draws."""
    batch = with_isolated_nodes()
    shim = pygcl_shim.RWSampling(num_seeds=3, walk_length=4)
    for seed in range(100):
        torch.manual_seed(seed)
        expected = reference_walk_edges(batch.edge_index, 3, 4)
        torch.manual_seed(seed)
        x, kept = random_walk_subgraph(batch.x, batch.edge_index, num_seeds=3, length=4)
        torch.manual_seed(seed)
        _, shim_kept, _ = shim(batch.x, batch.edge_index)
        assert x is batch.x and edge_set(kept) == expected and torch.equal(kept, shim_kept)


def test_a_walk_from_an_isolated_node_jumps_to_the_next_nodes_first_neighbour() -> None:
    """CSR of 0-1, 3-4 with node 2 isolated: rowptr (0, 1, 2, 2, 3, 4), col (1, 0, 4, 3). From 2 the kernel reads
    col[rowptr[2]] = 4, then alternates 3, 4."""
    rowptr, col = torch.tensor([0, 1, 2, 2, 3, 4]), torch.tensor([1, 0, 4, 3])
    walks = pygcl_shim.random_walk(rowptr, col, torch.tensor([2, 0]), 3)
    assert walks.tolist() == [[2, 4, 3, 4], [0, 1, 0, 1]]
    with pytest.raises(ValueError, match="past the end"):
        pygcl_shim.random_walk(torch.tensor([0, 1, 1]), torch.tensor([1]), torch.tensor([1]), 1)


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
    assert 2 <= arc.size(1) <= 2 * 11 and arc.size(1) % 2 == 0  # one walk: at most 11 nodes, undirected edges
    small = batch_of([ring(i, 5) for i in range(4)])  # 24 nodes, 1000 seeds: every node is visited
    assert edge_set(random_walk_subgraph(small.x, small.edge_index)[1]) == edge_set(small.edge_index)


@pytest.mark.parametrize("position", range(4))
def test_each_augmentation_equals_the_shims_to_the_bit(position: int) -> None:
    """The own functions against the PyGCL stand-in the ubgold backend runs (same draws, same outputs)."""
    batch = with_isolated_nodes()
    shim = pygcl_shim.RandomChoice(
        [
            pygcl_shim.RWSampling(num_seeds=1000, walk_length=10),
            pygcl_shim.NodeDropping(pn=0.1),
            pygcl_shim.FeatureMasking(pf=0.1),
            pygcl_shim.EdgeRemoving(pe=0.1),
        ],
        1,
    ).augmentors[position]
    big = random_batch(num_graphs=4, size=30, width=40)
    for graphs in (batch, big):
        torch.manual_seed(position)
        x, edge_index = AUGMENTATIONS[position](graphs.x, graphs.edge_index)
        after = torch.rand(3)
        torch.manual_seed(position)
        shim_x, shim_edges, _ = shim(graphs.x, graphs.edge_index)
        assert torch.equal(x, shim_x) and torch.equal(edge_index, shim_edges)
        assert torch.equal(after, torch.rand(3))  # the same number of draws


def test_batches_without_edges_fail_where_ubgold_fails() -> None:
    """PyGCL sizes node dropping and the walk by edge_index.max() + 1; feature masking and edge removing run."""
    empty = batch_of(
        [Data(x=torch.ones(3, 2), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([0]))]
    )
    for augment in (drop_nodes, random_walk_subgraph):
        with pytest.raises(ValueError, match="at least one edge"):
            augment(empty.x, empty.edge_index)
    assert remove_edges(empty.x, empty.edge_index)[1].numel() == 0
    assert mask_features(empty.x, empty.edge_index)[0].shape == (3, 2)


def test_the_view_is_the_first_entry_of_a_random_permutation(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyGCL's RandomChoice(augmentors, 1): augmentors[torch.randperm(4)[0]], whole batch, input untouched."""
    batch = batch_of([ring(10, 5), ring(12, 3, label=1)])
    before = batch.edge_index.clone()
    chosen: list[int] = []

    def recorder(k: int) -> Augmentation:
        def augment(x: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            chosen.append(k)
            return x, edge_index

        return augment

    monkeypatch.setattr(two_stage, "AUGMENTATIONS", tuple(recorder(k) for k in range(len(AUGMENTATIONS))))
    expected = []
    for seed in range(40):
        torch.manual_seed(seed)
        expected.append(int(torch.randperm(4)[0]))
        torch.manual_seed(seed)
        graphcl_view(batch)
    assert chosen == expected and set(chosen) == {0, 1, 2, 3}
    assert torch.equal(batch.edge_index, before)
    assert [f.__name__ for f in AUGMENTATIONS] == [
        "random_walk_subgraph",
        "drop_nodes",
        "mask_features",
        "remove_edges",
    ]


# ---- the outlier stage --------------------------------------------------------------------------------------


def test_outlier_model_is_refitted_on_each_training_batch_and_the_last_one_scores() -> None:
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
        scores = detector.score(test).numpy()
    test_rows = embed(detector, test).numpy()  # eval mode: BatchNorm's running statistics
    detector.train()
    rows = {name: embed(detector, b).numpy() for name, b in (("first", first), ("last", last))}  # batch statistics
    assert stored(detector)["rows"].shape == (8, detector.encoder.out_dim)
    np.testing.assert_array_equal(stored(detector)["rows"].numpy(), rows["last"])
    expected = -OneClassSVM(gamma="scale", nu=0.1).fit(rows["last"]).decision_function(test_rows)
    np.testing.assert_allclose(scores, expected, rtol=1e-6)
    both = OneClassSVM(gamma="scale", nu=0.1).fit(np.concatenate([rows["first"], rows["last"]]))
    assert not np.allclose(scores, -both.decision_function(test_rows), rtol=1e-3)


def test_the_forest_draws_from_numpys_global_rng_at_every_fit() -> None:
    """Each training batch's fit advances numpy's global RNG exactly as sklearn's unseeded fit does, and the
    forest is the one sklearn grows from that state; ``max_samples`` is int(0.5 * rows)."""
    torch.manual_seed(0)
    detector = GraphCLIF(2, GraphCLIFConfig(hidden_dim=4, num_layer=2, IF_n_trees=20))
    batch = batch_of([ring(i, 4 + i % 5) for i in range(9)])
    test = batch_of([ring(20 + i, 4 + i) for i in range(5)] + [clique(CLIQUE_ID, 6)])
    np.random.seed(11)
    detector.train()
    detector.loss(batch)
    after = np.random.get_state()[1].copy()
    rows = stored(detector)["rows"].numpy()
    np.random.seed(11)
    forest = IsolationForest(n_estimators=20, max_samples=0.5, contamination="auto").fit(rows)
    assert np.array_equal(np.random.get_state()[1], after) and forest.max_samples_ == 4
    detector.eval()
    with torch.no_grad():
        scores = detector.score(test).numpy()
    np.testing.assert_array_equal(scores, -forest.decision_function(embed(detector, test).numpy()))


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
    fitted = (2 * embed(detector, train_batch) + 1).numpy()
    detector.eval()
    with torch.no_grad():
        scores = detector.score(test).numpy()
    embeddings = embed(detector, test).numpy()
    np.testing.assert_allclose(stored(detector)["rows"].numpy(), fitted, rtol=1e-5, atol=1e-6)
    model = OneClassSVM(gamma="scale", nu=0.1).fit(fitted)
    np.testing.assert_allclose(scores, -model.decision_function(embeddings), rtol=1e-4, atol=1e-6)
    assert not np.allclose(scores, -model.decision_function(2 * embeddings + 1), rtol=1e-3)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_scores_are_deterministic_and_survive_a_state_dict_round_trip(name: str) -> None:
    torch.manual_seed(0)
    detector = BUILDERS[name]()
    test = batch_of([ring(20 + i, 4 + i % 5) for i in range(10)] + [clique(CLIQUE_ID, 6)])
    with pytest.raises(RuntimeError, match="no outlier model fitted"):
        detector.eval().score(test)
    detector.train()
    detector.loss(batch_of([ring(i, 4 + i % 6) for i in range(16)]))
    restored = BUILDERS[name]()
    restored.load_state_dict(detector.state_dict())
    np.random.seed(5)  # the refit reads the stored RNG state, not the global one
    detector.eval()
    restored.eval()
    with torch.no_grad():
        once, twice, again = detector.score(test), detector.score(test), restored.score(test)
    assert torch.equal(once, twice) and torch.equal(once, again)
    assert torch.isfinite(once).all() and once.shape == (test.num_graphs,)


def test_infograph_scores_do_not_depend_on_the_batch() -> None:
    torch.manual_seed(0)
    detector = BUILDERS["InfoGraphIF"]()
    assert detector.batch_independent_scores and not BUILDERS["GraphCLIF"]().batch_independent_scores
    detector.train()
    detector.loss(batch_of([ring(i, 4 + i % 6) for i in range(16)]))
    graphs = [ring(20 + i, 4 + i % 5) for i in range(6)] + [clique(CLIQUE_ID, 6)]
    detector.eval()
    with torch.no_grad():
        together = detector.score(batch_of(graphs))
        alone = torch.cat([detector.score(batch_of([g])) for g in graphs])
    torch.testing.assert_close(together, alone)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_isolated_nodes_and_small_batches_give_finite_values(name: str) -> None:
    """A single-node graph and isolated nodes in a batch; GraphCL-IF also on a one-graph last batch (the forest
    then fits one row, where UB-GOLD's max_samples 0.5 fails)."""
    torch.manual_seed(0)
    detector = BUILDERS[name]()
    lone = Data(
        x=torch.tensor([[1.0, 0.0]]), edge_index=torch.zeros(2, 0, dtype=torch.long), graph_id=torch.tensor([1])
    )
    isolated = Data(x=torch.eye(2)[[0, 1, 1]], edge_index=torch.tensor([[0, 1], [1, 0]]), graph_id=torch.tensor([2]))
    mixed = batch_of([lone, isolated, ring(3, 4)])
    detector.train()
    assert torch.isfinite(detector.loss(mixed)).all()
    if name == "GraphCLIF":
        assert torch.isfinite(detector.loss(batch_of([ring(4, 5)]))).all()
    with torch.no_grad():
        assert torch.isfinite(detector.eval().score(mixed)).all()


def test_records_carry_the_batch_loss_and_the_gradient_is_its_own() -> None:
    torch.manual_seed(0)
    detector = BUILDERS["InfoGraphIF"]()
    batch = batch_of([ring(i, 4 + i % 6) for i in range(5)])
    detector.train()
    losses, objective = detector.objective(batch)
    assert losses.shape == (5,) and (losses == objective.detach()).all() and objective.dim() == 0
    assert not losses.requires_grad and objective.requires_grad


# ---- training -----------------------------------------------------------------------------------------------


def small_run() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(24)],
        test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


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
    assert stored(whole.detector)["rows"].shape[0] == 8  # 24 graphs in batches of 8: the last fit saw 8


def clique_run() -> RunGraphs:
    """64 training rings in batches of 32 (the outlier model is fitted on the last 32) and a 16-clique."""
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(64)],
        test=[ring(100 + i, 4 + i % 6) for i in range(12)] + [clique(CLIQUE_ID, 16)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


@pytest.fixture(scope="module", params=["GraphCLIF", "GraphCLOCSVM", "InfoGraphIF"])
def trained(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, object]:
    run_dir = tmp_path_factory.mktemp(request.param)
    config = TrainConfig(num_epoch=10, eval_freq=2, batch_size=32, batch_size_test=64, lr=1e-2, seed=3407, device="cpu")
    result = train(BUILDERS[request.param], clique_run(), config, run_dir)
    return request.param, run_dir, result.detector


def last_scores(run_dir: Path) -> dict[int, float]:
    record = read_records(run_dir / RECORDS)[-1]
    scores = np.load(run_dir / record["test_scores"])
    assert np.isfinite(scores["score"]).all()
    return dict(zip(scores["item_id"].tolist(), scores["score"].tolist()))


def test_the_trained_encoder_separates_the_clique(trained: tuple[str, Path, object]) -> None:
    """The detectors' own scores are not asked to rank the clique: the outlier model is fitted on training-mode
    (batch-statistics) embeddings of the last batch and scores eval-mode (running-statistics) ones, and InfoGraph
    fits projected rows but scores unprojected ones (U19), so on toy data the clique's rank follows the seed (with
    GraphCL-OCSVM it was above the median normal in 2 of seeds 3400-3409). The run's scores must be finite, and
    the trained encoder must separate the clique: a forest on its eval-mode training embeddings puts it above the
    median normal test graph (it did so at every one of those seeds, for all three detectors)."""
    _name, run_dir, detector = trained
    last_scores(run_dir)
    graphs = clique_run()
    detector.eval()
    train_rows = embed(detector, batch_of(list(graphs.train))).numpy()
    test_rows = embed(detector, batch_of(list(graphs.test))).numpy()
    forest = IsolationForest(n_estimators=200, max_samples=0.5, random_state=0).fit(train_rows)
    separated = -forest.decision_function(test_rows)
    assert separated[-1] > np.median(separated[:-1])


# ---- parity with UB-GOLD's own modules (backend ubgold; needs the data mirror) ---------------------------------

PAIRS = {
    "GraphCLIF": (GraphCLIF, ubgold.GraphCLIF, GraphCLIFConfig(hidden_dim=8, num_layer=3, IF_n_trees=TREES)),
    "GraphCLOCSVM": (GraphCLOCSVM, ubgold.GraphCLOCSVM, GraphCLOCSVMConfig(hidden_dim=8, num_layer=3)),
    "InfoGraphIF": (InfoGraphIF, ubgold.InfoGraphIF, InfoGraphIFConfig(hidden_dim=8, num_layer=3, IF_n_trees=TREES)),
    "InfoGraphOCSVM": (InfoGraphOCSVM, ubgold.InfoGraphOCSVM, InfoGraphOCSVMConfig(hidden_dim=8)),
}


def parameters(detector: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in detector.parameters()]


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_same_seed_gives_ubgolds_initial_weights(active: Path, name: str) -> None:
    own_class, ubgold_class, config = PAIRS[name]
    torch.manual_seed(11)
    own = own_class(2, config)
    after_own = torch.randn(4)
    torch.manual_seed(11)
    theirs = ubgold_class(2, config)
    assert torch.equal(after_own, torch.randn(4))  # both consumed the same draws
    mine, other = parameters(own), parameters(theirs)
    assert len(mine) == len(other) > 0
    assert [p.shape for p in mine] == [p.shape for p in other]
    for a, b in zip(mine, other):
        assert torch.equal(a, b)


def parity_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(20)],
        test=[ring(100 + i, 5 + i % 4) for i in range(7)] + [clique(CLIQUE_ID, 6)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_own_and_ubgold_train_alike_for_three_epochs(active: Path, tmp_path: Path, name: str) -> None:
    """Coupled test RNG, so GraphCL's scoring draws shape the run as in UB-GOLD; the forests grow from numpy's
    global RNG in both (the trainer seeds it)."""
    own_class, ubgold_class, config = PAIRS[name]
    settings = TrainConfig(
        num_epoch=3, eval_freq=1, batch_size=6, batch_size_test=4, lr=1e-2, seed=3407, device="cpu", test_rng="coupled"
    )
    train(lambda: own_class(2, config), parity_graphs(), settings, tmp_path / "own")
    train(lambda: ubgold_class(2, config), parity_graphs(), settings, tmp_path / "ubgold")
    assert_bitwise_parity(tmp_path / "own", tmp_path / "ubgold")


def test_the_adapters_build_ubgolds_models_without_side_effects(active: Path) -> None:
    """UB-GOLD's detector class makes the sklearn model and the modules; its save-path folders are not created
    and its import-time silencing of warnings.warn is undone."""
    warn = warnings.warn
    folders = sorted(p.name for p in (active / "GAOOD" / "model_save").iterdir())
    graphcl = ubgold.GraphCLIF(2, GraphCLIFConfig(hidden_dim=4, num_layer=2, IF_n_trees=7, IF_sample_ratio=0.25))
    infograph = ubgold.InfoGraphOCSVM(2, InfoGraphOCSVMConfig(hidden_dim=4, gamma=0.5, nuOCSVM=0.2))
    assert warnings.warn is warn
    assert sorted(p.name for p in (active / "GAOOD" / "model_save").iterdir()) == folders
    assert isinstance(graphcl.outlier, IsolationForest)
    assert (graphcl.outlier.n_estimators, graphcl.outlier.max_samples, graphcl.outlier.random_state) == (7, 0.25, None)
    assert isinstance(infograph.outlier, OneClassSVM)
    assert (infograph.outlier.gamma, infograph.outlier.nu) == (0.5, 0.2)
    assert type(graphcl.contrast_model) is pygcl_shim.DualBranchContrast
    with pytest.raises(ValueError, match="num_layer 2"):
        ubgold.InfoGraphOCSVM(2, InfoGraphOCSVMConfig(num_layer=3))

"""GLADC as UB-GOLD runs it: the loss, its gradient and the score against a graph-by-graph reference, the noisy
encoder, UB-GOLD's options and training settings, the own backend against UB-GOLD's modules (same initial
weights, three epochs to the bit), and the memory guard from the estimate to a counted failed run."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F
from nn_toys import (
    CLIQUE_ID,
    assert_bitwise_parity,
    assert_finite_and_clique_stands_out,
    assert_same_runs,
    clique,
    ring,
)
from torch_geometric.data import Batch, Data

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.glad import deep_tasks
from graphaudit.glad.catalogue import load_catalogue
from graphaudit.glad.deep import detector_builder, run_settings
from graphaudit.glad.leaderboard import build_analysis, fold_means
from graphaudit.glad.replay import SETTING_PROTOCOLS
from graphaudit.nn import GLADC, OCGIN, GLADCConfig, OCGINConfig, RunGraphs, TrainConfig, train
from graphaudit.nn.gladc import DENSE_FOOTPRINT, dense_step_bytes, info_nce, perturbed_weights, reconstruction_costs
from graphaudit.nn.trainer import CHECKPOINT, RECORDS, MemoryBudgetError
from graphaudit.nn.ubgold.gladc import GLADC as UBGLADC
from train_toys import ring_train_context

ROOT = Path(__file__).parents[2]
CATALOGUE = load_catalogue(ROOT / "config/glad/detectors.yaml")
SMALL = GLADCConfig(hidden_dim=8, output_dim=16, dropout=0.2, max_nodes_num=12)
TRAINING = {"shuffle_train": False, "test_rng": "isolated"}  # the catalogue's `fixed` for GLADC


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
        "batch_size_test": 1,
        "lr": 1e-2,
        "seed": 3407,
        "device": "cpu",
        **TRAINING,
    }
    return TrainConfig(**{**base, **changes})


# ---- a graph-by-graph reference in float64 -----------------------------------------------------------------


def padded(graph: Data, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    adj = torch.zeros(size, size, dtype=torch.float64)
    adj[graph.edge_index[0], graph.edge_index[1]] = 1.0
    x = torch.zeros(size, graph.x.shape[1], dtype=torch.float64)
    x[: graph.num_nodes] = graph.x.double()
    return x, adj


def encode(x: torch.Tensor, adj: torch.Tensor, w: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """One graph: Z = A LeakyReLU_0.5(A X W1^T) W2^T, g = proj(max over rows of Z)."""
    h = F.leaky_relu(adj @ x @ w["conv1"].T, 0.5)
    z = adj @ h @ w["conv2"].T
    pooled = z.max(dim=0).values
    return z, w["proj2"] @ torch.relu(w["proj0"] @ pooled + w["proj0_b"]) + w["proj2_b"]


def leaves(model: GLADC) -> dict[str, torch.Tensor]:
    """The model's weights as float64 leaves that require gradients, by short name."""
    e, d = model.encoder, model.attribute_decoder
    named = {
        "conv1": e.conv1.weight,
        "conv2": e.conv2.weight,
        "proj0": e.projection[0].weight,
        "proj0_b": e.projection[0].bias,
        "proj2": e.projection[2].weight,
        "proj2_b": e.projection[2].bias,
        "dec1": d.conv1.weight,
        "dec2": d.conv2.weight,
    }
    return {k: v.detach().double().requires_grad_() for k, v in named.items()}


def reference(
    model: GLADC, graphs: list[Data], size: int, noise: tuple[torch.Tensor, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """(training loss, scores, weights) written out graph by graph and column by column; the noisy encoder
    adds the given noise to the two convolutions and holds its weights constant."""
    w = leaves(model)
    noisy = {
        **{k: v.detach() for k, v in w.items()},
        "conv1": (model.encoder.conv1.weight.detach() + noise[0]).double(),
        "conv2": (model.encoder.conv2.weight.detach() + noise[1]).double(),
    }
    structure, attribute, node, graph, clean, shaken = [], [], [], [], [], []
    for g in graphs:
        x, adj = padded(g, size)
        z, emb = encode(x, adj, w)
        clean.append(emb)
        shaken.append(encode(x, adj, noisy)[1])
        x_rebuilt = adj @ F.leaky_relu(adj @ z @ w["dec1"].T, 0.5) @ w["dec2"].T
        adj_rebuilt = torch.sigmoid(z @ z.T)
        z2, emb2 = encode(x_rebuilt, adj_rebuilt, w)
        target = adj + torch.eye(size, dtype=torch.float64)
        structure += [torch.sqrt(((adj_rebuilt[:, j] - target[:, j]) ** 2).sum()) for j in range(size)]
        attribute += [torch.sqrt(((x_rebuilt[:, f] - x[:, f]) ** 2).sum()) for f in range(x.shape[1])]
        node.append(((z - z2) ** 2).mean())
        graph.append(((emb - emb2) ** 2).mean())
    contrast = []
    for i in range(len(graphs)):
        cosines = torch.stack([F.cosine_similarity(shaken[i], clean[j], dim=0, eps=0.0) for j in range(len(graphs))])
        others = sum(torch.exp(cosines[j] / 0.2) for j in range(len(graphs)) if j != i)
        contrast.append(-torch.log(torch.exp(cosines[i] / 0.2) / others))
    mean = lambda values: torch.stack(values).mean()  # noqa: E731
    loss = mean(structure) + mean(attribute) + mean(node) + mean(graph) + mean(contrast)
    scores = torch.stack(node).mean() + torch.stack(graph)
    return loss, scores.detach(), w


TINY = GLADCConfig(hidden_dim=3, output_dim=4, dropout=0.0, max_nodes_num=7)


def tiny_graphs() -> list[Data]:
    return [ring(0, 3), clique(1, 3), ring(2, 5, label=1)]


def test_loss_gradient_and_score_match_the_graph_by_graph_reference() -> None:
    torch.manual_seed(0)
    model = GLADC(2, TINY)
    graphs = tiny_graphs()
    torch.manual_seed(5)
    loss = model.batch_loss(Batch.from_data_list(graphs))
    loss.backward()
    torch.manual_seed(5)  # the same noise: N(0, std(W)^2) for conv1, then conv2 (dropout 0 draws nothing)
    noise = tuple(
        torch.normal(0, torch.ones_like(w) * w.detach().std())
        for w in (model.encoder.conv1.weight, model.encoder.conv2.weight)
    )
    expected, scores, w = reference(model, graphs, 7, noise)
    assert float(loss.detach()) == pytest.approx(float(expected.detach()), rel=1e-5)
    grads = torch.autograd.grad(expected, list(w.values()))
    for parameter, grad in zip(model.parameters(), grads):
        torch.testing.assert_close(parameter.grad.double(), grad, rtol=1e-4, atol=1e-6)
    model.eval()
    with torch.no_grad():
        torch.testing.assert_close(model.score(Batch.from_data_list(graphs)).double(), scores, rtol=1e-5, atol=1e-7)


def test_info_nce_hand_computed() -> None:
    """Orthonormal pairs: cosine 1 with the positive and 0 with the other, so each term is
    -log(e^{1/0.2} / e^0) = -5; swapping the positives gives +5."""
    eye = torch.eye(2)
    assert float(info_nce(eye, eye)) == pytest.approx(-5.0)
    assert float(info_nce(eye, eye.flip(0))) == pytest.approx(5.0)


def test_reconstruction_costs_sum_over_node_rows() -> None:
    """One graph of 2 nodes, 2 features: errors summed over the rows (dimension 1), rooted, then averaged."""
    x, x_rebuilt = torch.zeros(1, 2, 2), torch.tensor([[[3.0, 0.0], [4.0, 1.0]]])
    target, rebuilt = torch.eye(2)[None], torch.eye(2)[None] + torch.tensor([[[0.0, 2.0], [0.0, 0.0]]])
    structure, attribute = reconstruction_costs(target, rebuilt, x, x_rebuilt)
    assert float(attribute) == pytest.approx((5.0 + 1.0) / 2)  # columns (3, 4) and (0, 1)
    assert float(structure) == pytest.approx((0.0 + 2.0) / 2)


def test_noisy_encoder_perturbs_the_convolutions_by_their_own_spread_only() -> None:
    torch.manual_seed(0)
    encoder = GLADC(64, GLADCConfig(hidden_dim=64, output_dim=32)).encoder
    weights = perturbed_weights(encoder)
    parameters = dict(encoder.named_parameters())
    assert list(weights) == list(parameters) and not any(w.requires_grad for w in weights.values())
    for name, value in weights.items():
        if name.startswith("projection"):
            assert torch.equal(value, parameters[name])
        else:
            spread = float((value - parameters[name].detach()).std() / parameters[name].detach().std())
            assert spread == pytest.approx(1.0, abs=0.05)  # 2048 or more draws of N(0, std(W)^2)
    assert not torch.equal(perturbed_weights(encoder)["conv1.weight"], weights["conv1.weight"])  # fresh per step


def test_default_config_is_ubgold_and_refuses_ignored_options() -> None:
    assert GLADCConfig() == GLADCConfig(
        hidden_dim=16, output_dim=128, dropout=0.3, bn=True, bias=True, max_nodes_num=None
    )
    model = GLADC(10)
    shapes = [tuple(p.shape) for p in model.parameters()]
    assert shapes == [(16, 10), (128, 16), (128, 128), (128,), (128, 128), (128,), (16, 128), (10, 16)]
    for bad, match in (
        ({"bn": False}, "bn"),
        ({"bias": False}, "bias"),
        ({"dropout": 1.0}, "dropout"),
        ({"hidden_dim": 0}, "hidden_dim"),
        ({"max_nodes_num": 0}, "max_nodes_num"),
    ):
        with pytest.raises(ValueError, match=match):
            GLADCConfig(**bad)
    with pytest.raises(TypeError):
        GLADCConfig(num_layer=2)  # UB-GOLD's num_gc_layers is never read: two convolutions


def test_scores_depend_on_the_batch_and_on_the_padding() -> None:
    """The node term is averaged over the scoring batch (UB-GOLD scores one graph at a time), and padded
    positions take part (the rebuilt adjacency is 1/2 there)."""
    torch.manual_seed(0)
    model = GLADC(2, SMALL).eval()
    graphs = toy_graphs().test
    with torch.no_grad():
        together = model.score(Batch.from_data_list(graphs))
        alone = torch.cat([model.score(Batch.from_data_list([g])) for g in graphs])
        wider = GLADC(2, GLADCConfig(hidden_dim=8, output_dim=16, max_nodes_num=20))
        wider.load_state_dict(model.state_dict())
        padded_more = wider.eval().score(Batch.from_data_list(graphs[:1]))
    assert torch.isfinite(together).all() and not torch.allclose(together, alone)
    assert not torch.allclose(padded_more, alone[:1])
    assert GLADC.batch_independent_scores is False


# ---- training --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("gladc")
    train(lambda: GLADC(2, SMALL), toy_graphs(), settings(num_epoch=12, eval_freq=3, batch_size=8), run_dir)
    return run_dir


def test_training_loss_falls_and_the_clique_stands_out(trained: Path) -> None:
    records = read_records(trained / RECORDS)
    losses = [r["train_loss"] for r in records]
    assert [r["epoch"] for r in records] == [3, 6, 9, 12] and losses[-1] < losses[0]
    assert_finite_and_clique_stands_out(trained)


def test_graphs_carry_their_batch_loss() -> None:
    torch.manual_seed(0)
    model = GLADC(2, SMALL)
    batch = Batch.from_data_list(toy_graphs().train[:5])
    torch.manual_seed(1)
    losses, objective = model.objective(batch)
    torch.manual_seed(1)
    assert torch.equal(losses, model.batch_loss(batch).detach().expand(5)) and objective.dim() == 0


def test_resume_is_bit_identical(tmp_path: Path) -> None:
    config = settings(num_epoch=4, eval_freq=2)
    train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "whole")
    train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "split", stop_after_epoch=1)
    train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "split")
    assert_same_runs(tmp_path / "whole", tmp_path / "split")


def test_catalogue_entry_is_ubgold_script_lines_with_fixed_batches() -> None:
    tuned = run_settings(CATALOGUE, "GLADC", "BZR", "tuned")
    assert tuned.train == {
        "num_epoch": 100,
        "eval_freq": 4,
        "batch_size": 300,
        "batch_size_test": 1,
        "lr": 1e-3,
        **TRAINING,
    }
    assert tuned.options == {"hidden_dim": 256, "output_dim": 128, "dropout": 0.3, "bn": True, "bias": True}
    default = run_settings(CATALOGUE, "GLADC", "Tox21_p53", "default")
    assert default.train == {
        "num_epoch": 400,
        "eval_freq": 4,
        "batch_size": 2000,
        "batch_size_test": 1,
        "lr": 1e-4,
        **TRAINING,
    }
    assert default.options == {"hidden_dim": 16, "output_dim": 128, "dropout": 0.3, "bn": True, "bias": True}
    modal = run_settings(CATALOGUE, "GLADC", "MUTAG", "tuned")
    assert modal.source == "modal (no script line)"
    assert (modal.options["hidden_dim"], modal.options["dropout"], modal.train["lr"]) == (256, 0.1, 1e-4)
    model = detector_builder(CATALOGUE, tuned, 3, facts={"max_nodes_num": 28})()
    assert isinstance(model, GLADC) and model.config.max_nodes_num == 28


# ---- the ubgold backend ------------------------------------------------------------------------------------


def test_same_seed_gives_the_same_initial_weights_and_draws(active: Path) -> None:
    torch.manual_seed(11)
    own = GLADC(2, SMALL)
    after_own = torch.randn(4)
    torch.manual_seed(11)
    theirs = UBGLADC(2, SMALL)
    after_theirs = torch.randn(4)
    mine, other = list(own.parameters()), list(theirs.NetGe.parameters())
    assert len(mine) == len(other) == 8 and all(torch.equal(a, b) for a, b in zip(mine, other))
    assert torch.equal(after_own, after_theirs)  # UB-GOLD's noise_NetG drew its weights in both
    assert not any(p.requires_grad for p in theirs.noise_NetG.parameters())


@pytest.mark.parametrize("batch_size_test", [1, 4])
def test_own_and_ubgold_train_alike_for_three_epochs(active: Path, tmp_path: Path, batch_size_test: int) -> None:
    config = settings(batch_size_test=batch_size_test)
    train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "own")
    train(lambda: UBGLADC(2, SMALL), toy_graphs(), config, tmp_path / "ubgold")
    assert_bitwise_parity(tmp_path / "own", tmp_path / "ubgold")
    optimizer = torch.load(tmp_path / "ubgold" / CHECKPOINT, weights_only=True)["optimisation"]["optimizer"]
    assert len(optimizer["state"]) == 8  # Adam moved NetGe only, as UB-GOLD's optimizerG


# ---- memory ------------------------------------------------------------------------------------------------


def test_dense_step_bytes_hand_computed() -> None:
    """2 graphs padded to 10 nodes, widths 3 + 4 + 5 = 12: training 6 squares and 10 per width, scoring 3 and 2."""
    assert DENSE_FOOTPRINT == {True: (6, 10), False: (3, 2)}
    assert dense_step_bytes(2, 10, 3, 4, 5, training=True) == 4 * 2 * 10 * (6 * 10 + 10 * 12)
    assert dense_step_bytes(2, 10, 3, 4, 5, training=False) == 4 * 2 * 10 * (3 * 10 + 2 * 12)


def profiled_peak(step: Callable[[], None]) -> int:
    """Peak bytes of live tensors during ``step`` by torch's memory profiler (skips if this torch lacks it)."""
    memory = pytest.importorskip("torch.profiler._memory_profiler", reason="torch's memory profiler is private")
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True) as prof:
        step()
    live = peak = 0
    for _, action, _, size in sorted(
        memory.MemoryProfile(prof.profiler.kineto_results).timeline, key=lambda event: event[0]
    ):
        live += size if action == memory.Action.CREATE else -size if action == memory.Action.DESTROY else 0
        peak = max(peak, live)
    return peak


@pytest.mark.parametrize(("nodes", "hidden", "training"), [(160, 8, True), (160, 8, False), (40, 64, True)])
def test_memory_estimate_bounds_the_profiled_peak(nodes: int, hidden: int, training: bool) -> None:
    torch.manual_seed(0)
    model = GLADC(3, GLADCConfig(hidden_dim=hidden, output_dim=16, dropout=0.3, max_nodes_num=nodes))
    model.train(training)
    batch = Batch.from_data_list([ring(0, nodes - 1), clique(1, 12)])
    batch.x = torch.ones(batch.num_nodes, 3)

    def step() -> None:
        if training:
            model.batch_loss(batch).backward()
        else:
            with torch.no_grad():
                model.score(batch)

    measured = profiled_peak(step)
    estimate = dense_step_bytes(2, nodes, 3, hidden, 16, training)
    assert measured <= estimate <= 1.5 * measured


def test_peak_memory_takes_the_larger_of_training_and_scoring() -> None:
    graphs = toy_graphs()  # 20 training graphs (batch 6 stays 6), 8 test graphs (batch 64 becomes 8)
    model = GLADC(2, SMALL)
    assert model.peak_memory_bytes(graphs, settings(batch_size=6, batch_size_test=64)) == max(
        dense_step_bytes(6, 12, 2, 8, 16, True), dense_step_bytes(8, 12, 2, 8, 16, False)
    )
    unpadded = GLADC(2, GLADCConfig(hidden_dim=8, output_dim=16))  # pads to the run's largest graph: 10 nodes
    assert unpadded.peak_memory_bytes(graphs, settings()) == dense_step_bytes(6, 10, 2, 8, 16, True)


def test_a_run_over_the_budget_stops_before_training(tmp_path: Path) -> None:
    config = settings()
    needed = GLADC(2, SMALL).peak_memory_bytes(toy_graphs(), config)
    with pytest.raises(MemoryBudgetError, match=r"GLADC needs about .* over the memory budget"):
        train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "over", memory_budget_bytes=needed - 1)
    assert not (tmp_path / "over").exists()
    assert train(lambda: GLADC(2, SMALL), toy_graphs(), config, tmp_path / "fits", memory_budget_bytes=needed).completed
    ocgin = OCGINConfig(hidden_dim=4, num_layer=2)  # no estimate: the budget does not apply
    assert train(lambda: OCGIN(2, ocgin), toy_graphs(), config, tmp_path / "ocgin", memory_budget_bytes=1).completed


def toy_dataset(tmp_path: Path) -> tuple[RuleContext, Path]:
    """A GraphSet of 30 rings (10 anomalous by label), its one fold, and a train_run context for GLADC."""
    return ring_train_context(tmp_path, "GLADC", 4, memory_budget_gb=1e-6), tmp_path


def test_a_run_over_the_budget_is_recorded_as_failed_and_counted(tmp_path: Path) -> None:
    ctx, root = toy_dataset(tmp_path)
    runs = {}
    for setting, budget in (("tuned", 1e-6), ("default", None)):  # 1 KiB: the tuned run cannot fit
        run = root / setting / "run.json"
        deep_tasks.train_run(
            RuleContext(
                input=ctx.input,
                output={"run": str(run)},
                params={**ctx.params, "training": {**ctx.params["training"], "memory_budget_gb": budget}},
                wildcards={**ctx.wildcards, "setting": setting},
            )
        )
        runs[setting] = json.loads(run.read_text(encoding="utf-8"))
    failed, completed = runs["tuned"], runs["default"]
    assert (failed["status"], failed["completed"], failed["evaluations"]) == ("failed", False, 0)
    assert "over the memory budget" in failed["reason"] and not (root / "tuned" / RECORDS).exists()
    assert (completed["status"], completed["reason"], completed["evaluations"]) == ("completed", None, 1)
    replay = RuleContext(
        input={**ctx.input, "runs": [str(root / s / "run.json") for s in ("tuned", "default")]},
        output={name: str(root / f"{name}.csv") for name in ("protocols", "curves", "null", "size_matched")},
        params={"permutations": 5, "caliper": 0.25},
        wildcards={"detector": "GLADC", "dataset": "TOY"},
    )
    deep_tasks.replay_detector(replay)
    protocols = pd.read_csv(root / "protocols.csv")
    nan_rows = protocols[protocols["flags"] == "failed"]
    assert sorted(nan_rows["protocol"]) == sorted(SETTING_PROTOCOLS["tuned"])
    assert nan_rows["auroc"].isna().all() and (nan_rows["reason"] == failed["reason"]).all()
    assert protocols[protocols["protocol"] == "hp_free"]["auroc"].notna().all()
    means = fold_means(protocols).set_index("protocol")
    assert means.loc["last", "n_nonfinite"] == 1 and means.loc["hp_free", "n_nonfinite"] == 0
    assert math.isnan(means.loc["oracle_ub", "auroc"])


def test_a_detector_whose_every_run_on_a_dataset_failed_is_counted_but_not_analysed() -> None:
    """GLADC on REDDIT-B over the budget on every fold: the leaderboard keeps its NaN cell with its count,
    and the analysis leaves the detector out (spec 4.6: only complete detectors count) instead of failing."""
    rows = [
        {
            "detector": detector,
            "dataset": dataset,
            "fold": fold,
            "protocol": protocol,
            "auroc": np.nan if (detector, dataset) == ("GLADC", "DHFR") else 50.0 + fold + len(detector),
            "auprc": 50.0,
            "fpr95": 0.5,
        }
        for detector in ("GLADC", "OCGIN", "OCGTL")
        for dataset in ("BZR", "DHFR")
        for fold in range(3)
        for protocols in SETTING_PROTOCOLS.values()
        for protocol in protocols
    ]
    protocols = pd.DataFrame(rows)
    means = fold_means(protocols).set_index(["detector", "dataset", "protocol"])
    assert means.loc[("GLADC", "DHFR", "last"), "n_nonfinite"] == 3
    assert build_analysis(protocols, 200, 0).detectors == ["OCGIN", "OCGTL"]

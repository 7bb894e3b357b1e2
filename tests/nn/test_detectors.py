"""OCGIN and OCGTL on a toy set: losses fall, scores are finite, an obvious anomaly scores high."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import CLIQUE_ID, assert_finite_and_clique_stands_out, clique, ring
from torch_geometric.data import Batch

from graphaudit.common.records import read_records
from graphaudit.nn import OCGIN, OCGTL, OCGINConfig, OCGTLConfig, RunGraphs, TrainConfig, train
from graphaudit.nn.trainer import RECORDS


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(i, 4 + i % 6) for i in range(24)],
        test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
        holdout=[ring(200 + i, 6) for i in range(3)],
    )


SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=1e-2, seed=3407, device="cpu")
BUILDERS = {
    "OCGIN": lambda: OCGIN(2, OCGINConfig(hidden_dim=8, num_layer=2)),
    "OCGTL": lambda: OCGTL(2, OCGTLConfig(hidden_dim=8, num_layer=2, num_trans=4)),
}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def trained(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    run_dir = tmp_path_factory.mktemp(request.param)
    train(BUILDERS[request.param], toy_graphs(), SETTINGS, run_dir)
    return request.param, run_dir


def test_training_loss_decreases(trained: tuple[str, Path]) -> None:
    _, run_dir = trained
    losses = [r["train_loss"] for r in read_records(run_dir / RECORDS)]
    assert len(losses) == SETTINGS.num_epoch
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_scores_are_finite_and_the_clique_stands_out(trained: tuple[str, Path]) -> None:
    assert_finite_and_clique_stands_out(trained[1])


def test_default_configs_are_ubgold_defaults() -> None:
    assert OCGINConfig() == OCGINConfig(hidden_dim=16, num_layer=5, norm_layer="gn", aggregation="add", bias=False)
    assert OCGTLConfig().num_trans == 6 and OCGTLConfig().bias is False and OCGTLConfig().norm_layer == "gn"
    defaults = TrainConfig()
    assert (defaults.num_epoch, defaults.eval_freq, defaults.lr) == (400, 4, 1e-4)
    assert (defaults.batch_size, defaults.batch_size_test) == (128, 9999)


def test_ocgin_center_stays_at_the_origin_by_default() -> None:
    """UB-GOLD never calls init_center: the centre is zero, and setup leaves it there."""
    torch.manual_seed(0)
    model = OCGIN(2, OCGINConfig(hidden_dim=4, num_layer=2))
    batch = Batch.from_data_list(list(toy_graphs().train))
    with torch.no_grad():
        model.setup([batch])
        embedding = model.net(batch)
        loss = model.loss(batch)
    assert torch.equal(model.center, torch.zeros(1, 8))
    torch.testing.assert_close(loss, (embedding**2).sum(dim=1))


def test_ocgin_initial_mean_center_is_pushed_off_zero() -> None:
    torch.manual_seed(0)
    model = OCGIN(2, OCGINConfig(hidden_dim=4, num_layer=2, center="initial_mean"))
    batch = Batch.from_data_list(list(toy_graphs().train))
    with torch.no_grad():
        model.setup([batch])
        mean = model.net(batch).mean(dim=0, keepdim=True)
    far = mean.abs() >= model.config.center_eps
    torch.testing.assert_close(model.center[far], mean[far])
    assert (model.center.abs() >= model.config.center_eps - 1e-7).all()
    assert "center" in model.state_dict()


class _Constant(torch.nn.Module):
    """Stands in for an extractor: the same embedding for every graph of a batch."""

    def __init__(self, values: list[float]) -> None:
        super().__init__()
        self.values = torch.tensor([values])

    def forward(self, batch: Batch) -> torch.Tensor:
        return self.values.expand(batch.num_graphs, -1)


def test_ocgtl_loss_hand_computed() -> None:
    """Views z0 = (1, 0) + c, z1 = (0, 2), z2 = (3, 4), centre c = (0, 1):
    loss = sum_k ||z_k - c|| + log sum_{l != k} exp(cos(z_k, z_l)) - cos(z_k, z_0), k = 1, 2."""
    model = OCGTL(2, OCGTLConfig(hidden_dim=1, num_layer=2, num_trans=3))
    model.gins = torch.nn.ModuleList([_Constant([1.0, 0.0]), _Constant([0.0, 2.0]), _Constant([3.0, 4.0])])
    with torch.no_grad():
        model.center.copy_(torch.tensor([[[0.0, 1.0]]]))
        loss = model.loss(Batch.from_data_list([ring(0, 4)]))
    z0, z1, z2 = np.array([1.0, 1.0]), np.array([0.0, 2.0]), np.array([3.0, 4.0])
    c = np.array([0.0, 1.0])

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    expected = (
        np.linalg.norm(z1 - c)
        + np.log(np.exp(cos(z1, z0)) + np.exp(cos(z1, z2)))
        - cos(z1, z0)
        + np.linalg.norm(z2 - c)
        + np.log(np.exp(cos(z2, z0)) + np.exp(cos(z2, z1)))
        - cos(z2, z0)
    )
    np.testing.assert_allclose(loss.numpy(), [expected], rtol=1e-6)


def test_ocgtl_loss_is_per_graph_and_batch_independent() -> None:
    torch.manual_seed(0)
    model = OCGTL(2, OCGTLConfig(hidden_dim=4, num_layer=2, num_trans=3)).eval()
    graphs = toy_graphs().test
    with torch.no_grad():
        together = model.score(Batch.from_data_list(graphs))
        alone = torch.cat([model.score(Batch.from_data_list([g])) for g in graphs])
    assert together.shape == (len(graphs),)
    torch.testing.assert_close(together, alone, rtol=1e-5, atol=1e-6)
    assert (together > 0).all()  # distances plus minus the log of a share below 1


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="norm_layer"):
        OCGIN(2, OCGINConfig(norm_layer="bn"))
    with pytest.raises(ValueError, match="num_trans"):
        OCGTL(2, OCGTLConfig(num_trans=1))
    with pytest.raises(ValueError, match="center"):
        OCGIN(2, OCGINConfig(center="mean"))

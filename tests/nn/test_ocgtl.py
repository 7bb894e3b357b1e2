"""OCGTL on a toy set: the loss falls, scores are finite, an obvious anomaly scores high; the loss by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import assert_finite_and_clique_stands_out, ring, ring_runs
from torch_geometric.data import Batch

from graphaudit.common.records import read_records
from graphaudit.nn import OCGTL, OCGTLConfig, TrainConfig, train
from graphaudit.nn.trainer import RECORDS

SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=1e-2, seed=3407, device="cpu")


def toy_graphs():
    return ring_runs(n_train=24, n_test=8, clique_size=8)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("OCGTL")
    train(lambda: OCGTL(2, OCGTLConfig(hidden_dim=8, num_layer=2, num_trans=4)), toy_graphs(), SETTINGS, run_dir)
    return run_dir


def test_training_loss_decreases(trained: Path) -> None:
    losses = [r["train_loss"] for r in read_records(trained / RECORDS)]
    assert len(losses) == SETTINGS.num_epoch
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_scores_are_finite_and_the_clique_stands_out(trained: Path) -> None:
    assert_finite_and_clique_stands_out(trained)


def test_default_config_is_ubgolds() -> None:
    assert OCGTLConfig().num_trans == 6 and OCGTLConfig().bias is False and OCGTLConfig().norm_layer == "gn"


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
    with pytest.raises(ValueError, match="num_trans"):
        OCGTL(2, OCGTLConfig(num_trans=1))

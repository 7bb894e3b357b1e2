"""OCGIN on a toy set: the loss falls, scores are finite, an obvious anomaly scores high; the centre options."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from nn_toys import assert_finite_and_clique_stands_out, ring_runs
from torch_geometric.data import Batch

from graphaudit.common.records import read_records
from graphaudit.nn import OCGIN, OCGINConfig, TrainConfig, train
from graphaudit.nn.trainer import RECORDS

SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=1e-2, seed=3407, device="cpu")


def toy_graphs():
    return ring_runs(n_train=24, n_test=8, clique_size=8)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("OCGIN")
    train(lambda: OCGIN(2, OCGINConfig(hidden_dim=8, num_layer=2)), toy_graphs(), SETTINGS, run_dir)
    return run_dir


def test_training_loss_decreases(trained: Path) -> None:
    losses = [r["train_loss"] for r in read_records(trained / RECORDS)]
    assert len(losses) == SETTINGS.num_epoch
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_scores_are_finite_and_the_clique_stands_out(trained: Path) -> None:
    assert_finite_and_clique_stands_out(trained)


def test_default_configs_are_ubgold_defaults() -> None:
    assert OCGINConfig() == OCGINConfig(hidden_dim=16, num_layer=5, norm_layer="gn", aggregation="add", bias=False)
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


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="norm_layer"):
        OCGIN(2, OCGINConfig(norm_layer="bn"))
    with pytest.raises(ValueError, match="center"):
        OCGIN(2, OCGINConfig(center="mean"))

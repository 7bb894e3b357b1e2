"""OCGIN and OCGTL on a toy set: losses fall, scores are finite, an obvious anomaly scores high."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch

from graphaudit.common.records import read_records
from graphaudit.nn import OCGIN, OCGTL, OCGINConfig, OCGTLConfig, RunGraphs, TrainConfig, train
from graphaudit.nn.trainer import RECORDS
from nn_toys import CLIQUE_ID, assert_finite_and_clique_stands_out, clique, ring

def toy_graphs() -> RunGraphs:
    return RunGraphs(train=[ring(i, 4 + i % 6) for i in range(24)],
                     test=[ring(100 + i, 5 + i % 4) for i in range(8)] + [clique(CLIQUE_ID, 8)],
                     holdout=[ring(200 + i, 6) for i in range(3)])


SETTINGS = TrainConfig(num_epoch=30, eval_freq=1, batch_size=8, batch_size_test=64, lr=1e-2, seed=3407,
                       device="cpu")
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


def test_ocgin_center_is_the_initial_mean_embedding_pushed_off_zero() -> None:
    torch.manual_seed(0)
    model = OCGIN(2, OCGINConfig(hidden_dim=4, num_layer=2))
    graphs = toy_graphs().train
    batch = Batch.from_data_list(list(graphs))
    with torch.no_grad():
        model.setup([batch])
        mean = model.encoder(batch).mean(dim=0)
    far = mean.abs() >= model.config.center_eps
    torch.testing.assert_close(model.center[far], mean[far])
    assert (model.center.abs() >= model.config.center_eps - 1e-7).all()
    assert "center" in model.state_dict()


def test_ocgtl_loss_is_per_graph_and_batch_independent() -> None:
    torch.manual_seed(0)
    model = OCGTL(2, OCGTLConfig(hidden_dim=4, num_layer=2, num_trans=3)).eval()
    graphs = toy_graphs().test
    with torch.no_grad():
        together = model.score(Batch.from_data_list(graphs))
        alone = torch.cat([model.score(Batch.from_data_list([g])) for g in graphs])
    assert together.shape == (len(graphs),)
    torch.testing.assert_close(together, alone, rtol=1e-5, atol=1e-6)
    assert (together > 0).all()  # minus log of a share below 1


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="norm_layer"):
        OCGIN(2, OCGINConfig(norm_layer="bn"))
    with pytest.raises(ValueError, match="num_trans"):
        OCGTL(2, OCGTLConfig(num_trans=2))

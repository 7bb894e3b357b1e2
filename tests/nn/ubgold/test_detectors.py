"""The own OCGIN, OCGTL, GLocalKD and SIGNET against UB-GOLD's own modules (backend ubgold): same initial weights,
same batches, same losses and per-graph scores over three epochs (the issue's bar is 1e-5; they agree to
the bit, which the full-budget runs rely on). Needs the data mirror (UB-GOLD's archive)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from nn_toys import assert_bitwise_parity, ring_runs

from graphaudit.nn import OCGIN, OCGTL, OCGINConfig, OCGTLConfig, TrainConfig, train
from graphaudit.nn.glocalkd import GLOCALKD_TRAINING, GLocalKD, GLocalKDConfig
from graphaudit.nn.signet import SIGNET, SIGNETConfig
from graphaudit.nn.ubgold import detectors as ubgold

PAIRS = {
    "OCGIN": (OCGIN, ubgold.OCGIN, OCGINConfig(hidden_dim=8, num_layer=3)),
    "OCGTL": (OCGTL, ubgold.OCGTL, OCGTLConfig(hidden_dim=8, num_layer=3, num_trans=4)),
    "GLocalKD": (GLocalKD, ubgold.GLocalKD, GLocalKDConfig(hidden_dim=8, num_layer=3, output_dim=16, max_nodes_num=12)),
    "SIGNET": (
        SIGNET,
        ubgold.SIGNET,
        SIGNETConfig(hidden_dim=8, encoder_layers=3, explainer_layers=2, explainer_hidden_dim=4),
    ),
}
TRAINING = {"GLocalKD": GLOCALKD_TRAINING}  # UB-GOLD's fixed batches and per-batch StepLR


def parameters(detector: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in detector.parameters()]


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_same_seed_gives_the_same_initial_weights(active: Path, name: str) -> None:
    own_class, ubgold_class, config = PAIRS[name]
    torch.manual_seed(11)
    own = own_class(2, config)
    torch.manual_seed(11)
    theirs = ubgold_class(2, config)
    mine, other = parameters(own), parameters(theirs)
    assert len(mine) == len(other) > 0
    for a, b in zip(mine, other):
        assert torch.equal(a, b)
    torch.manual_seed(11)  # and both consumed the same draws

    own_class(2, config)
    after_own = torch.randn(4)
    torch.manual_seed(11)
    ubgold_class(2, config)
    assert torch.equal(after_own, torch.randn(4))


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_own_and_ubgold_train_alike_for_three_epochs(active: Path, tmp_path: Path, name: str) -> None:
    own_class, ubgold_class, config = PAIRS[name]
    settings = TrainConfig(
        num_epoch=3,
        eval_freq=1,
        batch_size=6,
        batch_size_test=4,
        lr=1e-2,
        seed=3407,
        device="cpu",
        test_rng="coupled",
        **TRAINING.get(name, {}),
    )
    graphs = ring_runs(n_train=20, n_test=7, clique_size=6)
    train(lambda: own_class(2, config), graphs, settings, tmp_path / "own")
    train(lambda: ubgold_class(2, config), graphs, settings, tmp_path / "ubgold")
    assert_bitwise_parity(tmp_path / "own", tmp_path / "ubgold")


def test_ubgold_options_outside_its_code_are_refused(active: Path) -> None:
    with pytest.raises(ValueError, match="origin"):
        ubgold.OCGIN(2, OCGINConfig(center="initial_mean"))
    with pytest.raises(ValueError, match="temperature"):
        ubgold.OCGTL(2, OCGTLConfig(temperature=0.5))
    with pytest.raises(ValueError, match="temperature"):
        ubgold.SIGNET(2, SIGNETConfig(temperature=0.5))

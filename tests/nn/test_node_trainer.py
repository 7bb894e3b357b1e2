"""The node-classification loop: checkpoint selection with its tie-breaks, early stopping, bit-identical resume,
evaluation isolated from the training RNG, non-finite losses, stale checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.loop import CapExceeded, Caps
from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node_trainer import NodeMasks, NodeTrainConfig, NonFiniteLoss, Selection, train_node_classifier


class Dropout(NodeModel):
    """A linear layer after dropout on the features; ``eval_noise`` draws from the RNG in eval mode too."""

    eval_noise = False

    def __init__(self, in_dim: int, out_dim: int, *, dropout: float) -> None:
        super().__init__(in_dim, out_dim)
        self.linear = torch.nn.Linear(in_dim, out_dim)
        self.dropout = dropout

    def forward(self, data: Data) -> torch.Tensor:
        if not self.training and self.eval_noise:
            torch.rand(5)
        return self.linear(F.dropout(data.x, self.dropout, self.training))


class NoisyEval(Dropout):
    eval_noise = True


def toy(classes: int = 3, n: int = 60) -> tuple[Data, NodeMasks]:
    generator = torch.Generator().manual_seed(0)
    y = torch.arange(n) % classes
    x = torch.randn(n, 5, generator=generator) + y.unsqueeze(1).float()
    parts = torch.arange(n) % 4
    masks = NodeMasks(train=parts < 2, val=parts == 2, test=parts == 3)
    return Data(x=x, y=y, edge_index=torch.zeros(2, 0, dtype=torch.long)), masks


def config(**changes: object) -> NodeTrainConfig:
    base = dict(
        max_epochs=30,
        patience=100,
        lr=0.05,
        weight_decay=0.0,
        optimizer="adam",
        seed=7,
        device="cpu",
        checkpoint_every_s=300.0,
    )
    return NodeTrainConfig(**{**base, **changes})


def build(cls=Dropout, out_dim: int = 3):
    return lambda: cls(5, out_dim, dropout=0.3)


def weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_selection_prefers_lower_validation_loss_then_training_loss_then_the_earlier_epoch() -> None:
    model = torch.nn.Linear(1, 1)
    selection = Selection()
    assert selection.offer(1, val=0.5, train=0.4, model=model)
    assert not selection.offer(2, val=0.6, train=0.1, model=model)  # worse validation loss
    assert selection.offer(3, val=0.5, train=0.3, model=model)  # same validation loss, lower training loss
    assert not selection.offer(4, val=0.5, train=0.3, model=model)  # a tie on both: the earlier epoch stays
    assert not selection.offer(5, val=0.5, train=0.35, model=model)
    assert selection.offer(6, val=0.2, train=0.9, model=model)  # validation loss decides first
    assert selection.best_epoch == 6 and [e for e, _, _ in selection.history] == [1, 2, 3, 4, 5, 6]


def test_the_selected_weights_are_those_of_the_best_epoch() -> None:
    data, masks = toy()
    result = train_node_classifier(build(), data, masks, config())
    history = result.selection.history
    best = min(history, key=lambda point: (point[2], point[1], point[0]))
    assert result.selection.best_epoch == best[0] and result.epochs == 30 and result.completed
    rerun = train_node_classifier(build(), data, masks, config(max_epochs=best[0]))
    for key, value in weights(result.model).items():
        assert torch.equal(value, weights(rerun.model)[key]), key


def test_early_stopping_after_patience_epochs_without_a_new_best() -> None:
    data, masks = toy()
    result = train_node_classifier(build(), data, masks, config(max_epochs=400, patience=5, lr=0.5))
    assert result.stopped_early and result.epochs == result.selection.best_epoch + 5


def test_resume_is_bit_identical(tmp_path: Path) -> None:
    data, masks = toy()
    whole = train_node_classifier(build(), data, masks, config(), checkpoint_path=tmp_path / "a.pt", run_hash="h")
    paused = train_node_classifier(
        build(), data, masks, config(), checkpoint_path=tmp_path / "b.pt", run_hash="h", stop_after_epoch=11
    )
    assert not paused.completed and paused.epochs == 11
    resumed = train_node_classifier(build(), data, masks, config(), checkpoint_path=tmp_path / "b.pt", run_hash="h")
    assert resumed.completed and resumed.selection.history == whole.selection.history
    for key, value in weights(whole.model).items():
        assert torch.equal(value, weights(resumed.model)[key]), key


def test_a_checkpoint_of_another_run_is_discarded(tmp_path: Path) -> None:
    data, masks = toy()
    path = tmp_path / "run.pt"
    train_node_classifier(
        build(), data, masks, config(lr=0.5), checkpoint_path=path, run_hash="old", stop_after_epoch=9
    )
    fresh = train_node_classifier(build(), data, masks, config(), checkpoint_path=path, run_hash="new")
    plain = train_node_classifier(build(), data, masks, config())
    assert fresh.selection.history == plain.selection.history


def test_evaluation_draws_leave_the_trajectory_unchanged() -> None:
    data, masks = toy()
    quiet = train_node_classifier(build(Dropout), data, masks, config())
    noisy = train_node_classifier(build(NoisyEval), data, masks, config())
    assert quiet.selection.history == noisy.selection.history


def test_binary_tasks_train_on_one_logit() -> None:
    data, masks = toy(classes=2)
    result = train_node_classifier(build(out_dim=1), data, masks, config())
    assert result.selection.best_val < result.selection.history[0][2]


def test_a_non_finite_loss_stops_the_run() -> None:
    data, masks = toy()
    data.x[0, 0] = float("nan")
    with pytest.raises(NonFiniteLoss, match="epoch 1"):
        train_node_classifier(build(), data, masks, config())


def test_a_wall_clock_cap_stops_the_run() -> None:
    data, masks = toy()
    with pytest.raises(CapExceeded, match="wall-clock cap"):
        train_node_classifier(build(), data, masks, config(), caps=Caps(wall_s=0.0))


def test_unknown_optimizer_is_refused() -> None:
    with pytest.raises(ValueError, match="optimizer"):
        config(optimizer="sgd")

"""GRIT (LiamMa/GRIT at 6c988ea, PATTERN config): the released parameter count module by module, forward shapes on
a batch of hand graphs, a loss that reaches every parameter the output depends on (equivariance, batch
independence and determinism: test_rrwp_models.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
import yaml
from rrwp_toys import HAND, hand_batch, parameter_count

from graphaudit.nn.grit import GRIT
from graphaudit.nn.pattern_config import GRITConfig
from graphaudit.nn.rrwp_common import weighted_cross_entropy

RELEASED_PARAMETERS = 477_953
"""The released model's own count (``main.py`` logs GraphGym's ``params_count``) for
``configs/GRIT/pattern-GRIT-RRWP.yaml`` with PATTERN's 3 input features and GraphGym's single logit: the module
tally below; building the released modules at 6c988ea under GraphGym gives the same number."""


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_the_parameter_count_is_the_released_models() -> None:
    model = GRIT()
    per_layer = {
        "attention": (64 * 64 + 64) + 64 * 64 + (64 * 128 + 128) + 64 * 64 + 8 * 8 + 8 * 8 * 8,  # Q K E V Aw VeRow
        "O_h": 64 * 64 + 64,
        "O_e": 64 * 64 + 64,
        "norm1_h": 128,
        "norm1_e": 128,
        "ffn1": 64 * 128 + 128,
        "ffn2": 128 * 64 + 64,
        "norm2_h": 128,
    }
    layer = model.layers[0]
    assert {name: parameter_count(child) for name, child in layer.named_children()} == per_layer
    assert parameter_count(layer) == sum(per_layer.values()) + 64 * 2  # deg_coef
    assert {name: parameter_count(child) for name, child in model.named_children()} == {
        "node_encoder": 3 * 64 + 64,  # LinearNode
        "edge_encoder": 64,  # DummyEdge
        "rrwp_abs": 21 * 64,
        "rrwp_rel": 21 * 64,
        "layers": 10 * 46_656,
        "head": 2 * (64 * 64 + 64) + 64 + 1,
    }
    assert parameter_count(model) == RELEASED_PARAMETERS
    assert all(p.requires_grad for p in model.parameters())


def test_the_config_defaults_are_the_recipe_recorded_in_config_pattern_neural_yaml() -> None:
    recipe = yaml.safe_load((Path(__file__).parents[2] / "config/pattern/neural.yaml").read_text())["grit"]
    model = recipe["model"]
    assert model["parameters"] == RELEASED_PARAMETERS
    assert dataclasses.asdict(GRITConfig()) == {
        "in_dim": recipe["dataset"]["node_features"],
        "out_dim": recipe["dataset"]["outputs"],
        "hidden": model["hidden"],
        "layers": model["layers"],
        "heads": model["heads"],
        "dropout": model["dropout"],
        "attn_dropout": model["attn_dropout"],
        "clamp": model["attn_clamp"],
        "rrwp_steps": recipe["rrwp"]["steps"],
        "post_mp_layers": model["layers_post_mp"],
    }


def test_a_batch_of_hand_graphs_gives_one_finite_logit_per_node() -> None:
    torch.manual_seed(0)
    batch = hand_batch("grit")
    logits = GRIT()(batch)
    assert logits.shape == (sum(n for n, _ in HAND.values()), 1)
    assert torch.isfinite(logits).all()


def test_the_weighted_loss_reaches_every_parameter_but_the_last_layers_unread_pair_branch() -> None:
    torch.manual_seed(0)
    model = GRIT()
    batch = hand_batch("grit")
    weighted_cross_entropy(model(batch), batch.y).backward()
    without = {name for name, p in model.named_parameters() if p.grad is None}
    assert without == {"layers.9.O_e.weight", "layers.9.O_e.bias", "layers.9.norm1_e.weight", "layers.9.norm1_e.bias"}
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)

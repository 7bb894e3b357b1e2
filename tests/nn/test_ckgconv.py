"""CKGConv (networkslab/CKGConv at 41ed056, PATTERN config): the released parameter count module by module (with
the released model's inert frozen parameters accounted for), forward shapes on a batch of hand graphs, a loss that
reaches every parameter (equivariance, batch independence and determinism: test_rrwp_models.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
import yaml
from rrwp_toys import HAND, hand_batch, parameter_count

from graphaudit.nn.ckgconv import RELEASED_FROZEN_PARAMETERS, CKGConv
from graphaudit.nn.pattern_config import CKGConvConfig
from graphaudit.nn.rrwp_common import weighted_cross_entropy

RELEASED_PARAMETERS = 438_143
"""The released model's own count (``main.py`` logs GraphGym's ``params_count``, frozen parameters included) for
``configs/CKGConvMLP/pattern-CKGConvMLP-BN-BS16.yaml`` with PATTERN's 3 input features and GraphGym's single
logit; the paper under audit reports "about 440,000 parameters" (Section 4.2). Building the released modules at
41ed056 under GraphGym gives 438,143 in all and 437,399 trainable."""


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_the_parameter_count_is_the_released_models() -> None:
    model = CKGConv()
    block = 128 + (64 * 64 + 64) + 128 + (64 * 64 + 64)  # BN, Linear, BN, Linear
    layer = model.layers[0]
    assert {name: parameter_count(child) for name, child in layer.named_children()} == {
        "kernel": 2 * block + 128 + 64 * 64 + 64,  # two blocks, BN, Linear
        "kernel_dropout": 0,
        "O_h": 64 * 64 + 64,
        "ffn1": 64 * 128 + 128,
        "ffn2": 128 * 64 + 64,
        "norm1_h": 128,
        "norm2_h": 128,
    }
    assert parameter_count(layer) == 42_432 + 64 * 2  # deg_coef
    assert {name: parameter_count(child) for name, child in model.named_children()} == {
        "node_encoder": 3 * 64 + 64,  # LinearNode
        "edge_encoder": 64,  # DummyEdge
        "node_stem": 2 * 21 + 21 * 64 + 2 * 64,  # raw BN, Linear without bias, post BN
        "pair_stem": 2 * 22 + 22 * 64 + 2 * 64,  # affine (the raw BN is not affine), Linear without bias, post BN
        "layers": 10 * 42_560,
        "head": 2 * (64 * 64 + 64) + 64 + 1,
    }
    # the released model's frozen extras: a zero bias per convolution, the pair stem's unused bias and every
    # ResidualLayer's alpha (2 in the kernel MLP, 2 in the layer)
    assert RELEASED_FROZEN_PARAMETERS == 10 * 64 + 64 + 10 * 4
    assert parameter_count(model) + RELEASED_FROZEN_PARAMETERS == RELEASED_PARAMETERS
    assert round(RELEASED_PARAMETERS, -4) == 440_000


def test_the_config_defaults_are_the_recipe_recorded_in_config_pattern_neural_yaml() -> None:
    recipe = yaml.safe_load((Path(__file__).parents[2] / "config/pattern/neural.yaml").read_text())["ckgconv"]
    model = recipe["model"]
    assert model["parameters"] == RELEASED_PARAMETERS
    assert model["trainable_parameters"] == parameter_count(CKGConv())
    assert dataclasses.asdict(CKGConvConfig()) == {
        "in_dim": recipe["dataset"]["node_features"],
        "out_dim": recipe["dataset"]["outputs"],
        "hidden": model["hidden"],
        "layers": model["layers"],
        "dropout": model["dropout"],
        "attn_dropout": model["attn_dropout"],
        "mlp_dropout": model["mlp_dropout"],
        "mlp_blocks": model["n_mlp_blocks"],
        "mlp_ratio": model["mlp_ffn_ratio"],
        "ffn_ratio": model["ffn_ratio"],
        "rrwp_steps": recipe["rrwp"]["steps"],
        "affine_alpha": recipe["stem"]["affine_alpha"],
        "post_mp_layers": model["layers_post_mp"],
    }


def test_a_batch_of_hand_graphs_gives_one_finite_logit_per_node() -> None:
    torch.manual_seed(0)
    logits = CKGConv()(hand_batch("ckgconv"))
    assert logits.shape == (sum(n for n, _ in HAND.values()), 1)
    assert torch.isfinite(logits).all()


def test_the_weighted_loss_reaches_every_parameter() -> None:
    torch.manual_seed(0)
    model = CKGConv()
    batch = hand_batch("ckgconv")
    weighted_cross_entropy(model(batch), batch.y).backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())

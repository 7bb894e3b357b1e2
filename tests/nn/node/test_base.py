"""The NodeModel interface, the registry, BYO resolution, the output convention and methods.yaml."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from graphaudit.common.seeds import rng_for
from graphaudit.nn.node import METHODS, RESERVED, NodeModel, node_loss, output_dim, resolve_method
from graphaudit.nn.node.mlp import MLP

from .node_toys import csbm, load_methods

SPACE_KINDS = {"choice", "uniform", "loguniform", "int"}


class MyModel(NodeModel):
    """A user's method, named by import path."""

    def __init__(self, in_dim: int, out_dim: int, *, width: int) -> None:
        super().__init__(in_dim, out_dim)
        self.lin = torch.nn.Linear(in_dim, out_dim)

    def forward(self, data: Data) -> torch.Tensor:
        return self.lin(data.x)


def test_registry_names_the_fifteen_methods():
    assert len(METHODS) == 15
    for name in METHODS:
        assert issubclass(resolve_method(name), NodeModel)


def test_resolve_method_takes_a_users_import_path():
    assert resolve_method(f"{__name__}:MyModel") is MyModel
    assert MyModel.hyperparameters() == ("width",)


def test_resolve_method_rejects_unknown_names_and_non_models():
    with pytest.raises(KeyError, match="unknown node method"):
        resolve_method("GCN2")
    with pytest.raises(TypeError, match="not a subclass"):
        resolve_method("torch.nn:Linear")


def test_output_dim_is_one_logit_for_binary_tasks():
    assert output_dim(2) == 1
    assert output_dim(3) == 3
    with pytest.raises(ValueError):
        output_dim(1)


def test_node_loss_is_bce_on_one_logit_and_ce_otherwise():
    logits = torch.tensor([[0.3], [-1.2]])
    y = torch.tensor([1, 0])
    expected = -(math.log(torch.sigmoid(torch.tensor(0.3))) + math.log(1 - torch.sigmoid(torch.tensor(-1.2)))) / 2
    assert node_loss(logits, y).item() == pytest.approx(expected, rel=1e-6)
    multi = torch.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    row0 = -(2.0 - math.log(math.exp(2.0) + 1.0 + math.exp(-1.0)))
    row1 = -(0.0 - math.log(2.0 + math.e))
    assert node_loss(multi, torch.tensor([0, 2])).item() == pytest.approx((row0 + row1) / 2, rel=1e-6)


def test_default_prepare_and_regularization():
    data = csbm(30, 3, 4, 0.2, 0.02, 1.0, "base")
    assert MLP.prepare(data, hidden_channels=8) is data
    model = MLP.build(data, 3, hidden_channels=8, num_layers=2, dropout=0.0)
    assert model.in_dim == 4 and model.out_dim == 3
    assert model.regularization() is None


# ---- config/nodeground/methods.yaml ----


def _sample(spec: dict, rng: np.random.Generator) -> object:
    ((kind, values),) = spec.items()
    if kind == "choice":
        return values[int(rng.integers(len(values)))]
    lo, hi = values
    if kind == "int":
        return int(rng.integers(lo, hi + 1))
    if kind == "uniform":
        return float(rng.uniform(lo, hi))
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def test_methods_yaml_lists_every_registered_method_with_its_class_and_optimizer():
    config = load_methods()
    assert list(config) == list(METHODS)
    for name, entry in config.items():
        assert set(entry) == {"class", "optimizer", "defaults", "sources", "space"}, name
        assert entry["class"] == METHODS[name]
        assert entry["optimizer"] == resolve_method(name).optimizer
    assert [n for n, e in config.items() if e["optimizer"] == "adamw"] == ["NAGphormer"]


def test_methods_yaml_defaults_cover_exactly_the_hyperparameters_and_each_has_a_source():
    for name, entry in load_methods().items():
        cls = resolve_method(name)
        assert set(entry["defaults"]) == set(cls.hyperparameters()) | set(RESERVED), name
        assert set(entry["sources"]) == set(entry["defaults"]), name
        assert all(isinstance(s, str) and s.strip() for s in entry["sources"].values()), name
        assert entry["defaults"]["patience"] == 100
        assert isinstance(entry["defaults"]["lr"], float) and isinstance(entry["defaults"]["weight_decay"], float)


def test_methods_yaml_spaces_are_well_formed_and_name_only_constructor_or_reserved_keys():
    for name, entry in load_methods().items():
        allowed = set(resolve_method(name).hyperparameters()) | set(RESERVED)
        assert set(entry["space"]) <= allowed, name
        assert entry["space"]["patience"] == {"choice": [20, 100]}
        for key, spec in entry["space"].items():
            assert len(spec) == 1 and set(spec) <= SPACE_KINDS, (name, key)
            ((kind, values),) = spec.items()
            if kind != "choice":
                lo, hi = values
                assert lo < hi and (kind != "loguniform" or lo > 0), (name, key)
                assert kind != "int" or (isinstance(lo, int) and isinstance(hi, int)), (name, key)


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_builds_and_runs_with_its_defaults_and_with_sampled_configurations(method):
    entry = load_methods()[method]
    cls = resolve_method(method)
    data = csbm(24, 3, 5, 0.3, 0.05, 1.0, "yaml")
    rng = rng_for("tests", "nn.node", "space", method)
    configs = [entry["defaults"]] + [
        {**entry["defaults"], **{k: _sample(s, rng) for k, s in entry["space"].items()}} for _ in range(2)
    ]
    for config in configs:
        hparams = {k: v for k, v in config.items() if k not in RESERVED}
        prepared = cls.prepare(data, **hparams)
        model = cls.build(prepared, 3, **hparams).eval()
        with torch.no_grad():
            assert model(prepared).shape == (24, 3)

"""Small seeded graphs and a plain full-batch training loop for the node-classifier tests.

The graphs are contextual stochastic block models with a strong signal: ``classes`` equal blocks of nodes,
edges inside a block ten times as likely as across (homophily about 0.8), and Gaussian features around a
class mean, informative but noisy (a feature-only model reaches clearly less than a graph model). They go
through the shared preprocessing of spec 3.4 (both directions, coalesced, exactly one self-loop per node),
built here with numpy so the tests do not depend on the nodeground data layer.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import torch
import yaml
from torch_geometric.data import Data

from graphaudit.common.seeds import rng_for
from graphaudit.nn.node import RESERVED, NodeModel, node_loss, output_dim, resolve_method

METHODS_YAML = Path(__file__).resolve().parents[3] / "config" / "nodeground" / "methods.yaml"


def load_methods() -> dict[str, dict]:
    """``config/nodeground/methods.yaml`` as a mapping."""
    with METHODS_YAML.open() as handle:
        return yaml.safe_load(handle)


def csbm(nodes: int, classes: int, features: int, p_in: float, p_out: float, signal: float, seed: str) -> Data:
    """A contextual SBM with shared preprocessing and stratified train / val / test masks (40 / 20 / 40 %)."""
    rng = rng_for("tests", "nn.node", "csbm", seed)
    y = rng.permutation(np.arange(nodes) % classes)
    same = y[:, None] == y[None, :]
    upper = np.triu(rng.random((nodes, nodes)) < np.where(same, p_in, p_out), k=1)
    src, dst = np.nonzero(upper)
    loops = np.arange(nodes)
    edges = np.unique(np.stack([np.r_[src, dst, loops], np.r_[dst, src, loops]], axis=1), axis=0).T
    means = rng.normal(0.0, 1.0, (classes, features))
    x = signal * means[y] + rng.normal(0.0, 1.0, (nodes, features))
    masks = {name: np.zeros(nodes, dtype=bool) for name in ("train_mask", "val_mask", "test_mask")}
    for c in range(classes):
        members = rng.permutation(np.flatnonzero(y == c))
        cut_train, cut_val = int(0.4 * len(members)), int(0.6 * len(members))
        masks["train_mask"][members[:cut_train]] = True
        masks["val_mask"][members[cut_train:cut_val]] = True
        masks["test_mask"][members[cut_val:]] = True
    return Data(
        x=torch.from_numpy(x.astype(np.float32)),
        edge_index=torch.from_numpy(edges.astype(np.int64)),
        y=torch.from_numpy(y.astype(np.int64)),
        num_classes=classes,
        **{name: torch.from_numpy(mask) for name, mask in masks.items()},
    )


def defaults(method: str) -> dict[str, object]:
    """The method's default configuration from methods.yaml."""
    return dict(load_methods()[method]["defaults"])


def build(method: str, data: Data, overrides: Mapping[str, object] | None = None) -> tuple[NodeModel, Data]:
    """The method's model (default hyperparameters, reserved keys left out) and its prepared graph."""
    cls = resolve_method(method)
    hparams = {k: v for k, v in {**defaults(method), **(overrides or {})}.items() if k not in RESERVED}
    prepared = cls.prepare(data, **hparams)
    return cls.build(prepared, output_dim(data.num_classes), **hparams), prepared


def _optimizer(model: NodeModel, config: Mapping[str, object]) -> torch.optim.Optimizer:
    kind = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[model.optimizer]
    return kind(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])


def _accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    predicted = (logits.squeeze(-1) > 0).long() if logits.size(-1) == 1 else logits.argmax(-1)
    return float((predicted == y).float().mean())


def fit(method: str, data: Data, epochs: int, seed: int = 0) -> float:
    """Train full batch with the default configuration for up to ``epochs`` epochs (early stopping with its
    patience), keep the epoch of lowest validation loss and return its test accuracy."""
    torch.manual_seed(seed)
    config = defaults(method)
    model, prepared = build(method, data)
    optimizer = _optimizer(model, config)
    best, best_state, waited = float("inf"), None, 0
    for _ in range(epochs):
        model.train()
        optimizer.zero_grad()
        logits = model(prepared)
        loss = node_loss(logits[data.train_mask], data.y[data.train_mask])
        extra = model.regularization()
        (loss if extra is None else loss + extra).backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            val = float(node_loss(model(prepared)[data.val_mask], data.y[data.val_mask]))
        if val < best:
            best, best_state, waited = val, copy.deepcopy(model.state_dict()), 0
        else:
            waited += 1
            if waited >= config["patience"]:
                break
    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        logits = model(prepared)
    return _accuracy(logits[data.test_mask], data.y[data.test_mask])


def _short_run(method: str, data: Data, steps: int, seed: int) -> torch.Tensor:
    """Training-mode logits of the last of ``steps`` training steps from torch seed ``seed`` (dropout and
    every sampled quantity included), next to the eval logits after them."""
    torch.manual_seed(seed)
    model, prepared = build(method, data)
    optimizer = _optimizer(model, defaults(method))
    for _ in range(steps):
        model.train()
        optimizer.zero_grad()
        logits = model(prepared)
        node_loss(logits[data.train_mask], data.y[data.train_mask]).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        return torch.cat([logits.detach(), model(prepared)], dim=1)


def assert_deterministic(method: str, data: Data, steps: int = 3) -> None:
    """Two runs from the same torch seed give identical logits, a run from another seed different ones."""
    first = _short_run(method, data, steps, seed=0)
    assert torch.equal(first, _short_run(method, data, steps, seed=0))
    assert not torch.equal(first, _short_run(method, data, steps, seed=1))


def assert_shapes(method: str, *graphs: Data) -> None:
    """Eval logits ``[n, out_dim]`` (1 for a binary graph) are finite, the loss reaches every parameter that
    takes part in the current stage, and ``prepare`` leaves its input graph as it was."""
    for data in graphs:
        keys = set(data.keys())
        model, prepared = build(method, data)
        assert set(data.keys()) == keys
        logits = model(prepared)
        assert logits.shape == (data.num_nodes, output_dim(data.num_classes))
        assert torch.isfinite(logits).all()
        node_loss(logits[data.train_mask], data.y[data.train_mask]).backward()
        assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())

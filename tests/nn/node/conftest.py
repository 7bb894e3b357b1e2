"""Fixtures of the node-classifier tests: a multiclass and a binary contextual SBM (node_toys.csbm)."""

from __future__ import annotations

import pytest
from torch_geometric.data import Data

from .node_toys import csbm


@pytest.fixture(scope="session")
def multiclass() -> Data:
    """300 nodes, 3 classes, 16 features, homophily about 0.8."""
    return csbm(nodes=300, classes=3, features=16, p_in=0.05, p_out=0.005, signal=0.35, seed="multiclass")


@pytest.fixture(scope="session")
def binary() -> Data:
    """200 nodes, 2 classes, 16 features (out_dim 1: BCE on one logit)."""
    return csbm(nodes=200, classes=2, features=16, p_in=0.06, p_out=0.006, signal=0.35, seed="binary")


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread: None) -> None:
    """Every node-classifier test trains on one torch thread (tests/conftest.py)."""

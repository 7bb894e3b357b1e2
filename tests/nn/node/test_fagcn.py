"""FAGCN: FAConv layers on the graph without its self-loops."""

from __future__ import annotations

import torch

from graphaudit.nn.node.fagcn import FAGCN

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "FAGCN"
# Signed attention plus eps times the first representation: about 0.95 measured; same bar as GCN.
THRESHOLD = 0.85


def test_fagcn_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_fagcn_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_fagcn_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_fagcn_prepare_removes_the_self_loops_and_normalises_by_loop_free_degrees(multiclass):
    prepared = FAGCN.prepare(multiclass)
    src, dst = prepared.fagcn_edge_index
    assert bool((src != dst).all())
    assert prepared.fagcn_edge_index.size(1) == multiclass.num_edges - multiclass.num_nodes
    degree = torch.bincount(dst, minlength=multiclass.num_nodes).float()
    assert torch.allclose(prepared.fagcn_weight, (degree[src] * degree[dst]).rsqrt())

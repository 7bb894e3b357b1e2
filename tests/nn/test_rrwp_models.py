"""GRIT and CKGConv alike: node-order equivariance and batch independence in eval mode, and seeded determinism."""

from __future__ import annotations

import pytest
import torch
from rrwp_toys import HAND, hand_batch, hand_graph, permuted, warmed
from torch_geometric.data import Batch

from graphaudit.nn.ckgconv import CKGConv
from graphaudit.nn.grit import GRIT
from graphaudit.nn.pattern_config import CKGConvConfig, GRITConfig

MODELS = {"grit": (GRIT, GRITConfig), "ckgconv": (CKGConv, CKGConvConfig)}


@pytest.mark.parametrize("variant", list(MODELS))
@pytest.mark.parametrize("name", list(HAND))
def test_relabelling_a_graphs_nodes_relabels_its_logits(variant: str, name: str) -> None:
    torch.manual_seed(1)
    model = warmed(MODELS[variant][0](), hand_batch(variant))
    graph = hand_graph(name, variant)
    order = torch.randperm(graph.num_nodes, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        before, after = model(graph), model(permuted(graph, order, variant))
    torch.testing.assert_close(after, before[order], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", list(MODELS))
def test_a_graphs_logits_do_not_depend_on_the_graphs_batched_with_it(variant: str) -> None:
    torch.manual_seed(3)
    model = warmed(MODELS[variant][0](), hand_batch(variant))
    house, path, star = (hand_graph(name, variant) for name in HAND)
    with torch.no_grad():
        alone = model(Batch.from_data_list([house]))
        batched = model(Batch.from_data_list([path, house, star]))
    torch.testing.assert_close(batched[path.num_nodes : path.num_nodes + house.num_nodes], alone, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("variant", list(MODELS))
def test_a_seed_fixes_the_initialisation_and_the_training_mode_output(variant: str) -> None:
    model_class, config_class = MODELS[variant]
    batch = hand_batch(variant)
    outputs = []
    for _ in range(2):
        torch.manual_seed(7)
        model = model_class(config_class(layers=2))
        outputs.append((model.state_dict(), model.train()(batch)))
    (first_state, first), (second_state, second) = outputs
    assert all(torch.equal(first_state[k], second_state[k]) for k in first_state)
    assert torch.equal(first, second)

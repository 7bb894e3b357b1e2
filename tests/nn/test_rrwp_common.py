"""The pieces GRIT and CKGConv share: RRWP carried through PyG batching, the full pair set in the released encoders'
coalesced order, GraphGym's node head and GraphGPS's weighted cross-entropy against hand-computed values."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from rrwp_toys import hand_batch, hand_graph, undirected
from torch_geometric.data import Batch, Data

from graphaudit.nn.rrwp import rrwp
from graphaudit.nn.rrwp_common import NodeHead, attach_rrwp, class_weights, full_pairs, weighted_cross_entropy


def test_batching_offsets_the_rrwp_pairs_by_each_graphs_node_offset() -> None:
    house, path = hand_graph("house", "grit"), hand_graph("path", "grit")
    batch = Batch.from_data_list([house, path])
    tail = batch.rrwp_index[:, house.rrwp_index.size(1) :]
    assert torch.equal(tail, path.rrwp_index + house.num_nodes)
    assert batch.rrwp.shape == (9, 21) and batch.rrwp_val.size(1) == 21 and batch.deg.shape == (9,)


def test_the_pair_set_is_every_ordered_pair_per_graph_in_row_major_order() -> None:
    pairs = full_pairs(Batch.from_data_list([hand_graph("path", "grit"), hand_graph("house", "grit")]))
    path = [(s, t) for s in range(4) for t in range(4)]
    house = [(4 + s, 4 + t) for s in range(5) for t in range(5)]
    assert [tuple(p) for p in pairs.index.t().tolist()] == path + house
    assert pairs.target_size.tolist() == [4.0] * 16 + [5.0] * 25


def test_pairs_carry_the_walk_probabilities_and_the_edge_multiplicity() -> None:
    # path 0 - 1 - 2; the edge (1, 2) is listed twice, as a coalescing sum counts it
    edge_index = torch.cat([undirected([(0, 1), (1, 2)]), torch.tensor([[1], [2]])], dim=1)
    data = Data(x=torch.eye(3), edge_index=edge_index, num_nodes=3)
    pairs = full_pairs(attach_rrwp(data, rrwp(undirected([(0, 1), (1, 2)]), 3, steps=3)))
    value = {tuple(p): v.tolist() for p, v in zip(pairs.index.t().tolist(), pairs.rrwp)}
    edges = {tuple(p): e for p, e in zip(pairs.index.t().tolist(), pairs.edges.tolist())}
    assert value[(1, 0)] == [0.0, 1.0, 0.0]  # source 1 -> target 0 holds P[0, 1] = 1
    assert value[(0, 1)] == [0.0, 0.5, 0.0]  # P[1, 0] = 1/2
    assert value[(2, 0)] == [0.0, 0.0, 0.5]  # P^2[0, 2] = 1/2
    assert value[(1, 1)] == [1.0, 0.0, 1.0]
    assert edges == {(0, 0): 0, (0, 1): 1, (0, 2): 0, (1, 0): 1, (1, 1): 0, (1, 2): 2, (2, 0): 0, (2, 1): 1, (2, 2): 0}


def test_a_single_graph_without_a_batch_vector_is_one_graph() -> None:
    graph = hand_graph("house", "ckgconv")
    single, batched = full_pairs(graph), full_pairs(Batch.from_data_list([graph]))
    assert torch.equal(single.index, batched.index) and torch.equal(single.rrwp, batched.rrwp)


def test_the_head_normalises_its_inner_layers_and_ends_in_a_plain_linear() -> None:
    torch.manual_seed(0)
    head = NodeHead(hidden=4, out_dim=1, layers=3)
    x = torch.randn(5, 4)
    h = x
    for linear in head.inner:
        h = F.relu(linear(h))
        h = h / h.norm(dim=1, keepdim=True).clamp_min(1e-12)
    torch.testing.assert_close(head(x), head.out(h))
    assert len(head.inner) == 2 and head.out.out_features == 1


def test_class_weights_are_the_other_classes_share_of_the_batch() -> None:
    assert class_weights(torch.tensor([1, 0, 0, 0]), 2).tolist() == [0.25, 0.75]
    absent = class_weights(torch.tensor([0, 0, 1]), 3)  # an absent class weighs 0
    torch.testing.assert_close(absent, torch.tensor([1 / 3, 2 / 3, 0.0]))


def test_the_binary_loss_averages_the_weighted_terms_over_all_nodes() -> None:
    # labels [1, 0, 0, 0]: weights 3/4 (class 1) and 1/4 (class 0); logits 0, 0, ln 3, -ln 3 give per-node
    # cross-entropies ln 2, ln 2, ln 4, ln 4/3; the mean divides by the 4 nodes, not by the weights' sum
    logits = torch.tensor([[0.0], [0.0], [math.log(3)], [-math.log(3)]])
    loss = weighted_cross_entropy(logits, torch.tensor([1, 0, 0, 0]))
    expected = (0.75 * math.log(2) + 0.25 * math.log(2) + 0.25 * math.log(4) + 0.25 * math.log(4 / 3)) / 4
    assert math.isclose(loss.item(), expected, rel_tol=1e-6)


def test_the_multiclass_loss_divides_by_the_weights_of_the_labels() -> None:
    # labels [0, 0, 1] weigh 1/3, 1/3, 2/3; the true-class probabilities are 1/2, 1/3, 1/2
    logits = torch.tensor([[math.log(2), 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, math.log(2), 0.0]])
    loss = weighted_cross_entropy(logits, torch.tensor([0, 0, 1]))
    expected = (math.log(2) / 3 + math.log(3) / 3 + 2 * math.log(2) / 3) / (4 / 3)
    assert math.isclose(loss.item(), expected, rel_tol=1e-6)


def test_the_loss_takes_the_models_single_logit_per_node() -> None:
    batch = hand_batch("grit")
    logits = torch.linspace(-1, 1, batch.num_nodes).unsqueeze(-1)
    assert torch.equal(weighted_cross_entropy(logits, batch.y), weighted_cross_entropy(logits.squeeze(-1), batch.y))

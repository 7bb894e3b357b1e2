"""The CLUSTER generator: laws of sizes, edges and revealed nodes, shuffling, seeding, storage, release reader."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.pattern.cluster.generator import (
    ClusterLaw,
    check_cluster_graphs,
    generate_split,
    release_test,
    revealed_nodes,
)
from graphaudit.pattern.dense import DenseGraphs, pack_graphs

LAW = ClusterLaw()


@pytest.fixture(scope="module")
def split() -> DenseGraphs:
    return generate_split(LAW, "test", 200, seed=3)


def test_law_defaults_and_block_matrix() -> None:
    assert (LAW.blocks, LAW.size, LAW.p, LAW.q) == (6, (5, 34), 0.55, 0.25)
    blocks = LAW.block_matrix()
    assert blocks.shape == (6, 6) and np.allclose(np.diag(blocks), 0.55)
    assert np.allclose(blocks[~np.eye(6, dtype=bool)], 0.25)
    with pytest.raises(ValueError, match="size range"):
        ClusterLaw(size=(0, 3))
    with pytest.raises(ValueError, match="probabilities"):
        ClusterLaw(p=1.0)


def test_block_sizes_are_uniform_on_the_range(split: DenseGraphs) -> None:
    sizes = np.stack([np.bincount(split.labels(g), minlength=6) for g in range(split.num_graphs)])
    assert sizes.shape == (200, 6) and sizes.min() == 5 and sizes.max() == 34  # 1,200 draws hit both ends
    assert sizes.mean() == pytest.approx(19.5, abs=0.6)  # U{5..34}: mean 19.5, SD 8.7 -> SE 0.25
    assert all(split.size(g) == sizes[g].sum() for g in range(split.num_graphs))


def test_one_revealed_node_per_block(split: DenseGraphs) -> None:
    check_cluster_graphs(split, LAW)
    for g in range(split.num_graphs):
        x, y = split.features(g), split.labels(g)
        revealed = revealed_nodes(x, 6)
        assert np.count_nonzero(x) == 6 and x.max() == 6
        assert np.array_equal(y[revealed], np.arange(6)) and np.array_equal(x[revealed], np.arange(1, 7))


def test_revealed_node_is_uniform_within_its_block(split: DenseGraphs) -> None:
    """The revealed node's rank among its block's nodes (in index order), scaled to [0, 1], averages 1/2."""
    ranks = []
    for g in range(split.num_graphs):
        y, revealed = split.labels(g), revealed_nodes(split.features(g), 6)
        for r, node in enumerate(revealed):
            members = np.flatnonzero(y == r)
            ranks.append(np.searchsorted(members, node) / (len(members) - 1))
    assert np.mean(ranks) == pytest.approx(0.5, abs=0.03)  # 1,200 ranks, SD about 0.3 -> SE 0.009


def test_nodes_are_shuffled(split: DenseGraphs) -> None:
    """No graph keeps its blocks in order, and block 0 sits on average mid-graph, not at the front."""
    assert not any(np.all(np.diff(split.labels(g).astype(int)) >= 0) for g in range(split.num_graphs))
    positions = [np.flatnonzero(split.labels(g) == 0).mean() / (split.size(g) - 1) for g in range(split.num_graphs)]
    assert np.mean(positions) == pytest.approx(0.5, abs=0.03)


def test_edge_densities_within_and_across_blocks(split: DenseGraphs) -> None:
    within = np.zeros(2)  # (edges, pairs)
    across = np.zeros(2)
    for g in range(split.num_graphs):
        adj, y = split.adjacency(g), split.labels(g)
        assert (adj == adj.T).all() and not adj.diagonal().any()
        upper = np.triu(np.ones_like(adj, dtype=bool), 1)
        same = (y[:, None] == y[None, :]) & upper
        within += adj[same].sum(), same.sum()
        across += adj[upper & ~same].sum(), (upper & ~same).sum()
    assert within[0] / within[1] == pytest.approx(0.55, abs=0.005)  # about 2e5 pairs: SE 0.001
    assert across[0] / across[1] == pytest.approx(0.25, abs=0.005)


def test_seeded_per_graph_and_split() -> None:
    first = generate_split(LAW, "test", 4, seed=1)
    again = generate_split(LAW, "test", 4, seed=1)
    assert all(np.array_equal(getattr(first, f), getattr(again, f)) for f in ("node_ptr", "bits", "x", "y"))
    prefix = generate_split(LAW, "test", 2, seed=1)  # graph g does not depend on how many are drawn
    assert np.array_equal(prefix.bits, first.bits[: prefix.bit_ptr[-1]])
    assert np.array_equal(prefix.y, first.y[: len(prefix.y)])
    for other in (generate_split(LAW, "val", 4, seed=1), generate_split(LAW, "test", 4, seed=2)):
        assert not np.array_equal(other.y[:100], first.y[:100])
    assert generate_split(LAW, "test", 0).num_graphs == 0
    with pytest.raises(ValueError, match="count"):
        generate_split(LAW, "test", -1)


def test_dense_graphs_round_trip_is_byte_identical(tmp_path) -> None:
    graphs = generate_split(LAW, "test", 5, seed=4)
    graphs.save(tmp_path / "a.npz")
    generate_split(LAW, "test", 5, seed=4).save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    loaded = DenseGraphs.load(tmp_path / "a.npz")
    for g in range(5):
        assert np.array_equal(loaded.adjacency(g), graphs.adjacency(g))
        assert np.array_equal(loaded.features(g), graphs.features(g))
        assert np.array_equal(loaded.labels(g), graphs.labels(g))


def test_revealed_nodes_refuses_other_features() -> None:
    with pytest.raises(ValueError, match="2 nodes carry feature 1"):
        revealed_nodes(np.array([1, 1, 2, 3]), 3)
    with pytest.raises(ValueError, match="0 nodes carry feature 3"):
        revealed_nodes(np.array([1, 2, 0, 0]), 3)
    with pytest.raises(ValueError, match=r"0..3"):
        revealed_nodes(np.array([1, 2, 3, 4]), 3)


def test_release_test_split_round_trip_and_check(as_release) -> None:
    parts = [generate_split(LAW, split, n, seed=5) for split, n in (("train", 2), ("val", 1), ("test", 3))]
    test = release_test(as_release("CLUSTER", parts))
    assert test.num_graphs == 3
    for g in range(3):
        assert np.array_equal(test.adjacency(g), parts[2].adjacency(g))
        assert np.array_equal(test.features(g), parts[2].features(g))
        assert np.array_equal(test.labels(g), parts[2].labels(g))
    wrong = parts[2]
    swapped = pack_graphs([wrong.adjacency(0)], [wrong.features(0)], [(wrong.labels(0) + 1) % 6])
    with pytest.raises(ValueError, match="labels"):
        release_test(as_release("CLUSTER", [parts[0], parts[1], swapped]))

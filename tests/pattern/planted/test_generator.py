"""The PATTERN generator: laws, reuse of identical patterns, label semantics, storage."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.graphs.canon import canonical_key
from graphaudit.pattern.dense import DenseGraphs, Truth
from graphaudit.pattern.planted.generator import draw_library, familiar_set, fresh_set, law_for, official_split
from graphaudit.pattern.planted.library import planted_pattern


@pytest.fixture(scope="module")
def official():
    law = law_for()
    library = draw_library(law, 5, seed=7)
    return law, library, official_split(library, law, "test", 20, seed=7)


def test_laws_and_label_semantics(official) -> None:
    _law, library, (graphs, truth) = official
    assert graphs.num_graphs == 100 and truth.pattern_id.tolist() == [k for k in range(5) for _ in range(20)]
    assert all(6 <= len(x) <= 34 for _, x in library)
    assert ((truth.host_sizes >= 5) & (truth.host_sizes <= 34)).all() and truth.host_sizes.shape == (100, 5)
    for g in range(graphs.num_graphs):
        n = graphs.size(g)
        assert n == truth.host_sizes[g].sum() + truth.pattern_size[g]
        assert graphs.labels(g).sum() == truth.pattern_size[g] == len(library[truth.pattern_id[g]][1])
        adj = graphs.adjacency(g)
        assert (adj == adj.T).all() and not adj.diagonal().any() and set(np.unique(graphs.features(g))) <= {0, 1, 2}


def test_every_graph_of_a_pattern_carries_the_identical_pattern(official) -> None:
    _, library, (graphs, truth) = official
    for g in range(graphs.num_graphs):
        found = planted_pattern(graphs.adjacency(g), graphs.features(g), graphs.labels(g))
        assert canonical_key(*found) == canonical_key(*library[truth.pattern_id[g]])


def test_seeded_and_storable(official, tmp_path) -> None:
    law, library, (graphs, truth) = official
    again, _ = official_split(library, law, "test", 20, seed=7)
    assert np.array_equal(graphs.bits, again.bits) and np.array_equal(graphs.x, again.x)
    other, _ = official_split(library, law, "val", 20, seed=7)
    assert not np.array_equal(graphs.bits[:100], other.bits[:100])
    graphs.save(tmp_path / "g.npz")
    truth.save(tmp_path / "t.npz")
    loaded = DenseGraphs.load(tmp_path / "g.npz")
    assert np.array_equal(loaded.adjacency(3), graphs.adjacency(3))
    assert np.array_equal(Truth.load(tmp_path / "t.npz").host_sizes, truth.host_sizes)


def test_fresh_and_familiar_sets(official) -> None:
    law, library, _ = official
    fresh, ftruth = fresh_set(law, 30, seed=1)
    assert (ftruth.pattern_id == -1).all() and ftruth.pattern_size.min() >= 6
    keys = {canonical_key(*planted_pattern(fresh.adjacency(g), fresh.features(g), fresh.labels(g))) for g in range(30)}
    assert len(keys) == 30  # a new pattern in every graph
    familiar, truth = familiar_set(library, law, 30, seed=1)
    for g in range(30):
        found = planted_pattern(familiar.adjacency(g), familiar.features(g), familiar.labels(g))
        assert canonical_key(*found) == canonical_key(*library[truth.pattern_id[g]])


def test_versions_and_size_laws() -> None:
    assert law_for(1).q == 0.2 and law_for(1).pattern_size == (20, 20)
    assert law_for(2, "notebook").pattern_size == (5, 34) and law_for(2).pattern_size == (6, 34)
    with pytest.raises(ValueError, match="version"):
        law_for(3)
    with pytest.raises(ValueError, match="size law"):
        law_for(2, "other")

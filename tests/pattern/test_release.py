"""The official releases as input: splits back as dense graphs."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.pattern.planted.generator import draw_library, law_for, official_split
from graphaudit.pattern.release import release_splits


def test_release_round_trip(as_release) -> None:
    law = law_for()
    library = draw_library(law, 3, seed=2)
    parts = [official_split(library, law, split, n, seed=2)[0] for split, n in (("train", 4), ("val", 1), ("test", 2))]
    splits = release_splits(as_release("PATTERN", parts))
    for original, (name, back) in zip(parts, splits.items()):
        assert back.num_graphs == original.num_graphs, name
        for g in range(back.num_graphs):
            assert np.array_equal(back.adjacency(g), original.adjacency(g))
            assert np.array_equal(back.features(g), original.features(g))
            assert np.array_equal(back.labels(g), original.labels(g))


def test_a_graph_set_without_targets_is_refused() -> None:
    plain = from_edge_list("X", np.array([0, 0]), np.array([[0, 1]]))
    with pytest.raises(ValueError, match="node_target"):
        release_splits(plain)

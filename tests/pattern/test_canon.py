"""Canonical forms with features: invariance, distinction, automorphisms; library storage; Table 6."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.pattern.canon import (
    automorphisms,
    canonical_key,
    library_from_labels,
    load_library,
    planted_pattern,
    reuse_table,
    save_library,
)
from graphaudit.pattern.generator import law_for, official_split, random_pattern


def _permute(adj: np.ndarray, x: np.ndarray, perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return adj[np.ix_(perm, perm)], x[perm]


@pytest.mark.parametrize("seed", range(5))
def test_key_is_invariant_under_node_permutation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    adj, x = random_pattern(rng, int(rng.integers(5, 20)), law_for())
    for _ in range(5):
        assert canonical_key(*_permute(adj, x, rng.permutation(len(x)))) == canonical_key(adj, x)


def test_key_sees_features_and_edges() -> None:
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    triangle = np.ones((3, 3), dtype=np.uint8) - np.eye(3, dtype=np.uint8)
    same = np.array([0, 0, 0], dtype=np.uint8)
    assert canonical_key(path, same) != canonical_key(triangle, same)
    end, middle = np.array([1, 0, 0], dtype=np.uint8), np.array([0, 1, 0], dtype=np.uint8)
    assert canonical_key(path, end) != canonical_key(path, middle)  # same graph, feature on another orbit
    assert canonical_key(path, end) == canonical_key(path, np.array([0, 0, 1], dtype=np.uint8))  # mirror image


def test_automorphism_counts_of_known_graphs() -> None:
    triangle = np.ones((3, 3), dtype=np.uint8) - np.eye(3, dtype=np.uint8)
    assert automorphisms(triangle, np.zeros(3, np.uint8)) == 6
    assert automorphisms(triangle, np.array([0, 0, 1], np.uint8)) == 2
    assert automorphisms(triangle, np.array([0, 1, 2], np.uint8)) == 1
    square = np.roll(np.eye(4, dtype=np.uint8), 1, axis=1)
    square = square | square.T
    assert automorphisms(square, np.zeros(4, np.uint8)) == 8


def test_library_from_training_labels_reuse_and_storage(tmp_path) -> None:
    law = law_for()
    patterns = [random_pattern(np.random.default_rng(k), 6 + k, law) for k in range(3)]
    train, _ = official_split(patterns, law, "train", 4, seed=1)
    test, _ = official_split(patterns, law, "test", 2, seed=1)
    found = [planted_pattern(train.adjacency(g), train.features(g), train.labels(g)) for g in range(12)]
    library, keys = library_from_labels(found)
    assert len(library) == 3 and [p.size for p in library] == [6, 7, 8]
    assert keys == [canonical_key(*patterns[g // 4]) for g in range(12)]  # every copy of a pattern, one key
    save_library(tmp_path / "lib.npz", library)
    again = load_library(tmp_path / "lib.npz")
    assert [(p.key, p.aut, p.features.tolist(), p.adj.tolist()) for p in again] == [
        (p.key, p.aut, p.features.tolist(), p.adj.tolist()) for p in library
    ]
    test_keys = [canonical_key(*planted_pattern(test.adjacency(g), test.features(g), test.labels(g))) for g in range(6)]
    table = {r["quantity"]: r["value"] for r in reuse_table(keys, test_keys[:3], test_keys, library)}
    assert table["distinct planted patterns in training"] == 3
    assert table["training graphs per pattern (min)"] == table["training graphs per pattern (max)"] == 4
    assert table["test graphs whose pattern occurs in training (%)"] == 100.0
    assert table["test graphs per pattern (max)"] == 2 and table["pattern size median"] == 7.0

"""The pattern library: read off the training labels, stored, pattern ids by key, Table 6's reuse rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphaudit.graphs.canon import canonical_key
from graphaudit.pattern.planted.generator import draw_library, law_for, official_split, random_pattern
from graphaudit.pattern.planted.library import (
    ID_COLUMNS,
    LibraryPattern,
    graph_keys,
    library_from_labels,
    load_library,
    pattern_ids,
    planted_pattern,
    release_truth,
    reuse_table,
    save_library,
)
from graphaudit.pattern.release import release_splits


def _library_of(graphs):
    return library_from_labels(
        planted_pattern(graphs.adjacency(g), graphs.features(g), graphs.labels(g)) for g in range(graphs.num_graphs)
    )


def test_library_from_training_labels_and_storage(tmp_path) -> None:
    law = law_for()
    patterns = [random_pattern(np.random.default_rng(k), 6 + k, law) for k in range(3)]
    train, _ = official_split(patterns, law, "train", 4, seed=1)
    library, keys = _library_of(train)
    assert len(library) == 3 and [p.size for p in library] == [6, 7, 8]
    assert keys == [canonical_key(*patterns[g // 4]) for g in range(12)] == graph_keys(train)  # one key per pattern
    save_library(tmp_path / "lib.npz", library)
    again = load_library(tmp_path / "lib.npz")
    assert [(p.key, p.aut, p.features.tolist(), p.adj.tolist()) for p in again] == [
        (p.key, p.aut, p.features.tolist(), p.adj.tolist()) for p in library
    ]


def test_pattern_ids_number_new_keys_after_the_library() -> None:
    law = law_for()
    patterns = [random_pattern(np.random.default_rng(k), 6 + k, law) for k in range(3)]
    library, keys = _library_of(official_split(patterns[:2], law, "train", 2, seed=1)[0])
    ids = pattern_ids({"train": keys, "test": [keys[2], "new-a", keys[0], "new-b", "new-a"]}, library)
    assert list(ids.columns) == ID_COLUMNS
    assert ids["pattern"].tolist() == [0, 0, 1, 1, 1, 2, 0, 3, 2]
    assert ids["graph"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 4] and ids["split"].tolist()[3:5] == ["train", "test"]


def _library_stub(sizes):
    """Patterns of the given sizes (Table 6 reads only their sizes)."""
    return [LibraryPattern(str(k), np.zeros((m, m), np.uint8), np.zeros(m, np.uint8), 1) for k, m in enumerate(sizes)]


def test_reuse_table_counts_by_hand() -> None:
    ids = pd.DataFrame(
        [("train", g, k) for g, k in enumerate([0, 0, 0, 1, 1, 2])]
        + [("val", g, k) for g, k in enumerate([0, 3])]
        + [("test", g, k) for g, k in enumerate([1, 1, 4, 2])],
        columns=ID_COLUMNS,
    )
    rows = {r["quantity"]: r["value"] for r in reuse_table(ids, _library_stub([6, 14, 20]))}
    assert rows["training graphs"] == 6 and rows["distinct planted patterns in training"] == 3
    assert (rows["training graphs per pattern (min)"], rows["training graphs per pattern (max)"]) == (1, 3)
    assert rows["validation graphs whose pattern occurs in training (%)"] == 50.0
    assert rows["test graphs whose pattern occurs in training (%)"] == 75.0
    assert rows["distinct planted patterns in the test split"] == 3
    assert (rows["test graphs per pattern (min)"], rows["test graphs per pattern (max)"]) == (1, 2)
    assert (rows["pattern size min"], rows["pattern size median"], rows["pattern size max"]) == (6, 14.0, 20)
    assert rows["pattern size mean"] == 40 / 3 and rows["patterns with 14 or more nodes"] == 2


def test_release_truth_recovers_pattern_ids(as_release) -> None:
    law = law_for()
    library = draw_library(law, 3, seed=2)
    parts = [official_split(library, law, split, n, seed=2)[0] for split, n in (("train", 4), ("val", 1), ("test", 2))]
    splits = release_splits(as_release("PATTERN", parts))
    patterns, _ = _library_of(splits["train"])
    truth = release_truth(splits["test"], patterns)
    assert truth.pattern_id.tolist() == [0, 0, 1, 1, 2, 2]
    assert (truth.host_sizes == -1).all()
    assert truth.pattern_size.tolist() == [len(x) for _, x in library for _ in (0, 1)]
    assert (release_truth(splits["test"], patterns[:1]).pattern_id == [0, 0, -1, -1, -1, -1]).all()

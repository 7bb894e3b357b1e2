"""Shard files: counts, paths, slices, per-node and per-graph fields read back by graph."""

from __future__ import annotations

import numpy as np

from graphaudit.pattern.shards import read_graph_field, read_shards, shard_count, shard_of, shard_paths, write_shard


def test_shard_arithmetic() -> None:
    assert shard_count(1000, 100) == 10 and shard_count(101, 100) == 2 and shard_count(0, 5) == 0
    assert shard_of([3, 5, 7, 9, 11], 1, 2) == [7, 9] and shard_of([3, 5, 7], 1, 2) == [7]
    assert shard_paths("out/test/matcher", 2) == ["out/test/matcher/shard0.npz", "out/test/matcher/shard1.npz"]


def test_shards_are_read_back_by_graph(tmp_path) -> None:
    first, second = str(tmp_path / "a.npz"), str(tmp_path / "b.npz")
    write_shard(
        first, [4, 2], {"posterior": [np.array([0.1, 0.2]), np.array([0.3, 0.4, 0.5])]}, {"kind": np.array(["x", "y"])}
    )
    write_shard(second, [7], {"posterior": [np.array([0.6])]}, {"kind": np.array(["z"])})
    out = read_shards([second, first], "posterior")
    assert out[4].tolist() == [0.1, 0.2] and out[2].tolist() == [0.3, 0.4, 0.5] and out[7].tolist() == [0.6]
    assert read_graph_field([first, second], "kind") == {4: "x", 2: "y", 7: "z"}


def test_chain_fields_keep_their_leading_axis(tmp_path) -> None:
    path = str(tmp_path / "c.npz")
    write_shard(path, [0, 1], {"random": [np.zeros((3, 2)), np.ones((3, 4))]})
    out = read_shards([path], "random")
    assert out[0].shape == (3, 2) and out[1].shape == (3, 4) and out[1].sum() == 12

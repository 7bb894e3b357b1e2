"""Long loops as jobs of minutes: items cut into shards of a fixed size, one ``.npz`` file per shard.

A shard file of per-graph results holds the graph indices, ``node_ptr`` and every per-node field concatenated
along its last axis (:func:`write_shard`); :func:`read_shards` reads them back keyed by graph, whatever the
order of the files, each file CRC-checked (a truncated or corrupt shard is an error naming it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz

__all__ = ["read_graph_field", "read_shards", "shard_count", "shard_of", "shard_paths", "write_shard"]


def shard_count(items: int, size: int) -> int:
    """Shards of ``size`` items needed for ``items`` items (the last one may be shorter)."""
    return -(-items // size)


def shard_of(order: Sequence[int], shard: int, size: int) -> list[int]:
    """The items of shard ``shard``: positions ``shard * size`` onwards of ``order``, ``size`` of them."""
    return list(order[shard * size : (shard + 1) * size])


def shard_paths(folder: str, count: int) -> list[str]:
    """``folder/shard0.npz`` ... ``folder/shard<count - 1>.npz``: the files of one sharded job family."""
    return [f"{folder}/shard{k}.npz" for k in range(count)]


def write_shard(
    path: str,
    graphs: Sequence[int],
    per_node: dict[str, list[np.ndarray]],
    per_graph: dict[str, np.ndarray] | None = None,
) -> None:
    """One shard's results: the graph indices, ``node_ptr``, every per-node field concatenated along its last axis
    (graph by graph, in ``graphs`` order) and the per-graph fields; :func:`read_shards` reads it back."""
    sizes = [values.shape[-1] for values in next(iter(per_node.values()))] if per_node else []
    nodes = {name: np.concatenate(values, axis=-1) if values else np.zeros(0) for name, values in per_node.items()}
    write_npz(
        path,
        graph=np.asarray(graphs, dtype=np.int64),
        node_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        **nodes,
        **(per_graph or {}),
    )


def read_shards(paths: Sequence[str], field: str) -> dict[int, np.ndarray]:
    """Per-graph arrays ``field`` of every shard, keyed by graph index: node values along the last axis, split
    by ``node_ptr`` (so ``(chains, nodes)`` arrays give ``(chains, n)`` per graph)."""
    out: dict[int, np.ndarray] = {}
    for path in paths:
        data = read_npz(path, ("graph", "node_ptr", field))
        ptr, values = data["node_ptr"], data[field]
        for i, g in enumerate(data["graph"].tolist()):
            out[g] = values[..., ptr[i] : ptr[i + 1]]
    return out


def read_graph_field(paths: Sequence[str], field: str) -> dict[int, object]:
    """A per-graph field of every shard (one value per graph, as a Python scalar), keyed by graph index."""
    out: dict[int, object] = {}
    for path in paths:
        data = read_npz(path, ("graph", field))
        out.update(zip(data["graph"].tolist(), data[field].tolist()))
    return out

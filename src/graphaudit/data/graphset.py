"""GraphSet: one compact, pickle-free container for a collection of graphs (or one large graph).

Arrays (CSR style, global node ids):

- ``node_ptr`` (G+1,): graph g owns nodes ``node_ptr[g]:node_ptr[g+1]``.
- ``edge_ptr`` (G+1,): graph g owns rows ``edge_ptr[g]:edge_ptr[g+1]`` of ``edges``.
- ``edges`` (E, 2): global node ids. Undirected sets store each edge once with ``u < v``.
- optional per node: ``node_labels`` (categorical labels), ``node_attrs`` (float features),
  ``node_target`` (node-classification classes); per edge: ``edge_labels``; per graph: ``graph_labels`` and
  ``graph_split`` (G, 2), a published graph split (OGB's scaffold split): column 0 the part (index into
  :data:`GRAPH_SPLIT_PARTS`, -1 for a graph in no part), column 1 the graph's position in that part's file
  (the order a loader of the published split sees); split masks ``train_masks``/``val_masks``/``test_masks``
  (S, N) for node tasks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz

if TYPE_CHECKING:  # imported lazily: heavy libraries only where a converter is used
    import igraph
    import networkx
    import torch_geometric.data

GRAPH_SPLIT_PARTS = ("train", "valid", "test")
OPTIONAL_ARRAYS = (
    "node_labels",
    "node_attrs",
    "node_target",
    "edge_labels",
    "graph_labels",
    "graph_split",
    "train_masks",
    "val_masks",
    "test_masks",
)


@dataclass
class GraphSet:
    """A collection of graphs in CSR form; see the module docstring for the arrays."""

    name: str
    node_ptr: np.ndarray
    edge_ptr: np.ndarray
    edges: np.ndarray
    directed: bool = False
    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.node_ptr = np.asarray(self.node_ptr, dtype=np.int64)
        self.edge_ptr = np.asarray(self.edge_ptr, dtype=np.int64)
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        unknown = set(self.arrays) - set(OPTIONAL_ARRAYS)
        if unknown:
            raise ValueError(
                f"GraphSet {self.name!r}: unknown arrays {sorted(unknown)}; allowed: {', '.join(OPTIONAL_ARRAYS)}"
            )
        self.validate()

    # ---- shape -------------------------------------------------------------------------------
    @property
    def num_graphs(self) -> int:
        return len(self.node_ptr) - 1

    @property
    def num_nodes(self) -> int:
        return int(self.node_ptr[-1])

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    def node_counts(self) -> np.ndarray:
        """Nodes per graph, isolated nodes included."""
        return np.diff(self.node_ptr)

    def edge_counts(self) -> np.ndarray:
        """Edges per graph (undirected pairs once, without loops or duplicates)."""
        return np.diff(self.edge_ptr)

    def densities(self) -> np.ndarray:
        """2m / (n(n-1)) per graph (m / (n(n-1)) for directed sets); 0 where n < 2."""
        n, m = self.node_counts().astype(float), self.edge_counts().astype(float)
        pairs = n * (n - 1) / (1 if self.directed else 2)
        return np.divide(m, pairs, out=np.zeros_like(m), where=pairs > 0)

    def graph_of_nodes(self) -> np.ndarray:
        """The graph index of every node."""
        return np.repeat(np.arange(self.num_graphs), self.node_counts())

    def graph_of_edges(self) -> np.ndarray:
        """The graph index of every edge row."""
        return np.repeat(np.arange(self.num_graphs), self.edge_counts())

    def get(self, name: str) -> np.ndarray | None:
        """An optional array, or None when the set has none."""
        return self.arrays.get(name)

    def validate(self) -> None:
        """Check the CSR invariants; raise ValueError naming the first broken one."""
        problems = []
        if len(self.node_ptr) < 2 or self.node_ptr[0] != 0 or np.any(np.diff(self.node_ptr) < 0):
            problems.append("node_ptr must start at 0 and be non-decreasing")
        if (
            len(self.edge_ptr) != len(self.node_ptr)
            or self.edge_ptr[0] != 0
            or self.edge_ptr[-1] != len(self.edges)
            or np.any(np.diff(self.edge_ptr) < 0)
        ):
            problems.append("edge_ptr must have G+1 entries from 0 to the edge count, non-decreasing")
        if not problems and len(self.edges):
            owner = self.graph_of_edges()
            lo, hi = self.node_ptr[owner], self.node_ptr[owner + 1]
            if np.any(self.edges < lo[:, None]) or np.any(self.edges >= hi[:, None]):
                problems.append("every edge must join two nodes of its own graph")
        sizes = {"node": self.num_nodes, "edge": self.num_edges, "graph": self.num_graphs}
        for name, array in self.arrays.items():
            if name.endswith("_masks"):
                if array.ndim != 2 or array.shape[1] != self.num_nodes:
                    problems.append(f"{name} must have shape (splits, {self.num_nodes})")
                continue
            expected = sizes[name.split("_")[0]]
            if len(array) != expected:
                problems.append(f"{name} has {len(array)} rows, expected {expected}")
            elif name == "graph_split" and array.shape != (expected, 2):
                problems.append(f"graph_split must have shape ({expected}, 2) (part, position), found {array.shape}")
        if problems:
            raise ValueError(f"GraphSet {self.name!r} is malformed: " + "; ".join(problems))

    # ---- one graph ---------------------------------------------------------------------------
    def graph_edges(self, g: int) -> np.ndarray:
        """Edges of graph ``g`` with node ids local to the graph (0..n_g-1)."""
        return self.edges[self.edge_ptr[g] : self.edge_ptr[g + 1]] - self.node_ptr[g]

    def graph_size(self, g: int) -> int:
        return int(self.node_ptr[g + 1] - self.node_ptr[g])

    def node_slice(self, name: str, g: int) -> np.ndarray | None:
        array = self.arrays.get(name)
        return None if array is None else array[self.node_ptr[g] : self.node_ptr[g + 1]]

    def edge_slice(self, name: str, g: int) -> np.ndarray | None:
        array = self.arrays.get(name)
        return None if array is None else array[self.edge_ptr[g] : self.edge_ptr[g + 1]]

    def to_networkx(self, g: int = 0) -> networkx.Graph:
        """Graph ``g`` as a networkx (Di)Graph; node attribute ``label``/``attrs``/``target``, edge ``label``."""
        import networkx as nx

        graph = nx.DiGraph() if self.directed else nx.Graph()
        graph.add_nodes_from(range(self.graph_size(g)))
        for key, name in (("label", "node_labels"), ("attrs", "node_attrs"), ("target", "node_target")):
            values = self.node_slice(name, g)
            if values is not None:
                nx.set_node_attributes(graph, {i: _scalar(v) for i, v in enumerate(values)}, key)
        edges = self.graph_edges(g)
        labels = self.edge_slice("edge_labels", g)
        if labels is None:
            graph.add_edges_from(map(tuple, edges.tolist()))
        else:
            graph.add_edges_from((u, v, {"label": int(lab)}) for (u, v), lab in zip(edges.tolist(), labels))
        return graph

    def to_igraph(self, g: int = 0) -> igraph.Graph:
        """Graph ``g`` as an igraph Graph with vertex attribute ``label`` and edge attribute ``label``."""
        import igraph as ig

        graph = ig.Graph(n=self.graph_size(g), edges=self.graph_edges(g).tolist(), directed=self.directed)
        labels = self.node_slice("node_labels", g)
        if labels is not None:
            graph.vs["label"] = labels.tolist()
        edge_labels = self.edge_slice("edge_labels", g)
        if edge_labels is not None:
            graph.es["label"] = edge_labels.tolist()
        return graph

    def to_pyg(self, g: int = 0) -> torch_geometric.data.Data:
        """Graph ``g`` as a PyG ``Data`` with both edge directions for undirected sets.

        ``x`` is the float attributes when present, else the one-hot node labels shifted to start at 0
        over the whole set (as PyG's ``TUDataset`` does), else absent;
        ``y`` is the graph label (graph sets) or the node targets (node sets).
        """
        import torch
        from torch_geometric.data import Data

        edges = self.graph_edges(g)
        edge_labels = self.edge_slice("edge_labels", g)
        if not self.directed:
            edges = np.concatenate([edges, edges[:, ::-1]])
            edge_labels = None if edge_labels is None else np.concatenate([edge_labels, edge_labels])
        data = Data(edge_index=torch.from_numpy(np.ascontiguousarray(edges.T)), num_nodes=self.graph_size(g))
        attrs, labels = self.node_slice("node_attrs", g), self.node_slice("node_labels", g)
        if attrs is not None:
            data.x = torch.from_numpy(np.asarray(attrs, dtype=np.float32))
        elif labels is not None:
            all_labels = self.arrays["node_labels"]
            low, high = int(all_labels.min()), int(all_labels.max())
            data.x = torch.from_numpy(one_hot(labels - low, high - low + 1))
        if edge_labels is not None:
            data.edge_label = torch.from_numpy(edge_labels)
        target = self.node_slice("node_target", g)
        if target is not None:
            data.y = torch.from_numpy(target)
        elif "graph_labels" in self.arrays:
            data.y = torch.tensor([int(self.arrays["graph_labels"][g])])
        return data

    # ---- storage -----------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the set to ``path`` (.npz, no pickle) atomically."""
        write_npz(
            path,
            name=np.array(self.name),
            directed=np.array(self.directed),
            node_ptr=self.node_ptr,
            edge_ptr=self.edge_ptr,
            edges=self.edges,
            **self.arrays,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GraphSet:
        """Read a set written by :meth:`save` (no pickle; a truncated or corrupt file raises
        :class:`~graphaudit.common.integrity.CorruptFileError` naming it)."""
        archive = read_npz(path)
        required = {"name", "directed", "node_ptr", "edge_ptr", "edges"}
        if not required <= set(archive):
            raise ValueError(f"{path} is not a GraphSet file: missing arrays {sorted(required - set(archive))}")
        return cls(
            name=str(archive["name"]),
            node_ptr=archive["node_ptr"],
            edge_ptr=archive["edge_ptr"],
            edges=archive["edges"],
            directed=bool(archive["directed"]),
            arrays={k: archive[k] for k in OPTIONAL_ARRAYS if k in archive},
        )


def split_members(graphs: GraphSet, part: str) -> np.ndarray:
    """The graphs of one published split part (``train``/``valid``/``test``) in the order of its file."""
    split = graphs.get("graph_split")
    if split is None:
        raise ValueError(f"GraphSet {graphs.name!r} holds no published graph split (graph_split)")
    if part not in GRAPH_SPLIT_PARTS:
        raise ValueError(f"unknown split part {part!r}; parts are {', '.join(GRAPH_SPLIT_PARTS)}")
    members = np.flatnonzero(split[:, 0] == GRAPH_SPLIT_PARTS.index(part))
    return members[np.argsort(split[members, 1], kind="stable")]


def one_hot(labels: np.ndarray, width: int) -> np.ndarray:
    """Float32 one-hot rows for integer labels in ``0..width-1``."""
    out = np.zeros((len(labels), width), dtype=np.float32)
    out[np.arange(len(labels)), labels] = 1.0
    return out


def from_edge_list(
    name: str, graph_of_node: np.ndarray, edges: np.ndarray, directed: bool = False, **arrays: Any
) -> GraphSet:
    """Build a GraphSet from a per-node graph index (sorted, 0-based) and global edges.

    Edges are grouped by graph. Undirected edges are reduced to one ``u < v`` row per pair, self-loops
    and duplicates dropped; per-edge arrays (``edge_labels``) follow the row kept for each pair.
    """
    graph_of_node = np.asarray(graph_of_node, dtype=np.int64)
    if len(graph_of_node) and np.any(np.diff(graph_of_node) < 0):
        raise ValueError(f"{name}: nodes must be listed graph by graph (graph indicator must not decrease)")
    num_graphs = int(graph_of_node[-1]) + 1 if len(graph_of_node) else 0
    node_ptr = np.zeros(num_graphs + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph_of_node, minlength=num_graphs), out=node_ptr[1:])
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edge_labels = arrays.pop("edge_labels", None)
    edges, keep = canonical_edges(edges, directed, num_nodes=len(graph_of_node))
    owner = graph_of_node[edges[:, 0]] if len(edges) else np.zeros(0, dtype=np.int64)
    if len(edges) and np.any(owner != graph_of_node[edges[:, 1]]):
        raise ValueError(f"{name}: an edge joins nodes of two different graphs")
    order = np.argsort(owner, kind="stable")
    edges, keep = edges[order], keep[order]
    edge_ptr = np.zeros(num_graphs + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=num_graphs), out=edge_ptr[1:])
    if edge_labels is not None:
        arrays["edge_labels"] = np.asarray(edge_labels)[keep]
    arrays = {k: np.asarray(v) for k, v in arrays.items() if v is not None}
    return GraphSet(name=name, node_ptr=node_ptr, edge_ptr=edge_ptr, edges=edges, directed=directed, arrays=arrays)


def canonical_edges(edges: np.ndarray, directed: bool, num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Drop self-loops and duplicate pairs (either direction when undirected); sort by (u, v).

    Returns the kept edges and the index of the input row each came from (the first occurrence).
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(edges) and (edges.min() < 0 or edges.max() >= num_nodes):
        raise ValueError(f"edge endpoints must lie in 0..{num_nodes - 1}; found {edges.min()}..{edges.max()}")
    rows = np.arange(len(edges))
    loops = edges[:, 0] == edges[:, 1]
    edges, rows = edges[~loops], rows[~loops]
    if not directed:
        edges = np.sort(edges, axis=1)
    key = edges[:, 0] * np.int64(num_nodes) + edges[:, 1]
    _, first = np.unique(key, return_index=True)
    return edges[first], rows[first]


def _scalar(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value.item() if hasattr(value, "item") else value


def concat_graphsets(name: str, parts: list[GraphSet]) -> GraphSet:
    """The graphs of ``parts`` one after another (ids shift by the earlier parts' sizes).

    Only arrays that every part has are kept; node-task split masks are dropped.
    """
    if not parts:
        raise ValueError("concat_graphsets needs at least one GraphSet")
    node_offsets = np.cumsum([0] + [p.num_nodes for p in parts])
    edge_offsets = np.cumsum([0] + [p.num_edges for p in parts])
    node_ptr = np.concatenate([[0]] + [p.node_ptr[1:] + off for p, off in zip(parts, node_offsets)])
    edge_ptr = np.concatenate([[0]] + [p.edge_ptr[1:] + off for p, off in zip(parts, edge_offsets)])
    edges = np.concatenate([p.edges + off for p, off in zip(parts, node_offsets)])
    shared = set.intersection(*(set(p.arrays) for p in parts)) - {"train_masks", "val_masks", "test_masks"}
    arrays = {key: np.concatenate([p.arrays[key] for p in parts]) for key in sorted(shared)}
    return GraphSet(
        name=name, node_ptr=node_ptr, edge_ptr=edge_ptr, edges=edges, directed=parts[0].directed, arrays=arrays
    )

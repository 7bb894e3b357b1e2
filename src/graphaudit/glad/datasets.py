"""Which registry files make up each glad dataset, and the graphs and node labels UB-GOLD sees."""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import GraphSet, concat_graphsets

TOX21_PREFIX = "Tox21_"
UB9 = ("AIDS", "BZR", "COX2", "DHFR", "ENZYMES", "NCI1", "PROTEINS_full", "IMDB-BINARY", "REDDIT-BINARY")
SECONDARY = ("DD", "COLLAB", "Tox21_p53", "Tox21_MMP", "MUTAG")
"""The datasets of the secondary tables (20, 28-29)."""


def is_tox21(dataset: str) -> bool:
    return dataset.startswith(TOX21_PREFIX)


def source_datasets(dataset: str) -> list[str]:
    """Registry names a glad dataset is read from (Tox21 tasks: the training and the testing file)."""
    if is_tox21(dataset):
        return [f"{dataset}_training", f"{dataset}_testing"]
    return [dataset]


def load_glad_graphs(dataset: str, parts: list[GraphSet]) -> tuple[GraphSet, int]:
    """One GraphSet for the dataset and the number of leading graphs that come from a training file.

    TU sets are one file (returns its size); Tox21 tasks are the training file followed by the testing one.
    """
    if len(parts) == 1:
        return parts[0], parts[0].num_graphs
    return concat_graphsets(dataset, parts), parts[0].num_graphs


def node_colours(graphs: GraphSet, constant: bool) -> np.ndarray:
    """The discrete node labels UB-GOLD's features encode: the TU node labels, or 1 on constant-feature sets."""
    labels = graphs.get("node_labels")
    if constant or labels is None:
        return np.ones(graphs.num_nodes, dtype=np.int64)
    return labels.astype(np.int64)

"""Tables 1 and 5: the three benchmarks' published scores (quoted from the paper, never reproduced) and what
each generator draws, written from the laws the project's generators and samplers use (so the table changes when
a law does, and never disagrees with the code that drew the graphs)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from graphaudit.pattern.cluster.generator import ClusterLaw
from graphaudit.pattern.minesweeper.board import N_MINES, N_UNKNOWN, SIDE, grid_edges
from graphaudit.pattern.minesweeper.bp import COUNT_CAP
from graphaudit.pattern.planted.generator import SIZE_LAWS, PatternLaw
from graphaudit.pattern.settings import PerPattern

__all__ = ["TABLE1_COLUMNS", "TABLE5_COLUMNS", "table1_frame", "table5_frame"]

TABLE1_COLUMNS = [
    "benchmark",
    "metric",
    "test",
    "without_graph",
    "without_graph_model",
    "benchmark_paper",
    "benchmark_paper_model",
    "best_published",
    "best_published_sd",
    "best_published_model",
    "note",
    "quoted",
]
TABLE5_COLUMNS = ["benchmark", "draws", "source"]


def table1_frame(quoted: Sequence[dict]) -> pd.DataFrame:
    """Table 1: the published scores (``pattern.published``'s ``table1``), every row marked quoted."""
    frame = pd.DataFrame(list(quoted)).assign(quoted=True)
    for column in TABLE1_COLUMNS:
        if column not in frame:
            frame[column] = ""
    return frame[TABLE1_COLUMNS]


def _range(bounds: tuple[int, int]) -> str:
    low, high = bounds
    return f"{low}" if low == high else f"{low} to {high}"


def _number(value: float) -> str:
    return f"{value:g}"


def pattern_text(law: PatternLaw, n_patterns: int, per_pattern: PerPattern, library_sizes: Sequence[int]) -> str:
    """The official-like splits' draw under ``law``, with the sizes of the library this run drew."""
    sizes = f"{min(library_sizes)} to {max(library_sizes)}" if library_sizes else "none"
    return (
        f"Host: a stochastic block model with {law.blocks} blocks of sizes drawn uniformly from "
        f"{_range(law.host_size)}, edge probability {_number(law.p)} within a block and {_number(law.q)} across "
        f"blocks; features uniform on {law.features} values. Pattern: a random graph of a size drawn uniformly from "
        f"{_range(law.pattern_size)} nodes, with edge probability {_number(law.p)} and uniform features, drawn once "
        f"for each of the {n_patterns} patterns (each planted in {per_pattern.train} training, {per_pattern.val} "
        f"validation and {per_pattern.test} test graphs); each pattern node joined to each host node with probability "
        f"{_number(law.pattern_host)}. This run's library: {len(library_sizes)} patterns of {sizes} nodes."
    )


def fresh_text(law: PatternLaw, size_law: str) -> str:
    """The fresh and familiar test sets' draw (same host law, another pattern per graph)."""
    return (
        f"Same host law. Fresh set: a new pattern in every graph, of a size drawn uniformly from "
        f"{_range(SIZE_LAWS[size_law])} nodes, edge probability {_number(law.p)}, uniform features, joined to the host "
        f"with probability {_number(law.pattern_host)}. Familiar set: a new host carrying a library pattern drawn "
        "uniformly, with its features."
    )


def cluster_text(law: ClusterLaw) -> str:
    return (
        f"A stochastic block model with {law.blocks} blocks of sizes drawn uniformly from {_range(law.size)}, edge "
        f"probability {_number(law.p)} within a block and {_number(law.q)} across; one node per block, chosen "
        "uniformly, carries the block's index as its feature, every other node a zero."
    )


def minesweeper_text() -> str:
    cells = SIDE * SIDE
    neighbours = int((grid_edges(3) == 4).any(axis=1).sum())  # the centre cell of a 3 x 3 grid (the board's edges)
    return (
        f"One square grid of side {SIDE} with each cell joined to its {neighbours} neighbors; mines on a fixed "
        f"share {_number(N_MINES / cells)} of the cells, placed uniformly at random; a "
        f"random {_number(100 * (cells - N_UNKNOWN) / cells)}% of the cells show the number of mined neighbors, "
        f"capped at {COUNT_CAP}, as a one-hot feature, and the rest show a flag for an unknown count."
    )


def table5_frame(
    law: PatternLaw,
    version: int,
    size_law: str,
    n_patterns: int,
    per_pattern: PerPattern,
    library_sizes: Sequence[int],
    cluster: ClusterLaw,
) -> pd.DataFrame:
    """Table 5: each generator's draw from its law, and which code holds that law."""
    rows = [
        (
            "PATTERN",
            pattern_text(law, n_patterns, per_pattern, library_sizes),
            f"graphaudit.pattern.planted.generator.PatternLaw (notebook version {version}, pattern sizes: {size_law})",
        ),
        ("PATTERN, fresh and familiar sets", fresh_text(law, size_law), "graphaudit.pattern.planted.generator"),
        ("CLUSTER", cluster_text(cluster), "graphaudit.pattern.cluster.generator.ClusterLaw"),
        ("Minesweeper", minesweeper_text(), "graphaudit.pattern.minesweeper.board (the released board's recipe)"),
    ]
    return pd.DataFrame(rows, columns=TABLE5_COLUMNS)

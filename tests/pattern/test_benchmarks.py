"""Tables 1 and 5: the quoted scores are marked quoted, and Table 5 is written from the laws the generators use."""

from __future__ import annotations

from graphaudit.pattern.benchmarks import TABLE1_COLUMNS, table1_frame, table5_frame
from graphaudit.pattern.cluster.generator import ClusterLaw
from graphaudit.pattern.planted.generator import law_for
from graphaudit.pattern.settings import PerPattern, load_published


def test_table1_quotes_the_papers_scores() -> None:
    quoted = load_published("config/pattern/published.yaml")["table1"]
    frame = table1_frame(quoted)
    assert list(frame.columns) == TABLE1_COLUMNS and frame["quoted"].all()
    assert frame.set_index("benchmark")["best_published"].to_dict() == {
        "PATTERN": 89.75,
        "CLUSTER": 81.59,
        "Minesweeper": 99.55,
    }
    assert frame.set_index("benchmark")["without_graph"].to_dict() == {
        "PATTERN": 50.52,
        "CLUSTER": 20.97,
        "Minesweeper": 50.89,
    }


def _draws(version: int, size_law: str, cluster: ClusterLaw) -> dict[str, str]:
    frame = table5_frame(
        law_for(version, size_law), version, size_law, 100, PerPattern(100, 20, 20), [6, 21, 34], cluster
    )
    return dict(zip(frame["benchmark"], frame["draws"]))


def test_table5_is_written_from_the_generator_laws() -> None:
    released = _draws(2, "release", ClusterLaw())
    assert (
        "5 blocks of sizes drawn uniformly from 5 to 34, edge probability 0.5 within a block and 0.35 across"
        in (released["PATTERN"])
    )
    assert "a size drawn uniformly from 6 to 34 nodes" in released["PATTERN"]
    assert "This run's library: 3 patterns of 6 to 34 nodes." in released["PATTERN"]
    assert (
        "6 blocks of sizes drawn uniformly from 5 to 34, edge probability 0.55 within a block and 0.25"
        in (released["CLUSTER"])
    )
    assert "side 100 with each cell joined to its 8 neighbors; mines on a fixed share 0.2" in released["Minesweeper"]
    assert "a random 50% of the cells" in released["Minesweeper"] and "capped at 5" in released["Minesweeper"]
    first = _draws(1, "notebook", ClusterLaw(p=0.6))  # the first notebook: 0.2 across blocks, patterns of 20 nodes
    assert "0.2 across blocks" in first["PATTERN"] and "a size drawn uniformly from 20 nodes" in first["PATTERN"]
    assert "from 5 to 34 nodes" in first["PATTERN, fresh and familiar sets"]  # fresh sizes follow the size law
    assert "edge probability 0.6 within a block" in first["CLUSTER"]

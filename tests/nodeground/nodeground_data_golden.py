"""The nodeground data golden set: four committed tiny graphs (``golden/data/graphs/``: the three CI CSBM designs
and a hand-made graph with an unlabelled and an isolated node) and the properties table the data stage builds
from them (``golden/data/properties.csv`` and its Markdown twin), rebuilt byte for byte by the tests.

Regenerate after a deliberate change (review the diff, and say why in the commit)::

    .venv/bin/python tests/nodeground/nodeground_data_golden.py --regenerate
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np

from graphaudit.common.rule import RuleContext
from graphaudit.nodeground.csbm import CSBMSpec, generate
from graphaudit.nodeground.data_tasks import nodeground_properties
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.preprocess import preprocess

DATA_DIR = Path(__file__).resolve().parent / "golden" / "data"
GRAPHS_DIR = DATA_DIR / "graphs"
EXPECTED = DATA_DIR / "properties.csv"

CSBM = {
    "ci-binary": CSBMSpec(300, 2, 1.0, 6, 0.6, 16, None, 1.0),
    "ci-3class": CSBMSpec(300, 3, 2.0, 6, 0.3, 32, 0.1, 1.0),
    "ci-12class": CSBMSpec(360, 12, 2.0, 8, 0.5, 24, None, 1.0),
}
"""The CI designs of config/ci.yaml, pinned here so a config change cannot move the golden set."""


def hand_graph() -> NodeGraph:
    """Six nodes: a labelled triangle 0-1-2, a path 2-3-4 with node 4 unlabelled, node 5 isolated; sparse
    features with a NaN."""
    x = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, np.nan], [0, 0, 1], [0, 0, 0]], dtype=np.float32)
    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 3]])
    return preprocess("hand", x, edges, np.array([3, 3, 7, 7, -1, 3]))


def golden_graphs() -> list[NodeGraph]:
    return [generate(name, spec) for name, spec in CSBM.items()] + [hand_graph()]


def build_properties(out: Path) -> Path:
    """The properties table of the committed graphs, written by the rule entry under ``out``."""
    paths = sorted(str(p) for p in GRAPHS_DIR.glob("*.npz"))
    target = out / "properties.csv"
    nodeground_properties(RuleContext(input={"graphs": paths}, output={"properties": str(target)}))
    return target


def regenerate() -> None:
    shutil.rmtree(GRAPHS_DIR, ignore_errors=True)
    for graph in golden_graphs():
        graph.save(GRAPHS_DIR / f"{graph.name}.npz")
    built = build_properties(DATA_DIR / ".build")
    shutil.copyfile(built, EXPECTED)
    shutil.copyfile(built.with_suffix(".md"), EXPECTED.with_suffix(".md"))
    shutil.rmtree(DATA_DIR / ".build")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    regenerate()

"""The graphlm golden set: the intermediate files of a tiny run (``golden/<dataset>/``: ``stats.json``,
``patterns.json``, ``bootstrap/r<k>.json``, ``evaluation/<generator>.json``, ``sensitivity.json``), made by the
study's rule entries from two small seeded graph sets, and the tables the table functions build from them
(``golden/expected/``), rebuilt byte for byte by ``test_tables.py`` (the DomainBed ``test_collect_results``
model).

Regenerate after a deliberate change, review the diff and say why in the commit::

    .venv/bin/python -m tests.graphlm.golden --regenerate
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.graphlm import tables, tasks

GOLDEN = Path(__file__).resolve().parent / "golden"
EXPECTED = GOLDEN / "expected"
DATASETS = ("ALPHA", "BETA")
GENERATORS = ("bootstrap", "random_labels")
REPLICATES = 3
GSPAN = {"sigma": 0.25, "upper": 4, "max_projection": 500000, "backend": "own"}
N_GEN = 12
CORPUS = {"components": "first", "dfs_code": "greedy", "tuple_order": "paper"}
SENSITIVITY = {"datasets": ["ALPHA"], "sigma": 0.125}
"""The golden run's settings (pinned here, not read from the config, so a config change cannot move it)."""
TABLES = ("table9", "table10", "patterns", "bootstrap", "evaluation", "strata", "sensitivity")


def toy_graphs(name: str, count: int = 16) -> GraphSet:
    """``count`` small connected labelled graphs (a random tree plus one chord), seeded by ``name``."""
    rng = rng_for("graphlm", "golden", name)
    owner, edges, node_labels, edge_labels, offset = [], [], [], [], 0
    for g in range(count):
        size = int(rng.integers(3, 7))
        owner += [g] * size
        node_labels += rng.integers(0, 3, size).tolist()
        pairs = [(offset + int(rng.integers(0, v)), offset + v) for v in range(1, size)]
        pairs.append((offset, offset + size - 1))
        edges += pairs
        edge_labels += rng.integers(0, 2, len(pairs)).tolist()
        offset += size
    return from_edge_list(
        name,
        np.array(owner),
        np.array(edges),
        node_labels=np.array(node_labels),
        edge_labels=np.array(edge_labels),
        graph_labels=np.zeros(count, dtype=np.int64),
    )


def table_inputs(root: Path) -> dict[str, dict[str, list[str] | str]]:
    """Each table's named inputs among the intermediate files under ``root`` (as the rule file lists them)."""
    stats = [str(root / d / "stats.json") for d in DATASETS]
    evaluations = [str(root / d / "evaluation" / f"{g}.json") for d in DATASETS for g in GENERATORS]
    return {
        "table9": {"stats": stats},
        "table10": {"stats": stats},
        "patterns": {"patterns": [str(root / d / "patterns.json") for d in DATASETS]},
        "bootstrap": {
            "bootstrap": [str(root / d / "bootstrap" / f"r{k}.json") for d in DATASETS for k in range(REPLICATES)]
        },
        "evaluation": {"evaluations": evaluations},
        "strata": {"evaluations": evaluations},
        "sensitivity": {
            "evaluations": evaluations,
            "sensitivity": [str(root / d / "sensitivity.json") for d in SENSITIVITY["datasets"]],
        },
    }


def build_tables(root: Path, out: Path) -> Path:
    """Every table from the intermediate files under ``root``, into ``out``."""
    for name, inputs in table_inputs(root).items():
        getattr(tables, name)(RuleContext(input=inputs, output={"table": str(out / f"{name}.csv")}))
    return out


def _run(entry, dataset: str, inputs: dict, outputs: dict, params: dict, **wildcards: str) -> None:
    entry(RuleContext(input=inputs, output=outputs, params=params, wildcards={"dataset": dataset, **wildcards}))


def build_intermediates(root: Path, work: Path) -> Path:
    """The intermediate files of the golden run under ``root`` (graph sets and sequences under ``work``)."""
    for dataset in DATASETS:
        d, w = root / dataset, work / dataset
        w.mkdir(parents=True, exist_ok=True)
        toy_graphs(dataset).save(w / "graphs.npz")
        train, patterns = str(w / "train.dfs.txt"), str(d / "patterns.json")
        corpus_out = {"sequences": train, "codes": str(w / "train.codes.txt"), "stats": str(d / "stats.json")}
        _run(tasks.graphlm_corpus, dataset, {"graphset": str(w / "graphs.npz")}, corpus_out, CORPUS)
        _run(tasks.graphlm_mine_training, dataset, {"sequences": train}, {"patterns": patterns}, {"gspan": GSPAN})
        boot = [str(d / "bootstrap" / f"r{k}.json") for k in range(REPLICATES)]
        for k, path in enumerate(boot):
            inputs, params = {"sequences": train, "patterns": patterns}, {"gspan": GSPAN, "n_gen": N_GEN}
            _run(tasks.graphlm_bootstrap, dataset, inputs, {"metrics": path}, params, replicate=str(k))
        generated = [str(w / f"{g}.dfs.txt") for g in GENERATORS]
        for generator, path in zip(GENERATORS, generated):
            inputs = {"sequences": train}
            _run(tasks.graphlm_generate, dataset, inputs, {"sequences": path}, {"n_gen": N_GEN}, generator=generator)
            inputs = {"generated": path, "sequences": train, "patterns": patterns, "bootstrap": boot}
            outputs = {"metrics": str(d / "evaluation" / f"{generator}.json")}
            _run(tasks.graphlm_evaluate, dataset, inputs, outputs, {"gspan": GSPAN}, generator=generator)
        if dataset in SENSITIVITY["datasets"]:
            inputs, params = (
                {"sequences": train, "generated": generated},
                {"gspan": GSPAN, "sigma": SENSITIVITY["sigma"]},
            )
            _run(tasks.graphlm_sensitivity, dataset, inputs, {"rows": str(d / "sensitivity.json")}, params)
    return root


def regenerate() -> None:
    """Rewrite the committed intermediates and expected tables (review the diff before committing)."""
    for dataset in DATASETS:
        shutil.rmtree(GOLDEN / dataset, ignore_errors=True)
    shutil.rmtree(EXPECTED, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        build_intermediates(GOLDEN, Path(work))
    build_tables(GOLDEN, EXPECTED)
    print(f"wrote {GOLDEN}; review `git diff -- {GOLDEN}`")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    regenerate()

"""The search-loop benchmark's two loops run the same model on the same data (no timings asserted)."""

from __future__ import annotations

from pathlib import Path

import torch

from graphaudit.bench.nodeground_search import bare_loop, search_loop
from graphaudit.nodeground.csbm import CSBMSpec, generate
from graphaudit.nodeground.plan import load_methods
from graphaudit.nodeground.splits import make_splits
from graphaudit.nodeground.trials import SearchData

ROOT = Path(__file__).resolve().parents[2]


def test_both_loops_train_the_catalogues_gcn_and_leave_no_state(tmp_path: Path) -> None:
    spec = CSBMSpec(
        nodes=80,
        classes=3,
        imbalance=1.0,
        avg_degree=4.0,
        homophily=0.5,
        feature_dim=5,
        feature_density=None,
        signal=1.0,
    )
    graph = generate("bench-toy", spec)
    search = SearchData.load(graph, make_splits(graph, "50-25-25", 1), 0, torch.device("cpu"))
    gcn = load_methods(ROOT / "config/nodeground/methods.yaml", {})["GCN"]
    assert search_loop(gcn, search, 5, 300.0, tmp_path) > 0 and bare_loop(gcn, search, 5) > 0
    assert not (tmp_path / "state").exists() and (tmp_path / "trials/GCN/bench/10-10-80/p0.parquet").exists()

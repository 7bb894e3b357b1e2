"""The small PATTERN selection, shards and released recipes the neural tests share (plans and training alike)."""

from __future__ import annotations

from pathlib import Path

from graphaudit.pattern.neural_plan import load_recipes

ROOT = Path(__file__).resolve().parents[2]
RECIPES = load_recipes(ROOT / "config/pattern/neural.yaml")
SELECTION = {
    "n_patterns": 2,
    "per_pattern": {"train": 3, "val": 2, "test": 2},
    "evaluate": {"test": 4, "val": 2},
    "sets": {"fresh": 2, "familiar": 2},
    "shard_size": 2,
}
SHARDS = {"train_graphs": 4, "rrwp_shard_size": 3}

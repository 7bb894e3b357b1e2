"""Hand-made trial records for the nodeground unit tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from graphaudit.common.settings import load_settings
from graphaudit.nodeground.records import SCHEMA, STAGES, validate_records
from graphaudit.nodeground.settings import EloSettings

CONFIG = Path(__file__).resolve().parents[2] / "config/config.yaml"


def elo_settings(**changes: object) -> EloSettings:
    """``nodeground.elo`` of config/config.yaml (every default) with ``changes``."""
    section = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["nodeground"]["elo"]
    return load_settings(EloSettings, {**section, **changes}, "nodeground.elo")


def trial(
    method: str = "GCN",
    dataset: str = "d1",
    split: str = "10-10-80",
    partition: int = 0,
    trial_id: int = 1,
    status: str = "ok",
    task: str = "multiclass",
    val_loss: float = 0.5,
    train_loss: float = 0.3,
    score: float = 0.8,
    fit_s: float = 1.0,
    predict_s: float = 0.1,
    mem_fit: float = 100.0,
    mem_predict: float = 50.0,
    device: str = "cpu",
    **overrides: float,
) -> dict[str, object]:
    """One record row; ``score`` fills every metric of the task on every stage (overrides set single cells)."""
    row: dict[str, object] = {c: np.nan for c, kind in SCHEMA.items() if kind == "number"}
    row.update(
        method=method,
        dataset=dataset,
        split=split,
        partition=partition,
        task=task,
        trial_id=trial_id,
        config="{}",
        signature=f'{{"t": {trial_id}}}',
        status=status,
        error="" if status == "ok" else f"{status} in the test",
        device=device,
        versions="{}",
    )
    if status == "ok":
        metrics = ("accuracy", "macro_f1") if task == "multiclass" else ("accuracy", "auroc", "precision")
        for stage in STAGES:
            row[f"{stage}_loss"] = 0.4
            for metric in metrics:
                row[f"{stage}_{metric}"] = score
        row.update(
            val_loss=val_loss,
            train_loss=train_loss,
            epochs=10.0,
            best_epoch=5.0,
            peak_mem_predict_mb=mem_predict,
            predict_s=predict_s,
        )
    row.update(fit_s=fit_s, peak_mem_fit_mb=mem_fit)
    row.update(overrides)
    return row


def frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    return validate_records(pd.DataFrame(rows), "test records")

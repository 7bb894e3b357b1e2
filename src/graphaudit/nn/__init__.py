"""Torch / torch-geometric models and the resumable trainer that writes one record per evaluation point.

The names below are loaded on first use (PEP 562): importing a torch-free submodule (:mod:`graphaudit.nn.packing`,
:mod:`graphaudit.nn.pattern_config`, :mod:`graphaudit.nn.ubgold`) must not load torch and torch-geometric, which the
workflow's parse and the table rules never need (seconds per job)."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CKGConv": "ckgconv",
    "CKGConvConfig": "pattern_config",
    "CVTGAD": "cvtgad",
    "CVTGADConfig": "cvtgad",
    "GLADC": "gladc",
    "GLADCConfig": "gladc",
    "GLocalKD": "glocalkd",
    "GLocalKDConfig": "glocalkd",
    "GOODD": "good_d",
    "GOODDConfig": "good_d",
    "GraphDE": "graphde",
    "GraphDEConfig": "graphde",
    "GRIT": "grit",
    "GRITConfig": "pattern_config",
    "OCGIN": "ocgin",
    "OCGINConfig": "ocgin",
    "OCGTL": "ocgtl",
    "OCGTLConfig": "ocgtl",
    "GINConfig": "projected_gin",
    "SIGNET": "signet",
    "SIGNETConfig": "signet",
    "Detector": "trainer",
    "RunGraphs": "trainer",
    "TrainConfig": "trainer",
    "TrainResult": "trainer",
    "config_hash": "trainer",
    "graphs_with_ids": "trainer",
    "load_trajectory": "trainer",
    "preserved_rng": "trainer",
    "resolve_device": "trainer",
    "score_graphs": "trainer",
    "train": "trainer",
    "GraphCLIF": "two_stage",
    "GraphCLIFConfig": "two_stage",
    "GraphCLOCSVM": "two_stage",
    "GraphCLOCSVMConfig": "two_stage",
    "InfoGraphIF": "two_stage",
    "InfoGraphIFConfig": "two_stage",
    "InfoGraphOCSVM": "two_stage",
    "InfoGraphOCSVMConfig": "two_stage",
}
"""Public name -> the submodule defining it."""

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)

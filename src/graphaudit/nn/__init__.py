"""Torch / torch-geometric models and the resumable trainer that writes one record per evaluation point."""

from graphaudit.nn.detectors import GINConfig, GINEncoder, OCGIN, OCGINConfig, OCGTL, OCGTLConfig
from graphaudit.nn.trainer import (Detector, RunGraphs, TrainConfig, TrainResult, config_hash, graphs_with_ids,
                                   load_trajectory, preserved_rng, resolve_device, score_graphs, train)

__all__ = ["OCGIN", "OCGTL", "Detector", "GINConfig", "GINEncoder", "OCGINConfig", "OCGTLConfig", "RunGraphs",
           "TrainConfig", "TrainResult", "config_hash", "graphs_with_ids", "load_trajectory", "preserved_rng",
           "resolve_device", "score_graphs", "train"]

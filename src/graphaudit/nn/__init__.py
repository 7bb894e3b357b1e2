"""Torch / torch-geometric models and the resumable trainer that writes one record per evaluation point."""

from graphaudit.nn.detectors import GINConfig, GINEncoder, OCGIN, OCGINConfig, OCGTL, OCGTLConfig
from graphaudit.nn.glocalkd import GLocalKD, GLocalKDConfig
from graphaudit.nn.signet import SIGNET, SIGNETConfig
from graphaudit.nn.trainer import (Detector, RunGraphs, TrainConfig, TrainResult, config_hash, graphs_with_ids,
                                   load_trajectory, preserved_rng, resolve_device, score_graphs, train)
from graphaudit.nn.two_stage import (GraphCLIF, GraphCLIFConfig, GraphCLOCSVM, GraphCLOCSVMConfig, InfoGraphIF,
                                     InfoGraphIFConfig, InfoGraphOCSVM, InfoGraphOCSVMConfig)

__all__ = ["OCGIN", "OCGTL", "SIGNET", "Detector", "GINConfig", "GINEncoder", "GLocalKD", "GLocalKDConfig",
           "GraphCLIF", "GraphCLIFConfig", "GraphCLOCSVM", "GraphCLOCSVMConfig", "InfoGraphIF", "InfoGraphIFConfig",
           "InfoGraphOCSVM", "InfoGraphOCSVMConfig", "OCGINConfig", "OCGTLConfig", "RunGraphs", "SIGNETConfig",
           "TrainConfig", "TrainResult", "config_hash", "graphs_with_ids", "load_trajectory", "preserved_rng",
           "resolve_device", "score_graphs", "train"]

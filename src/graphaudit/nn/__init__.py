"""Torch / torch-geometric models and the resumable trainer that writes one record per evaluation point."""

from graphaudit.nn.ckgconv import CKGConv, CKGConvConfig
from graphaudit.nn.cvtgad import CVTGAD, CVTGADConfig
from graphaudit.nn.gladc import GLADC, GLADCConfig
from graphaudit.nn.glocalkd import GLocalKD, GLocalKDConfig
from graphaudit.nn.good_d import GOODD, GOODDConfig
from graphaudit.nn.graphde import GraphDE, GraphDEConfig
from graphaudit.nn.grit import GRIT, GRITConfig
from graphaudit.nn.ocgin import OCGIN, OCGINConfig
from graphaudit.nn.ocgtl import OCGTL, OCGTLConfig
from graphaudit.nn.projected_gin import GINConfig
from graphaudit.nn.signet import SIGNET, SIGNETConfig
from graphaudit.nn.trainer import (
    Detector,
    RunGraphs,
    TrainConfig,
    TrainResult,
    config_hash,
    graphs_with_ids,
    load_trajectory,
    preserved_rng,
    resolve_device,
    score_graphs,
    train,
)
from graphaudit.nn.two_stage import (
    GraphCLIF,
    GraphCLIFConfig,
    GraphCLOCSVM,
    GraphCLOCSVMConfig,
    InfoGraphIF,
    InfoGraphIFConfig,
    InfoGraphOCSVM,
    InfoGraphOCSVMConfig,
)

__all__ = [
    "CVTGAD",
    "GLADC",
    "GOODD",
    "GRIT",
    "OCGIN",
    "OCGTL",
    "SIGNET",
    "CKGConv",
    "CKGConvConfig",
    "CVTGADConfig",
    "Detector",
    "GINConfig",
    "GLADCConfig",
    "GLocalKD",
    "GLocalKDConfig",
    "GOODDConfig",
    "GRITConfig",
    "GraphCLIF",
    "GraphCLIFConfig",
    "GraphCLOCSVM",
    "GraphCLOCSVMConfig",
    "GraphDE",
    "GraphDEConfig",
    "InfoGraphIF",
    "InfoGraphIFConfig",
    "InfoGraphOCSVM",
    "InfoGraphOCSVMConfig",
    "OCGINConfig",
    "OCGTLConfig",
    "RunGraphs",
    "SIGNETConfig",
    "TrainConfig",
    "TrainResult",
    "config_hash",
    "graphs_with_ids",
    "load_trajectory",
    "preserved_rng",
    "resolve_device",
    "score_graphs",
    "train",
]

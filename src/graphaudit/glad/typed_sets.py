"""The typed evaluation's names (spec 4.16): its typed sets and their generators, the ``x_s`` encodings, the
variants and scored groups, and the replay table's columns. Torch-free, so the tables and the blindness decision read
them without loading the training stack that :mod:`graphaudit.glad.typed_runs` needs."""

from __future__ import annotations

GX_F2, GX_F1, MS_V2 = "GX-F2", "GX-F1", "MS-v2"
GENERATORS = {GX_F2: "GX", GX_F1: "GX", MS_V2: "MS-v2"}
"""The typed sets, each with the generator of its graphs."""
ENCODINGS = ("encodings", "constant")
"""``x_s`` of CVTGAD and GOOD-D: UB-GOLD's encodings (every run) or the F.12 ablation's constant input."""
ENCODING_OPTION = "structural_input"
SIZE_PRESERVING, SIZE_CHANGING = "size_preserving", "size_changing"
MS_SEED_PARTS = ("glad", "MS-v2")
"""Leading seed parts of an MS-v2 seed's hold-out (GX's are :data:`graphaudit.glad.gx.SEED_PARTS`)."""
MS_POOL = "P0"
"""The pool of every final MS-v2 type (MS1 = C/k1, MS2 = D/k2, MS3 = F/k1): its split gives the runs' normals."""
REPLAY_COLUMNS = [
    "detector",
    "backend",
    "typed_set",
    "generator",
    "encoding",
    "seed",
    "type",
    "variant",
    "status",
    "epoch",
    "criterion",
    "flags",
    "auroc",
    "n_normals",
    "n_anomalies",
    "reason",
]


def group_name(anomaly_type: str, variant: str) -> str:
    """The scored group of one type and variant (``MS1.size_changing``); it names the group's score files."""
    return f"{anomaly_type}.{variant}"


def split_group(name: str) -> tuple[str, str]:
    """(type, variant) of a group name."""
    anomaly_type, _, variant = name.partition(".")
    return anomaly_type, variant

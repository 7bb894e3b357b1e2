"""Small synthetic runs for the fault-injection tests: a few rings for the shared trainer (OCGIN, seconds on a CPU),
a glad ``train_run`` context on a 30-ring data set, comparisons of run folders (machine fields aside), and the
damage done to files (truncation, a flipped bit, a broken deflate stream)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import torch
from torch_geometric.data import Data

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.nn import OCGIN, OCGINConfig, RunGraphs, TrainConfig
from graphaudit.nn.trainer import CHECKPOINT, RECORDS
from train_toys import ring_train_context

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = {"wall_s", "peak_rss_mb"}  # machine-dependent record fields


def ring(graph_id: int, n: int) -> Data:
    """A cycle of ``n`` nodes plus a pendant node, one-hot node label 0 of 2."""
    src = torch.cat([torch.arange(n), torch.tensor([n])])
    dst = torch.cat([(torch.arange(n) + 1) % n, torch.tensor([0])])
    x = torch.zeros(n + 1, 2)
    x[:, 0] = 1.0
    edges = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
    return Data(x=x, edge_index=edges, graph_id=torch.tensor([graph_id]))


def toy_graphs() -> RunGraphs:
    return RunGraphs(
        train=[ring(100 + i, 4 + i % 5) for i in range(12)],
        test=[ring(50 + i, 4 + i % 4) for i in range(6)],
        holdout=[ring(90 - i, 5 + i) for i in range(3)],
    )


def ocgin() -> OCGIN:
    return OCGIN(2, OCGINConfig(hidden_dim=8, num_layer=2))


def config(**changes: object) -> TrainConfig:
    base = {"num_epoch": 8, "eval_freq": 2, "batch_size": 4, "batch_size_test": 3, "lr": 1e-2, "device": "cpu"}
    return TrainConfig(**{**base, **changes})


def stable_records(run_dir: Path) -> list[dict]:
    """A run's records without their machine-dependent fields."""
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in read_records(run_dir / RECORDS)]


def assert_same_runs(first: Path, second: Path) -> None:
    """Same records (machine fields aside), byte-identical score files, equal weights in the final checkpoints."""
    records = stable_records(first)
    assert records and records == stable_records(second)
    for record in records:
        for part in ("test_scores", "holdout_scores"):
            assert (first / record[part]).read_bytes() == (second / record[part]).read_bytes(), record[part]
    a, b = (torch.load(run / CHECKPOINT, weights_only=True)["model"] for run in (first, second))
    assert a.keys() == b.keys() and all(torch.equal(a[key], b[key]) for key in a)


# ---- damage ---------------------------------------------------------------------------------------------


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def member_data(path: Path, suffix: str) -> tuple[int, int]:
    """(offset, size) of the stored bytes of the member whose name ends with ``suffix``."""
    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith(suffix))
    with open(path, "rb") as handle:
        handle.seek(info.header_offset + 26)
        lengths = handle.read(4)
    start = info.header_offset + 30 + int.from_bytes(lengths[:2], "little") + int.from_bytes(lengths[2:], "little")
    return start, info.compress_size


def flip_member_byte(path: Path, suffix: str) -> None:
    """Flip one bit inside the stored data of a member: the archive still opens, only its CRC-32 tells."""
    start, size = member_data(path, suffix)
    data = bytearray(path.read_bytes())
    data[start + size // 2] ^= 0x01
    path.write_bytes(bytes(data))


def break_deflate_stream(path: Path, suffix: str) -> None:
    """Make a member's first deflate block use the reserved block type: zlib stops with 'invalid block type'."""
    start, _ = member_data(path, suffix)
    data = bytearray(path.read_bytes())
    data[start] |= 0b110  # BTYPE = 11
    path.write_bytes(bytes(data))


# ---- a glad run -------------------------------------------------------------------------------------------


def glad_context(tmp_path: Path, max_epochs: int = 8) -> RuleContext:
    """A ``train_run`` context for OCGIN on 30 rings (10 anomalous by label) with one fold, its run.json under
    ``tmp_path / "run"``; the detector's modal line evaluates every 4 epochs."""
    ctx = ring_train_context(tmp_path, "OCGIN", max_epochs)
    ctx.output = {"run": str(tmp_path / "run" / "run.json")}
    ctx.wildcards["setting"] = "default"
    return ctx


def replay_context(train: RuleContext, tmp_path: Path) -> RuleContext:
    """The ``replay_detector`` context over the one run of :func:`glad_context`."""
    return RuleContext(
        input={**train.input, "runs": [train.output["run"]]},
        output={name: str(tmp_path / f"{name}.csv") for name in ("protocols", "curves", "null", "size_matched")},
        params={"permutations": 5, "caliper": 0.25},
        wildcards={"detector": "OCGIN", "dataset": "TOY"},
    )

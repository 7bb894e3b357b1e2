"""Benchmark: reading a TU data set into a saved GraphSet vs torch-geometric's TUDataset processing."""

from __future__ import annotations

import logging
import shutil
import tempfile
import zipfile
from pathlib import Path

from graphaudit.bench.settings import TuReaderBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.data.readers import read_tu

log = logging.getLogger(__name__)


def ours(zip_path: Path, name: str, out: Path) -> None:
    """Our path: parse the zip and write the GraphSet."""
    read_tu(zip_path, name).save(out)


def peer(root: Path, name: str) -> None:
    """PyG's path: ``TUDataset`` processing the raw text files already in ``root/<name>/raw``."""
    from torch_geometric.datasets import TUDataset

    TUDataset(str(root), name, force_reload=True)


def bench_tu_reader(ctx: RuleContext) -> None:
    """Rule entry: time both paths on the same raw files and write ``results/bench/tu_reader.csv``."""
    settings = ctx.settings("bench", TuReaderBench)
    name, repeats = settings.dataset, settings.repeats
    zip_path = Path(ctx.input["source"]).parent / f"{name}.zip"
    with tempfile.TemporaryDirectory(prefix="graphaudit-bench-") as tmp:
        root = Path(tmp)
        raw = root / name / "raw"
        raw.mkdir(parents=True)
        with zipfile.ZipFile(zip_path) as archive:
            for member in archive.namelist():
                if member.endswith(".txt"):
                    (raw / Path(member).name).write_bytes(archive.read(member))
        ours_s = best_time(lambda: ours(zip_path, name, root / "ours.npz"), repeats)
        peer_s = best_time(
            lambda: peer(root, name),
            repeats,
            setup=lambda: shutil.rmtree(root / name / "processed", ignore_errors=True),
        )
    log.info("%s: ours %.3fs, torch_geometric %.3fs, ratio %.1f", name, ours_s, peer_s, peer_s / ours_s)
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "tu_reader",
                "input": name,
                "ours_s": ours_s,
                "peer": "torch_geometric.datasets.TUDataset",
                "peer_s": peer_s,
            }
        ],
    )

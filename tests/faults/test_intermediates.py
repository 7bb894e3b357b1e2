"""Intermediates checked by their readers: a truncated or bit-rotten processed npz, shard, parquet frame or
checkpoint is an error naming the file and what to do (a checkpoint is discarded with a warning and the run
recomputed), never a bare BadZipFile, zlib.error, ArrowInvalid or torch RuntimeError."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from fault_toys import assert_same_runs, break_deflate_stream, config, flip_member_byte, ocgin, toy_graphs, truncate

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import CorruptFileError, check_zip, read_npz
from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.nn import train
from graphaudit.nn.loop import Checkpoint
from graphaudit.nn.trainer import CHECKPOINT
from graphaudit.nodeground.output import read_frame, write_frame
from graphaudit.pattern.shards import read_graph_field, read_shards, write_shard


def graphset(tmp_path: Path) -> Path:
    graphs = from_edge_list("TOY", np.repeat(np.arange(50), 4), np.array([[4 * g, 4 * g + 1] for g in range(50)]))
    path = tmp_path / "processed" / "TOY.npz"
    graphs.save(path)
    return path


@pytest.mark.parametrize("damage", [truncate, lambda p: flip_member_byte(p, "edges.npy")], ids=["truncated", "bit"])
def test_a_damaged_processed_graphset_is_a_named_error_saying_how_to_rebuild_it(tmp_path: Path, damage) -> None:
    path = graphset(tmp_path)
    damage(path)
    with pytest.raises(
        CorruptFileError, match=r"rebuild it from its inputs with `snakemake .*TOY\.npz --force"
    ) as caught:
        GraphSet.load(path)
    assert caught.value.path == path and str(path) in str(caught.value)


def test_a_broken_deflate_stream_is_a_named_error(tmp_path: Path) -> None:
    path = graphset(tmp_path)
    break_deflate_stream(path, "edges.npy")
    with pytest.raises(CorruptFileError, match=r"TOY\.npz: truncated or corrupt \(error: .*invalid block type"):
        GraphSet.load(path)


@pytest.mark.parametrize("damage", ["truncated", "bit"])
def test_a_damaged_shard_is_a_named_error(tmp_path: Path, damage: str) -> None:
    good, bad = tmp_path / "shard0.npz", tmp_path / "shard1.npz"
    write_shard(str(good), [0, 1], {"marginal": [np.ones(3), np.zeros(4)]}, {"agree": np.array([1.0, 0.5])})
    write_shard(str(bad), [2], {"marginal": [np.full(100, 0.5)]}, {"agree": np.array([0.25])})
    truncate(bad) if damage == "truncated" else flip_member_byte(bad, "marginal.npy")
    with pytest.raises(CorruptFileError, match=r"shard1\.npz: "):
        read_shards([str(good), str(bad)], "marginal")
    if damage == "truncated":
        with pytest.raises(CorruptFileError, match=r"shard1\.npz: "):
            read_graph_field([str(good), str(bad)], "agree")
    else:  # each array read is checked; the intact members of a shard still read
        assert read_graph_field([str(good), str(bad)], "agree") == {0: 1.0, 1: 0.5, 2: 0.25}


def test_read_npz_reads_what_write_npz_wrote_and_reports_what_is_absent(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    write_npz(path, ids=np.arange(5), name=np.array("x"), scores=np.linspace(0, 1, 5, dtype=np.float32))
    arrays = read_npz(path)
    assert list(arrays) == ["ids", "name", "scores"] and str(arrays["name"]) == "x"
    assert np.array_equal(read_npz(path, ["scores"])["scores"], np.linspace(0, 1, 5, dtype=np.float32))
    with pytest.raises(KeyError, match="no arrays"):
        read_npz(path, ["missing"])
    with pytest.raises(FileNotFoundError):
        read_npz(tmp_path / "absent.npz")


@pytest.mark.parametrize("damage", [truncate, lambda p: flip_member_byte(p, "/data.pkl")], ids=["truncated", "bit"])
def test_a_damaged_checkpoint_is_discarded_with_a_warning_and_the_run_recomputed(
    reference: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, damage
) -> None:
    run_dir = tmp_path / "run"
    train(ocgin, toy_graphs(), config(), run_dir, stop_after_epoch=5)
    damage(run_dir / CHECKPOINT)
    with caplog.at_level(logging.WARNING, logger="graphaudit"):
        train(ocgin, toy_graphs(), config(), run_dir)
    assert f"{run_dir / CHECKPOINT}: " in caplog.text and "it is discarded and the run starts over" in caplog.text
    assert_same_runs(reference, run_dir)


def test_check_zip_finds_a_flipped_bit_that_torch_would_load(tmp_path: Path) -> None:
    train(ocgin, toy_graphs(), config(num_epoch=2), tmp_path)
    path = tmp_path / CHECKPOINT
    flip_member_byte(path, "/data/0")  # a tensor's bytes
    with pytest.raises(CorruptFileError, match=r"fails its CRC-32 check"):
        check_zip(path)
    assert Checkpoint(path, "any", {}).content() is None and not path.exists()


def frame_file(tmp_path: Path) -> Path:
    path = tmp_path / "frames" / "trials.parquet"
    rng = np.random.default_rng(0)
    write_frame(pd.DataFrame({"trial": np.arange(500), "score": rng.random(500)}), path)
    return path


def flip_page_byte(path: Path) -> None:
    """Flip one bit in the middle of the ``score`` column's page (the file's footer still reads)."""
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(1)
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    data = bytearray(path.read_bytes())
    data[start + chunk.total_compressed_size // 2] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [truncate, flip_page_byte], ids=["truncated", "bit"])
def test_a_damaged_parquet_frame_is_a_named_error(tmp_path: Path, damage) -> None:
    path = frame_file(tmp_path)
    assert read_frame(path)["trial"].tolist() == list(range(500))
    damage(path)
    with pytest.raises(
        CorruptFileError, match=r"trials\.parquet: not a readable parquet file .*trials\.parquet --force --cores 1`"
    ):
        read_frame(path)

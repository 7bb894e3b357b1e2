"""Bad data archives: a corrupt deflate stream, a flipped bit or a truncated file in the mirror is a DataError that
names the dataset, the mirror file (not the staging copy deleted with the failed attempt) and what to do."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from fault_toys import break_deflate_stream, flip_member_byte, truncate

from graphaudit.data.errors import ChecksumMismatchError, DataError
from graphaudit.data.fetch import FetchOptions, load_verified, obtain
from graphaudit.data.readers import DataFormatError, read_heterophilous
from graphaudit.data.registry import DatasetSpec, Stats

TU = {  # two graphs: a triangle and a path
    "A": "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n5, 4\n" * 40,  # long enough to be deflated in blocks
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "-1\n1\n",
}


def spec(**changes: object) -> DatasetSpec:
    fields = {
        "name": "TINY",
        "format": "tu",
        "task": "graph",
        "files": ("tu/TINY.zip",),
        "urls": ("http://127.0.0.1:9/TINY.zip",),
        "stats": Stats(graphs=2, nodes=5),
        "stats_source": "hand-made test set",
        **changes,
    }
    return DatasetSpec(**fields)


@pytest.fixture
def mirror_zip(tmp_path: Path) -> Path:
    path = tmp_path / "mirror" / "tu" / "TINY.zip"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for part, text in TU.items():
            archive.writestr(f"TINY/TINY_{part}.txt", text)
    return path


def fetch(tmp_path: Path, dataset: DatasetSpec | None = None) -> None:
    obtain(dataset or spec(), tmp_path / "raw", FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=False))


def test_the_intact_archive_reads(tmp_path: Path, mirror_zip: Path) -> None:
    fetch(tmp_path)
    assert (tmp_path / "raw" / "TINY" / "SOURCE.json").exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: break_deflate_stream(p, "TINY_A.txt"),
        lambda p: flip_member_byte(p, "TINY_A.txt"),
        truncate,
    ],
    ids=["deflate stream", "flipped bit", "truncated"],
)
def test_a_damaged_mirror_archive_names_the_dataset_and_the_mirror_file(
    tmp_path: Path, mirror_zip: Path, damage
) -> None:
    damage(mirror_zip)
    with pytest.raises(DataError) as caught:
        fetch(tmp_path)
    message = str(caught.value)
    assert message.startswith("dataset TINY: ") and str(mirror_zip) in message
    assert ".staging" not in message and "nothing was kept" in message and "Replace it" in message
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == []  # no staging left, nothing kept


def test_a_corrupt_deflate_stream_is_not_a_bare_zlib_error(tmp_path: Path, mirror_zip: Path) -> None:
    break_deflate_stream(mirror_zip, "TINY_A.txt")
    with pytest.raises(DataError, match=r"member TINY_A\.txt is corrupt \(error: .*invalid block type"):
        fetch(tmp_path)


def test_a_checksum_mismatch_names_the_mirror_file(tmp_path: Path, mirror_zip: Path) -> None:
    with pytest.raises(ChecksumMismatchError) as caught:
        fetch(tmp_path, spec(sha256={"TINY.zip": "0" * 64}))
    assert str(mirror_zip) in str(caught.value) and ".staging" not in str(caught.value)


def test_a_corrupt_deflate_stream_in_a_heterophilous_npz_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "roman.npz"
    np.savez_compressed(path, node_features=np.ones((50, 4)), node_labels=np.zeros(50), edges=np.zeros((60, 2)))
    break_deflate_stream(path, "node_features.npy")
    with pytest.raises(DataFormatError, match=rf"roman \({path}\): not a readable npz archive \(error: "):
        read_heterophilous(path, "roman")


def test_a_raw_file_that_rotted_after_its_fetch_is_refused_by_its_checksum(tmp_path: Path, mirror_zip: Path) -> None:
    fetch(tmp_path)
    raw = tmp_path / "raw" / "TINY"
    assert load_verified(spec(), raw).num_graphs == 2
    flip_member_byte(raw / "TINY.zip", "TINY_A.txt")
    with pytest.raises(ChecksumMismatchError, match=rf"{raw / 'TINY.zip'} has sha256 .* Delete {raw} and rerun"):
        load_verified(spec(), raw)

"""Fetching: mirror, packaged copy, download; every bad input stops with a useful message, keeps nothing."""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from graphaudit.common.settings import SettingsError
from graphaudit.data.errors import ChecksumMismatchError, DataError, DataUnavailableError, StatisticsMismatchError
from graphaudit.data.fetch import FetchOptions, combined_sha256, has_reader, obtain, sha256_file
from graphaudit.data.registry import REGISTRY, DatasetSpec, Stats, UnknownDatasetError, check_names, get_spec
from ogb_toys import write_ogb_graphprop

CLOSED_PORT_URL = "http://127.0.0.1:9/TINY.zip"  # the discard port: nothing listens, refused at once


def tiny_spec(**changes) -> DatasetSpec:
    spec = DatasetSpec(
        name="TINY",
        format="tu",
        task="graph",
        files=("tu/TINY.zip",),
        urls=(CLOSED_PORT_URL,),
        stats=Stats(graphs=2, nodes=5, edges=4, classes=2, class_counts=(1, 1)),
        stats_source="hand-made test set",
    )
    return replace(spec, **changes)


@pytest.fixture
def tiny_mirror(tmp_path, write_tu_zip) -> Path:
    (tmp_path / "mirror" / "tu").mkdir(parents=True)
    write_tu_zip(tmp_path / "mirror" / "tu" / "TINY.zip", "TINY")
    return tmp_path / "mirror"


def offline(mirror: Path | None) -> FetchOptions:
    return FetchOptions(mirror=str(mirror) if mirror else None, allow_download=False)


def assert_nothing_kept(raw_root: Path) -> None:
    assert not raw_root.exists() or list(raw_root.iterdir()) == []


def test_mirror_copy_is_verified_and_recorded(tmp_path, tiny_mirror):
    graphs, _record = obtain(tiny_spec(), tmp_path / "raw", offline(tiny_mirror))
    assert graphs.num_graphs == 2
    stored = json.loads((tmp_path / "raw" / "TINY" / "SOURCE.json").read_text())
    assert stored["source"] == "mirror" and stored["matches_published"] is True
    assert stored["sha256"]["TINY.zip"] == sha256_file(tiny_mirror / "tu" / "TINY.zip")
    assert stored["statistics"] == {"graphs": 2, "nodes": 5, "edges": 4, "classes": 2, "class_counts": [1, 1]}
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == ["TINY"]  # no staging left over


def test_statistics_mismatch_stops_and_keeps_nothing(tmp_path, tiny_mirror):
    spec = tiny_spec(stats=Stats(graphs=3, nodes=5))
    with pytest.raises(StatisticsMismatchError) as caught:
        obtain(spec, tmp_path / "raw", offline(tiny_mirror))
    message = str(caught.value)
    assert "TINY" in message and "graphs: expected 3, found 2" in message and "mirror" in message
    assert_nothing_kept(tmp_path / "raw")


def test_a_mismatch_does_not_replace_a_good_copy(tmp_path, tiny_mirror):
    obtain(tiny_spec(), tmp_path / "raw", offline(tiny_mirror))
    with pytest.raises(StatisticsMismatchError):
        obtain(tiny_spec(stats=Stats(nodes=6)), tmp_path / "raw", offline(tiny_mirror))
    assert json.loads((tmp_path / "raw" / "TINY" / "SOURCE.json").read_text())["statistics"]["nodes"] == 5


def test_corrupt_zip_in_mirror(tmp_path, tiny_mirror):
    path = tiny_mirror / "tu" / "TINY.zip"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(DataError, match=r"dataset TINY: .*not a readable zip.*nothing was kept"):
        obtain(tiny_spec(), tmp_path / "raw", offline(tiny_mirror))
    assert_nothing_kept(tmp_path / "raw")


def test_truncated_file_in_mirror(tmp_path, write_tu_zip, tiny_tu):
    (tmp_path / "mirror" / "tu").mkdir(parents=True)
    tiny_tu["node_labels"] = "0\n1\n"
    write_tu_zip(tmp_path / "mirror" / "tu" / "TINY.zip", "TINY", tiny_tu)
    with pytest.raises(DataError, match="node_labels has 2 rows for 5 nodes"):
        obtain(tiny_spec(), tmp_path / "raw", offline(tmp_path / "mirror"))
    assert_nothing_kept(tmp_path / "raw")


def test_checksum_mismatch_stops_before_reading(tmp_path, tiny_mirror):
    spec = tiny_spec(sha256={"TINY.zip": "0" * 64})
    with pytest.raises(ChecksumMismatchError, match=r"TINY.zip has sha256 .* the registry expects 0000"):
        obtain(spec, tmp_path / "raw", offline(tiny_mirror))
    assert_nothing_kept(tmp_path / "raw")


def test_missing_mirror_file_with_downloads_disabled(tmp_path):
    (tmp_path / "mirror").mkdir()
    with pytest.raises(DataUnavailableError) as caught:
        obtain(tiny_spec(), tmp_path / "raw", offline(tmp_path / "mirror"))
    message = str(caught.value)
    assert "TINY" in message and "tu/TINY.zip" in message and CLOSED_PORT_URL in message
    assert_nothing_kept(tmp_path / "raw")


def test_a_folder_where_the_mirror_file_should_be_is_named_as_a_folder(tmp_path):
    (tmp_path / "mirror" / "tu" / "TINY.zip").mkdir(parents=True)
    with pytest.raises(DataUnavailableError, match=r"tu/TINY\.zip is a folder, not the file and downloads are"):
        obtain(tiny_spec(), tmp_path / "raw", offline(tmp_path / "mirror"))


@pytest.mark.parametrize("where", ["config", "environment"])
def test_a_mirror_that_is_not_a_folder_is_an_error_naming_where_it_was_set(tmp_path, monkeypatch, where):
    missing = str(tmp_path / "typo")
    if where == "config":
        data, name = {"mirror": missing}, "data.mirror"
    else:
        monkeypatch.setenv("GRAPHAUDIT_DATA_MIRROR", missing)
        data, name = {}, "GRAPHAUDIT_DATA_MIRROR"
    with pytest.raises(SettingsError, match=rf"^{name} is '{re.escape(missing)}', which is not a folder: set it"):
        FetchOptions.from_config(data)
    (tmp_path / "typo").mkdir()
    assert FetchOptions.from_config(data).mirror == missing


def test_missing_mirror_file_and_no_network(tmp_path):
    (tmp_path / "mirror").mkdir()
    options = FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=True, retries=1, timeout_s=2)
    with pytest.raises(DataUnavailableError) as caught:
        obtain(tiny_spec(), tmp_path / "raw", options)
    message = str(caught.value)
    assert "download failed" in message and "set data.mirror" in message and "GRAPHAUDIT_DATA_MIRROR" in message
    assert_nothing_kept(tmp_path / "raw")


def test_no_mirror_message_says_how_to_set_one(tmp_path):
    with pytest.raises(DataUnavailableError, match="no mirror is set"):
        obtain(tiny_spec(), tmp_path / "raw", offline(None))


@pytest.fixture
def http_folder(tmp_path, write_tu_zip):
    served = tmp_path / "served"
    served.mkdir()
    write_tu_zip(served / "TINY.zip", "TINY")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_download_is_verified_and_recorded(tmp_path, http_folder):
    spec = tiny_spec(urls=(f"{http_folder}/TINY.zip",))
    _graphs, record = obtain(spec, tmp_path / "raw", FetchOptions(retries=1, timeout_s=5))
    assert record["source"] == "download" and record["locations"] == [f"{http_folder}/TINY.zip"]
    assert (tmp_path / "raw" / "TINY" / "TINY.zip").exists()
    assert not list((tmp_path / "raw" / "TINY").glob("*.part"))


def test_download_of_a_missing_file_fails_cleanly(tmp_path, http_folder):
    spec = tiny_spec(urls=(f"{http_folder}/NOPE.zip",))
    with pytest.raises(DataUnavailableError, match="404"):
        obtain(spec, tmp_path / "raw", FetchOptions(retries=1, timeout_s=5))
    assert_nothing_kept(tmp_path / "raw")


def test_packaged_mutag_needs_no_network(tmp_path):
    graphs, record = obtain(get_spec("MUTAG"), tmp_path / "raw", offline(None))
    assert record["source"] == "package"
    assert (graphs.num_graphs, graphs.num_nodes, graphs.num_edges) == (188, 3371, 3721)


def test_unknown_dataset_name():
    with pytest.raises(UnknownDatasetError) as caught:
        get_spec("MUTAGG")
    assert "Did you mean MUTAG" in str(caught.value) and "data.datasets" in str(caught.value)
    with pytest.raises(UnknownDatasetError):
        check_names(["MUTAG", "nope"])


def test_combined_sha256_is_order_free_and_single_file_is_identity():
    assert combined_sha256({"a": "1"}) == "1"
    assert combined_sha256({"a": "1", "b": "2"}) == combined_sha256({"b": "2", "a": "1"}) != "1"


def test_registry_entries_are_complete():
    for spec in REGISTRY.values():
        assert len(spec.files) == len(spec.urls) > 0, spec.name
        assert spec.task in ("graph", "node") and spec.stats_source, spec.name
        assert spec.stats.graphs is not None, spec.name


@pytest.mark.parametrize(("name", "file", "graphs"), [("ogbg-molhiv", "hiv", 41127), ("ogbg-molbbbp", "bbbp", 2039)])
def test_ogb_molecule_sets_are_readable_registry_entries(name, file, graphs):
    """OGB's published graph counts; the canonical zip of the graph-property CSV release."""
    spec = get_spec(name)
    assert has_reader(spec) and spec.format == "ogb_graphprop" and "download-only" not in spec.note
    assert spec.stats == Stats(graphs=graphs, classes=2) and spec.files == (f"ogb/{file}.zip",)
    assert spec.urls == (f"http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/{file}.zip",)


def test_ogb_zip_in_the_mirror_is_read_and_checked(tmp_path):
    """The data layer reads an OGB zip from the mirror path; the published graph count is checked."""
    write_ogb_graphprop(tmp_path / "mirror" / "ogb" / "bbbp.zip", top="bbbp")
    spec = replace(get_spec("ogbg-molbbbp"), stats=Stats(graphs=4, classes=2))
    graphs, record = obtain(spec, tmp_path / "raw", offline(tmp_path / "mirror"))
    assert record["statistics"] == {"graphs": 4, "nodes": 12, "edges": 8, "classes": 2, "class_counts": [2, 2]}
    assert graphs.get("graph_split") is not None
    with pytest.raises(StatisticsMismatchError, match="graphs: expected 2039, found 4"):
        obtain(get_spec("ogbg-molbbbp"), tmp_path / "raw2", offline(tmp_path / "mirror"))

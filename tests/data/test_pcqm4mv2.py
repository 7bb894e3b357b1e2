"""PCQM4Mv2: the registry entry (download only) and the RDKit SMILES reader (graphlm spec 4.3, Algorithm 3).

Labels by hand (graphaudit.data.readers_smiles): node = atomic number - 1 (C 5, N 6, O 7, Na 10, Cl 16, H 0,
``*`` 118); edge = SINGLE 0, DOUBLE 1, TRIPLE 2, AROMATIC 3.
"""

from __future__ import annotations

import gzip
import logging
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from graphaudit.data.errors import DataError, DataUnavailableError, StatisticsMismatchError
from graphaudit.data.fetch import FetchOptions, has_reader, obtain, read_staged
from graphaudit.data.readers import DataFormatError
from graphaudit.data.readers_external import read_ogb_graphprop
from graphaudit.data.readers_smiles import ATOM_MISC, BOND_TYPES, read_smiles_csv_graphs, smiles_graphs
from graphaudit.data.registry import Stats, get_spec
from ogb_toys import SMILES as OGB_TOY_SMILES
from ogb_toys import write_ogb_graphprop

PCQM_URL = "https://dgl-data.s3-accelerate.amazonaws.com/dataset/OGB-LSC/pcqm4m-v2.zip"
CLOSED_PORT_URL = "http://127.0.0.1:9/pcqm4m-v2.zip"  # the discard port: nothing listens, refused at once

# OGB's layout: idx,smiles,homolumogap; test rows carry no gap. Row 3 is not a molecule (an unclosed ring).
TINY_ROWS = [("CCO", "6.81"), ("c1ccccc1", "5.12"), ("C=O", "7.40"), ("C1CC", "4.00"), ("C#N", "")]


def graph(graphs, g: int) -> tuple[list, list, list]:
    """(node labels, local edges, edge labels) of graph ``g``."""
    return (
        graphs.node_slice("node_labels", g).tolist(),
        graphs.graph_edges(g).tolist(),
        graphs.edge_slice("edge_labels", g).tolist(),
    )


def write_pcqm_zip(path: Path, rows=TINY_ROWS, header: str = "idx,smiles,homolumogap", ids=None) -> Path:
    """A PCQM4Mv2 zip in OGB-LSC's layout: ``pcqm4m-v2/raw/data.csv.gz`` plus the members the reader ignores."""
    ids = range(len(rows)) if ids is None else ids
    lines = [header] + [f"{i},{smiles},{gap}" for i, (smiles, gap) in zip(ids, rows)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("pcqm4m-v2/RELEASE_v1.txt", "")
        zf.writestr("pcqm4m-v2/split_dict.pt", b"not read")
        zf.writestr("pcqm4m-v2/raw/data.csv.gz", gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


# ---- the conversion on hand SMILES -------------------------------------------------------------------------


def test_hand_smiles_give_the_hand_labels():
    result = smiles_graphs(["CCO", "c1ccccc1", "C=O", "not a smiles", "C#N"], "hand")
    graphs = result.graphs
    assert result.kept.tolist() == [0, 1, 2, 4] and result.invalid.tolist() == [3]
    assert graphs.node_ptr.tolist() == [0, 3, 9, 11, 13] and graphs.edge_ptr.tolist() == [0, 2, 8, 9, 10]
    assert graph(graphs, 0) == ([5, 5, 7], [[0, 1], [1, 2]], [0, 0])  # ethanol: C C O, two single bonds
    ring = [[0, 1], [0, 5], [1, 2], [2, 3], [3, 4], [4, 5]]
    assert graph(graphs, 1) == ([5] * 6, ring, [3] * 6)  # benzene: six aromatic bonds
    assert graph(graphs, 2) == ([5, 7], [[0, 1]], [1])  # formaldehyde: a double bond
    assert graph(graphs, 3) == ([5, 6], [[0, 1]], [2])  # hydrogen cyanide: a triple bond
    assert not graphs.directed and BOND_TYPES[:4] == ("SINGLE", "DOUBLE", "TRIPLE", "AROMATIC")


def test_aromaticity_is_perceived_not_kekulized():
    graphs = smiles_graphs(["C1=CC=CC=C1", "c1ccc1"], "rings").graphs
    assert graph(graphs, 0)[2] == [3] * 6  # Kekulé benzene comes out aromatic, like c1ccccc1
    assert sorted(graph(graphs, 1)[2]) == [0, 0, 1, 1]  # cyclobutadiene is not aromatic: RDKit kekulizes it


def test_hydrogens_stay_implicit_and_other_atoms_keep_their_code():
    graphs = smiles_graphs(["[H]C([H])([H])[H]", "[2H]C", "[Na+].[Cl-]", "*C"], "atoms").graphs
    assert graph(graphs, 0) == ([5], [], [])  # methane: the written hydrogens are not nodes
    assert graph(graphs, 1) == ([0, 5], [[0, 1]], [0])  # an isotope hydrogen is kept by RDKit's RemoveHs
    assert graph(graphs, 2) == ([10, 16], [], [])  # a salt: two atoms, no bond
    assert graph(graphs, 3) == ([ATOM_MISC, 5], [[0, 1]], [0])  # the dummy atom gets OGB's misc code


def test_invalid_smiles_are_counted_and_silenced(capfd):
    bad = ["C1CC", "not a smiles", "", "C(C)(C)(C)(C)C", None, float("nan")]
    result = smiles_graphs([*bad, "CC"], "bad")
    assert result.invalid.tolist() == [0, 1, 2, 3, 4, 5] and result.kept.tolist() == [6]
    assert result.graphs.num_graphs == 1 and graph(result.graphs, 0) == ([5, 5], [[0, 1]], [0])
    assert "SMILES Parse Error" not in capfd.readouterr().err  # RDKit's error log is blocked during the loop


def test_a_file_without_one_molecule_is_refused():
    with pytest.raises(DataFormatError, match="none of the 2 SMILES is a molecule RDKit can parse"):
        smiles_graphs(["C1CC", ""], "none")


def test_codes_match_ogb_smiles2graph_on_the_ogb_toy_molecules(tmp_path):
    """The RDKit conversion reproduces the codes OGB stored for the same SMILES (tests/ogb_toys.py)."""
    ours = smiles_graphs(list(OGB_TOY_SMILES), "toys").graphs
    ogb = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "hiv.zip"), "ogbg-molhiv")
    assert ours.node_ptr.tolist() == ogb.node_ptr.tolist() and ours.edges.tolist() == ogb.edges.tolist()
    for key in ("node_labels", "edge_labels"):
        assert ours.get(key).tolist() == ogb.get(key).tolist(), key


# ---- the CSV reader, end to end ----------------------------------------------------------------------------


def test_tiny_ogb_zip_reads_end_to_end(tmp_path, caplog):
    folder = tmp_path / "raw"
    write_pcqm_zip(folder / "pcqm4m-v2.zip")
    with caplog.at_level(logging.WARNING, logger="graphaudit.data.readers_smiles"):
        graphs = read_staged(get_spec("PCQM4Mv2"), folder)
    assert (graphs.num_graphs, graphs.num_nodes, graphs.num_edges) == (4, 13, 10)
    assert graph(graphs, 1) == ([5] * 6, [[0, 1], [0, 5], [1, 2], [2, 3], [3, 4], [4, 5]], [3] * 6)
    assert graph(graphs, 3) == ([5, 6], [[0, 1]], [2])  # row 4: C#N, the unparseable row 3 left out
    assert set(graphs.arrays) == {"node_labels", "edge_labels"}  # the HOMO-LUMO gap is not kept
    assert "could not parse 1 of 5 SMILES rows (rows 3)" in caplog.text


def test_plain_csv_and_gzipped_csv_read_the_same(tmp_path):
    text = "smiles,extra\nCCO,a\nC=O,b\n"
    (tmp_path / "m.csv").write_text(text)
    (tmp_path / "m.csv.gz").write_bytes(gzip.compress(text.encode()))
    plain, zipped = (read_smiles_csv_graphs(tmp_path / f, "m") for f in ("m.csv", "m.csv.gz"))
    assert graph(plain, 0) == graph(zipped, 0) == ([5, 5, 7], [[0, 1], [1, 2]], [0, 0])
    assert graph(plain, 1) == graph(zipped, 1) == ([5, 7], [[0, 1]], [1])


def test_the_graphset_survives_a_save_load_round_trip(tmp_path):
    graphs = read_smiles_csv_graphs(write_pcqm_zip(tmp_path / "pcqm4m-v2.zip"), "PCQM4Mv2")
    graphs.save(tmp_path / "p.npz")
    again = type(graphs).load(tmp_path / "p.npz")
    assert np.array_equal(again.edges, graphs.edges) and np.array_equal(again.node_ptr, graphs.node_ptr)
    for key in ("node_labels", "edge_labels"):
        assert np.array_equal(again.get(key), graphs.get(key)), key


@pytest.mark.parametrize(
    ("kind", "match"),
    [
        ("reordered", "idx must number the rows 0..4 in order; row 1 has idx 2"),
        ("no_smiles", "needs a header with a smiles column"),
        ("no_member", "expected one member ending in raw/data.csv.gz"),
        ("truncated", "not a readable"),
        ("truncated_member", "not a readable SMILES table"),
    ],
)
def test_bad_files_are_refused_with_the_reason(tmp_path, kind, match):
    path = tmp_path / "pcqm4m-v2.zip"
    if kind == "reordered":
        write_pcqm_zip(path, ids=[0, 2, 1, 3, 4])
    elif kind == "no_smiles":
        write_pcqm_zip(path, header="idx,molecule,homolumogap")
    elif kind == "no_member":
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("pcqm4m-v2/raw/other.csv.gz", gzip.compress(b"smiles\nC\n"))
    elif kind == "truncated_member":
        table = gzip.compress(("idx,smiles\n" + "".join(f"{i},CCO\n" for i in range(2000))).encode())
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("pcqm4m-v2/raw/data.csv.gz", table[: len(table) // 2])
    else:
        path.write_bytes(write_pcqm_zip(tmp_path / "good.zip").read_bytes()[:120])
    with pytest.raises(DataFormatError, match=match):
        read_smiles_csv_graphs(path, "PCQM4Mv2")


# ---- the registry entry and the fetch paths ------------------------------------------------------------------


def test_registry_entry_has_the_canonical_source_and_published_count():
    spec = get_spec("PCQM4Mv2")
    assert spec.stats == Stats(graphs=3746620)  # OGB's four split sizes summed; the paper's Table 9
    assert 3_378_606 + 73_545 + 147_037 + 147_432 == spec.stats.graphs
    assert spec.files == ("ogb/pcqm4m-v2.zip",) and spec.urls == (PCQM_URL,)
    assert spec.format == "ogb_lsc_smiles" and has_reader(spec) and spec.task == "graph"
    assert spec.optional and spec.studies == ("graphlm",) and "download only" in spec.note


def test_a_mirror_copy_is_read_and_its_count_checked(tmp_path):
    write_pcqm_zip(tmp_path / "mirror" / "ogb" / "pcqm4m-v2.zip")
    options = FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=False)
    with pytest.raises(StatisticsMismatchError, match="graphs: expected 3746620, found 4"):
        obtain(get_spec("PCQM4Mv2"), tmp_path / "raw", options)
    graphs, record = obtain(replace(get_spec("PCQM4Mv2"), stats=Stats(graphs=4)), tmp_path / "raw", options)
    assert record["source"] == "mirror" and record["statistics"]["graphs"] == graphs.num_graphs == 4
    assert (tmp_path / "raw" / "PCQM4Mv2" / "pcqm4m-v2.zip").is_file()


def test_offline_without_a_mirror_copy_names_dataset_url_and_mirror(tmp_path):
    (tmp_path / "mirror").mkdir()
    options = FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=False)
    with pytest.raises(DataUnavailableError) as caught:
        obtain(get_spec("PCQM4Mv2"), tmp_path / "raw", options)
    message = str(caught.value)
    assert "dataset PCQM4Mv2 is not available offline" in message and PCQM_URL in message
    assert str(tmp_path / "mirror" / "ogb" / "pcqm4m-v2.zip") in message and "Set a mirror that holds" in message
    with pytest.raises(DataUnavailableError, match=r"no mirror is set \(data.mirror or GRAPHAUDIT_DATA_MIRROR\)"):
        obtain(get_spec("PCQM4Mv2"), tmp_path / "raw", FetchOptions(allow_download=False))
    assert not (tmp_path / "raw").exists() or list((tmp_path / "raw").iterdir()) == []


def test_no_mirror_copy_and_no_network(tmp_path):
    """Neither the mirror nor the network has the file (the URL points at a closed local port)."""
    (tmp_path / "mirror").mkdir()
    spec = replace(get_spec("PCQM4Mv2"), urls=(CLOSED_PORT_URL,))
    options = FetchOptions(mirror=str(tmp_path / "mirror"), allow_download=True, retries=1, timeout_s=2)
    with pytest.raises(DataUnavailableError) as caught:
        obtain(spec, tmp_path / "raw", options)
    message = str(caught.value)
    assert message.startswith("dataset PCQM4Mv2: the mirror has no") and "the download failed" in message
    assert CLOSED_PORT_URL in message and "set data.mirror (or GRAPHAUDIT_DATA_MIRROR)" in message


def test_the_shared_mirror_does_not_hold_it(mirror, tmp_path):
    spec = get_spec("PCQM4Mv2")
    if (mirror / spec.files[0]).is_file():
        pytest.skip("the mirror now holds PCQM4Mv2 (test_mirror_datasets reads it)")
    with pytest.raises(DataError, match=f"the mirror has no {mirror / spec.files[0]}"):
        obtain(spec, tmp_path / "raw", FetchOptions(mirror=str(mirror), allow_download=False))

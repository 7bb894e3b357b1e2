"""T10 molecule sets (RDKit conversion, seed-2024 sampling, prompts, scoring) and T11 real-world splits, turns,
statistics, tables and data availability."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.data.readers import read_tu
from graphaudit.data.readers_external import read_ogb_graphprop
from graphaudit.llmpattern.answers import empty_answer, oracle_answer
from graphaudit.llmpattern.molecules import molecule_items, read_smiles_csv, sample_molecules, smiles_graph
from graphaudit.llmpattern.prompts import build_prompt
from graphaudit.llmpattern.realdata import molecule_sources, realworld_sources
from graphaudit.llmpattern.realworld import (
    REALWORLD,
    ogb_atom_symbols,
    published_parts,
    realworld_items,
    realworld_statistics,
    repo_density,
    split_pools,
    turn_count,
    turn_members,
)
from graphaudit.llmpattern.scorers import aggregate, score_answer
from graphaudit.llmpattern.tables import table13_frame, table17_frame
from graphaudit.llmpattern.tasks import prompt_jobs
from ogb_toys import SYMBOLS, write_ogb_graphprop

pytest.importorskip("rdkit")

# A hand-written fixture: (SMILES, has a benzene ring, has a carbonyl and a C-F bond).
FIXTURE = [
    ("c1ccccc1", 1, 0),  # benzene
    ("CC(=O)F", 0, 1),  # acetyl fluoride: C=O and C-F
    ("CCO", 0, 0),  # ethanol
    ("O=C(F)c1ccccc1", 1, 1),  # benzoyl fluoride
]


# ---- RDKit conversion --------------------------------------------------------------------------------
def test_benzene_is_a_six_carbon_ring():
    graph = smiles_graph("c1ccccc1")
    assert graph == {
        "num_nodes": 6,
        "edges": [[0, 1], [0, 5], [1, 2], [2, 3], [3, 4], [4, 5]],
        "atoms": ["C"] * 6,
    }


def test_acetyl_fluoride_atoms_and_bonds():
    graph = smiles_graph("CC(=O)F")
    assert graph["atoms"] == ["C", "C", "O", "F"]
    assert graph["edges"] == [[0, 1], [1, 2], [1, 3]]


def test_explicit_hydrogens_for_alkane_carbonyl():
    graph = smiles_graph("CC", explicit_hydrogens=True)  # ethane: 2 C + 6 H, 1 C-C + 6 C-H bonds
    assert graph["num_nodes"] == 8 and len(graph["edges"]) == 7
    assert graph["atoms"] == ["C", "C"] + ["H"] * 6


def test_unparseable_smiles_names_the_string():
    with pytest.raises(ValueError, match="not-a-smiles"):
        smiles_graph("not-a-smiles")


# ---- files and sampling ------------------------------------------------------------------------------
def _csv(tmp_path: Path, column: int) -> Path:
    path = tmp_path / "set.csv"
    path.write_text("smiles,label,other\n" + "".join(f"{s},{row[column]},x\n" for s, *row in FIXTURE))
    return path


def test_read_smiles_csv_and_its_errors(tmp_path):
    assert read_smiles_csv(_csv(tmp_path, 0)) == [(s, b) for s, b, _ in FIXTURE]
    (tmp_path / "bad.csv").write_text("smile,y\nC,1\n")
    with pytest.raises(ValueError, match="smiles and label"):
        read_smiles_csv(tmp_path / "bad.csv")
    (tmp_path / "bad2.csv").write_text("smiles,label\nC,2\n")
    with pytest.raises(ValueError, match=r"bad2.csv:2: label '2'"):
        read_smiles_csv(tmp_path / "bad2.csv")


def test_sampling_matches_the_repositorys_row_shuffle():
    rows = [(f"C{'C' * i}", i % 3 == 0) for i in range(30)]
    rows = [(s, int(y)) for s, y in rows]
    table = np.array([[i, s, y] for i, (s, y) in enumerate(rows)], dtype=object)
    np.random.seed(2024)
    np.random.shuffle(table)  # what the repository does to its rows
    positives = [int(r[0]) for r in table if r[2] == 1][:4]
    negatives = [int(r[0]) for r in table if r[2] == 0][:4]
    assert sample_molecules(rows, 4) == positives + negatives


def test_molecule_items_prompt_and_oracle_scoring(tmp_path):
    rows = read_smiles_csv(_csv(tmp_path, 0))
    items = molecule_items("Benzene", rows, per_class=2)
    assert [i["truth"]["label"] for i in items] == [1, 1, 0, 0]
    assert all(len(i["graph"]["atoms"]) == i["graph"]["num_nodes"] for i in items)
    jobs = list(prompt_jobs(items[0], ["AL", "EL"], None))
    assert [j["description"] for j in jobs] == ["term", "topo", "both"] * 2
    prompt = build_prompt(items[0], "EL", description="both")
    assert f"the test molecule {items[0]['smiles']} can be shown as" in prompt
    assert "benzene ring, represented as" in prompt
    for mode in ("repo", "clean"):
        oracle = [score_answer(i, oracle_answer(i), mode, description="both") for i in items]
        assert aggregate(oracle)[0]["value"] == 1.0
    empty = [score_answer(i, empty_answer(i), "clean", description="both") for i in items]
    assert aggregate(empty)[0]["value"] == 0.0  # clean: an unparsed verdict is the wrong verdict


def test_molecule_f1_by_hand():
    """2 positives, 2 negatives, predictions 1, 0, 1, 0: TP 1, FP 1, FN 1 -> F1 = 2 / 4 = 0.5, accuracy 0.5."""
    items = [
        {"item_id": f"molecule/benzene/-/{i:04d}", "task": "molecule", "variant": "benzene", "scale": None}
        | {"truth": {"label": y}, "directed": False, "index": i}
        for i, y in enumerate([1, 1, 0, 0])
    ]
    answers = ["**The pattern does exist**", "**The pattern does not exist**"] * 2
    row = aggregate(score_answer(i, a, "repo", description="term") for i, a in zip(items, answers))[0]
    assert row["f1"] == pytest.approx(0.5) and row["accuracy"] == pytest.approx(0.5)


# ---- T11 splits and turns ----------------------------------------------------------------------------
def test_shuffled_split_is_the_seed_2024_permutation():
    labels = np.array([1, 0] * 10)
    classes, disc, test = split_pools(REALWORLD["MUTAG"], labels)
    order = np.random.default_rng(2024).permutation(20)
    assert classes == [1, 0]
    assert disc[1] == [int(i) for i in order[:16] if labels[i] == 1]
    assert test[0] == [int(i) for i in order[16:] if labels[i] == 0]


def test_enzymes_classes_are_the_repositorys_draws():
    labels = np.repeat(np.arange(6), 10)
    classes, disc, test = split_pools(REALWORLD["ENZYMES"], labels)
    assert classes == [3, 1, 5]
    assert disc[3] == list(range(30, 38)) and test[3] == [38, 39]


# ---- the OGB sets (spec §3.4: HIV 100 + 100 / 20 + 20, BBBP 250 + 250 / 25 + 25) -----------------------------
def test_ogb_atom_symbols_are_rdkits_elements_of_atomic_num_minus_one():
    assert ogb_atom_symbols([5, 6, 7, 8, 15, 16, 34, 52, 0, 10, 117]) == [
        "C", "N", "O", "F", "S", "Cl", "Br", "I", "H", "Na", "Og"
    ]  # fmt: skip
    with pytest.raises(ValueError, match="OGB atom code 118 is no element"):
        ogb_atom_symbols([5, 118])


def one_node_graphs(labels: list[int], split: list[tuple[int, int]]) -> GraphSet:
    """One carbon per graph, with the given labels and graph_split rows."""
    count = len(labels)
    return from_edge_list(
        "toy",
        np.arange(count),
        np.zeros((0, 2)),
        node_labels=np.full(count, 5),
        graph_labels=np.array(labels),
        graph_split=np.array(split),
    )


def hiv_like() -> GraphSet:
    """200 train graphs, then a 500-graph test part listed in reverse (a third positive), no valid part."""
    labels = [0] * 200 + [int(g % 3 == 0) for g in range(200, 700)]
    split = [(0, g) for g in range(200)] + [(2, 699 - g) for g in range(200, 700)]
    return one_node_graphs(labels, split)


def test_hiv_shuffles_the_scaffold_test_part_and_takes_100_and_20_per_class():
    graphs = hiv_like()
    labels = graphs.get("graph_labels")
    classes, disc, test = split_pools(REALWORLD["ogbg-molhiv"], labels, published_parts(graphs))
    universe = np.arange(699, 199, -1)  # the test part in file order
    order = universe[np.random.default_rng(2024).permutation(500)]
    assert classes == [1, 0]
    assert disc[1] == [int(g) for g in order[:400] if labels[g] == 1][:100]
    assert disc[0] == [int(g) for g in order[:400] if labels[g] == 0][:100]
    assert test[1] == [int(g) for g in order[400:] if labels[g] == 1][:20]
    assert test[0] == [int(g) for g in order[400:] if labels[g] == 0][:20]
    items = realworld_items(REALWORLD["ogbg-molhiv"], graphs, 2, None, None, seed=0)
    pool = [i["truth"]["label"] for i in items if i["task"] == "realworld_pool"]
    tests = [i["truth"]["label"] for i in items if i["task"] == "realworld_graph"]
    turns = [i for i in items if i["task"] == "realworld_turn"]
    assert (pool.count(1), pool.count(0), tests.count(1), tests.count(0)) == (100, 100, 20, 20)
    assert len(turns) == 40 and len(turns[0]["graphs"]) == 10  # Table 17: 5 per class, 200 / 10 x 2 epochs
    assert all(i["graph"]["atoms"] == ["C"] for i in items if i["task"] == "realworld_pool")


def bbbp_like() -> GraphSet:
    """600 train graphs (every other one positive), 100 valid, a 60-graph test part (every other one positive)."""
    labels = [g % 2 for g in range(760)]
    split = [(0, g) for g in range(600)] + [(1, g - 600) for g in range(600, 700)]
    return one_node_graphs(labels, split + [(2, g - 700) for g in range(700, 760)])


def test_bbbp_takes_the_first_250_train_and_last_25_test_graphs_per_class():
    graphs = bbbp_like()
    classes, disc, test = split_pools(REALWORLD["ogbg-molbbbp"], graphs.get("graph_labels"), published_parts(graphs))
    assert classes == [1, 0]
    assert disc[1] == list(range(1, 500, 2)) and disc[0] == list(range(0, 500, 2))
    assert test[1] == list(range(711, 760, 2)) and test[0] == list(range(710, 760, 2))
    items = realworld_items(REALWORLD["ogbg-molbbbp"], graphs, 2, None, None, seed=0)
    pool = [i["truth"]["label"] for i in items if i["task"] == "realworld_pool"]
    tests = [i["truth"]["label"] for i in items if i["task"] == "realworld_graph"]
    assert (pool.count(1), pool.count(0), tests.count(1), tests.count(0)) == (250, 250, 25, 25)
    assert sum(i["task"] == "realworld_turn" for i in items) == 100  # Table 17: 500 / 10 x 2 epochs


def test_ogb_rules_need_the_published_split():
    graphs = hiv_like()
    graphs.arrays.pop("graph_split")
    with pytest.raises(ValueError, match=r"ogbg-molhiv: the split reads the published 'test' part.*read_ogb_graphprop"):
        realworld_items(REALWORLD["ogbg-molhiv"], graphs, 2, None, None, seed=0)


def test_a_class_missing_from_the_pool_is_an_error_not_a_crash(tmp_path):
    graphs = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "hiv.zip"), "ogbg-molhiv")  # test part: graph 1 only
    with pytest.raises(ValueError, match="ogbg-molhiv: the discrimination pool holds no graph of class 0"):
        realworld_items(REALWORLD["ogbg-molhiv"], graphs, 2, None, None, seed=0)


def test_ogb_zip_items_show_atom_symbols_in_the_prompts(tmp_path):
    """The toy zip's BBBP rule: train part 2 (label 1), 0 (label 0); test part 1 (label 1)."""
    graphs = read_ogb_graphprop(write_ogb_graphprop(tmp_path / "bbbp.zip", top="bbbp"), "ogbg-molbbbp")
    items = realworld_items(REALWORLD["ogbg-molbbbp"], graphs, 2, None, None, seed=0)
    pool = [i for i in items if i["task"] == "realworld_pool"]
    tests = [i for i in items if i["task"] == "realworld_graph"]
    assert [(i["truth"]["graph_index"], i["truth"]["label"]) for i in pool] == [(2, 1), (0, 0)]
    assert [i["graph"]["atoms"] for i in pool] == [list(SYMBOLS[2]), list(SYMBOLS[0])]
    assert [(i["truth"]["graph_index"], i["graph"]["atoms"]) for i in tests] == [(1, list(SYMBOLS[1]))]
    turn = next(i for i in items if i["task"] == "realworld_turn")
    assert len(turn["graphs"]) == 10  # 5 per class, each class's one graph repeated
    prompt = build_prompt(turn, "EL", gold_set="Set1")
    assert prompt.startswith("You are an expert in molecular chemistry.")
    assert "Node 0 (atom: Cl) is connected to Node 1 (atom: C)." in prompt
    assert "Node 1 (atom: C) is connected to Node 2 (atom: O)." in prompt  # ethanol, in Set2
    assert prompt.endswith("[(Node 0 Atom C, Node 1 Atom N), (Node 1 Atom N, Node 2 Atom O), ...]. ")
    scores = [score_answer(t, oracle_answer(t), "repo") for t in tests]
    assert aggregate(scores)[0]["value"] == 1.0


def test_turn_count_matches_table_17_arithmetic():
    assert turn_count([100, 50], 10, 2) == 16  # MUTAG: ceil(150 / 20) x 2
    assert turn_count([80, 80, 80], 5, 2) == 32  # ENZYMES
    assert turn_count([250, 250], 5, 2) == 100  # IMDB-BINARY


def test_turn_members_wrap_a_short_class_and_repeat_exactly():
    turns = turn_members([list(range(10)), list(range(100, 104))], 3, 1, ("test",))
    assert len(turns) == 3  # ceil(14 / 6)
    assert all(len(per_class) == 3 for turn in turns for per_class in turn)
    first = [g for turn in turns for g in turn[0]]
    assert len(set(first)) == 9 and set(first) < set(range(10))  # positions 0..8 of one permutation: no repeat
    assert {g for turn in turns for g in turn[1]} == set(range(100, 104))  # 9 draws wrap the 4 graphs
    assert turns == turn_members([list(range(10)), list(range(100, 104))], 3, 1, ("test",))


def test_repo_density_and_statistics_by_hand():
    triangle = {"num_nodes": 3, "edges": [[0, 1], [0, 2], [1, 2]]}
    path = {"num_nodes": 2, "edges": [[0, 1]]}
    assert repo_density(triangle) == pytest.approx(3 / 9)
    items = [
        {"task": "realworld_pool", "variant": "X", "graph": triangle},
        {"task": "realworld_graph", "variant": "X", "graph": path},
    ]
    rows = realworld_statistics(items)
    assert [r["progress"] for r in rows] == ["discrimination", "classification", "overall"]
    assert rows[2]["avg_node"] == 2.5 and rows[2]["avg_edge"] == 2.0
    assert rows[2]["avg_density"] == pytest.approx((3 / 9 + 1 / 4) / 2)


def _paper(table: str, records: list[tuple[str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"table": table, "item": i, "metric": m, "value": v} for i, m, v in records])


def test_table13_frame_puts_paper_values_beside_and_marks_missing_sets():
    rows = [
        {"dataset": "benzene", "progress": "overall", "num": 4, "avg_node": 1.0, "avg_edge": 2.0, "avg_density": 0.1}
    ]
    paper = _paper("table13", [("Benzene:overall", "num", 200), ("ENZYMES:overall", "num", 300)])
    frame = table13_frame(rows, paper, {"ENZYMES": "not offline"})
    assert frame.loc[0, "dataset"] == "Benzene" and frame.loc[0, "paper_num"] == 200
    assert frame.loc[1, "not_run"] == "not offline" and frame.loc[1, "paper_num"] == 300


def test_table17_frame_counts_pool_turns():
    pool = [
        {"task": "realworld_pool", "variant": "ENZYMES", "truth": {"label": c}} for c in (3, 1, 5) for _ in range(80)
    ]
    turns = [{"task": "realworld_turn", "variant": "ENZYMES"}] * 4
    paper = _paper("table17", [("ENZYMES", "sampling", 5), ("ENZYMES", "turns", 32), ("MUTAG", "turns", 16)])
    frame = table17_frame(pool + turns, paper, {"MUTAG": "absent"}, epochs=2).set_index("dataset")
    assert frame.loc["ENZYMES", "turns"] == 32 and frame.loc["ENZYMES", "turns_generated"] == 4
    assert frame.loc["MUTAG", "not_run"] == "absent" and pd.isna(frame.loc["MUTAG", "turns"])


# ---- availability ------------------------------------------------------------------------------------
def test_realworld_sources_run_mirrored_sets_and_explain_the_others(tmp_path):
    (tmp_path / "tu").mkdir()
    (tmp_path / "tu" / "ENZYMES.zip").write_bytes(b"")
    runs, reasons = realworld_sources(
        ["ENZYMES", "Fingerprint", "ogbg-molhiv"], {"mirror": str(tmp_path)}, download=False, raw_root=tmp_path
    )
    assert runs == ["ENZYMES"]
    assert "tu/Fingerprint.zip" in reasons["Fingerprint"] and "llmpattern.realworld.download" in reasons["Fingerprint"]
    assert "ogb/hiv.zip" in reasons["ogbg-molhiv"] and "llmpattern.realworld.download" in reasons["ogbg-molhiv"]


def test_ogb_sets_run_from_the_mirror_or_a_download_and_are_not_run_otherwise(tmp_path):
    names = ["ogbg-molhiv", "ogbg-molbbbp"]
    runs, reasons = realworld_sources(names, {"mirror": str(tmp_path)}, download=False, raw_root=tmp_path)
    assert runs == [] and list(reasons) == names
    assert reasons["ogbg-molbbbp"] == (
        f"data not available offline: the data mirror {tmp_path} lacks ogb/bbbp.zip; put the file there, or set "
        "llmpattern.realworld.download: true to fetch "
        "http://snap.stanford.edu/ogb/data/graphproppred/csv_mol_download/bbbp.zip"
    )
    write_ogb_graphprop(tmp_path / "ogb" / "hiv.zip")
    runs, reasons = realworld_sources(names, {"mirror": str(tmp_path)}, download=False, raw_root=tmp_path)
    assert runs == ["ogbg-molhiv"] and list(reasons) == ["ogbg-molbbbp"]
    runs, reasons = realworld_sources(names, {"mirror": None}, download=True, raw_root=tmp_path)
    assert runs == names and reasons == {}


def test_molecule_sources_prefer_user_files(tmp_path):
    path = _csv(tmp_path, 0)
    files, reasons = molecule_sources(["Benzene", "Alkane-Carbonyl"], {"Benzene": str(path)}, {"mirror": None})
    assert files == {"Benzene": str(path)}
    assert "llmpattern.molecules.files.Alkane-Carbonyl" in reasons["Alkane-Carbonyl"]
    with pytest.raises(FileNotFoundError):
        molecule_sources(["Benzene"], {"Benzene": str(tmp_path / "missing.csv")}, {})


# ---- the mirrored TU sets (Table 13 structure) ----------------------------------------------------------
@pytest.fixture
def mirrored():
    root = os.environ.get("GRAPHAUDIT_DATA_MIRROR")
    if not root or not (Path(root) / "tu" / "MUTAG.zip").is_file():
        pytest.skip("GRAPHAUDIT_DATA_MIRROR with tu/MUTAG.zip is not set")
    return Path(root) / "tu"


def test_mutag_items_follow_the_repository_split(mirrored):
    items = realworld_items(REALWORLD["MUTAG"], read_tu(mirrored / "MUTAG.zip", "MUTAG"), 2, None, None, seed=0)
    pool = [i for i in items if i["task"] == "realworld_pool"]
    tests = [i for i in items if i["task"] == "realworld_graph"]
    turns = [i for i in items if i["task"] == "realworld_turn"]
    assert (len(pool), len(tests), len(turns)) == (150, 38, 16)
    assert set(pool[0]["graph"]["atoms"]) <= {"C", "N", "O", "F", "I", "Cl", "Br"}
    assert len(turns[0]["graphs"]) == 20 and turns[0]["truth"]["classes"] == [1, 0]
    for mode in ("repo", "clean"):
        scores = [score_answer(t, oracle_answer(t), mode) for t in tests]
        assert aggregate(scores)[0]["value"] == 1.0

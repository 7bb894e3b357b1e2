"""T10 molecule sets (RDKit conversion, seed-2024 sampling, prompts, scoring) and T11 real-world splits, turns,
statistics, tables and data availability."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphaudit.data.readers import read_tu
from graphaudit.llmpattern.answers import empty_answer, oracle_answer
from graphaudit.llmpattern.molecules import molecule_items, read_smiles_csv, sample_molecules, smiles_graph
from graphaudit.llmpattern.prompts import build_prompt
from graphaudit.llmpattern.realdata import molecule_sources, realworld_sources
from graphaudit.llmpattern.realworld import (
    REALWORLD,
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
    assert "no reader" in reasons["ogbg-molhiv"]


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

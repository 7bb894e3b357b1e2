"""Typed anomalies, part 4 (spec 4.13-4.15): the verdicts of Tables 12-14 computed from control AUROCs on hand-made
rows (each flips when one seed's AUROC crosses its threshold), the fixed selection rule in Table 13, the validation
summary, and the rule functions end to end on a tiny GX split and a tiny NCI1-like molecule pool."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.glad import layout, tables, typed, typed_tasks
from graphaudit.glad import molswap as ms
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad.protocol import read_folds
from graphaudit.glad.settings import GladSettings
from graphaudit.report.tables import write_table

from .test_settings import merged

# ---- hand-made control rows ---------------------------------------------------------------------------------


def rows_of(name: str, generator: str, per_seed: dict[str, list[float]], n_scored: list[int] | None = None) -> list:
    """Control rows of one set: ``per_seed`` maps "<variant>/<control>" to one AUROC per seed."""
    rows = []
    for key, values in per_seed.items():
        variant, control = key.split("/")
        for seed, value in enumerate(values):
            rows.append(
                {
                    "generator": generator,
                    "set": name,
                    "seed": seed,
                    "variant": variant,
                    "control": control,
                    "auroc": value,
                    "n_normals": 40,
                    "n_scored": (n_scored or [150] * len(values))[seed],
                    "swaps": 1.0,
                }
            )
    return rows


def controls(
    graphlet: list[float], size: list[float], pair: list[float], null: list[float] | None = None, variant: str = ""
) -> dict[str, list[float]]:
    variant = variant or typed.SIZE_PRESERVING
    values = {
        f"{variant}/{typed.GRAPHLET_LW}": graphlet,
        f"{variant}/{typed.SIZE_ONLY}": size,
        f"{variant}/{typed.EDGE_LABEL_PAIR_LW}": pair,
    }
    if null is not None:
        values[f"{typed.PARENTS}/{typed.GRAPHLET_LW}"] = null
        values[f"{typed.PARENTS}/{typed.SIZE_ONLY}"] = [50.0] * len(null)
        values[f"{typed.PARENTS}/{typed.EDGE_LABEL_PAIR_LW}"] = [50.0] * len(null)
    return values


def molswap_rows(candidate: msd.Candidate, graphlet: list[float], yields: list[int] | None = None) -> list:
    kept = controls(graphlet, [55.0, 56.0], [60.0, 61.0], null=[50.0, 52.0])
    changed = controls([g + 2 for g in graphlet], [70.0, 71.0], [74.0, 75.0], variant=typed.SIZE_CHANGING)
    return rows_of(candidate.name, typed.MOLSWAP, {**kept, **changed}, yields)


def write(frame_rows: list, path: Path) -> str:
    write_table(pd.DataFrame(frame_rows, columns=typed.CONTROL_COLUMNS), path)
    return str(path)


def table(function, tmp_path: Path, **inputs) -> pd.DataFrame:
    out = tmp_path / "out.csv"
    function(RuleContext(input=inputs, output={"table": str(out)}))
    return pd.read_csv(out)


# ---- verdicts ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "graphlet, size, pair, expected",
    [
        (85.0, 60.0, 84.99, "valid"),
        (84.99, 50.0, 50.0, "not valid"),
        (90.0, 60.01, 50.0, "not valid"),
        (90.0, 50.0, 85.0, "confounded"),
        (70.0, 50.0, 85.0, "confounded"),
        (math.nan, 50.0, 50.0, "no anomalies"),
    ],
)
def test_verdict_thresholds(graphlet: float, size: float, pair: float, expected: str) -> None:
    assert typed.verdict(graphlet, size, pair)["verdict"] == expected


def test_table14_verdict_flips_when_one_seed_crosses_the_threshold(tmp_path) -> None:
    def validity(t3b_seed1: float, t3a_size_seed0: float = 50.0, t1a_pair_seed0: float = 50.0) -> pd.DataFrame:
        gx_rows = rows_of("T1a", typed.GX, controls([99.0, 98.0], [50.0, 49.0], [t1a_pair_seed0, 52.0]))
        gx_rows += rows_of("T3a", typed.GX, controls([88.0, 87.0], [t3a_size_seed0, 60.0], [50.0, 51.0]))
        gx_rows += rows_of("T3b", typed.GX, controls([84.0, t3b_seed1], [50.0, 51.0], [49.0, 50.0]))
        frame = table(tables.table14, tmp_path, gx=[write(gx_rows, tmp_path / "gx.csv")])
        return frame.set_index("type")

    below = validity(t3b_seed1=85.8)  # mean 84.9
    assert below.loc["T3b", "graphlet_lw"] == pytest.approx(84.9) and below.loc["T3b", "verdict"] == "not valid"
    assert below.loc["T3b", "role"] == "left out (not valid)" and below.loc["T3a", "verdict"] == "valid"
    above = validity(t3b_seed1=86.2)  # mean 85.1
    assert above.loc["T3b", "verdict"] == "valid" and above.loc["T3b", "role"] == "decision"
    assert above.loc["T3b", "graphlet_lw_min"] == 84.0 and above.loc["T3b", "graphlet_lw_max"] == 86.2
    assert validity(86.2, t3a_size_seed0=60.2).loc["T3a", "verdict"] == "not valid"  # size only 60.1
    assert validity(86.2, t1a_pair_seed0=118.0).loc["T1a", "verdict"] == "confounded"  # edge-label pair mean 85
    assert list(above.index) == ["T1a", "T3a", "T3b"] and set(above["generator"]) == {"GX"}


def test_table14_adds_the_final_molswap_types_and_the_size_changing_range(tmp_path) -> None:
    gx_rows = rows_of("T1a", typed.GX, controls([99.0, 98.0], [50.0, 49.0], [50.0, 52.0]))
    ms_files = []
    for (name, candidate), graphlet in zip(msd.FINAL_TYPES.items(), ([90.0, 91.0], [85.0, 86.0], [84.0, 85.0])):
        ms_files.append(write(molswap_rows(candidate, graphlet), tmp_path / f"{name}.csv"))
    frame = table(tables.table14, tmp_path, gx=[write(gx_rows, tmp_path / "gx.csv")], molswap=ms_files)
    kept = frame[frame["variant"] == typed.SIZE_PRESERVING].set_index("type")
    assert kept.loc["MS1", "verdict"] == "valid" and kept.loc["MS2", "verdict"] == "valid"
    assert kept.loc["MS3", "verdict"] == "not valid"  # 84.5
    assert kept.loc["MS2", "null_edit"] == 51.0 and kept.loc["MS2", "candidate"] == "D/k2/P0"
    changed = frame[frame["variant"] == typed.SIZE_CHANGING].set_index("type")
    assert set(changed.loc[["MS1", "MS2", "MS3"], "verdict"]) == {"not valid"}  # size only 70.5 > 60
    assert set(changed["role"]) == {"scope test"}
    assert changed.loc["MS1-MS3", "size_only_min"] == 70.5 and changed.loc["MS1-MS3", "size_only_max"] == 70.5


def test_table14_without_molswap_has_the_gx_rows_only(tmp_path) -> None:
    gx_rows = rows_of("T1a", typed.GX, controls([99.0], [50.0], [50.0]))
    frame = table(tables.table14, tmp_path, gx=[write(gx_rows, tmp_path / "gx.csv")], molswap=[])
    assert frame["type"].tolist() == ["T1a"] and frame["seeds"].tolist() == [1]


# ---- the selection rule (Table 13) and v1 (Table 12) ---------------------------------------------------------
def paper_shaped(tmp_path: Path, change: dict | None = None) -> list[str]:
    """The 26 candidates' control files shaped like Table 13 (C passes everywhere, D from k = 2 on P0, F at k = 1),
    with ``change``: candidate -> (graphlet per seed, yields per seed)."""
    paths = []
    for c in msd.CANDIDATES:
        passing = c.family == "C" or (c.family == "D" and c.pool == "P0" and c.k != 1) or (c.family == "F" and c.k == 1)
        graphlet, yields = ([88.0, 89.0] if passing else [80.0, 84.0]), None
        graphlet, yields = (change or {}).get(c, (graphlet, yields))
        paths.append(write(molswap_rows(c, graphlet, yields), tmp_path / f"{c.family}_{c.k}_{c.pool}.csv"))
    return paths


def test_table13_applies_the_fixed_selection_rule(tmp_path) -> None:
    frame = table(tables.table13, tmp_path, controls=paper_shaped(tmp_path)).set_index("candidate")
    assert len(frame) == 26 and frame["iteration"].value_counts().to_dict() == {1: 20, 2: 6}
    chosen = frame[frame["selected_as"].notna()]["selected_as"].to_dict()
    assert chosen == {c.name: name for name, c in msd.FINAL_TYPES.items()}
    assert (frame["selected_as"].fillna("") == frame["frozen_as"].fillna("")).all()
    assert frame.loc["C/k2/P0", "passes"] == "Yes" and frame.loc["A/k1/P0", "passes"] == "No"
    assert frame.loc["C/k1/P0", "min_yield_sc"] == 150 and frame.loc["C/k1/P0", "null_edit"] == 51.0


def test_table13_choice_moves_when_a_candidate_crosses_the_threshold_or_the_yield_floor(tmp_path) -> None:
    low_yield = {msd.Candidate("F", 1): ([88.0, 89.0], [150, 99])}
    frame = table(tables.table13, tmp_path, controls=paper_shaped(tmp_path, low_yield)).set_index("candidate")
    assert frame.loc["F/k1/P0", "passes"] == "No (yield)" and pd.isna(frame.loc["F/k1/P0", "selected_as"])
    assert frame.loc["F/k1/P0", "frozen_as"] == "MS3"  # the frozen type stays, the rule's choice shows the move
    below = {msd.Candidate("D", 2): ([84.0, 85.9], None)}  # mean 84.95: D passes from k = all only
    frame = table(tables.table13, tmp_path, controls=paper_shaped(tmp_path, below)).set_index("candidate")
    assert frame.loc["D/k2/P0", "passes"] == "No" and frame.loc["D/kall/P0", "selected_as"] == "MS2"


def test_table12_verdicts_of_v1(tmp_path) -> None:
    files = [
        write(molswap_rows(c, graphlet), tmp_path / f"{name}.csv")
        for (name, c), graphlet in zip(msd.V1_TYPES.items(), ([53.0, 54.0], [84.0, 85.9], [85.0, 86.0]))
    ]
    frame = table(tables.table12, tmp_path, controls=files).set_index("type")
    assert frame["verdict"].to_dict() == {"v1-MS1": "not valid", "v1-MS2": "not valid", "v1-MS3": "valid"}
    assert frame.loc["v1-MS3", "candidate"] == "S/k1/P0" and frame.loc["v1-MS1", "null_edit_max"] == 52.0


# ---- the validation summary ----------------------------------------------------------------------------------
def test_validation_table_sums_seeds_and_counts_failing_checks(tmp_path) -> None:
    def check(seed: object, check: str, accepted: int, expected: str, genuine: float = math.nan) -> dict:
        tested = 10
        passed = accepted == tested if expected == "all" else accepted == 0 if expected == "none" else True
        return {
            "group": "MS-v2",
            "type": "MS1",
            "candidate": "C/k1/P0",
            "check": check,
            "subject": "MS1",
            "seed": seed,
            "tested": tested,
            "accepted": accepted,
            "rejected": tested - accepted,
            "genuine": genuine,
            "expected": expected,
            "passed": passed,
            "problem": "" if passed else "swap 1: bad",
        }

    rows = [check(0, "replayed edit", 10, "all"), check(1, "replayed edit", 9, "all")]
    rows += [check(0, "checker on another type", 0, "none"), check("all", "checker on random swaps", 2, "x", 2.0)]
    path = tmp_path / "checks.csv"
    write_table(pd.DataFrame(rows, columns=typed.VALIDATION_COLUMNS), path)
    frame = table(tables.molswap_validation, tmp_path, checks=str(path)).set_index("check")
    assert frame.loc["replayed edit", ["tested", "accepted", "rejected"]].tolist() == [20, 19, 1]
    assert not frame.loc["replayed edit", "passed"] and frame.loc["replayed edit", "problem"] == "swap 1: bad"
    assert frame.loc["replayed edit", "seeds"] == "0,1" and frame.loc["checker on random swaps", "genuine"] == 2
    assert frame.loc["every check", ["tested", "accepted", "rejected"]].tolist() == [3, 2, 1]


# ---- GX rules on a tiny split --------------------------------------------------------------------------------
SIZES = {"train_normals": 40, "holdout_share": 0.2, "test_normals": 30, "anomalies_per_type": 30}


def gx_files(root: Path, features: str, seed: int) -> dict[str, str]:
    folder = root / layout.GX_SET.format(features=features, seed=seed)
    return {
        name: str(folder / f"{name}.{ext}")
        for name, ext in (("graphs", "npz"), ("metadata", "json"), ("folds", "json"))
    }


def test_gx_rules_write_the_set_its_folds_and_controls(tmp_path) -> None:
    for features in ("F2", "F1"):
        context = RuleContext(
            output=gx_files(tmp_path, features, 3),
            params={"sizes": SIZES},
            wildcards={"features": features, "seed": "3"},
        )
        typed_tasks.gx_set(context)
    files = gx_files(tmp_path, "F2", 3)
    graphs, metadata = GraphSet.load(files["graphs"]), json.loads(Path(files["metadata"]).read_text())
    assert graphs.num_graphs == 40 + 30 + 3 * 30 and metadata["seed"] == 3 and metadata["features"] == "F2"
    assert len(metadata["ids"]["holdout"]) == 8 and metadata["summary"]["T1a"]["m_minus_n"] == [15]
    folds = read_folds(files["folds"])
    assert [len(f.test) for f in folds] == [60, 60, 60] and folds[1].test[30:] == metadata["ids"]["T3a"]
    again = gx_files(tmp_path / "again", "F2", 3)
    typed_tasks.gx_set(RuleContext(output=again, params={"sizes": SIZES}, wildcards={"features": "F2", "seed": "3"}))
    assert all(Path(again[k]).read_bytes() == Path(files[k]).read_bytes() for k in files)  # regenerated byte for byte
    out = tmp_path / "controls.csv"
    typed_tasks.gx_controls(
        RuleContext(input=files, output={"controls": str(out)}, params={"max_k": 5}, wildcards={"seed": "3"})
    )
    rows = pd.read_csv(out)
    assert len(rows) == 9 and set(rows["set"]) == {"T1a", "T3a", "T3b"} and rows["n_scored"].eq(30).all()
    assert rows[(rows["set"] == "T1a") & (rows["control"] == typed.GRAPHLET_LW)]["auroc"].item() > 90  # K_{2,3}
    validity = table(tables.table14, tmp_path, gx=[str(out)])
    assert validity.loc[0, "type"] == "T1a" and validity.loc[0, "test_normals"] == 30
    sets = table(tables.gx_sets, tmp_path, metadata=[gx_files(tmp_path, f, 3)["metadata"] for f in ("F2", "F1")])
    assert sets["part"].tolist()[:5] == list(typed.GX_PARTS) and sets["feature_columns"].tolist() == [6] * 5 + [4] * 5


# ---- MolSwap rules on a tiny NCI1-like pool ------------------------------------------------------------------
C, N, OX = 3, 2, 1


def tiny_pool() -> GraphSet:
    """36 connected normals (a 6-ring with a chain of 1-6 carbons on atom 0, an O on atom 3, some with a second
    substituent on atom 0 or a second ring), two disconnected normals and three anomalous-class graphs."""
    molecules, labels = [], []
    for index in range(36):
        chain, second = 1 + index % 6, index % 3
        atoms = [C] * 6 + [OX] + [C] * chain
        edges = [(i, (i + 1) % 6) for i in range(6)] + [(3, 6), (0, 7)] + [(7 + i, 8 + i) for i in range(chain - 1)]
        if second == 1:  # a methyl on atom 0 too: a carbon of degree 4
            atoms.append(C)
            edges.append((0, len(atoms) - 1))
        if second == 2 and index % 4 == 0:  # a second 6-ring at the chain's end
            start = len(atoms)
            atoms += [N] + [C] * 5
            edges += [(start + i, start + (i + 1) % 6) for i in range(6)] + [(6 + chain, start)]
        molecules.append((atoms, edges))
        labels.append(1)
    for _ in range(2):  # disconnected normals: a ring and a separate pair
        molecules.append(([C] * 8, [(i, (i + 1) % 6) for i in range(6)] + [(6, 7)]))
        labels.append(1)
    for _ in range(3):  # the anomalous class (mapped label 0)
        molecules.append(([N] * 4, [(0, 1), (1, 2), (2, 3)]))
        labels.append(0)
    graph_of_node, edges, node_labels, offset = [], [], [], 0
    for g, (atoms, bonds) in enumerate(molecules):
        graph_of_node += [g] * len(atoms)
        node_labels += atoms
        edges += [(u + offset, v + offset) for u, v in bonds]
        offset += len(atoms)
    return from_edge_list(
        "tiny",
        np.array(graph_of_node),
        np.array(edges),
        node_labels=np.array(node_labels),
        graph_labels=np.array(labels),
    )


MS_TYPES = [["MS-v2", "MS1", "C/k1/P0"], ["MS-v2", "MS3", "F/k1/P0"]]
MS_SEEDS = [0, 1]


def set_files(root: Path, candidate: msd.Candidate) -> dict[str, list[str]]:
    return {
        name.split(".")[0]: [str(root / p) for p in layout.molswap_set_files(candidate, MS_SEEDS, name)]
        for name in layout.MOLSWAP_FILES
    }


def test_molswap_rules_generate_control_and_validate_the_saved_sets(tmp_path) -> None:
    graphset, pool = tmp_path / "tiny.npz", tmp_path / "pool.json"
    tiny_pool().save(graphset)
    typed_tasks.molswap_pool(
        RuleContext(input={"graphset": str(graphset)}, output={"pool": str(pool)}, params={"seeds": MS_SEEDS})
    )
    record = json.loads(pool.read_text())
    assert (record["kept"], record["excluded"], record["normal_graphs"]) == (36, 2, 38)
    assert [len(record["splits"]["P0"]["0"][part]) for part in ("train", "test", "parents")] == [21, 7, 8]
    inputs = {"graphset": str(graphset), "pool": str(pool)}
    for _, _, name in MS_TYPES:
        candidate = msd.candidate_named(name)
        files = set_files(tmp_path, candidate)
        wildcards = layout.candidate_wildcards(candidate)
        typed_tasks.molswap_set(
            RuleContext(input=inputs, output=files, params={"seeds": MS_SEEDS}, wildcards=wildcards)
        )
        records = json.loads(Path(files["records"][0]).read_text())
        made = GraphSet.load(files["anomalies"][0])
        assert records["name"] == name and len(records["anomalies"]) == made.num_graphs > 0
        assert made.num_graphs + sum(records["rejected"].values()) == 8  # every parent accounted for
        out = tmp_path / f"{candidate.family}.csv"
        typed_tasks.molswap_controls(
            RuleContext(
                input={**inputs, **files},
                output={"controls": str(out)},
                params={"seeds": MS_SEEDS, "max_k": 4},
                wildcards=wildcards,
            )
        )
        rows = pd.read_csv(out)
        assert len(rows) == 2 * 3 * 3 and set(rows["variant"]) == set(typed.VARIANTS)
        kept = rows[rows["variant"] == typed.SIZE_PRESERVING]
        assert kept["n_normals"].eq(7).all() and kept["swaps"].eq(1.0).all()
        sizes = rows[(rows["variant"] == typed.SIZE_PRESERVING) & (rows["control"] == typed.SIZE_ONLY)]["auroc"]
        parents = rows[(rows["variant"] == typed.PARENTS) & (rows["control"] == typed.SIZE_ONLY)]["auroc"]
        assert sizes.tolist() == parents.tolist()  # a size-preserving edit keeps n, m and density
    validation_inputs = layout.molswap_validation_inputs(
        [(g, n, msd.candidate_named(c)) for g, n, c in MS_TYPES], MS_SEEDS
    )
    checks = tmp_path / "validation.csv"
    typed_tasks.validate_molswap(
        RuleContext(
            input={**inputs, **{k: [str(tmp_path / p) for p in v] for k, v in validation_inputs.items()}},
            output={"checks": str(checks)},
            params={"types": MS_TYPES, "seeds": MS_SEEDS},
        )
    )
    frame = table(tables.molswap_validation, tmp_path, checks=str(checks)).set_index(["type", "check"])
    assert frame.loc[("all", "every check"), "rejected"] == 0, frame[~frame["passed"]]
    assert frame.loc[("MS1", "checker on another type"), "accepted"] == 0
    assert frame.loc[("MS1", "replayed edit"), "tested"] > 0
    assert frame.loc[("MS3", "checker on random swaps"), "tested"] == 36  # at most one swap per normal


def test_validation_catches_a_tampered_saved_graph(tmp_path) -> None:
    graphset, pool = tmp_path / "tiny.npz", tmp_path / "pool.json"
    tiny_pool().save(graphset)
    context = RuleContext(input={"graphset": str(graphset)}, output={"pool": str(pool)}, params={"seeds": [0]})
    typed_tasks.molswap_pool(context)
    data = ms.molswap_data(tiny_pool())
    made = ms.generate(data, msd.Candidate("C", 1), 0)
    saved = typed.SavedSet(
        "MS-v2", "MS1", msd.Candidate("C", 1), 0, [a.graph for a in made.anomalies], [], typed.set_records(made)
    )
    saved.records["size_changing"] = []
    split = json.loads(pool.read_text())["splits"]["P0"]["0"]
    assert all(r["passed"] for r in typed.saved_set_rows(saved, data, split))
    tampered = [data.molecules[a.parent] for a in made.anomalies]  # the parents saved in place of the anomalies
    rows = typed.saved_set_rows(
        typed.SavedSet("MS-v2", "MS1", msd.Candidate("C", 1), 0, tampered, [], saved.records), data, split
    )
    replay = next(r for r in rows if r["check"] == "replayed edit")
    assert replay["accepted"] == 0 and replay["problem"].startswith("replaying the swaps")


# ---- the config's typed section --------------------------------------------------------------------------------
def test_typed_settings_per_scale() -> None:
    default, ci, paper = (load_settings(GladSettings, merged(*o)).typed for o in ((), ("ci.yaml",), ("paper.yaml",)))
    assert not default.molswap.enabled and default.gx.seeds == (0, 1) and default.gx.control_features == "F2"
    assert ci.gx.seeds == (0,) and ci.gx.train_normals < default.gx.train_normals and not ci.molswap.enabled
    assert paper.molswap.enabled and paper.gx.seeds == paper.molswap.seeds == (0, 1, 2, 3, 4)
    assert layout.gx_sizes(merged("ci.yaml")) == {
        "train_normals": 60,
        "holdout_share": 0.2,
        "test_normals": 30,
        "anomalies_per_type": 30,
    }

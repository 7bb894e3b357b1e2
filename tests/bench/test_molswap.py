"""The MS-v2 rejection benchmark: canonical keys and pairwise VF2 decide hand candidates alike, and on NCI1 (data
mirror) the rule entry writes one checked row."""

from __future__ import annotations

import pandas as pd

from graphaudit.bench.molswap import bench_molswap, ours, peer
from graphaudit.common.rule import RuleContext
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad import molswap as ms

C, OX = 3, 1


def molecule(labels: list[int], edges: list[tuple[int, int]]) -> ms.Molecule:
    return ms.Molecule.build(labels, edges)


HEXANOL = molecule([C] * 6 + [OX], [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 6)])
# the same molecule, atoms renumbered (O first)
RENUMBERED = molecule([OX] + [C] * 6, [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 1), (0, 1)])
# a 4-ring with a two-atom chain: HEXANOL with one swap (C's edit), and its O moved to the chain's end
FOUR_RING = molecule([C] * 6 + [OX], [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 5), (0, 6)])
FOUR_RING_O_MOVED = molecule([C] * 6 + [OX], [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 5), (5, 6)])


def test_keys_and_vf2_decide_alike() -> None:
    normals = [HEXANOL, FOUR_RING_O_MOVED]
    rules = ms.EditRules(support=frozenset(), normal_keys=frozenset(m.key for m in normals))
    candidates = [(HEXANOL, RENUMBERED), (RENUMBERED, FOUR_RING), (HEXANOL, FOUR_RING_O_MOVED)]
    expected = ["identical_to_parent", None, "isomorphic_to_normal"]
    assert ours(candidates, rules) == expected
    assert peer(candidates, normals) == expected


def test_bench_on_nci1_writes_a_checked_row(mirror, tmp_path) -> None:
    graphs, _ = obtain(get_spec("NCI1"), tmp_path / "raw", FetchOptions(mirror=str(mirror), allow_download=False))
    graphs.save(tmp_path / "NCI1.npz")
    ctx = RuleContext(
        input={"graphset": str(tmp_path / "NCI1.npz")},
        output={"table": str(tmp_path / "molswap.csv")},
        params={"bench": {"family": "C", "k": 1, "seed": 0, "parents": 8, "repeats": 1}},
    )
    bench_molswap(ctx)
    table = pd.read_csv(tmp_path / "molswap.csv")
    assert table.loc[0, "benchmark"] == "molswap" and table.loc[0, "input"].startswith("NCI1 C/k1/P0 seed 0: ")
    assert table.loc[0, "ratio"] > 0

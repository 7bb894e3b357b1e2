"""MolSwap v1 and MS-v2 (spec 4.15): edit invariants on hand-made molecules, rejection of isomorphic candidates,
the independent checker and its negative controls, the selection rule, and, on the real NCI1 (data mirror),
the pool, the split and byte-identical regeneration."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
import pytest

from graphaudit.common.atomic import write_json
from graphaudit.common.seeds import rng_for
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad import molswap as ms
from graphaudit.glad import molswap_check as mc
from graphaudit.glad import molswap_designs as msd
from graphaudit.graphs.rings import sssr

C, N, OX = 3, 2, 1  # NCI1-like atom labels
SUPPORT = frozenset((label, degree) for label in (C, N, OX) for degree in range(5))


def molecule(labels: list[int], edges: list[tuple[int, int]]) -> ms.Molecule:
    return ms.Molecule.build(labels, edges)


def ring(*atoms: int) -> list[tuple[int, int]]:
    return list(zip(atoms, atoms[1:] + atoms[:1]))


# a 6-ring with an O on atom 0 and a four-carbon chain 7-8-9-10 on atom 3
HEXANE = molecule([C] * 6 + [OX] + [C] * 4, ring(0, 1, 2, 3, 4, 5) + [(0, 6), (3, 7), (7, 8), (8, 9), (9, 10)])
# a 5-ring with a pendant O on atom 0 and an N on atom 2
PENTANE = molecule([C] * 5 + [OX, N], ring(0, 1, 2, 3, 4) + [(0, 5), (2, 6)])
# naphthalene (fusion bond 0-5) with an O on atom 2
NAPHTHALENE = molecule([C] * 10 + [OX], ring(0, 1, 2, 3, 4, 5) + ring(0, 5, 6, 7, 8, 9) + [(2, 10)])

# family -> (hand molecule, ring sizes after the edit, given HEXANE's {6}, PENTANE's {5} and NAPHTHALENE's {6, 6})
EXPECTED_RINGS = {
    "A": (HEXANE, Counter({5: 1})),
    "B": (PENTANE, Counter({6: 1})),
    "C": (HEXANE, Counter({4: 1})),
    "D": (HEXANE, Counter({4: 1})),
    "E": (NAPHTHALENE, Counter({6: 1, 5: 1})),
    "F": (HEXANE, Counter({3: 1})),
    msd.CHAIN_STAR: (HEXANE, Counter({6: 1})),
}


def rules_for(*normals: ms.Molecule, support: frozenset = SUPPORT) -> ms.EditRules:
    return ms.EditRules(support=support, normal_keys=frozenset(m.key for m in normals))


def permuted(mol: ms.Molecule, seed: int) -> ms.Molecule:
    """The same labelled graph under a random renumbering of its atoms."""
    perm = np.random.default_rng(seed).permutation(mol.n)
    labels = np.empty(mol.n, dtype=np.int64)
    labels[perm] = mol.labels
    return molecule(labels.tolist(), [(perm[u], perm[v]) for u, v in mol.edges])


# ---- edits on hand-made molecules ---------------------------------------------------------------------------
@pytest.mark.parametrize("family", sorted(EXPECTED_RINGS))
def test_every_site_keeps_n_m_labels_and_support_and_makes_the_family_edit(family: str) -> None:
    parent, rings_after = EXPECTED_RINGS[family]
    sites = ms.eligible_sites(parent, family, SUPPORT, frozenset())
    assert sites
    for site in sites:
        child = parent.swapped(site.swap)
        assert (child.n, child.m, child.labels) == (parent.n, parent.m, parent.labels)
        assert child.pairs() <= SUPPORT and nx.is_connected(child.graph)
        assert ms.ring_sizes(child) == rings_after
        assert mc.check_anomaly(parent, (site.swap,), child, family, 1, SUPPORT) == []


def test_relocation_opens_the_ring_and_closes_one_on_the_acyclic_chain() -> None:
    sites = ms.eligible_sites(HEXANE, "D", SUPPORT, frozenset())
    assert len(sites) == 6 and {s.swap.added for s in sites} == {(7, 10)}  # any of the 6 ring bonds opens
    for site in sites:
        assert [set(r) for r in sssr(HEXANE.swapped(site.swap).graph)] == [{7, 8, 9, 10}]


def test_spiro_edit_leaves_two_rings_sharing_one_atom() -> None:
    for site in ms.eligible_sites(NAPHTHALENE, "E", SUPPORT, frozenset()):
        first, second = sssr(NAPHTHALENE.swapped(site.swap).graph)
        assert len(set(first) & set(second)) == 1


def test_chain_becomes_a_star() -> None:
    sites = ms.eligible_sites(HEXANE, msd.CHAIN_STAR, SUPPORT, frozenset())
    assert {s.swap for s in sites} == {ms.Swap.of((9, 10), (8, 10)), ms.Swap.of((7, 8), (7, 9))}
    star = HEXANE.swapped(ms.Swap.of((9, 10), (8, 10)))
    assert sorted(star.graph[8]) == [7, 9, 10] and star.degrees[9] == 1


def test_sites_never_leave_the_label_degree_support() -> None:
    without_four = frozenset(HEXANE.pairs()) | {(C, 1)}
    assert (C, 4) not in without_four
    for family in ("A", "C", "F"):  # the new ring bond may land on a ring atom of degree 3
        free = [HEXANE.swapped(s.swap) for s in ms.eligible_sites(HEXANE, family, SUPPORT, frozenset())]
        kept = [HEXANE.swapped(s.swap) for s in ms.eligible_sites(HEXANE, family, without_four, frozenset())]
        assert any((C, 4) in mol.pairs() for mol in free)  # the filter has something to remove
        assert kept and all(mol.pairs() <= without_four for mol in kept)


def test_multi_swap_edits_use_disjoint_sites_up_to_k() -> None:
    two_rings = molecule([C] * 13, ring(0, 1, 2, 3, 4, 5) + ring(7, 8, 9, 10, 11, 12) + [(5, 6), (6, 7)])
    rules = rules_for(two_rings)
    for k, expected in ((1, 1), (2, 2), ("all", 2)):
        swaps, child = ms.edit_parent(two_rings, "C", k, rules, np.random.default_rng(0))
        assert len(swaps) == expected and ms.ring_sizes(child) == Counter({4: expected, 6: 2 - expected})
        assert mc.check_anomaly(two_rings, swaps, child, "C", k, SUPPORT) == []


# ---- rejection ----------------------------------------------------------------------------------------------
def test_candidates_isomorphic_to_a_normal_are_rejected_by_canonical_keys() -> None:
    outcomes = [HEXANE.swapped(s.swap) for s in ms.eligible_sites(HEXANE, "C", SUPPORT, frozenset())]
    disguised = [permuted(mol, seed) for seed, mol in enumerate(outcomes)]  # other atom numbers, same molecules
    assert ms.edit_parent(HEXANE, "C", 1, rules_for(HEXANE, *disguised), np.random.default_rng(0)) == (
        "isomorphic_to_normal"
    )
    others = [mol for mol in disguised if mol.key != outcomes[0].key]
    _, child = ms.edit_parent(HEXANE, "C", 1, rules_for(HEXANE, *others), np.random.default_rng(0))
    assert child.key == outcomes[0].key  # the only outcome that is not a normal


def test_isomorphism_respects_labels() -> None:
    outcome = HEXANE.swapped(ms.eligible_sites(HEXANE, "C", SUPPORT, frozenset())[0].swap)
    relabelled = ms.Molecule(tuple(N if x == OX else x for x in outcome.labels), outcome.edges)
    assert permuted(outcome, 3).key == outcome.key and relabelled.key != outcome.key
    assert mc.isomorphic_to_normals([outcome, relabelled], [permuted(outcome, 5)]) == [0]


def test_rejection_reasons() -> None:
    assert ms.rejection(HEXANE, permuted(HEXANE, 1), rules_for()) == "identical_to_parent"
    assert ms.edit_parent(PENTANE, "C", 1, rules_for(PENTANE), np.random.default_rng(0)) == "no_site"


# ---- the checker ---------------------------------------------------------------------------------------------
def test_checker_rejects_tampered_records() -> None:
    swap = ms.eligible_sites(HEXANE, "C", SUPPORT, frozenset())[0].swap
    child = HEXANE.swapped(swap)
    assert mc.check_anomaly(HEXANE, (swap,), HEXANE, "C", 1, SUPPORT)[0].startswith("replaying")
    assert mc.check_anomaly(HEXANE, (swap, swap), child, "C", 1, SUPPORT) == ["2 swaps recorded, expected 1 to 1"]
    assert mc.check_anomaly(HEXANE, (ms.Swap.of((0, 2), (1, 3)),), child, "C", 1, SUPPORT)[0].startswith("swap 1")
    assert mc.check_anomaly(HEXANE, (swap,), child, "F", 1, SUPPORT)[0].startswith("swap 1")
    relabelled = ms.Molecule((N,) + child.labels[1:], child.edges)
    assert "the label array differs from the parent's" in mc.check_anomaly(HEXANE, (swap,), relabelled, "C", 1, SUPPORT)
    outside = "an atom's (label, degree) pair is outside the normals' support"
    assert outside in mc.check_anomaly(HEXANE, (swap,), child, "C", 1, frozenset())


def test_size_changing_check() -> None:
    anomaly = HEXANE.swapped(ms.eligible_sites(HEXANE, "C", SUPPORT, frozenset())[0].swap)
    joined = ms.join(anomaly, PENTANE, (6, 3))
    assert (joined.n, joined.m) == (anomaly.n + PENTANE.n, anomaly.m + PENTANE.m + 1)
    assert mc.check_size_changing(joined, (6, 3), anomaly, PENTANE) == []
    assert mc.check_size_changing(joined, (6, 4), anomaly, PENTANE)
    tiny = molecule([C], [])
    assert mc.check_size_changing(ms.join(anomaly, tiny, (0, 0)), (0, 0), anomaly, tiny)  # under 20% more atoms


# ---- the selection rule (Table 13) ---------------------------------------------------------------------------
def _scores(graphlet: float, yields: int = 150) -> ms.ControlScores:
    return ms.ControlScores(graphlet, 50.0, 60.0, 50.0, yields, yields)


def paper_outcome() -> dict[msd.Candidate, ms.ControlScores]:
    """Scores shaped like Table 13: C passes at every k in both pools, D from k = 2 on P0, F at k = 1 on P0."""
    scores = {c: _scores(80.0) for c in msd.CANDIDATES}
    for c in msd.CANDIDATES:
        if c.family == "C" or (c.family == "D" and c.pool == "P0" and c.k != 1) or (c.family == "F" and c.k == 1):
            scores[c] = _scores(88.0)
    scores[msd.Candidate("A", "all")] = _scores(84.8)
    return scores


def test_there_are_26_candidates_in_two_iterations() -> None:
    assert (len(msd.ITERATION_1), len(msd.ITERATION_2), len(set(msd.CANDIDATES))) == (20, 6, 26)
    assert {c.family for c in msd.ITERATION_1} == set("ABCD") and {c.family for c in msd.ITERATION_2} == set("EF")


def test_selection_rule_gives_the_final_types() -> None:
    assert ms.select_types(paper_outcome()) == msd.FINAL_TYPES


def test_selection_rule_conditions() -> None:
    scores = paper_outcome()
    scores[msd.Candidate("F", 1)] = _scores(88.0, yields=99)  # below the yield floor
    assert ms.select_types(scores) == {"MS1": msd.Candidate("C", 1), "MS2": msd.Candidate("D", 2)}
    scores = paper_outcome()
    for family in "ABD":
        scores[msd.Candidate(family, 2, "P56")] = _scores(90.0)
    chosen = [msd.Candidate("A", 2, "P56"), msd.Candidate("B", 2, "P56"), msd.Candidate("C", 1, "P56")]
    assert ms.select_types(scores) == dict(zip(("MS1", "MS2", "MS3"), chosen))  # more passing families in P56
    confounded = ms.ControlScores(90.0, 50.0, 85.0, 50.0, 150, 150)
    assert not ms.passes(confounded) and not ms.passes(ms.ControlScores(90.0, 50.0, 60.0, 61.0, 150, 150))


# ---- the real NCI1 (needs the data mirror) -------------------------------------------------------------------
@pytest.fixture(scope="module")
def data(mirror, tmp_path_factory) -> ms.MolSwapData:
    graphs, _ = obtain(
        get_spec("NCI1"), tmp_path_factory.mktemp("raw"), FetchOptions(mirror=str(mirror), allow_download=False)
    )
    return ms.molswap_data(graphs)


@pytest.fixture(scope="module")
def typed(data) -> dict[str, ms.TypedSet]:
    """Seed 0: every family with k = 1 (v1 and MS-v2 edits), and MS2."""
    sets = {family: ms.generate(data, msd.Candidate(family, 1), 0) for family in ms.SITE_FINDERS}
    sets["MS2"] = ms.generate(data, msd.FINAL_TYPES["MS2"], 0)
    return sets


def test_pool_counts(data) -> None:
    assert (len(data.pools["P0"]), len(data.excluded), len(data.pools["P56"])) == (1637, 420, 769)
    shares = ms.smallest_ring_shares(data.molecules.values())
    assert (round(shares[4], 3), round(shares[3], 3)) == (0.036, 0.062)  # E15: 3.6% and 6.2%


def test_seed_splits(data) -> None:
    for pool, sizes in (("P0", (982, 327, 328)), ("P56", (461, 154, 154))):
        split = data.split(pool, 0)
        assert (len(split.train), len(split.test), len(split.parents)) == sizes
        assert sorted(split.train + split.test + split.parents) == sorted(data.pools[pool])
    assert data.split("P0", 0) == data.split("P0", 0) and data.split("P0", 0).test != data.split("P0", 1).test


def test_anomalies_pass_the_independent_checker(data, typed) -> None:
    for name, typed_set in typed.items():
        family, k = typed_set.candidate.family, typed_set.candidate.k
        for anomaly in typed_set.anomalies:
            parent = data.molecules[anomaly.parent]
            assert mc.check_anomaly(parent, anomaly.swaps, anomaly.graph, family, k, data.rules.support) == [], name
        by_parent = {a.parent: a.graph for a in typed_set.anomalies}
        for variant in typed_set.size_changing:
            donor = data.molecules[variant.donor]
            assert mc.check_size_changing(variant.graph, variant.link, by_parent[variant.parent], donor) == []
        made = [a.graph for a in typed_set.anomalies] + [v.graph for v in typed_set.size_changing]
        assert mc.isomorphic_to_normals(made, data.molecules.values()) == []


def test_yields_and_swap_counts_on_seed_0(typed) -> None:
    for name in ("C", "MS2", "F"):  # MS1, MS2, MS3 meet the yield floor in both variants
        assert min(len(typed[name].anomalies), len(typed[name].size_changing)) >= ms.YIELD_FLOOR
        assert len(typed[name].anomalies) + sum(typed[name].rejected.values()) == 328
    assert set(typed["MS2"].swap_counts()) == {1, 2} and set(typed["C"].swap_counts()) == {1}


def test_each_checker_rejects_the_other_types(data, typed) -> None:
    for checked in typed.values():
        for typed_set in typed.values():
            if typed_set.candidate.family == checked.candidate.family:
                continue
            family, k = checked.candidate.family, checked.candidate.k
            assert not any(
                mc.check_anomaly(data.molecules[a.parent], a.swaps, a.graph, family, k, data.rules.support) == []
                for a in typed_set.anomalies
            ), (checked.candidate.name, typed_set.candidate.name)


def test_random_swaps_pass_a_checker_only_when_they_are_its_edit(data) -> None:
    swaps = mc.random_swaps(data.molecules, rng_for("glad", "NCI1", "molswap", "random-swaps"))
    assert len({g for g, _ in swaps}) == mc.RANDOM_SWAPS
    accepted = {}
    for name, candidate in msd.FINAL_TYPES.items():
        hits = [
            (g, swap)
            for g, swap in swaps
            if not mc.check_anomaly(
                data.molecules[g],
                (swap,),
                data.molecules[g].swapped(swap),
                candidate.family,
                candidate.k,
                data.rules.support,
            )
        ]
        for g, swap in hits:  # each one is a site the generator would have chosen: a genuine edit
            sites = ms.eligible_sites(data.molecules[g], candidate.family, data.rules.support, frozenset())
            assert swap in {s.swap for s in sites}
        accepted[name] = len(hits)
    assert accepted == {"MS1": 1, "MS2": 8, "MS3": 2}  # paper: 0, 1 and 0 (its own random draws)


def _write(typed_set: ms.TypedSet, folder, name: str) -> None:
    write_json(folder / f"{name}.json", ms.typed_records(typed_set))
    ms.molecules_graphset(name, [a.graph for a in typed_set.anomalies]).save(folder / f"{name}.npz")
    ms.molecules_graphset(name, [v.graph for v in typed_set.size_changing]).save(folder / f"{name}-sc.npz")


def test_two_regenerations_are_byte_identical(data, typed, tmp_path) -> None:
    earlier = {"MS1": typed["C"], "MS2": typed["MS2"], "MS3": typed["F"]}  # made by the fixture, before the others
    for name, candidate in msd.FINAL_TYPES.items():
        _write(earlier[name], tmp_path / "first", name)
        _write(ms.generate(data, candidate, 0), tmp_path / "second", name)
    files = sorted(p.name for p in (tmp_path / "first").iterdir())
    assert len(files) == 9
    for name in files:
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes(), name

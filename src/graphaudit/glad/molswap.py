"""MolSwap v1 (retired) and MS-v2: typed anomalies made by edge swaps on NCI1's connected normal molecules.

Spec ``glad.md`` 3.1 and 4.15, paper Appendix D.3-D.5, Tables 12-13.

**Pool and split.** The normals are NCI1's graphs of every class but the mapped class 0 (UB-GOLD's convention);
the 1637 connected ones form pool P0 (420 disconnected ones are excluded, so that normals and anomalies never
differ in connectedness). P56 is the 769 of them whose rings (SSSR, :mod:`graphaudit.graphs.rings`) include
both a 5- and a 6-ring. Each seed splits a pool into training normals, test normals and parents.

**Edits.** Every edit is a sequence of edge swaps (remove one edge, add one non-edge), so node count, edge
count and the label array are kept; every swap keeps each atom's (label, degree) pair inside the support
observed in P0. A family says where a swap may go (``a1..a6`` a 6-ring in cyclic order):

- A, 6-ring -> 5-ring + pendant: remove a5-a6, add a1-a5 (A with k = 1 is v1-MS1).
- B, 5-ring -> 6-ring: ring b1..b5 and a degree-1 neighbour p of b1: remove b1-b5, add b5-p.
- C, 6-ring -> 4-ring + two-atom chain: remove a4-a5, add a1-a4.
- D, ring relocation (v1-MS2): remove an edge of one ring, add an edge closing a new 4- to 6-ring on a path of
  atoms that lie on no ring.
- E, fused junction -> spiro: rings R1, R2 sharing exactly the bond x-y, b1 the neighbour of y in R2 other than
  x: remove y-b1, add x-b1 (R2 loses y and meets R1 at x alone).
- F, 6-ring -> 3-ring + chain: remove a3-a4, add a1-a3.
- S, linear chain -> star (v1-MS3): acyclic chain c1-c2-c3-c4 with c2, c3 of degree 2: remove c3-c4, add c2-c4.

A family with k = 1, 2 or ``"all"`` applies up to k swaps to a parent, each on a site that shares no atom with
an earlier one. An anomaly is rejected if it is isomorphic to its parent or to any P0 molecule (labelled
BLISS canonical keys in a hash set, :func:`graphaudit.graphs.canon.edge_list_key`; never pairwise VF2). Each
anomaly records its parent's graph id and its swaps, which :mod:`graphaudit.glad.molswap_check` replays
independently. A size-changing variant joins the anomaly and an unchanged donor molecule by one edge.

**Choices the paper leaves open, fixed here once** (named constants below):

- Split sizes: ``ceil(2N/5)`` graphs leave training and split ``ceil(half)`` parents / rest test normals,
  sklearn's ``train_test_split`` rounding applied twice: 982 / 327 / 328 for P0, 461 / 154 / 154 for P56. P56
  splits its own 769 molecules, so normals and parents come from the same pool (the null-edit control
  compares like with like). RNG: ``rng_for("glad", "NCI1", "molswap", pool, seed, "split")``, seeds 0-4.
- Support and isomorphism references: the (label, degree) pairs and canonical keys of P0 (a disconnected
  normal can never be isomorphic to a connected anomaly).
- Site rules: the swapped ring edge of A, B, C, D, F and E's removed edge lie in exactly one ring, so a swap
  never opens a fused bond; the atoms A, C and F cut out of the ring lie on no other ring (they become a
  pendant or chain, which keeps A apart from E); B's pendant atom has degree 1; D's new ring has 4-6 atoms
  (v1-MS2's range).
- Multi-swap sites: a ring family's site is the edited ring (B: plus the pendant), S's the chain, D's only
  the new ring, so a second relocation may reuse the atoms of the ring the first one opened: 606 of 754 MS2
  anomalies over seeds 0-4 then carry two relocations (paper: 599 of 752; 456 if the opened ring is claimed too).
- Per parent: up to :data:`EDIT_ATTEMPTS` first swaps in a random order, later swaps drawn at random among the
  remaining sites; the first result that is not rejected is kept. One RNG stream per (candidate, seed, parent),
  so a parent's edit does not depend on the others.
- Donors: the seed's other parents with :data:`DONOR_GROWTH` (20-100% more nodes), tried in a random order;
  the joining edge is uniform over the atom pairs whose degrees stay in the support.

The designs (families, pools, the 26 candidates, the final MS-v2 and the v1 types) are
:mod:`graphaudit.glad.molswap_designs`, which the workflow reads at parse time without this module's graph stack.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.glad.molswap_designs import CHAIN_STAR, DATASET, FAMILIES, POOLS, Candidate, K
from graphaudit.glad.protocol import mapped_labels
from graphaudit.graphs.canon import edge_list_key
from graphaudit.graphs.rings import sssr

Edge = tuple[int, int]

SEEDS = tuple(range(5))
EDIT_ATTEMPTS = 8
DONOR_GROWTH = (0.2, 1.0)
RELOCATED_RING_SIZES = (4, 5, 6)
REJECTIONS = ("no_site", "identical_to_parent", "isomorphic_to_normal")

# ---- the pre-registered selection rule (D.4) --------------------------------------------------------------
MIN_GRAPHLET_LW = 85.0
MAX_SIZE_ONLY = 60.0
MAX_EDGE_LABEL_PAIR_LW = 85.0  # strictly below
MAX_NULL_EDIT = 60.0
YIELD_FLOOR = 100  # A25 (was 150)
MAX_TYPES = 3


# ---- molecules and swaps -----------------------------------------------------------------------------------
def _edge(u: int, v: int) -> Edge:
    return (u, v) if u < v else (v, u)


@dataclass(frozen=True)
class Swap:
    """One edge swap: ``removed`` leaves, ``added`` enters (each stored as ``(u, v)`` with ``u < v``)."""

    removed: Edge
    added: Edge

    @classmethod
    def of(cls, removed: Iterable[int], added: Iterable[int]) -> Swap:
        return cls(_edge(*removed), _edge(*added))


@dataclass(frozen=True)
class Molecule:
    """A labelled simple graph on nodes ``0..n-1``; ``edges`` sorted, each ``(u, v)`` with ``u < v``."""

    labels: tuple[int, ...]
    edges: tuple[Edge, ...]

    @classmethod
    def build(cls, labels: Iterable[int], edges: Iterable[Iterable[int]]) -> Molecule:
        return cls(tuple(int(x) for x in labels), tuple(sorted({_edge(int(u), int(v)) for u, v in edges})))

    @classmethod
    def from_graphset(cls, graphs: GraphSet, g: int) -> Molecule:
        return cls.build(graphs.node_slice("node_labels", g), graphs.graph_edges(g).tolist())

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def m(self) -> int:
        return len(self.edges)

    @functools.cached_property
    def graph(self) -> nx.Graph:
        """The networkx view (do not modify it: it is cached)."""
        graph = nx.Graph()
        graph.add_nodes_from(range(self.n))
        graph.add_edges_from(self.edges)
        return graph

    @functools.cached_property
    def degrees(self) -> tuple[int, ...]:
        counts = np.bincount(np.asarray(self.edges, dtype=np.int64).ravel(), minlength=self.n)
        return tuple(counts.tolist())

    @functools.cached_property
    def key(self) -> str:
        """Labelled canonical key (BLISS): equal exactly for label-preserving isomorphic molecules."""
        return edge_list_key(self.n, self.edges, self.labels)

    def pairs(self) -> set[tuple[int, int]]:
        """The (label, degree) pair of every atom."""
        return set(zip(self.labels, self.degrees))

    def swapped(self, swap: Swap) -> Molecule:
        edges = set(self.edges)
        if swap.removed not in edges or swap.added in edges or swap.added[0] == swap.added[1]:
            raise ValueError(f"swap {swap} does not apply: remove an edge and add a new non-loop edge")
        return Molecule(self.labels, tuple(sorted(edges - {swap.removed} | {swap.added})))


def join(first: Molecule, second: Molecule, link: Edge) -> Molecule:
    """``first`` and ``second`` (its nodes shifted by ``first.n``) joined by ``link`` = (atom of first, atom of
    second in its own numbering)."""
    shift = first.n
    edges = first.edges + tuple((u + shift, v + shift) for u, v in second.edges) + ((link[0], link[1] + shift),)
    return Molecule(first.labels + second.labels, tuple(sorted(edges)))


# ---- pools and splits --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NormalPool:
    """Graph ids of NCI1's normal class: the connected ones kept (P0), the disconnected ones excluded."""

    kept: tuple[int, ...]
    excluded: tuple[int, ...]


def normal_pool(graphs: GraphSet) -> NormalPool:
    """The connected-normal pool: every graph whose mapped label is not 0, split by connectedness."""
    normal = np.flatnonzero(mapped_labels(graphs.get("graph_labels")) != 0)
    connected = [g for g in normal.tolist() if graphs.graph_size(g) > 0 and graphs.to_igraph(g).is_connected()]
    excluded = sorted(set(normal.tolist()) - set(connected))
    return NormalPool(kept=tuple(connected), excluded=tuple(excluded))


def ring_sizes(molecule: Molecule) -> Counter[int]:
    return Counter(len(ring) for ring in sssr(molecule.graph))


def p56_members(molecules: Mapping[int, Molecule]) -> tuple[int, ...]:
    """Ids of the molecules whose rings include both a 5- and a 6-ring."""
    return tuple(g for g, mol in molecules.items() if {5, 6} <= set(ring_sizes(mol)))


@dataclass(frozen=True)
class SeedSplit:
    """One seed's graph ids of a pool: training normals, test normals and parents."""

    pool: str
    seed: int
    train: tuple[int, ...]
    test: tuple[int, ...]
    parents: tuple[int, ...]


def split_sizes(total: int) -> tuple[int, int, int]:
    """(train, test, parents): ``ceil(2N/5)`` leave training, of which ``ceil(half)`` become parents."""
    rest = -(-2 * total // 5)
    parents = -(-rest // 2)
    return total - rest, rest - parents, parents


def seed_split(ids: Sequence[int], pool: str, seed: int) -> SeedSplit:
    """A seeded permutation of the pool cut into training normals, test normals and parents (each sorted)."""
    ids = np.sort(np.asarray(ids, dtype=np.int64))
    n_train, n_test, _ = split_sizes(len(ids))
    order = ids[rng_for("glad", DATASET, "molswap", pool, seed, "split").permutation(len(ids))]
    parts = np.split(order, [n_train, n_train + n_test])
    train, test, parents = (tuple(np.sort(p).tolist()) for p in parts)
    return SeedSplit(pool, seed, train, test, parents)


@dataclass(frozen=True)
class EditRules:
    """What every anomaly must respect: the (label, degree) support and the canonical keys of the normals."""

    support: frozenset[tuple[int, int]]
    normal_keys: frozenset[str]

    @classmethod
    def of_normals(cls, normals: Iterable[Molecule]) -> EditRules:
        normals = list(normals)
        support = frozenset(pair for mol in normals for pair in mol.pairs())
        return cls(support=support, normal_keys=frozenset(mol.key for mol in normals))


@dataclass(frozen=True)
class MolSwapData:
    """The P0 molecules by graph id, the two pools and the edit rules derived from P0."""

    molecules: Mapping[int, Molecule]
    pools: Mapping[str, tuple[int, ...]]
    rules: EditRules
    excluded: tuple[int, ...] = ()

    def split(self, pool: str, seed: int) -> SeedSplit:
        return seed_split(self.pools[pool], pool, seed)


def molswap_data(graphs: GraphSet) -> MolSwapData:
    """Everything MolSwap needs from the NCI1 GraphSet."""
    pool = normal_pool(graphs)
    molecules = {g: Molecule.from_graphset(graphs, g) for g in pool.kept}
    pools = {"P0": pool.kept, "P56": p56_members(molecules)}
    return MolSwapData(molecules, pools, EditRules.of_normals(molecules.values()), pool.excluded)


# ---- sites -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Site:
    """An eligible swap and the atoms of the structure it edits (later swaps of the same edit avoid them)."""

    swap: Swap
    atoms: frozenset[int]


@dataclass(frozen=True)
class RingView:
    """The rings of a molecule, how many rings hold each edge and each atom, and the atoms on no ring."""

    rings: tuple[tuple[int, ...], ...]
    edge_rings: Mapping[Edge, int]
    atom_rings: Mapping[int, int]
    acyclic: frozenset[int]

    @classmethod
    def of(cls, molecule: Molecule) -> RingView:
        rings = tuple(sssr(molecule.graph))
        edge_rings: Counter[Edge] = Counter(_edge(a, b) for ring in rings for a, b in zip(ring, ring[1:] + ring[:1]))
        atom_rings: Counter[int] = Counter(atom for ring in rings for atom in ring)
        return cls(rings, edge_rings, atom_rings, frozenset(range(molecule.n)) - set(atom_rings))

    def sized(self, size: int) -> list[tuple[int, ...]]:
        return [ring for ring in self.rings if len(ring) == size]

    def single(self, u: int, v: int) -> bool:
        """Whether edge u-v lies in exactly one ring."""
        return self.edge_rings.get(_edge(u, v), 0) == 1


def _ring_sites(view: RingView, size: int, offsets: tuple[int, int, int]) -> list[Site]:
    """Sites on every ring of ``size``: for offsets ``(a, b, c)`` along the ring from each start atom in each
    direction (``at[0..size-1]``), add at[a]-at[b] and remove at[b]-at[c]; the atoms ``at[c:]`` leave the ring
    as a chain, so they must lie on no other ring (else the edit would be E's, on a fused ring)."""
    a, b, c = offsets
    sites = []
    for ring in view.sized(size):
        for start in range(size):
            for step in (1, -1):
                at = [ring[(start + step * o) % size] for o in range(size)]
                if view.single(at[b], at[c]) and all(view.atom_rings[x] == 1 for x in at[c:]):
                    sites.append(Site(Swap.of((at[b], at[c]), (at[a], at[b])), frozenset(ring)))
    return sites


def sites_a(mol: Molecule, view: RingView) -> list[Site]:
    """6-ring a1..a6 -> 5-ring + pendant: remove a5-a6, add a1-a5 (offsets a1 = 0, a5 = 4, a6 = 5)."""
    return _ring_sites(view, 6, (0, 4, 5))


def sites_c(mol: Molecule, view: RingView) -> list[Site]:
    """6-ring -> 4-ring + two-atom chain: remove a4-a5, add a1-a4."""
    return _ring_sites(view, 6, (0, 3, 4))


def sites_f(mol: Molecule, view: RingView) -> list[Site]:
    """6-ring -> 3-ring + chain: remove a3-a4, add a1-a3."""
    return _ring_sites(view, 6, (0, 2, 3))


def sites_b(mol: Molecule, view: RingView) -> list[Site]:
    """5-ring b1..b5 + degree-1 neighbour p of b1 -> 6-ring: remove b1-b5, add b5-p."""
    sites = []
    for ring in view.sized(5):
        for i, b1 in enumerate(ring):
            pendants = [p for p in mol.graph[b1] if mol.degrees[p] == 1]
            for b5 in (ring[i - 1], ring[(i + 1) % 5]):
                if view.single(b1, b5):
                    sites += [Site(Swap.of((b1, b5), (b5, p)), frozenset(ring) | {p}) for p in pendants]
    return sites


def _acyclic_paths(mol: Molecule, view: RingView) -> list[tuple[int, ...]]:
    """Paths of acyclic atoms whose closing edge makes a ring of :data:`RELOCATED_RING_SIZES` (each once)."""
    forest = mol.graph.subgraph(view.acyclic)
    longest = max(RELOCATED_RING_SIZES) - 1
    paths = []
    for source in sorted(view.acyclic):
        for target, path in nx.single_source_shortest_path(forest, source, cutoff=longest).items():
            if source < target and len(path) in RELOCATED_RING_SIZES:
                paths.append(tuple(path))
    return paths


def sites_d(mol: Molecule, view: RingView) -> list[Site]:
    """Ring relocation: remove an edge of one ring (lying in no other), close a 4-6 ring on an acyclic path.

    The site's atoms are the new ring's alone: a later relocation may build on the opened ring's atoms (acyclic
    by then) but not on an earlier new ring (see the module docstring)."""
    openable = sorted({_edge(a, b) for ring in view.rings for a, b in zip(ring, ring[1:] + ring[:1])})
    paths = _acyclic_paths(mol, view)
    return [
        Site(Swap.of(edge, (path[0], path[-1])), frozenset(path))
        for edge in openable
        if view.single(*edge)
        for path in paths
    ]


def sites_e(mol: Molecule, view: RingView) -> list[Site]:
    """Fused junction -> spiro: R1, R2 share exactly bond x-y; remove y-b1 (b1: y's other R2 neighbour), add x-b1."""
    sites = []
    for i, first in enumerate(view.rings):
        for second in view.rings[i + 1 :]:
            shared = set(first) & set(second)
            if len(shared) != 2 or view.edge_rings.get(_edge(*sorted(shared)), 0) != 2:
                continue
            low, high = sorted(shared)
            for ring in (first, second):
                for x, y in ((low, high), (high, low)):
                    j = ring.index(y)
                    b1 = next(b for b in (ring[j - 1], ring[(j + 1) % len(ring)]) if b != x)
                    if view.single(y, b1) and not mol.graph.has_edge(x, b1):
                        sites.append(Site(Swap.of((y, b1), (x, b1)), frozenset(first) | frozenset(second)))
    return sites


def sites_s(mol: Molecule, view: RingView) -> list[Site]:
    """Linear acyclic chain c1-c2-c3-c4 (c2, c3 of degree 2) -> star on c2: remove c3-c4, add c2-c4."""
    sites = []
    for c2 in sorted(view.acyclic):
        if mol.degrees[c2] != 2:
            continue
        for c3 in mol.graph[c2]:
            if c3 not in view.acyclic or mol.degrees[c3] != 2:
                continue
            (c1,) = set(mol.graph[c2]) - {c3}
            (c4,) = set(mol.graph[c3]) - {c2}
            if {c1, c4} <= view.acyclic:
                sites.append(Site(Swap.of((c3, c4), (c2, c4)), frozenset((c1, c2, c3, c4))))
    return sites


SITE_FINDERS = {
    "A": sites_a,
    "B": sites_b,
    "C": sites_c,
    "D": sites_d,
    "E": sites_e,
    "F": sites_f,
    CHAIN_STAR: sites_s,
}


def keeps_support(mol: Molecule, swap: Swap, support: frozenset[tuple[int, int]]) -> bool:
    """Whether every atom whose degree the swap changes keeps its (label, degree) pair in the support."""
    change: Counter[int] = Counter()
    for atom in swap.removed:
        change[atom] -= 1
    for atom in swap.added:
        change[atom] += 1
    return all((mol.labels[a], mol.degrees[a] + d) in support for a, d in change.items() if d)


def eligible_sites(
    mol: Molecule, family: str, support: frozenset[tuple[int, int]], avoid: frozenset[int]
) -> list[Site]:
    """The family's sites on ``mol`` that touch no atom of ``avoid`` and keep the support."""
    sites = SITE_FINDERS[family](mol, RingView.of(mol))
    return [s for s in sites if not s.atoms & avoid and keeps_support(mol, s.swap, support)]


# ---- editing one parent ------------------------------------------------------------------------------------
def swap_limit(k: K, mol: Molecule) -> int:
    """At most k swaps; ``"all"``: as many as there are eligible sites (never more than m)."""
    if k == "all":
        return mol.m
    if isinstance(k, int) and k >= 1:
        return k
    raise ValueError(f"k must be a positive integer or 'all', got {k!r}")


def extend_edit(
    parent: Molecule, first: Site, family: str, k: K, support: frozenset[tuple[int, int]], rng: np.random.Generator
) -> tuple[tuple[Swap, ...], Molecule]:
    """Apply ``first``, then random eligible sites disjoint from the earlier ones, up to k swaps in all."""
    swaps, mol, avoid = [first.swap], parent.swapped(first.swap), first.atoms
    while len(swaps) < swap_limit(k, parent):
        sites = eligible_sites(mol, family, support, avoid)
        if not sites:
            break
        site = sites[int(rng.integers(len(sites)))]
        swaps.append(site.swap)
        mol, avoid = mol.swapped(site.swap), avoid | site.atoms
    return tuple(swaps), mol


def rejection(parent: Molecule, anomaly: Molecule, rules: EditRules) -> str | None:
    """Why an edited molecule is not an anomaly (None: it is one)."""
    if anomaly.key == parent.key:
        return "identical_to_parent"
    if anomaly.key in rules.normal_keys:
        return "isomorphic_to_normal"
    return None


def edit_parent(
    parent: Molecule, family: str, k: K, rules: EditRules, rng: np.random.Generator
) -> tuple[tuple[Swap, ...], Molecule] | str:
    """The swaps and the anomaly of one parent, or the reason of its last rejection (:data:`REJECTIONS`)."""
    sites = eligible_sites(parent, family, rules.support, frozenset())
    if not sites:
        return "no_site"
    reason = "no_site"
    for index in rng.permutation(len(sites))[:EDIT_ATTEMPTS].tolist():
        swaps, anomaly = extend_edit(parent, sites[index], family, k, rules.support, rng)
        reason = rejection(parent, anomaly, rules)
        if reason is None:
            return swaps, anomaly
    return reason


# ---- anomalies and typed sets ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Anomaly:
    """A size-preserving anomaly: its parent's graph id, the swaps in order, and the edited molecule."""

    parent: int
    swaps: tuple[Swap, ...]
    graph: Molecule


@dataclass(frozen=True)
class SizeChanging:
    """A size-changing anomaly: the size-preserving one joined to an unchanged donor by ``link``
    (atom of the anomaly, atom of the donor in the donor's own numbering)."""

    parent: int
    donor: int
    link: Edge
    graph: Molecule


@dataclass
class TypedSet:
    """One candidate's anomalies on one seed, and why the other parents yielded none."""

    candidate: Candidate
    seed: int
    anomalies: list[Anomaly] = field(default_factory=list)
    size_changing: list[SizeChanging] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)

    def swap_counts(self) -> Counter[int]:
        """How many anomalies carry 1, 2, ... swaps."""
        return Counter(len(a.swaps) for a in self.anomalies)


def _stream(candidate: Candidate, seed: int, parent: int, stage: str) -> np.random.Generator:
    return rng_for("glad", DATASET, "molswap", candidate.family, candidate.k, candidate.pool, seed, parent, stage)


def donor_link(
    anomaly: Molecule, donor: Molecule, rules: EditRules, rng: np.random.Generator
) -> tuple[Edge, Molecule] | None:
    """A uniform joining edge whose two atoms stay in the support, and the joined molecule (None: no such
    edge, or the result is isomorphic to a normal)."""
    ends = [
        [a for a in range(mol.n) if (mol.labels[a], mol.degrees[a] + 1) in rules.support] for mol in (anomaly, donor)
    ]
    if not ends[0] or not ends[1]:
        return None
    link = (ends[0][int(rng.integers(len(ends[0])))], ends[1][int(rng.integers(len(ends[1])))])
    joined = join(anomaly, donor, link)
    return None if joined.key in rules.normal_keys else (link, joined)


def size_changing(
    anomaly: Anomaly, donors: Sequence[int], data: MolSwapData, rng: np.random.Generator
) -> SizeChanging | None:
    """The anomaly joined to the first donor (random order) of :data:`DONOR_GROWTH` relative size that links."""
    low, high = DONOR_GROWTH
    n = anomaly.graph.n
    fitting = [d for d in donors if d != anomaly.parent and low * n <= data.molecules[d].n <= high * n]
    for index in rng.permutation(len(fitting)).tolist():
        found = donor_link(anomaly.graph, data.molecules[fitting[index]], data.rules, rng)
        if found is not None:
            return SizeChanging(anomaly.parent, fitting[index], found[0], found[1])
    return None


def generate(data: MolSwapData, candidate: Candidate, seed: int) -> TypedSet:
    """The candidate's anomalies (both variants) on the parents of ``candidate.pool``'s split for ``seed``."""
    parents = data.split(candidate.pool, seed).parents
    typed = TypedSet(candidate, seed)
    for parent in parents:
        edited = edit_parent(
            data.molecules[parent], candidate.family, candidate.k, data.rules, _stream(candidate, seed, parent, "edit")
        )
        if isinstance(edited, str):
            typed.rejected[edited] += 1
            continue
        anomaly = Anomaly(parent, *edited)
        typed.anomalies.append(anomaly)
        variant = size_changing(anomaly, parents, data, _stream(candidate, seed, parent, "donor"))
        if variant is not None:
            typed.size_changing.append(variant)
    return typed


# ---- output ------------------------------------------------------------------------------------------------
def molecules_graphset(name: str, molecules: Sequence[Molecule]) -> GraphSet:
    """The molecules as one GraphSet (node labels; no graph labels)."""
    sizes = np.array([mol.n for mol in molecules], dtype=np.int64)
    node_ptr = np.concatenate([[0], np.cumsum(sizes)])
    edge_ptr = np.concatenate([[0], np.cumsum([mol.m for mol in molecules])]).astype(np.int64)
    edges = [np.asarray(mol.edges, dtype=np.int64).reshape(-1, 2) + off for mol, off in zip(molecules, node_ptr)]
    labels = np.array([x for mol in molecules for x in mol.labels], dtype=np.int64)
    return GraphSet(
        name=name,
        node_ptr=node_ptr,
        edge_ptr=edge_ptr,
        edges=np.concatenate(edges) if edges else np.zeros((0, 2), dtype=np.int64),
        arrays={"node_labels": labels},
    )


def typed_records(typed: TypedSet) -> dict:
    """A JSON-ready record of the typed set: every anomaly's parent and swaps, every variant's donor and link,
    and the rejection counts (row i of the records is graph i of the matching GraphSet)."""
    return {
        "candidate": {"family": typed.candidate.family, "k": typed.candidate.k, "pool": typed.candidate.pool},
        "seed": typed.seed,
        "anomalies": [
            {"parent": a.parent, "swaps": [{"removed": list(s.removed), "added": list(s.added)} for s in a.swaps]}
            for a in typed.anomalies
        ],
        "size_changing": [{"parent": v.parent, "donor": v.donor, "link": list(v.link)} for v in typed.size_changing],
        "rejected": {reason: typed.rejected.get(reason, 0) for reason in REJECTIONS},
    }


# ---- selection rule over the candidates (Table 13) ---------------------------------------------------------
@dataclass(frozen=True)
class ControlScores:
    """A candidate's five-seed control means (AUROC points) and its smallest per-seed yields."""

    graphlet_lw: float
    size_only: float
    edge_label_pair_lw: float
    null_edit: float
    min_yield: int
    min_yield_size_changing: int


def passes(scores: ControlScores) -> bool:
    """D.4's conditions on the size-preserving variant, the null edit and both yields."""
    return (
        scores.graphlet_lw >= MIN_GRAPHLET_LW
        and scores.size_only <= MAX_SIZE_ONLY
        and scores.edge_label_pair_lw < MAX_EDGE_LABEL_PAIR_LW
        and scores.null_edit <= MAX_NULL_EDIT
        and min(scores.min_yield, scores.min_yield_size_changing) >= YIELD_FLOOR
    )


def select_types(scores: Mapping[Candidate, ControlScores]) -> dict[str, Candidate]:
    """The pre-written rule: passing candidates, the smallest k per family, the pool with more passing
    families (tie: the earlier of :data:`POOLS`), at most three families in :data:`FAMILIES` order."""
    best: dict[str, dict[str, Candidate]] = {pool: {} for pool in POOLS}
    for candidate, score in scores.items():
        if candidate.family in FAMILIES and passes(score):
            kept = best[candidate.pool].get(candidate.family)
            if kept is None or candidate.k_rank < kept.k_rank:
                best[candidate.pool][candidate.family] = candidate
    pool = max(POOLS, key=lambda p: (len(best[p]), -POOLS.index(p)))
    chosen = [best[pool][f] for f in FAMILIES if f in best[pool]][:MAX_TYPES]
    return {f"MS{i + 1}": candidate for i, candidate in enumerate(chosen)}


def smallest_ring_shares(molecules: Iterable[Molecule], sizes: Iterable[int] = (3, 4)) -> dict[int, float]:
    """Share of molecules with a ring of each size (E15: 3-ring 6.2%, 4-ring 3.6% of NCI1 normals)."""
    found = [set(ring_sizes(mol)) for mol in molecules]
    return {size: sum(size in s for s in found) / max(len(found), 1) for size in sizes}

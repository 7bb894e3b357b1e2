"""Benchmark: MS-v2's candidate generation and isomorphism rejection (spec 4.15: "canonical forms, not pairwise VF2")
against a networkx VF2 pairwise check on the same candidates.

The candidates are one final type's edits (an MS-v2 family and k, pool P0) of one seed's parents: per parent the
generator's attempts, up to 8 eligible sites each extended to k swaps (:func:`graphaudit.glad.molswap.extend_edit`,
seeded per parent), and two controls both checks must reject (the parent and a training normal, renumbered). They
are made once and timed apart (the input column gives that time: the site search dominates generation and is the
same code whichever rejection follows). *Ours* decides each candidate as the generator does
(:func:`graphaudit.glad.molswap.rejection`: the candidate's labelled canonical key, BLISS through igraph, against
its parent's key and the set of the normals' keys). The *peer* decides the same candidates with
``networkx.is_isomorphic`` and an atom-label ``node_match`` against the parent and, pairwise, every normal molecule
of the same node and edge counts (the prefilter anyone would write; networkx itself compares degree sequences
before VF2). Both decisions must be identical, candidate by candidate, or the benchmark stops. The normals' keys are
computed once before timing (the generator keeps them for every candidate), so ours times the candidates' keys
(on fresh copies, as a molecule caches its key) and set look-ups; the input column gives both rejection rates in
anomalies (accepted candidates) per second.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

import networkx as nx
import numpy as np

from graphaudit.bench.settings import MolSwapBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.glad import molswap as ms
from graphaudit.glad.molswap_designs import K

log = logging.getLogger(__name__)

Candidate = tuple[ms.Molecule, ms.Molecule]  # (parent, edited molecule)


def renumbered(molecule: ms.Molecule, rng: np.random.Generator) -> ms.Molecule:
    """The same labelled molecule under a random numbering of its atoms."""
    order = rng.permutation(molecule.n)
    labels = [0] * molecule.n
    for atom, new in enumerate(order.tolist()):
        labels[new] = molecule.labels[atom]
    return ms.Molecule.build(labels, [(int(order[u]), int(order[v])) for u, v in molecule.edges])


def candidates(data: ms.MolSwapData, family: str, k: K, seed: int, parents: int) -> list[Candidate]:
    """The generator's attempts on the seed's P0 parents (the first ``parents``): per parent, up to
    :data:`~graphaudit.glad.molswap.EDIT_ATTEMPTS` eligible sites in a seeded random order, each extended to ``k``
    swaps (all of them, not only up to the first accepted one); then two controls that must be rejected, the parent
    renumbered (identical to the parent) and a training normal renumbered (isomorphic to a normal)."""
    out = []
    split = data.split("P0", seed)
    for position, parent_id in enumerate(split.parents[:parents]):
        parent = data.molecules[parent_id]
        sites = ms.eligible_sites(parent, family, data.rules.support, frozenset())
        rng = rng_for("bench", "molswap", family, k, seed, parent_id)
        for index in rng.permutation(len(sites))[: ms.EDIT_ATTEMPTS].tolist():
            out.append((parent, ms.extend_edit(parent, sites[index], family, k, data.rules.support, rng)[1]))
        normal = data.molecules[split.train[position % len(split.train)]]
        out += [(parent, renumbered(parent, rng)), (parent, renumbered(normal, rng))]
    return out


def fresh(molecules: Sequence[Candidate]) -> list[Candidate]:
    """Copies of the edited molecules whose canonical keys are not computed yet (parents kept: their keys are the
    normals' precomputed ones)."""
    return [(parent, ms.Molecule(edited.labels, edited.edges)) for parent, edited in molecules]


def ours(molecules: Sequence[Candidate], rules: ms.EditRules) -> list[str | None]:
    """The generator's decisions: canonical keys against the parent's and the normals' (None: an anomaly)."""
    return [ms.rejection(parent, edited, rules) for parent, edited in molecules]


def _labelled(molecule: ms.Molecule) -> nx.Graph:
    graph = molecule.graph.copy()
    nx.set_node_attributes(graph, dict(enumerate(molecule.labels)), "label")
    return graph


def _same(first: nx.Graph, second: nx.Graph) -> bool:
    return nx.is_isomorphic(first, second, node_match=lambda a, b: a["label"] == b["label"])


def peer(molecules: Sequence[Candidate], normals: Sequence[ms.Molecule]) -> list[str | None]:
    """networkx VF2, pairwise: the parent, then every normal of the same (n, m), label-preserving."""
    by_size: dict[tuple[int, int], list[nx.Graph]] = defaultdict(list)
    for normal in normals:
        by_size[(normal.n, normal.m)].append(_labelled(normal))
    decisions = []
    for parent, edited in molecules:
        graph = _labelled(edited)
        if _same(graph, _labelled(parent)):
            decisions.append("identical_to_parent")
        elif any(_same(graph, normal) for normal in by_size[(edited.n, edited.m)]):
            decisions.append("isomorphic_to_normal")
        else:
            decisions.append(None)
    return decisions


def bench_molswap(ctx: RuleContext) -> None:
    """Rule entry: time both decisions on the same candidates of one MS-v2 type (input ``graphset``: NCI1; params
    ``bench``), check they agree, write ``results/bench/molswap.csv``."""
    settings = ctx.settings("bench", MolSwapBench)
    data = ms.molswap_data(GraphSet.load(ctx.input["graphset"]))
    k = settings.k
    normals = list(data.molecules.values())
    made: list[Candidate] = []
    generation_s = best_time(
        lambda: made.extend(candidates(data, settings.family, k, settings.seed, settings.parents)), 1
    )
    count = len(made)
    decided: dict[str, list[str | None]] = {}
    copies: list[list[Candidate]] = []
    ours_s = best_time(
        lambda: decided.update(ours=ours(copies[-1], data.rules)),
        settings.repeats,
        setup=lambda: copies.append(fresh(made)),
    )
    peer_s = best_time(lambda: decided.update(peer=peer(made, normals)), settings.repeats)
    differ = [i for i, (a, b) in enumerate(zip(decided["ours"], decided["peer"], strict=True)) if a != b]
    if differ:
        raise RuntimeError(f"canonical keys and VF2 decide candidates {differ[:10]} differently")
    accepted = sum(d is None for d in decided["ours"])
    reasons = {r: sum(d == r for d in decided["ours"]) for r in ("identical_to_parent", "isomorphic_to_normal")}
    log.info(
        "%d candidates (%d accepted, %s); ours %.4fs (%.0f anomalies/s), VF2 %.2fs (%.1f anomalies/s), ratio %.0f",
        count,
        accepted,
        reasons,
        ours_s,
        accepted / ours_s,
        peer_s,
        accepted / peer_s,
        peer_s / ours_s,
    )
    name = f"{settings.family}/k{settings.k}/P0"
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "molswap",
                "input": (
                    f"NCI1 {name} seed {settings.seed}: {count} candidates (made in {generation_s:.2f} s), "
                    f"{accepted} accepted, {len(normals)} normals; rejection {accepted / ours_s:.0f} vs "
                    f"{accepted / peer_s:.1f} anomalies/s"
                ),
                "ours_s": ours_s,
                "peer": "networkx VF2 pairwise (same n and m), atom labels matched",
                "peer_s": peer_s,
            }
        ],
    )

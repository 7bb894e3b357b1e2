"""Benchmark: MS-v2's candidate generation and isomorphism rejection (spec 4.15: "canonical forms, not pairwise VF2")
against a networkx VF2 pairwise check on the same candidates.

The candidates are one final type's edits (an MS-v2 family and k, pool P0) of one seed's parents: per parent its
first eligible site extended to k swaps (:func:`graphaudit.glad.molswap.extend_edit`, seeded per parent, so both
sides make the same candidates; making them is timed on both sides). *Ours* decides each candidate as the generator
does (:func:`graphaudit.glad.molswap.rejection`: the candidate's labelled canonical key, BLISS through igraph,
against its parent's key and the set of the normals' keys). The *peer* decides the same candidates with
``networkx.is_isomorphic`` and an atom-label ``node_match`` against the parent and, pairwise, every normal molecule
of the same node and edge counts (the prefilter anyone would write; networkx itself compares degree sequences
before VF2). Both decisions must be identical, candidate by candidate, or the benchmark stops. The normals' keys are
computed once before timing (the generator keeps them for every candidate), so ours times the edits, the
candidates' keys and set look-ups; the input column gives both rates in anomalies (accepted candidates) per second.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

import networkx as nx

from graphaudit.bench.settings import MolSwapBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.glad import molswap as ms

log = logging.getLogger(__name__)

Candidate = tuple[ms.Molecule, ms.Molecule]  # (parent, edited molecule)


def candidates(data: ms.MolSwapData, family: str, k: ms.K, seed: int, parents: int) -> list[Candidate]:
    """Per parent of the seed's P0 split (the first ``parents``) with an eligible site: that site extended to
    ``k`` swaps, with a Generator seeded by the parent."""
    out = []
    for parent_id in data.split("P0", seed).parents[:parents]:
        parent = data.molecules[parent_id]
        sites = ms.eligible_sites(parent, family, data.rules.support, frozenset())
        if sites:
            rng = rng_for("bench", "molswap", family, k, seed, parent_id)
            out.append((parent, ms.extend_edit(parent, sites[0], family, k, data.rules.support, rng)[1]))
    return out


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

    def made() -> list[Candidate]:
        return candidates(data, settings.family, k, settings.seed, settings.parents)

    count = len(made())
    decided: dict[str, list[str | None]] = {}
    ours_s = best_time(lambda: decided.update(ours=ours(made(), data.rules)), settings.repeats)
    peer_s = best_time(lambda: decided.update(peer=peer(made(), normals)), settings.repeats)
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
                    f"NCI1 {name} seed {settings.seed}: {count} candidates, {accepted} accepted, "
                    f"{len(normals)} normals; {accepted / ours_s:.0f} vs {accepted / peer_s:.1f} anomalies/s"
                ),
                "ours_s": ours_s,
                "peer": "networkx VF2 pairwise (same n and m), atom labels matched",
                "peer_s": peer_s,
            }
        ],
    )

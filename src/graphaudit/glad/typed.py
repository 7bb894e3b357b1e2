"""Typed anomalies, part 4 of the glad study: the controls that decide which types are valid tests (spec 4.14,
paper D.1, D.4, D.5; Tables 12-14), the records the workflow saves beside the generated sets, and the
validation replayed on the saved MolSwap files (spec 4.15, "validation script checks").

**Controls.** Each is a Ledoit-Wolf Mahalanobis distance fitted on a seed's training normals (all of them: the
spec's "normal training graphs of each seed", the GX hold-out included, no tuning) and scored on the test
normals against one set of graphs (:mod:`graphaudit.glad.references` builds the features):

- size only: (log n, log(m+1), density);
- graphlet count + LW: log(1+n), log(1+m) and log(1+count) of the connected 3-5-node graphlets;
- edge-label pair + LW: log(1+count) of each unordered pair of node labels joined by an edge (the pair columns are
  those seen anywhere in the seed's graphs, so a pair only anomalies have counts in its own column).

The scored sets (``variant``) are a type's size-preserving anomalies, its size-changing variants (MolSwap) and,
for the null edit, the unedited parents of the size-preserving anomalies scored with the same controls (Table
13's "null edit" is their graphlet count + LW AUROC).

**Validity** (D.1, the pre-registered thresholds of :mod:`graphaudit.glad.molswap`): a type is *valid* when the
five-seed mean of graphlet count + LW is at least 85 and size only at most 60, *confounded* (left out of the
decision whatever its validity) when edge-label pair + LW reaches 85; a design candidate passes (D.4) when it is
valid, not confounded, its null edit is at most 60 and every seed yields at least 100 anomalies in both variants.
The verdicts are computed here from the control AUROCs, never written by hand.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.data.graphset import GraphSet, concat_graphsets
from graphaudit.glad import gx, references
from graphaudit.glad import molswap as ms
from graphaudit.glad import molswap_check as mc
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad.datasets import node_colours
from graphaudit.graphs.graphlets import graphlet_counts
from graphaudit.stats.metrics import auroc

SIZE_ONLY, GRAPHLET_LW, EDGE_LABEL_PAIR_LW = "Size only", "Graphlet count + LW", "Edge-label pair + LW"
CONTROLS = (SIZE_ONLY, GRAPHLET_LW, EDGE_LABEL_PAIR_LW)
SIZE_PRESERVING, SIZE_CHANGING, PARENTS = "size_preserving", "size_changing", "parents"
VARIANTS = (SIZE_PRESERVING, SIZE_CHANGING, PARENTS)
GX, MOLSWAP = "GX", "MolSwap"
CONTROL_COLUMNS = ["generator", "set", "seed", "variant", "control", "auroc", "n_normals", "n_scored", "swaps"]
FAMILY_EDITS = {
    "A": "6-ring -> 5-ring + pendant",
    "B": "5-ring -> 6-ring",
    "C": "6-ring -> 4-ring + two-atom chain",
    "D": "ring relocation into an acyclic part",
    "E": "fused junction -> spiro",
    "F": "6-ring -> 3-ring + chain",
    msd.CHAIN_STAR: "linear 4-atom chain -> star",
}
VERDICTS = ("valid", "not valid", "confounded", "no anomalies")


# ---- controls ----------------------------------------------------------------------------------------------
def control_features(graphs: GraphSet, max_k: int) -> dict[str, np.ndarray]:
    """Each control's feature rows for every graph of ``graphs`` (node labels as the edge-label pairs' colours)."""
    counts = graphlet_counts(graphs, max_k)
    return {
        SIZE_ONLY: references.size_features(graphs),
        GRAPHLET_LW: references.graphlet_features(graphs, counts),
        EDGE_LABEL_PAIR_LW: references.edge_label_pair_features(graphs, node_colours(graphs, constant=False)),
    }


def control_scores(features: Mapping[str, np.ndarray], fit: Sequence[int]) -> dict[str, np.ndarray]:
    """Every graph's score under each control: the squared LW Mahalanobis distance fitted on the rows ``fit``."""
    fit = np.asarray(fit, dtype=np.int64)
    return {name: references.lw_scores(x[fit], x) for name, x in features.items()}


def control_rows(
    scores: Mapping[str, np.ndarray],
    normals: Sequence[int],
    scored: Mapping[str, Sequence[int]],
    keys: Mapping[str, Any],
    swaps: Mapping[str, float] | None = None,
) -> list[dict[str, Any]]:
    """One row per scored set (``variant``) and control: the AUROC of the set (label 1) against the test
    ``normals`` (label 0); NaN for an empty set. ``swaps``: mean swaps per anomaly of a variant (else NaN)."""
    normals = np.asarray(normals, dtype=np.int64)
    rows = []
    for variant, ids in scored.items():
        ids = np.asarray(ids, dtype=np.int64)
        labels = np.concatenate([np.zeros(len(normals)), np.ones(len(ids))])
        for control in CONTROLS:
            value = auroc(labels, scores[control][np.concatenate([normals, ids])]) if len(ids) else math.nan
            rows.append(
                {
                    **keys,
                    "variant": variant,
                    "control": control,
                    "auroc": value,
                    "n_normals": len(normals),
                    "n_scored": len(ids),
                    "swaps": (swaps or {}).get(variant, math.nan),
                }
            )
    return rows


def molswap_control_rows(
    data: ms.MolSwapData,
    name: str,
    seed: int,
    split: Mapping[str, Sequence[int]],
    anomalies: GraphSet,
    size_changing: GraphSet,
    records: Mapping[str, Any],
    max_k: int,
) -> list[dict[str, Any]]:
    """The control rows of one saved MolSwap set on one seed: its size-preserving anomalies, size-changing variants
    and the anomalies' parents (null edit) against the seed's test normals, fitted on its training normals; the
    seed's graphs are scored together, so the edge-label pair columns are those of all of them."""
    parents = [a["parent"] for a in records["anomalies"]]
    normals = [data.molecules[g] for g in [*split["train"], *split["test"], *parents]]
    parts = [ms.molecules_graphset("normals", normals), anomalies, size_changing]
    graphs = concat_graphsets(f"{name}/seed{seed}", parts)
    counts = [len(split["train"]), len(split["test"]), len(parents), anomalies.num_graphs, size_changing.num_graphs]
    bounds = np.cumsum([0, *counts])
    train, test, parent_ids, kept, changed = (np.arange(lo, hi) for lo, hi in itertools.pairwise(bounds))
    scores = control_scores(control_features(graphs, max_k), train)
    swaps = mean_swaps(records)
    scored = {SIZE_PRESERVING: kept, SIZE_CHANGING: changed, PARENTS: parent_ids}
    keys = {"generator": MOLSWAP, "set": name, "seed": seed}
    return control_rows(scores, test, scored, keys, {SIZE_PRESERVING: swaps, SIZE_CHANGING: swaps})


def mean_swaps(records: Mapping[str, Any]) -> float:
    """Mean number of swaps per size-preserving anomaly of a MolSwap set's records (NaN when it has none)."""
    counts = [len(a["swaps"]) for a in records["anomalies"]]
    return float(np.mean(counts)) if counts else math.nan


# ---- summaries and verdicts --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """One scored set's controls over the seeds: five-seed means (AUROC points), ranges and yields."""

    seeds: int
    test_normals: int
    graphlet_lw: float
    graphlet_lw_min: float
    graphlet_lw_max: float
    size_only: float
    size_only_min: float
    size_only_max: float
    edge_label_pair_lw: float
    null_edit: float
    null_edit_min: float
    null_edit_max: float
    min_yield: int
    edits: float


def _values(rows: pd.DataFrame, variant: str, control: str) -> pd.Series:
    return rows.loc[(rows["variant"] == variant) & (rows["control"] == control), "auroc"].astype(float)


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if values.notna().any() else math.nan


def _edge(values: pd.Series, which: str) -> float:
    return float(getattr(values, which)()) if values.notna().any() else math.nan


def profile(rows: pd.DataFrame, variant: str = SIZE_PRESERVING) -> Profile:
    """The profile of ``variant`` among the control rows of one set (every seed); the null edit is its parents'
    graphlet count + LW whatever the variant."""
    graphlet, size = _values(rows, variant, GRAPHLET_LW), _values(rows, variant, SIZE_ONLY)
    null = _values(rows, PARENTS, GRAPHLET_LW)
    scored = rows[(rows["variant"] == variant) & (rows["control"] == GRAPHLET_LW)]
    weights = scored["n_scored"].astype(float)
    swaps = scored["swaps"].astype(float)
    edits = float((swaps * weights).sum() / weights.sum()) if weights.sum() and swaps.notna().any() else math.nan
    return Profile(
        seeds=int(rows["seed"].nunique()),
        test_normals=int(scored["n_normals"].min()) if len(scored) else 0,
        graphlet_lw=_mean(graphlet),
        graphlet_lw_min=_edge(graphlet, "min"),
        graphlet_lw_max=_edge(graphlet, "max"),
        size_only=_mean(size),
        size_only_min=_edge(size, "min"),
        size_only_max=_edge(size, "max"),
        edge_label_pair_lw=_mean(_values(rows, variant, EDGE_LABEL_PAIR_LW)),
        null_edit=_mean(null),
        null_edit_min=_edge(null, "min"),
        null_edit_max=_edge(null, "max"),
        min_yield=int(scored["n_scored"].min()) if len(scored) else 0,
        edits=edits,
    )


def verdict(graphlet_lw: float, size_only: float, edge_label_pair_lw: float) -> dict[str, Any]:
    """D.1's verdict from three five-seed means: ``valid`` (graphlet count + LW >= 85 and size only <= 60),
    ``confounded`` (edge-label pair + LW >= 85; left out of the decision even when valid), else ``not valid``;
    ``no anomalies`` when a control has no value."""
    if any(math.isnan(v) for v in (graphlet_lw, size_only, edge_label_pair_lw)):
        return {"valid": False, "confounded": False, "verdict": "no anomalies"}
    valid = graphlet_lw >= ms.MIN_GRAPHLET_LW and size_only <= ms.MAX_SIZE_ONLY
    confounded = edge_label_pair_lw >= ms.MAX_EDGE_LABEL_PAIR_LW
    label = "confounded" if confounded else "valid" if valid else "not valid"
    return {"valid": valid, "confounded": confounded, "verdict": label}


def control_scores_of(rows: pd.DataFrame) -> ms.ControlScores:
    """A candidate's :class:`~graphaudit.glad.molswap.ControlScores` (what the selection rule reads)."""
    kept, changed = profile(rows, SIZE_PRESERVING), profile(rows, SIZE_CHANGING)
    return ms.ControlScores(
        graphlet_lw=kept.graphlet_lw,
        size_only=kept.size_only,
        edge_label_pair_lw=kept.edge_label_pair_lw,
        null_edit=kept.null_edit,
        min_yield=kept.min_yield,
        min_yield_size_changing=changed.min_yield,
    )


def pass_label(scores: ms.ControlScores) -> str:
    """Table 13's last column: ``Yes``, ``No (yield)`` (fewer than 100 anomalies in some seed of a variant) or
    ``No``."""
    if ms.passes(scores):
        return "Yes"
    return "No (yield)" if min(scores.min_yield, scores.min_yield_size_changing) < ms.YIELD_FLOOR else "No"


def _by_set(controls: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {str(name): rows for name, rows in controls.groupby("set", sort=False)}


def _round(row: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 4) if isinstance(v, float) and not math.isnan(v) else v for k, v in row.items()}


# ---- Tables 12-14 ------------------------------------------------------------------------------------------
def v1_table(controls: pd.DataFrame) -> pd.DataFrame:
    """Table 12: MolSwap v1's controls per type (five-seed means, ranges, null edit, smallest yield) and the
    computed verdict (the paper: none valid, so v1 was retired)."""
    sets = _by_set(controls)
    rows = []
    for name, candidate in msd.V1_TYPES.items():
        if candidate.name not in sets:
            continue
        kept = profile(sets[candidate.name])
        row = {
            "type": name,
            "candidate": candidate.name,
            "edit": FAMILY_EDITS[candidate.family],
            "seeds": kept.seeds,
            "graphlet_lw": kept.graphlet_lw,
            "graphlet_lw_min": kept.graphlet_lw_min,
            "graphlet_lw_max": kept.graphlet_lw_max,
            "size_only": kept.size_only,
            "edge_label_pair_lw": kept.edge_label_pair_lw,
            "null_edit": kept.null_edit,
            "null_edit_min": kept.null_edit_min,
            "null_edit_max": kept.null_edit_max,
            "min_yield": kept.min_yield,
            "edits": kept.edits,
            **verdict(kept.graphlet_lw, kept.size_only, kept.edge_label_pair_lw),
        }
        rows.append(_round(row))
    return pd.DataFrame(rows)


def design_table(controls: pd.DataFrame) -> pd.DataFrame:
    """Table 13: the 26 MS-v2 candidates' controls, yields, edits per anomaly and pass label, the type the fixed
    selection rule (:func:`~graphaudit.glad.molswap.select_types`) gives each on these scores (``selected_as``)
    and the frozen final types (``frozen_as``), so a regeneration that moves the choice shows it."""
    sets = _by_set(controls)
    present = [c for c in msd.CANDIDATES if c.name in sets]
    scores = {c: control_scores_of(sets[c.name]) for c in present}
    selected = {c: name for name, c in ms.select_types(scores).items()}
    frozen = {c: name for name, c in msd.FINAL_TYPES.items()}
    rows = []
    for candidate in present:
        kept, changed = profile(sets[candidate.name]), profile(sets[candidate.name], SIZE_CHANGING)
        row = {
            "candidate": candidate.name,
            "iteration": 1 if candidate in msd.ITERATION_1 else 2,
            "family": candidate.family,
            "edit": FAMILY_EDITS[candidate.family],
            "k": str(candidate.k),
            "pool": candidate.pool,
            "seeds": kept.seeds,
            "graphlet_lw": kept.graphlet_lw,
            "graphlet_lw_min": kept.graphlet_lw_min,
            "graphlet_lw_max": kept.graphlet_lw_max,
            "size_only": kept.size_only,
            "edge_label_pair_lw": kept.edge_label_pair_lw,
            "null_edit": kept.null_edit,
            "min_yield_m": kept.min_yield,
            "min_yield_sc": changed.min_yield,
            "edits": kept.edits,
            "passes": pass_label(scores[candidate]),
            "selected_as": selected.get(candidate, ""),
            "frozen_as": frozen.get(candidate, ""),
        }
        rows.append(_round(row))
    return pd.DataFrame(rows)


def _role(variant: str, judged: Mapping[str, Any]) -> str:
    if variant == SIZE_CHANGING:
        return "scope test"
    if judged["verdict"] == "confounded":
        return "left out (confounded)"
    return "decision" if judged["valid"] else f"left out ({judged['verdict']})"


def _validity_row(generator: str, name: str, candidate: str, variant: str, kept: Profile) -> dict[str, Any]:
    judged = verdict(kept.graphlet_lw, kept.size_only, kept.edge_label_pair_lw)
    return _round(
        {
            "generator": generator,
            "type": name,
            "variant": variant,
            "candidate": candidate,
            "seeds": kept.seeds,
            "test_normals": kept.test_normals,
            "min_yield": kept.min_yield,
            "graphlet_lw": kept.graphlet_lw,
            "graphlet_lw_min": kept.graphlet_lw_min,
            "graphlet_lw_max": kept.graphlet_lw_max,
            "size_only": kept.size_only,
            "size_only_min": kept.size_only_min,
            "size_only_max": kept.size_only_max,
            "edge_label_pair_lw": kept.edge_label_pair_lw,
            "null_edit": kept.null_edit,
            **judged,
            "role": _role(variant, judged),
        }
    )


def validity_table(gx: pd.DataFrame, molswap: pd.DataFrame) -> pd.DataFrame:
    """Table 14: the controls and computed verdict of every final type: GX T1a, T3a, T3b, then MS1-MS3 of MS-v2
    (:data:`~graphaudit.glad.molswap_designs.FINAL_TYPES`) size-preserving and size-changing, then one row ``MS1-MS3``
    whose ``size_only_min`` / ``size_only_max`` are the smallest and largest of the three size-changing means (the
    paper's 67.4-72.2). Either frame may be empty (MolSwap off: GX rows only)."""
    rows = []
    for name, set_rows in (_by_set(gx) if len(gx) else {}).items():
        rows.append(_validity_row(GX, name, "", SIZE_PRESERVING, profile(set_rows)))
    sets = _by_set(molswap) if len(molswap) else {}
    finals = [(name, c) for name, c in msd.FINAL_TYPES.items() if c.name in sets]
    for variant in (SIZE_PRESERVING, SIZE_CHANGING):
        for name, candidate in finals:
            rows.append(_validity_row(msd.MS_V2, name, candidate.name, variant, profile(sets[candidate.name], variant)))
    changed = [r["size_only"] for r in rows if r["generator"] == msd.MS_V2 and r["variant"] == SIZE_CHANGING]
    if changed:
        rows.append(
            {
                "generator": msd.MS_V2,
                "type": "-".join((finals[0][0], finals[-1][0])) if len(finals) > 1 else finals[0][0],
                "variant": SIZE_CHANGING,
                "candidate": "range over the types",
                "size_only": round(float(np.mean(changed)), 4),
                "size_only_min": round(float(np.min(changed)), 4),
                "size_only_max": round(float(np.max(changed)), 4),
                "role": "scope test",
            }
        )
    return pd.DataFrame(rows)


# ---- MolSwap records ---------------------------------------------------------------------------------------
def pool_record(data: ms.MolSwapData, seeds: Iterable[int]) -> dict[str, Any]:
    """What ``pool.json`` holds: the pool counts and ids, every seed's split of both pools, the (label, degree)
    support, the small-ring shares (E15) and the pre-registered rule's constants."""
    seeds = list(seeds)
    return {
        "dataset": msd.DATASET,
        "normal_graphs": len(data.pools["P0"]) + len(data.excluded),
        "kept": len(data.pools["P0"]),
        "excluded": len(data.excluded),
        "excluded_ids": list(data.excluded),
        "pools": {pool: list(ids) for pool, ids in data.pools.items()},
        "splits": {
            pool: {
                str(seed): {
                    "train": list(split.train),
                    "test": list(split.test),
                    "parents": list(split.parents),
                }
                for seed in seeds
                for split in [data.split(pool, seed)]
            }
            for pool in msd.POOLS
        },
        "support": sorted([list(pair) for pair in data.rules.support]),
        "ring_shares": {str(size): share for size, share in ms.smallest_ring_shares(data.molecules.values()).items()},
        "rule": {
            "min_graphlet_lw": ms.MIN_GRAPHLET_LW,
            "max_size_only": ms.MAX_SIZE_ONLY,
            "max_edge_label_pair_lw": ms.MAX_EDGE_LABEL_PAIR_LW,
            "max_null_edit": ms.MAX_NULL_EDIT,
            "yield_floor": ms.YIELD_FLOOR,
        },
    }


def check_pool(record: Mapping[str, Any], data: ms.MolSwapData) -> None:
    """Stop when the saved pool is not the one ``data`` gives (pool ids or a seed's split differ)."""
    for pool, ids in data.pools.items():
        if list(record["pools"][pool]) != list(ids):
            raise ValueError(f"pool.json's {pool} differs from the pool NCI1 gives now: regenerate the MolSwap pool")
        for seed, split in record["splits"][pool].items():
            now = data.split(pool, int(seed))
            if [list(now.train), list(now.test), list(now.parents)] != [
                split["train"],
                split["test"],
                split["parents"],
            ]:
                raise ValueError(f"pool.json's {pool} split of seed {seed} differs from the split made now")


def set_records(typed: ms.TypedSet) -> dict[str, Any]:
    """The ``records.json`` of a saved set: :func:`~graphaudit.glad.molswap.typed_records` with the swap counts
    and the name of the candidate (row i of the records is graph i of the matching GraphSet)."""
    record = ms.typed_records(typed)
    record["name"] = typed.candidate.name
    record["swap_counts"] = {str(k): v for k, v in sorted(typed.swap_counts().items())}
    return record


def molecules_of(graphs: GraphSet) -> list[ms.Molecule]:
    """The molecules of a saved GraphSet, in graph order."""
    return [ms.Molecule.from_graphset(graphs, g) for g in range(graphs.num_graphs)]


# ---- validation on the saved MolSwap files -----------------------------------------------------------------
@dataclass(frozen=True)
class SavedSet:
    """One saved type on one seed: its anomalies and size-changing variants as read back, and its records."""

    group: str
    name: str
    candidate: msd.Candidate
    seed: int
    anomalies: list[ms.Molecule]
    size_changing: list[ms.Molecule]
    records: Mapping[str, Any]


VALIDATION_COLUMNS = [
    "group",
    "type",
    "candidate",
    "check",
    "subject",
    "seed",
    "tested",
    "accepted",
    "rejected",
    "genuine",
    "expected",
    "passed",
    "problem",
]


def _check_row(saved: SavedSet, check: str, subject: str, seed: Any, outcomes: list[str], expected: str) -> dict:
    """A validation row from one problem text per tested item ('' = accepted)."""
    accepted = sum(1 for o in outcomes if not o)
    passed = accepted == len(outcomes) if expected == "all" else accepted == 0
    return {
        "group": saved.group,
        "type": saved.name,
        "candidate": saved.candidate.name,
        "check": check,
        "subject": subject,
        "seed": seed,
        "tested": len(outcomes),
        "accepted": accepted,
        "rejected": len(outcomes) - accepted,
        "genuine": math.nan,
        "expected": expected,
        "passed": passed,
        "problem": next((o for o in outcomes if o), ""),
    }


def _own_problems(saved: SavedSet, data: ms.MolSwapData, family: str | None = None, k: Any = None) -> list[str]:
    """The checker of ``family`` with ``k`` (the set's own by default) replayed on every anomaly of the set."""
    family = family or saved.candidate.family
    k = saved.candidate.k if k is None else k
    problems = []
    for record, graph in zip(saved.records["anomalies"], saved.anomalies):
        swaps = [ms.Swap.of(s["removed"], s["added"]) for s in record["swaps"]]
        found = mc.check_anomaly(data.molecules[record["parent"]], swaps, graph, family, k, data.rules.support)
        problems.append("; ".join(found))
    return problems


def saved_set_rows(saved: SavedSet, data: ms.MolSwapData, split: Mapping[str, Sequence[int]]) -> list[dict]:
    """The checks of one saved set: the replayed edit, the size-changing variants, isomorphism to the normals and
    the parents and donors coming from the seed's parents (each tested item accepted or its problem)."""
    records = saved.records
    if len(records["anomalies"]) != len(saved.anomalies) or len(records["size_changing"]) != len(saved.size_changing):
        raise ValueError(f"{saved.name} seed {saved.seed}: the records and the saved graphs hold different counts")
    by_parent = {r["parent"]: graph for r, graph in zip(records["anomalies"], saved.anomalies)}
    changed = []
    for record, graph in zip(records["size_changing"], saved.size_changing):
        anomaly = by_parent.get(record["parent"])
        if anomaly is None:
            changed.append("no size-preserving anomaly of this parent")
            continue
        found = mc.check_size_changing(graph, tuple(record["link"]), anomaly, data.molecules[record["donor"]])
        changed.append("; ".join(found))
    made = saved.anomalies + saved.size_changing
    isomorphic = set(mc.isomorphic_to_normals(made, data.molecules.values()))
    parents = set(split["parents"])
    origin = [
        "" if r["parent"] in parents else f"parent {r['parent']} is not one of the seed's parents"
        for r in records["anomalies"]
    ] + [
        "" if {r["parent"], r["donor"]} <= parents and r["parent"] != r["donor"] else f"donor {r['donor']} is not valid"
        for r in records["size_changing"]
    ]
    seed = saved.seed
    return [
        _check_row(saved, "replayed edit", saved.name, seed, _own_problems(saved, data), "all"),
        _check_row(saved, "size-changing variant", saved.name, seed, changed, "all"),
        _check_row(
            saved,
            "not isomorphic to a normal",
            saved.name,
            seed,
            ["isomorphic to a normal molecule" if i in isomorphic else "" for i in range(len(made))],
            "all",
        ),
        _check_row(saved, "parents and donors from the seed's parents", saved.name, seed, origin, "all"),
    ]


def cross_rows(saved: SavedSet, others: Iterable[SavedSet], data: ms.MolSwapData) -> list[dict]:
    """Negative control: ``saved``'s checker (family and k) replayed on each other type's anomalies of the same
    group and seed accepts none of them."""
    rows = []
    for other in others:
        problems = _own_problems(other, data, saved.candidate.family, saved.candidate.k)
        row = _check_row(saved, "checker on another type", other.name, saved.seed, problems, "none")
        row["problem"] = ""  # a rejection is the expected outcome here, not a problem
        rows.append(row)
    return rows


def random_swap_rows(
    group: str, types: Mapping[str, msd.Candidate], data: ms.MolSwapData, rng: np.random.Generator
) -> list[dict]:
    """Negative control: each type's checker on :data:`~graphaudit.glad.molswap_check.RANDOM_SWAPS` random
    connectivity-keeping swaps of distinct normals. An accepted swap must be genuine (one of the generator's
    eligible sites of the family): the paper accepts 0, 1 (a genuine relocation) and 0 for MS1-MS3."""
    swaps = mc.random_swaps(data.molecules, rng)
    rows = []
    for name, candidate in types.items():
        accepted = [
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
        genuine = sum(
            swap
            in {s.swap for s in ms.eligible_sites(data.molecules[g], candidate.family, data.rules.support, frozenset())}
            for g, swap in accepted
        )
        rows.append(
            {
                "group": group,
                "type": name,
                "candidate": candidate.name,
                "check": "checker on random swaps",
                "subject": f"{len(swaps)} random swaps of normals",
                "seed": "all",
                "tested": len(swaps),
                "accepted": len(accepted),
                "rejected": len(swaps) - len(accepted),
                "genuine": genuine,
                "expected": "genuine only",
                "passed": genuine == len(accepted),
                "problem": ""
                if genuine == len(accepted)
                else f"{len(accepted) - genuine} accepted swaps are not its edit",
            }
        )
    return rows


def validation_table(checks: pd.DataFrame) -> pd.DataFrame:
    """The validation summed over seeds per (group, type, check, subject), then one row ``every check`` whose
    ``rejected`` counts the rows that did not pass (0: the saved files pass every check)."""
    keys = ["group", "type", "candidate", "check", "subject", "expected"]
    frame = checks.assign(seed=checks["seed"].astype(str))
    grouped = frame.groupby(keys, sort=False, dropna=False)
    summary = grouped.agg(
        seeds=("seed", lambda s: ",".join(dict.fromkeys(s))),
        tested=("tested", "sum"),
        accepted=("accepted", "sum"),
        rejected=("rejected", "sum"),
        genuine=("genuine", lambda s: s.sum(min_count=1)),
        passed=("passed", "all"),
        problem=("problem", lambda s: next((p for p in s.fillna("") if p), "")),
    ).reset_index()
    failing = int((~summary["passed"].astype(bool)).sum())
    total = {
        "group": "all",
        "type": "all",
        "candidate": "",
        "check": "every check",
        "subject": "",
        "expected": "all",
        "seeds": "",
        "tested": len(summary),
        "accepted": len(summary) - failing,
        "rejected": failing,
        "genuine": math.nan,
        "passed": failing == 0,
        "problem": "",
    }
    return pd.concat([summary, pd.DataFrame([total])], ignore_index=True)[
        keys[:5] + ["seeds", "tested", "accepted", "rejected", "genuine", "expected", "passed", "problem"]
    ]


# ---- GX sets -----------------------------------------------------------------------------------------------
GX_PARTS = ("train_normal", "test_normal", *gx.ANOMALY_TYPES)
"""The parts a GX set's metadata summarises, in graph-id order."""


def part_summary(graphs: GraphSet, parts: Mapping[str, Sequence[int]]) -> dict[str, dict[str, Any]]:
    """Per part of a GX split: graphs, node-count range and mean, and the distinct values of m - n (15 for every
    GX graph: n = n_b + 50, m = n_b + 65)."""
    n, m = graphs.node_counts(), graphs.edge_counts()
    summary = {}
    for part, ids in parts.items():
        ids = np.asarray(ids, dtype=np.int64)
        summary[part] = {
            "graphs": len(ids),
            "n_min": int(n[ids].min()),
            "n_max": int(n[ids].max()),
            "n_mean": round(float(n[ids].mean()), 4),
            "m_minus_n": sorted(set((m[ids] - n[ids]).tolist())),
        }
    return summary


def gx_sets_table(metadata: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per (feature variant, seed, part) of the saved GX sets, from their metadata."""
    rows = []
    for meta in metadata:
        for part in GX_PARTS:
            summary = meta["summary"][part]
            rows.append(
                {
                    "features": meta["features"],
                    "seed": meta["seed"],
                    "part": part,
                    **{k: summary[k] for k in ("graphs", "n_min", "n_max", "n_mean")},
                    "m_minus_n": ",".join(str(v) for v in summary["m_minus_n"]),
                    "feature_columns": len(meta["feature_columns"]),
                }
            )
    return pd.DataFrame(rows)

"""The training protocols of part 3 (Section 4, Appendix D; spec 3.2, 4.8): the two rules that make the graphs of
the protocols beyond the released one, and the readers of their files. Which sets each protocol trains and validates
on (:data:`~graphaudit.pattern.neural_plan.PROTOCOL_SETS`) and which runs it trains
(:func:`~graphaudit.pattern.neural_plan.neural_runs`) are planned at parse time in
:mod:`graphaudit.pattern.neural_plan`.

* ``released``: the official-like training graphs, validated on the official-like validation graphs.
* ``held_out``: the same splits without the graphs whose pattern was withheld. :func:`pattern_neural_held_out`
  draws ``pattern.neural.held_out.patterns`` of the library's patterns (:func:`draw_held_out`) and writes
  ``patterns.csv`` (every library pattern: id, size, size group, withheld) and ``graphs.csv`` (every graph of the
  official-like splits and the familiar set: its pattern's library id by canonical form with features, size,
  withheld), so held-out against kept scores (Table 11) come from saved predictions.
* ``fresh_trained``: new training and validation splits in which every graph carries its own new pattern,
  rejection-sampled against the library and the fresh test patterns (:func:`pattern_neural_fresh_splits`,
  :func:`~graphaudit.pattern.planted.generator.distinct_fresh_splits`).

Every protocol scores the same official-like test, familiar and fresh graphs.

**The held-out draw.** The paper draws the 20 patterns "with a fixed seed, separately among the 24 patterns with
fewer than 14 nodes and the 76 with 14 or more" and names neither the count per group nor the draw. Its test
split then holds 100 held-out graphs with patterns under 14 nodes of 400, so 5 small and 15 large patterns (spec
3.2, derived). Here each group gets its share of the count in proportion to its size, rounded by largest
remainder (:func:`allocate`; 24 / 76 of 100 gives exactly 5 / 15, and a regenerated library's own group sizes
give the shares that fit it), and the patterns of each group are drawn uniformly without replacement, the
small group first, by one generator seeded from the config seed (:func:`draw_held_out`). The draw's RNG, the
rounding and the order are this project's choices.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_json
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.generator import distinct_fresh_splits, law_for
from graphaudit.pattern.planted.library import LibraryPattern, graph_keys, load_library
from graphaudit.pattern.planted.matcher import LARGE_MIN
from graphaudit.pattern.settings import FreshSplits, GeneratorLaw, HeldOut
from graphaudit.pattern.tidy import read_frame, write_frame

__all__ = [
    "HELD_OUT_GRAPH_COLUMNS",
    "HELD_OUT_PATTERN_COLUMNS",
    "SIZE_GROUPS",
    "allocate",
    "draw_held_out",
    "held_out_graphs",
    "held_out_patterns",
    "kept_graphs",
    "pattern_neural_fresh_splits",
    "pattern_neural_held_out",
    "size_group",
    "withheld_patterns",
]

log = logging.getLogger(__name__)

SIZE_GROUPS = (f"under {LARGE_MIN}", f"{LARGE_MIN} or more")
"""The paper's pattern-size groups (Tables 7, 10, 11), at the matcher's large-pattern threshold."""

HELD_OUT_PATTERN_COLUMNS = ["pattern", "size", "group", "withheld"]
HELD_OUT_GRAPH_COLUMNS = ["set", "graph", "pattern", "pattern_size", "group", "withheld"]
HELD_OUT_SETS = ("train", "val", "test", "familiar")
"""The sets whose graphs carry library patterns, as ``graphs.csv`` names them (the official-like splits by the
split names of ``pattern_ids.csv``)."""


# ---- the held-out draw ------------------------------------------------------------------------------------------
def size_group(size: int) -> str:
    """The paper's size group of a pattern of ``size`` nodes."""
    return SIZE_GROUPS[int(size >= LARGE_MIN)]


def allocate(group_sizes: Sequence[int], total: int) -> list[int]:
    """``total`` split over groups in proportion to their sizes, by largest remainder (exact integer arithmetic;
    equal remainders go to the earlier group)."""
    whole = sum(group_sizes)
    if not 0 <= total <= whole:
        raise ValueError(f"cannot take {total} of {whole} items")
    shares = [total * size // whole for size in group_sizes]
    remainders = [total * size % whole for size in group_sizes]
    for k in sorted(range(len(group_sizes)), key=lambda k: -remainders[k])[: total - sum(shares)]:
        shares[k] += 1
    return shares


def draw_held_out(sizes: Sequence[int], count: int, seed: int) -> list[int]:
    """The ids (library indices, sorted) of ``count`` patterns of sizes ``sizes`` withheld from training: each
    size group's share (:func:`allocate`) drawn uniformly without replacement, the groups in
    :data:`SIZE_GROUPS` order, by one generator seeded from ``seed``."""
    if not 0 < count < len(sizes):
        raise ValueError(f"withhold at least one and fewer than all {len(sizes)} library patterns, not {count}")
    groups = [[k for k, size in enumerate(sizes) if size_group(size) == group] for group in SIZE_GROUPS]
    rng = rng_for("pattern", "neural", "held_out", seed)
    shares = allocate([len(members) for members in groups], count)
    drawn = [rng.choice(members, size=share, replace=False) for members, share in zip(groups, shares)]
    return sorted(int(k) for k in np.concatenate(drawn))


def held_out_patterns(library: Sequence[LibraryPattern], withheld: Sequence[int]) -> pd.DataFrame:
    """:data:`HELD_OUT_PATTERN_COLUMNS` rows, one per library pattern."""
    chosen = set(withheld)
    return pd.DataFrame(
        [(k, p.size, size_group(p.size), k in chosen) for k, p in enumerate(library)], columns=HELD_OUT_PATTERN_COLUMNS
    )


def held_out_graphs(ids: pd.DataFrame, sizes: Mapping[str, np.ndarray], withheld: Sequence[int]) -> pd.DataFrame:
    """:data:`HELD_OUT_GRAPH_COLUMNS` rows from tidy ``set, graph, pattern`` rows (pattern: the library id by
    canonical form, :func:`~graphaudit.pattern.planted.library.pattern_ids`) and every set's planted-pattern
    sizes by graph."""
    frame = ids.copy()
    frame["pattern_size"] = [int(sizes[s][g]) for s, g in zip(frame["set"], frame["graph"])]
    frame["group"] = frame["pattern_size"].map(size_group)
    frame["withheld"] = frame["pattern"].isin(list(withheld))
    return frame[HELD_OUT_GRAPH_COLUMNS]


def pattern_neural_held_out(ctx: RuleContext) -> None:
    """The held_out protocol's withheld patterns (``patterns.csv``) and every library-pattern graph's pattern and
    whether it was withheld (``graphs.csv``)."""
    library = load_library(ctx.input["library"])
    settings = ctx.settings("held_out", HeldOut)
    withheld = draw_held_out([p.size for p in library], settings.patterns, int(ctx.params["seed"]))
    write_frame(held_out_patterns(library, withheld), ctx.output["patterns"])
    ids = read_frame(ctx.input["ids"]).rename(columns={"split": "set"})
    familiar = DenseGraphs.load(ctx.input["familiar"])
    index = {p.key: k for k, p in enumerate(library)}
    familiar_ids = [index.get(key, -1) for key in graph_keys(familiar)]
    outside = [g for g, k in enumerate(familiar_ids) if k < 0]
    if outside:
        raise ValueError(f"familiar graphs {outside[:10]} carry no library pattern ({len(outside)} in all)")
    ids = pd.concat(
        [ids, pd.DataFrame({"set": "familiar", "graph": range(familiar.num_graphs), "pattern": familiar_ids})],
        ignore_index=True,
    )
    sizes = {}
    for name in HELD_OUT_SETS:
        graphs = DenseGraphs.load(ctx.input[name])
        sizes[name] = np.add.reduceat(graphs.y.astype(np.int64), graphs.node_ptr[:-1]) if graphs.num_graphs else []
    frame = held_out_graphs(ids, sizes, withheld)
    write_frame(frame, ctx.output["graphs"])
    log.info(
        "withheld %d of %d patterns (%s); withheld graphs per set: %s",
        len(withheld),
        len(library),
        ", ".join(f"{g}: {sum(size_group(library[k].size) == g for k in withheld)}" for g in SIZE_GROUPS),
        frame[frame["withheld"]].groupby("set").size().to_dict(),
    )


def kept_graphs(path: str, set_name: str) -> list[int]:
    """Graphs of ``set_name`` (``train``, ``val``, ``test``, ``familiar``) whose pattern was kept, from
    ``graphs.csv``."""
    frame = read_frame(path)
    rows = frame[(frame["set"] == set_name) & ~frame["withheld"].astype(bool)]
    return rows["graph"].astype(int).tolist()


def withheld_patterns(path: str) -> list[int]:
    """The withheld library ids, from ``patterns.csv``."""
    frame = read_frame(path)
    return frame.loc[frame["withheld"].astype(bool), "pattern"].astype(int).tolist()


# ---- the fresh training splits ----------------------------------------------------------------------------------
def pattern_neural_fresh_splits(ctx: RuleContext) -> None:
    """The fresh_trained protocol's training and validation splits: every graph its own new pattern under the fresh
    test graphs' law, all distinct by canonical form with features and none a library or fresh test pattern; the
    graphs, their truth files and a summary (counts, rejected draws, mean pattern size)."""
    law_settings, splits = ctx.settings("law", GeneratorLaw), ctx.settings("splits", FreshSplits)
    law = law_for(law_settings.version, law_settings.size_law)
    library = {p.key for p in load_library(ctx.input["library"])}
    fresh_test = set(graph_keys(DenseGraphs.load(ctx.input["fresh"])))
    made, rejected = distinct_fresh_splits(
        law,
        {"fresh_train": splits.train, "fresh_val": splits.val},
        int(ctx.params["seed"]),
        library | fresh_test,
        law_settings.size_law,
    )
    for name, (graphs, truth) in made.items():
        graphs.save(ctx.output[name])
        truth.save(ctx.output[f"truth_{name}"])
    summary = {
        "graphs": {name: graphs.num_graphs for name, (graphs, _) in made.items()},
        "forbidden": {"library": len(library), "fresh_test": len(fresh_test), "both": len(library | fresh_test)},
        "rejected": rejected,
        "mean_pattern_size": {name: float(truth.pattern_size.mean()) for name, (_, truth) in made.items()},
    }
    write_json(ctx.output["summary"], summary)
    log.info("fresh training splits: %s", summary)

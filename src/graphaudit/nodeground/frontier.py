"""Performance-cost Pareto frontiers (Figures 8, 15, 16; spec 3.10, 4.12).

The points are every endpoint of a cohort slice: the supervised defaults, the tuned methods and the GFMs
(36 in the paper). Performance is Mean Improvability over that comparison set; cost is the workflow time
(``time``) or the workflow peak memory (``memory``) as an overhead: the geometric mean over (dataset,
partition) units of the endpoint's cost over the reference's (GCN-Default) on the same unit, units with a
non-positive or missing cost left out and counted. An endpoint is on the frontier when no other endpoint is
at most as costly and at most as improvable, and better in one of the two. On CPU the memory is the job's
peak RSS: the stand-in is labelled in ``memory_kind``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphaudit.nodeground.rankings import dataset_means, mean_improvability

__all__ = ["COSTS", "FRONTIER_COLUMNS", "frontier_points", "on_frontier", "overheads"]

COSTS = {"time": "workflow_s", "memory": "peak_mem_mb"}
FRONTIER_COLUMNS = [
    "entry",
    "kind",
    "mi",
    "overhead",
    "log2_overhead",
    "on_frontier",
    "units",
    "units_left_out",
    "comparison_set",
    "memory_kind",
]


def on_frontier(cost: np.ndarray, improvability: np.ndarray) -> np.ndarray:
    """Non-dominated points when both coordinates are minimised (NaN points are never on it)."""
    cost, improvability = np.asarray(cost, dtype=np.float64), np.asarray(improvability, dtype=np.float64)
    finite = np.isfinite(cost) & np.isfinite(improvability)
    no_worse = (cost[None, :] <= cost[:, None]) & (improvability[None, :] <= improvability[:, None])
    better = (cost[None, :] < cost[:, None]) | (improvability[None, :] < improvability[:, None])
    dominated = (no_worse & better & finite[None, :]).any(axis=1)
    return finite & ~dominated


def overheads(frame: pd.DataFrame, column: str, reference: str) -> pd.DataFrame:
    """Per entry: geometric-mean cost ratio to the reference over the units where both costs are positive."""
    ref = frame[frame["entry"] == reference].set_index(["dataset", "partition"])[column]
    joined = frame.join(ref.rename("ref"), on=["dataset", "partition"])
    ratio = joined[column] / joined["ref"]
    usable = np.isfinite(ratio) & (joined[column] > 0) & (joined["ref"] > 0)
    joined = joined.assign(log_ratio=np.where(usable, np.log(ratio.where(usable, 1.0)), np.nan), usable=usable)
    grouped = joined.groupby("entry")
    return pd.DataFrame(
        {
            "overhead": np.exp(grouped["log_ratio"].mean()),
            "units": grouped["usable"].sum(),
            "units_left_out": grouped["usable"].apply(lambda s: int((~s).sum())),
        }
    )


def _memory_kind(frame: pd.DataFrame) -> str:
    devices = set(frame["device"].astype(str)) - {""}
    if devices <= {"cpu"}:
        return "CPU peak RSS (stand-in for GPU memory)"
    return "CUDA peak memory" if devices <= {"cuda"} else "mixed CPU RSS and CUDA peak"


def frontier_points(
    frame: pd.DataFrame, scores: pd.Series, cost: str, reference: str, error: str = "score"
) -> pd.DataFrame:
    """Frontier table of one cohort slice for ``cost`` (time or memory)."""
    means = dataset_means(frame, scores if error == "score" else "test_loss")
    mi = mean_improvability(means, error)
    cost_table = overheads(frame, COSTS[cost], reference)
    kinds = frame.drop_duplicates("entry").set_index("entry")["kind"]
    out = pd.DataFrame({"entry": mi.index, "kind": kinds.reindex(mi.index).to_numpy(), "mi": mi.to_numpy()})
    out = out.join(cost_table, on="entry")
    out["log2_overhead"] = np.log2(out["overhead"])
    out["on_frontier"] = on_frontier(out["overhead"].to_numpy(), out["mi"].to_numpy())
    out["units"] = out["units"].fillna(0).astype(np.int64)
    out["units_left_out"] = out["units_left_out"].fillna(0).astype(np.int64)
    out["comparison_set"] = f"{len(out)} endpoints"
    out["memory_kind"] = _memory_kind(frame) if cost == "memory" else ""
    return out[FRONTIER_COLUMNS]

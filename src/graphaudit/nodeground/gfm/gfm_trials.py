"""Rule ``nodeground_gfm``: one GFM on one (dataset, split, partition), one record row (trial 1).

Inputs: the preprocessed graph (``results/nodeground/graphs/{dataset}.npz``), its splits
(``results/nodeground/splits/{dataset}/{split}.npz``) and the registry; params: ``artifacts`` (the local
artifact folder, ``nodeground.gfm.artifacts``) and ``mirror`` (``data.mirror``; unset: ``$GRAPHAUDIT_DATA_MIRROR``).
The row (ok, unavailable, failed or non_finite) goes to ``<records>/{gfm}/{dataset}/{split}/p{partition}.parquet``,
checked against the record schema.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import torch

from graphaudit.common.rule import RuleContext
from graphaudit.nodeground.gfm.adapter import build_adapter, cell_row, gfm_record
from graphaudit.nodeground.gfm.artifacts import RegistryError, load_registry, resolve_mirror
from graphaudit.nodeground.graph import NodeGraph, unavailable_reason
from graphaudit.nodeground.search import SearchKeys
from graphaudit.nodeground.splits import Splits
from graphaudit.nodeground.train_tasks import unavailable_task, write_search

__all__ = ["nodeground_gfm"]

log = logging.getLogger(__name__)


def nodeground_gfm(ctx: RuleContext) -> None:
    """Evaluate GFM ``{gfm}`` on ``{dataset}`` / ``{split}`` / partition ``{partition}`` and write its record; a
    dataset no source provided gives an ``unavailable`` row with the dataset's reason."""
    w = ctx.wildcards
    keys = SearchKeys(w["gfm"], w["dataset"], w["split"], int(w["partition"]))
    registry = load_registry(ctx.input["registry"])
    if keys.method not in registry:
        raise RegistryError(f"GFM {keys.method!r} is not in {ctx.input['registry']} ({sorted(registry)})")
    output = Path(ctx.output["trials"])
    reason = unavailable_reason(ctx.input["graph"]) or unavailable_reason(ctx.input["splits"])
    if reason is not None:
        row = cell_row(keys, unavailable_task(keys.dataset), "unavailable", f"dataset unavailable: {reason}", {})
        write_search(pd.DataFrame([row]), output)  # checked against the schema on write
        return
    graph, splits = NodeGraph.load(ctx.input["graph"]), Splits.load(ctx.input["splits"])
    if (graph.name, splits.split) != (keys.dataset, keys.split):
        raise ValueError(f"inputs hold {graph.name!r} / {splits.split!r}, the output path names {keys.label()}")
    torch.set_num_threads(ctx.threads)  # LAPACK's least squares is many times slower on oversubscribed cores
    adapter = build_adapter(
        keys.method, registry[keys.method], ctx.params["artifacts"], resolve_mirror(ctx.params["mirror"])
    )
    frame = gfm_record(adapter, graph, splits, keys.partition)
    log.info("%s: %s %s", keys.label(), frame.iloc[0]["status"], frame.iloc[0]["error"])
    write_search(frame, output)

"""One entry for frequent-pattern mining with a choice of engine.

``own`` is :func:`graphaudit.mining.gspan.mine` (numba kernels, any projection cap); ``gbolt`` is the paper's
binary (:mod:`graphaudit.mining.gbolt`), whose projection cap is compiled in at 500,000; ``auto`` takes gBolt
when it is installed and the requested cap is gBolt's, else the own engine. Both return identical pattern
maps (tested on MUTAG and PTC_MR), so the choice changes only speed and memory.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from graphaudit.graphs.dfscode import LabeledGraph
from graphaudit.mining.gbolt import GBOLT_MAX_PROJECTION, GBoltError, find_gbolt, mine_gbolt
from graphaudit.mining.gspan import mine

__all__ = ["BACKENDS", "mine_patterns", "resolve_backend"]

BACKENDS = ("auto", "own", "gbolt")
log = logging.getLogger(__name__)


def resolve_backend(backend: str, max_projection: int | None) -> str:
    """The engine that will run: ``own`` or ``gbolt``; an explicit ``gbolt`` that cannot honour the cap fails."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown mining backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    gbolt_cap = max_projection == GBOLT_MAX_PROJECTION
    if backend == "gbolt":
        if not gbolt_cap:
            raise GBoltError(
                f"gBolt's projection cap is compiled in at {GBOLT_MAX_PROJECTION}; "
                f"max_projection={max_projection} needs the backend 'own'"
            )
        return "gbolt"
    if backend == "auto" and gbolt_cap and find_gbolt() is not None:
        return "gbolt"
    return "own"


def mine_patterns(
    graphs: Sequence[LabeledGraph],
    sigma: float,
    upper: int,
    max_projection: int | None = GBOLT_MAX_PROJECTION,
    backend: str = "auto",
    threads: int = 1,
) -> dict[str, int]:
    """Frequent connected patterns (canonical key -> support count) with the chosen engine."""
    engine = resolve_backend(backend, max_projection)
    log.debug("mining %d graphs with %s (sigma=%s, upper=%d)", len(graphs), engine, sigma, upper)
    if engine == "gbolt":
        return mine_gbolt(graphs, sigma=sigma, upper=upper, threads=threads)
    return mine(graphs, sigma=sigma, upper=upper, max_projection=max_projection)

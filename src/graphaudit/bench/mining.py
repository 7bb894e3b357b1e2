"""Benchmark: gSpan mining at the paper's setting, own engine and default engine vs gspan-mining and bare gBolt.

gspan-mining (PyPI 0.2.3, pure Python) is the peer a user would pick. Its result hook appends to a pandas
DataFrame with ``DataFrame.append``, removed in pandas 2, so it runs here through a subclass that replaces
that hook with a count; the search itself is untouched. The own engine's numba kernels are loaded (or
compiled) by one untimed warm-up run, so its timings measure the search, not the JIT, whatever ``repeats``.
The bare gBolt run is the binary alone on an input file written beforehand; the default engine is timed end
to end (conversion, run, parsing, canonical keys).
"""

from __future__ import annotations

import importlib.util
import logging
import subprocess
import tempfile
from pathlib import Path

from graphaudit.bench.settings import MiningBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.graphs.dfscode import LabeledGraph
from graphaudit.mining.engine import mine_patterns, resolve_backend
from graphaudit.mining.gbolt import GBOLT_MAX_PROJECTION, find_gbolt, gbolt_command, write_gbolt_input
from graphaudit.mining.gspan import graphs_from_graphset, min_support_count, mine

log = logging.getLogger(__name__)


def gspan_mining_count(path: Path, min_support: int, upper: int) -> int:
    """Run gspan-mining on a gSpan-format file; the number of frequent patterns with 1+ edges."""
    from gspan_mining import gSpan

    class Counting(gSpan):
        def _report_size1(self, g, support):  # single vertices: not patterns here, and not printed
            pass

        def _report(self, projected):
            self._frequent_subgraphs.append(self._support)

    miner = Counting(str(path), min_support=min_support, max_num_vertices=upper)
    miner.run()
    return len(miner._frequent_subgraphs)


def bare_gbolt(path: Path, sigma: float, upper: int) -> None:
    """The gBolt binary alone, one thread, on a prepared input file."""
    cmd = gbolt_command(find_gbolt(), path, path.with_name("bare"), sigma, upper)
    subprocess.run(cmd, check=True, capture_output=True, env={"OMP_NUM_THREADS": "1"})


def _has_gspan_mining() -> bool:
    """Whether the peer is installed (it is in the ``bench`` and ``dev`` extras, not a runtime dependency)."""
    return importlib.util.find_spec("gspan_mining") is not None


def bench_dataset(
    name: str, graphs: list[LabeledGraph], sigma: float, upper: int, repeats: int, workdir: Path
) -> list[dict[str, object]]:
    """Rows for one database; every engine must report the same number of patterns."""
    found: dict[str, int] = {}
    label = f"{name} sigma={sigma} upper={upper}"
    path = workdir / f"{name}.txt"
    write_gbolt_input(graphs, path)  # gSpan's text format, read by both peers
    mine(graphs, sigma, upper, GBOLT_MAX_PROJECTION)  # untimed warm-up: loads (or compiles) the numba kernels
    own_s = best_time(lambda: found.update(own=len(mine(graphs, sigma, upper, GBOLT_MAX_PROJECTION))), repeats)
    rows: list[dict[str, object]] = []
    if _has_gspan_mining():
        threshold = min_support_count(len(graphs), sigma)
        peer_s = best_time(lambda: found.update(peer=gspan_mining_count(path, threshold, upper)), repeats)
        rows.append(
            {
                "benchmark": "gspan_own",
                "input": label,
                "ours_s": own_s,
                "peer": "gspan-mining 0.2.3 (pure Python)",
                "peer_s": peer_s,
            }
        )
    else:
        log.warning("gspan-mining is not installed (pip install gspan-mining==0.2.3): its rows are left out")
    engine = resolve_backend("auto", GBOLT_MAX_PROJECTION)
    default_s = best_time(lambda: found.update(default=len(mine_patterns(graphs, sigma, upper))), repeats)
    if "peer" in found:
        rows.append(
            {
                "benchmark": f"gspan_default_{engine}",
                "input": label,
                "ours_s": default_s,
                "peer": "gspan-mining 0.2.3 (pure Python)",
                "peer_s": rows[0]["peer_s"],
            }
        )
    if engine == "gbolt":
        bare_s = best_time(lambda: bare_gbolt(path, sigma, upper), repeats)
        rows.append(
            {
                "benchmark": "gspan_default_end_to_end",
                "input": label,
                "ours_s": default_s,
                "peer": "bare gBolt binary (fast-gspan 0.1.3)",
                "peer_s": bare_s,
            }
        )
    if len(set(found.values())) != 1:
        raise RuntimeError(f"{label}: engines disagree on the number of patterns: {found}")
    log.info(
        "%s: %d patterns; own %.3fs, default (%s) %.3fs, peers %s",
        label,
        found["own"],
        own_s,
        engine,
        default_s,
        {r["peer"]: round(float(r["peer_s"]), 3) for r in rows},
    )
    return rows


def bench_mining(ctx: RuleContext) -> None:
    """Rule entry: every configured data set, rows written to ``results/bench/mining.csv``."""
    settings = ctx.settings("bench", MiningBench)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="bench-mining-") as tmp:
        for name, path in zip(settings.datasets, ctx.input_list("graphsets")):
            graphs = graphs_from_graphset(GraphSet.load(path))
            rows += bench_dataset(name, graphs, settings.sigma, settings.upper, settings.repeats, Path(tmp))
    write_bench(ctx.output["table"], rows)

"""The paper's mining engine: the patched gBolt binary shipped in the PyPI package fast-gspan 0.1.3.

The binary is run on a gSpan-format file written straight from :class:`LabeledGraph` objects, and its
per-thread outputs are read back into the same ``{canonical key: support}`` map that
:func:`graphaudit.mining.gspan.mine` returns (sorted by key, so thread scheduling never shows).

gBolt's conventions (those :mod:`graphaudit.mining.gspan` mirrors): threshold ``int(n * sigma)`` in double
precision, ``-x`` caps pattern vertices, frequent single vertices are not patterns, and a child extension
whose projection exceeds ``MAX_PROJECTION_SIZE`` (compiled in: 500,000) is skipped with its branch.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from graphaudit.graphs.dfscode import LabeledGraph, code_text, graph_from_code, min_dfs_code

__all__ = [
    "GBOLT_MAX_PROJECTION",
    "GBoltError",
    "find_gbolt",
    "gbolt_command",
    "mine_gbolt",
    "read_gbolt_output",
    "write_gbolt_input",
]

GBOLT_MAX_PROJECTION = 500_000
ENV_VAR = "GRAPHAUDIT_GBOLT"


class GBoltError(RuntimeError):
    """gBolt is missing, does not run here, or failed on an input."""


def find_gbolt(path: str | os.PathLike | None = None) -> Path | None:
    """The gBolt executable: ``path``, else ``$GRAPHAUDIT_GBOLT``, else the one inside fast-gspan; None if absent."""
    explicit = path or os.environ.get(ENV_VAR)
    if explicit:
        candidate = Path(explicit)
        return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None
    spec = importlib.util.find_spec("fast_gspan")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root) / "vendor" / "gbolt" / "build" / "gbolt"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def write_gbolt_input(graphs: Sequence[LabeledGraph], path: str | os.PathLike) -> None:
    """gSpan's text format: ``t # id``, ``v i label``, ``e u v label``, closed by ``t # -1``."""
    lines: list[str] = []
    for gid, graph in enumerate(graphs):
        lines.append(f"t # {gid}")
        lines.extend(f"v {i} {label}" for i, label in enumerate(graph.node_labels))
        lines.extend(f"e {u} {v} {label}" for u, v, label in graph.edges)
    lines.append("t # -1")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _pattern_key(vertices: list[tuple[int, int]], code: list[tuple[int, ...]], verify: bool) -> str:
    """The canonical key of one reported pattern.

    gBolt's ``-d`` edge lines are its minimum DFS code (``i j l_i l_e l_j``), which under integer labels is the
    project's minimum code too, so it is the key as written; ``verify`` recomputes it and fails on any
    difference. Legacy lines (``u v l_e``) carry no code and are always recomputed.
    """
    if len(code[0]) == 5:
        if not verify:
            return code_text(code)
        key = code_text(min_dfs_code(graph_from_code(code)))
        if code_text(code) != key:
            raise GBoltError(f"gBolt reported {code_text(code)}, whose minimum DFS code is {key}")
        return key
    labels = [label for _, label in sorted(vertices)]
    return code_text(min_dfs_code(LabeledGraph.build(labels, code)))


def read_gbolt_output(texts: Sequence[str], verify: bool = False) -> dict[str, int]:
    """Patterns of gBolt ``-d`` output files (``t # id * support``, ``v``, ``e`` lines) -> support, by key."""
    patterns: dict[str, int] = {}

    def close(support: int | None, vertices: list, code: list) -> None:
        if support is not None and code:
            key = _pattern_key(vertices, code, verify)
            if patterns.setdefault(key, support) != support:
                raise GBoltError(f"gBolt reported pattern {key} twice with supports {patterns[key]} and {support}")

    for text in texts:
        support, vertices, code = None, [], []
        for line in text.splitlines():
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "t":
                close(support, vertices, code)
                support, vertices, code = int(parts[4]), [], []
            elif parts[0] == "v":
                vertices.append((int(parts[1]), int(parts[2])))
            elif parts[0] == "e":
                code.append(tuple(int(x) for x in parts[1:6]))
        close(support, vertices, code)
    return dict(sorted(patterns.items()))


def gbolt_command(executable: str | os.PathLike, source: Path, target: Path, sigma: float, upper: int) -> list[str]:
    """gBolt's command line: mine ``source`` into ``target.t<thread>`` files with DFS codes (``-d``)."""
    cmd = [str(executable), "-i", str(source), "-o", str(target), "-s", repr(float(sigma)), "-d"]
    return cmd + ["-x", str(int(upper))] if upper > 0 else cmd


def mine_gbolt(
    graphs: Sequence[LabeledGraph],
    sigma: float = 0.1,
    upper: int = 8,
    threads: int = 1,
    executable: str | os.PathLike | None = None,
    timeout: float | None = None,
    verify: bool = False,
) -> dict[str, int]:
    """Run gBolt on ``graphs``: frequent connected patterns (1+ edges, <= ``upper`` vertices) -> support."""
    exe = find_gbolt(executable)
    if exe is None:
        raise GBoltError(
            "gBolt was not found: install the extra with `pip install fast-gspan==0.1.3`, set "
            f"${ENV_VAR} to a gbolt executable, or use the backend 'own'"
        )
    if not 0.0 < sigma <= 1.0:
        raise GBoltError(f"gBolt needs 0 < sigma <= 1, got {sigma}")
    with tempfile.TemporaryDirectory(prefix="gbolt-") as tmp:
        source, target = Path(tmp) / "input.txt", Path(tmp) / "output"
        write_gbolt_input(graphs, source)
        env = {**os.environ, "OMP_NUM_THREADS": str(max(1, int(threads)))}
        done = subprocess.run(
            gbolt_command(exe, source, target, sigma, upper),
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise GBoltError(f"gBolt exited with {done.returncode}: {done.stderr.strip()[-500:]}")
        outputs = sorted(Path(tmp).glob("output.t*"), key=lambda p: int(p.suffix[2:]))
        return read_gbolt_output([p.read_text(encoding="utf-8") for p in outputs], verify)

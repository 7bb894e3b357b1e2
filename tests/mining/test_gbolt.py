"""The gBolt backend: input/output formats, engine choice, and identical results to the own engine."""

from __future__ import annotations

import random

import pytest

from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.graphs.dfscode import LabeledGraph, code_text, min_dfs_code
from graphaudit.mining.engine import mine_patterns, resolve_backend
from graphaudit.mining.gbolt import (
    GBOLT_MAX_PROJECTION,
    GBoltError,
    find_gbolt,
    mine_gbolt,
    read_gbolt_output,
    write_gbolt_input,
)
from graphaudit.mining.gspan import graphs_from_graphset, mine

# fast-gspan (and with it gBolt) is a dependency on Linux x86_64 only (pyproject marker), so these comparisons
# run there, CI included; on other platforms only the own engine exists and there is nothing to compare.
needs_gbolt = pytest.mark.skipif(find_gbolt() is None, reason="fast-gspan's gBolt binary is not installed")

TRIANGLE = LabeledGraph.build([1, 0, 1], [(0, 1, 2), (1, 2, 2), (0, 2, 3)])


def test_input_format_lists_vertices_edges_and_the_terminator(tmp_path) -> None:
    path = tmp_path / "in.txt"
    write_gbolt_input([TRIANGLE, LabeledGraph.build([5, 6], [(0, 1)])], path)
    assert path.read_text().splitlines() == [
        "t # 0",
        "v 0 1",
        "v 1 0",
        "v 2 1",
        "e 0 1 2",
        "e 0 2 3",
        "e 1 2 2",
        "t # 1",
        "v 0 5",
        "v 1 6",
        "e 0 1 0",
        "t # -1",
    ]


def test_legacy_output_is_keyed_by_the_projects_minimum_code_whatever_the_vertex_order() -> None:
    # the triangle with its vertices in another order, in gBolt's legacy edge format (no code)
    text = "t # 0 * 7\nv 0 0\nv 1 1\nv 2 1\ne 0 1 2\ne 0 2 2\ne 1 2 3\n"
    assert read_gbolt_output([text]) == {code_text(min_dfs_code(TRIANGLE)): 7}


def test_extended_output_is_its_code_and_verification_rejects_a_non_minimal_one() -> None:
    code = min_dfs_code(TRIANGLE)
    lines = [f"v {i} {label}" for i, label in enumerate([1, 0, 1])]  # labels by DFS index (not needed)
    text = "t # 0 * 5\n" + "\n".join(lines + ["e " + " ".join(map(str, t)) for t in code]) + "\n"
    assert read_gbolt_output([text]) == read_gbolt_output([text], verify=True) == {code_text(code): 5}
    other = "t # 0 * 7\nv 0 1\nv 1 0\nv 2 1\ne 0 1 1 2 0\ne 1 2 0 2 1\ne 2 0 1 3 1\n"  # starts at a label-1 vertex
    with pytest.raises(GBoltError, match="minimum DFS code"):
        read_gbolt_output([other], verify=True)


def test_output_across_thread_files_and_legacy_edges() -> None:
    edge = "t # 0 * 3\nv 0 4\nv 1 4\ne 0 1 9\n"  # legacy "e u v label"
    path = "t # 0 * 2\nv 0 4\nv 1 4\nv 2 4\ne 0 1 4 9 4\ne 1 2 4 9 4\n"
    out = read_gbolt_output([edge, path])
    assert sorted(out.values()) == [2, 3] and len(out) == 2


def test_a_pattern_reported_twice_with_different_supports_is_an_error() -> None:
    text = "t # 0 * 3\nv 0 4\nv 1 4\ne 0 1 9\n"
    with pytest.raises(GBoltError, match="twice"):
        read_gbolt_output([text, text.replace("* 3", "* 4")])


def test_explicit_gbolt_refuses_a_cap_it_cannot_honour() -> None:
    with pytest.raises(GBoltError, match="compiled in"):
        resolve_backend("gbolt", None)
    assert resolve_backend("own", GBOLT_MAX_PROJECTION) == "own"
    assert resolve_backend("auto", 1000) == "own"
    with pytest.raises(ValueError, match="unknown mining backend"):
        resolve_backend("gaston", None)


def test_missing_executable_says_what_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GRAPHAUDIT_GBOLT", str(tmp_path / "nope"))
    assert find_gbolt() is None
    with pytest.raises(GBoltError, match="fast-gspan"):
        mine_gbolt([TRIANGLE])


def _random_database(seed: int) -> list[LabeledGraph]:
    rng = random.Random(seed)
    graphs = []
    for _ in range(30):
        n = rng.randint(3, 8)
        edges = {(rng.randrange(i), i) for i in range(1, n)}  # a random tree, then extra edges
        edges |= {tuple(sorted(rng.sample(range(n), 2))) for _ in range(rng.randint(0, 3))}
        graphs.append(
            LabeledGraph.build(
                [rng.randrange(3) for _ in range(n)], [(u, v, rng.randrange(2)) for u, v in sorted(edges)]
            )
        )
    return graphs


@needs_gbolt
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gbolt_equals_the_own_engine_on_random_databases(seed: int) -> None:
    graphs = _random_database(seed)
    for sigma, upper in [(0.1, 8), (0.3, 4), (0.05, 3)]:
        own = mine(graphs, sigma, upper, max_projection=GBOLT_MAX_PROJECTION)
        assert mine_gbolt(graphs, sigma, upper, verify=True) == own


@needs_gbolt
def test_gbolt_equals_the_own_engine_on_mutag(tmp_path) -> None:
    graphs, _ = obtain(get_spec("MUTAG"), tmp_path, FetchOptions(allow_download=False))
    corpus = graphs_from_graphset(graphs)
    fast = mine_patterns(corpus, 0.1, 8, backend="gbolt", threads=2)
    assert len(fast) == 634 and fast == mine_gbolt(corpus, 0.1, 8, verify=True)
    assert fast == mine_patterns(corpus, 0.1, 8, backend="own")


@needs_gbolt
def test_gbolt_equals_the_own_engine_on_ptc_mr(tmp_path, mirror) -> None:
    graphs, _ = obtain(get_spec("PTC_MR"), tmp_path, FetchOptions(mirror=mirror, allow_download=False))
    corpus = graphs_from_graphset(graphs)
    fast = mine_patterns(corpus, 0.1, 8, backend="gbolt")
    assert len(fast) == 127
    assert fast == mine_patterns(corpus, 0.1, 8, backend="own")

"""Whole-graph MMDs and WL metrics: zero on equal sets, symmetry, a hand-computed degree MMD, GRAN's formulas,
orbits against a brute-force networkx enumeration, known spectra, GraKeL's WL kernel, growth under drift."""

from __future__ import annotations

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from graphaudit.graphs import mmd
from graphaudit.graphs.dfscode import LabeledGraph
from graphaudit.graphs.mmd import MMDReference, MMDSettings, graphset_of, mmd_table

CLASSICAL = mmd.STATISTICS


def labeled(n: int, edges, labels=None) -> LabeledGraph:
    return LabeledGraph.build([0] * n if labels is None else labels, edges)


def random_graph(rng: np.random.Generator, n: int, p: float, labels: int = 3) -> LabeledGraph:
    edges = [pair for pair in itertools.combinations(range(n), 2) if rng.random() < p]
    return labeled(n, edges, rng.integers(0, labels, n).tolist())


def random_tree(rng: np.random.Generator, n: int, labels: int = 3) -> LabeledGraph:
    edges = [(int(rng.integers(0, v)), v) for v in range(1, n)]
    return labeled(n, edges, rng.integers(0, labels, n).tolist())


def to_networkx(graph: LabeledGraph) -> nx.Graph:
    result = nx.Graph()
    result.add_nodes_from(range(graph.num_nodes))
    result.add_edges_from((u, v) for u, v, _ in graph.edges)
    return result


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(7)
    graphs = [random_graph(rng, int(rng.integers(1, 11)), float(rng.uniform(0.1, 0.8))) for _ in range(40)]
    return graphs[:25], graphs[25:]


# ---- the MMD estimators ----------------------------------------------------------------------------
def test_a_set_against_itself(mixed):
    train, _ = mixed
    result = mmd_table(train, train)
    for statistic in CLASSICAL:  # biased V-statistic: 0 for equal multisets (up to rounding)
        assert result[statistic] == pytest.approx(0.0, abs=1e-12)
    m = result["n_train"]
    # unbiased WL MMD of X against X is -2 (m^2 - sum K) / (m^2 (m - 1)) = -2 train_diversity / m, below 0
    assert result["wl"] < 0
    assert result["wl"] == pytest.approx(-2 * result["train_diversity"] / m, rel=1e-12)
    assert result["coverage"] == 1.0
    assert result["diversity"] == pytest.approx(result["train_diversity"], rel=1e-12)


def test_symmetric_in_its_two_sets(mixed):
    a, b = mixed
    ab, ba = mmd_table(a, b), mmd_table(b, a)
    for key in (*CLASSICAL, "wl"):
        assert ab[key] == pytest.approx(ba[key], rel=1e-12, abs=1e-15)
    assert ab["diversity"] == pytest.approx(ba["train_diversity"], rel=1e-12)


def test_degree_mmd_by_hand():
    # pmfs of degree histograms: path P3 (0, 2/3, 1/3), edge (0, 1, 0), triangle (0, 0, 1)
    train = [labeled(3, [(0, 1), (1, 2)]), labeled(2, [(0, 1)])]
    generated = [labeled(3, [(0, 1), (1, 2), (0, 2)])]
    tv_path_edge, tv_path_triangle, tv_edge_triangle = 1 / 3, 2 / 3, 1.0

    def k(tv):
        return math.exp(-(tv**2) / 2)  # Gaussian TV kernel, sigma = 1

    within_train = (2 * k(0) + 2 * k(tv_path_edge)) / 4
    cross = (k(tv_path_triangle) + k(tv_edge_triangle)) / 2
    expected = within_train + k(0) - 2 * cross
    assert mmd_table(train, generated)["degree"] == pytest.approx(expected, rel=1e-12)


def gran_mmd(xs, ys, distance, sigma, is_hist=True):
    """GRAN's compute_mmd written out naively (pairs in Python, rows padded to a common length)."""
    if is_hist:
        xs, ys = [x / x.sum() for x in xs], [y / y.sum() for y in ys]

    def disc(a_rows, b_rows):
        total = 0.0
        for a in a_rows:
            for b in b_rows:
                width = max(len(a), len(b))
                d = distance(np.pad(a, (0, width - len(a))), np.pad(b, (0, width - len(b))))
                total += math.exp(-d * d / (2 * sigma * sigma))
        return total / (len(a_rows) * len(b_rows))

    return disc(xs, xs) + disc(ys, ys) - 2 * disc(xs, ys)


def tv(a, b):
    return np.abs(a - b).sum() / 2


def test_classical_statistics_equal_gran_written_out(mixed):
    train, generated = mixed
    ours = mmd_table(train, generated)
    a, b = [to_networkx(g) for g in train], [to_networkx(g) for g in generated]

    def degree(g):
        return np.array(nx.degree_histogram(g), dtype=float)

    def clustering(g):
        return np.histogram(list(nx.clustering(g).values()), bins=100, range=(0.0, 1.0))[0].astype(float)

    assert ours["degree"] == pytest.approx(gran_mmd(list(map(degree, a)), list(map(degree, b)), tv, 1.0), rel=1e-9)
    expected = gran_mmd(list(map(clustering, a)), list(map(clustering, b)), tv, 0.1)
    assert ours["clustering"] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    orbits_a = [mmd.orbit_features(graphset_of([g]))[0] for g in train]
    orbits_b = [mmd.orbit_features(graphset_of([g]))[0] for g in generated]
    assert ours["orbit"] == pytest.approx(gran_mmd(orbits_a, orbits_b, tv, 30.0, is_hist=False), rel=1e-9)


def test_graphrnn_kernels_use_emd_and_l2(mixed):
    train, generated = mixed
    settings = MMDSettings(kernels="graphrnn")
    ours = mmd_table(train, generated, settings)

    def emd(scale):
        return lambda p, q: wasserstein_distance(np.arange(len(p)), np.arange(len(q)), p, q) / scale

    def degree(g):
        return np.array(nx.degree_histogram(to_networkx(g)), dtype=float)

    expected = gran_mmd(list(map(degree, train)), list(map(degree, generated)), emd(1.0), 1.0)
    assert ours["degree"] == pytest.approx(expected, rel=1e-9)
    rows = (
        [mmd.orbit_features(graphset_of([g]))[0] for g in train],
        [mmd.orbit_features(graphset_of([g]))[0] for g in generated],
    )
    l2 = lambda p, q: float(np.linalg.norm(p - q))  # noqa: E731
    assert ours["orbit"] == pytest.approx(gran_mmd(*rows, l2, 30.0, is_hist=False), rel=1e-9)
    assert ours["spectral"] == mmd_table(train, generated)["spectral"]  # GraphRNN has none: GRAN's is kept
    assert (
        settings.kernel("clustering").describe() == "Gaussian EMD (ground distance |i-j|/100), sigma=0.1, pmf features"
    )
    assert MMDSettings().kernel("orbit").describe() == "Gaussian TV, sigma=30, raw features"


# ---- per-graph statistics --------------------------------------------------------------------------
def node_orbits_bruteforce(graph: nx.Graph) -> np.ndarray:
    """ORCA's orbits 0..14 per node, by testing every connected induced subgraph of 2-4 nodes."""
    counts = np.zeros((graph.number_of_nodes(), mmd.N_ORBITS), dtype=np.int64)
    for k in (2, 3, 4):
        for nodes in itertools.combinations(graph.nodes, k):
            sub = graph.subgraph(nodes)
            if not nx.is_connected(sub):
                continue
            edges, top = sub.number_of_edges(), max(d for _, d in sub.degree())
            for v in nodes:
                d = sub.degree(v)
                if k == 2:
                    orbit = 0
                elif k == 3:
                    orbit = {(2, 1): 1, (2, 2): 2, (3, 2): 3}[edges, d]
                elif edges == 3 and top == 2:  # path
                    orbit = 4 if d == 1 else 5
                elif edges == 3:  # star
                    orbit = 6 if d == 1 else 7
                elif edges == 4 and top == 2:  # cycle
                    orbit = 8
                elif edges == 4:  # paw: tail end, degree-2 triangle nodes, degree-3 node
                    orbit = {1: 9, 2: 10, 3: 11}[d]
                elif edges == 5:  # diamond
                    orbit = 12 if d == 2 else 13
                else:
                    orbit = 14
                counts[v, orbit] += 1
    return counts


def test_orbit_totals_equal_bruteforce_enumeration():
    rng = np.random.default_rng(3)
    graphs = [random_graph(rng, int(rng.integers(1, 9)), float(rng.uniform(0.1, 0.9))) for _ in range(30)]
    graphs += [labeled(4, list(itertools.combinations(range(4), 2))), labeled(3, [])]  # K4 and no edges
    ours = mmd.orbit_totals(graphset_of(graphs))
    for graph, row in zip(graphs, ours):
        np.testing.assert_array_equal(row, node_orbits_bruteforce(to_networkx(graph)).sum(axis=0))
    assert ours[-2].tolist() == [12, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]  # K4: 6 edges, 4 triangles, 1 K4


def test_degree_and_clustering_equal_networkx(mixed):
    graphs = mixed[0] + mixed[1]
    gs = graphset_of(graphs)
    degrees, coefficients = mmd.degree_histograms(gs), mmd.clustering_coefficients(gs)
    for g, graph in enumerate(graphs):
        expected = nx.degree_histogram(to_networkx(graph))
        assert degrees[g, : len(expected)].tolist() == expected and not degrees[g, len(expected) :].any()
        lo = gs.node_ptr[g]
        clustering = nx.clustering(to_networkx(graph))
        assert coefficients[lo : lo + graph.num_nodes].tolist() == [clustering[v] for v in range(graph.num_nodes)]


def test_cycle_and_star_spectra():
    cycle = labeled(6, [(i, (i + 1) % 6) for i in range(6)])
    star = labeled(4, [(0, 1), (0, 2), (0, 3)])
    with_isolated = labeled(3, [(0, 1)])
    spectra = mmd.normalized_laplacian_spectra(graphset_of([cycle, star, with_isolated]))
    np.testing.assert_allclose(spectra[0], np.sort(1 - np.cos(2 * np.pi * np.arange(6) / 6)), atol=1e-12)
    np.testing.assert_allclose(spectra[1], [0, 1, 1, 2], atol=1e-12)
    np.testing.assert_allclose(spectra[2], [0, 0, 2], atol=1e-12)  # networkx: an isolated node gives 0
    histogram = mmd.spectral_histograms(graphset_of([cycle]))[0]
    expected = np.histogram(np.clip(spectra[0], 0, 2), bins=200, range=(-1e-5, 2))[0]
    assert histogram.tolist() == expected.tolist() and histogram[-1] == 1  # the eigenvalue 2 is in the last bin


def test_binned_counts_equal_numpy_histogram_and_keep_the_edge():
    rng = np.random.default_rng(0)
    edges = np.linspace(0.0, 1.0, 11)
    values = np.concatenate([rng.uniform(0, 1, 200), edges, [1 + 1e-13, -1e-13, 1.5, -0.5]])
    owner = rng.integers(0, 3, len(values))
    ours = mmd.binned_counts(values, owner, 3, 10, 0.0, 1.0)
    for g in range(3):
        mine = values[owner == g]
        expected = np.histogram(np.clip(mine[(mine > -1e-9) & (mine < 1 + 1e-9)], 0, 1), bins=10, range=(0, 1))[0]
        assert ours[g].tolist() == expected.tolist()
    assert ours.sum() == len(values) - 2  # only 1.5 and -0.5 fall outside


# ---- WL metrics ------------------------------------------------------------------------------------
def grakel_graphs(graphs):
    from grakel import Graph

    converted = []
    for graph in graphs:
        adjacency = {v: [] for v in range(graph.num_nodes)}
        for u, v, _ in graph.edges:
            adjacency[u].append(v)
            adjacency[v].append(u)
        converted.append(Graph(adjacency, node_labels=dict(enumerate(graph.node_labels)), graph_format="all"))
    return converted


@pytest.mark.parametrize("iterations", [1, 3])
def test_wl_metrics_from_grakel_kernel(mixed, iterations):
    from grakel.kernels import VertexHistogram, WeisfeilerLehman

    train, generated = mixed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = WeisfeilerLehman(n_iter=iterations, base_graph_kernel=VertexHistogram, normalize=True)
        kernel = model.fit_transform(grakel_graphs(train + generated))
    m, n = len(train), len(generated)
    tt, gg, tg = kernel[:m, :m], kernel[m:, m:], kernel[:m, m:]
    off = ~np.eye(m, dtype=bool), ~np.eye(n, dtype=bool)
    wl = tt[off[0]].mean() + gg[off[1]].mean() - 2 * tg.mean()
    distance = np.sqrt(np.maximum(0, 2 - 2 * kernel))
    radius = np.sort(np.where(off[0], distance[:m, :m], np.inf), axis=1)[:, 4]  # 5th nearest other training graph
    coverage = (distance[:m, m:].min(axis=1) <= radius + 1e-9).mean()
    ours = mmd_table(train, generated, MMDSettings(wl_iterations=iterations))
    assert ours["wl"] == pytest.approx(wl, abs=1e-12)
    assert ours["coverage"] == pytest.approx(coverage)
    assert ours["diversity"] == pytest.approx(1 - gg[off[1]].mean(), abs=1e-12)
    assert ours["train_diversity"] == pytest.approx(1 - tt[off[0]].mean(), abs=1e-12)


def test_wl_uses_labels_and_the_classical_statistics_do_not():
    rng = np.random.default_rng(5)
    train = [random_tree(rng, 8, labels=2) for _ in range(20)]
    relabelled = [LabeledGraph.build([9] * g.num_nodes, g.edges) for g in train]
    result = mmd_table(train, relabelled)
    for statistic in CLASSICAL:
        assert result[statistic] == pytest.approx(0.0, abs=1e-12)
    assert result["wl"] > 0.5 and result["coverage"] == 0.0
    unlabelled = mmd_table(train, relabelled, MMDSettings(use_node_labels=False))
    assert unlabelled["wl"] < 0 and unlabelled["coverage"] == 1.0


def test_metrics_grow_as_the_generated_set_drifts_from_trees():
    rng = np.random.default_rng(11)
    train = [random_tree(rng, int(rng.integers(8, 16))) for _ in range(60)]
    fresh_trees = [random_tree(rng, int(rng.integers(8, 16))) for _ in range(40)]
    dense = [random_graph(rng, int(rng.integers(8, 16)), 0.35) for _ in range(40)]
    reference = MMDReference(train)
    results = [reference.table(fresh_trees[: 40 - k] + dense[:k]) for k in (0, 20, 40)]
    for key in (*CLASSICAL, "wl"):
        values = [r[key] for r in results]
        assert values[0] < values[1] < values[2], (key, values)
    assert results[0]["clustering"] < 1e-3 < results[2]["clustering"]  # trees have no triangles
    coverages = [r["coverage"] for r in results]
    assert coverages[0] >= coverages[1] >= coverages[2]


# ---- inputs ----------------------------------------------------------------------------------------
def test_empty_graphs_are_dropped_and_results_are_deterministic(mixed):
    train, generated = mixed
    reference = MMDReference(train)
    plain = reference.table(generated)
    with_empty = reference.table([*generated, LabeledGraph.build([], [])])
    assert with_empty == plain and plain["n_generated"] == len(generated)
    assert MMDReference(train).table(generated) == plain
    nothing = reference.table([LabeledGraph.build([], [])])
    assert nothing["n_generated"] == 0 and all(math.isnan(nothing[k]) for k in (*CLASSICAL, *mmd.WL_KEYS))
    with pytest.raises(ValueError, match="at least one training graph"):
        MMDReference([LabeledGraph.build([], [])])


def test_a_wider_generated_degree_range_is_padded():
    train = [labeled(3, [(0, 1), (1, 2)])] * 3
    hub = [labeled(7, [(0, v) for v in range(1, 7)])]
    expected = gran_mmd(
        [np.array(nx.degree_histogram(to_networkx(g)), dtype=float) for g in train],
        [np.array(nx.degree_histogram(to_networkx(g)), dtype=float) for g in hub],
        tv,
        1.0,
    )
    assert mmd_table(train, hub)["degree"] == pytest.approx(expected, rel=1e-12)
    assert mmd_table(hub * 2, train)["degree"] == pytest.approx(expected, rel=1e-12)

"""RRWP (GRIT's ``add_full_rrwp``, CKGConv's ``add_full_rrwp_new``): hand-computed walks on small graphs, a float64
matrix-power oracle on random graphs, each code's channel counts and pair layout, and the batched product equal to
the per-graph one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphaudit.nn.rrwp import channel_counts, rrwp, rrwp_batch


def _undirected(pairs: list[tuple[int, int]]) -> torch.Tensor:
    return torch.tensor([[a for a, b in pairs] + [b for a, b in pairs], [b for a, b in pairs] + [a for a, b in pairs]])


PATH3 = _undirected([(0, 1), (1, 2)])


def test_the_path_on_three_nodes_has_its_hand_computed_walks() -> None:
    # P = [[0, 1, 0], [1/2, 0, 1/2], [0, 1, 0]], P^2 = [[1/2, 0, 1/2], [0, 1, 0], [1/2, 0, 1/2]]
    out = rrwp(PATH3, 3, steps=3)
    assert out.abs_pe.tolist() == [[1.0, 0.0, 0.5], [1.0, 0.0, 1.0], [1.0, 0.0, 0.5]]
    assert out.degree.tolist() == [1.0, 2.0, 1.0]
    values = {(int(j), int(i)): v.tolist() for (j, i), v in zip(out.rel_index.t(), out.rel_val)}
    assert values[(1, 0)] == [0.0, 1.0, 0.0]  # stored as j -> i with P^k[i, j]: node 0 walks to 1 surely
    assert values[(0, 1)] == [0.0, 0.5, 0.0]  # node 1 walks to 0 with 1/2
    assert values[(2, 0)] == [0.0, 0.0, 0.5]  # two steps from 0 reach 2 with 1/2
    assert len(values) == 9  # every pair is reached within two steps


def test_pairs_are_stored_column_first_in_row_major_order() -> None:
    out = rrwp(PATH3, 3, steps=2)  # [I, P]: (0, 2) and (2, 0) have no nonzero channel
    rows = out.rel_index[1].tolist()
    cols = out.rel_index[0].tolist()
    assert list(zip(rows, cols)) == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2)]


def test_an_isolated_node_keeps_only_its_identity_channel() -> None:
    out = rrwp(torch.tensor([[0, 1], [1, 0]]), 3, steps=4)
    assert out.abs_pe[2].tolist() == [1.0, 0.0, 0.0, 0.0] and out.degree[2] == 0
    pairs = {(int(j), int(i)) for j, i in out.rel_index.t()}
    assert (2, 2) in pairs and not {(2, 0), (0, 2), (2, 1), (1, 2)} & pairs
    assert out.abs_pe[0].tolist() == [1.0, 0.0, 1.0, 0.0]  # a single edge returns every second step


@pytest.mark.parametrize(
    ("variant", "steps", "identity", "expected"),
    [
        ("grit", 21, True, (21, 21)),  # the released PATTERN configuration: I, P, ..., P^20
        ("grit", 8, False, (8, 8)),
        ("grit", 1, True, (2, 2)),  # the loop after P runs only for steps > 2
        ("grit", 2, True, (2, 2)),
        ("grit", 2, False, (1, 1)),
        ("ckgconv", 21, True, (22, 21)),  # I, P, ..., P^21; the nodes drop I
        ("ckgconv", 21, False, (22, 21)),  # add_identity is not read
        ("ckgconv", 2, True, (2, 1)),
        ("ckgconv", 3, True, (4, 3)),
    ],
)
def test_channel_counts_follow_each_codes_loop(variant: str, steps: int, identity: bool, expected: tuple) -> None:
    assert channel_counts(steps, identity, variant) == expected
    out = rrwp(PATH3, 3, steps=steps, add_identity=identity, variant=variant)
    assert (out.rel_val.shape[1], out.abs_pe.shape[1]) == expected


def test_ckgconv_node_channels_are_the_return_probabilities_from_one_step() -> None:
    out = rrwp(PATH3, 3, steps=3, variant="ckgconv")  # P, P^2, P^3 on the diagonal
    assert out.abs_pe.tolist() == [[0.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.0]]
    grit = rrwp(PATH3, 3, steps=4, variant="grit")  # the same four pair channels I, P, P^2, P^3
    assert torch.equal(out.rel_val, grit.rel_val) and torch.equal(out.rel_index, grit.rel_index)


def test_no_step_or_an_unknown_variant_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="at least one step"):
        rrwp(PATH3, 3, steps=0)
    with pytest.raises(ValueError, match="unknown RRWP variant 'gps'; variants are grit, ckgconv"):
        rrwp(PATH3, 3, variant="gps")


def _random_graph(rng: np.random.Generator, n: int) -> torch.Tensor:
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.25]
    return _undirected(pairs) if pairs else torch.zeros(2, 0, dtype=torch.long)


def _oracle(edge_index: torch.Tensor, n: int, steps: int) -> np.ndarray:
    """(n, n, steps) float64 [I, P, ..., P^(steps-1)] by numpy matrix powers."""
    adjacency = np.zeros((n, n))
    np.add.at(adjacency, (edge_index[0].numpy(), edge_index[1].numpy()), 1.0)
    degree = adjacency.sum(axis=1)
    walk = np.divide(adjacency, degree[:, None], out=np.zeros_like(adjacency), where=degree[:, None] > 0)
    return np.stack([np.linalg.matrix_power(walk, k) for k in range(steps)], axis=-1)


def test_random_graphs_match_float64_matrix_powers() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 5, 12, 30):
        edge_index = _random_graph(rng, n)
        expected = _oracle(edge_index, n, 21)
        out = rrwp(edge_index, n, steps=21)
        dense = np.zeros((n, n, 21))
        dense[out.rel_index[1].numpy(), out.rel_index[0].numpy()] = out.rel_val.numpy()
        np.testing.assert_allclose(dense, expected, atol=1e-6)
        np.testing.assert_allclose(out.abs_pe.numpy(), np.einsum("iik->ik", expected), atol=1e-6)
        assert len(out.rel_val) == int((np.abs(expected).sum(axis=-1) > 0).sum())


def test_a_padded_batch_gives_each_graphs_own_encoding() -> None:
    rng = np.random.default_rng(3)
    graphs = [(_random_graph(rng, n), n) for n in (4, 9, 1, 17)]
    for (edge_index, n), batched in zip(graphs, rrwp_batch(graphs, steps=21, variant="ckgconv")):
        alone = rrwp(edge_index, n, steps=21, variant="ckgconv")
        assert torch.equal(batched.rel_index, alone.rel_index) and torch.equal(batched.degree, alone.degree)
        torch.testing.assert_close(batched.rel_val, alone.rel_val, rtol=1e-5, atol=1e-7)
        torch.testing.assert_close(batched.abs_pe, alone.abs_pe, rtol=1e-5, atol=1e-7)
    assert rrwp_batch([]) == []

"""Packed streams: the hand-laid stream, every epoch holding every sequence once, full blocks addressed by index
(a resumed run reads the same blocks), and the token budget in steps with its evenly spaced checkpoints."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphaudit.nn.packing import PackedStream, checkpoint_steps, steps_for_budget

SEP = 0


def test_the_stream_opens_with_the_separator_and_closes_each_sequence_with_it() -> None:
    stream = PackedStream([[5, 6], [7]], SEP, block=3, seed=1)
    assert stream.epoch_tokens == 5
    first, second = ([5, 6, 0, 7, 0] if order[0] == 0 else [7, 0, 5, 6, 0] for order in map(stream.order, (0, 1)))
    assert stream.tokens(0, 11).tolist() == [0, *first, *second]
    blocks = np.array([0, *first, *second, *stream.tokens(11, 12)]).reshape(4, 3)
    assert stream.blocks(0, 4).tolist() == blocks.tolist()  # epoch 1 runs into epoch 2 without a gap


def _epochs(stream: PackedStream, epochs: int) -> list[list[tuple[int, ...]]]:
    """The stream split at its separators, epoch by epoch."""
    tokens = stream.tokens(1, 1 + epochs * stream.epoch_tokens).tolist()
    sequences, current = [], []
    for token in tokens:
        if token == SEP:
            sequences.append(tuple(current))
            current = []
        else:
            current.append(token)
    per_epoch = len(sequences) // epochs
    return [sequences[e * per_epoch : (e + 1) * per_epoch] for e in range(epochs)]


def test_every_epoch_holds_every_sequence_once_in_its_own_order() -> None:
    rng = np.random.default_rng(0)
    sequences = [tuple(int(t) for t in rng.integers(4, 40, size=rng.integers(1, 9))) for _ in range(30)]
    stream = PackedStream(sequences, SEP, block=16, seed=7)
    epochs = _epochs(stream, 3)
    assert all(sorted(epoch) == sorted(sequences) for epoch in epochs)
    assert epochs[0] != epochs[1] and epochs[0] == [sequences[i] for i in stream.order(0)]


def test_blocks_are_full_and_addressed_by_index_alone() -> None:
    stream = PackedStream([[4, 5, 6], [7], [8, 9]], SEP, block=4, seed=3)
    run = stream.blocks(0, 10)
    assert run.shape == (10, 4) and run.dtype == np.int64
    resumed = PackedStream([[4, 5, 6], [7], [8, 9]], SEP, block=4, seed=3).blocks(6, 4)
    assert np.array_equal(resumed, run[6:])
    assert np.array_equal(run.reshape(-1), stream.tokens(0, 40))
    assert stream.blocks(2, 0).shape == (0, 4)


def test_bad_streams_and_budgets_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="at least one training sequence"):
        PackedStream([], SEP, block=4, seed=0)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        PackedStream([[4]], SEP, block=1, seed=0)
    with pytest.raises(ValueError, match="non-negative"):
        PackedStream([[4]], SEP, block=2, seed=0).blocks(-1, 2)
    with pytest.raises(ValueError, match="must be positive"):
        steps_for_budget(0, 16, 512)
    with pytest.raises(ValueError, match="20 checkpoints need at least as many steps"):
        checkpoint_steps(19, 20)


def test_the_papers_budget_in_steps_and_its_twenty_checkpoints() -> None:
    steps = steps_for_budget(80_000_000, 16, 512)
    assert steps == 9766  # 80M / 8,192 tokens per step, rounded up
    marks = checkpoint_steps(steps, 20)
    assert len(marks) == 20 and marks[-1] == steps and marks[0] == 488
    assert all(b > a for a, b in itertools.pairwise(marks))
    assert checkpoint_steps(100, 20) == list(range(5, 101, 5))

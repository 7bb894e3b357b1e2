"""Packed training streams for causal language models (the graph language models): no step is spent on padding.

The paper trains each model for 80M non-padding tokens (spec 5.2); a padded batch of short DFS / DGMG
sequences would spend most of its positions on ``<pad>``, so the sequences are packed instead. The stream is
``<s>`` followed, epoch after epoch, by every training sequence of the epoch (a seeded permutation per epoch)
each closed by ``<s>`` (graphlm's opener and closer, :mod:`graphaudit.graphlm.tokenizer`):

    <s> s_a <s> s_b <s> ... <s> s_c <s> ...   (epoch 0 in its order, then epoch 1 in its order, ...)

and training block ``k`` is positions ``[k L, (k + 1) L)`` of that endless stream. A block is addressed by its
index alone, so a resumed run continues with the next block, bit for bit, and a token budget is a number of
blocks: ``ceil(budget / (batch L))`` steps of ``batch`` blocks, every position a real token.

The packing is causal, with no per-sequence attention mask: inside a block a token attends to every earlier
token of the block, the tail of the previous sequence included, as TRL's ``ConstantLengthDataset`` packs (the
``packing=True`` of the ``SFTTrainer`` the paper ran). The ``<s>`` between sequences is what the model learns to
restart after; sampling starts from ``<s>`` alone, a sequence's context at the head of a block.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from graphaudit.common.seeds import rng_for

__all__ = ["PackedStream", "checkpoint_steps", "snapshot_name", "steps_for_budget"]


class PackedStream:
    """The endless packed stream of ``sequences`` (token ids without specials), ``separator`` the ``<s>`` id,
    cut into blocks of ``block`` tokens; epoch orders drawn from ``seed``."""

    def __init__(self, sequences: Sequence[Sequence[int]], separator: int, block: int, seed: int) -> None:
        if not sequences:
            raise ValueError("a packed stream needs at least one training sequence")
        if block < 2:
            raise ValueError(f"a block holds at least 2 tokens, got {block}")
        self._sequences = [np.asarray(s, dtype=np.int64) for s in sequences]
        self.separator, self.block, self.seed = separator, block, seed
        self.epoch_tokens = sum(len(s) + 1 for s in self._sequences)
        self._cached: tuple[int, np.ndarray] | None = None  # the last epoch read, flattened

    def order(self, epoch: int) -> np.ndarray:
        """The sequence order of ``epoch`` (a permutation from the stream's seed and the epoch)."""
        return rng_for("nn.packing", self.seed, epoch).permutation(len(self._sequences))

    def _epoch(self, epoch: int) -> np.ndarray:
        if self._cached is None or self._cached[0] != epoch:
            sep = np.array([self.separator], dtype=np.int64)
            parts = [part for i in self.order(epoch) for part in (self._sequences[i], sep)]
            self._cached = (epoch, np.concatenate(parts))
        return self._cached[1]

    def tokens(self, start: int, stop: int) -> np.ndarray:
        """Stream positions ``[start, stop)``: position 0 is the opening ``<s>``."""
        out = []
        if start == 0 and stop > 0:
            out.append(np.array([self.separator], dtype=np.int64))
            start = 1
        position = start
        while position < stop:
            epoch, offset = divmod(position - 1, self.epoch_tokens)
            piece = self._epoch(epoch)[offset : offset + stop - position]
            out.append(piece)
            position += len(piece)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def blocks(self, first: int, count: int) -> np.ndarray:
        """Blocks ``first .. first + count - 1`` as a (count, block) int64 array."""
        if first < 0 or count < 0:
            raise ValueError(f"block indices are non-negative, got first={first}, count={count}")
        return self.tokens(first * self.block, (first + count) * self.block).reshape(count, self.block)


def steps_for_budget(tokens: int, batch: int, block: int) -> int:
    """Optimizer steps of ``batch`` packed blocks of ``block`` tokens that reach a budget of ``tokens``."""
    if tokens < 1 or batch < 1 or block < 1:
        raise ValueError(f"tokens, batch and block must be positive, got {tokens}, {batch}, {block}")
    return math.ceil(tokens / (batch * block))


def checkpoint_steps(steps: int, checkpoints: int) -> list[int]:
    """``checkpoints`` evenly spaced steps ending at the last one (the paper's 20 checkpoints per run)."""
    if checkpoints < 1 or steps < checkpoints:
        raise ValueError(f"{checkpoints} checkpoints need at least as many steps, got {steps}")
    return [round(k * steps / checkpoints) for k in range(1, checkpoints + 1)]


def snapshot_name(index: int) -> str:
    """The file name of snapshot ``index`` (1-based) of a run (one per :func:`checkpoint_steps` step)."""
    return f"checkpoint_{index:02d}.safetensors"

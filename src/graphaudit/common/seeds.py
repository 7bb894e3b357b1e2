"""Stable seeds derived from named parts, never from Python's salted ``hash()``."""

from __future__ import annotations

import hashlib

import numpy as np

_SEED_BYTES = 8


def stable_seed(*parts: object) -> int:
    """Return a 63-bit seed from the SHA-256 of the parts' text, e.g. (study, dataset, model, seed, stage).

    The same parts give the same seed on every machine and Python version.
    """
    if not parts:
        raise ValueError("stable_seed needs at least one named part (study, dataset, stage, ...)")
    text = "\x1f".join(repr(p) if not isinstance(p, str) else p for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:_SEED_BYTES], "big") >> 1


def rng_for(*parts: object) -> np.random.Generator:
    """Return a numpy Generator seeded by :func:`stable_seed` of the parts."""
    return np.random.default_rng(stable_seed(*parts))

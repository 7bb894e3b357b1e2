"""Stable seeds derived from named parts, never from Python's salted ``hash()``."""

from __future__ import annotations

import hashlib
import json

import numpy as np

_SEED_BYTES = 8


def stable_seed(*parts: object) -> int:
    """Return a 63-bit seed from the SHA-256 of the parts, e.g. (study, dataset, model, seed, stage).

    The parts are written as a compact JSON list, so types and boundaries count (``0`` differs from
    ``"0"``, and ``("a", "b")`` from ``("a,b",)``); numpy scalars count as the Python numbers they hold.
    The same parts give the same seed on every machine and Python version.
    """
    if not parts:
        raise ValueError("stable_seed needs at least one named part (study, dataset, stage, ...)")
    plain = [p.item() if isinstance(p, np.generic) else p for p in parts]
    text = json.dumps(plain, separators=(",", ":"), ensure_ascii=True, default=repr)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:_SEED_BYTES], "big") >> 1


def rng_for(*parts: object) -> np.random.Generator:
    """Return a numpy Generator seeded by :func:`stable_seed` of the parts."""
    return np.random.default_rng(stable_seed(*parts))

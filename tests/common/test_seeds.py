"""stable_seed / rng_for: deterministic, salt-free, order-sensitive 63-bit seeds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.common.seeds import rng_for, stable_seed

# Pins the hashing scheme (SHA-256 of the parts as a compact JSON list, first 8 bytes big-endian, >> 1).
# Computed once with the current code; if this test fails, every stored seed of every study changes.
GOLDEN_PATTERN_SEED = 6709240198945133866

parts_strategy = st.lists(st.one_of(st.text(max_size=20), st.integers(), st.booleans()), min_size=1, max_size=5)


def test_golden_value_pins_the_scheme() -> None:
    assert stable_seed("pattern", "PATTERN", 0, "generate") == GOLDEN_PATTERN_SEED


def test_golden_value_matches_the_documented_recipe() -> None:
    digest = hashlib.sha256(b'["pattern","PATTERN",0,"generate"]').digest()
    assert GOLDEN_PATTERN_SEED == int.from_bytes(digest[:8], "big") >> 1


def test_empty_parts_raise() -> None:
    with pytest.raises(ValueError):
        stable_seed()
    with pytest.raises(ValueError):
        rng_for()


@settings(max_examples=100, deadline=None)
@given(parts_strategy)
def test_deterministic_and_in_range(parts: list[object]) -> None:
    seed = stable_seed(*parts)
    assert seed == stable_seed(*parts)
    assert isinstance(seed, int)
    assert 0 <= seed < 2**63


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcxyz0123", min_size=1, max_size=6), min_size=2, max_size=4, unique=True))
def test_order_matters(parts: list[str]) -> None:
    assert stable_seed(*parts) != stable_seed(*reversed(parts))


def test_different_parts_give_different_seeds() -> None:
    seeds = {stable_seed("pattern", "PATTERN", seed, stage) for seed in range(5) for stage in ("generate", "train")}
    assert len(seeds) == 10
    assert stable_seed("a") != stable_seed("b")
    assert stable_seed("a", "b") != stable_seed("ab")
    assert stable_seed("a") != stable_seed("a", "a")
    assert stable_seed("a", 0) != stable_seed("a", "0")
    assert stable_seed("a\x1fb") != stable_seed("a", "b")
    assert stable_seed("a", np.int64(3)) == stable_seed("a", 3)


def test_independent_of_pythonhashseed() -> None:
    code = (
        "import sys; from graphaudit.common.seeds import stable_seed; "
        "print(stable_seed('pattern', 'PATTERN', 0, 'generate'), stable_seed('x', 1.5, None, ('t', 2)), "
        "hash('salted'))"
    )
    outputs = []
    for hash_seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.append(result.stdout.split())
    # the salted builtin hash really differs between the two interpreters ...
    assert outputs[0][2] != outputs[1][2]
    # ... while the stable seeds do not, and equal this process's values
    assert outputs[0][:2] == outputs[1][:2]
    assert outputs[0][0] == str(GOLDEN_PATTERN_SEED)
    assert outputs[0][1] == str(stable_seed("x", 1.5, None, ("t", 2)))


def test_rng_for_identical_parts_give_identical_streams() -> None:
    a = rng_for("glad", "AIDS", 3, "split").random(50)
    b = rng_for("glad", "AIDS", 3, "split").random(50)
    np.testing.assert_array_equal(a, b)
    c = rng_for("glad", "AIDS", 4, "split").random(50)
    assert not np.array_equal(a, c)


def test_rng_for_is_seeded_by_stable_seed() -> None:
    expected = np.random.default_rng(GOLDEN_PATTERN_SEED).integers(0, 1_000_000, size=10)
    got = rng_for("pattern", "PATTERN", 0, "generate").integers(0, 1_000_000, size=10)
    np.testing.assert_array_equal(got, expected)

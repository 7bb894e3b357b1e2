"""MolSwap's designs (spec ``glad.md`` 4.15, paper Appendix D.3-D.5, Tables 12-13): the design space (families, k,
pools), a design (:class:`Candidate`), Table 13's 26 candidates, the frozen MS-v2 types, v1's types, and the sets
the workflow generates and validates. The edits themselves are :mod:`graphaudit.glad.molswap`.

- The 26 candidates: iteration 1 is A-D with k in {1, 2, all} on P0 and k in {1, 2} on P56 (20), iteration
  2 is E and F with k in {1, 2, all} on P0 (6). Priority order A-F; a tie between pools goes to P0.
- v1: v1-MS1 = A, v1-MS2 = D, v1-MS3 = S, each with k = 1 on P0.

``workflow/rules/glad_typed.smk`` imports this module while Snakemake parses the workflow (every ``snakemake`` call,
twice in every cluster job), so it imports nothing beyond the standard library (tests/common/test_workflow.py checks
that the glad parse modules load none of the numerical stack).
"""

from __future__ import annotations

from dataclasses import dataclass

K = int | str

DATASET = "NCI1"
FAMILIES = ("A", "B", "C", "D", "E", "F")
"""The MS-v2 candidate families, also their priority order for MS1-MS3."""
CHAIN_STAR = "S"
"""v1-MS3's family (not an MS-v2 candidate)."""
K_CHOICES: tuple[K, ...] = (1, 2, "all")
POOLS = ("P0", "P56")
MS_V2, V1 = "MS-v2", "v1"
"""MolSwap's two generations: the groups of the validated types, the generator of the MS-v2 rows of the tables."""


@dataclass(frozen=True)
class Candidate:
    """One design: a family with up to k swaps per parent on a pool."""

    family: str
    k: K
    pool: str = "P0"

    @property
    def name(self) -> str:
        return f"{self.family}/k{self.k}/{self.pool}"

    @property
    def k_rank(self) -> int:
        """1 < 2 < all."""
        return K_CHOICES.index(self.k)


ITERATION_1_P56_K: tuple[K, ...] = (1, 2)
ITERATION_1 = tuple(Candidate(f, k, "P0") for f in "ABCD" for k in K_CHOICES) + tuple(
    Candidate(f, k, "P56") for f in "ABCD" for k in ITERATION_1_P56_K
)
ITERATION_2 = tuple(Candidate(f, k, "P0") for f in "EF" for k in K_CHOICES)
CANDIDATES = ITERATION_1 + ITERATION_2
"""Table 13's 26 design candidates."""
FINAL_TYPES = {"MS1": Candidate("C", 1), "MS2": Candidate("D", 2), "MS3": Candidate("F", 1)}
"""The frozen MS-v2 types (the selection rule's outcome in the paper)."""
V1_TYPES = {"v1-MS1": Candidate("A", 1), "v1-MS2": Candidate("D", 1), "v1-MS3": Candidate(CHAIN_STAR, 1)}
"""MolSwap v1 (retired, Table 12)."""


def candidate_named(name: str) -> Candidate:
    """The candidate of :attr:`Candidate.name` (``"C/k1/P0"``)."""
    family, k, pool = name.split("/")
    if not k.startswith("k"):
        raise ValueError(f"{name!r} is not a candidate name like 'C/k1/P0'")
    return candidate_of(family, k[1:], pool)


def candidate_of(family: str, k: str, pool: str) -> Candidate:
    """The candidate of path wildcards (``k`` as written in a path: ``1``, ``2`` or ``all``)."""
    return Candidate(family, int(k) if k.isdigit() else k, pool)


def molswap_sets() -> tuple[Candidate, ...]:
    """Every MolSwap set the workflow generates: Table 13's 26 candidates, then the v1 types that are none of them
    (v1-MS1 is A/k1 and v1-MS2 D/k1 on P0; v1-MS3, the chain-to-star edit, is not a candidate)."""
    extra = tuple(c for c in V1_TYPES.values() if c not in CANDIDATES)
    return CANDIDATES + extra


def validated_types() -> list[tuple[str, str, Candidate]]:
    """(group, type, candidate) of every type the validation checks: MS-v2's final types, then v1's."""
    return [(MS_V2, n, c) for n, c in FINAL_TYPES.items()] + [(V1, n, c) for n, c in V1_TYPES.items()]

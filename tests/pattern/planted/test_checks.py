"""Generator checks (Appendix A): the pattern-host join rate and the analytic chance-copy numbers."""

from __future__ import annotations

import pytest

from graphaudit.pattern.planted.checks import chance_copies, mean_host_density, pattern_host_rate, same_block_share
from graphaudit.pattern.planted.generator import draw_library, law_for, official_split


@pytest.fixture(scope="module")
def official():
    law = law_for()
    library = draw_library(law, 5, seed=7)
    return law, library, official_split(library, law, "test", 20, seed=7)


def test_pattern_host_rate_is_the_join_probability(official) -> None:
    _, _, (graphs, _) = official
    assert pattern_host_rate(graphs) == pytest.approx(0.5, abs=0.01)


def test_appendix_a_analytic_numbers() -> None:
    law = law_for()
    assert same_block_share(law) == pytest.approx(0.2227, abs=1e-4)
    assert mean_host_density(law) == pytest.approx(0.3834, abs=1e-4)
    # the paper's rounded inputs (s = 0.22 -> p-bar = 0.38, N = 97.5) give 6.1 and 1.5e-8 (spec, Table 6 notes)
    rounded = law_for()
    assert chance_copies(5, rounded) == pytest.approx(2.4e4, rel=0.05)
    assert chance_copies(6, rounded) == pytest.approx(2.0e4, rel=0.05)
    assert 6.1 / 1.5 < chance_copies(10, law) < 7 * 1.5 and 1.5e-8 / 1.5 < chance_copies(14, law) < 2e-8 * 1.5

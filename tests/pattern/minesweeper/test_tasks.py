"""Minesweeper's rule entries: a strip chain's parts."""

from graphaudit.pattern.minesweeper.tasks import strip_parts
from graphaudit.pattern.settings import StripChain


def test_strip_parts() -> None:
    assert strip_parts(StripChain(sweeps=12000, sweeps_per_part=2000, burn_in=200)) == 6
    assert strip_parts(StripChain(sweeps=2001, sweeps_per_part=1000, burn_in=200)) == 3

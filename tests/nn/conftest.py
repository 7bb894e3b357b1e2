"""Fixtures of the nn tests: UB-GOLD's verified tree (from the data mirror) and its activation on CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphaudit.data.code import get_code_spec, obtain_code
from graphaudit.data.fetch import FetchOptions
from graphaudit.nn.ubgold import detectors as ubgold


@pytest.fixture(scope="session")
def ubgold_tree(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = get_code_spec("UB-GOLD-c940457")
    return obtain_code(spec, tmp_path_factory.mktemp("code"), FetchOptions(mirror=str(mirror), allow_download=False))


@pytest.fixture
def active(ubgold_tree: Path) -> Path:
    ubgold.prepare(ubgold_tree, "cpu")
    return ubgold_tree

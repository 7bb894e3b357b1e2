"""Fixtures of the fault-injection tests: one uninterrupted toy run, trained once, to compare against and copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fault_toys import config, ocgin, toy_graphs

from graphaudit.nn import train


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the toy run trained for its whole budget without interruption (read only)."""
    run_dir = tmp_path_factory.mktemp("reference") / "run"
    train(ocgin, toy_graphs(), config(), run_dir)
    return run_dir


@pytest.fixture
def finished(reference: Path, tmp_path: Path) -> Path:
    """A copy of the reference run in this test's folder, to damage."""
    return Path(shutil.copytree(reference, tmp_path / "run"))

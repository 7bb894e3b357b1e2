"""Shared fixtures: the data mirror (``GRAPHAUDIT_DATA_MIRROR``), small TU archives, the headless-browser check and
the ``graphaudit`` logger restored after a test."""

from __future__ import annotations

import logging
import os
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch

from headless import find_chromium, page_problems

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline data mirror; tests that need it skip when it is not set (deliberate: a developer without
    ../shared still runs everything else; CI always sets it)."""
    value = os.environ.get("GRAPHAUDIT_DATA_MIRROR")
    if not value or not Path(value).is_dir():
        pytest.skip("GRAPHAUDIT_DATA_MIRROR is not set to a folder (CI sets it to ../shared/data)")
    return Path(value)


@pytest.fixture(scope="session")
def headless_page_problems() -> Callable[[Path], list[str]]:
    """``headless_page_problems(page)``: what is broken in an HTML page rendered by headless Chromium (see
    ``tests/headless.py``); tests that need it skip when no Chromium is installed."""
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium); the browser check needs it")
    return lambda page: page_problems(chromium, page)


# A two-graph TU set: graph 1 is a triangle (nodes 1-3), graph 2 a path 4-5; one edge listed twice.
TINY_TU = {
    "A": "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n5, 4\n",
    "graph_indicator": "1\n1\n1\n2\n2\n",
    "graph_labels": "-1\n1\n",
    "node_labels": "0\n1\n1\n2\n0\n",
    "edge_labels": "7\n7\n8\n8\n9\n9\n5\n5\n",
    "node_attributes": "0.5, 1.0\n0.0, 0.0\n1.5, 2.0\n3.0, 3.0\n-1.0, 0.25\n",
}


def _write_tu_zip(path: Path, name: str, parts: dict[str, str] | None = None, prefix: str | None = None) -> Path:
    prefix = f"{name}/" if prefix is None else prefix
    with zipfile.ZipFile(path, "w") as archive:
        for part, text in (TINY_TU if parts is None else parts).items():
            archive.writestr(f"{prefix}{name}_{part}.txt", text)
    return path


@pytest.fixture
def write_tu_zip():
    """``write_tu_zip(path, name, parts=TINY_TU, prefix=f"{name}/")`` writes a TU-layout zip."""
    return _write_tu_zip


@pytest.fixture
def tiny_tu() -> dict[str, str]:
    """The text of each file of the tiny two-graph TU set (copy; tests may edit it)."""
    return dict(TINY_TU)


@pytest.fixture
def graphaudit_logger() -> Iterator[logging.Logger]:
    """The ``graphaudit`` logger, put back as it was after the test (run_rule configures it)."""
    logger = logging.getLogger("graphaudit")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    yield logger
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    for handler in saved[0]:
        logger.addHandler(handler)
    logger.setLevel(saved[1])
    logger.propagate = saved[2]


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Train on one torch thread, the previous count restored after the test: the models under test are tiny, and
    on a shared machine extra threads only contend."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

"""Fixtures of the llmpattern tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fake_llm import KEY, KEY_ENV, FakeServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A running :class:`FakeServer`, proxies cleared and the test key in the environment."""
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeServer() as running:
        yield running

"""A progress helper for long loops: periodic log lines with counts, rate and time left."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class Progress:
    """Count work items and log ``label: done/total (pct) rate/s, eta`` at most every ``every_s`` seconds."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        every_s: float = 10.0,
        logger: logging.Logger | None = None,
        unit: str = "items",
    ) -> None:
        self.label = label
        self.total = total
        self.every_s = every_s
        self.unit = unit
        self.done = 0
        self._logger = logger or logging.getLogger("graphaudit.progress")
        self._start = time.monotonic()
        self._last = self._start

    def update(self, count: int = 1) -> None:
        """Add ``count`` finished items; log if the interval has passed."""
        self.done += count
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            self._logger.info(self.line(now))

    def close(self) -> None:
        """Log the final count and rate."""
        self._logger.info(self.line(time.monotonic()) + " done")

    def line(self, now: float) -> str:
        """The progress line for the current count."""
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        text = f"{self.label}: {self.done}"
        if self.total:
            text += f"/{self.total} ({100.0 * self.done / self.total:.1f}%)"
        text += f" {rate:.1f} {self.unit}/s"
        if self.total and rate > 0:
            text += f", {max(self.total - self.done, 0) / rate:.0f}s left"
        return text


def track(items: Iterable[T], label: str, total: int | None = None, every_s: float = 10.0) -> Iterator[T]:
    """Iterate over ``items`` while logging progress."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    progress = Progress(label, total=total, every_s=every_s)
    for item in items:
        yield item
        progress.update()
    progress.close()

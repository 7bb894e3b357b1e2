"""The ``data`` config section's fetch settings as typed settings (defaults live in config/config.yaml only).

The fetch rules read every key but ``datasets``, so adding a dataset to the list refetches nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graphaudit.common.settings import settings_dict
from graphaudit.data.fetch import FetchOptions


@dataclass(frozen=True)
class DownloadSettings:
    enabled: bool
    retries: int
    timeout_s: float


@dataclass(frozen=True)
class FetchSettings:
    """Where datasets and audited code come from: the mirror (null: ``$GRAPHAUDIT_DATA_MIRROR``), what an
    unobtainable dataset does, and the download settings."""

    mirror: str | None
    on_unavailable: Literal["error", "record"]
    download: DownloadSettings

    def options(self) -> FetchOptions:
        """The fetch layer's options (the environment's mirror fills an unset one)."""
        return FetchOptions.from_config(settings_dict(self))

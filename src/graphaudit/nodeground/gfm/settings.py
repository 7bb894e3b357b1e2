"""Typed settings of ``nodeground.gfm`` (config/config.yaml holds the defaults)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GFMSettings"]


@dataclass(frozen=True)
class GFMSettings:
    """``nodeground.gfm``: the registry file, the GFMs whose cells are written, where downloaded artifacts live."""

    registry: str
    run: tuple[str, ...]
    artifacts: str

"""The detector catalogue (``config/glad/detectors.yaml``): reading it, one detector's entry, and which backend a
detector runs with. Torch-free, so the workflow's parse (:mod:`graphaudit.glad.layout`) and the tables read it
without loading the training stack (:mod:`graphaudit.glad.deep` resolves a run's settings from it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphaudit.common.yamlfile import read_yaml

BACKENDS = ("auto", "ubgold", "own")
FAMILIES = ("end_to_end", "two_stage")


def load_catalogue(path: str | Path) -> dict[str, Any]:
    """The detector catalogue (``config/glad/detectors.yaml``)."""
    return read_yaml(path)


def catalogue_entry(catalogue: Mapping[str, Any], detector: str) -> Mapping[str, Any]:
    """One detector's entry; an unknown detector or family is an error naming what the catalogue defines."""
    detectors = catalogue["detectors"]
    if detector not in detectors:
        raise ValueError(f"unknown detector {detector!r}; config/glad/detectors.yaml defines {sorted(detectors)}")
    entry = detectors[detector]
    if entry["family"] not in FAMILIES:
        raise ValueError(f"{detector}: family must be one of {FAMILIES}, got {entry['family']!r}")
    return entry


def backend_of(catalogue: Mapping[str, Any], detector: str, backend: str, ubgold_available: bool) -> str:
    """The backend a detector runs with: ``own``, or ``ubgold`` (UB-GOLD's module through its adapter).

    ``auto`` takes ``ubgold`` when the detector has an adapter and UB-GOLD's tree can be had offline
    (``ubgold_available``), else ``own``; an explicit ``ubgold`` for a detector without an adapter is an error.
    """
    has_adapter = "ubgold" in catalogue_entry(catalogue, detector)
    if backend == "ubgold" and not has_adapter:
        adapted = sorted(name for name, entry in catalogue["detectors"].items() if "ubgold" in entry)
        raise ValueError(
            f"glad.deep.backend is ubgold, but {detector} has no UB-GOLD adapter yet (those with one: "
            f"{adapted}); use backend auto or own"
        )
    return "ubgold" if has_adapter and uses_ubgold(backend, ubgold_available) else "own"


def uses_ubgold(backend: str, ubgold_available: bool) -> bool:
    """Whether the configured backend runs UB-GOLD's code where an adapter exists (so its tree is needed)."""
    if backend not in BACKENDS:
        raise ValueError(f"glad.deep.backend must be one of {BACKENDS}, got {backend!r}")
    return backend == "ubgold" or (backend == "auto" and ubgold_available)

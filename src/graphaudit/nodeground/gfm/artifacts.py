"""The GFM registry (``config/nodeground/gfms.yaml``) and where a GFM's artifact is found.

Each entry names the GFM's paper, official code, licence, pretraining data, the graphaudit adapter that
evaluates it and its artifact (file, pinned URL, sha256, mirror path), or why it cannot be evaluated here.
An artifact is looked for at ``<data mirror>/<mirror_path>`` (``data.mirror``, else ``$GRAPHAUDIT_DATA_MIRROR``)
and then at ``<nodeground.gfm.artifacts>/<mirror_path>`` (where a downloaded copy belongs); nothing is
downloaded here. :func:`graphaudit.nodeground.gfm.adapter.build_adapter` turns an entry into its adapter. The
module imports no torch: the workflow reads the registry while it parses (:func:`graphaudit.nodeground.plan.gfm_run`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphaudit.common.settings import load_settings
from graphaudit.common.yamlfile import read_yaml
from graphaudit.data.fetch import MIRROR_ENV

__all__ = [
    "ArtifactSpec",
    "GFMSpec",
    "RegistryError",
    "artifact_candidates",
    "load_registry",
    "resolve_mirror",
]


@dataclass(frozen=True)
class ArtifactSpec:
    """One released checkpoint: its file name, pinned URL, sha256 and place under the mirror."""

    file: str
    url: str
    sha256: str
    mirror_path: str


@dataclass(frozen=True)
class GFMSpec:
    """One registry entry (see ``config/nodeground/gfms.yaml`` for the meaning of each key)."""

    reference: str
    code: str
    licence: str
    pretraining: str
    adapter: str | None
    artifact: ArtifactSpec | None
    variants: dict[str, ArtifactSpec]
    settings: dict[str, Any]
    unavailable: str | None


class RegistryError(ValueError):
    """The GFM registry is malformed or does not name a GFM the config asks for."""


def _check_entry(name: str, spec: GFMSpec, where: str) -> None:
    runnable = spec.adapter is not None and spec.artifact is not None
    if runnable == (spec.unavailable is not None):
        raise RegistryError(
            f"{where}: GFM {name!r} needs either an adapter and an artifact, or an `unavailable` reason (not both)"
        )


def load_registry(path: str | os.PathLike[str]) -> dict[str, GFMSpec]:
    """Every entry of the registry file, checked: known keys, and an adapter + artifact or a reason."""
    raw = read_yaml(path)
    if not isinstance(raw, dict) or not raw:
        raise RegistryError(f"{path}: expected a mapping of GFM name -> entry")
    registry = {name: load_settings(GFMSpec, entry, path=f"{path}:{name}") for name, entry in raw.items()}
    for name, spec in registry.items():
        _check_entry(name, spec, str(path))
    return registry


def resolve_mirror(mirror: str | None) -> Path | None:
    """The data mirror folder: ``mirror`` (``data.mirror``) if set, else ``$GRAPHAUDIT_DATA_MIRROR``, else none."""
    chosen = mirror or os.environ.get(MIRROR_ENV)
    return Path(chosen) if chosen else None


def artifact_candidates(artifact: ArtifactSpec, artifacts: str | os.PathLike[str], mirror: Path | None) -> list[Path]:
    """Where ``artifact`` may be, in the order looked at: the data mirror, then the local artifact folder."""
    roots = [mirror] if mirror is not None else []
    return [Path(root) / artifact.mirror_path for root in [*roots, Path(artifacts)]]

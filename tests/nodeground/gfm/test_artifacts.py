"""The GFM registry: its entries, its checks, and where an artifact is looked for."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from graphaudit.nodeground.gfm.artifacts import (
    RegistryError,
    artifact_candidates,
    load_registry,
    resolve_mirror,
)

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = ROOT / "config/nodeground/gfms.yaml"
NAMES = ["GraphAny", "GraphPFN", "GVT", "Node4All", "NodePFN", "G2T-FM"]


def test_the_registry_lists_the_six_gfms_with_an_artifact_or_a_reason():
    registry = load_registry(REGISTRY)
    assert list(registry) == NAMES
    assert registry["GraphAny"].unavailable is None and registry["GraphAny"].artifact.file == "graph_any_arxiv.pt"
    for name in NAMES[1:]:
        assert registry[name].adapter is None and len(registry[name].unavailable) > 40, name
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))
    assert config["nodeground"]["gfms"] == NAMES  # part 2's GFM endpoints are the registry's entries


def test_graphany_checksums_match_the_mirrored_files(mirror):
    spec = load_registry(REGISTRY)["GraphAny"]
    for artifact in [spec.artifact, *spec.variants.values()]:
        digest = hashlib.sha256((mirror / artifact.mirror_path).read_bytes()).hexdigest()
        assert digest == artifact.sha256, artifact.file
        assert artifact.url.endswith(f"/02c810e9977e89bda66f43ad4e206937af37cf26/checkpoints/{artifact.file}")


def _entry(**changes: object) -> dict[str, object]:
    entry = {
        "reference": "r",
        "code": "c",
        "licence": "MIT",
        "pretraining": "p",
        "adapter": None,
        "artifact": None,
        "variants": {},
        "settings": {},
        "unavailable": "no release",
    }
    return {**entry, **changes}


def test_an_entry_needs_an_adapter_and_artifact_or_a_reason(tmp_path):
    artifact = {"file": "a.pt", "url": "u", "sha256": "0" * 64, "mirror_path": "gfm/a.pt"}
    path = tmp_path / "gfms.yaml"
    for bad in (_entry(unavailable=None), _entry(adapter="m:C", artifact=artifact)):
        path.write_text(yaml.safe_dump({"X": bad}), encoding="utf-8")
        with pytest.raises(RegistryError, match="needs either an adapter and an artifact"):
            load_registry(path)
    path.write_text(yaml.safe_dump({"X": _entry(licence=None)}), encoding="utf-8")
    with pytest.raises(ValueError, match="licence"):
        load_registry(path)


def test_an_artifact_is_looked_for_in_the_mirror_first_then_the_artifact_folder(tmp_path, monkeypatch):
    spec = load_registry(REGISTRY)["GraphAny"]
    candidates = artifact_candidates(spec.artifact, tmp_path / "local", tmp_path / "mirror")
    assert candidates == [
        tmp_path / "mirror/gfm/graphany/graph_any_arxiv.pt",
        tmp_path / "local/gfm/graphany/graph_any_arxiv.pt",
    ]
    assert artifact_candidates(spec.artifact, tmp_path / "local", None) == candidates[1:]
    monkeypatch.setenv("GRAPHAUDIT_DATA_MIRROR", str(tmp_path / "env"))
    assert resolve_mirror(None) == tmp_path / "env"
    assert resolve_mirror(str(tmp_path / "set")) == tmp_path / "set"
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR")
    assert resolve_mirror(None) is None

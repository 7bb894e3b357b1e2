"""envs/graphaudit.yaml mirrors pyproject.toml's dependencies, range for range."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONDA_NAMES = {"torch": "pytorch", "igraph": "python-igraph"}  # pip name -> conda-forge name


def split(requirement: str) -> tuple[str, str]:
    name, rest = re.match(r"^([A-Za-z0-9_.-]+)\s*(.*)$", requirement.strip()).groups()
    return name.lower(), rest.replace(" ", "")


def test_conda_mirror_has_every_dependency_with_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    env = yaml.safe_load((ROOT / "envs/graphaudit.yaml").read_text(encoding="utf-8"))
    mirrored = {}
    for item in env["dependencies"]:
        for requirement in item["pip"] if isinstance(item, dict) else [item]:
            if not requirement.startswith("-e"):
                name, spec = split(requirement)
                mirrored[name] = spec
    expected = {CONDA_NAMES.get(n, n): s for n, s in map(split, project["dependencies"])}
    expected["python"] = project["requires-python"].replace(" ", "")
    assert {n: mirrored.get(n) for n in expected} == expected

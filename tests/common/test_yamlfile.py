"""The one YAML loader: libyaml's where PyYAML has it, reading what the pure-Python safe loader reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from graphaudit.common.yamlfile import LOADER, read_yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(ROOT.glob("config/**/*.yaml"))


def test_the_c_loader_is_used_where_pyyaml_has_it() -> None:
    assert LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_project_yaml_file_reads_as_the_python_safe_loader_reads_it(path: Path) -> None:
    assert read_yaml(path) == yaml.safe_load(path.read_text(encoding="utf-8"))


def test_an_empty_file_is_none(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
    assert read_yaml(tmp_path / "empty.yaml") is None

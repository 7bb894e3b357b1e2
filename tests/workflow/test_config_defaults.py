"""config/config.yaml holds every default, equal to the schema's; ci.yaml and paper.yaml are overlays."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((ROOT / "config/schema.yaml").read_text(encoding="utf-8"))
DEFAULTS = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))


def schema_leaves(node: dict, path: tuple[str, ...] = ()):
    """(path, schema) of every key the schema declares that is not itself an object of declared keys."""
    for key, sub in node.get("properties", {}).items():
        if sub.get("type") == "object" and "properties" in sub:
            yield from schema_leaves(sub, (*path, key))
        else:
            yield (*path, key), sub


def config_leaves(node: dict, schema: dict, path: tuple[str, ...] = ()):
    for key, value in node.items():
        sub = schema.get("properties", {}).get(key, {})
        if isinstance(value, dict) and "properties" in sub:
            yield from config_leaves(value, sub, (*path, key))
        else:
            yield (*path, key)


def lookup(config: dict, path: tuple[str, ...]):
    for key in path:
        config = config[key]
    return config


LEAVES = list(schema_leaves(SCHEMA))


@pytest.mark.parametrize("path, schema", LEAVES, ids=[".".join(p) for p, _ in LEAVES])
def test_config_yaml_holds_the_schema_default(path, schema):
    assert "default" in schema, f"schema key {'.'.join(path)} has no default"
    try:
        value = lookup(DEFAULTS, path)
    except KeyError:
        pytest.fail(f"config/config.yaml lacks {'.'.join(path)} (schema default {schema['default']!r})")
    assert value == schema["default"], f"{'.'.join(path)}: config.yaml {value!r}, schema {schema['default']!r}"


def test_config_yaml_has_no_key_the_schema_lacks():
    declared = {p for p, _ in LEAVES}
    assert set(config_leaves(DEFAULTS, SCHEMA)) <= declared


@pytest.mark.parametrize("overlay", ["ci", "paper"])
def test_overlays_hold_only_what_differs(overlay):
    """Every key an overlay sets changes the default; an overlay restating a default would hide it."""
    layer = yaml.safe_load((ROOT / f"config/{overlay}.yaml").read_text(encoding="utf-8"))
    merged = copy.deepcopy(DEFAULTS)
    update_config(merged, layer)
    for path in config_leaves(layer, SCHEMA):
        assert lookup(layer, path) != lookup(DEFAULTS, path), f"{overlay}.yaml restates the default of {'.'.join(path)}"

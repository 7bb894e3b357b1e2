"""Config files checked before any job: YAML syntax with file and line, schema mistakes as one line naming the
key and the file that set it (the real config/config.yaml and config/schema.yaml)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from graphaudit.cli import main
from graphaudit.common.config import check_config, read_config_file
from graphaudit.common.settings import SettingsError

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS_FILE = ROOT / "config/config.yaml"
SCHEMA = ROOT / "config/schema.yaml"
DEFAULTS = yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8"))


def overlay(tmp_path: Path, change: dict) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(change), encoding="utf-8")
    return path


def problem(change: dict, tmp_path: Path, overrides: dict | None = None) -> str:
    """The one-line message check_config gives for config.yaml with ``change`` overlaid (as a file, or --config)."""
    files = [DEFAULTS_FILE] if overrides else [DEFAULTS_FILE, overlay(tmp_path, change)]
    config = copy.deepcopy(DEFAULTS)
    update_config(config, change)
    with pytest.raises(SettingsError) as caught:
        check_config(config, SCHEMA, files, overrides)
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def test_the_shipped_configs_pass():
    for name in ("ci.yaml", "paper.yaml"):
        config = copy.deepcopy(DEFAULTS)
        update_config(config, read_config_file(ROOT / "config" / name))
        check_config(config, SCHEMA, [DEFAULTS_FILE, ROOT / "config" / name])


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("glad:\n  deep:\n    folds: [0\n  x: 1\n", encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        read_config_file(path)
    assert str(caught.value) == (
        f"config file {path}, line 4, column 4: YAML syntax error: did not find expected ',' or ']' "
        "(while parsing a flow sequence at line 3, column 12); fix the file there"
    )


def test_a_tab_in_the_indentation_is_named(tmp_path):
    path = tmp_path / "tab.yaml"
    path.write_text("glad:\n\tdatasets: [MUTAG]\n", encoding="utf-8")
    with pytest.raises(
        SettingsError, match=rf"^config file {path}, line 2, column 1: .*; YAML indents with spaces, not"
    ):
        read_config_file(path)


def test_a_file_without_top_level_keys_is_refused_and_an_empty_one_is_empty(tmp_path):
    listed, empty = tmp_path / "list.yaml", tmp_path / "empty.yaml"
    listed.write_text("- 1\n", encoding="utf-8")
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="holds a list; a config file holds keys at top level"):
        read_config_file(listed)
    assert read_config_file(empty) == {}


def test_an_unknown_top_level_key_is_one_line_naming_the_key_and_the_file(tmp_path):
    message = problem({"bogus_key": 3}, tmp_path)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}: unknown key 'bogus_key' at the top level; known keys")
    assert "studies" in message and len(message) < 400


def test_a_misspelt_nested_key_gets_the_close_name(tmp_path):
    message = problem({"glad": {"deep": {"max_epoch": 3}}}, tmp_path)
    assert message == (
        f"{tmp_path / 'bad.yaml'}: unknown key 'max_epoch' in glad.deep; did you mean 'max_epochs'? "
        "(config/schema.yaml describes every key)"
    )


def test_an_empty_study_list_is_refused(tmp_path):
    message = problem({"studies": []}, tmp_path)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}: studies is []; [] should be non-empty")
    assert "at least one" in message


def test_an_unknown_study_lists_the_known(tmp_path):
    message = problem({"studies": ["glad", "nope"]}, tmp_path)
    assert message.endswith(
        "studies[1] is 'nope'; use one of ['pattern', 'nodeground', 'glad', 'graphlm', 'llmpattern']"
    )


@pytest.mark.parametrize("key", ["glad", "nodeground"])
def test_a_device_name_torch_would_refuse_is_refused(tmp_path, key):
    change = {"glad": {"deep": {"device": "gpu0"}}} if key == "glad" else {"nodeground": {"device": "gpu0"}}
    message = problem(change, tmp_path)
    dotted = "glad.deep.device" if key == "glad" else "nodeground.device"
    assert f"{dotted} is 'gpu0'; expected " in message and "cuda or cuda:<index>" in message


def test_every_device_the_trainers_take_passes():
    for device in ("auto", "cpu", "cuda", "cuda:1"):
        config = copy.deepcopy(DEFAULTS)
        update_config(config, {"glad": {"deep": {"device": device}}, "nodeground": {"device": device}})
        check_config(config, SCHEMA, [DEFAULTS_FILE])


def test_a_value_from_the_command_line_is_named_so(tmp_path):
    message = problem({"seed": -1}, tmp_path, overrides={"seed": -1})
    assert message.startswith("--config: seed is -1; -1 is less than the minimum of 0 (Base seed")


def test_the_config_check_command_names_file_and_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["config", "check", "config/ci.yaml"]) == 0
    assert "config ok: config/config.yaml + config/ci.yaml" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("glad:\n  deep: {folds: [0}\n", encoding="utf-8")
    assert main(["config", "check", "config/ci.yaml", str(bad)]) == 2
    assert f"graphaudit: config file {bad}, line 2, column 19: YAML syntax error" in capsys.readouterr().err

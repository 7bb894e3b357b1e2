"""The llmpattern section as typed settings, and the slices each rule passes (what a job reads, nothing more)."""

from pathlib import Path

import pytest
import yaml

from graphaudit.common.settings import SettingsError, load_settings, settings_dict
from graphaudit.llmpattern.settings import (
    ITEM_SETTINGS,
    LlmpatternSettings,
    RespondSettings,
    item_params,
    respond_params,
    responder_names,
)
from graphaudit.llmpattern.tasks import SETS

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = load_settings(LlmpatternSettings, yaml.safe_load((ROOT / "config/config.yaml").read_text())["llmpattern"])


def test_every_set_has_item_settings_that_round_trip():
    assert tuple(ITEM_SETTINGS) == SETS
    for name in SETS:
        params = item_params(DEFAULT, 3, name)
        assert settings_dict(load_settings(ITEM_SETTINGS[name], params)) == params
        assert ("seed" in params) == (name not in ("translation", "kcore"))


def test_frequent_turns_may_be_null():
    section = load_settings(
        LlmpatternSettings,
        {
            **yaml.safe_load((ROOT / "config/config.yaml").read_text())["llmpattern"],
            "frequent": {"per_n": 2, "turns": None},
        },
    )
    assert item_params(section, 0, "frequent")["turns"] is None


def test_respond_params_carry_styles_for_detection_and_the_model_for_models_only():
    detection = respond_params(DEFAULT, 0, "detection", "baseline:empty")
    assert detection["styles"] == list(DEFAULT.detection.styles) and detection["model"] is None
    kcore = respond_params(DEFAULT, 0, "kcore", "openai-compatible:gpt-4o")
    assert kcore["styles"] is None and kcore["model"] == dict(DEFAULT.model)
    assert load_settings(RespondSettings, kcore).responder == "openai-compatible:gpt-4o"
    assert set(detection) == {"seed", "n_eval", "formats", "styles", "responder", "model"}


def test_responder_names_map_each_name_to_its_spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs/gpt.jsonl").write_text("", encoding="utf-8")
    specs = ["oracle", "baseline:empty", "replay:runs/gpt.jsonl", "openai-compatible:org/model"]
    assert responder_names(specs) == {
        "oracle": "oracle",
        "empty": "baseline:empty",
        "replay-gpt": "replay:runs/gpt.jsonl",
        "org_model": "openai-compatible:org/model",
    }


@pytest.mark.parametrize(
    "specs, message",
    [
        (
            ["replay:runs/a/answers.jsonl", "replay:runs/b/answers.jsonl"],
            r"'replay:runs/a/answers.jsonl' and 'replay:runs/b/answers.jsonl' both get the name 'replay-answers'",
        ),
        (["baseline:empty", "openai-compatible:empty"], r"'baseline:empty' and 'openai-compatible:empty' both get"),
        (
            ["oracle", "openai-compatible:.."],
            r"'openai-compatible:\.\.' gets the name '\.\.', which is not a name inside",
        ),
        (["replay:runs/none.jsonl"], r"'replay:runs/none.jsonl' replays runs/none.jsonl, which is not a file"),
        (["baseline:nope"], r"responder 'baseline:nope': unknown baseline 'nope'; baselines are all_nodes, "),
        (["gpt-4o"], r"unknown responder 'gpt-4o'; use one of oracle, baseline:<name>, replay:<path>"),
    ],
)
def test_a_responder_mistake_stops_the_parse_naming_the_specs(tmp_path, monkeypatch, specs, message):
    monkeypatch.chdir(tmp_path)
    for folder in ("a", "b"):
        (tmp_path / "runs" / folder).mkdir(parents=True)
        (tmp_path / "runs" / folder / "answers.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(SettingsError, match=rf"^llmpattern\.responders: {message}"):
        responder_names(specs)

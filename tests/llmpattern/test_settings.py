"""The llmpattern section as typed settings, and the slices each rule passes (what a job reads, nothing more)."""

import dataclasses
from pathlib import Path

import pytest
import yaml

from graphaudit.common.settings import SettingsError, load_settings, settings_dict
from graphaudit.llmpattern.settings import (
    ITEM_SETTINGS,
    LlmpatternSettings,
    RespondSettings,
    check_models,
    item_params,
    model_options,
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
    assert set(detection) == {"seed", "n_eval", "formats", "styles", "responder", "model", "semantics"}
    assert detection["semantics"] == DEFAULT.semantics == "induced"


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


def _with_models(
    model: dict, models: dict, responders=("oracle", "openai-compatible:gpt-4o", "openai-compatible:o1-mini")
):
    return dataclasses.replace(DEFAULT, responders=tuple(responders), model=model, models=models)


O1 = {"temperature": None, "max_tokens": None, "max_completion_tokens": 16000}


def test_each_model_gets_the_shared_settings_under_its_own_block():
    section = _with_models({"base_url": "http://127.0.0.1:8000/v1", "max_tokens": 4096}, {"o1-mini": O1})
    check_models(section)
    assert model_options(section, "openai-compatible:gpt-4o") == {
        "base_url": "http://127.0.0.1:8000/v1",
        "max_tokens": 4096,
    }
    assert model_options(section, "openai-compatible:o1-mini") == {"base_url": "http://127.0.0.1:8000/v1", **O1}
    assert model_options(section, "oracle") is None
    chat, reasoning = (respond_params(section, 0, "kcore", f"openai-compatible:{m}") for m in ("gpt-4o", "o1-mini"))
    assert chat["model"]["max_tokens"] == 4096 and reasoning["model"]["max_tokens"] is None  # a rerun of o1 only


@pytest.mark.parametrize(
    "model, models, message",
    [
        (
            {},
            {"gpt-5": O1},
            r"llmpattern\.models\.gpt-5: no responder openai-compatible:gpt-5 is configured \(models: gpt-4o, o1-mini",
        ),
        (
            {},
            {"o1-mini": {**O1, "max_tokens_": 1}},
            r"llmpattern\.models\.o1-mini \(over llmpattern\.model\): .*unknown option\(s\) max_tokens_",
        ),
        (
            {"max_tokens": 4096},
            {"o1-mini": {"max_completion_tokens": 9}},
            r"models\.o1-mini .*not both .*set max_tokens to null",
        ),
        ({"base_url": "localhost:8000"}, {}, r"^llmpattern\.model: base_url must start with http"),
    ],
)
def test_a_model_settings_mistake_stops_the_parse(model, models, message):
    with pytest.raises(SettingsError, match=message):
        check_models(_with_models(model, models))

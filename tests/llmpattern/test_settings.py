"""The llmpattern section as typed settings, and the slices each rule passes (what a job reads, nothing more)."""

from pathlib import Path

import yaml

from graphaudit.common.settings import load_settings, settings_dict
from graphaudit.llmpattern.settings import (
    ITEM_SETTINGS,
    LlmpatternSettings,
    RespondSettings,
    item_params,
    respond_params,
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

"""The language models' runs and sample sets: the plan each run draws, names that round-trip, the sampling limit,
the token budget in steps, and the settings check that a model's dataset is one the evaluator scores."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from graphaudit.common.settings import load_settings
from graphaudit.graphlm import lm
from graphaudit.graphlm.settings import GraphlmSettings

CONFIG = yaml.safe_load(open("config/config.yaml", encoding="utf-8"))["graphlm"]


@pytest.fixture
def settings() -> GraphlmSettings:
    return load_settings(GraphlmSettings, CONFIG, "graphlm")


def test_a_run_draws_the_decoding_sweep_the_seed_draws_and_the_trajectory(settings) -> None:
    sets = lm.sample_sets(settings.lm, "dfs", 42)
    final = [s for s in sets if s.checkpoint == 20]
    assert {s.decoding for s in final if s.decode_seed == 0} == set(settings.lm.decodings)  # 6 configurations
    assert sorted(s.decode_seed for s in final if s.decoding == "both_default") == [0, 1, 2, 3, 4]
    assert sorted(s.checkpoint for s in sets if s.decoding == "both_default" and s.decode_seed == 0) == list(
        range(1, 21)
    )
    assert len(sets) == len(set(sets)) == 6 + 4 + 19  # the main set is drawn once
    assert lm.main_set(settings.lm, "dfs", 42) in sets


def test_without_the_trajectory_only_the_final_checkpoint_is_sampled(settings) -> None:
    sets = lm.sample_sets(replace(settings.lm, trajectory=False), "dgmg", 7)
    assert {s.checkpoint for s in sets} == {20} and len(sets) == 10


def test_set_names_round_trip_and_training_free_generators_are_not_sets() -> None:
    sample = lm.SampleSet("dgmg", 1337, 3, "nucleus_only", 4)
    assert sample.name == "lm-dgmg-s1337-c03-nucleus_only-d4"
    assert lm.parse_set_name(sample.name) == sample
    assert lm.parse_set_name("bootstrap") is None and lm.parse_set_name("random_labels") is None


def test_the_main_decoding_is_required(settings) -> None:
    with pytest.raises(ValueError, match="must include 'both_default'"):
        lm.sample_sets(replace(settings.lm, decodings=("tp_high",)), "dfs", 42)


def test_main_sets_name_every_run_on_a_dataset(settings) -> None:
    assert [s.name for s in lm.main_sets(settings.lm, "MUTAG")] == [
        "lm-dfs-s42-c20-both_default-d0",
        "lm-dgmg-s42-c20-both_default-d0",
    ]
    assert lm.main_sets(settings.lm, "NCI1") == []


def test_checkpoint_files_of_a_run(settings) -> None:
    files = lm.checkpoint_files(settings.lm, lm.Run("MUTAG", "dfs", 42))
    assert files[0] == "results/graphlm/MUTAG/lm/dfs/s42/checkpoint_01.safetensors" and len(files) == 20


def test_the_generation_limit_is_configured_or_one_and_a_half_times_the_longest_sequence(settings) -> None:
    assert lm.generation_limit(settings.lm, "dgmg", 1000) == 512
    assert lm.generation_limit(settings.lm, "dfs", 31) == 50  # ceil(1.5 x 33)
    with pytest.raises(ValueError, match=r"max_length\.dfs must be an integer >= 2 or 'auto'"):
        lm.generation_limit(replace(settings.lm, max_length={"dfs": "long"}), "dfs", 5)


def test_the_token_budget_in_steps(settings) -> None:
    assert lm.training_steps(settings.lm, "dfs") == 977  # ceil(4,000,000 / (16 x 256))
    assert lm.training_steps(settings.lm, "dgmg") == 3907  # ceil(4,000,000 / (4 x 256))


def test_a_model_on_a_dataset_the_evaluator_does_not_score_is_refused() -> None:
    config = {**CONFIG, "lm": {**CONFIG["lm"], "datasets": ["NCI1"]}}
    with pytest.raises(ValueError, match=r"graphlm.lm.datasets \['NCI1'\] are not in graphlm.datasets"):
        load_settings(GraphlmSettings, config, "graphlm")

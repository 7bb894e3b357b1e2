"""Part 3's plan (graphaudit.pattern.neural_plan), what the rule files compute at parse time: which graphs a run reads,
the recipes of config/pattern/neural.yaml with a scale's overrides (a bad override stops the plan), the training jobs
of each protocol and the inputs of the jobs that read the fresh splits or the held-out files."""

from __future__ import annotations

import pytest
import yaml

from graphaudit.common.settings import SettingsError, load_settings
from graphaudit.nn.pattern_config import CKGConvConfig, GRITConfig
from graphaudit.pattern.neural_plan import (
    RrwpPlan,
    check_protocols,
    fresh_sizes,
    held_out_file,
    neural_graphs,
    neural_recipe,
    neural_runs,
    rrwp_plans,
    rrwp_shard_graphs,
    training_graphs,
)
from graphaudit.pattern.settings import NeuralScale, NeuralSettings, NeuralShards, PatternSettings, Selection
from graphaudit.selection.curves import released

from .neural_inputs import RECIPES, ROOT, SELECTION, SHARDS


class _Wildcards(dict):
    """Snakemake's wildcards as the input functions read them (attributes and ``keys``)."""

    __getattr__ = dict.__getitem__


def _pattern_settings(**neural: object) -> PatternSettings:
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())["pattern"]
    config["neural"] |= neural
    return load_settings(PatternSettings, config)


# ---- which graphs, which recipe ---------------------------------------------------------------------------------
def test_a_run_reads_the_first_copies_of_every_pattern() -> None:
    selection = load_settings(Selection, SELECTION)
    assert training_graphs(selection, 4) == [0, 1, 3, 4]
    assert training_graphs(selection, None) == [0, 1, 2, 3, 4, 5]
    assert training_graphs(selection, 1) == [0, 3]  # at least one copy of each
    shards = load_settings(NeuralShards, SHARDS)
    assert neural_graphs("test", selection, shards) == [0, 1, 2, 3]
    assert rrwp_shard_graphs("train", 1, selection, shards) == [4]


def test_the_released_recipes_build_the_released_models() -> None:
    grit, ckgconv = neural_recipe("grit", RECIPES["grit"]), neural_recipe("ckgconv", RECIPES["ckgconv"])
    assert grit.model_config == GRITConfig() and ckgconv.model_config == CKGConvConfig()
    assert (grit.checkpoint_warmup, ckgconv.checkpoint_warmup) == (5, 10)
    assert (grit.max_epochs, grit.batch_size, grit.lr) == (100, 32, 5e-4)
    assert (ckgconv.max_epochs, ckgconv.batch_size, ckgconv.lr) == (200, 16, 1e-3)
    assert grit.schedule.name == "cosine_with_warmup" and grit.schedule.min_lr == 0.0
    timm = ckgconv.schedule
    assert timm.name == "timm_cosine_with_warmup"
    assert (timm.min_lr, timm.warmup_lr_init, timm.cycle_limit) == (1e-4, 1e-7, 0.5)
    assert grit.rrwp == RrwpPlan(21, True, "grit") and ckgconv.rrwp == RrwpPlan(21, True, "ckgconv")
    assert grit.clip_grad_norm == ckgconv.clip_grad_norm == 1.0


def test_a_scale_replaces_recipe_values_and_warm_up_moves_the_checkpoint_rule_too() -> None:
    scale = NeuralScale(hidden=16, heads=2, layers=2, max_epochs=8, warmup_epochs=2, rrwp_steps=8)
    grit = neural_recipe("grit", RECIPES["grit"], scale, micro_batches=2)
    assert (grit.model_config.hidden, grit.model_config.heads, grit.model_config.layers) == (16, 2, 2)
    assert grit.model_config.attn_dropout == 0.2 and grit.rrwp.steps == grit.model_config.rrwp_steps == 8
    assert (grit.max_epochs, grit.schedule.warmup_epochs, grit.checkpoint_warmup, grit.micro_batches) == (8, 2, 2, 2)
    curve = [0.1, 0.2, 0.3, 0.25, 0.28, 0.3, 0.29, 0.27]
    assert released(curve, grit.checkpoint_warmup) == 2
    with pytest.raises(ValueError, match="one channel per head"):
        neural_recipe("ckgconv", RECIPES["ckgconv"], NeuralScale(heads=2))


def test_the_plan_checks_every_models_recipe_and_overrides() -> None:
    """What the rule file's ``rrwp_plans`` call stops at parse time: a value the recipe cannot take, an unknown key
    (caught when the section is read)."""
    plans = rrwp_plans(RECIPES, _pattern_settings().neural)
    assert plans == {m: {"steps": 21, "add_identity": True, "variant": m} for m in ("grit", "ckgconv")}
    with pytest.raises(ValueError, match="one channel per head"):
        rrwp_plans(RECIPES, _pattern_settings(overrides={"ckgconv": {"heads": 2}, "grit": None}).neural)
    with pytest.raises(ValueError, match="warm-up"):
        rrwp_plans(RECIPES, _pattern_settings(overrides={"ckgconv": None, "grit": {"warmup_epochs": 100}}).neural)
    with pytest.raises(SettingsError, match="unknown keys"):
        _pattern_settings(overrides={"ckgconv": {"hidden": 8, "width": 8}, "grit": None})


# ---- which runs, which files ------------------------------------------------------------------------------------
def test_each_protocol_trains_its_models_with_every_seed() -> None:
    settings = _pattern_settings().neural
    assert isinstance(settings, NeuralSettings)
    assert neural_runs(settings) == [
        ("released", "ckgconv", 0),
        ("released", "ckgconv", 1),
        ("released", "grit", 0),
        ("released", "grit", 1),
        ("held_out", "ckgconv", 0),
        ("held_out", "ckgconv", 1),
        ("fresh_trained", "ckgconv", 0),
        ("fresh_trained", "ckgconv", 1),
    ]
    only_grit = _pattern_settings(models=["grit"]).neural
    assert {p for p, _, _ in neural_runs(only_grit)} == {"released"}


def test_a_held_out_count_of_the_whole_library_is_refused() -> None:
    with pytest.raises(SettingsError, match="fewer than the 100"):
        check_protocols(_pattern_settings(held_out={"patterns": 100}))
    check_protocols(_pattern_settings(held_out={"patterns": 100}, protocols=["released"]))


def test_only_the_jobs_that_read_the_fresh_splits_get_their_sizes_and_held_out_jobs_their_files() -> None:
    config = {"fresh_splits": {"train": 5, "val": 2}}
    sizes = {"train": 5, "val": 2}
    assert fresh_sizes(config, set_name="fresh_val") == fresh_sizes(config, protocol="fresh_trained") == sizes
    assert fresh_sizes(config, set_name="val") is None and fresh_sizes(config, protocol="held_out") is None
    files = held_out_file("out/held_out", "graphs")
    assert files(_Wildcards(protocol="held_out")) == "out/held_out/graphs.csv"
    assert files(_Wildcards(protocol="released")) == files(_Wildcards(protocol="fresh_trained")) == []

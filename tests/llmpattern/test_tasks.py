"""The llmpattern rule layer: responder names, set generation from each set's settings, which items get which
prompts, one responder end to end."""

from dataclasses import replace

import pandas as pd
import pytest

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.llmpattern.datasets import read_items, write_items
from graphaudit.llmpattern.settings import LlmpatternSettings, item_params, item_settings, respond_params
from graphaudit.llmpattern.tasks import (
    covers,
    evaluated_items,
    llmpattern_items,
    llmpattern_respond,
    prompt_jobs,
    responder_slug,
    set_items,
)

SECTION = load_settings(
    LlmpatternSettings,
    {
        "scales": ["small", "medium"],
        "semantics": "induced",
        "translation": {"per_pattern": 1},
        "detection": {"per_n": 1, "styles": ["zero_shot", "cot"]},
        "isomorphism": {"modes": ["faithful"]},
        "modification": {"per_n": 1},
        "frequent": {"per_n": 1, "turns": {"small": 1, "medium": 1}},
        "ba2motif": {"per_class": 18, "test_per_class": 2, "turns": 1, "per_label": 15},
        "molecules": {"datasets": [], "per_class": 2, "files": {}},
        "realworld": {"datasets": [], "epochs": 2, "max_turns": 1, "max_test_per_class": 1, "download": False},
        "n_eval": 3,
        "formats": ["AL", "EL"],
        "responders": ["oracle"],
        "model": {},
        "models": {},
        "paper_values": "config/llmpattern/paper_values.yaml",
    },
)
SMALL = replace(SECTION, scales=("small",))
FORMATS, STYLES = SECTION.formats, SECTION.detection.styles


def items_of(set_name: str, section: LlmpatternSettings = SECTION, detection=()) -> list[dict]:
    return set_items(item_settings(section, 0, set_name), detection)


def test_responder_slugs_and_coverage():
    assert responder_slug("oracle") == "oracle"
    assert responder_slug("baseline:degree_sort") == "degree_sort"
    assert responder_slug("openai-compatible:gpt-4o") == "gpt-4o"
    assert responder_slug("openai-compatible:org/model name") == "org_model_name"
    assert responder_slug("replay:/data/answers/claude.jsonl") == "replay-claude"
    assert covers("oracle", "kcore") and covers("openai-compatible:x", "frequent")
    assert covers("baseline:degree_ge3", "kcore") and not covers("baseline:degree_ge3", "detection")
    assert covers("baseline:discriminative_miner", "discriminative")


def test_medium_sets_are_subsampled_and_small_sets_kept():
    detection = items_of("detection")
    chosen = evaluated_items(detection, SECTION.n_eval, 0)
    small = [i for i in detection if i["scale"] == "small"]
    assert [i for i in chosen if i["scale"] == "small"] == small  # every small item
    for directed in (False, True):  # n_eval of each medium set
        assert sum(1 for i in chosen if i["scale"] == "medium" and i["directed"] == directed) == 3


def test_prompt_settings_per_task():
    detection = items_of("detection", SMALL)
    undirected, directed = detection[0], next(i for i in detection if i["directed"])
    # 2 formats x 2 descriptions x 5 (4) patterns x 2 styles
    assert len(list(prompt_jobs(undirected, FORMATS, STYLES))) == 40
    assert len(list(prompt_jobs(directed, FORMATS, STYLES))) == 32
    kcore = items_of("kcore", detection=detection)[0]
    assert list(prompt_jobs(kcore, FORMATS, None)) == [{"fmt": "AL"}, {"fmt": "EL"}]
    turn = next(i for i in items_of("discriminative") if i["task"] == "discriminative")
    assert {j["gold_set"] for j in prompt_jobs(turn, FORMATS, None)} == {"Set1", "Set2"}
    with pytest.raises(ValueError, match="styles"):
        list(prompt_jobs(undirected, FORMATS, None))


def test_a_set_reads_only_its_own_settings():
    assert item_params(SECTION, 7, "translation") == {"per_pattern": 1}
    detection = {"seed": 7, "scales": ["small", "medium"], "per_n": 1, "semantics": "induced"}
    assert item_params(SECTION, 7, "detection") == detection
    assert item_params(SECTION, 7, "kcore") == {}
    assert items_of("translation") == items_of("translation", replace(SECTION, n_eval=9, scales=("large",)))
    with pytest.raises(ValueError, match="unknown llmpattern set 'molecule'"):
        item_settings(SECTION, 0, "molecule")


def test_items_rule_entry_writes_the_set(tmp_path):
    detection = tmp_path / "detection.jsonl"
    write_items(detection, items_of("detection", SMALL))
    out = tmp_path / "kcore.jsonl"
    ctx = RuleContext(
        input={"detection": str(detection)},
        output={"itemset": str(out)},
        params={"generation": item_params(SMALL, 0, "kcore")},
        wildcards={"set": "kcore"},
    )
    llmpattern_items(ctx)
    assert read_items(out) == items_of("kcore", SMALL, read_items(detection))


@pytest.mark.parametrize("set_name", ["kcore", "discriminative"])
def test_oracle_end_to_end_scores_one_in_clean_mode(tmp_path, set_name):
    detection = items_of("detection", SMALL)
    write_items(tmp_path / "items.jsonl", items_of(set_name, SMALL, detection))
    ctx = RuleContext(
        input={"itemset": str(tmp_path / "items.jsonl")},
        output={"scores": str(tmp_path / "scores.jsonl"), "table": str(tmp_path / "table.csv")},
        params={
            "respond": respond_params(SMALL, 0, set_name, "oracle"),
            "cache": str(tmp_path / "cache" / "o.jsonl"),
            "rate_file": str(tmp_path / "cache" / "requests.rate"),
        },
        wildcards={"set": set_name, "responder": "oracle"},
    )
    llmpattern_respond(ctx)
    table = pd.read_csv(tmp_path / "table.csv")
    assert (table.loc[table["mode"] == "clean", "value"] == 1.0).all()
    first = (tmp_path / "cache" / "o.jsonl").read_bytes()
    llmpattern_respond(ctx)  # a rerun answers from the cache and adds nothing
    assert (tmp_path / "cache" / "o.jsonl").read_bytes() == first
    assert len(read_records(tmp_path / "scores.jsonl")) == 2 * len(read_records(tmp_path / "cache" / "o.jsonl"))


def test_the_golden_run_rebuilds_every_intermediate_file(tmp_path):
    from .golden import GOLDEN, build_intermediates

    rebuilt = build_intermediates(tmp_path / "golden", tmp_path / "work")
    committed = sorted(
        p.relative_to(GOLDEN) for folder in ("items", "scores", "records") for p in (GOLDEN / folder).rglob("*.*")
    )
    assert committed == sorted(p.relative_to(rebuilt) for p in rebuilt.rglob("*.*"))
    for relative in committed:
        assert (rebuilt / relative).read_bytes() == (GOLDEN / relative).read_bytes(), relative

"""The llmpattern rule layer: responder names, which items get which prompts, one responder end to end."""

import pandas as pd
import pytest

from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.datasets import write_items
from graphaudit.llmpattern.tasks import (
    REPO_CAPS,
    _ranks,
    _table,
    covers,
    evaluated_items,
    llmpattern_respond,
    prompt_jobs,
    responder_slug,
    set_items,
    summary,
)

CFG = {
    "seed": 0,
    "scales": ["small", "medium"],
    "translation": {"per_pattern": 1},
    "detection": {"per_n": 1, "styles": ["zero_shot", "cot"]},
    "isomorphism": {"modes": ["faithful"]},
    "modification": {"per_n": 1},
    "frequent": {"per_n": 1, "turns": {"small": 1, "medium": 1}},
    "ba2motif": {"per_class": 18, "test_per_class": 2, "turns": 1, "per_label": 15},
    "n_eval": 3,
    "formats": ["AL", "EL"],
    "model": {},
}


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
    detection = set_items("detection", CFG)
    chosen = evaluated_items(detection, CFG)
    small = [i for i in detection if i["scale"] == "small"]
    assert [i for i in chosen if i["scale"] == "small"] == small  # every small item
    for directed in (False, True):  # n_eval of each medium set
        assert sum(1 for i in chosen if i["scale"] == "medium" and i["directed"] == directed) == 3


def test_prompt_settings_per_task():
    detection = set_items("detection", {**CFG, "scales": ["small"]})
    undirected, directed = detection[0], next(i for i in detection if i["directed"])
    # 2 formats x 2 descriptions x 5 (4) patterns x 2 styles
    assert len(list(prompt_jobs(undirected, CFG))) == 40 and len(list(prompt_jobs(directed, CFG))) == 32
    kcore = set_items("kcore", CFG, detection)[0]
    assert list(prompt_jobs(kcore, CFG)) == [{"fmt": "AL"}, {"fmt": "EL"}]
    turn = next(i for i in set_items("discriminative", CFG) if i["task"] == "discriminative")
    assert {j["gold_set"] for j in prompt_jobs(turn, CFG)} == {"Set1", "Set2"}


@pytest.mark.parametrize("set_name", ["kcore", "discriminative"])
def test_oracle_end_to_end_scores_one_in_clean_mode(tmp_path, set_name):
    cfg = {**CFG, "scales": ["small"], "responders": ["oracle"]}
    detection = set_items("detection", cfg)
    write_items(tmp_path / "items.jsonl", set_items(set_name, cfg, detection))
    ctx = RuleContext(
        input={"itemset": str(tmp_path / "items.jsonl")},
        output={"scores": str(tmp_path / "scores.jsonl"), "table": str(tmp_path / "table.csv")},
        params={"llmpattern": cfg, "cache": str(tmp_path / "cache" / "oracle.jsonl")},
        wildcards={"set": set_name, "responder": "oracle"},
    )
    llmpattern_respond(ctx)
    table = pd.read_csv(tmp_path / "table.csv")
    assert (table.loc[table["mode"] == "clean", "value"] == 1.0).all()
    first = (tmp_path / "cache" / "oracle.jsonl").read_bytes()
    llmpattern_respond(ctx)  # a rerun answers from the cache and adds nothing
    assert (tmp_path / "cache" / "oracle.jsonl").read_bytes() == first
    assert len(read_records(tmp_path / "scores.jsonl")) == 2 * len(read_records(tmp_path / "cache" / "oracle.jsonl"))


def test_summary_and_ranks():
    frame = pd.DataFrame(
        [
            {
                "task": "T1",
                "stage": None,
                "variant": "triangle",
                "responder": "a",
                "mode": "repo",
                "metric": "acc",
                "value": 1.0,
            },
            {
                "task": "T1",
                "stage": None,
                "variant": "square",
                "responder": "a",
                "mode": "repo",
                "metric": "acc",
                "value": 0.5,
            },
            {
                "task": "T1",
                "stage": None,
                "variant": "triangle",
                "responder": "b",
                "mode": "repo",
                "metric": "acc",
                "value": 0.9,
            },
            {
                "task": "T7",
                "stage": None,
                "variant": "k3",
                "responder": "a",
                "mode": "repo",
                "metric": "precision",
                "value": 0.2,
            },
            {
                "task": "T7",
                "stage": None,
                "variant": "k3",
                "responder": "b",
                "mode": "repo",
                "metric": "precision",
                "value": 0.4,
            },
            {
                "task": "T7",
                "stage": None,
                "variant": "k3",
                "responder": "c",
                "mode": "repo",
                "metric": "precision",
                "value": 0.9,
            },
        ]
    )
    table = summary(frame)
    row = table[(table.task == "T1") & (table.responder == "a") & (table.variant == "square")].iloc[0]
    assert (row["mean"], row["cells"]) == (0.5, 1)
    ranks = _ranks(frame).set_index("responder")
    assert list(ranks.index) == ["b", "a"]  # best first; c did not answer T1, so it is not ranked
    assert ranks.loc["a", "T1"] == 2 and ranks.loc["b", "T1"] == 1  # a's T1 mean is 0.75 < 0.9
    assert ranks.loc["a", "T7"] == 2 and (ranks.loc["a", "mean_rank"], ranks.loc["b", "mean_rank"]) == (2.0, 1.0)


def test_oracle_cells_below_one_carry_the_scoring_cap():
    frame = pd.DataFrame(
        [
            {"task": "T7", "responder": "oracle", "mode": "repo", "value": 0.64},
            {"task": "T7", "responder": "oracle", "mode": "clean", "value": 1.0},
            {"task": "T7", "responder": "empty", "mode": "repo", "value": 0.0},
        ]
    )
    notes = _table(frame, "T7")["note"].tolist()
    assert notes[0] == REPO_CAPS["T7"] and pd.isna(notes[1]) and pd.isna(notes[2])

"""Induced vs non-induced occurrence semantics (spec pitfall 1): the config switch reaches the item truths, the
rejection conditions, the offline responders' cache keys and every success test."""

from __future__ import annotations

from dataclasses import replace

from graphaudit.llmpattern.datasets import graph_record, make_item
from graphaudit.llmpattern.generators import detection_items, modification_items
from graphaudit.llmpattern.responders import make_responder
from graphaudit.llmpattern.scorers import score_answer
from graphaudit.llmpattern.settings import item_params, respond_params
from graphaudit.llmpattern.solvers import networkx_occurrences

from .test_tasks import SECTION

DIAMOND = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
HOUSE = [(0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (3, 4)]
CYCLE5 = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]


def test_a_diamond_left_as_it_is_succeeds_as_a_square_only_without_induced_semantics() -> None:
    diamond = graph_record(4, DIAMOND, False)
    truth = {"source": "diamond", "target": "square", "occurrences": {"diamond": [[0, 1, 2, 3]], "square": []}}
    item = make_item("modification", "D2S", "small", 0, False, truth, graph=diamond)
    answer = "The edges of the final graph are: [" + ", ".join(f"({u}, {v})" for u, v in DIAMOND) + "]"
    for mode in ("repo", "clean"):
        assert score_answer(item, answer, mode, description="term")["success"] == 0
        assert score_answer(item, answer, mode, description="term", induced=False)["success"] == 1


def test_a_5_cycle_separates_cycles_from_houses_only_under_induced_semantics() -> None:
    houses, cycles = [graph_record(5, HOUSE, False)] * 2, [graph_record(5, CYCLE5, False)] * 2
    truth = {"labels": [0, 0, 1, 1], "graph_ids": [], "label_motifs": ["house", "cycle5"]}
    item = make_item("discriminative", "ba2motif", None, 0, False, truth, graphs=[*houses, *cycles])
    answer = "[The pattern graph is: " + ", ".join(f"({u}, {v})" for u, v in CYCLE5) + "]"
    for mode in ("repo", "clean"):
        assert score_answer(item, answer, mode, gold_set="Set2")["discriminative"] == 1
    assert score_answer(item, answer, "clean", gold_set="Set2", induced=False)["discriminative"] == 0


def test_non_induced_truths_are_the_vf2_monomorphisms() -> None:
    for item in detection_items(False, "small", per_n=1, induced=False)[:4]:
        for name, found in item["truth"]["occurrences"].items():
            assert [tuple(t) for t in found] == networkx_occurrences(item["graph"], name, induced=False), name


def test_no_d2s_graph_exists_without_induced_semantics() -> None:
    assert modification_items("D2S", "small", per_n=1)
    assert modification_items("D2S", "small", per_n=1, induced=False) == []


def test_the_semantics_is_in_the_item_and_respond_params() -> None:
    other = replace(SECTION, semantics="non_induced")
    for name in ("detection", "modification", "frequent"):
        assert item_params(SECTION, 0, name)["semantics"] == "induced"
        assert item_params(other, 0, name) != item_params(SECTION, 0, name)
    assert respond_params(other, 0, "detection", "oracle")["semantics"] == "non_induced"


def test_offline_responders_key_their_cache_by_a_non_default_semantics() -> None:
    assert make_responder("oracle", {"semantics": "induced"}).settings == {}
    assert make_responder("oracle", {"semantics": "non_induced"}).settings == {"semantics": "non_induced"}
    assert make_responder("baseline:empty", {"semantics": "non_induced"}).settings == {"semantics": "non_induced"}

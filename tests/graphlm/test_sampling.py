"""Sampling: the six configurations of Table 18 (top-k 0 and top-p 1.0 where disabled), reproducible from the
decoding seed, capped at max_length, and a model that has memorized one sequence gives it back."""

from __future__ import annotations

import pytest
import torch

from graphaudit.graphlm.sampling import DECODING, sample_texts
from graphaudit.graphlm.tokenizer import build_tokenizer, encode
from graphaudit.nn.llama import build_model, llama_config
from graphaudit.nn.lm_trainer import LmTrainConfig, train_language_model
from graphaudit.nn.packing import PackedStream

TEXT = "a b c d"


def test_the_six_configurations_of_table_18() -> None:
    assert {name: (d.temperature, d.top_p, d.top_k) for name, d in DECODING.items()} == {
        "both_default": (1.0, 0.95, 50),
        "nucleus_only": (1.0, 0.95, 0),
        "topk_only": (1.0, 1.0, 50),
        "pure_sample": (1.0, 1.0, 0),
        "tp_high": (1.2, 0.95, 50),
        "tp_low": (0.8, 0.95, 50),
    }


@pytest.fixture(scope="module")
def memorized(tmp_path_factory):
    tokenizer = build_tokenizer([TEXT])
    config = llama_config(
        "cpu", tokenizer.get_vocab_size(), bos_token_id=0, eos_token_id=0, pad_token_id=2, max_positions=32
    )
    stream = PackedStream([encode(tokenizer, TEXT)[1:-1]], separator=0, block=10, seed=0)
    train = LmTrainConfig(steps=80, batch=4, lr=3e-3, seed=0, snapshots=1)
    result = train_language_model(lambda: build_model(config), stream, train, snapshot_dir=tmp_path_factory.mktemp("s"))
    return result.model, tokenizer


def test_a_memorized_sequence_comes_back(memorized) -> None:
    model, tokenizer = memorized
    assert sample_texts(model, tokenizer, "tp_low", 6, seed=0, max_length=12, batch=4) == [TEXT] * 6


def test_samples_repeat_with_their_seed_and_respect_the_length_cap() -> None:
    tokenizer = build_tokenizer([TEXT])
    torch.manual_seed(1)
    config = llama_config(
        "cpu", tokenizer.get_vocab_size(), bos_token_id=0, eos_token_id=0, pad_token_id=2, max_positions=32
    )
    model = build_model(config)  # untrained: near-uniform next tokens
    first = sample_texts(model, tokenizer, "pure_sample", 5, seed=3, max_length=6, batch=2)
    assert first == sample_texts(model, tokenizer, "pure_sample", 5, seed=3, max_length=6, batch=2)
    assert len(first) == 5 and all(len(text.split()) <= 5 for text in first)
    assert sample_texts(model, tokenizer, "both_default", 0, seed=0, max_length=6) == []


def test_an_unknown_configuration_is_a_clear_error(memorized) -> None:
    model, tokenizer = memorized
    with pytest.raises(ValueError, match="unknown decoding configuration 'greedy'"):
        sample_texts(model, tokenizer, "greedy", 1, seed=0, max_length=8)


def test_samples_of_both_serializations_reach_the_evaluator_as_canonical_dfs_text() -> None:
    from graphaudit.graphlm.sampling import evaluator_lines
    from graphaudit.graphs.dfscode import LabeledGraph, dfs_text, dgmg_text

    path = LabeledGraph.build([6, 6, 7], [(0, 1, 1), (1, 2, 1)])
    dgmg = [dgmg_text(path), "ADD_NODE_6 END_NODE", "ADD_NODE_6 END_EDGE END_NODE", "END_NODE"]
    lines, unparsed = evaluator_lines(dgmg, "dgmg")
    assert lines == [dfs_text(path), dfs_text(LabeledGraph.build([6], []))] and unparsed == 2
    assert evaluator_lines([dfs_text(path), "", "(0,1"], "dfs") == ([dfs_text(path)], 2)
    with pytest.raises(ValueError, match="unknown serialization 'smiles'"):
        evaluator_lines([], "smiles")


def test_dfs_samples_are_read_in_the_training_texts_field_order() -> None:
    from graphaudit.graphlm.sampling import evaluator_lines
    from graphaudit.graphs.dfscode import LabeledGraph, dfs_text

    labelled = LabeledGraph.build([0, 1, 2], [(0, 1, 3), (1, 2, 4)])  # node labels differ from edge labels
    paper = dfs_text(labelled, "paper")  # the same graph with tuples written (i, j, l_i, l_j, l_e)
    assert paper != dfs_text(labelled)
    assert evaluator_lines([paper], "dfs", "paper") == ([dfs_text(labelled)], 0)

"""The graph LM training benchmark: tokens per second, padding shares, the counter of fed batches, the weight
check, and the rule entry's table on a tiny corpus (no timing is asserted)."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

import graphaudit.bench.graphlm_training as bench
from graphaudit.common.rule import RuleContext

TEXTS = ["(0,1,0,0,0) (1,2,0,0,1)", "(0,1,1,0,1)", "(0,1,0,0,0) (1,2,0,0,0) (2,0,0,0,0)", "(0,1,2,0,2) (1,2,2,0,0)"]


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "train.dfs.txt"
    path.write_text("".join(t + "\n" for t in TEXTS * 4), encoding="utf-8")
    return path


def test_tokens_per_s_is_tokens_over_seconds() -> None:
    assert bench.tokens_per_s(4096, 2.0) == 2048.0
    assert bench.tokens_per_s(0, 1.0) == 0.0
    for tokens, seconds in [(10, 0.0), (10, -1.0), (-1, 1.0)]:
        with pytest.raises(ValueError):
            bench.tokens_per_s(tokens, seconds)


def test_padding_share_is_the_share_of_positions_not_real() -> None:
    assert bench.padding_share(75, 100) == 0.25
    assert bench.padding_share(100, 100) == 0.0
    assert bench.padding_share(0, 8) == 1.0
    for real, positions in [(5, 4), (-1, 4), (0, 0)]:
        with pytest.raises(ValueError):
            bench.padding_share(real, positions)


def test_the_counter_reads_the_attention_mask_of_every_fed_batch() -> None:
    counter = bench.PaddingCounter()
    counter.count(torch.zeros(2, 4, dtype=torch.long), torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]]))
    counter.count(torch.zeros(1, 4, dtype=torch.long))  # no mask: every position is a token
    assert (counter.real, counter.positions, counter.batches) == (9, 12, 2)
    assert counter.padding_share == pytest.approx(3 / 12)


def test_the_counter_as_a_forward_pre_hook_sees_keyword_inputs() -> None:
    class Model(torch.nn.Module):
        def forward(self, input_ids, attention_mask=None, labels=None):
            return input_ids.sum()

    model, counter = Model(), bench.PaddingCounter()
    model.register_forward_pre_hook(counter, with_kwargs=True)
    model(
        input_ids=torch.ones(3, 5, dtype=torch.long),
        attention_mask=torch.tensor([[1] * 5, [1] * 4 + [0], [1] + [0] * 4]),
    )
    model(torch.ones(2, 2, dtype=torch.long))
    assert (counter.real, counter.positions, counter.batches) == (14, 19, 2)


def test_the_padded_peer_pads_to_the_longest_sequence_of_its_batch(corpus_file) -> None:
    from transformers import DataCollatorForLanguageModeling

    corpus = bench.load_corpus(corpus_file)
    stream = bench.PackedStream(corpus.sequences, corpus.bos, 8, 0)
    examples = bench.peer_examples(corpus, stream, "padded", 0)[:4]
    assert [len(e) for e in examples] == [4, 3, 5, 4]  # <s> tokens <s>
    batch = DataCollatorForLanguageModeling(bench._hf_tokenizer(corpus), mlm=False)(
        [{"input_ids": e} for e in examples]
    )
    counter = bench.PaddingCounter()
    counter.count(batch["input_ids"], batch["attention_mask"])
    assert (counter.real, counter.positions) == (16, 20)
    assert (batch["labels"] == -100).sum() == 4  # padding is out of the loss
    packed = bench.peer_examples(corpus, stream, "packed", 3)
    assert packed == stream.blocks(0, 3).tolist() and all(corpus.pad not in b for b in packed)
    with pytest.raises(ValueError, match="unknown peer"):
        bench.peer_examples(corpus, stream, "sft", 1)


def test_a_weight_difference_is_named() -> None:
    a = {"w": torch.zeros(2), "b": torch.ones(1)}
    bench.check_same_weights(a, {"w": torch.zeros(2), "b": torch.ones(1)})
    with pytest.raises(RuntimeError, match="in b"):
        bench.check_same_weights(a, {"w": torch.zeros(2), "b": torch.zeros(1)})
    with pytest.raises(RuntimeError, match="parameters"):
        bench.check_same_weights(a, {"w": torch.zeros(2)})


def test_rule_entry_writes_the_table(tmp_path, corpus_file) -> None:
    pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate (pip install .[bench])")
    params = {
        "bench": {
            "dataset": "toy",
            "preset": "cpu",
            "block": 8,
            "batch": 2,
            "lr": 1e-3,
            "steps": 3,
            "seed": 1,
            "repeats": 1,
        }
    }
    out = tmp_path / "graphlm_training.csv"
    bench.bench_graphlm_training(
        RuleContext(input={"corpus": str(corpus_file)}, params=params, output={"table": str(out)})
    )
    table = pd.read_csv(out)
    assert list(table.columns) == bench.COLUMNS
    assert list(table["benchmark"]) == ["graphlm_training_padded", "graphlm_training_packed"]
    assert list(table["ours_tokens"]) == [3 * 2 * 8] * 2 and list(table["ours_padding_share"]) == [0.0, 0.0]
    assert table["peer_tokens"].iloc[1] == 3 * 2 * 8 and table["peer_padding_share"].iloc[1] == 0.0
    assert 0 < table["peer_padding_share"].iloc[0] < 1
    assert list(table["speedup"]) == pytest.approx(
        list(table["ours_tokens_per_s"] / table["peer_tokens_per_s"]), rel=1e-9
    )
    assert (tmp_path / "graphlm_training.md").exists()

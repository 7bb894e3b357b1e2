"""The graph LM sampling benchmark: sample tokens, the sample comparison, the per-sample seeded decoding (the same
samples in any batch), and the rule entry's table on a tiny corpus (no timing is asserted)."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

import graphaudit.bench.graphlm_sampling as bench
from graphaudit.bench.graphlm_training import load_corpus, model_builder
from graphaudit.common.rule import RuleContext

TEXTS = ["(0,1,0,0,0) (1,2,0,0,1)", "(0,1,1,0,1)", "(0,1,0,0,0) (1,2,0,0,0) (2,0,0,0,0)", "(0,1,2,0,2) (1,2,2,0,0)"]
BOS, PAD = 0, 2


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "train.dfs.txt"
    path.write_text("".join(t + "\n" for t in TEXTS * 4), encoding="utf-8")
    return path


def test_sample_tokens_end_at_the_closing_bos_or_the_limit() -> None:
    assert bench.sample_tokens([BOS, 5, 6, BOS, PAD, PAD], BOS, PAD) == [5, 6, BOS]
    assert bench.sample_tokens([BOS, 5, 6, 7], BOS, PAD) == [5, 6, 7]  # cut at the length limit
    assert bench.sample_tokens([BOS, 5, PAD, PAD], BOS, PAD) == [5]
    assert bench.sample_tokens([BOS, BOS, PAD], BOS, PAD) == [BOS]  # an empty sample


def test_a_differing_sample_is_named_by_index_and_position() -> None:
    bench.check_same_samples([[4, 5, 0], [6]], [[4, 5, 0], [6]])
    with pytest.raises(RuntimeError, match="sample 1 differs from the peer's at position 1"):
        bench.check_same_samples([[4, 5, 0], [6, 7, 0]], [[4, 5, 0], [6, 8, 0]])
    with pytest.raises(RuntimeError, match=r"sample 0 differs .* at position 2"):
        bench.check_same_samples([[4, 5]], [[4, 5, 0]])
    with pytest.raises(RuntimeError, match="2 samples against the peer's 1"):
        bench.check_same_samples([[4], [5]], [[4]])


def test_the_noise_of_a_sample_does_not_depend_on_its_batch() -> None:
    together = bench.GumbelNoise([3, 4, 5], seed=7, length=6, vocab=10)
    alone = bench.GumbelNoise([4], seed=7, length=6, vocab=10)
    assert torch.equal(together.noise[1], alone.noise[0])
    assert not torch.equal(together.noise[0], together.noise[1])
    assert not torch.equal(alone.noise[0], bench.GumbelNoise([4], seed=8, length=6, vocab=10).noise[0])
    scores = torch.zeros(3, 10)
    assert torch.equal(together(torch.zeros(3, 3, dtype=torch.long), scores), together.noise[:, 2])


def test_seeded_samples_are_the_same_in_any_batch(corpus_file) -> None:
    corpus = load_corpus(corpus_file)
    torch.manual_seed(0)
    model = model_builder(corpus, "cpu", 16)()
    draw = {b: bench.seeded_samples(model, corpus, "both_default", 6, seed=3, max_length=12, batch=b) for b in (1, 4)}
    bench.check_same_samples(draw[4], draw[1])
    assert len(draw[1]) == 6 and all(1 <= len(s) <= 11 for s in draw[1])
    other = bench.seeded_samples(model, corpus, "both_default", 6, seed=4, max_length=12, batch=4)
    assert other != draw[4]


def test_rule_entry_writes_the_table(tmp_path, corpus_file) -> None:
    params = {
        "bench": {
            "dataset": "toy",
            "preset": "cpu",
            "block": 8,
            "batch": 2,
            "lr": 1e-3,
            "train_steps": 2,
            "train_seed": 1,
            "samples": 5,
            "sample_batch": 2,
            "decoding": "tp_high",
            "seed": 0,
            "repeats": 1,
        }
    }
    out = tmp_path / "graphlm_sampling.csv"
    bench.bench_graphlm_sampling(
        RuleContext(input={"corpus": str(corpus_file)}, params=params, output={"table": str(out)})
    )
    table = pd.read_csv(out)
    assert list(table.columns) == bench.COLUMNS
    assert list(table["benchmark"]) == ["graphlm_sampling", "graphlm_sampling_seeded"]
    assert list(table["samples"]) == [5, 5] and table["identical"].all()
    assert list(table["ratio"]) == pytest.approx(list(table["peer_s"] / table["ours_s"]), rel=1e-9)
    assert (tmp_path / "graphlm_sampling.md").exists()


def test_an_unknown_decoding_is_refused(corpus_file, tmp_path) -> None:
    params = {
        "bench": {
            "dataset": "toy",
            "preset": "cpu",
            "block": 8,
            "batch": 2,
            "lr": 1e-3,
            "train_steps": 2,
            "train_seed": 1,
            "samples": 5,
            "sample_batch": 2,
            "decoding": "beam",
            "seed": 0,
            "repeats": 1,
        }
    }
    with pytest.raises(ValueError, match="beam"):
        bench.bench_graphlm_sampling(
            RuleContext(input={"corpus": str(corpus_file)}, params=params, output={"table": str(tmp_path / "x.csv")})
        )

"""Benchmark: sampling a graph language model, batched with a KV cache against one ``generate`` call per sample.

The model is the ``preset`` LLaMA trained in the bench itself with our loop for ``train_steps`` steps on the
DFS corpus (packed, as rule ``graphlm_train``), so the samples look like a trained model's (short, mostly
parseable) without a dependency on the study's runs. Its length limit is the study's DFS limit (``auto``: 1.5 x
the longest training sequence with both ``<s>``).

Ours is :func:`graphaudit.graphlm.sampling.sample_texts` (``sample_batch`` samples per ``generate`` call, one
KV cache each, ``torch.manual_seed(seed)`` once). The peer is what a user would otherwise write: one
``model.generate`` call per sample with the same decoding configuration (``do_sample``, temperature, top-p,
top-k, length limit, ``<s>`` as the end token, KV cache on), ``torch.manual_seed(seed)`` once before the loop.
Each side runs ``repeats`` times, alternating, the fastest kept; ``ratio`` = peer_s / ours_s (target 10).

What "identical samples for the same seeds" can mean. Batched and per-sample sampling draw their random numbers
in a different order (one ``multinomial`` over a batch's rows per step against one per sample), so the two
sample sets above are two draws of the same distribution, not the same samples. Two checks are exact:

* ours is reproducible: every timed repeat of ``sample_texts`` at the same seed returns the texts of its
  untimed first run;
* batching does not change a sample: the same decoding configuration with the randomness moved into the
  samples themselves (Gumbel-max: the configuration's own warpers, temperature, top-k, top-p, then a Gumbel
  noise per sample, position and token drawn from a generator seeded by (seed, sample index), then argmax,
  which is an exact draw from the filtered distribution) is run batched as ``sample_texts`` batches (the same
  batch size, one KV cache per batch) and with one ``generate`` call per sample; every sample's tokens must be
  equal. A difference fails the bench; it is named by sample and position. (On the CPU the batched and
  single-row forward passes agree closely enough that no argmax or nucleus boundary flips; a flip would be
  reported, not hidden.)

Rows: ``graphlm_sampling`` (ours against the per-sample loop, the identity of ours' repeats checked) and
``graphlm_sampling_seeded`` (the Gumbel-max variant, batched against per sample, every sample checked equal).
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch

from graphaudit.bench.graphlm_training import Corpus, load_corpus, model_builder
from graphaudit.bench.settings import GraphlmSamplingBench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.graphlm.lm import MAX_LENGTH_MARGIN
from graphaudit.graphlm.sampling import DECODING, Decoding, sample_texts
from graphaudit.graphlm.tokenizer import decode
from graphaudit.nn.lm_trainer import LmTrainConfig, train_language_model
from graphaudit.nn.packing import PackedStream
from graphaudit.report.tables import write_table

__all__ = [
    "COLUMNS",
    "GumbelNoise",
    "bench_graphlm_sampling",
    "check_same_samples",
    "sample_tokens",
    "seeded_samples",
]

COLUMNS = [
    "benchmark",
    "input",
    "samples",
    "ours_s",
    "ours_per_s",
    "ours_mean_tokens",
    "peer",
    "peer_s",
    "peer_per_s",
    "peer_mean_tokens",
    "ratio",
    "identical",
]
PEER = "one model.generate call per sample, same decoding configuration"
SEEDED_PEER = "the same seeded (Gumbel-max) decoding, one generate call per sample"
WARMUP_SAMPLES = 8

log = logging.getLogger(__name__)


# ---- sample tokens and their comparison ---------------------------------------------------------------------
def sample_tokens(row: Sequence[int], bos: int, pad: int) -> list[int]:
    """The tokens a sample drew: after the opening ``<s>``, up to and including the closing ``<s>`` (all of them
    when the sample hit its length limit), with a batch's padding after the end removed."""
    body = [int(t) for t in row[1:]]
    if bos in body:
        return body[: body.index(bos) + 1]
    while body and body[-1] == pad:
        body.pop()
    return body


def check_same_samples(ours: Sequence[Sequence[int]], peer: Sequence[Sequence[int]]) -> None:
    """Raise on the first sample whose tokens differ (named by sample index and first differing position)."""
    if len(ours) != len(peer):
        raise RuntimeError(f"{len(ours)} samples against the peer's {len(peer)}")
    for index, (a, b) in enumerate(zip(ours, peer)):
        if list(a) != list(b):
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            ours_at, peer_at = list(a)[at : at + 3], list(b)[at : at + 3]
            raise RuntimeError(f"sample {index} differs from the peer's at position {at}: {ours_at} vs {peer_at}")


# ---- the seeded (Gumbel-max) decoding -----------------------------------------------------------------------
class GumbelNoise:
    """A logits processor adding, to row ``r`` at generated position ``t``, Gumbel noise drawn once per sample
    from a generator seeded by (``seed``, sample index ``first + r``): argmax of the result is a draw from the
    softmax of the (filtered) scores that does not depend on the batch a sample is in."""

    def __init__(self, indices: Sequence[int], seed: int, length: int, vocab: int) -> None:
        noise = [rng_for("bench", "graphlm_sampling", seed, int(i)).gumbel(size=(length, vocab)) for i in indices]
        self.noise = torch.from_numpy(np.stack(noise).astype(np.float32))
        self.prompt = 1

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        step = input_ids.shape[1] - self.prompt
        return scores + self.noise[:, step].to(scores.device)


def _warpers(setting: Decoding) -> list[Any]:
    """The decoding configuration's warpers, in ``generate``'s order (temperature, top-k, top-p)."""
    from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    warpers: list[Any] = []
    if setting.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(setting.temperature))
    if setting.top_k > 0:
        warpers.append(TopKLogitsWarper(setting.top_k))
    if setting.top_p < 1.0:
        warpers.append(TopPLogitsWarper(setting.top_p))
    return warpers


@torch.no_grad()
def seeded_samples(
    model: torch.nn.Module,
    corpus: Corpus,
    decoding: str,
    count: int,
    *,
    seed: int,
    max_length: int,
    batch: int,
) -> list[list[int]]:
    """``count`` samples' tokens (:func:`sample_tokens`) under ``decoding`` with per-sample Gumbel-max noise,
    ``batch`` samples per ``generate`` call (the same samples for any ``batch``)."""
    from transformers import LogitsProcessorList

    setting = DECODING[decoding]
    vocab = corpus.tokenizer.get_vocab_size()
    model.eval()
    out: list[list[int]] = []
    for first in range(0, count, batch):
        indices = range(first, min(count, first + batch))
        prompt = torch.full((len(indices), 1), corpus.bos, dtype=torch.long)
        processors = LogitsProcessorList([*_warpers(setting), GumbelNoise(indices, seed, max_length, vocab)])
        rows = model.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            do_sample=False,
            logits_processor=processors,
            max_length=max_length,
            eos_token_id=corpus.bos,
            pad_token_id=corpus.pad,
            use_cache=True,
        )
        out += [sample_tokens(row.tolist(), corpus.bos, corpus.pad) for row in rows]
    return out


# ---- the peer ------------------------------------------------------------------------------------------
@torch.no_grad()
def per_sample_texts(
    model: torch.nn.Module, corpus: Corpus, decoding: str, count: int, *, seed: int, max_length: int
) -> list[str]:
    """The peer: ``count`` calls of ``model.generate`` with one sample each, the decoding seed set once."""
    setting = DECODING[decoding]
    model.eval()
    torch.manual_seed(seed)
    texts = []
    for _ in range(count):
        prompt = torch.full((1, 1), corpus.bos, dtype=torch.long)
        row = model.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            do_sample=True,
            temperature=setting.temperature,
            top_p=setting.top_p,
            top_k=setting.top_k,
            max_length=max_length,
            eos_token_id=corpus.bos,
            pad_token_id=corpus.pad,
            use_cache=True,
        )[0]
        texts.append(decode(corpus.tokenizer, [t for t in row.tolist() if t != corpus.pad]))
    return texts


def _timed(function: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def _mean_tokens(texts: Sequence[str]) -> float:
    return float(np.mean([len(t.split()) for t in texts])) if texts else float("nan")


def _row(name: str, what: str, count: int, ours_s: float, peer_s: float, peer: str, tokens: tuple[float, float]):
    return {
        "benchmark": name,
        "input": what,
        "samples": count,
        "ours_s": ours_s,
        "ours_per_s": count / ours_s,
        "ours_mean_tokens": tokens[0],
        "peer": peer,
        "peer_s": peer_s,
        "peer_per_s": count / peer_s,
        "peer_mean_tokens": tokens[1],
        "ratio": peer_s / ours_s,
        "identical": True,
    }


def bench_graphlm_sampling(ctx: RuleContext) -> None:
    """Rule entry: ``params.bench`` (dataset, the brief training, samples, sample_batch, decoding, seed, repeats)
    on ``input.corpus``; the two rows of the module docstring."""
    settings = ctx.settings("bench", GraphlmSamplingBench)
    if settings.decoding not in DECODING:
        raise ValueError(f"bench.graphlm_sampling.decoding {settings.decoding!r} is none of {', '.join(DECODING)}")
    torch.set_num_threads(1)
    corpus = load_corpus(ctx.input["corpus"])
    max_length = math.ceil(MAX_LENGTH_MARGIN * (max(len(s) for s in corpus.sequences) + 2))
    build = model_builder(corpus, settings.preset, max(settings.block, max_length))
    stream = PackedStream(corpus.sequences, corpus.bos, settings.block, settings.train_seed)
    config = LmTrainConfig(
        steps=settings.train_steps, batch=settings.batch, lr=settings.lr, seed=settings.train_seed, snapshots=1
    )
    with tempfile.TemporaryDirectory() as folder:
        model = train_language_model(build, stream, config, snapshot_dir=folder).model
    count, decoding, seed = settings.samples, settings.decoding, settings.seed

    def ours(n: int = count) -> list[str]:
        return sample_texts(
            model, corpus.tokenizer, decoding, n, seed=seed, max_length=max_length, batch=settings.sample_batch
        )

    def peer(n: int = count) -> list[str]:
        return per_sample_texts(model, corpus, decoding, n, seed=seed, max_length=max_length)

    first = ours()  # warm-up (untimed) and the reference of every timed repeat
    peer(min(count, WARMUP_SAMPLES))  # warm-up, untimed
    ours_runs, peer_runs = [], []
    for _ in range(settings.repeats):
        ours_runs.append(_timed(ours))
        peer_runs.append(_timed(peer))
    for k, (texts, _) in enumerate(ours_runs, start=1):
        if texts != first:
            raise RuntimeError(f"sample_texts at seed {seed} returned other samples in timed repeat {k}")
    ours_s, peer_s = min(s for _, s in ours_runs), min(s for _, s in peer_runs)

    def seeded(batch: int) -> list[list[int]]:
        return seeded_samples(model, corpus, decoding, count, seed=seed, max_length=max_length, batch=batch)

    batched, batched_s = _timed(lambda: seeded(settings.sample_batch))
    single, single_s = _timed(lambda: seeded(1))
    check_same_samples(batched, single)
    what = (
        f"{count} samples of the {settings.preset} preset after {settings.train_steps} steps on "
        f"{settings.dataset} DFS, {decoding}, seed {seed}, length limit {max_length}, "
        f"{settings.sample_batch} per batch, one thread"
    )
    seeded_tokens = _mean_tokens([decode(corpus.tokenizer, [corpus.bos, *tokens]) for tokens in batched])
    rows = [
        _row(
            "graphlm_sampling",
            f"{what}; every repeat of ours identical",
            count,
            ours_s,
            peer_s,
            PEER,
            (_mean_tokens(first), _mean_tokens(peer_runs[0][0])),
        ),
        _row(
            "graphlm_sampling_seeded",
            f"{what}; Gumbel-max per sample, every sample identical batched and alone",
            count,
            batched_s,
            single_s,
            SEEDED_PEER,
            (seeded_tokens, seeded_tokens),
        ),
    ]
    for row in rows:
        log.info("%s: ours %.2fs, peer %.2fs, ratio %.1f", row["benchmark"], row["ours_s"], row["peer_s"], row["ratio"])
    write_table(pd.DataFrame(rows, columns=COLUMNS), ctx.output["table"], title="Benchmark graphlm_sampling")

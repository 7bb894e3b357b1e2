"""Benchmark: graph language-model training throughput, our packed loop against ``transformers``' ``Trainer``.

Ours is :func:`graphaudit.nn.lm_trainer.train_language_model` on the packed stream of the DFS corpus
(:class:`~graphaudit.nn.packing.PackedStream`: every position a real token). The peer a user would otherwise run
is ``transformers.Trainer`` with the standard causal-LM collator (``DataCollatorForLanguageModeling(mlm=False)``)
over one example per training sequence (``<s> text <s>``, the sequence as the tokenizer encodes it), padded to the
longest in each batch with ``<pad>`` (masked out of the loss and of the attention). A second row feeds the same
``Trainer`` our packed blocks (a dataset of the blocks ours trains on, in the sampler's order): no padding, the
computation TRL's ``SFTTrainer(packing=True)`` feeds (the paper's trainer), so it measures the loop alone.

Both sides: the same model (preset, vocabulary, initial weights: the global RNGs seeded with ``seed`` before the
model is built, checked parameter for parameter after the ``Trainer`` is constructed), the same number of
optimizer steps of the same batch size (``batch`` blocks for ours, ``batch`` sequences or blocks for the peer;
the peer drops an epoch's last short batch so that every step has ``batch`` examples), AdamW at ``lr`` with the
cosine schedule without warm-up, weight decay 0, gradient norm clipped at 1.0, one torch thread. Timed: from
seeding and building the model to the end of training (ours writes one snapshot at the end; the peer saves
nothing). Each side runs once untimed for a few steps (warm-up), then ``repeats`` times, alternating; the
fastest run is kept.

Throughput counts non-padding input tokens only (ours: ``steps x batch x block``; the peer: the attention mask's
ones of the batches its model is fed, counted by a forward pre-hook). The padding share is the share of input
positions that are ``<pad>`` (ours: counted in the blocks it reads, 0 by construction); ``speedup`` is our tokens
per second over the peer's (target: at least 1).
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import torch
from tokenizers import Tokenizer

from graphaudit.bench.settings import GraphlmTrainingBench
from graphaudit.common.rule import RuleContext
from graphaudit.graphlm.tokenizer import BOS, MASK, PAD, UNK, build_tokenizer, encode
from graphaudit.nn.llama import build_model, llama_config
from graphaudit.nn.lm_trainer import LmTrainConfig, train_language_model
from graphaudit.nn.loop import seed_everything
from graphaudit.nn.packing import PackedStream
from graphaudit.report.tables import write_table

__all__ = [
    "COLUMNS",
    "Corpus",
    "PaddingCounter",
    "bench_graphlm_training",
    "check_same_weights",
    "load_corpus",
    "padding_share",
    "tokens_per_s",
]

COLUMNS = [
    "benchmark",
    "input",
    "steps",
    "batch",
    "ours_tokens",
    "ours_s",
    "ours_tokens_per_s",
    "ours_padding_share",
    "ours_loss",
    "peer",
    "peer_tokens",
    "peer_s",
    "peer_tokens_per_s",
    "peer_padding_share",
    "peer_loss",
    "speedup",
]
PEERS = {
    "padded": "transformers Trainer + DataCollatorForLanguageModeling(mlm=False), one sequence per example, "
    "padded to the longest in the batch",
    "packed": "transformers Trainer on our packed blocks (what SFTTrainer(packing=True) feeds)",
}
WARMUP_STEPS = 2

log = logging.getLogger(__name__)


# ---- the numbers -------------------------------------------------------------------------------------
def tokens_per_s(tokens: int, seconds: float) -> float:
    """Throughput: ``tokens`` (non-padding) over ``seconds`` of wall time."""
    if tokens < 0 or not seconds > 0:
        raise ValueError(f"tokens >= 0 and seconds > 0 are needed, got {tokens} and {seconds}")
    return tokens / seconds


def padding_share(real: int, positions: int) -> float:
    """The share of ``positions`` input positions that are padding when ``real`` of them are tokens."""
    if positions < 1 or not 0 <= real <= positions:
        raise ValueError(f"0 <= real <= positions and positions >= 1 are needed, got {real} and {positions}")
    return (positions - real) / positions


class PaddingCounter:
    """Counts, over every batch the model is trained on, the non-padding input tokens (the attention mask's ones;
    every position when a batch has no mask) and all input positions: a forward pre-hook of the model
    (``model.register_forward_pre_hook(counter, with_kwargs=True)``), so a batch the data loader fetched ahead
    but never fed is not counted."""

    def __init__(self) -> None:
        self.real, self.positions, self.batches = 0, 0, 0

    def count(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> None:
        self.real += int(attention_mask.sum()) if attention_mask is not None else input_ids.numel()
        self.positions += input_ids.numel()
        self.batches += 1

    def __call__(self, module: torch.nn.Module, args: tuple, kwargs: dict[str, Any]) -> None:
        ids = kwargs["input_ids"] if "input_ids" in kwargs else args[0]
        self.count(ids, kwargs.get("attention_mask"))

    @property
    def padding_share(self) -> float:
        return padding_share(self.real, self.positions)


# ---- the corpus and the model ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """The DFS corpus (one text per training graph), its WordLevel tokenizer and the token ids of each text
    without the specials."""

    texts: list[str]
    tokenizer: Tokenizer
    sequences: list[list[int]]

    @property
    def bos(self) -> int:
        return self.tokenizer.token_to_id(BOS)

    @property
    def pad(self) -> int:
        return self.tokenizer.token_to_id(PAD)


def load_corpus(path: str | Path) -> Corpus:
    """The corpus file of rule ``graphlm_corpus`` (one DFS text per line) with the tokenizer the study builds for
    it (the DFS serialization is the line itself)."""
    texts = Path(path).read_text(encoding="utf-8").splitlines()
    if not texts:
        raise ValueError(f"{path} holds no training sequence")
    tokenizer = build_tokenizer(texts)
    return Corpus(texts, tokenizer, [encode(tokenizer, t)[1:-1] for t in texts])


def model_builder(corpus: Corpus, preset: str, max_positions: int) -> Callable[[], torch.nn.Module]:
    """A function that builds a fresh ``preset`` LLaMA for the corpus's vocabulary (as rule ``graphlm_train``)."""
    config = llama_config(
        preset,
        corpus.tokenizer.get_vocab_size(),
        bos_token_id=corpus.bos,
        eos_token_id=corpus.bos,
        pad_token_id=corpus.pad,
        max_positions=max_positions,
    )
    return lambda: build_model(config)


def check_same_weights(ours: dict[str, torch.Tensor], peer: dict[str, torch.Tensor]) -> None:
    """Raise unless the two state dicts hold the same tensors, bit for bit (named by the first that differs)."""
    if list(ours) != list(peer):
        raise RuntimeError(f"the models differ in their parameters: {sorted(set(ours) ^ set(peer))}")
    for name, tensor in ours.items():
        if not torch.equal(tensor, peer[name]):
            raise RuntimeError(f"the peer's initial weights differ from ours in {name}")


# ---- ours and the peer ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """One timed training run: wall seconds, non-padding input tokens, padding share, mean training loss."""

    seconds: float
    tokens: int
    padding_share: float
    loss: float


def run_ours(build: Callable[[], torch.nn.Module], stream: PackedStream, config: LmTrainConfig, pad: int) -> Run:
    """Our loop, one snapshot (the last step) in a throwaway folder; tokens and padding counted in its blocks."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        result = train_language_model(build, stream, config, snapshot_dir=folder)
        seconds = time.perf_counter() - start
    blocks = stream.blocks(0, config.steps * config.batch)
    real = int((blocks != pad).sum())
    return Run(seconds, real, padding_share(real, blocks.size), result.records[-1]["train_loss"])


class _Examples(torch.utils.data.Dataset):
    def __init__(self, examples: Sequence[Sequence[int]]) -> None:
        self.examples = [list(map(int, e)) for e in examples]

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int) -> dict[str, list[int]]:
        return {"input_ids": self.examples[index]}


def peer_examples(corpus: Corpus, stream: PackedStream, kind: str, blocks: int) -> list[list[int]]:
    """The peer's training examples: one ``<s> text <s>`` per training sequence (``padded``) or our first
    ``blocks`` packed blocks (``packed``)."""
    if kind == "padded":
        return [[corpus.bos, *s, corpus.bos] for s in corpus.sequences]
    if kind == "packed":
        return stream.blocks(0, blocks).tolist()
    raise ValueError(f"unknown peer {kind!r}; peers are {', '.join(PEERS)}")


def _hf_tokenizer(corpus: Corpus):
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=corpus.tokenizer, bos_token=BOS, eos_token=BOS, pad_token=PAD, unk_token=UNK, mask_token=MASK
    )


def _trainer(build, examples, config: LmTrainConfig, corpus: Corpus, folder: str):
    """The peer's ``Trainer`` on a model built after seeding, with a counter of the batches the model trains on."""
    from transformers import DataCollatorForLanguageModeling, PrinterCallback, Trainer, TrainingArguments

    seed_everything(config.seed)
    model = build()
    args = TrainingArguments(
        output_dir=folder,
        max_steps=config.steps,
        per_device_train_batch_size=config.batch,
        learning_rate=config.lr,
        lr_scheduler_type="cosine",
        warmup_steps=config.warmup_steps,
        weight_decay=config.weight_decay,
        adam_beta1=config.betas[0],
        adam_beta2=config.betas[1],
        adam_epsilon=config.eps,
        max_grad_norm=config.max_grad_norm,
        seed=config.seed,
        use_cpu=True,
        dataloader_drop_last=True,
        dataloader_num_workers=0,
        save_strategy="no",
        logging_strategy="no",
        report_to="none",
        disable_tqdm=True,
    )
    counter = PaddingCounter()
    model.register_forward_pre_hook(counter, with_kwargs=True)
    collator = DataCollatorForLanguageModeling(_hf_tokenizer(corpus), mlm=False)
    trainer = Trainer(model=model, args=args, train_dataset=_Examples(examples), data_collator=collator)
    trainer.remove_callback(PrinterCallback)  # its end-of-training print; nothing else is logged
    return trainer, counter


def run_peer(build, examples, config: LmTrainConfig, corpus: Corpus, initial: dict | None = None) -> Run:
    """The peer's run (model built, ``Trainer`` made, trained); with ``initial``, its weights are checked equal to
    those before training starts (untimed runs only)."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        trainer, counter = _trainer(build, examples, config, corpus, folder)
        if initial is not None:
            check_same_weights(initial, trainer.model.state_dict())
        output = trainer.train()
        seconds = time.perf_counter() - start
    if counter.batches != config.steps:
        raise RuntimeError(f"the peer drew {counter.batches} batches for {config.steps} steps")
    return Run(seconds, counter.real, counter.padding_share, float(output.training_loss))


def _row(name: str, what: str, config: LmTrainConfig, ours: Run, peer: Run, peer_name: str) -> dict[str, Any]:
    ours_rate, peer_rate = tokens_per_s(ours.tokens, ours.seconds), tokens_per_s(peer.tokens, peer.seconds)
    return {
        "benchmark": name,
        "input": what,
        "steps": config.steps,
        "batch": config.batch,
        "ours_tokens": ours.tokens,
        "ours_s": ours.seconds,
        "ours_tokens_per_s": ours_rate,
        "ours_padding_share": ours.padding_share,
        "ours_loss": ours.loss,
        "peer": peer_name,
        "peer_tokens": peer.tokens,
        "peer_s": peer.seconds,
        "peer_tokens_per_s": peer_rate,
        "peer_padding_share": peer.padding_share,
        "peer_loss": peer.loss,
        "speedup": ours_rate / peer_rate,
    }


def _fastest(runs: list[Run]) -> Run:
    return min(runs, key=lambda r: r.seconds)


def bench_graphlm_training(ctx: RuleContext) -> None:
    """Rule entry: ``params.bench`` (dataset, preset, block, batch, lr, steps, seed, repeats) on ``input.corpus``;
    one row per peer (``padded``, ``packed``)."""
    settings = ctx.settings("bench", GraphlmTrainingBench)
    torch.set_num_threads(1)
    corpus = load_corpus(ctx.input["corpus"])
    build = model_builder(corpus, settings.preset, settings.block)
    stream = PackedStream(corpus.sequences, corpus.bos, settings.block, settings.seed)
    config = LmTrainConfig(steps=settings.steps, batch=settings.batch, lr=settings.lr, seed=settings.seed, snapshots=1)
    warm = LmTrainConfig(steps=WARMUP_STEPS, batch=settings.batch, lr=settings.lr, seed=settings.seed, snapshots=1)
    seed_everything(settings.seed)
    initial = build().state_dict()
    examples = {kind: peer_examples(corpus, stream, kind, settings.steps * settings.batch) for kind in PEERS}
    run_ours(build, stream, warm, corpus.pad)  # warm-up, untimed
    for kind in PEERS:
        run_peer(build, examples[kind], warm, corpus, initial)  # warm-up and the initial-weight check, untimed
    ours_runs: list[Run] = []
    peer_runs: dict[str, list[Run]] = {kind: [] for kind in PEERS}
    for _ in range(settings.repeats):
        ours_runs.append(run_ours(build, stream, config, corpus.pad))
        for kind in PEERS:
            peer_runs[kind].append(run_peer(build, examples[kind], config, corpus))
    ours = _fastest(ours_runs)
    what = (
        f"{settings.dataset} DFS corpus ({len(corpus.texts)} sequences), {settings.preset} preset, "
        f"{settings.steps} steps of {settings.batch}, one thread"
    )
    rows = []
    for kind, peer_name in PEERS.items():
        rows.append(_row(f"graphlm_training_{kind}", what, config, ours, _fastest(peer_runs[kind]), peer_name))
        log.info(
            "%s: ours %.0f tokens/s (padding %.1f%%), peer %.0f tokens/s (padding %.1f%%), speed-up %.2f",
            rows[-1]["benchmark"],
            rows[-1]["ours_tokens_per_s"],
            100 * rows[-1]["ours_padding_share"],
            rows[-1]["peer_tokens_per_s"],
            100 * rows[-1]["peer_padding_share"],
            rows[-1]["speedup"],
        )
    write_table(pd.DataFrame(rows, columns=COLUMNS), ctx.output["table"], title="Benchmark graphlm_training")

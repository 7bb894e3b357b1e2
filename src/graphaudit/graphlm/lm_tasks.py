"""Rule entry points of the graphlm study, part 2: the graph language models' corpus texts and tokenizer, their
training, sampling and the NLL hit / miss test (called through :mod:`graphaudit.common.rule`).

Sampled sets leave here as canonical DFS lines, one per parsed sample, so part 1's evaluator scores them like any
generator (a DGMG sample is decoded to its graph first: memorization is judged on graphs, not action strings;
the string-based DGMG rate is kept beside it, spec 8.1.18). Unparsed samples are counted in the sample set's
summary and are not in the evaluated set: the evaluator's denominators are the parsed samples (spec 8.1.15-16).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file
from scipy.stats import mannwhitneyu
from tokenizers import Tokenizer
from transformers import LlamaConfig

from graphaudit.common.atomic import write_json, write_text
from graphaudit.common.records import environment_versions
from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import settings_dict
from graphaudit.graphlm import lm as lm_lib
from graphaudit.graphlm.sampling import evaluator_lines, sample_texts
from graphaudit.graphlm.settings import LmSettings
from graphaudit.graphlm.tokenizer import BOS, PAD, build_tokenizer, encode
from graphaudit.graphs.dfscode import dgmg_text, parse_dfs_text
from graphaudit.nn import llama, lm_trainer, packing
from graphaudit.nn.llama import build_model, llama_config, parameter_count
from graphaudit.nn.lm_trainer import LmTrainConfig, train_language_model
from graphaudit.nn.loop import resolve_device

log = logging.getLogger(__name__)


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def serialized_texts(dfs_lines: list[str], codes: list[str], serialization: str) -> list[str]:
    """The training texts of a serialization, one per corpus graph: DFS, the corpus's ``codes`` (the paper's
    text, rule graphlm_corpus); DGMG, the action string of the graph of its exact-code line in ``dfs_lines``."""
    if serialization == "dfs":
        return list(codes)
    if serialization == "dgmg":
        graphs = [parse_dfs_text(line).graph for line in dfs_lines]
        if any(g is None for g in graphs):
            raise ValueError("the training corpus has lines that do not parse; rebuild it (rule graphlm_corpus)")
        return [dgmg_text(g) for g in graphs]
    raise ValueError(f"unknown serialization {serialization!r}; serializations are dfs, dgmg")


def graphlm_serialize(ctx: RuleContext) -> None:
    """The corpus in one serialization (one text per training graph) and its WordLevel tokenizer."""
    texts = serialized_texts(_lines(ctx.input["sequences"]), _lines(ctx.input["codes"]), ctx.wildcards["serialization"])
    write_text(ctx.output["texts"], "".join(t + "\n" for t in texts))
    write_text(ctx.output["tokenizer"], build_tokenizer(texts).to_str(pretty=True) + "\n")


def _model_config(lm: LmSettings, tokenizer: Tokenizer, max_length: int) -> LlamaConfig:
    bos = tokenizer.token_to_id(BOS)
    return llama_config(
        lm.preset,
        tokenizer.get_vocab_size(),
        bos_token_id=bos,
        eos_token_id=bos,
        pad_token_id=tokenizer.token_to_id(PAD),
        max_positions=max(lm.block, max_length),
    )


def _run_hash(lm: LmSettings, serialization: str, seed: int, vocabulary: str) -> str:
    """What a run's checkpoint must agree with to be resumed: its settings, its vocabulary and the trainer's code."""
    digest = hashlib.sha256()
    parts = {"lm": settings_dict(lm), "serialization": serialization, "seed": seed}
    digest.update(json.dumps(parts, sort_keys=True).encode())
    digest.update(hashlib.sha256(vocabulary.encode()).digest())
    for module in (lm_trainer, llama, packing):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def graphlm_train(ctx: RuleContext) -> None:
    """One language model trained from scratch to the token budget, resumable; its checkpoints and ``run.json``."""
    lm = ctx.settings("lm", LmSettings)
    serialization, seed = ctx.wildcards["serialization"], int(ctx.wildcards["seed"])
    torch.set_num_threads(ctx.threads)
    tokenizer = Tokenizer.from_file(ctx.input["tokenizer"])
    bos = tokenizer.token_to_id(BOS)
    sequences = [encode(tokenizer, text)[1:-1] for text in _lines(ctx.input["texts"])]
    max_length = lm_lib.generation_limit(lm, serialization, max(len(s) for s in sequences))
    model_config = _model_config(lm, tokenizer, max_length)
    steps = lm_lib.training_steps(lm, serialization)
    config = LmTrainConfig(
        steps=steps,
        batch=lm.batch[serialization],
        lr=lm.lr,
        seed=seed,
        device=lm.device,
        snapshots=lm.checkpoints,
        bf16=lm.bf16,
    )
    folder = Path(ctx.output["run"]).parent
    stream = packing.PackedStream(sequences, bos, lm.block, seed)
    log.info(
        "%s %s seed %d: %s preset, %d parameters, %d steps of %d x %d tokens (%d epochs of %d tokens)",
        ctx.wildcards["dataset"],
        serialization,
        seed,
        lm.preset,
        parameter_count(model_config),
        steps,
        config.batch,
        lm.block,
        steps * config.batch * lm.block // stream.epoch_tokens,
        stream.epoch_tokens,
    )
    result = train_language_model(
        lambda: build_model(model_config),
        stream,
        config,
        snapshot_dir=folder,
        checkpoint_path=folder / "checkpoint.pt",
        run_hash=_run_hash(lm, serialization, seed, tokenizer.to_str()),
    )
    (folder / "checkpoint.pt").unlink(missing_ok=True)  # optimiser state of a finished run: not needed again
    write_json(
        ctx.output["run"],
        {
            "dataset": ctx.wildcards["dataset"],
            "serialization": serialization,
            "seed": seed,
            "preset": lm.preset,
            "parameters": parameter_count(model_config),
            "vocab_size": tokenizer.get_vocab_size(),
            "model_config": model_config.to_dict(),
            "max_length": max_length,
            "steps": result.steps,
            "block": lm.block,
            "batch": config.batch,
            "tokens": result.steps * config.batch * lm.block,
            "epoch_tokens": stream.epoch_tokens,
            "lr": lm.lr,
            "records": result.records,
            "device": result.device,
            "versions": environment_versions(),
            "wall_s": result.fit_s,
        },
    )


def load_checkpoint(run: dict[str, Any], checkpoint: str, device: torch.device) -> torch.nn.Module:
    """The model of ``run.json`` (its ``model_config``) with the weights of one checkpoint file, in eval mode."""
    model = build_model(LlamaConfig.from_dict(run["model_config"]), device)
    model.load_state_dict(load_file(checkpoint, device=str(device)))
    return model.eval()


def graphlm_sample(ctx: RuleContext) -> None:
    """One sample set: ``n_gen`` samples of a checkpoint, parsed into the evaluator's lines, and its summary."""
    lm = ctx.settings("lm", LmSettings)
    serialization = ctx.wildcards["serialization"]
    torch.set_num_threads(ctx.threads)
    device = resolve_device(lm.device)
    run = json.loads(Path(ctx.input["run"]).read_text(encoding="utf-8"))
    model = load_checkpoint(run, ctx.input["checkpoint"], device)
    tokenizer = Tokenizer.from_file(ctx.input["tokenizer"])
    texts = sample_texts(
        model,
        tokenizer,
        ctx.wildcards["decoding"],
        ctx.params["n_gen"],
        seed=int(ctx.wildcards["dseed"]),
        max_length=run["max_length"],
        batch=lm.sample_batch,
    )
    lines, unparsed = evaluator_lines(texts, serialization, ctx.params["tuple_order"])
    training = set(_lines(ctx.input["texts"]))
    write_text(ctx.output["generated"], "".join(line + "\n" for line in lines))
    write_json(
        ctx.output["summary"],
        {
            "dataset": ctx.wildcards["dataset"],
            "name": Path(ctx.output["summary"]).stem,
            "samples": len(texts),
            "unparsed": unparsed,
            "string_precision": sum(t in training for t in texts) / len(texts) if texts else float("nan"),
            "max_length": run["max_length"],
            "at_limit": sum(len(encode(tokenizer, t)) - 1 >= run["max_length"] for t in texts),
            "texts": texts,
        },
    )
    log.info("%d samples, %d unparsed", len(texts), unparsed)


def sequence_nll(model: torch.nn.Module, ids: list[int], device: torch.device) -> float:
    """Mean per-token negative log-likelihood of ``ids`` after its first token (the opening ``<s>``)."""
    tensor = torch.tensor([ids], dtype=torch.long, device=device)
    with torch.no_grad():
        return float(model(input_ids=tensor, labels=tensor).loss)


def graphlm_nll(ctx: RuleContext) -> None:
    """Table 5: each unique training graph (by canonical code) is a hit when the main sample set contains it;
    the mean per-token NLL of its training text under the final checkpoint, hits against misses (Mann-Whitney U,
    two-sided)."""
    torch.set_num_threads(ctx.threads)
    device = resolve_device(ctx.settings("lm", LmSettings).device)
    run = json.loads(Path(ctx.input["run"]).read_text(encoding="utf-8"))
    model = load_checkpoint(run, ctx.input["checkpoint"], device)
    tokenizer = Tokenizer.from_file(ctx.input["tokenizer"])
    first_text: dict[str, str] = {}  # each unique training graph's first training text
    for code, text in zip(_lines(ctx.input["sequences"]), _lines(ctx.input["texts"])):
        first_text.setdefault(code, text)
    generated = set(_lines(ctx.input["generated"]))
    hit, miss = [], []
    for code, text in first_text.items():
        (hit if code in generated else miss).append(sequence_nll(model, encode(tokenizer, text), device))
    both = len(hit) > 0 and len(miss) > 0
    write_json(
        ctx.output["nll"],
        {
            "dataset": ctx.wildcards["dataset"],
            "serialization": ctx.wildcards["serialization"],
            "seed": int(ctx.wildcards["seed"]),
            "hit": len(hit),
            "miss": len(miss),
            "nll_hit": float(np.mean(hit)) if hit else float("nan"),
            "nll_miss": float(np.mean(miss)) if miss else float("nan"),
            "mw_p": float(mannwhitneyu(hit, miss, alternative="two-sided").pvalue) if both else float("nan"),
        },
    )

"""Sampling the graph language models with the paper's six decoding configurations (Table 18).

Every sample starts from ``<s>`` alone and ends at the next ``<s>`` or at ``max_length`` tokens (the opener
included; DGMG 512 in the paper); it is decoded to its serialization text, which part 1's never-raising parsers
then read. ``transformers``' ``generate`` applies ``top_k=50`` when none is given, so a configuration that
disables top-k passes ``top_k=0`` explicitly and one that disables nucleus sampling ``top_p=1.0``. Batches share
one KV cache each; the decoding seed is set once with ``torch.manual_seed`` before the first batch, as the
paper's decoding seeds 0-4 are.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from tokenizers import Tokenizer

from graphaudit.graphlm.tokenizer import BOS, PAD, decode
from graphaudit.graphs.dfscode import DEFAULT_ORDER, TupleOrder, dfs_text, parse_dfs_text, parse_dgmg

__all__ = ["DECODING", "SERIALIZATIONS", "Decoding", "evaluator_lines", "sample_texts"]

SERIALIZATIONS = ("dfs", "dgmg")


@dataclass(frozen=True)
class Decoding:
    """One decoding configuration: temperature, nucleus mass (1.0: off) and top-k (0: off)."""

    temperature: float
    top_p: float
    top_k: int


DECODING: dict[str, Decoding] = {
    "both_default": Decoding(1.0, 0.95, 50),
    "nucleus_only": Decoding(1.0, 0.95, 0),
    "topk_only": Decoding(1.0, 1.0, 50),
    "pure_sample": Decoding(1.0, 1.0, 0),
    "tp_high": Decoding(1.2, 0.95, 50),
    "tp_low": Decoding(0.8, 0.95, 50),
}


@torch.no_grad()
def sample_texts(
    model: torch.nn.Module,
    tokenizer: Tokenizer,
    decoding: str,
    count: int,
    *,
    seed: int,
    max_length: int,
    batch: int = 64,
) -> list[str]:
    """``count`` samples of ``model`` (on its own device) under the named configuration, as texts."""
    if decoding not in DECODING:
        raise ValueError(f"unknown decoding configuration {decoding!r}; configurations are {', '.join(DECODING)}")
    if count < 0 or batch < 1 or max_length < 2:
        raise ValueError(f"count >= 0, batch >= 1 and max_length >= 2 are needed, got {count}, {batch}, {max_length}")
    setting, bos, pad = DECODING[decoding], tokenizer.token_to_id(BOS), tokenizer.token_to_id(PAD)
    device = next(model.parameters()).device
    model.eval()
    torch.manual_seed(seed)
    texts: list[str] = []
    while len(texts) < count:
        size = min(batch, count - len(texts))
        prompt = torch.full((size, 1), bos, dtype=torch.long, device=device)
        out = model.generate(
            input_ids=prompt,
            attention_mask=torch.ones_like(prompt),
            do_sample=True,
            temperature=setting.temperature,
            top_p=setting.top_p,
            top_k=setting.top_k,
            max_length=max_length,
            eos_token_id=bos,
            pad_token_id=pad,
            use_cache=True,
        )
        texts += [decode(tokenizer, [t for t in row.tolist() if t != pad]) for row in out]
    return texts


def evaluator_lines(texts: list[str], serialization: str, order: TupleOrder = DEFAULT_ORDER) -> tuple[list[str], int]:
    """The samples as the generated-set evaluator reads them (one canonical DFS text per parsed sample, in gSpan's
    order: a DFS sample, written in the training text's tuple ``order``, and a DGMG action string are parsed and
    re-serialized, so both serializations are evaluated alike) and the count of samples that do not parse (an
    empty DFS sample included)."""
    if serialization not in SERIALIZATIONS:
        raise ValueError(f"unknown serialization {serialization!r}; serializations are {', '.join(SERIALIZATIONS)}")
    graphs = [
        (parse_dfs_text(text, order=order) if serialization == "dfs" else parse_dgmg(text)).graph for text in texts
    ]
    lines = [dfs_text(g) for g in graphs if g is not None and g.num_nodes > 0]
    return lines, len(texts) - len(lines)

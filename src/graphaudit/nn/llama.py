"""The graph language models' architecture: decoder-only LLaMA from ``transformers`` (``LlamaConfig`` /
``LlamaForCausalLM``: RMSNorm, SwiGLU feed-forward, rotary positions, no biases, an untied output head).

The paper gives the parameter counts of four sizes for each serialization (spec 3.2: tiny 10.5M / 4.2M,
medium 99.1M / 85.1M, small 132.2M / 113.4M, large 451.0M / 419.7M for DFS / DGMG) but not their shapes;
:data:`PRESETS` holds the widths, depths and feed-forward sizes that reproduce all eight counts exactly with the
paper's vocabularies (DFS 12,297, DGMG 87), ``2 V d + L (4 d^2 + 3 d f + 2 d) + d``. Only "small" (12 heads) is
stated; the other head counts are ``d / 64`` (heads do not change the count). ``cpu`` is the project's own
preset for the quick scale, small enough to train on two cores.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import LlamaConfig, LlamaForCausalLM

__all__ = ["PRESETS", "LlamaPreset", "build_model", "llama_config", "parameter_count"]


@dataclass(frozen=True)
class LlamaPreset:
    """A model size: hidden width, decoder layers, feed-forward width, attention heads, and where it is from."""

    hidden: int
    layers: int
    ffn: int
    heads: int
    source: str


PRESETS: dict[str, LlamaPreset] = {
    "tiny": LlamaPreset(256, 4, 1024, 4, "paper's count (10.5M / 4.2M); shape reconstructed, heads d/64"),
    "medium": LlamaPreset(576, 16, 2304, 9, "paper's count (99.1M / 85.1M); shape reconstructed, heads d/64"),
    "small": LlamaPreset(768, 12, 3072, 12, "paper: 12 layers, hidden 768, 12 heads, FFN 3072 (132.2M / 113.4M)"),
    "large": LlamaPreset(1280, 16, 5120, 20, "paper's count (451.0M / 419.7M); shape reconstructed, heads d/64"),
    "cpu": LlamaPreset(128, 2, 512, 2, "our choice: the quick scale's CPU model"),
}


def llama_config(
    preset: str, vocab_size: int, *, bos_token_id: int, eos_token_id: int, pad_token_id: int, max_positions: int
) -> LlamaConfig:
    """The ``LlamaConfig`` of ``preset`` for a vocabulary of ``vocab_size`` tokens (special ids included)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown LLaMA preset {preset!r}; presets are {', '.join(PRESETS)}")
    if vocab_size < 1 or max_positions < 1:
        raise ValueError(f"vocab_size and max_positions must be positive, got {vocab_size} and {max_positions}")
    shape = PRESETS[preset]
    return LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=shape.hidden,
        intermediate_size=shape.ffn,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.heads,
        max_position_embeddings=max_positions,
        tie_word_embeddings=False,
        attention_bias=False,
        mlp_bias=False,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
    )


def build_model(config: LlamaConfig, device: str | torch.device = "cpu") -> LlamaForCausalLM:
    """A freshly initialised model on ``device`` (``"meta"`` builds the shapes without memory)."""
    with torch.device(device):
        return LlamaForCausalLM(config)


def parameter_count(config: LlamaConfig) -> int:
    """The model's trainable parameter count, from its shapes alone."""
    return sum(p.numel() for p in build_model(config, "meta").parameters())

"""The LLaMA presets: the paper's eight parameter counts exactly (spec 3.2), the architecture's switches, and a
forward pass of the CPU preset."""

from __future__ import annotations

import pytest
import torch

from graphaudit.nn.llama import PRESETS, build_model, llama_config, parameter_count

DFS_VOCAB, DGMG_VOCAB = 12_297, 87  # 12,293 tuples / 83 actions + the four special tokens

PAPER_COUNTS = {  # spec 3.2: every count to the paper's precision, and exactly 2Vd + L(4d^2 + 3df + 2d) + d
    ("tiny", DFS_VOCAB): 10_492_672,
    ("tiny", DGMG_VOCAB): 4_241_152,
    ("medium", DFS_VOCAB): 99_119_808,
    ("medium", DGMG_VOCAB): 85_053_888,
    ("small", DFS_VOCAB): 132_153_600,
    ("small", DGMG_VOCAB): 113_399_040,
    ("large", DFS_VOCAB): 450_952_960,
    ("large", DGMG_VOCAB): 419_695_360,
}


def _config(preset: str, vocab: int):
    return llama_config(preset, vocab, bos_token_id=0, eos_token_id=0, pad_token_id=2, max_positions=512)


@pytest.mark.parametrize(("preset", "vocab"), sorted(PAPER_COUNTS))
def test_each_preset_has_the_papers_parameter_count(preset: str, vocab: int) -> None:
    count = parameter_count(_config(preset, vocab))
    shape = PRESETS[preset]
    d, layers, ffn = shape.hidden, shape.layers, shape.ffn
    assert count == PAPER_COUNTS[(preset, vocab)] == 2 * vocab * d + layers * (4 * d * d + 3 * d * ffn + 2 * d) + d


def test_the_model_is_untied_and_bias_free() -> None:
    config = _config("cpu", 50)
    assert not config.tie_word_embeddings and not config.attention_bias and not config.mlp_bias
    assert config.hidden_act == "silu"  # SwiGLU
    model = build_model(config)
    assert model.lm_head.weight.data_ptr() != model.model.embed_tokens.weight.data_ptr()
    assert not [name for name, _ in model.named_parameters() if name.endswith("bias")]


def test_the_cpu_preset_predicts_every_position() -> None:
    torch.manual_seed(0)
    model = build_model(_config("cpu", 50)).eval()
    ids = torch.tensor([[0, 5, 7, 9, 0]])
    with torch.no_grad():
        out = model(input_ids=ids, labels=ids)
    assert out.logits.shape == (1, 5, 50) and torch.isfinite(out.loss)


def test_bad_presets_and_sizes_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown LLaMA preset 'huge'; presets are tiny, medium, small, large, cpu"):
        _config("huge", 10)
    with pytest.raises(ValueError, match="must be positive"):
        _config("cpu", 0)

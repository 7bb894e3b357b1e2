"""One ``tokenizers`` WordLevel tokenizer per serialization and dataset (spec 3.3): every whitespace-separated
token of the training texts (a DFS tuple, a DGMG action) is one vocabulary entry, after the paper's four special
tokens ``<s>``, ``<unk>``, ``<pad>``, ``<mask>`` (ids 0-3; the DFS vocabulary of 12,293 tuples is 12,297 entries).

The paper names no end-of-sequence token among the four, so ``<s>`` is both: it opens every sequence and closes
it (``<s> t1 ... tn <s>``, the two special tokens Table 10's DGMG lengths count), packed training streams read
``<s> seq <s> seq <s>`` and sampling stops at the first ``<s>`` after the prompt's. Tokens are ordered by text,
so one corpus always gives the same ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import WhitespaceSplit

__all__ = ["BOS", "EOS", "MASK", "PAD", "SPECIAL_TOKENS", "UNK", "build_tokenizer", "decode", "encode"]

BOS = EOS = "<s>"
UNK, PAD, MASK = "<unk>", "<pad>", "<mask>"
SPECIAL_TOKENS = (BOS, UNK, PAD, MASK)


def build_tokenizer(texts: Iterable[str]) -> Tokenizer:
    """The WordLevel tokenizer of ``texts`` (the training serializations of one dataset)."""
    tokens = sorted({token for text in texts for token in text.split()} - set(SPECIAL_TOKENS))
    vocab = {token: i for i, token in enumerate([*SPECIAL_TOKENS, *tokens])}
    tokenizer = Tokenizer(WordLevel(vocab, unk_token=UNK))
    tokenizer.pre_tokenizer = WhitespaceSplit()
    tokenizer.add_special_tokens(list(SPECIAL_TOKENS))
    return tokenizer


def encode(tokenizer: Tokenizer, text: str) -> list[int]:
    """``<s>`` + the text's token ids + ``<s>``; a token outside the vocabulary is ``<unk>``."""
    bos = tokenizer.token_to_id(BOS)
    return [bos, *tokenizer.encode(text, add_special_tokens=False).ids, bos]


def decode(tokenizer: Tokenizer, ids: Sequence[int]) -> str:
    """The text between the first pair of ``<s>`` (all of it after a leading ``<s>`` when no second one comes:
    a sample cut at its length limit), special tokens dropped."""
    bos = tokenizer.token_to_id(BOS)
    body = list(ids[1:]) if ids and ids[0] == bos else list(ids)
    if bos in body:
        body = body[: body.index(bos)]
    return tokenizer.decode(body, skip_special_tokens=True)

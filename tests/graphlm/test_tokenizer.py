"""The WordLevel tokenizer: the four special tokens first, one id per DFS tuple (MUTAG's 382), <s> around every
sequence, unknown tokens as <unk>, and decoding back to the text."""

from __future__ import annotations

from graphaudit.graphlm.tokenizer import SPECIAL_TOKENS, build_tokenizer, decode, encode


def test_specials_come_first_and_tokens_follow_in_text_order() -> None:
    tokenizer = build_tokenizer(["b a", "c a <s>"])
    vocab = tokenizer.get_vocab()
    assert [vocab[t] for t in SPECIAL_TOKENS] == [0, 1, 2, 3]
    assert {t: vocab[t] for t in "abc"} == {"a": 4, "b": 5, "c": 6} and tokenizer.get_vocab_size() == 7


def test_a_sequence_is_wrapped_in_bos_and_decodes_back() -> None:
    tokenizer = build_tokenizer(["(0,1,6,6,1) (1,2,6,7,1)", "ADD_NODE_6 END_EDGE END_NODE"])
    ids = encode(tokenizer, "(0,1,6,6,1) (1,2,6,7,1)")
    assert ids[0] == ids[-1] == 0 and len(ids) == 4
    assert decode(tokenizer, ids) == "(0,1,6,6,1) (1,2,6,7,1)"
    assert decode(tokenizer, [*ids, *encode(tokenizer, "END_NODE")]) == "(0,1,6,6,1) (1,2,6,7,1)"  # first only
    assert decode(tokenizer, ids[:-1]) == "(0,1,6,6,1) (1,2,6,7,1)"  # cut at the length limit
    assert encode(tokenizer, "(9,9,9,9,9)")[1] == 1  # <unk>


def test_mutag_has_one_token_per_distinct_dfs_tuple(tmp_path) -> None:
    from graphaudit.data.fetch import FetchOptions, obtain
    from graphaudit.data.registry import get_spec
    from graphaudit.graphlm.corpus import training_corpus
    from graphaudit.graphs.dfscode import dfs_text

    mutag, _ = obtain(get_spec("MUTAG"), tmp_path, FetchOptions(mirror=None, allow_download=False))
    texts = [dfs_text(g) for g in training_corpus(mutag, "first")]
    tokenizer = build_tokenizer(texts)
    tuples = {t for text in texts for t in text.split()}
    assert tokenizer.get_vocab_size() == len(tuples) + 4
    assert all(decode(tokenizer, encode(tokenizer, text)) == text for text in texts)
    assert all(1 not in encode(tokenizer, text) for text in texts)  # no <unk> in the training texts

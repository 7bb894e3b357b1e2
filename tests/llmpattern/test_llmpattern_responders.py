"""Offline responders: oracle/baseline delegation, batch answering through the cache, replay, the factory."""

from __future__ import annotations

import json

import pytest

from graphaudit.llmpattern.answers import empty_answer
from graphaudit.llmpattern.cache import ResponseCache, prompt_hash
from graphaudit.llmpattern.responders import (
    PROMPT_OPTIONS,
    BaselineResponder,
    OpenAICompatibleResponder,
    OracleResponder,
    ReplayError,
    ReplayResponder,
    make_responder,
)


def _batch(count: int) -> list[tuple[dict, str]]:
    return [
        ({"item_id": f"kcore/undirected/small/{i:04d}", "task": "kcore"}, f"Find the 3-core of graph {i}.")
        for i in range(count)
    ]


class Counting:
    """An answer function that counts its calls and can fail on a chosen call (a killed run)."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.calls: list[str] = []
        self.fail_on = fail_on

    def __call__(self, item: dict) -> str:
        if len(self.calls) == self.fail_on:
            raise KeyboardInterrupt
        self.calls.append(item["item_id"])
        return f"The nodes are: [{item['item_id'][-1]}]"


def test_respond_all_answers_once_through_the_cache(tmp_path) -> None:
    cache = ResponseCache(tmp_path / "oracle.jsonl")
    answer = Counting()
    batch = _batch(3) + [({"item_id": "kcore/undirected/small/0009", "task": "kcore"}, _batch(1)[0][1])]
    first = OracleResponder(answer).respond_all(batch, cache)
    assert [r.item_id for r in first] == [item["item_id"] for item, _ in batch]
    assert [r.cached for r in first] == [False, False, False, True]  # same prompt as item 0: asked once
    assert first[3].text == first[0].text and first[3].prompt_hash == prompt_hash(batch[0][1])
    again = OracleResponder(answer).respond_all(batch, ResponseCache(tmp_path / "oracle.jsonl"))
    assert all(r.cached for r in again) and [r.text for r in again] == [r.text for r in first]
    assert len(answer.calls) == 3


def test_a_killed_batch_resumes(tmp_path) -> None:
    path = tmp_path / "baseline.jsonl"
    with pytest.raises(KeyboardInterrupt):
        BaselineResponder("all_nodes", Counting(fail_on=2)).respond_all(_batch(5), ResponseCache(path))
    assert len(ResponseCache(path)) == 2
    resumed = Counting()
    responses = BaselineResponder("all_nodes", resumed).respond_all(_batch(5), ResponseCache(path))
    assert resumed.calls == [f"kcore/undirected/small/{i:04d}" for i in (2, 3, 4)]
    assert [r.cached for r in responses] == [True, True, False, False, False]


def test_offline_responders_answer_with_the_prompt_options() -> None:
    item, prompt = _batch(1)[0]
    seen = []
    oracle = OracleResponder(answer=lambda it, **options: seen.append(options) or "oracle " + it["item_id"])
    assert oracle.respond(prompt, {**item, PROMPT_OPTIONS: {"fmt": "EL"}}) == "oracle kcore/undirected/small/0000"
    assert seen == [{"fmt": "EL"}]
    assert BaselineResponder("empty").name == "baseline:empty"
    assert BaselineResponder("empty").respond(prompt, item) == empty_answer(item)
    with pytest.raises(ValueError, match="unknown baseline 'nope'; baselines are "):
        BaselineResponder("nope")


def _write_jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_replay_is_deterministic(tmp_path) -> None:
    batch = _batch(3)
    path = tmp_path / "gpt.jsonl"
    _write_jsonl(
        path,
        [
            {"prompt_hash": prompt_hash(batch[0][1]), "response": "first"},
            {"prompt_hash": prompt_hash(batch[0][1]).upper(), "response": "later duplicate"},
            {"item_id": batch[1][0]["item_id"], "prompt_hash": prompt_hash(batch[1][1]), "response": "b"},
            {"prompt_hash": prompt_hash(batch[2][1]), "response": "c", "extra": 1},
            {"prompt_hash": prompt_hash("a prompt of another task"), "response": "x"},
        ],
    )
    runs = [
        ReplayResponder(path, name="gpt-4o").respond_all(batch, ResponseCache(tmp_path / f"c{i}.jsonl"))
        for i in range(2)
    ]
    assert [r.text for r in runs[0]] == [r.text for r in runs[1]] == ["first", "b", "c"]
    assert (tmp_path / "c0.jsonl").read_bytes() == (tmp_path / "c1.jsonl").read_bytes()
    check = ReplayResponder(path).check(batch)
    assert check.ok and check.missing == check.mismatched == [] and check.unused == 2


def test_replay_detects_hash_mismatch_and_missing(tmp_path) -> None:
    batch = _batch(4)
    path = tmp_path / "user.jsonl"
    _write_jsonl(
        path,
        [
            {
                "item_id": batch[0][0]["item_id"],
                "prompt_hash": prompt_hash(batch[0][1] + " (old)"),
                "response": "stale",
            },
            {"item_id": batch[1][0]["item_id"], "prompt_hash": prompt_hash(batch[1][1]), "response": "ok"},
        ],
    )
    replay = ReplayResponder(path)
    check = replay.check(batch)
    assert check.mismatched == [batch[0][0]["item_id"]] and not check.ok
    assert check.missing == [batch[2][0]["item_id"], batch[3][0]["item_id"]] and check.unused == 1
    cache_path = tmp_path / "cache.jsonl"
    with pytest.raises(
        ReplayError,
        match=r"2 items have no response .*; 1 items have a response to a different "
        r"prompt, i.e. the prompt hash does not match",
    ):
        replay.respond_all(batch, ResponseCache(cache_path))
    assert not cache_path.exists()  # checked before anything is written
    with pytest.raises(ReplayError, match="answers a different prompt"):
        replay.respond(batch[0][1], batch[0][0])
    with pytest.raises(ReplayError, match="no response for item"):
        replay.respond(batch[2][1], batch[2][0])
    assert replay.respond(batch[1][1], batch[1][0]) == "ok"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"prompt_hash": "ab", "response": "x"}, "needs 'prompt_hash', the 64-hex SHA-256"),
        ({"prompt_hash": "0" * 64}, "needs a text 'response'"),
    ],
)
def test_replay_rejects_bad_rows(tmp_path, row: dict, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    _write_jsonl(path, [{"prompt_hash": "1" * 64, "response": "fine"}, row])
    with pytest.raises(ReplayError, match=f"row 2 {message}"):
        ReplayResponder(path)


def test_replay_rejects_conflicting_rows_for_one_item(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    _write_jsonl(
        path,
        [
            {"item_id": "a", "prompt_hash": "1" * 64, "response": "x"},
            {"item_id": "a", "prompt_hash": "1" * 64, "response": "y"},
        ],
    )
    with pytest.raises(ReplayError, match="row 2 gives item 'a' a second, different"):
        ReplayResponder(path)


def test_a_cache_file_replays(tmp_path) -> None:
    batch = _batch(2)
    OracleResponder(Counting()).respond_all(batch, ResponseCache(tmp_path / "cache.jsonl"))
    replayed = ReplayResponder(tmp_path / "cache.jsonl").respond_all(batch, ResponseCache(tmp_path / "r.jsonl"))
    assert [r.text for r in replayed] == ["The nodes are: [0]", "The nodes are: [1]"]


def test_make_responder(tmp_path) -> None:
    (tmp_path / "r.jsonl").write_text("")
    assert isinstance(make_responder("oracle"), OracleResponder)
    assert make_responder("baseline:degree_sort").name == "baseline:degree_sort"
    replay = make_responder({"responder": f"replay:{tmp_path / 'r.jsonl'}", "name": "gpt-4o"})
    assert isinstance(replay, ReplayResponder) and replay.name == "gpt-4o"
    llm = make_responder(
        {"responder": "openai-compatible:ft:gpt-4o:org:1", "max_tokens": 100},
        {"base_url": "http://127.0.0.1:9/v1/", "max_tokens": 50, "temperature": 0},
    )
    assert isinstance(llm, OpenAICompatibleResponder) and llm.name == "openai-compatible:ft:gpt-4o:org:1"
    assert llm.url == "http://127.0.0.1:9/v1/chat/completions"
    assert llm.settings == {"model": "ft:gpt-4o:org:1", "temperature": 0.0, "max_tokens": 100}
    for spec, message in [
        ("gpt-4", "unknown responder 'gpt-4'"),
        ("oracle:x", "oracle takes no argument"),
        ("baseline:", "baseline needs an argument"),
        ({"responder": "oracle", "temperature": 0}, "oracle responder: unknown option"),
        ({"responder": "openai-compatible:m", "api_key": "sk"}, "unknown option.*api_key"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_responder(spec)

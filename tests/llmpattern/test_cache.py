"""The response cache: key stability, round trip, resume after a torn tail, refusal of secrets."""

from __future__ import annotations

import json

import pytest

from graphaudit.llmpattern.cache import (
    ENTRY_FIELDS,
    OUTCOME_FIELDS,
    ResponseCache,
    outcome_of,
    prompt_hash,
    response_key,
)

SETTINGS = {"model": "m", "temperature": 0.0, "max_tokens": 64}


def _fill(cache: ResponseCache, count: int) -> None:
    for index in range(count):
        cache.add(
            responder="r",
            settings=SETTINGS,
            prompt=f"prompt {index}",
            response=f"answer {index}",
            item_id=f"detection/undirected/small/{index:04d}",
            meta={"usage": {"total_tokens": index}},
        )


def test_key_is_stable_and_content_addressed() -> None:
    key = response_key("openai-compatible:m", SETTINGS, "Is there a triangle?")
    # golden value: a change here silently invalidates every cache users have paid for
    assert key == "59e7dfab5c1544ac6d8fedc1a070b06ef2b62703d22274d49cc08356b7a8acc3"
    assert key == response_key("openai-compatible:m", dict(reversed(SETTINGS.items())), "Is there a triangle?")
    others = {
        response_key("openai-compatible:n", SETTINGS, "Is there a triangle?"),
        response_key("openai-compatible:m", {**SETTINGS, "temperature": 0.5}, "Is there a triangle?"),
        response_key("openai-compatible:m", SETTINGS, "Is there a triangle? "),
        response_key("openai-compatible:m", {**SETTINGS, "temperature": 0}, "Is there a triangle?"),
    }
    assert key not in others and len(others) == 4
    assert prompt_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_round_trip(tmp_path) -> None:
    path = tmp_path / "responses" / "m" / "detection.jsonl"
    cache = ResponseCache(path)
    _fill(cache, 3)
    odd = cache.add(responder="r", settings={}, prompt="π", response="line\u2028sep\x85 and é", item_id=None)
    reopened = ResponseCache(path)
    assert len(reopened) == 4 and odd["key"] in reopened
    assert reopened.get(odd["key"]) == odd and reopened.get(odd["key"])["response"] == "line\u2028sep\x85 and é"
    entry = reopened.get(response_key("r", SETTINGS, "prompt 1"))
    assert entry["response"] == "answer 1" and entry["prompt_hash"] == prompt_hash("prompt 1")
    assert entry["item_id"] == "detection/undirected/small/0001" and entry["meta"] == {"usage": {"total_tokens": 1}}
    assert reopened.get("0" * 64) is None
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5 and all(line.isascii() for line in lines)
    assert sorted(json.loads(lines[0])) == sorted(ENTRY_FIELDS + OUTCOME_FIELDS)
    assert (entry["outcome"], entry["finish_reason"], entry["error"]) == ("ok", None, None)


def test_resume_after_torn_tail(tmp_path) -> None:
    path = tmp_path / "cache.jsonl"
    _fill(ResponseCache(path), 2)
    with open(path, "ab") as handle:  # a run killed in the middle of its third line
        handle.write(b'{"item_id":"x","key":"ab')
    cache = ResponseCache(path)
    assert len(cache) == 2
    cache.add(responder="r", settings=SETTINGS, prompt="prompt 2", response="answer 2")
    with open(path, "ab") as handle:  # torn again, this time while the same cache object is open
        handle.write(b'{"item_id":')
    cache.add(responder="r", settings=SETTINGS, prompt="prompt 3", response="answer 3")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [row["response"] for row in rows] == [f"answer {i}" for i in range(4)]
    assert len(ResponseCache(path)) == 4


def test_entries_are_immutable_and_checked(tmp_path) -> None:
    cache = ResponseCache(tmp_path / "cache.jsonl")
    _fill(cache, 1)
    with pytest.raises(ValueError, match="already cached"):
        cache.add(responder="r", settings=SETTINGS, prompt="prompt 0", response="other")
    with pytest.raises(TypeError, match="must be text"):
        cache.add(responder="r", settings={}, prompt="p", response=None)  # type: ignore[arg-type]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"response": "x"}\n')
    with pytest.raises(ValueError, match="entry 1 is not a cache entry"):
        ResponseCache(bad)


@pytest.mark.parametrize("field", ["settings", "meta"])
def test_secret_fields_never_stored(tmp_path, field: str) -> None:
    cache = ResponseCache(tmp_path / "cache.jsonl")
    leaky = {"request": {"headers": {"Authorization": "Bearer sk-x"}}} if field == "meta" else {"api_key": "sk-x"}
    with pytest.raises(ValueError, match="never go into the cache"):
        cache.add(
            responder="r",
            settings=leaky if field == "settings" else {},
            prompt="p",
            response="a",
            meta=leaky if field == "meta" else None,
        )
    assert not (tmp_path / "cache.jsonl").exists()


def test_outcome_of_a_finish_reason() -> None:
    assert [outcome_of(reason) for reason in ("stop", None, "length", "content_filter", "refusal", "tool_calls")] == [
        "ok",
        "ok",
        "truncated",
        "content_filter",
        "refusal",
        "ok",
    ]
    assert outcome_of("stop", refused=True) == "refusal"


def test_an_error_entry_is_superseded_and_other_outcomes_are_kept(tmp_path) -> None:
    path = tmp_path / "cache.jsonl"
    cache = ResponseCache(path)
    failed = cache.add(responder="r", settings=SETTINGS, prompt="p", response="", outcome="error", error="HTTP 400")
    cut = cache.add(
        responder="r", settings=SETTINGS, prompt="q", response="[1, 2", outcome="truncated", finish_reason="length"
    )
    assert (failed["outcome"], failed["error"], cut["finish_reason"]) == ("error", "HTTP 400", "length")
    assert ResponseCache(path).get(failed["key"])["outcome"] == "error"  # a failure is recorded ...
    answered = cache.add(responder="r", settings=SETTINGS, prompt="p", response="[1]", finish_reason="stop")
    assert cache.get(failed["key"]) == answered  # ... and the next answer supersedes it, in memory and on disk
    reopened = ResponseCache(path)
    assert len(reopened) == 2 and reopened.get(failed["key"]) == answered and len(path.read_text().splitlines()) == 3
    with pytest.raises(ValueError, match="already cached"):  # only an error is ever superseded
        cache.add(responder="r", settings=SETTINGS, prompt="q", response="[1, 2]")


def test_an_answer_is_never_superseded_by_a_later_line(tmp_path) -> None:
    path = tmp_path / "cache.jsonl"
    entry = ResponseCache(path).add(responder="r", settings=SETTINGS, prompt="p", response="first")
    with open(path, "a") as handle:  # a second line for the key, e.g. two files concatenated
        handle.write(json.dumps({**entry, "response": "second"}) + "\n")
    assert ResponseCache(path).get(entry["key"])["response"] == "first"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"outcome": "timeout"}, "unknown outcome 'timeout'"),
        ({"outcome": "error"}, "an 'error' entry needs error message"),
        ({"error": "HTTP 400"}, "an 'ok' entry takes no error message"),
    ],
)
def test_outcomes_are_checked(tmp_path, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ResponseCache(tmp_path / "cache.jsonl").add(responder="r", settings={}, prompt="p", response="", **options)


def test_an_entry_from_before_outcomes_reads_its_finish_reason(tmp_path) -> None:
    path = tmp_path / "old.jsonl"
    old = {"item_id": "a", "key": "1" * 64, "meta": {"finish_reason": "length"}, "prompt_hash": "2" * 64}
    rows = [{**old, "responder": "r", "response": "[1,", "settings": {}}, {**old, "key": "3" * 64, "meta": {}}]
    path.write_text(
        "".join(json.dumps({"responder": "r", "response": "", "settings": {}, **row}) + "\n" for row in rows)
    )
    cache = ResponseCache(path)
    assert (cache.get("1" * 64)["outcome"], cache.get("1" * 64)["finish_reason"]) == ("truncated", "length")
    assert (cache.get("3" * 64)["outcome"], cache.get("3" * 64)["error"]) == ("ok", None)
    path.write_text(json.dumps({**rows[0], "outcome": "odd", "error": None, "finish_reason": None}) + "\n")
    with pytest.raises(ValueError, match="entry 1 has the outcome 'odd'"):
        ResponseCache(path)

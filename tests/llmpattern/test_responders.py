"""Responders: oracle/baseline delegation, batch answering through the cache, replay, the factory, and the
OpenAI-compatible responder against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import traceback

import pytest

from graphaudit.llmpattern.answers import empty_answer
from graphaudit.llmpattern.cache import ResponseCache, prompt_hash, response_key
from graphaudit.llmpattern.responders import (
    PROMPT_OPTIONS,
    BaselineResponder,
    CredentialsError,
    OpenAICompatibleResponder,
    OracleResponder,
    RateLimiter,
    ReplayError,
    ReplayResponder,
    ResponderError,
    backoff_delay,
    check_model_options,
    make_responder,
)

from .fake_llm import KEY, KEY_ENV, FakeServer, completion


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


# ---- the OpenAI-compatible responder ----------------------------------------------------------------------
def _client(server: FakeServer, sleeps: list[float] | None = None, **options) -> OpenAICompatibleResponder:
    record = sleeps if sleeps is not None else []
    return OpenAICompatibleResponder(
        "tiny-model",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        max_tokens=32,
        timeout_s=5,
        sleep=record.append,
        **options,
    )


def _detection_batch(count: int) -> list[tuple[dict, str]]:
    return [
        ({"item_id": f"detection/undirected/small/{i:04d}"}, f"Does graph {i} contain a triangle?")
        for i in range(count)
    ]


def _everything_said(error: BaseException) -> str:
    return str(error) + repr(error) + "".join(traceback.format_exception(error))


def test_round_trip_and_the_key_stays_out_of_the_cache(server: FakeServer, tmp_path) -> None:
    cache_path = tmp_path / "responses.jsonl"
    responses = _client(server).respond_all(_detection_batch(2), ResponseCache(cache_path))
    assert [r.text for r in responses] == [
        "answer to Does graph 0 contain a triangle?",
        "answer to Does graph 1 contain a triangle?",
    ]
    assert responses[0].meta == {
        "id": "chatcmpl-1",
        "created": 1700000000,
        "model": "tiny-model",
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
    assert (responses[0].finish_reason, responses[0].outcome, responses[0].error) == ("stop", "ok", None)
    assert responses[0].answered
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["body"] == {
        "model": "tiny-model",
        "temperature": 0.0,
        "max_tokens": 32,
        "messages": [{"role": "user", "content": "Does graph 0 contain a triangle?"}],
    }
    text = cache_path.read_text()
    assert KEY not in text and KEY_ENV not in text and "Authorization" not in text and "Bearer" not in text


def test_a_cached_prompt_is_never_sent_twice(server: FakeServer, tmp_path, monkeypatch) -> None:
    batch = _detection_batch(2) + [({"item_id": "detection/undirected/small/0002"}, _detection_batch(1)[0][1])]
    first = _client(server).respond_all(batch, ResponseCache(tmp_path / "c.jsonl"))
    assert len(server.requests) == 2 and [r.cached for r in first] == [False, False, True]
    monkeypatch.delenv(KEY_ENV)  # re-scoring from the cache needs no key
    again = _client(server).respond_all(batch, ResponseCache(tmp_path / "c.jsonl"))
    assert len(server.requests) == 2 and all(r.cached for r in again)
    with pytest.raises(CredentialsError, match=f"set the environment variable {KEY_ENV}"):
        _client(server).respond_all(_detection_batch(3), ResponseCache(tmp_path / "c.jsonl"))
    assert len(server.requests) == 2


def test_retries_429_and_5xx_with_backoff(server: FakeServer) -> None:
    server.script = [
        (429, {"error": "slow down"}, {"Retry-After": "3"}, 0.0),
        (500, {"error": "oops"}, {}, 0.0),
        (503, b"unavailable", {}, 0.0),
        (502, b"bad gateway", {}, 0.0),
    ]
    sleeps: list[float] = []
    item, prompt = _detection_batch(1)[0]
    assert _client(server, sleeps, backoff_s=1.0, backoff_cap_s=5.0).respond(prompt, item).startswith("answer")
    assert sleeps == [3.0, 2.0, 4.0, 5.0] and len(server.requests) == 5  # Retry-After, 2**k, then the cap


def test_gives_up_after_max_retries_without_showing_the_key(server: FakeServer, caplog) -> None:
    def echo(headers) -> str:  # an upstream error body that repeats the Authorization header
        return f"upstream failed for {headers['Authorization']}"

    server.script = [(500, echo, {}, 0.0)] * 3
    sleeps: list[float] = []
    item, prompt = _detection_batch(1)[0]
    with pytest.raises(ResponderError, match="gave up after 3 attempts; last: HTTP 500") as caught:
        _client(server, sleeps, max_retries=2).respond(prompt, item)
    assert sleeps == [1.0, 2.0] and KEY not in _everything_said(caught.value)
    assert "[REDACTED]" in str(caught.value)
    assert "retry 2/2" in caplog.text and KEY not in caplog.text  # the retry warnings are redacted too


def test_client_errors_are_not_retried_and_are_redacted(server: FakeServer) -> None:
    server.script = [(401, lambda headers: {"error": f"bad key {headers['Authorization']}"}, {}, 0.0)]
    sleeps: list[float] = []
    item, prompt = _detection_batch(1)[0]
    with pytest.raises(ResponderError, match="HTTP 401") as caught:
        _client(server, sleeps).respond(prompt, item)
    assert sleeps == [] and len(server.requests) == 1 and KEY not in _everything_said(caught.value)


def test_redirects_are_not_followed(server: FakeServer) -> None:
    server.script = [(302, b"", {"Location": "http://127.0.0.1:9/elsewhere"}, 0.0)]
    item, prompt = _detection_batch(1)[0]
    with pytest.raises(ResponderError, match=r"HTTP 302 .*redirected to http://127.0.0.1:9/elsewhere"):
        _client(server).respond(prompt, item)
    assert len(server.requests) == 1


def test_retries_a_timeout(server: FakeServer) -> None:
    server.script = [(200, {"late": True}, {}, 1.5)]
    sleeps: list[float] = []
    item, prompt = _detection_batch(1)[0]
    client = OpenAICompatibleResponder(
        "tiny-model", base_url=server.base_url, api_key_env=KEY_ENV, timeout_s=0.5, sleep=sleeps.append
    )
    assert client.respond(prompt, item) == f"answer to {prompt}"
    assert sleeps[0] == 1.0 and len(server.requests) == len(sleeps) + 1  # a loaded machine may time out again


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"<html>", "not JSON"),
        ({"choices": []}, "not a chat completion"),
        ({"choices": [{"message": {"content": ["a", "list"]}}]}, "content is list, not text"),
    ],
)
def test_a_malformed_answer_is_an_error_outcome_and_the_batch_goes_on(
    server: FakeServer, tmp_path, payload: object, message: str
) -> None:
    server.script = [(200, payload, {}, 0.0)]
    responses = _client(server).respond_all(_detection_batch(2), ResponseCache(tmp_path / "c.jsonl"))
    assert [r.outcome for r in responses] == ["error", "ok"] and message in responses[0].error
    assert responses[0].text == "" and not responses[0].answered and responses[1].answered


def test_keyless_server_and_omitted_fields(server: FakeServer) -> None:
    item, prompt = _detection_batch(1)[0]
    client = OpenAICompatibleResponder(
        "o1-mini",
        base_url=server.base_url,
        api_key_env=None,
        temperature=None,
        max_tokens=None,
        max_completion_tokens=64,
        extra_body={"seed": 0},
    )
    client.respond(prompt, item)
    sent = server.requests[0]
    assert "Authorization" not in sent["headers"]
    assert sent["body"] == {
        "model": "o1-mini",
        "max_completion_tokens": 64,
        "seed": 0,
        "messages": [{"role": "user", "content": prompt}],
    }
    assert client.settings == {"model": "o1-mini", "max_completion_tokens": 64, "seed": 0}
    with pytest.raises(ValueError, match="extra_body may not set messages"):
        OpenAICompatibleResponder("m", extra_body={"messages": []})
    with pytest.raises(ValueError, match=r"extra_body may not set max_completion_tokens, temperature .*as options"):
        OpenAICompatibleResponder("m", extra_body={"temperature": 1, "max_completion_tokens": 8})
    with pytest.raises(ValueError, match=r"set max_tokens or max_completion_tokens, not both .*set max_tokens to null"):
        OpenAICompatibleResponder("m", max_completion_tokens=64)
    with pytest.raises(ValueError, match="base_url must start with http"):
        OpenAICompatibleResponder("m", base_url="api.openai.com/v1")


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_requests() -> None:
    clock = FakeClock()
    limiter = RateLimiter(30, clock=clock, sleep=clock.sleep)
    limiter.wait()
    clock.now += 0.5
    limiter.wait()
    clock.now += 10.0  # idle longer than the interval: no wait, and no burst credit
    limiter.wait()
    limiter.wait()
    assert clock.sleeps == [1.5, 2.0]
    with pytest.raises(ValueError, match="must be positive"):
        RateLimiter(0)


def test_rate_limit_applies_to_requests(server: FakeServer) -> None:
    clock = FakeClock()
    client = OpenAICompatibleResponder(
        "tiny-model",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        requests_per_minute=120,
        clock=clock,
        sleep=clock.sleep,
    )
    for item, prompt in _detection_batch(3):
        client.respond(prompt, item)
    assert clock.sleeps == [0.5, 0.5] and len(server.requests) == 3


def test_backoff_delay() -> None:
    assert [backoff_delay(k, 0.5, 3.0) for k in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert backoff_delay(0, 1.0, 60.0, retry_after_s=10.0) == 10.0
    assert backoff_delay(0, 1.0, 60.0, retry_after_s=600.0) == 60.0


# ---- outcomes: non-answers are recorded and counted, never scored as answers --------------------------------
def _fixed(finish_reason: str | None, **message: object) -> dict:
    """A completion with a chosen finish reason and message fields, for a scripted answer."""
    return completion({"model": "tiny-model", "messages": [{"content": "cut"}]}, finish_reason, **message)


def test_a_non_retryable_error_is_the_prompts_outcome_and_the_set_completes(server: FakeServer, tmp_path) -> None:
    server.script = [
        (200, _fixed("stop"), {}, 0.0),
        (400, lambda headers: {"error": f"context too long for {headers['Authorization']}"}, {}, 0.0),
    ]
    sleeps: list[float] = []
    path = tmp_path / "c.jsonl"
    batch = _detection_batch(3)
    responses = _client(server, sleeps).respond_all(batch, ResponseCache(path))
    assert [r.outcome for r in responses] == ["ok", "error", "ok"] and len(server.requests) == 3 and sleeps == []
    failed = responses[1]
    assert failed.text == "" and failed.finish_reason is None and not failed.cached
    assert failed.error.startswith("openai-compatible:tiny-model: HTTP 400 from ") and "[REDACTED]" in failed.error
    assert KEY not in path.read_text() and ResponseCache(path).get(failed.key)["outcome"] == "error"
    again = _client(server).respond_all(batch, ResponseCache(path))  # a rerun asks again only what failed
    assert len(server.requests) == 4 and server.requests[-1]["body"]["messages"][0]["content"] == batch[1][1]
    assert [r.cached for r in again] == [True, False, True] and all(r.answered for r in again)
    assert ResponseCache(path).get(failed.key)["outcome"] == "ok" and len(ResponseCache(path)) == 3


@pytest.mark.parametrize(
    ("payload", "outcome", "text"),
    [
        (_fixed("length", content="[(1, 2), (2,"), "truncated", "[(1, 2), (2,"),
        (_fixed("content_filter", content=None), "content_filter", ""),
        (_fixed("stop", content=None, refusal="I can't help with that."), "refusal", "I can't help with that."),
        (_fixed("refusal", content=""), "refusal", ""),
    ],
)
def test_truncation_filters_and_refusals_are_stored_as_outcomes(
    server: FakeServer, tmp_path, payload: dict, outcome: str, text: str
) -> None:
    server.script = [(200, payload, {}, 0.0)]
    path = tmp_path / "c.jsonl"
    batch = _detection_batch(2)
    responses = _client(server).respond_all(batch, ResponseCache(path))
    assert (responses[0].outcome, responses[0].text, responses[0].answered) == (outcome, text, False)
    assert responses[0].finish_reason == payload["choices"][0]["finish_reason"] and responses[1].outcome == "ok"
    stored = ResponseCache(path).get(responses[0].key)
    assert (stored["outcome"], stored["finish_reason"], stored["response"]) == (
        outcome,
        responses[0].finish_reason,
        text,
    )
    again = _client(server).respond_all(batch, ResponseCache(path))
    assert len(server.requests) == 2 and again[0].cached and again[0].outcome == outcome  # a non-answer is kept
    replayed = ReplayResponder(path).respond_all(batch, ResponseCache(tmp_path / "r.jsonl"))
    assert [r.outcome for r in replayed] == [outcome, "ok"]  # the cache replays with its outcomes


def test_a_refused_key_or_a_wrong_address_stops_the_job(server: FakeServer) -> None:
    item, prompt = _detection_batch(1)[0]
    for status, reason in [(403, "the key is refused"), (404, "no such address or model")]:
        server.script = [(status, {"error": "no"}, {}, 0.0)]
        with pytest.raises(ResponderError, match=rf"HTTP {status} .*\({reason}, so every prompt would fail"):
            _client(server).respond(prompt, item)


def test_a_conflict_is_retried(server: FakeServer) -> None:
    server.script = [(409, {"error": "busy"}, {}, 0.0)]
    sleeps: list[float] = []
    item, prompt = _detection_batch(1)[0]
    assert _client(server, sleeps).reply(prompt, item).outcome == "ok" and sleeps == [1.0]


def test_many_errors_in_a_row_stop_the_batch(server: FakeServer, tmp_path) -> None:
    bad = (400, {"error": "Unsupported parameter: 'temperature'"}, {}, 0.0)
    server.script = [bad, (200, _fixed("stop"), {}, 0.0), bad, bad]
    path = tmp_path / "c.jsonl"
    with pytest.raises(ResponderError, match=r"2 prompts in a row failed, the last with: .*Unsupported parameter"):
        _client(server, max_consecutive_errors=2).respond_all(_detection_batch(5), ResponseCache(path))
    assert len(server.requests) == 4  # an answer between two errors resets the count
    assert [e["outcome"] for e in map(json.loads, path.read_text().splitlines())] == ["error", "ok", "error"]
    with pytest.raises(ValueError, match="max_consecutive_errors must be at least 1"):
        OpenAICompatibleResponder("m", max_consecutive_errors=0)


def test_replay_rows_carry_outcomes_and_skip_failed_requests(tmp_path) -> None:
    batch = _batch(3)
    rows = [
        {"prompt_hash": prompt_hash(batch[0][1]), "response": "[1, 2", "finish_reason": "length"},
        {"prompt_hash": prompt_hash(batch[1][1]), "response": "", "outcome": "error"},
        {"prompt_hash": prompt_hash(batch[1][1]), "response": "[3]", "outcome": "ok"},
        {"prompt_hash": prompt_hash(batch[2][1]), "response": "", "outcome": "error"},
    ]
    _write_jsonl(tmp_path / "r.jsonl", rows)
    replay = ReplayResponder(tmp_path / "r.jsonl")
    assert replay.check(batch).missing == [batch[2][0]["item_id"]]  # a failed request is no answer
    assert [replay.reply(p, item).outcome for item, p in batch[:2]] == ["truncated", "ok"]
    _write_jsonl(tmp_path / "bad.jsonl", [{**rows[0], "outcome": "lost"}])
    with pytest.raises(ReplayError, match="row 1 has the outcome 'lost'"):
        ReplayResponder(tmp_path / "bad.jsonl")


# ---- per-model settings ----------------------------------------------------------------------------------------
def test_an_o1_style_model_sends_max_completion_tokens_and_no_temperature(server: FakeServer, tmp_path) -> None:
    shared = {"base_url": server.base_url, "api_key_env": KEY_ENV, "max_tokens": 32}
    chat = make_responder("openai-compatible:gpt-4o", shared)
    reasoning = make_responder(
        "openai-compatible:o1-mini", {**shared, "temperature": None, "max_tokens": None, "max_completion_tokens": 99}
    )
    batch = _detection_batch(1)
    for responder in (chat, reasoning):
        responder.respond_all(batch, ResponseCache(tmp_path / f"{responder.model}.jsonl"))
    sent = [{k: v for k, v in r["body"].items() if k != "messages"} for r in server.requests]
    assert sent == [
        {"model": "gpt-4o", "temperature": 0.0, "max_tokens": 32},
        {"model": "o1-mini", "max_completion_tokens": 99},
    ]


def test_the_cache_key_follows_the_body_settings_only(tmp_path) -> None:
    prompt = _batch(1)[0][1]

    def key(**options) -> str:
        responder = make_responder("openai-compatible:o1-mini", {"temperature": None, "max_tokens": None, **options})
        return response_key(responder.name, responder.settings, prompt)

    base = key(max_completion_tokens=100)
    assert base == key(max_completion_tokens=100, base_url="http://127.0.0.1:9/v1", requests_per_minute=5)
    assert base == key(max_completion_tokens=100, rate_file=str(tmp_path / "rate"), max_consecutive_errors=3)
    assert len({base, key(max_completion_tokens=200), key(max_completion_tokens=100, extra_body={"seed": 1})}) == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_tokens": 10, "temprature": 0}, r"unknown option\(s\) temprature; allowed: api_key_env, "),
        ({"rate_file": "x"}, r"unknown option\(s\) rate_file"),  # the workflow sets it, never the config
        ({"max_completion_tokens": 64}, "set max_tokens or max_completion_tokens, not both"),
        ({"max_tokens": [1]}, "openai-compatible responder: int"),
        ({"temperature": "low"}, "could not convert string to float"),
    ],
)
def test_check_model_options_names_the_mistake(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_model_options("o1-mini", options)


# ---- one request schedule for every job of a model -------------------------------------------------------------
def test_limiters_sharing_a_file_share_one_schedule(tmp_path) -> None:
    clock = FakeClock()
    path = tmp_path / "model" / "requests.rate"
    first, second = (RateLimiter(60, clock=clock, sleep=clock.sleep, path=path) for _ in range(2))
    for limiter in (first, second, first, second):  # two jobs, alternating, at one instant
        limiter.wait()
    assert clock.sleeps == [1.0, 1.0, 1.0]  # one start per second in all, not one per job
    path.write_text("1")  # a file a killed process left half-written reads as an old booking
    clock.now += 0.25
    second.wait()
    path.write_text("")
    first.wait()
    assert clock.sleeps == [1.0, 1.0, 1.0]
    assert float(path.read_text()) == clock.now + 1.0

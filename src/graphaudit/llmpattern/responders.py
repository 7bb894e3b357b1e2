"""Responders: whatever turns a prompt into an answer text (exact solver, baselines, replayed files, LLM APIs).

Every responder has a ``name`` (the responder id of the cache key), ``settings`` (what else changes its
output) and ``respond(prompt, item) -> str``. :meth:`Responder.respond_all` answers a batch through a
:class:`~graphaudit.llmpattern.cache.ResponseCache`: cached prompts are never asked again, and each new
answer is appended to the cache as soon as it arrives, so a killed run resumes where it stopped.

Implementations:

- :class:`OracleResponder` and :class:`BaselineResponder` wrap an answer function ``item -> str``
  (by default ``oracle_answer`` and ``BASELINES[name]`` of :mod:`graphaudit.llmpattern.answers`, imported
  at the first call, not at import time).
- :class:`ReplayResponder` answers from a user's JSONL of ``{prompt_hash, response}`` or
  ``{item_id, prompt_hash, response}`` lines and checks the hashes against the prompts built here; it never
  calls a model.
- :class:`OpenAICompatibleResponder` posts to ``{base_url}/chat/completions`` (OpenAI, vLLM, llama.cpp
  server, Ollama, ...) with the standard library only: temperature 0 (or, for o1-style models, no temperature
  and ``max_completion_tokens``), retries with capped exponential backoff on 408/409/429/5xx/timeouts, and an
  optional requests-per-minute limit that parallel jobs of one model share through a lock file. The API key is
  read from the environment variable named in the config at each request; it is never stored, cached, logged
  or shown in an error.

Every answer has an outcome (:data:`graphaudit.llmpattern.cache.OUTCOMES`): a truncated output, a content
filter, a refusal or a request that failed for this prompt alone (another 4xx, a malformed payload) is
recorded as such and the batch goes on; only failures that every prompt would share (no key, a refused key,
a wrong address, a server that stays down, many failures in a row) stop it.

:func:`make_responder` builds one from a spec string (``oracle``, ``baseline:<name>``, ``replay:<path>``,
``openai-compatible:<model>``) or a mapping ``{"responder": <spec>, <option>: ...}``.
"""

from __future__ import annotations

import fcntl
import http.client
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from graphaudit.common.progress import track
from graphaudit.common.records import read_records
from graphaudit.llmpattern.answers import BASELINES, oracle_answer
from graphaudit.llmpattern.cache import NON_ANSWERS, OUTCOMES, ResponseCache, outcome_of, prompt_hash, response_key
from graphaudit.llmpattern.datasets import Item

__all__ = [
    "DEFAULT_BASE_URL",
    "MODEL_OPTIONS",
    "PROMPT_OPTIONS",
    "AnswerFunction",
    "BaselineResponder",
    "CredentialsError",
    "OpenAICompatibleResponder",
    "OracleResponder",
    "PromptError",
    "RateLimiter",
    "ReplayCheck",
    "ReplayError",
    "ReplayResponder",
    "Reply",
    "Responder",
    "ResponderError",
    "Response",
    "backoff_delay",
    "check_model_options",
    "make_responder",
    "parse_spec",
]

log = logging.getLogger(__name__)

AnswerFunction = Callable[[Item], str]
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
# A refused key, a wrong address or method: every prompt would fail the same way, so the job stops.
_FATAL_STATUSES = {
    401: "the key is refused",
    403: "the key is refused",
    404: "no such address or model",
    405: "no such address or model",
}
_ERROR_BODY_CHARS = 500
_SHOWN_IDS = 5


class ResponderError(RuntimeError):
    """A responder could not produce an answer (the message never contains a credential)."""


class CredentialsError(ResponderError):
    """The environment variable that should hold the API key is not set."""


class ReplayError(ResponderError):
    """A replay file lacks responses for some prompts, or answers a different prompt than the one built."""


class PromptError(ResponderError):
    """One prompt failed in a way the next need not (an HTTP 400, a malformed payload): recorded as its
    ``error`` outcome, and the batch goes on."""


@dataclass(frozen=True)
class Reply:
    """One answer as a backend returns it: the text, what it reported (usage, ids, ...), its finish reason and
    outcome (``error`` with the message when the request failed for this prompt)."""

    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    outcome: str = "ok"
    error: str | None = None


@dataclass(frozen=True)
class Response:
    """One item's answer in a batch; ``cached`` says whether it came from the cache, ``outcome`` whether
    ``text`` is an answer at all (see :attr:`answered`)."""

    item_id: str
    prompt_hash: str
    key: str
    text: str
    cached: bool
    meta: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    outcome: str = "ok"
    error: str | None = None

    @property
    def answered(self) -> bool:
        """Whether ``text`` is an answer to score (a truncated, filtered, refused or failed one is not)."""
        return self.outcome == "ok"


class Responder(Protocol):
    """Turns a prompt (and the item it was built from) into an answer text.

    Implementations subclass this protocol to inherit :meth:`reply` and :meth:`respond_all`.
    """

    name: str

    @property
    def settings(self) -> dict[str, Any]:
        """Output-affecting settings (JSON values), part of the cache key; never credentials."""
        return {}

    def respond(self, prompt: str, item: Item) -> str:
        """The answer to one prompt."""
        ...

    def reply(self, prompt: str, item: Item) -> Reply:
        """The answer with its metadata; backends that report metadata override this."""
        return Reply(self.respond(prompt, item))

    def respond_all(self, items_with_prompts: Sequence[tuple[Item, str]], cache: ResponseCache) -> list[Response]:
        """Answer every (item, prompt) in order, asking only for prompts not yet in ``cache``.

        Each new answer is appended to the cache before the next prompt is sent.
        """
        responses = []
        for item, prompt in track(items_with_prompts, label=f"responses from {self.name}"):
            responses.append(_answer(self, item, prompt, cache))
        _log_non_answers(self.name, responses)
        return responses


def _answer(responder: Responder, item: Item, prompt: str, cache: ResponseCache) -> Response:
    """The cached response to ``prompt``, or a new one (a cached ``error`` is a failure, not an answer: asked again)."""
    settings = responder.settings
    entry = cache.get(response_key(responder.name, settings, prompt))
    cached = entry is not None and entry["outcome"] != "error"
    if not cached:
        reply = responder.reply(prompt, item)
        entry = cache.add(
            responder=responder.name,
            settings=settings,
            prompt=prompt,
            response=reply.text,
            item_id=item["item_id"],
            meta=reply.meta,
            outcome=reply.outcome,
            finish_reason=reply.finish_reason,
            error=reply.error,
        )
    return Response(
        item_id=item["item_id"],
        prompt_hash=entry["prompt_hash"],
        key=entry["key"],
        text=entry["response"],
        cached=cached,
        meta=dict(entry["meta"]),
        finish_reason=entry["finish_reason"],
        outcome=entry["outcome"],
        error=entry["error"],
    )


def _log_non_answers(name: str, responses: Sequence[Response]) -> None:
    """One warning per batch with the count of each non-answer and the first error message."""
    counts = Counter(r.outcome for r in responses if not r.answered)
    if not counts:
        return
    errors = [r.error for r in responses if r.outcome == "error"]
    log.warning(
        "%s: %d of %d prompts gave no answer (%s)%s; they are counted, never scored as answers",
        name,
        sum(counts.values()),
        len(responses),
        ", ".join(f"{outcome} {counts[outcome]}" for outcome in NON_ANSWERS if counts[outcome]),
        f"; first error: {errors[0]}" if errors else "",
    )


# ---- offline responders ----------------------------------------------------------------------------
PROMPT_OPTIONS = "prompt_options"  # item key holding the prompt's settings (fmt, pattern, gold_set, ...)


def _answer_for(answer: AnswerFunction, item: Item, semantics: str = "induced") -> str:
    """Call an answer function with the settings of the prompt it answers (a detection answer needs its
    pattern, an extraction answer its gold set) and, under non-induced semantics, ``induced=False``."""
    extra = {} if semantics == "induced" else {"induced": False}
    return answer(item, **item.get(PROMPT_OPTIONS, {}), **extra)


def _semantics_settings(semantics: str) -> dict[str, Any]:
    """An offline responder's answers follow the item truths, which change with the occurrence semantics, so
    a non-induced run has its own cache keys; the induced default keeps the keys it always had."""
    if semantics not in ("induced", "non_induced"):
        raise ValueError(f"semantics must be 'induced' or 'non_induced', got {semantics!r}")
    return {} if semantics == "induced" else {"semantics": semantics}


class OracleResponder(Responder):
    """The exact solver's answer, formatted as the prompt asks (``answers.oracle_answer`` by default), under
    the occurrence ``semantics`` of the run."""

    def __init__(self, answer: AnswerFunction | None = None, semantics: str = "induced") -> None:
        self.name = "oracle"
        self._answer = answer or oracle_answer
        self._settings = _semantics_settings(semantics)
        self.semantics = semantics

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._settings)

    def respond(self, prompt: str, item: Item) -> str:
        return _answer_for(self._answer, item, self.semantics)


class BaselineResponder(Responder):
    """A non-LLM baseline by name (``answers.BASELINES[name]`` by default), responder id ``baseline:<name>``."""

    def __init__(self, name: str, answer: AnswerFunction | None = None, semantics: str = "induced") -> None:
        if answer is None and name not in BASELINES:
            raise ValueError(f"unknown baseline {name!r}; baselines are {', '.join(sorted(BASELINES))}")
        self.name = f"baseline:{name}"
        self.baseline = name
        self._answer = answer or BASELINES[name]
        self._settings = _semantics_settings(semantics)
        self.semantics = semantics

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._settings)

    def respond(self, prompt: str, item: Item) -> str:
        return _answer_for(self._answer, item, self.semantics)


# ---- replay ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplayCheck:
    """How a replay file covers a batch: item ids without a response, item ids whose row answers another
    prompt, and the number of file rows no prompt of the batch used."""

    missing: list[str]
    mismatched: list[str]
    unused: int

    @property
    def ok(self) -> bool:
        """Whether every item has a response to exactly its prompt."""
        return not self.missing and not self.mismatched


class ReplayResponder(Responder):
    """Answers read from a JSONL file of ``{prompt_hash, response}`` or ``{item_id, prompt_hash, response}``.

    A row with an ``item_id`` answers that item, and its ``prompt_hash`` must be the hash of the prompt built
    for it; otherwise the first row (in file order) with the prompt's hash answers. Nothing is ever sent
    to a model. ``name`` is the responder id stored with the responses (e.g. the model that wrote them).
    A row may say its ``outcome`` (a cache file does) or the backend's ``finish_reason``, so a truncated or
    refused answer replays as one; a row whose outcome is ``error`` is no answer and is skipped.
    """

    def __init__(self, path: str | os.PathLike[str], name: str = "replay") -> None:
        self.path = Path(path)
        self.name = name
        rows = [_replay_row(row, self.path, number) for number, row in enumerate(read_records(self.path), 1)]
        self._rows = [row for row in rows if row["outcome"] != "error"]
        skipped = len(rows) - len(self._rows)
        if skipped:
            log.info("%s: %d rows record a failed request, not an answer; skipped", self.path, skipped)
        self._by_hash: dict[str, int] = {}
        self._by_item: dict[str, int] = {}
        for index, row in enumerate(self._rows):
            self._index_row(index, row)

    def _index_row(self, index: int, row: dict[str, str]) -> None:
        self._by_hash.setdefault(row["prompt_hash"], index)
        if "item_id" not in row:
            return
        first = self._by_item.setdefault(row["item_id"], index)
        if self._rows[first] != row:
            raise ReplayError(
                f"{self.path}: row {index + 1} gives item {row['item_id']!r} a second, different "
                "prompt hash or response"
            )

    def _lookup(self, prompt: str, item: Item) -> tuple[int | None, bool]:
        """(index of the answering row or None, whether the item's own row answers a different prompt)."""
        wanted = prompt_hash(prompt)
        own = self._by_item.get(item["item_id"])
        if own is not None:
            return (own, False) if self._rows[own]["prompt_hash"] == wanted else (None, True)
        return self._by_hash.get(wanted), False

    def respond(self, prompt: str, item: Item) -> str:
        return self.reply(prompt, item).text

    def reply(self, prompt: str, item: Item) -> Reply:
        index, mismatched = self._lookup(prompt, item)
        if mismatched:
            raise ReplayError(
                f"{self.path}: the row for item {item['item_id']!r} answers a different prompt "
                "(its prompt_hash is not the hash of the prompt built here)"
            )
        if index is None:
            raise ReplayError(
                f"{self.path}: no response for item {item['item_id']!r} (prompt hash {prompt_hash(prompt)})"
            )
        row = self._rows[index]
        return Reply(row["response"], finish_reason=row["finish_reason"], outcome=row["outcome"])

    def check(self, items_with_prompts: Sequence[tuple[Item, str]]) -> ReplayCheck:
        """Which items of the batch the file cannot answer, without answering any."""
        missing, mismatched, used = [], [], set()
        for item, prompt in items_with_prompts:
            index, wrong = self._lookup(prompt, item)
            if wrong:
                mismatched.append(item["item_id"])
            elif index is None:
                missing.append(item["item_id"])
            else:
                used.add(index)
        return ReplayCheck(missing, mismatched, len(self._rows) - len(used))

    def respond_all(self, items_with_prompts: Sequence[tuple[Item, str]], cache: ResponseCache) -> list[Response]:
        """Check the whole batch first (one error naming every missing or mismatched item), then answer."""
        report = self.check(items_with_prompts)
        if not report.ok:
            raise ReplayError(_replay_problem(self.path, report))
        if report.unused:
            log.info("%s: %d rows answer no prompt of this batch", self.path, report.unused)
        return super().respond_all(items_with_prompts, cache)


def _replay_row(row: Any, path: Path, number: int) -> dict[str, Any]:
    """Validate one replay line; keep only item_id (if any), prompt_hash, response, finish_reason and outcome
    (given, else the finish reason's)."""
    if not isinstance(row, dict) or not isinstance(row.get("response"), str):
        raise ReplayError(f"{path}: row {number} needs a text 'response'")
    digest = row.get("prompt_hash")
    if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
        raise ReplayError(f"{path}: row {number} needs 'prompt_hash', the 64-hex SHA-256 of the prompt's UTF-8 text")
    finish_reason = row.get("finish_reason")
    outcome = row.get("outcome") or outcome_of(finish_reason)
    if outcome not in OUTCOMES:
        raise ReplayError(f"{path}: row {number} has the outcome {outcome!r}; outcomes are {', '.join(OUTCOMES)}")
    kept = {
        "prompt_hash": digest.lower(),
        "response": row["response"],
        "finish_reason": None if finish_reason is None else str(finish_reason),
        "outcome": outcome,
    }
    if row.get("item_id") is not None:
        kept["item_id"] = str(row["item_id"])
    return kept


def _replay_problem(path: Path, report: ReplayCheck) -> str:
    parts = []
    if report.missing:
        parts.append(f"{len(report.missing)} items have no response (first: {', '.join(report.missing[:_SHOWN_IDS])})")
    if report.mismatched:
        parts.append(
            f"{len(report.mismatched)} items have a response to a different prompt, i.e. the prompt "
            f"hash does not match (first: {', '.join(report.mismatched[:_SHOWN_IDS])})"
        )
    return f"{path}: " + "; ".join(parts)


# ---- OpenAI-compatible HTTP backend -----------------------------------------------------------------
class RateLimiter:
    """Spaces request starts at least ``60 / requests_per_minute`` seconds apart (no bursts).

    With ``path``, every limiter naming that file shares one schedule: the next free start is kept in the file
    and booked under an exclusive ``flock``, so the parallel jobs of one model (one per item set) keep the rate
    together, not each on its own. The shared schedule is in wall-clock seconds (``time.time``), which every
    process on a machine agrees on; the sleep happens outside the lock.
    """

    def __init__(
        self,
        requests_per_minute: float,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        if not requests_per_minute > 0:
            raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute!r}")
        self.interval_s = 60.0 / requests_per_minute
        self.path = Path(path) if path is not None else None
        self._clock = clock or (time.monotonic if path is None else time.time)
        self._sleep = sleep
        self._next_start: float | None = None

    def wait(self) -> None:
        """Sleep until the next request may start, and book that start."""
        now = self._clock()
        start = self._book(now)
        if start > now:
            self._sleep(start - now)

    def _book(self, now: float) -> float:
        """The start granted to a request asked for at ``now``; the one after it is booked an interval later."""
        if self.path is None:
            start = now if self._next_start is None else max(now, self._next_start)
            self._next_start = start + self.interval_s
            return start
        with _locked(self.path) as handle:
            booked = _read_booking(handle.read())
            start = now if booked is None else max(now, booked)
            handle.seek(0)
            handle.truncate()
            handle.write(repr(start + self.interval_s))
        return start


@contextmanager
def _locked(path: Path) -> Iterator[Any]:
    """``path`` opened for reading and writing at its start, held under an exclusive lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            handle.seek(0)
            yield handle
            handle.flush()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_booking(text: str) -> float | None:
    """The booked start in a rate file (None for a new file, or one a killed process left half-written)."""
    try:
        return float(text)
    except ValueError:
        return None


def backoff_delay(attempt: int, base_s: float, cap_s: float, retry_after_s: float | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): ``base * 2**attempt``, at least the server's
    ``Retry-After``, at most ``cap_s``."""
    return min(cap_s, max(base_s * 2.0**attempt, retry_after_s or 0.0))


class _Transient(Exception):
    """A failure worth retrying (408, 409, 429, 5xx, timeout, dropped connection); the message is already
    redacted."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would follow a 301/302/303 with the Authorization header to any host; refuse instead."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> None:
        return None


class OpenAICompatibleResponder(Responder):
    """Chat-completions client for any OpenAI-compatible server, standard library only.

    The request body is ``{"model", "messages": [one user message], "temperature", "max_tokens",
    "max_completion_tokens", **extra_body}``; everything but the messages is the responder's ``settings`` (and
    so part of the cache key). ``None`` leaves a field out: an o1-style model takes ``temperature=None,
    max_tokens=None, max_completion_tokens=<n>``. ``base_url`` is not part of the key, so moving a server keeps
    its cache. ``api_key_env=None`` sends no key (local servers).

    A reply's outcome comes from the choice's ``finish_reason`` (``length`` is ``truncated``) and ``refusal``
    field. A request that fails for its prompt alone (a 4xx other than those below, a payload that is not a
    chat completion) is an ``error`` outcome; a refused key or wrong address (401, 403, 404, 405, a redirect),
    a missing key, retries used up, or ``max_consecutive_errors`` prompts failing in a row raise
    :class:`ResponderError`. ``rate_file``: the file through which limiters of parallel jobs share the rate.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str | None = "OPENAI_API_KEY",
        temperature: float | None = 0.0,
        max_tokens: int | None = 4096,
        max_completion_tokens: int | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 6,
        backoff_s: float = 1.0,
        backoff_cap_s: float = 60.0,
        requests_per_minute: float | None = None,
        max_consecutive_errors: int = 10,
        extra_body: Mapping[str, Any] | None = None,
        rate_file: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if max_tokens is not None and max_completion_tokens is not None:
            raise ValueError(
                "set max_tokens or max_completion_tokens, not both (o1-style models take max_completion_tokens "
                "and refuse max_tokens: set max_tokens to null for them)"
            )
        clash = set(_BODY_FIELDS) & set(extra_body or {})
        if clash:
            raise ValueError(
                f"extra_body may not set {', '.join(sorted(clash))} (model and messages are the responder's own; "
                "set the others as options)"
            )
        if max_consecutive_errors < 1:
            raise ValueError(f"max_consecutive_errors must be at least 1, got {max_consecutive_errors!r}")
        self.name = f"openai-compatible:{model}"
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key_env = api_key_env
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.backoff_cap_s = float(backoff_cap_s)
        self.max_consecutive_errors = int(max_consecutive_errors)
        self._settings = _body_settings(model, temperature, max_tokens, max_completion_tokens, extra_body or {})
        self._limiter = (
            RateLimiter(requests_per_minute, clock, sleep, rate_file) if requests_per_minute is not None else None
        )
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_RefuseRedirects)
        self._errors_in_row = 0

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._settings)

    def respond(self, prompt: str, item: Item) -> str:
        return self.reply(prompt, item).text

    def reply(self, prompt: str, item: Item) -> Reply:
        body = {**self._settings, "messages": [{"role": "user", "content": prompt}]}
        try:
            reply = _parse_completion(self._post_with_retries(json.dumps(body).encode("utf-8")))
        except PromptError as error:
            reply = Reply("", outcome="error", error=self._redact(f"{self.name}: {error}"))
        self._count_error(reply)
        return reply

    def _count_error(self, reply: Reply) -> None:
        """Stop the batch when ``max_consecutive_errors`` prompts in a row failed: the settings are then the likely
        cause (an o1-style model sent ``temperature``, an unknown field in ``extra_body``), not the prompts."""
        self._errors_in_row = self._errors_in_row + 1 if reply.outcome == "error" else 0
        if self._errors_in_row >= self.max_consecutive_errors:
            raise ResponderError(
                f"{self.name}: {self._errors_in_row} prompts in a row failed, the last with: {reply.error}; the "
                "model's settings or the endpoint are probably wrong: fix them and rerun (answers are cached, "
                "failed prompts are asked again)"
            )

    def _post_with_retries(self, body: bytes) -> dict[str, Any]:
        headers = self._headers()
        attempt = 0
        while True:
            if self._limiter is not None:
                self._limiter.wait()
            try:
                return self._post(body, headers)
            except _Transient as failure:
                if attempt >= self.max_retries:
                    raise ResponderError(
                        f"{self.name}: gave up after {attempt + 1} attempts; last: {failure}"
                    ) from None
                delay = backoff_delay(attempt, self.backoff_s, self.backoff_cap_s, failure.retry_after_s)
                log.warning("%s: %s; retry %d/%d in %.1f s", self.name, failure, attempt + 1, self.max_retries, delay)
                self._sleep(delay)
                attempt += 1

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _api_key(self) -> str | None:
        """The key, read from the environment at each request so it is never kept on the object."""
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise CredentialsError(
                f"{self.name}: set the environment variable {self.api_key_env} to the API key "
                "(or set api_key_env to null for a server without keys)"
            )
        return key

    def _redact(self, text: str) -> str:
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        return text.replace(key, "[REDACTED]") if key else text

    def _post(self, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
        """One POST; raises :class:`_Transient` for retryable failures, :class:`PromptError` for this prompt's
        own, :class:`ResponderError` for those every prompt would share."""
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout_s) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as error:
            raise self._http_failure(error) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as error:
            raise self._network_failure(error) from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise PromptError(
                f"{self.url} answered with something that is not JSON: "
                f"{self._redact(raw[:_ERROR_BODY_CHARS].decode('utf-8', 'replace'))!r}"
            ) from None

    def _http_failure(self, error: urllib.error.HTTPError) -> Exception:
        detail = self._redact(error.read()[:_ERROR_BODY_CHARS].decode("utf-8", "replace"))
        message = f"HTTP {error.code} from {self.url}: {detail}"
        if error.code in _RETRY_STATUSES:
            return _Transient(message, _retry_after(error.headers.get("Retry-After")))
        if 300 <= error.code < 400:
            return ResponderError(
                f"{self.name}: {message} (redirected to {error.headers.get('Location')}; redirects are not "
                "followed, so the key never travels to another address: set base_url to the final address)"
            )
        if error.code in _FATAL_STATUSES:
            return ResponderError(
                f"{self.name}: {message} ({_FATAL_STATUSES[error.code]}, so every prompt would fail: check "
                f"api_key_env, base_url and the model name)"
            )
        return PromptError(message)

    def _network_failure(self, error: Exception) -> Exception:
        reason = error.reason if isinstance(error, urllib.error.URLError) else error
        message = self._redact(f"{type(reason).__name__} on {self.url}: {reason}")
        if isinstance(reason, (TimeoutError, ConnectionError, http.client.HTTPException)):
            return _Transient(message)
        return ResponderError(f"{self.name}: {message}")


_BODY_FIELDS = ("max_completion_tokens", "max_tokens", "messages", "model", "temperature")
"""Request-body fields the responder sets itself, so ``extra_body`` may not."""


def _body_settings(
    model: str,
    temperature: float | None,
    max_tokens: int | None,
    max_completion_tokens: int | None,
    extra_body: Mapping[str, Any],
) -> dict[str, Any]:
    """The request body without the messages; numbers normalised so ``0`` and ``0.0`` give one cache key."""
    settings: dict[str, Any] = {"model": model, **extra_body}
    if temperature is not None:
        settings["temperature"] = float(temperature)
    if max_tokens is not None:
        settings["max_tokens"] = int(max_tokens)
    if max_completion_tokens is not None:
        settings["max_completion_tokens"] = int(max_completion_tokens)
    return settings


def _retry_after(value: str | None) -> float | None:
    """Seconds from a numeric ``Retry-After`` header (an HTTP-date is ignored)."""
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def _parse_completion(payload: Any) -> Reply:
    """The first choice's message text, its outcome (finish reason, refusal), and the payload's ids and usage
    as metadata. A refusal's text is the refusal message when the content is empty."""
    try:
        choice = payload["choices"][0]
        refusal = choice["message"].get("refusal")
        content = choice["message"].get("content") if refusal else choice["message"]["content"]
    except (KeyError, IndexError, TypeError, AttributeError):
        raise PromptError(f"not a chat completion (no choices[0].message.content): {str(payload)[:200]!r}") from None
    if content is not None and not isinstance(content, str):
        raise PromptError(f"chat completion content is {type(content).__name__}, not text")
    finish_reason = choice.get("finish_reason")
    finish_reason = None if finish_reason is None else str(finish_reason)
    meta = {
        name: payload[name]
        for name in ("id", "model", "created", "system_fingerprint", "usage")
        if payload.get(name) is not None
    }
    return Reply(
        content or (refusal if isinstance(refusal, str) else ""),
        meta,
        finish_reason=finish_reason,
        outcome=outcome_of(finish_reason, refused=bool(refusal)),
    )


# ---- factory ---------------------------------------------------------------------------------------
def make_responder(spec: str | Mapping[str, Any], config: Mapping[str, Any] | None = None) -> Responder:
    """Build a responder from ``oracle``, ``baseline:<name>``, ``replay:<path>`` or
    ``openai-compatible:<model>``, or from a mapping ``{"responder": <that string>, <option>: ...}``.

    Options come from ``config``, overridden by the mapping's own: ``name`` for replay; the keyword
    arguments of :class:`OpenAICompatibleResponder` (:data:`MODEL_OPTIONS`, and ``rate_file``, which the
    workflow sets) for openai-compatible. Unknown options are an error.
    """
    options = dict(config or {})
    if isinstance(spec, Mapping):
        options.update({key: value for key, value in spec.items() if key != "responder"})
        spec = spec.get("responder", "")
    kind, argument = parse_spec(str(spec))
    return _BUILDERS[kind](argument, options)


def parse_spec(spec: str) -> tuple[str, str]:
    """A responder spec's kind and argument, checked without building the responder (so a config can be checked
    before any job): a known kind, an argument where the kind takes one, a baseline that exists."""
    kind, _, argument = spec.partition(":")
    if kind not in _BUILDERS:
        raise ValueError(
            f"unknown responder {spec!r}; use one of oracle, baseline:<name>, replay:<path>, openai-compatible:<model>"
        )
    if kind == "oracle" and argument:
        raise ValueError(f"responder {spec!r}: oracle takes no argument")
    if kind != "oracle" and not argument:
        raise ValueError(f"responder {spec!r}: {kind} needs an argument after ':'")
    if kind == "baseline" and argument not in BASELINES:
        raise ValueError(
            f"responder {spec!r}: unknown baseline {argument!r}; baselines are {', '.join(sorted(BASELINES))}"
        )
    return kind, argument


def _check_options(kind: str, options: Mapping[str, Any], allowed: Sequence[str] = ()) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"{kind} responder: unknown option(s) {', '.join(unknown)}"
            + (f"; allowed: {', '.join(allowed)}" if allowed else "")
        )


def _build_oracle(argument: str, options: Mapping[str, Any]) -> Responder:
    _check_options("oracle", options, ("semantics",))
    return OracleResponder(**options)


def _build_baseline(argument: str, options: Mapping[str, Any]) -> Responder:
    _check_options("baseline", options, ("semantics",))
    return BaselineResponder(argument, **options)


def _build_replay(argument: str, options: Mapping[str, Any]) -> Responder:
    _check_options("replay", options, ("name",))
    return ReplayResponder(argument, **options)


MODEL_OPTIONS = (
    "api_key_env",
    "backoff_cap_s",
    "backoff_s",
    "base_url",
    "extra_body",
    "max_completion_tokens",
    "max_consecutive_errors",
    "max_retries",
    "max_tokens",
    "requests_per_minute",
    "temperature",
    "timeout_s",
)
"""The options a config may give an openai-compatible responder (``llmpattern.model`` / ``llmpattern.models``)."""


def check_model_options(model: str, options: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming what is wrong with a model's config options (an unknown key, a value its
    responder refuses), without sending anything."""
    _check_options("openai-compatible", options, MODEL_OPTIONS)
    try:
        OpenAICompatibleResponder(model, **options)
    except TypeError as error:  # a value of the wrong kind, e.g. a list for max_tokens
        raise ValueError(f"openai-compatible responder: {error}") from None


def _build_openai(argument: str, options: Mapping[str, Any]) -> Responder:
    _check_options("openai-compatible", options, (*MODEL_OPTIONS, "rate_file"))
    return OpenAICompatibleResponder(argument, **options)


_BUILDERS: dict[str, Callable[[str, Mapping[str, Any]], Responder]] = {
    "oracle": _build_oracle,
    "baseline": _build_baseline,
    "replay": _build_replay,
    "openai-compatible": _build_openai,
}

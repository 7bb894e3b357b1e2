"""A content-addressed, append-only response cache (one JSON line per response).

A response is filed under :func:`response_key`, the SHA-256 of (responder id, the settings that change its
output, the exact prompt text), so a rerun, a resumed run or a second item with the same prompt never asks a
model twice, and changing the model, a setting or one character of the prompt asks afresh.

File format: JSON Lines (ASCII, non-ASCII escaped), keys sorted, one object per response::

    {"error": null, "finish_reason": "stop", "item_id": "detection/undirected/small/0007", "key": "<64 hex>",
     "meta": {...}, "outcome": "ok", "prompt_hash": "<64 hex>", "responder": "openai-compatible:gpt-4o",
     "response": "...", "settings": {"max_tokens": 4096, "model": "gpt-4o", "temperature": 0.0}}

``prompt_hash`` is :func:`prompt_hash` of the prompt (the prompt text itself is not stored; the prompt files
hold it), ``item_id`` is the first item the response was asked for, and ``meta`` holds what the backend
reported (usage, ids, ...). ``outcome`` (:data:`OUTCOMES`) says whether ``response`` is an answer: ``ok``, or a
non-answer that is counted and never scored as an answer: ``truncated`` (the output hit the token limit),
``content_filter``, ``refusal``, or ``error`` (the request failed for this prompt; ``error`` holds the
message). ``finish_reason`` is the backend's own word (null for the offline responders). Because each line
carries ``item_id``, ``prompt_hash`` and ``response``, a cache file is also a valid replay file.

Entries are immutable: a line is appended and fsynced once, and a torn last line (a run killed mid-write) is
cut off when the cache is opened, so a killed run resumes with every completed response. The one exception is
an ``error`` entry: it records a failure, not an answer, so the next run asks again and a later entry under
the same key supersedes it. One process writes a given file at a time. Entries written before outcomes were
recorded (no ``outcome`` field) read as the outcome of their ``meta.finish_reason``.

API keys and request headers never enter an entry: settings and meta are checked for such fields.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphaudit.common.records import drop_torn_tail, read_records

__all__ = [
    "ENTRY_FIELDS",
    "NON_ANSWERS",
    "NON_ANSWER_COLUMNS",
    "OUTCOMES",
    "OUTCOME_FIELDS",
    "CacheEntry",
    "ResponseCache",
    "outcome_of",
    "prompt_hash",
    "response_key",
]

CacheEntry = dict[str, Any]
ENTRY_FIELDS: tuple[str, ...] = ("item_id", "key", "meta", "prompt_hash", "responder", "response", "settings")
"""The fields every entry has (older caches have only these)."""
OUTCOME_FIELDS: tuple[str, ...] = ("error", "finish_reason", "outcome")
"""The fields that say whether the response is an answer (filled in when an older entry is read)."""
OUTCOMES: tuple[str, ...] = ("ok", "truncated", "content_filter", "refusal", "error")
NON_ANSWERS: tuple[str, ...] = OUTCOMES[1:]
"""The outcomes whose response is never scored as an answer (each is counted in the tables)."""
NON_ANSWER_COLUMNS: tuple[str, ...] = tuple(f"n_{outcome}" for outcome in NON_ANSWERS)
"""The table columns counting them: n_truncated, n_content_filter, n_refusal, n_error."""
_FINISH_OUTCOMES = {"length": "truncated", "content_filter": "content_filter", "refusal": "refusal"}
_SECRET_FIELDS = frozenset({"api_key", "authorization", "headers", "password", "secret"})


def prompt_hash(prompt: str) -> str:
    """SHA-256 (hex) of the prompt's UTF-8 bytes: how response files name the prompt they answer."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def response_key(responder: str, settings: Mapping[str, Any], prompt: str) -> str:
    """SHA-256 (hex) of (responder id, output-affecting settings, prompt) written as canonical JSON.

    Canonical JSON (sorted keys, no spaces, ``ensure_ascii``) makes the key independent of dict order and of
    the platform; types count, so ``0`` and ``0.0`` give different keys (responders normalise their numbers).
    """
    text = json.dumps(
        {"prompt": prompt, "responder": responder, "settings": dict(settings)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        allow_nan=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outcome_of(finish_reason: str | None, refused: bool = False) -> str:
    """The outcome of a completed response: ``refusal`` when the backend reported one, otherwise what its
    finish reason means (``length`` -> ``truncated``, ``content_filter``, ``refusal``), else ``ok``."""
    if refused:
        return "refusal"
    return _FINISH_OUTCOMES.get(str(finish_reason).lower(), "ok") if finish_reason is not None else "ok"


def _check_no_secrets(value: Any, where: str) -> None:
    """Refuse nested fields named like credentials or headers, whatever their value."""
    if isinstance(value, Mapping):
        for name, inner in value.items():
            if str(name).lower() in _SECRET_FIELDS:
                raise ValueError(f"{where} has a field {name!r}; API keys and headers never go into the cache")
            _check_no_secrets(inner, where)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            _check_no_secrets(inner, where)


def _check_entry(entry: Any, path: Path, number: int) -> CacheEntry:
    """A stored entry with every field; an entry older than outcomes gets them from ``meta.finish_reason``."""
    if not isinstance(entry, dict) or any(name not in entry for name in ENTRY_FIELDS):
        raise ValueError(f"{path}: entry {number} is not a cache entry (needs {', '.join(ENTRY_FIELDS)})")
    if "outcome" not in entry:
        finish_reason = entry["meta"].get("finish_reason")
        entry = {**entry, "error": None, "finish_reason": finish_reason, "outcome": outcome_of(finish_reason)}
    if entry["outcome"] not in OUTCOMES:
        raise ValueError(f"{path}: entry {number} has the outcome {entry['outcome']!r}; outcomes are {OUTCOMES}")
    return entry


def _keeps(old: CacheEntry | None) -> bool:
    """Whether an entry already filed under a key stays (only an error is superseded by a later entry)."""
    return old is not None and old["outcome"] != "error"


class ResponseCache:
    """Responses in one JSONL file, looked up by :func:`response_key`; opening it drops a torn last line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._entries: dict[str, CacheEntry] = {}
        if self.path.exists():
            drop_torn_tail(self.path)
            for number, entry in enumerate(read_records(self.path), start=1):
                checked = _check_entry(entry, self.path, number)
                if not _keeps(self._entries.get(checked["key"])):
                    self._entries[checked["key"]] = checked

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: str) -> CacheEntry | None:
        """The entry filed under ``key``, or ``None``."""
        return self._entries.get(key)

    def add(
        self,
        *,
        responder: str,
        settings: Mapping[str, Any],
        prompt: str,
        response: str,
        item_id: str | None = None,
        meta: Mapping[str, Any] | None = None,
        outcome: str = "ok",
        finish_reason: str | None = None,
        error: str | None = None,
    ) -> CacheEntry:
        """Append (and fsync) one response; returns the stored entry. A key already present is an error unless
        its entry is an ``error`` (a failed request asked again)."""
        if not isinstance(response, str):
            raise TypeError(f"a response must be text, got {type(response).__name__}")
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; outcomes are {', '.join(OUTCOMES)}")
        if (error is not None) != (outcome == "error"):
            raise ValueError(f"an {outcome!r} entry {'needs' if outcome == 'error' else 'takes no'} error message")
        _check_no_secrets(settings, "settings")
        _check_no_secrets(meta or {}, "meta")
        key = response_key(responder, settings, prompt)
        if _keeps(self._entries.get(key)):
            raise ValueError(f"{self.path}: key {key} is already cached (entries are never replaced)")
        entry = {
            "error": error,
            "finish_reason": finish_reason,
            "item_id": item_id,
            "key": key,
            "meta": dict(meta or {}),
            "outcome": outcome,
            "prompt_hash": prompt_hash(prompt),
            "responder": responder,
            "response": response,
            "settings": dict(settings),
        }
        self._append(entry)
        self._entries[key] = entry
        return entry

    def _append(self, entry: CacheEntry) -> None:
        # ASCII escapes keep U+2028, U+0085 and the like out of the file: line readers split on them.
        line = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if _ends_inside_line(self.path):  # a write of this process was interrupted
            drop_torn_tail(self.path)
        with open(self.path, "a", encoding="ascii", newline="\n") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def _ends_inside_line(path: Path) -> bool:
    """Whether the file's last byte is not a newline (cheap: reads one byte)."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"

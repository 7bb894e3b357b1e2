"""A content-addressed, append-only response cache (one JSON line per response).

A response is filed under :func:`response_key`, the SHA-256 of (responder id, the settings that change its
output, the exact prompt text), so a rerun, a resumed run or a second item with the same prompt never asks a
model twice, and changing the model, a setting or one character of the prompt asks afresh.

File format: JSON Lines (ASCII, non-ASCII escaped), keys sorted, one object per response::

    {"item_id": "detection/undirected/small/0007", "key": "<64 hex>", "meta": {...},
     "prompt_hash": "<64 hex>", "responder": "openai-compatible:gpt-4o", "response": "...",
     "settings": {"max_tokens": 4096, "model": "gpt-4o", "temperature": 0.0}}

``prompt_hash`` is :func:`prompt_hash` of the prompt (the prompt text itself is not stored; the prompt files
hold it), ``item_id`` is the first item the response was asked for, and ``meta`` holds what the backend
reported (usage, finish reason, ...). Because each line carries ``item_id``, ``prompt_hash`` and
``response``, a cache file is also a valid replay file. Entries are immutable: a line is appended and
fsynced once, and a torn last line (a run killed mid-write) is cut off when the cache is opened, so a killed
run resumes with every completed response. One process writes a given file at a time.

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

__all__ = ["ENTRY_FIELDS", "CacheEntry", "ResponseCache", "prompt_hash", "response_key"]

CacheEntry = dict[str, Any]
ENTRY_FIELDS: tuple[str, ...] = ("item_id", "key", "meta", "prompt_hash", "responder", "response", "settings")
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
    if not isinstance(entry, dict) or any(name not in entry for name in ENTRY_FIELDS):
        raise ValueError(f"{path}: entry {number} is not a cache entry (needs {', '.join(ENTRY_FIELDS)})")
    return entry


class ResponseCache:
    """Responses in one JSONL file, looked up by :func:`response_key`; opening it drops a torn last line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._entries: dict[str, CacheEntry] = {}
        if self.path.exists():
            drop_torn_tail(self.path)
            for number, entry in enumerate(read_records(self.path), start=1):
                checked = _check_entry(entry, self.path, number)
                self._entries.setdefault(checked["key"], checked)

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
    ) -> CacheEntry:
        """Append (and fsync) one response; returns the stored entry. A key already present is an error."""
        if not isinstance(response, str):
            raise TypeError(f"a response must be text, got {type(response).__name__}")
        _check_no_secrets(settings, "settings")
        _check_no_secrets(meta or {}, "meta")
        key = response_key(responder, settings, prompt)
        if key in self._entries:
            raise ValueError(f"{self.path}: key {key} is already cached (entries are never replaced)")
        entry = {
            "item_id": item_id,
            "key": key,
            "meta": dict(meta or {}),
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

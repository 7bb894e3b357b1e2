"""HTTP download with retries, timeout, progress lines, and a temporary name until the caller accepts it."""

from __future__ import annotations

import logging
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

from graphaudit.common.progress import Progress

log = logging.getLogger(__name__)
_CHUNK = 1 << 20


def download(url: str, target: Path, retries: int = 3, timeout_s: float = 60.0, backoff_s: float = 2.0) -> Path:
    """Download ``url`` to ``target`` (written as ``target.part`` then renamed); return ``target``.

    Raises ``OSError`` carrying the last error after ``retries`` failed attempts; no partial file is left.
    """
    part = target.with_name(target.name + ".part")
    last_error: Exception | None = None
    for attempt in range(1, max(retries, 1) + 1):
        try:
            _fetch_once(url, part, timeout_s)
            os.replace(part, target)
            return target
        except (urllib.error.URLError, OSError, TimeoutError) as err:
            last_error = err
            part.unlink(missing_ok=True)
            log.warning("download of %s failed (attempt %d/%d): %s", url, attempt, retries, err)
            if attempt < retries:
                time.sleep(backoff_s * attempt)
    raise OSError(f"could not download {url} after {retries} attempts: {last_error}")


def _fetch_once(url: str, part: Path, timeout_s: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "graphaudit"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response, open(part, "wb") as handle:
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
        progress = Progress(f"download {url}", total=total, every_s=5.0, logger=log, unit="bytes")
        while chunk := response.read(_CHUNK):
            handle.write(chunk)
            progress.update(len(chunk))
        progress.close()
        if total is not None and progress.done != total:
            raise OSError(f"connection closed after {progress.done} of {total} bytes")

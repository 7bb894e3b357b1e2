"""The data mirror: a folder looked at before any download (``data.mirror``, else ``GRAPHAUDIT_DATA_MIRROR``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphaudit.common.settings import SettingsError

MIRROR_ENV = "GRAPHAUDIT_DATA_MIRROR"


def configured_mirror(data: Mapping[str, Any]) -> str | None:
    """The mirror folder: ``data.mirror``, else ``GRAPHAUDIT_DATA_MIRROR``, else none. A value that is not a folder
    is a :class:`SettingsError` naming where it was set: a typo would otherwise be ignored without a word and every
    dataset looked for on the network. Read at parse time (:func:`graphaudit.data.workflow.fetch_params`) and by
    every fetch."""
    for value, where in ((data.get("mirror"), "data.mirror"), (os.environ.get(MIRROR_ENV), MIRROR_ENV)):
        if value:
            if not Path(value).is_dir():
                raise SettingsError(
                    f"{where} is {str(value)!r}, which is not a folder: set it to the mirror folder (one holding the "
                    "datasets' files, e.g. ../shared/data) or unset it to fetch from the canonical sources"
                )
            return str(value)
    return None

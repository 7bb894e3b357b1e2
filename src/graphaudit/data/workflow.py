"""What the data rule file computes from the config and the fetch checkpoint (kept out of the .smk files)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphaudit.common.settings import load_settings
from graphaudit.data.mirror import configured_mirror
from graphaudit.data.settings import FetchSettings
from graphaudit.data.tasks import is_available


def fetch_params(data: Mapping[str, Any]) -> dict[str, Any]:
    """The fetch rules' ``params``: the ``data`` section without ``datasets`` (checked against
    :class:`FetchSettings` here, at parse time, so a bad key or a mirror that is not a folder stops the workflow
    before any job)."""
    fetch = {key: value for key, value in data.items() if key != "datasets"}
    load_settings(FetchSettings, fetch, "data")
    configured_mirror(fetch)
    return fetch


def available_graphsets(checkpoint: Any, datasets: Iterable[str]) -> list[str]:
    """Processed GraphSets of the datasets whose fetch found a source. Asking the fetch ``checkpoint`` for each
    dataset's SOURCE.json makes Snakemake evaluate this only after those fetches ran."""
    sources = {name: checkpoint.get(dataset=name).output.source for name in datasets}
    return [f"data/processed/{name}.npz" for name, source in sources.items() if is_available(source)]

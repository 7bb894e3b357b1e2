"""Rule entry points of the data layer (called through :mod:`graphaudit.common.rule`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from graphaudit.common.atomic import write_json
from graphaudit.common.rule import RuleContext
from graphaudit.data.code import get_code_spec, obtain_code
from graphaudit.data.errors import DataUnavailableError
from graphaudit.data.fetch import load_verified, obtain, unavailable_record
from graphaudit.data.registry import get_spec
from graphaudit.data.settings import FetchSettings

log = logging.getLogger(__name__)


def data_fetch(ctx: RuleContext) -> None:
    """Obtain and verify ``wildcards.dataset`` into ``data/raw/<name>/`` with its SOURCE.json (``params.data``:
    :class:`~graphaudit.data.settings.FetchSettings`).

    ``output.source`` must be ``<raw root>/<name>/SOURCE.json``: the raw root is read off that path.
    With ``data.on_unavailable: record`` a dataset that no source provides gets a SOURCE.json saying so
    (and why) instead of stopping the run; corrupt or mismatching files always stop it.
    """
    spec = get_spec(ctx.wildcards["dataset"])
    options = ctx.settings("data", FetchSettings).options()
    raw_root = Path(ctx.output["source"]).parent.parent
    try:
        graphs, record = obtain(spec, raw_root, options)
    except DataUnavailableError as err:
        if not options.record_unavailable:
            raise
        log.warning("%s", err)
        write_json(ctx.output["source"], unavailable_record(spec, str(err)))
        return
    log.info(
        "%s: %d graphs, %d nodes, %d edges from %s",
        spec.name,
        graphs.num_graphs,
        graphs.num_nodes,
        graphs.num_edges,
        record["source"],
    )


def data_fetch_code(ctx: RuleContext) -> None:
    """Obtain and verify the code base ``wildcards.code`` into ``data/code/<name>/`` (its SOURCE.json is the
    output: the code root is read off that path). Unavailable code always stops the run: a backend that
    needs it was chosen explicitly, or ``auto`` saw it in the mirror."""
    spec = get_code_spec(ctx.wildcards["code"])
    tree = obtain_code(spec, Path(ctx.output["source"]).parent.parent, ctx.settings("data", FetchSettings).options())
    log.info("%s: %d files verified at %s (%s@%s)", spec.name, len(spec.expected()), tree, spec.repository, spec.commit)


def is_available(source_json: str | Path) -> bool:
    """Whether a SOURCE.json describes verified files (rather than an unavailable dataset)."""
    return json.loads(Path(source_json).read_text(encoding="utf-8"))["source"] != "unavailable"


def data_process(ctx: RuleContext) -> None:
    """Read the verified raw files of ``wildcards.dataset`` into ``data/processed/<name>.npz``."""
    spec = get_spec(ctx.wildcards["dataset"])
    source = Path(ctx.input["source"])
    if not is_available(source):
        reason = json.loads(source.read_text(encoding="utf-8"))["reason"]
        raise DataUnavailableError(f"dataset {spec.name} was recorded as unavailable: {reason}")
    load_verified(spec, source.parent).save(ctx.output["graphset"])

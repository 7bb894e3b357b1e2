"""The ``graphaudit`` command (thin): list and fetch datasets, show versions.

Snakemake rules do not use this command; they call the library through ``workflow/scripts/run.py``
(see :mod:`graphaudit.common.rule`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from graphaudit.common.logs import configure_logging
from graphaudit.common.records import environment_versions
from graphaudit.data.errors import DataError
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import REGISTRY, UnknownDatasetError, get_spec


def _list(_: argparse.Namespace) -> int:
    for spec in REGISTRY.values():
        flag = " (optional)" if spec.optional else ""
        print(f"{spec.name:28s} {spec.format:18s} {spec.task:5s} {spec.urls[0]}{flag}")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    options = FetchOptions.from_config({"mirror": args.mirror, "download": {"enabled": not args.offline}})
    for name in args.names:
        spec = get_spec(name)
        graphs, record = obtain(spec, Path(args.root) / "raw", options)
        graphs.save(Path(args.root) / "processed" / f"{spec.name}.npz")
        print(json.dumps({"dataset": spec.name, "source": record["source"], **record["statistics"]}))
    return 0


def _info(_: argparse.Namespace) -> int:
    print(json.dumps(environment_versions(), indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run one sub-command; data errors print their message and exit 2."""
    parser = argparse.ArgumentParser(prog="graphaudit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("info", help="versions of Python and the numeric libraries").set_defaults(run=_info)
    data = commands.add_parser("data", help="the dataset registry").add_subparsers(dest="action", required=True)
    data.add_parser("list", help="every registered dataset").set_defaults(run=_list)
    fetch = data.add_parser("fetch", help="fetch, verify and process datasets")
    fetch.add_argument("names", nargs="+")
    fetch.add_argument("--root", default="data", help="data folder (raw/ and processed/ go inside)")
    fetch.add_argument("--mirror", default=None, help="mirror folder (default: $GRAPHAUDIT_DATA_MIRROR)")
    fetch.add_argument("--offline", action="store_true", help="never download")
    fetch.set_defaults(run=_fetch)
    args = parser.parse_args(argv)
    configure_logging()
    try:
        return args.run(args)
    except (DataError, UnknownDatasetError) as err:
        print(f"graphaudit: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""The ``graphaudit`` command (thin): list and fetch datasets, check config files, show versions.

Snakemake rules do not use this command; they call the library through ``workflow/scripts/run.py``
(see :mod:`graphaudit.common.rule`).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from snakemake.utils import update_config

from graphaudit.common.atomic import write_text
from graphaudit.common.config import check_config, read_config_file
from graphaudit.common.locks import clear_stale_lock
from graphaudit.common.logs import configure_logging
from graphaudit.common.records import environment_versions
from graphaudit.common.settings import SettingsError
from graphaudit.data.errors import DataError
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import REGISTRY, UnknownDatasetError, get_spec
from graphaudit.report.claims_page import claims_page


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


def _config_check(args: argparse.Namespace) -> int:
    """YAML syntax (file and line) and schema of the default config with the overlays on top, as the Snakefile
    checks them; Snakemake itself stops on a syntax error in a --configfile before it reads the workflow."""
    files = [args.defaults, *args.files]
    config: dict = {}
    for path in files:
        update_config(config, read_config_file(path))
    check_config(config, args.schema, files)
    print(f"config ok: {' + '.join(files)} (syntax and schema; `snakemake -n` runs the studies' checks)")
    return 0


def _unlock(args: argparse.Namespace) -> int:
    print(f"graphaudit: {clear_stale_lock(Path(args.dir))}")
    return 0


def _docs_claims(args: argparse.Namespace) -> int:
    write_text(args.out, claims_page(sorted(str(p) for p in Path(args.claims).glob("*.yaml"))))
    print(f"graphaudit: wrote {args.out}")
    return 0


def _info(_: argparse.Namespace) -> int:
    print(json.dumps(environment_versions(), indent=2))
    return 0


def _gpu_check(args: argparse.Namespace) -> int:
    """Every trained model a few epochs on the CPU and on CUDA (:mod:`graphaudit.nn.device_check`); 1 on a failure."""
    import re

    import torch

    from graphaudit.glad import device_cases as glad
    from graphaudit.nn.device_check import candidate_device, run_check
    from graphaudit.nodeground import device_cases as nodeground

    torch.set_num_threads(args.threads)
    logging.getLogger("graphaudit.nn.trainer").setLevel(logging.WARNING)  # its per-epoch lines: the report has them
    device, skipped = candidate_device(args.device)
    if skipped:
        print(f"graphaudit gpu-check: {skipped}", file=sys.stderr)
    tree, ubgold = glad.ubgold_tree()
    print(f"graphaudit gpu-check: {ubgold}", file=sys.stderr)
    graph, splits = nodeground.node_input()
    cases = glad.device_cases(args.glad_catalogue, args.epochs, glad.glad_input(), tree)
    cases += nodeground.device_cases(args.node_catalogue, args.epochs, graph, splits)
    cases = [case for case in cases if re.search(args.only, case.name)]
    context = {
        "epochs": args.epochs,
        "glad input": f"{glad.DATASET} fold 0, tuned settings, catalogue {args.glad_catalogue}",
        "nodeground input": f"CSBM {nodeground.CSBM}, split {nodeground.SPLIT}, catalogue {args.node_catalogue}",
        "ubgold": ubgold,
        "cases selected": f"{len(cases)} (--only {args.only!r})",
    }

    def progress(entry: dict) -> None:
        print(f"{entry['name']:32s} {entry['status']:12s} {'; '.join(entry['problems'])[:200]}", file=sys.stderr)

    report = run_check(cases, args.out, device, skipped=skipped, context=context, progress=progress)
    summary = ", ".join(f"{n} {status}" for status, n in report["summary"].items())
    print(f"graphaudit gpu-check: {'PASS' if report['ok'] else 'FAIL'} ({summary}); report in {args.out}/report.md")
    return 0 if report["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run one sub-command; data and config errors print their message and exit 2."""
    parser = argparse.ArgumentParser(prog="graphaudit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("info", help="versions of Python and the numeric libraries").set_defaults(run=_info)
    unlock = commands.add_parser("unlock", help="remove a Snakemake lock that no running Snakemake holds")
    unlock.add_argument("--dir", default=".", help="the workflow's working directory")
    unlock.set_defaults(run=_unlock)
    data = commands.add_parser("data", help="the dataset registry").add_subparsers(dest="action", required=True)
    data.add_parser("list", help="every registered dataset").set_defaults(run=_list)
    fetch = data.add_parser("fetch", help="fetch, verify and process datasets")
    fetch.add_argument("names", nargs="+")
    fetch.add_argument("--root", default="data", help="data folder (raw/ and processed/ go inside)")
    fetch.add_argument("--mirror", default=None, help="mirror folder (default: $GRAPHAUDIT_DATA_MIRROR)")
    fetch.add_argument("--offline", action="store_true", help="never download")
    fetch.set_defaults(run=_fetch)
    gpu = commands.add_parser(
        "gpu-check", help="train every model a few epochs on the CPU and on CUDA and compare the losses"
    )
    gpu.add_argument("--out", default="results/gpu_check", help="folder of report.json and report.md")
    gpu.add_argument("--epochs", type=int, default=4, help="epochs per model and device")
    gpu.add_argument("--device", default="cuda", help="the CUDA device to check against the CPU")
    gpu.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    gpu.add_argument("--only", default="", help="a regular expression: check only the cases it finds in their name")
    gpu.add_argument("--glad-catalogue", default="config/glad/detectors.yaml")
    gpu.add_argument("--node-catalogue", default="config/nodeground/methods.yaml")
    gpu.set_defaults(run=_gpu_check)
    config = commands.add_parser("config", help="the workflow's config files").add_subparsers(
        dest="action", required=True
    )
    check = config.add_parser("check", help="YAML syntax (file and line) and schema of config overlays")
    check.add_argument("files", nargs="*", help="overlays, in the order of snakemake's --configfile")
    check.add_argument("--defaults", default="config/config.yaml", help="the workflow's own config file")
    check.add_argument("--schema", default="config/schema.yaml")
    check.set_defaults(run=_config_check)
    docs = commands.add_parser("docs", help="the generated pages of docs/").add_subparsers(dest="page", required=True)
    claims = docs.add_parser("claims", help="docs/claims.md: every claim of every study, findings and invariants")
    claims.add_argument("--claims", default="config/claims", help="the folder of the claims files")
    claims.add_argument("--out", default="docs/claims.md")
    claims.set_defaults(run=_docs_claims)
    args = parser.parse_args(argv)
    configure_logging()
    try:
        return args.run(args)
    except (DataError, UnknownDatasetError, SettingsError) as err:
        print(f"graphaudit: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

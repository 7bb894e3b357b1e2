"""Obtain a dataset: mirror, then packaged copy, then download; verify; only then keep it.

Files are staged in a temporary folder beside ``data/raw/<name>/``; the folder replaces the final one
only after every checksum and every published statistic matches, so nothing half-verified stays.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.util
import json
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphaudit.common.atomic import fresh_dir, write_json
from graphaudit.data import readers, readers_external, readers_smiles
from graphaudit.data.download import download
from graphaudit.data.errors import ChecksumMismatchError, DataError, DataUnavailableError, StatisticsMismatchError
from graphaudit.data.graphset import GraphSet
from graphaudit.data.mirror import MIRROR_ENV, configured_mirror
from graphaudit.data.registry import DatasetSpec, Stats

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FetchOptions:
    """Where to look and how to download (the config's ``data`` section)."""

    mirror: str | None = None
    allow_download: bool = True
    retries: int = 3
    timeout_s: float = 60.0
    record_unavailable: bool = False

    @classmethod
    def from_config(cls, data: Mapping[str, Any]) -> FetchOptions:
        """Options from the config's ``data`` section; ``GRAPHAUDIT_DATA_MIRROR`` fills an unset mirror."""
        download_cfg = data.get("download", {}) or {}
        return cls(
            mirror=configured_mirror(data),
            allow_download=bool(download_cfg.get("enabled", True)),
            retries=int(download_cfg.get("retries", 3)),
            timeout_s=float(download_cfg.get("timeout_s", 60.0)),
            record_unavailable=data.get("on_unavailable", "error") == "record",
        )


def measure(graphs: GraphSet, task: str) -> Stats:
    """The registry's statistics measured on a GraphSet (classes from graph or node labels by task; a negative
    node target is a node without a label and counts in no class)."""
    labels = graphs.get("graph_labels") if task == "graph" else graphs.get("node_target")
    counts: tuple[int, ...] | None = None
    classes = None
    if labels is not None and task == "node":
        labels = labels[labels >= 0]
    if labels is not None:
        _, per_class = np.unique(labels, return_counts=True)
        counts, classes = tuple(int(c) for c in per_class), len(per_class)
    return Stats(
        graphs=graphs.num_graphs, nodes=graphs.num_nodes, edges=graphs.num_edges, classes=classes, class_counts=counts
    )


def mismatches(expected: Stats, found: Stats) -> list[str]:
    """Each published statistic that the measured one contradicts, as ``field: expected X, found Y``."""
    problems = []
    for field_name in ("graphs", "nodes", "edges", "classes", "class_counts"):
        want, got = getattr(expected, field_name), getattr(found, field_name)
        if want is not None and want != got:
            problems.append(f"{field_name}: expected {want}, found {got}")
    return problems


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def combined_sha256(file_hashes: Mapping[str, str]) -> str:
    """One digest for a multi-file dataset: sha256 of its ``SHA256SUMS``-style lines, sorted by name."""
    if len(file_hashes) == 1:
        return next(iter(file_hashes.values()))
    lines = "".join(f"{h}  {name}\n" for name, h in sorted(file_hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def obtain(spec: DatasetSpec, raw_root: Path, options: FetchOptions) -> tuple[GraphSet, dict[str, Any]]:
    """Fetch, verify and read ``spec``; return the GraphSet and the SOURCE.json record.

    On success ``raw_root/<name>/`` holds the verified files and SOURCE.json; on failure it is untouched
    and the error says what was expected, what was found and what to do.
    """
    staging = fresh_dir(raw_root, f".{spec.name}.", ".staging")
    try:
        staged = _stage_files(spec, staging, options)
        hashes = {f: sha256_file(staging / f) for f in sorted(p.name for p in staging.iterdir())}
        _check_checksums(spec, hashes, staged.origins)
        try:
            graphs = read_staged(spec, staging)
        except DataError as err:  # name the mirror file (or URL), not the staging copy deleted below
            raise DataError(staged.named(str(err), staging)) from err
        found = measure(graphs, spec.task)
        problems = mismatches(spec.stats, found)
        if problems:
            raise StatisticsMismatchError(
                f"dataset {spec.name} from {staged.source} ({', '.join(staged.locations)}) does not match its "
                f"published statistics ({spec.stats_source}): {'; '.join(problems)}. The file is corrupt, truncated "
                f"or a different release; nothing was kept. Remove the bad copy from the mirror or fetch it again "
                f"from {spec.urls[0]}."
            )
        record = _source_record(spec, staged.source, staged.locations, hashes, found)
        write_json(staging / "SOURCE.json", record)
        _replace_dir(staging, raw_root / spec.name)
        return graphs, record
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def unavailable_record(spec: DatasetSpec, reason: str) -> dict[str, Any]:
    """SOURCE.json content for a dataset that no source could provide (``data.on_unavailable: record``)."""
    return {
        "dataset": spec.name,
        "source": "unavailable",
        "reason": reason,
        "locations": list(spec.urls),
        "sha256": {},
        "sha256_combined": None,
        "statistics": _stats_dict(Stats()),
        "published": _stats_dict(spec.stats),
        "stats_source": spec.stats_source,
        "matches_published": None,
    }


def load_verified(spec: DatasetSpec, raw_dir: Path) -> GraphSet:
    """Read the verified raw files of ``spec`` again, checking them against the sha256 that SOURCE.json recorded
    and re-checking the statistics (guards later edits and bit rot)."""
    recorded = json.loads((raw_dir / "SOURCE.json").read_text(encoding="utf-8"))["sha256"]
    for name, digest in sorted(recorded.items()):
        if (found := sha256_file(raw_dir / name)) != digest:
            raise ChecksumMismatchError(
                f"dataset {spec.name}: {raw_dir / name} has sha256 {found}, but {raw_dir / 'SOURCE.json'} recorded "
                f"{digest} when it was verified: the file changed or rotted since. Delete {raw_dir} and rerun the "
                f"workflow: it fetches the dataset again."
            )
    graphs = read_staged(spec, raw_dir)
    problems = mismatches(spec.stats, measure(graphs, spec.task))
    if problems:
        raise StatisticsMismatchError(
            f"dataset {spec.name}: the files in {raw_dir} changed since they were "
            f"verified ({'; '.join(problems)}). Delete {raw_dir} and fetch again."
        )
    return graphs


def offline_source(spec: DatasetSpec, options: FetchOptions) -> str | None:
    """Where :func:`obtain` would find ``spec`` without a download (the mirror folder or the installed package
    folder), or None when only a download can provide it."""
    if options.mirror and all((Path(options.mirror) / f).is_file() for f in spec.files):
        return options.mirror
    packaged = _packaged_folder(spec)
    return str(packaged) if packaged is not None else None


def has_reader(spec: DatasetSpec) -> bool:
    """Whether the data layer can read ``spec``'s format into a GraphSet (download-only entries cannot)."""
    return spec.format in _READERS


def read_staged(spec: DatasetSpec, folder: Path) -> GraphSet:
    """Read verified files of ``spec`` from ``folder`` with the reader for its format."""
    if not has_reader(spec):
        raise DataError(
            f"dataset {spec.name}: the project has no reader for the {spec.format!r} format yet (a download-only "
            f"registry entry: {spec.urls[0]}); drop it from the dataset list"
        )
    try:
        return _READERS[spec.format](spec, folder)
    except readers.DataFormatError as err:
        raise DataError(
            f"dataset {spec.name}: {err}. The copy is corrupt or truncated; nothing was kept. "
            f"Replace it (mirror: {MIRROR_ENV} or data.mirror) or fetch it again from {spec.urls[0]}."
        ) from err


def _read_tu(spec: DatasetSpec, folder: Path) -> GraphSet:
    zipped = folder / f"{spec.name}.zip"
    return readers.read_tu(zipped if zipped.exists() else folder, spec.name)


_READERS: dict[str, Callable[[DatasetSpec, Path], GraphSet]] = {
    "tu": _read_tu,
    "heterophilous": lambda s, f: readers.read_heterophilous(f / s.file_names[0], s.name, directed=s.directed),
    "planetoid": lambda s, f: readers.read_planetoid(f, s.name),
    "gnn_benchmark": lambda s, f: readers_external.read_gnn_benchmark_npz(f / s.file_names[0], s.name),
    "wikics": lambda s, f: readers_external.read_wikics_json(f / s.file_names[0], s.name),
    "ogb_nodeprop": lambda s, f: readers_external.read_ogb_nodeprop(f / s.file_names[0], s.name),
    "ogb_graphprop": lambda s, f: readers_external.read_ogb_graphprop(f / s.file_names[0], s.name),
    "benchmarking_gnns": lambda s, f: readers_external.read_benchmarking_gnns(f / s.file_names[0], s.name),
    "ogb_lsc_smiles": lambda s, f: readers_smiles.read_smiles_csv_graphs(f / s.file_names[0], s.name),
}


@dataclass(frozen=True)
class _Staged:
    """Where the staged files of one attempt came from: the source kind, its locations (SOURCE.json), the
    origin of each staged file (mirror path, package file or URL) and of the files as a whole."""

    source: str
    locations: list[str]
    origins: dict[str, str]
    folder: str

    def named(self, text: str, staging: Path) -> str:
        """``text`` with every staged path replaced by its origin (longer names first, then the folder)."""
        for name in sorted(self.origins, key=len, reverse=True):
            text = text.replace(str(staging / name), self.origins[name])
        return text.replace(str(staging), self.folder)


def _stage_files(spec: DatasetSpec, staging: Path, options: FetchOptions) -> _Staged:
    """Copy or download every file of ``spec`` into ``staging``."""
    mirror_paths = [Path(options.mirror) / f for f in spec.files] if options.mirror else []
    if mirror_paths and all(p.is_file() for p in mirror_paths):
        for path in mirror_paths:
            shutil.copyfile(path, staging / path.name)
        log.info("%s: copied %d file(s) from the mirror %s", spec.name, len(mirror_paths), options.mirror)
        origins = {p.name: str(p) for p in mirror_paths}
        return _Staged("mirror", list(origins.values()), origins, f"the mirror {options.mirror}")
    packaged = _packaged_folder(spec)
    if packaged is not None:
        copied = sorted(packaged.glob(f"{spec.name}_*.txt"))
        for path in copied:
            shutil.copyfile(path, staging / path.name)
        log.info("%s: copied from the installed package folder %s", spec.name, packaged)
        return _Staged("package", [str(packaged)], {p.name: str(p) for p in copied}, str(packaged))
    urls = _download_all(spec, staging, options, mirror_paths)
    return _Staged("download", urls, dict(zip(spec.file_names, urls)), f"the download of {', '.join(urls)}")


def _packaged_folder(spec: DatasetSpec) -> Path | None:
    if spec.packaged is None:
        return None
    package, inner = spec.packaged
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        return None
    folder = Path(next(iter(found.submodule_search_locations))) / inner
    return folder if folder.is_dir() else None


def _download_all(spec: DatasetSpec, staging: Path, options: FetchOptions, mirror_paths: list[Path]) -> list[str]:
    looked = _mirror_gaps(mirror_paths) if mirror_paths else f"no mirror is set (data.mirror or {MIRROR_ENV})"
    if not options.allow_download:
        raise DataUnavailableError(
            f"dataset {spec.name} is not available offline: {looked} and downloads are disabled "
            f"(data.download.enabled: false). Set a mirror that holds {', '.join(spec.files)}, or enable "
            f"downloads to fetch {spec.urls[0]}."
        )
    for url, name in zip(spec.urls, spec.file_names):
        try:
            download(url, staging / name, retries=options.retries, timeout_s=options.timeout_s)
        except OSError as err:
            raise DataUnavailableError(
                f"dataset {spec.name}: {looked}, and the download failed ({err}). Without network access, "
                f"set data.mirror (or {MIRROR_ENV}) to a folder holding {', '.join(spec.files)}."
            ) from err
    return list(spec.urls)


def _mirror_gaps(paths: list[Path]) -> str:
    """What the mirror lacks: the files it does not have, and any folder that stands where a file should."""
    folders = [str(p) for p in paths if p.is_dir()]
    absent = [str(p) for p in paths if not p.exists()]
    gaps = [f"the mirror has no {', '.join(absent)}"] if absent else []
    if folders:
        gaps.append(f"{', '.join(folders)} {'is a folder' if len(folders) == 1 else 'are folders'}, not the file")
    return "; ".join(gaps)


def _check_checksums(spec: DatasetSpec, hashes: Mapping[str, str], origins: Mapping[str, str]) -> None:
    for name, expected in spec.sha256.items():
        if hashes.get(name) != expected:
            raise ChecksumMismatchError(
                f"dataset {spec.name}: {origins.get(name, name)} has sha256 {hashes.get(name)}, the registry "
                f"expects {expected}. "
                f"The file was not loaded (it is a pickle and is read only once verified). Replace it with "
                f"the published file from {spec.urls[0].rsplit('/', 1)[0]}/."
            )


def _source_record(
    spec: DatasetSpec, source: str, locations: list[str], hashes: Mapping[str, str], found: Stats
) -> dict[str, Any]:
    return {
        "dataset": spec.name,
        "source": source,
        "locations": locations,
        "sha256": dict(hashes),
        "sha256_combined": combined_sha256(hashes),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "statistics": _stats_dict(found),
        "published": _stats_dict(spec.stats),
        "stats_source": spec.stats_source,
        "matches_published": True,
    }


def _stats_dict(stats: Stats) -> dict[str, Any]:
    return {
        "graphs": stats.graphs,
        "nodes": stats.nodes,
        "edges": stats.edges,
        "classes": stats.classes,
        "class_counts": list(stats.class_counts) if stats.class_counts is not None else None,
    }


def _replace_dir(new: Path, target: Path) -> None:
    """Move ``new`` to ``target``, replacing an older copy only once the new one is complete."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(new, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

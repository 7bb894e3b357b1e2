"""Which real-world data sets (T10 / T11) a run can read, decided when the workflow is parsed, and why the others
are NOT RUN.

T11 sets go through the data layer (``data_fetch`` -> ``data_process``: mirror, packaged copy, download, each
verified against the registry). A set runs when an offline copy exists (the mirror or an installed package, as
:func:`graphaudit.data.fetch.offline_source` finds them), a verified copy is already in ``data/raw/<name>/``, or
``llmpattern.realworld.download`` allows fetching it; the default stays offline, so a machine without network
gets NOT RUN cells instead of a failed run (the OGB sets: ``ogb/hiv.zip`` / ``ogb/bbbp.zip`` under the mirror).
T10 SMILES sets run from a user file (``llmpattern.molecules.files``) or from the registry's file path under the
mirror.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from graphaudit.data.fetch import MIRROR_ENV, FetchOptions, offline_source
from graphaudit.data.registry import get_spec
from graphaudit.data.tasks import is_available
from graphaudit.llmpattern.molecules import MOLECULE_SETS
from graphaudit.llmpattern.realworld import REALWORLD

__all__ = ["molecule_sources", "realworld_sources"]


def _check(names: Sequence[str], known: Mapping[str, Any], key: str) -> None:
    for name in names:
        get_spec(name, key)
        if name not in known:
            raise ValueError(f"{key}: {name!r} is no data set of this task; choose from {', '.join(known)}")


def _fetched(raw_root: Path, name: str) -> bool:
    source = raw_root / name / "SOURCE.json"
    return source.is_file() and is_available(source)


def _mirror_text(options: FetchOptions) -> str:
    return (
        f"the data mirror {options.mirror}"
        if options.mirror
        else f"no data mirror is set (data.mirror or {MIRROR_ENV})"
    )


def realworld_sources(
    names: Sequence[str], data: Mapping[str, Any], download: bool, raw_root: str | Path = "data/raw"
) -> tuple[list[str], dict[str, str]]:
    """(the T11 data sets this run reads, in config order; {data set: why it is NOT RUN})."""
    _check(names, REALWORLD, "llmpattern.realworld.datasets")
    options = FetchOptions.from_config(data)
    runs, reasons = [], {}
    for name in names:
        spec = get_spec(name)
        if _fetched(Path(raw_root), name) or offline_source(spec, options) or (download and options.allow_download):
            runs.append(name)
        else:
            reasons[name] = (
                f"data not available offline: {_mirror_text(options)} lacks {', '.join(spec.files)}; put the file "
                f"there, or set llmpattern.realworld.download: true to fetch {spec.urls[0]}"
            )
    return runs, reasons


def molecule_sources(
    names: Sequence[str], files: Mapping[str, str], data: Mapping[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    """({T10 set: the CSV it reads}, {T10 set: why it is NOT RUN}); a configured file that does not exist is an
    error (a typo should not turn into a NOT RUN)."""
    _check(names, MOLECULE_SETS, "llmpattern.molecules.datasets")
    unknown = sorted(set(files) - set(names))
    if unknown:
        raise ValueError(
            f"llmpattern.molecules.files names {unknown}, which llmpattern.molecules.datasets does not list"
        )
    options = FetchOptions.from_config(data)
    paths, reasons = {}, {}
    for name in names:
        spec = get_spec(name)
        if name in files:
            if not Path(files[name]).is_file():
                raise FileNotFoundError(f"llmpattern.molecules.files.{name}: {files[name]} is not a file")
            paths[name] = files[name]
        elif options.mirror and (Path(options.mirror) / spec.files[0]).is_file():
            paths[name] = str(Path(options.mirror) / spec.files[0])
        else:
            reasons[name] = (
                f"data not available offline: {_mirror_text(options)} lacks {spec.files[0]}; download {spec.urls[0]} "
                f"(a CSV with columns smiles,label) and set llmpattern.molecules.files.{name} to its path"
            )
    return paths, reasons

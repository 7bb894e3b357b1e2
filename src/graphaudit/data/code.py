"""Audited code as a verified source: another project's released code, pinned like a dataset.

Where a paper runs another project's code (UB-GOLD's detectors), that code is a registry entry: the
repository, the pinned commit, the canonical archive URL of that commit, the sha256 of every file the
project may import (committed here, under ``checksums/``: the checksums are ours, the code is not), and the
archive's name in the data mirror. :func:`obtain_code` copies the archive from the mirror (or downloads it),
extracts it safely into a staging folder, checks every listed file, and only then moves the tree to
``<root>/<name>/`` with a ``SOURCE.json``. Nothing of the code is ever committed to the project.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from graphaudit.common.atomic import write_json
from graphaudit.data.download import download
from graphaudit.data.errors import ChecksumMismatchError, DataError, DataUnavailableError
from graphaudit.data.fetch import FetchOptions, sha256_file

__all__ = ["CODE", "SOURCE_FILE", "CodeSpec", "code_available", "get_code_spec", "obtain_code", "verify_tree"]

log = logging.getLogger(__name__)
SOURCE_FILE = "SOURCE.json"


@dataclass(frozen=True)
class CodeSpec:
    """One pinned code base: where it comes from and what every file it may run must hash to."""

    name: str
    repository: str
    commit: str
    licence: str
    mirror_file: str  # path inside the data mirror
    checksums: str  # file under graphaudit/data/checksums/

    @property
    def url(self) -> str:
        """The canonical archive of the commit (the forge's own tarball of that tree)."""
        return f"https://github.com/{self.repository}/archive/{self.commit}.tar.gz"

    def expected(self) -> dict[str, str]:
        """Relative path -> sha256 of every file that must verify."""
        text = resources.files("graphaudit.data").joinpath("checksums", self.checksums).read_text("utf-8")
        out = {}
        for line in text.splitlines():
            if line.strip():
                digest, path = line.split(maxsplit=1)
                out[path.strip()] = digest
        return out


CODE: dict[str, CodeSpec] = {
    spec.name: spec
    for spec in (
        CodeSpec(
            name="UB-GOLD-c940457",
            repository="UB-GOLD/UB-GOLD",
            commit="c940457bc3be46fbd26cdaea12386a5c0a82f697",
            licence="MIT",
            mirror_file="code/UB-GOLD-c940457.tar.gz",
            checksums="UB-GOLD-c940457.sha256",
        ),
    )
}


def get_code_spec(name: str) -> CodeSpec:
    """The registry entry of a code base, or an error listing the known ones."""
    if name not in CODE:
        raise DataError(f"unknown code base {name!r}; the registry has {sorted(CODE)}")
    return CODE[name]


def verify_tree(spec: CodeSpec, folder: Path) -> list[str]:
    """Every problem of an extracted tree against the checksum list (empty: it verifies)."""
    problems = []
    for rel, digest in sorted(spec.expected().items()):
        path = folder / rel
        if not path.is_file():
            problems.append(f"{rel} is missing")
        elif (found := sha256_file(path)) != digest:
            problems.append(f"{rel} has sha256 {found}, expected {digest}")
    return problems


def code_available(spec: CodeSpec, root: Path, options: FetchOptions) -> bool:
    """Whether :func:`obtain_code` can succeed without the network: the tree is in place, or the mirror
    holds the archive (the choice ``auto`` backends make before any job runs)."""
    if (root / spec.name / SOURCE_FILE).is_file():
        return True
    return bool(options.mirror) and (Path(options.mirror) / spec.mirror_file).is_file()


def obtain_code(spec: CodeSpec, root: str | Path, options: FetchOptions) -> Path:
    """The verified tree of ``spec`` under ``root``; fetched, extracted and checked first when absent.

    A tree already in place is checked again (a few dozen small files) and replaced when it fails.
    Raises :class:`DataUnavailableError` when no archive can be had, :class:`ChecksumMismatchError` when
    a file differs (nothing is kept then), :class:`DataError` for an archive that is not a safe tarball.
    """
    root = Path(root)
    target = root / spec.name
    if (target / SOURCE_FILE).is_file():
        problems = verify_tree(spec, target)
        if not problems:
            return target
        log.warning(
            "%s: the tree in %s no longer verifies (%s); fetching it again", spec.name, target, "; ".join(problems[:3])
        )
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{spec.name}.", dir=root) as tmp:
        staging = Path(tmp)
        archive, source = _stage_archive(spec, staging, options)
        tree = staging / "tree"
        _extract(archive, tree, spec)
        problems = verify_tree(spec, tree)
        if problems:
            raise ChecksumMismatchError(
                f"code base {spec.name} ({source}): {len(problems)} file(s) do not verify, first: "
                f"{'; '.join(problems[:3])}. Nothing was kept. Replace {archive.name} with the archive of "
                f"{spec.repository} at commit {spec.commit} ({spec.url})."
            )
        write_json(tree / SOURCE_FILE, _source_record(spec, source, sha256_file(archive)))
        if target.exists():
            shutil.rmtree(target)
        tree.rename(target)
    log.info("%s: %d files verified into %s", spec.name, len(spec.expected()), target)
    return target


def _stage_archive(spec: CodeSpec, staging: Path, options: FetchOptions) -> tuple[Path, str]:
    archive = staging / Path(spec.mirror_file).name
    mirrored = Path(options.mirror) / spec.mirror_file if options.mirror else None
    if mirrored is not None and mirrored.is_file():
        shutil.copyfile(mirrored, archive)
        return archive, f"mirror {mirrored}"
    looked = f"the mirror has no {mirrored}" if mirrored else "no mirror is set (data.mirror or GRAPHAUDIT_DATA_MIRROR)"
    if not options.allow_download:
        raise DataUnavailableError(
            f"code base {spec.name} is not available offline: {looked} and downloads are "
            f"disabled. Put the archive of {spec.url} at {spec.mirror_file} in the mirror."
        )
    try:
        download(spec.url, archive, retries=options.retries, timeout_s=options.timeout_s)
    except OSError as err:
        raise DataUnavailableError(
            f"code base {spec.name}: {looked}, and the download of {spec.url} failed "
            f"({err}). Offline, set data.mirror to a folder holding {spec.mirror_file}."
        ) from err
    return archive, f"download {spec.url}"


def _extract(archive: Path, tree: Path, spec: CodeSpec) -> None:
    """Extract regular files and folders under the archive's single top folder into ``tree``.

    Links, devices, absolute paths and ``..`` are refused (the ``data`` extraction filter), and so is an
    archive whose members do not share one top folder; the top folder's name is dropped.
    """
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = tar.getmembers()
            tops = {m.name.split("/", 1)[0] for m in members}
            if len(tops) != 1:
                raise DataError(f"code base {spec.name}: {archive.name} has {len(tops)} top folders, expected one")
            top = tops.pop()
            kept = []
            for member in members:
                if not (member.isfile() or member.isdir()):
                    raise DataError(
                        f"code base {spec.name}: {archive.name} holds {member.name!r}, which is "
                        f"neither a file nor a folder; the archive was not used"
                    )
                if member.name == top:
                    continue
                member.name = member.name.split("/", 1)[1]
                kept.append(member)
            tree.mkdir()
            tar.extractall(tree, members=kept, filter="data")
    except (tarfile.TarError, EOFError, OSError) as err:
        raise DataError(
            f"code base {spec.name}: {archive.name} is not a readable tar.gz ({err}); replace it with "
            f"the archive of {spec.url}"
        ) from err


def _source_record(spec: CodeSpec, source: str, archive_sha256: str) -> dict[str, Any]:
    return {
        "code": spec.name,
        "repository": spec.repository,
        "commit": spec.commit,
        "licence": spec.licence,
        "url": spec.url,
        "source": source,
        "archive_sha256": archive_sha256,
        "files_verified": len(spec.expected()),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }

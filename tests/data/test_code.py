"""Audited code as a verified source: safe extraction, every file checked, nothing kept on a mismatch."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphaudit.data.code import SOURCE_FILE, CodeSpec, code_available, get_code_spec, obtain_code, verify_tree
from graphaudit.data.errors import ChecksumMismatchError, DataError, DataUnavailableError
from graphaudit.data.fetch import FetchOptions

FILES = {"pkg/__init__.py": b"", "pkg/model.py": b"VALUE = 3\n", "README.md": b"not checked\n"}


@dataclass(frozen=True)
class ToySpec(CodeSpec):
    """A code base whose checksum list is given here instead of a package file."""

    listed: tuple[tuple[str, str], ...] = ()

    def expected(self) -> dict[str, str]:
        return dict(self.listed)


def toy_spec(files: dict[str, bytes] = FILES) -> ToySpec:
    listed = tuple((p, hashlib.sha256(d).hexdigest()) for p, d in files.items() if p.endswith(".py"))
    return ToySpec(
        name="toy-abc",
        repository="someone/toy",
        commit="abc",
        licence="MIT",
        mirror_file="code/toy-abc.tar.gz",
        checksums="unused",
        listed=listed,
    )


def write_archive(mirror: Path, files: dict[str, bytes], top: str = "toy-abc123", link: str | None = None) -> None:
    path = mirror / "code" / "toy-abc.tar.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(f"{top}/{link}")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)


def offline(mirror: Path) -> FetchOptions:
    return FetchOptions(mirror=str(mirror), allow_download=False)


def test_archive_is_extracted_under_its_name_and_verified(tmp_path: Path) -> None:
    write_archive(tmp_path / "mirror", FILES)
    tree = obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "mirror"))
    assert tree == tmp_path / "code" / "toy-abc"
    assert (tree / "pkg" / "model.py").read_bytes() == b"VALUE = 3\n"
    record = json.loads((tree / SOURCE_FILE).read_text())
    assert record["files_verified"] == 2 and record["commit"] == "abc"
    assert record["url"] == "https://github.com/someone/toy/archive/abc.tar.gz"
    assert verify_tree(toy_spec(), tree) == []


def test_a_changed_file_keeps_nothing(tmp_path: Path) -> None:
    write_archive(tmp_path / "mirror", {**FILES, "pkg/model.py": b"VALUE = 4\n"})
    with pytest.raises(ChecksumMismatchError, match=r"pkg/model.py"):
        obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "mirror"))
    assert not (tmp_path / "code" / "toy-abc").exists()
    assert list((tmp_path / "code").iterdir()) == []  # no staging folder left behind


def test_a_missing_file_keeps_nothing(tmp_path: Path) -> None:
    write_archive(tmp_path / "mirror", {k: v for k, v in FILES.items() if k != "pkg/__init__.py"})
    with pytest.raises(ChecksumMismatchError, match=r"pkg/__init__.py is missing"):
        obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "mirror"))


@pytest.mark.parametrize("kind", ["link", "two tops", "not a tarball"])
def test_unsafe_or_broken_archives_are_refused(tmp_path: Path, kind: str) -> None:
    mirror = tmp_path / "mirror"
    if kind == "link":
        write_archive(mirror, FILES, link="pkg/evil.py")
    elif kind == "two tops":
        write_archive(mirror, FILES, top="")
    else:
        (mirror / "code").mkdir(parents=True)
        (mirror / "code" / "toy-abc.tar.gz").write_bytes(b"plain text")
    with pytest.raises(DataError):
        obtain_code(toy_spec(), tmp_path / "code", offline(mirror))
    assert not (tmp_path / "code" / "toy-abc").exists()


def test_a_tree_edited_in_place_is_fetched_again(tmp_path: Path) -> None:
    write_archive(tmp_path / "mirror", FILES)
    tree = obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "mirror"))
    (tree / "pkg" / "model.py").write_bytes(b"VALUE = 5\n")
    assert verify_tree(toy_spec(), tree) != []
    again = obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "mirror"))
    assert (again / "pkg" / "model.py").read_bytes() == b"VALUE = 3\n"


def test_offline_without_the_archive_names_the_url_and_the_mirror_file(tmp_path: Path) -> None:
    with pytest.raises(DataUnavailableError, match=r"archive/abc\.tar\.gz.*code/toy-abc\.tar\.gz"):
        obtain_code(toy_spec(), tmp_path / "code", offline(tmp_path / "empty"))
    assert not code_available(toy_spec(), tmp_path / "code", offline(tmp_path / "empty"))


def test_the_ubgold_entry_lists_every_python_file_and_verifies_the_mirror(mirror: Path, tmp_path: Path) -> None:
    spec = get_code_spec("UB-GOLD-c940457")
    assert len(spec.expected()) == 67 and "GAOOD/nn/ocgin.py" in spec.expected()
    assert code_available(spec, tmp_path, offline(mirror))
    tree = obtain_code(spec, tmp_path, offline(mirror))
    assert json.loads((tree / SOURCE_FILE).read_text())["commit"] == "c940457bc3be46fbd26cdaea12386a5c0a82f697"


def test_unknown_code_names_the_known_ones() -> None:
    with pytest.raises(DataError, match="UB-GOLD-c940457"):
        get_code_spec("UB-GOLD-main")

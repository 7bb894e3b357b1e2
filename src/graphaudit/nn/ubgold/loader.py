"""Import UB-GOLD's modules from a verified tree (:mod:`graphaudit.data.code`), with marked rewrites.

:func:`activate` installs an import finder for the top-level package ``GAOOD`` of one verified tree.
Every module is read from that tree, its sha256 is checked against the registry's list at import time
(a file edited after verification is refused), and only these rewrites are applied, each counted:

- ``.cuda()`` and ``.to('cuda')`` become ``.to(__graphaudit_device__())``: the hard-coded CUDA device
  follows the run's device (:func:`set_device`); nothing else in the expression changes.

Package ``__init__`` files are not executed: they only re-export every detector, and running them would
import faiss and PyGCL for detectors a run does not use. Modules are imported one by one on demand, so
``from ..nn.encoder import myGIN`` and ``from GAOOD.metric import *`` resolve as in UB-GOLD.

``torch_scatter`` (a compiled extension UB-GOLD imports) is replaced, only when it is not installed, by
:mod:`graphaudit.nn.ubgold.torch_scatter_shim` over ``torch_geometric.utils.scatter``. Likewise PyGCL (``GCL``,
which imports ``dgl`` and ``torch_sparse``) by :mod:`graphaudit.nn.ubgold.pygcl_shim`, the pieces of it UB-GOLD's
GraphCL and InfoGraph detectors call.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import torch

from graphaudit.data.code import CodeSpec, get_code_spec
from graphaudit.data.errors import ChecksumMismatchError, DataError
from graphaudit.nn.ubgold import CODE_NAME

__all__ = ["PACKAGE", "REWRITES", "activate", "current_device", "import_module", "rewrite_counts", "set_device"]

PACKAGE = "GAOOD"
REWRITES = (
    (re.compile(r"\.cuda\(\)"), ".to(__graphaudit_device__())"),
    (re.compile(r"\.to\((['\"])cuda\1\)"), ".to(__graphaudit_device__())"),
)

_device = torch.device("cpu")
_state: dict[str, object] = {"root": None, "finder": None}
_rewrites: dict[str, int] = {}


def set_device(device: torch.device | str) -> None:
    """The device UB-GOLD's hard-coded ``cuda`` calls are sent to (one run per process)."""
    global _device
    _device = torch.device(device)


def current_device() -> torch.device:
    return _device


def rewrite_counts() -> dict[str, int]:
    """Module -> number of rewritten device calls, for every module imported so far."""
    return dict(_rewrites)


class _Loader(importlib.abc.Loader):
    def __init__(self, path: Path, rel: str, expected: Mapping[str, str], package: bool) -> None:
        self.path, self.rel, self.expected, self.package = path, rel, expected, package

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__["__graphaudit_device__"] = current_device
        if self.package:
            return  # __init__ re-exports only; submodules are imported on demand
        data = self.path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if self.expected.get(self.rel) != digest:
            raise ChecksumMismatchError(
                f"UB-GOLD file {self.path} has sha256 {digest}, the registry expects "
                f"{self.expected.get(self.rel)}; it was not imported. Fetch the tree again "
                f"(remove {self.path.parents[len(Path(self.rel).parts) - 1]})."
            )
        source, count = data.decode("utf-8"), 0
        for pattern, replacement in REWRITES:
            source, n = pattern.subn(replacement, source)
            count += n
        _rewrites[module.__name__] = count
        exec(compile(source, str(self.path), "exec"), module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, root: Path, spec: CodeSpec) -> None:
        self.root, self.expected = root, spec.expected()

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] != PACKAGE:
            return None
        base = self.root.joinpath(*fullname.split("."))
        if base.is_dir():
            loader = _Loader(
                base / "__init__.py",
                f"{base.relative_to(self.root).as_posix()}/__init__.py",
                self.expected,
                package=True,
            )
            spec = importlib.util.spec_from_loader(fullname, loader, is_package=True)
            spec.submodule_search_locations = [str(base)]
            return spec
        file = base.with_suffix(".py")
        if file.is_file():
            rel = file.relative_to(self.root).as_posix()
            return importlib.util.spec_from_file_location(
                fullname, file, loader=_Loader(file, rel, self.expected, package=False)
            )
        return None


def activate(root: str | Path, code: str = CODE_NAME) -> None:
    """Make ``GAOOD`` importable from the verified tree at ``root``; switching trees unloads the old one."""
    root = Path(root).resolve()
    if _state["root"] == root:
        return
    if not (root / PACKAGE).is_dir():
        raise DataError(
            f"{root} holds no {PACKAGE}/ folder; obtain the verified UB-GOLD tree first "
            f"(rule glad_ubgold_source, or graphaudit.data.code.obtain_code)"
        )
    if _state["finder"] is not None:
        sys.meta_path.remove(_state["finder"])
        for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE]:
            del sys.modules[name]
    finder = _Finder(root, get_code_spec(code))
    sys.meta_path.insert(0, finder)
    _state.update(root=root, finder=finder)
    if importlib.util.find_spec("torch_scatter") is None:
        from graphaudit.nn.ubgold import torch_scatter_shim

        sys.modules.setdefault("torch_scatter", torch_scatter_shim)
    if importlib.util.find_spec("GCL") is None:
        from graphaudit.nn.ubgold import pygcl_shim

        for name, module in pygcl_shim.modules().items():
            sys.modules.setdefault(name, module)


def import_module(name: str) -> ModuleType:
    """A UB-GOLD module by its dotted name under ``GAOOD`` (``nn.ocgin``); :func:`activate` first."""
    if _state["root"] is None:
        raise DataError("UB-GOLD's tree is not active; call graphaudit.nn.ubgold.loader.activate(root) first")
    return importlib.import_module(f"{PACKAGE}.{name}")

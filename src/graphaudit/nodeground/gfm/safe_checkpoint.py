"""Load a pretrained artifact only after its sha256 matches, through an explicit allow-list of pickle globals.

:func:`load_checkpoint` reads the file once, checks the bytes' sha256 against the registry, then lists every
global the pickle names (``torch.serialization.get_unsafe_globals_in_checkpoint``) with the caller's allow-list
registered *only inside* the loading block (:func:`only_safe_globals`, which also sets aside whatever other
libraries marked safe process-wide); any global outside it is refused with a message naming it, and the bytes
are unpickled by torch's weights-only unpickler (``weights_only=True``; never ``weights_only=False``).

Checkpoints saved from Hydra runs (GraphAny's) hold omegaconf configs. omegaconf is not a dependency: the
stand-ins below take the place of the five omegaconf classes such pickles name (each only holds the pickled
state in its ``__dict__``; none has behaviour that unpickling could trigger), and ``collections.defaultdict``
(omegaconf's resolver cache) is built as a plain dict, which the weights-only unpickler can fill.
:class:`PickledConfig` reads such a config as plain data and resolves the interpolations it holds: ``${key}``
(absolute from the config's root) and GraphAny's ``${eval:'"${key}".split("+")'}`` (recognised as exactly
that pattern: nothing is evaluated); any other interpolation is an error naming the key.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch

from graphaudit.data.errors import ChecksumMismatchError

__all__ = [
    "OMEGACONF_GLOBALS",
    "PickledConfig",
    "UnsafeCheckpointError",
    "load_checkpoint",
    "only_safe_globals",
    "verify_sha256",
]

SafeGlobal = tuple[Any, str]


class UnsafeCheckpointError(pickle.UnpicklingError):
    """A checkpoint's pickle names a global outside the allow-list; it is not loaded."""


class ConfigInterpolationError(ValueError):
    """A pickled config holds an interpolation the stand-ins do not resolve."""


class _OmegaConfObject:
    """A stand-in for one omegaconf class: unpickling fills ``__dict__`` with the pickled state, nothing more."""


class DictConfig(_OmegaConfObject):
    """Stand-in for ``omegaconf.dictconfig.DictConfig`` (state: ``_metadata``, ``_parent``, ``_content``)."""


class ListConfig(_OmegaConfObject):
    """Stand-in for ``omegaconf.listconfig.ListConfig``."""


class AnyNode(_OmegaConfObject):
    """Stand-in for ``omegaconf.nodes.AnyNode`` (state: ``_val``)."""


class Metadata(_OmegaConfObject):
    """Stand-in for ``omegaconf.base.Metadata``."""


class ContainerMetadata(_OmegaConfObject):
    """Stand-in for ``omegaconf.base.ContainerMetadata``."""


def _plain_dict(default_factory: Any = None) -> dict[Any, Any]:
    """Stand-in for ``collections.defaultdict``: the weights-only unpickler only fills plain dicts."""
    return {}


OMEGACONF_GLOBALS: tuple[SafeGlobal, ...] = (
    (DictConfig, "omegaconf.dictconfig.DictConfig"),
    (ListConfig, "omegaconf.listconfig.ListConfig"),
    (AnyNode, "omegaconf.nodes.AnyNode"),
    (Metadata, "omegaconf.base.Metadata"),
    (ContainerMetadata, "omegaconf.base.ContainerMetadata"),
    (_plain_dict, "collections.defaultdict"),
)
"""The omegaconf classes (and the defaultdict) a pickled omegaconf config names, mapped to the stand-ins."""


def verify_sha256(data: bytes, expected: str, where: str) -> None:
    """Refuse bytes whose sha256 is not ``expected`` (the registry's), naming the file and both digests."""
    found = hashlib.sha256(data).hexdigest()
    if found != expected.lower():
        raise ChecksumMismatchError(
            f"{where}: sha256 is {found}, the registry expects {expected}; the file is not the released artifact "
            f"(tampered, truncated or another version), so it is not loaded. Replace it with the registry's file."
        )


@contextlib.contextmanager
def only_safe_globals(allowed: Sequence[SafeGlobal]) -> Iterator[None]:
    """Inside the block, the globals marked safe are exactly ``allowed`` (besides torch's defaults): what other
    libraries marked safe process-wide (torch_geometric marks ``collections.defaultdict`` and its own classes at
    import) is set aside and restored afterwards, so no stray entry widens or shadows the allow-list."""
    previous = torch.serialization.get_safe_globals()
    torch.serialization.clear_safe_globals()
    torch.serialization.add_safe_globals(list(allowed))
    try:
        yield
    finally:
        torch.serialization.clear_safe_globals()
        torch.serialization.add_safe_globals(previous)


def load_checkpoint(path: str | os.PathLike[str], sha256: str, allowed: Sequence[SafeGlobal]) -> Any:
    """The checkpoint at ``path``, unpickled with ``weights_only=True`` after its sha256 matched and every global
    its pickle names is in torch's defaults or ``allowed`` ((object, "module.name") pairs, active only here)."""
    data = Path(path).read_bytes()
    verify_sha256(data, sha256, str(path))
    with only_safe_globals(allowed):
        unsafe = sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
        if unsafe:
            raise UnsafeCheckpointError(
                f"{path}: its pickle names {unsafe}, which are not on the allow-list "
                f"({sorted(name for _, name in allowed)} and torch's defaults); refusing to load it"
            )
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)


_KEY = r"[A-Za-z_]\w*(?:\.\w+)*"
_SELECT = re.compile(rf"^\$\{{({_KEY})\}}$")
_SPLIT = re.compile(rf"""^\$\{{eval:'"\$\{{({_KEY})\}}"\.split\("([^"]+)"\)'\}}$""")


def _plain(node: Any) -> Any:
    """A stand-in config tree as dicts, lists and values (interpolations kept as their strings)."""
    if isinstance(node, DictConfig):
        content = node._content
        return {key: _plain(value) for key, value in content.items()} if isinstance(content, dict) else content
    if isinstance(node, ListConfig):
        content = node._content
        return [_plain(value) for value in content] if isinstance(content, list) else content
    if isinstance(node, AnyNode):
        return node._val
    return node


def _root(node: DictConfig) -> DictConfig:
    while getattr(node, "_parent", None) is not None:
        node = node._parent
    return node


class PickledConfig:
    """A pickled (stand-in) omegaconf ``DictConfig`` read as plain data, interpolations resolved from its root."""

    def __init__(self, node: Any) -> None:
        if not isinstance(node, DictConfig):
            raise TypeError(f"expected a pickled omegaconf DictConfig, got {type(node).__name__}")
        self._node = _plain(node)
        self._root = _plain(_root(node))

    def get(self, key: str) -> Any:
        """The resolved value of ``key`` of this config node (a dotted path)."""
        return self._resolve(self._lookup(self._node, key), key, ())

    def root_get(self, key: str) -> Any:
        """The resolved value of ``key`` (a dotted path) of the config's root (the whole run config)."""
        return self._resolve(self._lookup(self._root, key), key, ())

    @staticmethod
    def _lookup(tree: Any, key: str) -> Any:
        value = tree
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                raise KeyError(f"the pickled config has no key {key!r}")
            value = value[part]
        return value

    def _resolve(self, value: Any, key: str, seen: tuple[str, ...]) -> Any:
        if isinstance(value, list):
            return [self._resolve(v, key, seen) for v in value]
        if not isinstance(value, str) or "${" not in value:
            return value
        select, split = _SELECT.match(value), _SPLIT.match(value)
        target = select[1] if select else split[1] if split else None
        if target is None:
            raise ConfigInterpolationError(f"config key {key!r} holds {value!r}, an interpolation not resolved here")
        if target in seen:
            raise ConfigInterpolationError(f"config key {key!r}: interpolation cycle through {target!r}")
        resolved = self._resolve(self._lookup(self._root, target), target, (*seen, target))
        return str(resolved).split(split[2]) if split else resolved

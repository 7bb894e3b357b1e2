"""Typed settings: a study's config section read once into frozen dataclasses.

``config/config.yaml`` holds every default (kept equal to the schema's defaults by a test) and the
schema has validated the merged config before any study reads it, so a settings class declares fields
without defaults and :func:`load_settings` only converts: YAML lists become tuples, mappings become
nested settings or plain dicts, ints are accepted where floats are declared. A key the class does not
declare, a missing key or a value of the wrong type is a :class:`SettingsError` naming the dotted path,
so library code reads attributes and never casts or supplies its own default.

Rules pass plain config slices as ``params`` (Snakemake compares their ``repr`` to decide reruns and
ignores objects it cannot represent, so a dataclass param would never trigger a rerun); the entry
function turns its slice into settings with ``RuleContext.settings``. A rule file loads its study's
whole section once at parse time, so a bad key stops the workflow before any job runs.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")


class SettingsError(ValueError):
    """A config mistake, caught at parse time: a section that does not fit its settings class (unknown,
    missing or mistyped key), a value the schema or a study's cross-key checks refuse."""


def load_settings(cls: type[T], mapping: Mapping[str, Any], path: str = "config") -> T:
    """Build the frozen dataclass ``cls`` from ``mapping`` (a config section), recursively."""
    if not isinstance(mapping, Mapping):
        raise SettingsError(f"{path} must be a mapping, got {type(mapping).__name__}: {mapping!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(mapping) - set(fields))
    if unknown:
        raise SettingsError(f"{path} has unknown keys {unknown}; known: {sorted(fields)}")
    hints = typing.get_type_hints(cls)
    values = {}
    for name, field in fields.items():
        if name in mapping:
            values[name] = _convert(hints[name], mapping[name], f"{path}.{name}")
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise SettingsError(f"{path} lacks the key {name!r} (config/config.yaml holds every default)")
    return cls(**values)


def config_slice(cls: type, section: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of the config ``section`` that the settings class ``cls`` declares, in the order of its
    fields, as plain data: a rule's params carry only what its function reads (Snakemake compares their
    ``repr``), and the function reads them back with ``RuleContext.settings``."""
    names = [field.name for field in dataclasses.fields(cls)]
    missing = [name for name in names if name not in section]
    if missing:
        raise SettingsError(f"the config section lacks {missing} that {cls.__name__} declares")
    return {name: section[name] for name in names}


def check_output_names(named: Iterable[tuple[str, str]], key: str, hint: str = "") -> dict[str, str]:
    """Check the ``(entry, name)`` pairs of the config list ``key``, where ``name`` is the folder or file name
    that the entry's outputs get, and return name -> entry.

    A user-chosen name becomes a path: it must stay inside its folder (not empty, ``.`` or ``..``, no path
    separator), and two entries with one name would overwrite each other's outputs and show as one in every
    table. Either is a :class:`SettingsError` naming the entries (``hint``: how names are made, what to change).
    """
    entries: dict[str, str] = {}
    advice = f"; {hint}" if hint else ""
    for entry, name in named:
        if name in ("", ".", "..") or any(separator in name for separator in "/\\"):
            raise SettingsError(
                f"{key}: {entry!r} gets the name {name!r}, which is not a name inside its output folder{advice}"
            )
        if name in entries:
            raise SettingsError(
                f"{key}: {entries[name]!r} and {entry!r} both get the name {name!r}, so their outputs would overwrite "
                f"each other{advice}"
            )
        entries[name] = entry
    return entries


def settings_dict(settings: Any) -> dict[str, Any]:
    """A settings object as plain YAML-like data (tuples as lists), e.g. to record it beside results."""
    return _plain(dataclasses.asdict(settings))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _convert(hint: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if dataclasses.is_dataclass(hint):
        return load_settings(hint, value, path)
    if origin in (Union, types.UnionType):
        return _convert_union(typing.get_args(hint), value, path)
    if origin is Literal:
        if value not in typing.get_args(hint):
            raise SettingsError(f"{path} is {value!r}; expected one of {list(typing.get_args(hint))}")
        return value
    if origin is tuple:
        return _convert_tuple(typing.get_args(hint), value, path)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return _convert_mapping(typing.get_args(hint), value, path)
    if hint is type(None):
        if value is not None:
            raise SettingsError(f"{path} must be null, got {value!r}")
        return None
    return _convert_scalar(hint, value, path)


def _convert_union(options: tuple[Any, ...], value: Any, path: str) -> Any:
    if value is None and type(None) in options:
        return None
    errors = []
    for option in (o for o in options if o is not type(None)):
        try:
            return _convert(option, value, path)
        except SettingsError as error:
            errors.append(str(error))
    raise SettingsError(
        f"{path}: {value!r} fits none of {[getattr(o, '__name__', str(o)) for o in options]} ({'; '.join(errors)})"
    )


def _convert_tuple(args: tuple[Any, ...], value: Any, path: str) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise SettingsError(f"{path} must be a list, got {type(value).__name__}: {value!r}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_convert(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
    if args and len(args) != len(value):
        raise SettingsError(f"{path} must have {len(args)} items, got {len(value)}")
    return tuple(_convert(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, value))) if args else tuple(value)


def _convert_mapping(args: tuple[Any, ...], value: Any, path: str) -> dict[Any, Any]:
    if not isinstance(value, Mapping):
        raise SettingsError(f"{path} must be a mapping, got {type(value).__name__}: {value!r}")
    key_hint, value_hint = args if args else (Any, Any)
    return {_convert(key_hint, k, f"{path} key"): _convert(value_hint, v, f"{path}.{k}") for k, v in value.items()}


def _convert_scalar(hint: Any, value: Any, path: str) -> Any:
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float) and isinstance(value, bool):
        raise SettingsError(f"{path} must be {hint.__name__}, got the boolean {value!r}")
    if isinstance(hint, type) and not isinstance(value, hint):
        raise SettingsError(f"{path} must be {hint.__name__}, got {type(value).__name__}: {value!r}")
    return value

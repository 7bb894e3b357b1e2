"""The workflow's config files, checked before any job: YAML syntax with file and line, then the schema.

Snakemake's own messages are not enough for a user: a YAML syntax error names no file or line, and
``snakemake.utils.validate`` prints the whole schema (2,000 lines) around an unknown key. The Snakefile
therefore calls :func:`read_config_file` on its default file before ``configfile:`` reads it and
:func:`check_config` before ``validate`` (which still runs, to apply the schema's defaults), so every
mistake is one line naming the key, the file that set it and what the schema allows. The ``graphaudit
config check`` command runs the same checks without Snakemake, which stops on a syntax error in a
``--configfile`` before it reads the workflow.

A config mistake is a :class:`~graphaudit.common.settings.SettingsError`, like the typed settings' own.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from graphaudit.common.settings import SettingsError
from graphaudit.common.yamlfile import LOADER

__all__ = ["check_config", "read_config_file"]

CLI_CONFIG = "--config"  # where a value comes from that no file sets: snakemake's --config key=value
_SHOWN_ERRORS = 5  # one line each; the rest are counted
Layers = list[tuple[str, Mapping[str, Any]]]  # (file or --config, what it sets), in the order Snakemake merged them


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML config file holds; a syntax error names the file, line and column."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        content = yaml.load(text, Loader=LOADER)
    except yaml.MarkedYAMLError as error:
        raise SettingsError(f"config file {path}{_yaml_problem(error, text)}; fix the file there") from None
    except yaml.YAMLError as error:
        raise SettingsError(f"config file {path}: YAML syntax error ({error}); fix the file") from None
    if content is None:
        return {}
    if not isinstance(content, dict):
        raise SettingsError(
            f"config file {path} holds a {type(content).__name__}; a config file holds keys at top level"
        )
    return content


def _yaml_problem(error: yaml.MarkedYAMLError, text: str) -> str:
    """Where the parser stopped and why, and where the construct it was reading began (an unclosed bracket's)."""
    mark, context = error.problem_mark, error.context_mark
    where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    began = f" ({error.context} at line {context.line + 1}, column {context.column + 1})" if context else ""
    lines = text.splitlines()
    tab = mark is not None and mark.line < len(lines) and "\t" in lines[mark.line]
    return f"{where}: YAML syntax error: {error.problem}{began}" + (
        "; YAML indents with spaces, not tabs" if tab else ""
    )


def check_config(
    config: Mapping[str, Any],
    schema_path: str | Path,
    files: Sequence[str | Path] = (),
    overrides: Mapping[str, Any] | None = None,
) -> None:
    """Validate the merged ``config`` against the JSON schema at ``schema_path``, one line per mistake.

    ``files`` are the config files in the order Snakemake merged them (later ones win) and ``overrides``
    the ``--config`` values: each line names the one that set the offending key.
    """
    schema = read_config_file(schema_path)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    layers: Layers = [(str(f), read_config_file(f)) for f in files] + [(CLI_CONFIG, dict(overrides or {}))]
    lines = [line for error in errors for line in _error_lines(error, schema, layers)]
    more = len(lines) - _SHOWN_ERRORS
    raise SettingsError("\n".join(lines[:_SHOWN_ERRORS] + ([f"... and {more} more"] if more > 0 else [])))


def _error_lines(error: jsonschema.ValidationError, schema: Mapping[str, Any], layers: Layers) -> list[str]:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        declared = error.schema.get("properties", {})
        unknown = sorted(set(error.instance) - set(declared))
        return [_unknown_key(path, key, sorted(declared), layers) for key in unknown]
    key = _dotted(path)
    described = _description(schema, path)
    if error.validator == "enum":
        problem = f"use one of {error.validator_value}"
    elif error.validator == "pattern":
        problem = f"expected {described or 'the form ' + repr(error.validator_value)}"
    else:
        problem = f"{error.message}" + (f" ({described})" if described else "")
    return [f"{_origin(path, layers)}: {key} is {error.instance!r}; {problem}"]


def _unknown_key(path: list, key: str, declared: list[str], layers: Layers) -> str:
    where = f"in {_dotted(path)}" if path else "at the top level"
    close = difflib.get_close_matches(key, declared, n=1)
    advice = f"did you mean {close[0]!r}?" if close else f"known keys {where}: {', '.join(declared)}"
    origin = _origin([*path, key], layers)
    return f"{origin}: unknown key {key!r} {where}; {advice} (config/schema.yaml describes every key)"


def _origin(path: list, layers: Layers) -> str:
    """The last config layer (file or ``--config``) that sets ``path``: where the user wrote the value."""
    for name, layer in reversed(layers):
        if _has(layer, path):
            return name
    return "config"


def _has(node: Any, path: list) -> bool:
    for part in path:
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return False
    return True


def _description(schema: Mapping[str, Any], path: Iterable[Any]) -> str:
    """The schema's description of the deepest key on ``path`` that has one (an item's: its list's)."""
    described = ""
    for part in path:
        if isinstance(part, int):
            schema = schema.get("items", {})
        else:
            sub = schema.get("properties", {}).get(part)
            schema = sub if sub is not None else schema.get("additionalProperties", {})
        if not isinstance(schema, Mapping):
            break
        described = schema.get("description", described)
    return described.rstrip(".")


def _dotted(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"

"""The parse-time plan of NodeGround's compute layer: the method entries of the search (:class:`MethodSpec`, the
catalogue ``nodeground.catalogue`` and ``nodeground.user_methods``, whose entries name any
:class:`~graphaudit.nn.node.base.NodeModel` by import path: "bring your own method"), the search plan
(:func:`search_plan`: every record file the study's DAG holds) and the GFMs that run (:func:`gfm_run`).

``workflow/rules/nodeground.smk`` imports this module while Snakemake parses the workflow, which happens on every
``snakemake`` call and twice in every cluster job, so it never imports torch, torch_geometric or transformers
(tests/common/test_workflow.py checks it): a method's class is a torch module, imported only by
:func:`check_method`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from graphaudit.common.settings import check_output_names, load_settings
from graphaudit.common.yamlfile import read_yaml
from graphaudit.nodeground.gfm.artifacts import RegistryError, load_registry
from graphaudit.nodeground.gfm.settings import GFMSettings
from graphaudit.nodeground.records import record_path
from graphaudit.nodeground.settings import NodegroundSettings

__all__ = [
    "DISTRIBUTIONS",
    "SEARCH_KEYS",
    "MethodSpec",
    "MethodSpecError",
    "SearchPlan",
    "check_method",
    "check_space",
    "gfm_run",
    "gfm_wildcard",
    "load_methods",
    "search_plan",
]

DISTRIBUTIONS = ("choice", "uniform", "loguniform", "int")
SEARCH_KEYS = ("search", "training", "caps", "device")
"""The keys of the ``nodeground`` section one search job reads (its ``search`` param)."""


class MethodSpecError(ValueError):
    """A method entry (catalogue or user method) that does not fit its class or the space format."""


@dataclass(frozen=True)
class MethodSpec:
    """One method as the search reads it: the class (registered name's class or a user's ``module:Class``),
    its optimiser, every default hyperparameter (training keys ``lr``, ``weight_decay``, ``patience``
    included) and its search space (key -> ``{distribution: [arguments]}``)."""

    name: str
    class_path: str
    optimizer: str
    defaults: dict[str, Any]
    space: dict[str, dict[str, list[Any]]]

    @classmethod
    def from_entry(cls, name: str, entry: Mapping[str, Any]) -> MethodSpec:
        """A catalogue entry (``class``, ``optimizer``, ``defaults``, ``space``; ``sources`` is documentation)."""
        missing = sorted({"class", "optimizer", "defaults", "space"} - set(entry))
        unknown = sorted(set(entry) - {"class", "optimizer", "defaults", "space", "sources"})
        if missing or unknown:
            raise MethodSpecError(f"method {name}: missing keys {missing}, unknown keys {unknown}")
        return cls(
            name=name,
            class_path=str(entry["class"]),
            optimizer=str(entry["optimizer"]),
            defaults=dict(entry["defaults"]),
            space={key: dict(dist) for key, dist in (entry["space"] or {}).items()},
        )

    def plain(self) -> dict[str, Any]:
        """The entry as plain data (rule params, hashes)."""
        return {"class": self.class_path, "optimizer": self.optimizer, "defaults": self.defaults, "space": self.space}


def check_space(spec: MethodSpec) -> None:
    """Check what needs no class: the space only varies keys with a default, each with a known distribution."""
    for key, dist in spec.space.items():
        if key not in spec.defaults:
            raise MethodSpecError(f"method {spec.name}: space key {key!r} has no default")
        _check_distribution(spec.name, key, dist)


def check_method(spec: MethodSpec) -> type:
    """The spec's class, after checking that the defaults name exactly its hyperparameters plus the training
    keys, that the optimiser agrees, and the space (:func:`check_space`). Imports the class, and with it torch."""
    from graphaudit.nn.node.base import RESERVED, resolve_method  # torch: a class check needs it, the plan does not

    model_cls = resolve_method(spec.class_path)
    expected = set(model_cls.hyperparameters()) | set(RESERVED)
    if set(spec.defaults) != expected:
        raise MethodSpecError(
            f"method {spec.name}: defaults must name {sorted(expected)} (the constructor's keyword-only "
            f"hyperparameters and {list(RESERVED)}); missing {sorted(expected - set(spec.defaults))}, "
            f"unknown {sorted(set(spec.defaults) - expected)}"
        )
    if spec.optimizer != model_cls.optimizer:
        raise MethodSpecError(
            f"method {spec.name}: optimizer {spec.optimizer}, but {spec.class_path} uses {model_cls.optimizer}"
        )
    check_space(spec)
    return model_cls


def _check_distribution(method: str, key: str, dist: Mapping[str, Any]) -> None:
    if len(dist) != 1 or next(iter(dist)) not in DISTRIBUTIONS:
        raise MethodSpecError(f"method {method}: space.{key} must be one of {{{', '.join(DISTRIBUTIONS)}: [...]}}")
    kind, args = next(iter(dist.items()))
    if kind == "choice":
        if not isinstance(args, list) or not args:
            raise MethodSpecError(f"method {method}: space.{key}.choice must be a non-empty list")
        return
    if not isinstance(args, list) or len(args) != 2 or not args[0] <= args[1]:
        raise MethodSpecError(f"method {method}: space.{key}.{kind} must be [low, high] with low <= high")
    if kind == "loguniform" and args[0] <= 0:
        raise MethodSpecError(f"method {method}: space.{key}.loguniform needs a positive low end")
    if kind == "int" and not all(isinstance(a, int) for a in args):
        raise MethodSpecError(f"method {method}: space.{key}.int needs integer ends")


def load_methods(catalogue: str | Path, user_methods: Mapping[str, Mapping[str, Any]]) -> dict[str, MethodSpec]:
    """Every method of the catalogue file and of ``user_methods`` (same format; a user entry replaces a
    catalogue entry of the same name)."""
    entries = read_yaml(catalogue) or {}
    entries = {**entries, **user_methods}
    return {name: MethodSpec.from_entry(name, entry) for name, entry in entries.items()}


# ---- the searches ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchPlan:
    """The parse-time plan: the settings, the checked method entries to search, every record file."""

    settings: NodegroundSettings
    methods: dict[str, MethodSpec]

    def method_entry(self, wildcards: Any) -> dict[str, Any]:
        """The plain entry of the job's method (its rule param: a change reruns only that method's searches)."""
        return self.methods[wildcards.method].plain()

    def method_pattern(self) -> str:
        """The ``method`` wildcard's constraint: exactly the searched methods (GFM records share the path)."""
        return "|".join(re.escape(name) for name in self.methods)

    def search_params(self) -> dict[str, Any]:
        """The plain slice of the section a search job reads (:data:`SEARCH_KEYS`)."""
        plain = asdict(self.settings)
        return {key: _listed(plain[key]) if isinstance(plain[key], dict) else plain[key] for key in SEARCH_KEYS}

    def record_files(self, methods: tuple[str, ...] | None = None) -> list[str]:
        """The record file of every search of ``methods`` (default: the searched methods)."""
        s = self.settings
        return [
            str(record_path(s.records, method, dataset, split, partition))
            for method in (methods if methods is not None else tuple(self.methods))
            for dataset in s.datasets
            for split in s.splits.names
            for partition in range(s.splits.partitions)
        ]


def _listed(value: Any) -> Any:
    """Settings data as YAML-like plain data (tuples as lists)."""
    if isinstance(value, dict):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_listed(v) for v in value]
    return value


def search_plan(section: Mapping[str, Any]) -> SearchPlan:
    """Read the section and load the methods it names, checked before any job.

    Every searched method's entry is checked for its keys and its space. A method of ``nodeground.user_methods``
    is also checked against its class here (:func:`check_method`): importing a user's class is the user's cost,
    and a mistake in their entry stops the parse before any job runs. A catalogue method is not, so that parsing
    never imports torch: the shipped catalogue is checked against its classes by a unit test
    (tests/nodeground/test_plan.py), and every search job checks its method again before it trains
    (:func:`graphaudit.nodeground.train_tasks.nodeground_search`), where a mistake in an edited catalogue shows.
    """
    settings = load_settings(NodegroundSettings, section, path="nodeground")
    check_output_names(((name, name) for name in settings.user_methods), "nodeground.user_methods")  # record folders
    known = load_methods(settings.catalogue, settings.user_methods)
    missing = [m for m in settings.methods if m not in known]
    if missing:
        raise MethodSpecError(
            f"nodeground.methods names {missing}, which neither {settings.catalogue} nor nodeground.user_methods "
            f"defines (known: {sorted(known)})"
        )
    methods = {name: known[name] for name in settings.methods}
    for name, spec in methods.items():
        if name in settings.user_methods:
            check_method(spec)
        else:
            check_space(spec)
    return SearchPlan(settings=settings, methods=methods)


# ---- the GFMs -------------------------------------------------------------------------------------------


def gfm_run(section: Mapping[str, Any], gfms: Sequence[str]) -> list[str]:
    """The GFMs of ``nodeground.gfm.run``, checked at parse time: each in the registry and in ``nodeground.gfms``
    (part 2 treats exactly those as GFM endpoints)."""
    settings = load_settings(GFMSettings, section, path="nodeground.gfm")
    registry = load_registry(settings.registry)
    unknown = [name for name in settings.run if name not in registry or name not in gfms]
    if unknown:
        raise RegistryError(
            f"nodeground.gfm.run names {unknown}, which are not in both {settings.registry} ({sorted(registry)}) "
            f"and nodeground.gfms ({list(gfms)})"
        )
    return list(settings.run)


def gfm_wildcard(names: Sequence[str]) -> str:
    """The ``gfm`` wildcard's constraint: exactly these GFMs (supervised searches share the record path)."""
    return "|".join(re.escape(name) for name in names)

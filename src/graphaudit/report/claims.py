"""Claims: the papers' numbers, where the reproduced value is read from, and the PASS/FAIL/NOT RUN verdict.

A claims file ``config/claims/<study>.yaml`` looks like::

    study: glad
    claims:
      - id: aids_graphs
        description: AIDS has 2000 graphs
        paper: 2000                      # the paper's number (or text for a qualitative claim)
        source: {table: results/data/tables/datasets.csv, column: graphs, where: {dataset: AIDS}}
                                         # source.interval: [low, high] columns of that row holding the
                                         # reproduced value's interval (optional; shown by the dashboard)
        kind: exact                      # exact | statistical | qualitative
        role: finding                    # finding (default): a wrong implementation could fail it (a paper value,
                                         # a published outside anchor, a qualitative result that could go either
                                         # way); invariant: the code guarantees it by construction (a configured
                                         # list, an identity, a count that follows from how a thing is built):
                                         # a check of the code, shown apart and never counted as reproduced
        guaranteed_by: text              # an invariant's: what in the code makes it hold (required for one)
        tolerance: 0                     # |reproduced - paper| <= tolerance (exact, statistical)
        expect: {op: ">", value: 0}      # qualitative: reproduced <op> value
        scales: [ci, quick, paper]       # scales at which the claim applies (default: all)
        requires: gpu                    # optional: the table comes only from a GPU run
        blocked: reason                  # optional: cannot be reproduced (always NOT RUN with this reason)
        headline: true                   # optional: one of the study's headline claims, drawn on the report's
                                         # dashboard (a finding, exact or statistical, with a numeric paper value)

A source table may carry a ``not_run`` column: a non-empty cell there makes the claim that reads its row
NOT RUN with that cell as the reason (a table that knows when its number cannot be judged on this run).
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from graphaudit.common.yamlfile import read_yaml

KINDS = ("exact", "statistical", "qualitative")
ROLES = ("finding", "invariant")
_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne}
_ALL_SCALES = ("ci", "quick", "paper")


class ClaimsFileError(ValueError):
    """A claims file that does not follow the format above."""


@dataclass(frozen=True)
class Verdict:
    """One evaluated claim."""

    study: str
    claim: str
    description: str
    kind: str
    role: str  # finding | invariant
    paper: Any
    reproduced: Any
    tolerance: str
    status: str  # PASS | FAIL | NOT RUN | PENDING (a partial report: its table is not produced yet)
    reason: str
    guaranteed_by: str  # an invariant's guarantee ('' for a finding)


def load_claims(path: str | os.PathLike[str]) -> tuple[str, list[dict[str, Any]]]:
    """Read and check a claims file; return (study, claims)."""
    try:
        content = read_yaml(path) or {}
    except yaml.YAMLError as err:
        raise ClaimsFileError(f"{path}: not valid YAML ({err})") from err
    if not isinstance(content, Mapping) or "study" not in content or not isinstance(content.get("claims"), list):
        raise ClaimsFileError(f"{path}: needs a 'study' name and a 'claims' list")
    seen = set()
    for number, claim in enumerate(content["claims"], start=1):
        _check_claim(path, number, claim)
        if claim["id"] in seen:
            raise ClaimsFileError(f"{path}: claim id {claim['id']!r} appears twice")
        seen.add(claim["id"])
    return str(content["study"]), list(content["claims"])


def _check_claim(path: Any, number: int, claim: Any) -> None:
    where = f"{path}: claim {number}"
    if not isinstance(claim, Mapping):
        raise ClaimsFileError(f"{where} must be a mapping")
    for key in ("id", "paper", "source", "kind"):
        if key not in claim:
            raise ClaimsFileError(f"{where} ({claim.get('id', '?')}) lacks the key {key!r}")
    if claim["kind"] not in KINDS:
        raise ClaimsFileError(f"{where} ({claim['id']}): kind must be one of {KINDS}, got {claim['kind']!r}")
    source = claim["source"]
    if not isinstance(source, Mapping) or "table" not in source or "column" not in source:
        raise ClaimsFileError(f"{where} ({claim['id']}): source needs 'table' and 'column'")
    if claim["kind"] == "qualitative":
        expect = claim.get("expect")
        if not isinstance(expect, Mapping) or expect.get("op") not in _OPS or "value" not in expect:
            raise ClaimsFileError(
                f"{where} ({claim['id']}): a qualitative claim needs expect: {{op, value}} with op in {sorted(_OPS)}"
            )
    if not isinstance(claim.get("scales", []), list):
        raise ClaimsFileError(f"{where} ({claim['id']}): scales must be a list, e.g. [quick, paper]")
    bad_scales = set(claim.get("scales", _ALL_SCALES)) - set(_ALL_SCALES)
    if bad_scales:
        raise ClaimsFileError(f"{where} ({claim['id']}): unknown scales {sorted(bad_scales)}")
    interval = source.get("interval")
    if interval is not None and not (isinstance(interval, list) and len(interval) == 2):
        raise ClaimsFileError(f"{where} ({claim['id']}): source.interval must be two columns, e.g. [ci_low, ci_high]")
    if claim.get("headline") and (claim["kind"] == "qualitative" or not _is_number(claim["paper"])):
        raise ClaimsFileError(f"{where} ({claim['id']}): a headline claim needs kind exact or statistical and a number")
    _check_role(where, claim)


def _check_role(where: str, claim: Mapping[str, Any]) -> None:
    role = claim_role(claim)
    if role not in ROLES:
        raise ClaimsFileError(f"{where} ({claim['id']}): role must be one of {ROLES}, got {role!r}")
    guarantee = claim.get("guaranteed_by")
    if role == "invariant" and not (isinstance(guarantee, str) and guarantee.strip()):
        raise ClaimsFileError(
            f"{where} ({claim['id']}): an invariant needs guaranteed_by: what in the code makes it hold"
        )
    if role == "finding" and guarantee is not None:
        raise ClaimsFileError(f"{where} ({claim['id']}): guaranteed_by belongs to an invariant; add role: invariant")
    if role == "invariant" and claim.get("headline"):
        raise ClaimsFileError(f"{where} ({claim['id']}): a headline claim must be a finding, not an invariant")


def claim_role(claim: Mapping[str, Any]) -> str:
    """``finding`` (the default) or ``invariant``."""
    return claim.get("role", "finding")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def applies_at(claim: Mapping[str, Any], scale: str) -> bool:
    """Whether ``claim`` is judged at ``scale`` (its ``scales``, all scales by default)."""
    return scale in claim.get("scales", _ALL_SCALES)


PENDING_REASON = "its table is not produced yet: the run has not reached it"


def evaluate(
    study: str, claim: Mapping[str, Any], root: Path, scale: str, pending: frozenset[str] = frozenset()
) -> Verdict:
    """Evaluate one claim against the tables under ``root`` at the active ``scale``; a claim whose table is missing
    but among ``pending`` (the run's declared outputs not produced yet, in a partial report) is PENDING."""

    def verdict(status: str, reproduced: Any = None, reason: str = "") -> Verdict:
        return Verdict(
            study=study,
            claim=str(claim["id"]),
            description=str(claim.get("description", "")),
            kind=claim["kind"],
            role=claim_role(claim),
            paper=claim["paper"],
            reproduced=reproduced,
            tolerance=_tolerance_text(claim),
            status=status,
            reason=reason,
            guaranteed_by=str(claim.get("guaranteed_by", "")),
        )

    if claim.get("blocked"):
        return verdict("NOT RUN", reason=str(claim["blocked"]))
    if not applies_at(claim, scale):
        scales = ", ".join(claim.get("scales", _ALL_SCALES))
        return verdict("NOT RUN", reason=f"applies at scale {scales}; this run is at scale {scale}")
    source = claim["source"]
    table = root / source["table"]
    if not table.exists():
        if source["table"] in pending:
            return verdict("PENDING", reason=PENDING_REASON)
        if claim.get("requires") == "gpu":
            return verdict("NOT RUN", reason=f"needs a GPU run; {source['table']} has not been produced")
        return verdict("NOT RUN", reason=f"{source['table']} was not produced by this run (study or data not run)")
    value, problem = read_value(table, source["column"], source.get("where", {}))
    if problem:  # a GPU claim's row is missing when its runs were not part of this run's config
        return verdict("NOT RUN", reason=f"needs a GPU run; {problem}" if claim.get("requires") == "gpu" else problem)
    not_run = not_run_reason(table, source.get("where", {}))
    if not_run:
        return verdict("NOT RUN", reason=not_run)
    passed, reason = _compare(claim, value)
    return verdict("PASS" if passed else "FAIL", reproduced=value, reason=reason)


def read_value(table: Path, column: str, where: Mapping[str, Any]) -> tuple[Any, str]:
    """The single cell of ``column`` in the row matching ``where``; or an explanation why there is none."""
    frame = pd.read_csv(table)
    if column not in frame.columns:
        return None, f"{table.name} has no column {column!r}"
    mask = pd.Series(True, index=frame.index)
    for key, wanted in where.items():
        if key not in frame.columns:
            return None, f"{table.name} has no column {key!r}"
        mask &= frame[key].astype(str) == str(wanted)
    rows = frame.loc[mask, column]
    if len(rows) != 1:
        selector = ", ".join(f"{k}={v}" for k, v in where.items()) or "all rows"
        return None, f"{table.name}: {len(rows)} rows match {selector} (not in this run's config?)"
    value = rows.iloc[0]
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer():  # integer columns with gaps read back as floats
        value = int(value)
    return value, ""


def read_interval(root: Path, source: Mapping[str, Any]) -> tuple[float, float] | None:
    """The reproduced value's interval: the ``source.interval`` columns of the claim's row, as numbers (None when
    the source names no interval, or its table, row or cells are missing)."""
    columns = source.get("interval")
    table = root / source["table"]
    if not columns or not table.exists():
        return None
    bounds = [read_value(table, column, source.get("where", {})) for column in columns]
    if any(problem or not _is_number(value) or math.isnan(value) for value, problem in bounds):
        return None
    return float(bounds[0][0]), float(bounds[1][0])


def not_run_reason(table: Path, where: Mapping[str, Any]) -> str:
    """The ``not_run`` cell of the row matching ``where`` ('' when the table has no such column or cell)."""
    frame = pd.read_csv(table, dtype=str, keep_default_na=False)
    if "not_run" not in frame.columns:
        return ""
    mask = pd.Series(True, index=frame.index)
    for key, wanted in where.items():
        mask &= frame[key] == str(wanted)
    return " ".join(frame.loc[mask, "not_run"].str.strip())


def _compare(claim: Mapping[str, Any], value: Any) -> tuple[bool, str]:
    if claim["kind"] == "qualitative":
        expect = claim["expect"]
        try:
            left, right = float(value), float(expect["value"])
        except (TypeError, ValueError):
            if expect["op"] not in ("==", "!="):
                return False, f"reproduced {value!r} cannot be ordered against {expect['value']!r}"
            left, right = str(value), str(expect["value"])
        passed = bool(_OPS[expect["op"]](left, right))
        relation = "satisfies" if passed else "does not satisfy"
        return passed, f"reproduced {value} {relation} {expect['op']} {expect['value']}"
    tolerance = float(claim.get("tolerance", 0))
    try:
        difference = abs(float(value) - float(claim["paper"]))
    except (TypeError, ValueError):
        passed = str(value) == str(claim["paper"])
        return passed, "" if passed else f"reproduced {value!r} differs from the paper's {claim['paper']!r}"
    if math.isnan(difference):
        return False, "reproduced value is not a number"
    passed = difference <= tolerance + 1e-12
    return passed, f"difference {difference:.4g} {'within' if passed else 'beyond'} tolerance {tolerance:g}"


def _tolerance_text(claim: Mapping[str, Any]) -> str:
    if claim["kind"] == "qualitative":
        return f"{claim['expect']['op']} {claim['expect']['value']}"
    return f"±{float(claim.get('tolerance', 0)):g}"


def evaluate_files(paths: list[str], root: Path, scale: str, pending: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Evaluate every claim of every file; one row per claim (``pending``: see :func:`evaluate`)."""
    verdicts = []
    for path in paths:
        study, claims = load_claims(path)
        verdicts.extend(evaluate(study, claim, root, scale, pending) for claim in claims)
    columns = list(Verdict.__dataclass_fields__)
    return pd.DataFrame([v.__dict__ for v in verdicts], columns=columns)

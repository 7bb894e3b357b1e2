"""``docs/claims.md``: every claim of every study, findings and invariants apart, generated from the claims files
(``graphaudit docs claims``), so the page cannot drift from what the report judges (a test regenerates it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from graphaudit.report.claims import applies_at, claim_role, load_claims
from graphaudit.report.tables import to_markdown

SCALES = ("ci", "quick", "paper")


def claims_page(paths: Sequence[str]) -> str:
    """The Markdown page: a count per study (findings and invariants, at each scale), then per study its findings
    and its invariants, in claims-file order."""
    studies = [load_claims(path) for path in paths]
    parts = [
        "# Claims",
        "",
        "Generated from `config/claims/*.yaml` by `graphaudit docs claims` (a test fails when this page is stale). "
        "A **finding** is a claim a wrong implementation could fail; an **invariant** holds by construction and "
        "is a check of the code, never counted as reproduced (see [report.md](report.md)). What a run gave is in "
        "its report, `results/report/index.html`.",
        "",
        to_markdown(_counts(studies)),
    ]
    for study, claims in studies:
        findings = [c for c in claims if claim_role(c) == "finding"]
        invariants = [c for c in claims if claim_role(c) == "invariant"]
        parts += ["", f"## {study}", "", f"### Findings ({len(findings)})", "", to_markdown(_rows(findings))]
        if invariants:
            parts += ["", f"### Invariants ({len(invariants)})", "", to_markdown(_rows(invariants, guarantee=True))]
    return "\n".join(parts) + "\n"


def _counts(studies: Sequence[tuple[str, list[dict[str, Any]]]]) -> pd.DataFrame:
    rows = []
    for study, claims in studies:
        row: dict[str, Any] = {"study": study}
        for role in ("finding", "invariant"):
            mine = [c for c in claims if claim_role(c) == role]
            row[f"{role}s"] = len(mine)
            row.update({f"{role}s at {scale}": sum(applies_at(c, scale) for c in mine) for scale in SCALES})
        rows.append(row)
    return pd.DataFrame(rows)


def _rows(claims: Sequence[Mapping[str, Any]], guarantee: bool = False) -> pd.DataFrame:
    rows = [
        {
            "claim": c["id"],
            "description": c.get("description", ""),
            "paper": c["paper"],
            "kind": c["kind"],
            "scales": ", ".join(s for s in SCALES if applies_at(c, s)),
            "headline": "yes" if c.get("headline") else "",
            **({"guaranteed_by": c["guaranteed_by"]} if guarantee else {}),
        }
        for c in claims
    ]
    return pd.DataFrame(rows)

"""docs/claims.md: generated from the claims files, findings and invariants apart; the committed page is current."""

from __future__ import annotations

from pathlib import Path

import yaml

from graphaudit.cli import main
from graphaudit.report.claims_page import claims_page

ROOT = Path(__file__).resolve().parents[2]
SOURCE = {"table": "results/x/tables/t.csv", "column": "v"}


def write(path: Path, study: str, claims: list[dict]) -> str:
    path.write_text(yaml.safe_dump({"study": study, "claims": claims}, sort_keys=False))
    return str(path)


def test_the_page_counts_and_lists_findings_and_invariants_apart(tmp_path: Path) -> None:
    first = write(
        tmp_path / "a.yaml",
        "alpha",
        [
            {
                "id": "acc",
                "description": "accuracy",
                "paper": 0.9,
                "kind": "statistical",
                "tolerance": 0.1,
                "headline": True,
                "source": SOURCE,
            },
            {
                "id": "n",
                "paper": 3,
                "kind": "exact",
                "scales": ["paper"],
                "role": "invariant",
                "guaranteed_by": "the configured list",
                "source": SOURCE,
            },
        ],
    )
    second = write(
        tmp_path / "b.yaml",
        "beta",
        [
            {
                "id": "q",
                "paper": "> 0",
                "kind": "qualitative",
                "expect": {"op": ">", "value": 0},
                "scales": ["ci"],
                "source": SOURCE,
            }
        ],
    )
    page = claims_page([first, second])
    assert "| alpha | 1 | 1 | 1 | 1 | 1 | 0 | 0 | 1 |" in page
    assert "| beta | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 |" in page
    assert "## alpha\n\n### Findings (1)\n\n| claim | description | paper | kind | scales | headline |" in page
    assert "| acc | accuracy | 0.9 | statistical | ci, quick, paper | yes |" in page
    assert "### Invariants (1)" in page and "| n |  | 3 | exact | paper |  | the configured list |" in page
    assert "## beta\n\n### Findings (1)" in page and "### Invariants" not in page.split("## beta")[1]


def test_the_committed_page_is_what_the_claims_files_give(tmp_path: Path) -> None:
    out = tmp_path / "claims.md"
    assert main(["docs", "claims", "--claims", str(ROOT / "config/claims"), "--out", str(out)]) == 0
    committed = (ROOT / "docs/claims.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed, "docs/claims.md is stale: run `graphaudit docs claims`"

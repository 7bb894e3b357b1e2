"""The llmpattern golden set: the intermediate files of a tiny run (``golden/items/<set>.jsonl``, the generated
item sets, ``golden/scores/<responder>/<set>.csv``, the per-responder score tables, and
``golden/records/<responder>/modification.jsonl``, the per-answer score records Table 23 reads), made by the
study's rule entries with offline responders, and the tables the table functions build from them
(``golden/expected/``), rebuilt byte for byte by ``test_tables.py`` (the DomainBed ``test_collect_results``
model). ``paper_consistency`` reads the committed ``config/llmpattern/paper_values.yaml``.

Regenerate after a deliberate change, review the diff and say why in the commit::

    .venv/bin/python -m tests.llmpattern.golden --regenerate
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.llmpattern import tables
from graphaudit.llmpattern.settings import LlmpatternSettings, item_params, respond_params
from graphaudit.llmpattern.tasks import DERIVED, SETS, covers, llmpattern_items, llmpattern_respond, responder_slug

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
EXPECTED = GOLDEN / "expected"
SECTION = load_settings(
    LlmpatternSettings,
    {
        "scales": ["small"],
        "semantics": "induced",
        "translation": {"per_pattern": 1},
        "detection": {"per_n": 1, "styles": ["zero_shot"]},
        "isomorphism": {"modes": ["faithful", "hardened"]},
        "modification": {"per_n": 1},
        "frequent": {"per_n": 2, "turns": {"small": 1}},
        "ba2motif": {"per_class": 12, "test_per_class": 2, "turns": 1, "per_label": 6},
        "molecules": {"datasets": [], "per_class": 2, "files": {}},
        "realworld": {"datasets": [], "epochs": 2, "max_turns": 1, "max_test_per_class": 1, "download": False},
        "n_eval": 2,
        "formats": ["AL", "EL"],
        "responders": ["oracle", "baseline:empty", "baseline:positional", "baseline:degree_ge3"],
        "model": {},
        "models": {},
        "paper_values": "config/llmpattern/paper_values.yaml",
    },
)
"""The golden run's settings (pinned here, not read from the config, so a config change cannot move it)."""
SEED = 0
RESPONDERS = {responder_slug(spec): spec for spec in SECTION.responders}
RUNS = [(s, r) for s in SETS for r, spec in RESPONDERS.items() if covers(spec, s)]
TABLES = (
    *tables.TABLES,
    "table20",
    "table23",
    "table24",
    "table25",
    "summary",
    "table12",
    "occurrences",
    "paper_consistency",
)
RECORD_SETS = ("modification",)
"""The sets whose per-answer score records the golden set keeps (Table 23 reads them)."""


def table_inputs(root: Path) -> dict[str, dict[str, list[str] | str]]:
    """Each table's named inputs among the intermediate files under ``root`` (as the rule file lists them)."""
    scores = {s: [str(root / "scores" / r / f"{s}.csv") for run_set, r in RUNS if run_set == s] for s in SETS}
    every = [str(root / "scores" / r / f"{s}.csv") for s, r in RUNS]
    values = str(ROOT / SECTION.paper_values)
    modification = [str(root / "records" / r / "modification.jsonl") for s, r in RUNS if s == "modification"]
    return {
        **{name: {"scores": scores[set_name], "values": values} for name, (_, set_name) in tables.TABLES.items()},
        "table20": {"scores": every, "values": values},
        "table23": {"records": modification, "itemset": str(root / "items" / "modification.jsonl"), "values": values},
        "table24": {"scores": scores["detection"], "values": values},
        "table25": {"scores": scores["detection"], "values": values},
        "summary": {"scores": every},
        "table12": {"itemsets": [str(root / "items" / f"{s}.jsonl") for s in SETS]},
        "occurrences": {"detection": str(root / "items" / "detection.jsonl")},
        "paper_consistency": {"values": values},
    }


def build_tables(root: Path, out: Path) -> Path:
    """Every table from the intermediate files under ``root``, into ``out``."""
    for name, inputs in table_inputs(root).items():
        getattr(tables, name)(RuleContext(input=inputs, output={"table": str(out / f"{name}.csv")}))
    return out


def build_intermediates(root: Path, work: Path) -> Path:
    """The item sets and score tables of the golden run under ``root`` (caches and score records under ``work``)."""
    items = root / "items"
    for name in SETS:
        inputs = {"detection": str(items / "detection.jsonl")} if name in DERIVED else {}
        outputs = {"itemset": str(items / f"{name}.jsonl")}
        params = {"generation": item_params(SECTION, SEED, name)}
        llmpattern_items(RuleContext(input=inputs, output=outputs, params=params, wildcards={"set": name}))
    for name, responder in RUNS:
        outputs = {"scores": str(work / responder / f"{name}.jsonl"), "table": str(work / responder / f"{name}.csv")}
        params = {
            "respond": respond_params(SECTION, SEED, name, RESPONDERS[responder]),
            "cache": str(work / "cache" / responder / f"{name}.jsonl"),
            "rate_file": str(work / "cache" / responder / "requests.rate"),
        }
        wildcards = {"set": name, "responder": responder}
        llmpattern_respond(
            RuleContext(
                input={"itemset": str(items / f"{name}.jsonl")}, output=outputs, params=params, wildcards=wildcards
            )
        )
        (root / "scores" / responder).mkdir(parents=True, exist_ok=True)
        shutil.copy(outputs["table"], root / "scores" / responder / f"{name}.csv")
        if name in RECORD_SETS:
            (root / "records" / responder).mkdir(parents=True, exist_ok=True)
            shutil.copy(outputs["scores"], root / "records" / responder / f"{name}.jsonl")
    return root


def regenerate() -> None:
    """Rewrite the committed intermediates and expected tables (review the diff before committing)."""
    for folder in ("items", "scores", "records", "expected"):
        shutil.rmtree(GOLDEN / folder, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        build_intermediates(GOLDEN, Path(work))
    build_tables(GOLDEN, EXPECTED)
    print(f"wrote {GOLDEN}; review `git diff -- {GOLDEN}`")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    regenerate()

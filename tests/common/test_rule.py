"""resolve_entry and context_from_snakemake (with a fake Snakemake object)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from graphaudit.common.memory import peak_rss_mb
from graphaudit.common.rule import (
    OVER_MEMORY,
    RuleContext,
    context_from_snakemake,
    job_label,
    log_peak_memory,
    resolve_entry,
)
from graphaudit.report.tables import write_table


class FakeNamedlist(list):
    """Like snakemake.io.Namedlist: a list whose named entries are also reachable through items()."""

    def __init__(self, *positional: Any, **named: Any) -> None:
        super().__init__([*positional, *named.values()])
        self._names = dict(named)

    def items(self):
        return iter(self._names.items())


def fake_smk(params: dict[str, Any] | None = None, **changes: Any) -> SimpleNamespace:
    fields = dict(
        rule="report",
        input=FakeNamedlist(datasets="results/data/tables/datasets.csv", claims=FakeNamedlist("c/a.yaml", "c/b.yaml")),
        output=FakeNamedlist(markdown="results/report/index.md"),
        params=FakeNamedlist(
            **(params if params is not None else {"entry": "graphaudit.report.assemble:report", "scale": "ci"})
        ),
        wildcards=FakeNamedlist(study="glad"),
        threads=4,
        resources=FakeNamedlist(_cores=4, _nodes=1, mem_mb=2048, runtime=30),
        log=FakeNamedlist("logs/report.log"),
    )
    fields.update(changes)
    return SimpleNamespace(**fields)


def test_resolve_entry_accepts_graphaudit_function() -> None:
    assert resolve_entry("graphaudit.report.tables:write_table") is write_table


@pytest.mark.parametrize(
    "entry",
    [
        "os:system",
        "graphaudit.report.tables",
        "graphaudit.report.tables:",
        "graphaudit:main",
        "graphauditx.evil:run",
        "",
    ],
)
def test_resolve_entry_rejects(entry: str) -> None:
    with pytest.raises(ValueError, match=r"graphaudit.<module>:<function>"):
        resolve_entry(entry)


def test_context_from_snakemake() -> None:
    entry, ctx = context_from_snakemake(fake_smk())
    assert entry == "graphaudit.report.assemble:report"
    assert ctx == RuleContext(
        input={"datasets": "results/data/tables/datasets.csv", "claims": ["c/a.yaml", "c/b.yaml"]},
        output={"markdown": "results/report/index.md"},
        params={"scale": "ci"},
        wildcards={"study": "glad"},
        threads=4,
        resources={"mem_mb": 2048, "runtime": 30},
        log="logs/report.log",
    )
    assert "entry" not in ctx.params
    assert isinstance(ctx.input["claims"], list) and not isinstance(ctx.input["claims"], FakeNamedlist)


def test_context_without_log_and_string_threads() -> None:
    _, ctx = context_from_snakemake(fake_smk(log=FakeNamedlist(), threads="2"))
    assert ctx.log is None
    assert ctx.threads == 2


def test_missing_entry_rejected() -> None:
    with pytest.raises(ValueError, match=r"'report' has no params.entry"):
        context_from_snakemake(fake_smk(params={"scale": "ci"}))


def test_unnamed_inputs_rejected() -> None:
    with pytest.raises(ValueError, match="must name"):
        context_from_snakemake(fake_smk(input=FakeNamedlist("a.csv", "b.csv")))


def test_empty_unnamed_inputs_are_fine() -> None:
    _, ctx = context_from_snakemake(fake_smk(input=FakeNamedlist()))
    assert ctx.input == {}


def test_input_and_output_lists_whether_one_path_or_several() -> None:
    ctx = RuleContext(input={"one": "a.csv", "many": ["b.csv", "c.csv"]}, output={"one": "x.png", "none": []})
    assert ctx.input_list("one") == ["a.csv"] and ctx.input_list("many") == ["b.csv", "c.csv"]
    assert ctx.output_list("one") == ["x.png"] and ctx.output_list("none") == []


def test_peak_memory_is_logged_against_the_declared_mem_mb(caplog: pytest.LogCaptureFixture) -> None:
    peak = peak_rss_mb(children=True)
    with caplog.at_level("INFO", logger="graphaudit.common.rule"):
        log_peak_memory("big", {"mem_mb": int(peak) + 1000})
        log_peak_memory("undeclared", {})
        log_peak_memory("small", {"mem_mb": 1})
    levels = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records]
    assert levels == [("INFO", "rule big"), ("INFO", "rule undeclared"), ("WARNING", "rule small")]
    assert OVER_MEMORY in caplog.records[2].getMessage() and "against 1 MB" in caplog.records[2].getMessage()
    assert "(declared mem_mb None)" in caplog.records[1].getMessage()


def test_peak_memory_counts_this_process_in_mib() -> None:
    before = peak_rss_mb()
    block = np.ones(64 * 1024 * 1024 // 8)  # 64 MiB touched
    assert peak_rss_mb() >= before and peak_rss_mb() >= 64 and block.sum() > 0
    assert peak_rss_mb(children=True) >= peak_rss_mb()


def test_a_job_is_labelled_by_its_rule_and_wildcards() -> None:
    assert job_label("report", {}) == "report"
    assert job_label("train_run_glad", {"detector": "OCGIN", "fold": "0"}) == "train_run_glad detector=OCGIN,fold=0"

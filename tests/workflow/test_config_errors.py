"""Config mistakes stop `snakemake -n` of the real Snakefile at parse time with one line that names the key, the
file and what to do (the checks themselves are unit-tested in tests/common/test_config.py and the studies'
test_settings.py; these runs check that the workflow calls them)."""

from __future__ import annotations

import yaml
from workflow_runs import ROOT, snakemake, workflow_copy


def dry_run(tmp_path, overlay: dict | None = None, defaults_tail: str = ""):
    copy = workflow_copy(tmp_path)
    if defaults_tail:
        with (copy / "config/config.yaml").open("a", encoding="utf-8") as defaults:
            defaults.write(defaults_tail)
    (copy / "config/bad.yaml").write_text(yaml.safe_dump(overlay or {}), encoding="utf-8")
    result = snakemake(copy, "-n", "--configfile", "config/ci.yaml", "config/bad.yaml")
    assert result.returncode != 0, result.stdout[-2000:]
    assert "Building DAG of jobs" not in result.stdout + result.stderr  # stopped at parse time, before any job
    return copy, (result.stdout + result.stderr).splitlines()


def test_an_unknown_top_level_key_is_one_line_naming_the_key_and_the_file(tmp_path):
    copy, lines = dry_run(tmp_path, {"bogus_key": 3})
    named = [line for line in lines if "bogus_key" in line]
    assert named == [
        f"{copy / 'config/bad.yaml'}: unknown key 'bogus_key' at the top level; known keys at the top level: "
        + ", ".join(sorted(yaml.safe_load((copy / "config/schema.yaml").read_text())["properties"]))
        + " (config/schema.yaml describes every key)"
    ]
    assert len(lines) < 10, lines  # not snakemake's schema dump


def test_an_empty_study_list_is_refused(tmp_path):
    _, lines = dry_run(tmp_path, {"studies": []})
    assert any(
        line.endswith(
            "config/bad.yaml: studies is []; [] should be non-empty (Studies whose targets "
            "`snakemake` (rule all) builds and the report shows; at least one)"
        )
        for line in lines
    )


def test_a_yaml_syntax_error_in_the_default_config_names_file_and_line(tmp_path):
    _, lines = dry_run(tmp_path, defaults_tail="oops: [1,\n")
    end = len((ROOT / "config/config.yaml").read_text(encoding="utf-8").splitlines()) + 2  # the stream's end
    assert any(
        line.startswith(f"config file config/config.yaml, line {end}, column 1: YAML syntax error") for line in lines
    )


def test_two_responders_with_one_name_are_refused(tmp_path):
    _, lines = dry_run(
        tmp_path, {"llmpattern": {"responders": ["oracle", "baseline:empty", "openai-compatible:empty"]}}
    )
    assert any(
        line.startswith(
            "llmpattern.responders: 'baseline:empty' and 'openai-compatible:empty' both get the name 'empty'"
        )
        for line in lines
    ), lines


def test_a_mirror_that_is_not_a_folder_stops_the_parse_and_unsetting_it_recovers(tmp_path):
    copy, lines = dry_run(tmp_path, {"data": {"mirror": str(tmp_path / "no-such-mirror")}})
    assert any(
        line.endswith(
            f"data.mirror is '{tmp_path / 'no-such-mirror'}', which is not a folder: set it to the mirror folder (one "
            "holding the datasets' files, e.g. ../shared/data) or unset it to fetch from the canonical sources"
        )
        for line in lines
    ), lines
    (copy / "config/bad.yaml").write_text("{}\n", encoding="utf-8")  # unset, as the message says
    assert snakemake(copy, "-n", "--configfile", "config/ci.yaml", "config/bad.yaml").returncode == 0

"""The OpenAI-compatible backend in real-run conditions, against the fake server: the request rate holds across
parallel jobs (separate processes) of one model, and a respond job whose prompts partly fail or get truncated
completes with those prompts counted, never scored as answers."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

import graphaudit
from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.answers import oracle_answer
from graphaudit.llmpattern.datasets import read_items
from graphaudit.llmpattern.prompts import build_prompt
from graphaudit.llmpattern.scorers import score_answer
from graphaudit.llmpattern.settings import respond_params
from graphaudit.llmpattern.tasks import evaluated_items, llmpattern_respond, prompt_jobs

from .fake_llm import KEY_ENV, FakeServer, Scripted, completion
from .golden import GOLDEN, SECTION, SEED

# ---- the rate across jobs --------------------------------------------------------------------------------------
JOB = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from graphaudit.llmpattern.responders import OpenAICompatibleResponder
    base_url, rate_file, folder, name, count, rpm = sys.argv[1:]
    client = OpenAICompatibleResponder(
        "tiny-model", base_url=base_url, api_key_env=None, requests_per_minute=float(rpm), timeout_s=30,
        rate_file=rate_file or None,
    )
    Path(folder, name + ".ready").touch()
    while not Path(folder, "go").exists():  # both jobs start together, as parallel Snakemake jobs may
        time.sleep(0.005)
    for index in range(int(count)):
        client.respond(f"{name} prompt {index}", {"item_id": f"{name}/{index}"})
    """
)
REQUESTS_PER_MINUTE = 300  # one start every 0.2 s
PER_JOB = 4


def _two_jobs(server: FakeServer, folder: Path, rate_file: str) -> list[float]:
    """Run two jobs of one model at once in two processes; the sorted arrival times of their requests."""
    env = {**os.environ, "PYTHONPATH": str(Path(graphaudit.__file__).resolve().parents[1])}
    argv = [server.base_url, rate_file, str(folder), "", str(PER_JOB), str(REQUESTS_PER_MINUTE)]
    jobs = [subprocess.Popen([sys.executable, "-c", JOB, *argv[:3], name, *argv[4:]], env=env) for name in ("a", "b")]
    deadline = time.monotonic() + 60
    while not all((folder / f"{name}.ready").exists() for name in ("a", "b")):
        assert time.monotonic() < deadline and all(job.poll() is None for job in jobs), "a job did not start"
        time.sleep(0.01)
    (folder / "go").touch()
    assert [job.wait(timeout=60) for job in jobs] == [0, 0]
    assert len(server.requests) == 2 * PER_JOB
    return sorted(request["at"] for request in server.requests)


@pytest.mark.parametrize("shared", [True, False], ids=["one rate file", "control: a limiter per job"])
def test_the_rate_limit_holds_across_parallel_jobs(server: FakeServer, tmp_path, shared: bool) -> None:
    interval = 60 / REQUESTS_PER_MINUTE
    arrivals = _two_jobs(server, tmp_path, str(tmp_path / "requests.rate") if shared else "")
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    if shared:  # one schedule: 8 starts at least an interval apart (arrival jitter on a loaded machine allowed)
        assert arrivals[-1] - arrivals[0] >= (2 * PER_JOB - 1.5) * interval and min(gaps) >= interval / 2, gaps
    else:  # the control shows the test can fail: each job keeps the rate alone, so together they exceed it
        assert arrivals[-1] - arrivals[0] < (PER_JOB + 0.5) * interval and min(gaps) < interval / 2, gaps


# ---- a respond job with failing and truncated prompts -----------------------------------------------------------
def _kcore_prompts() -> list[tuple[dict, dict]]:
    items = read_items(GOLDEN / "items" / "kcore.jsonl")
    chosen = evaluated_items(items, SECTION.n_eval, SEED)
    return [(item, options) for item in chosen for options in prompt_jobs(item, SECTION.formats, None)]


def _respond(server: FakeServer, tmp_path: Path) -> RuleContext:
    section = dataclasses.replace(SECTION, model={"base_url": server.base_url, "api_key_env": KEY_ENV})
    ctx = RuleContext(
        input={"itemset": str(GOLDEN / "items" / "kcore.jsonl")},
        output={"scores": str(tmp_path / "scores.jsonl"), "table": str(tmp_path / "scores.csv")},
        params={
            "respond": respond_params(section, SEED, "kcore", "openai-compatible:tiny-model"),
            "cache": str(tmp_path / "cache" / "kcore.jsonl"),
            "rate_file": str(tmp_path / "cache" / "requests.rate"),
        },
        wildcards={"set": "kcore", "responder": "tiny-model"},
    )
    llmpattern_respond(ctx)
    return ctx


def test_a_respond_job_counts_failed_and_truncated_prompts_and_completes(server: FakeServer, tmp_path) -> None:
    jobs = _kcore_prompts()
    cut, failed = list(dict.fromkeys(item["item_id"] for item, _ in jobs if item["truth"]["core"]))[:2]  # 3-cores
    # prompt -> (item, its exact answer): the server answers every prompt exactly, cuts one item's answers off
    # at the token limit and rejects another's
    answers = {
        build_prompt(item, o["fmt"], "zero_shot", None): (item["item_id"], oracle_answer(item, **o)) for item, o in jobs
    }

    def answer(body: dict) -> Scripted:
        item_id, text = answers[body["messages"][0]["content"]]
        if item_id == failed:
            return 400, {"error": {"message": "prompt rejected"}}, {}, 0.0
        return 200, completion(body, "length" if item_id == cut else "stop", content=text), {}, 0.0

    server.answer = answer
    ctx = _respond(server, tmp_path)
    scores = list(read_records(ctx.output["scores"]))
    outcomes = {(s["item_id"], s["outcome"]) for s in scores}
    assert {o for i, o in outcomes if i == cut} == {"truncated"} and {o for i, o in outcomes if i == failed} == {
        "error"
    }
    assert {o for i, o in outcomes if i not in (cut, failed)} == {"ok"}
    item = next(item for item, _ in jobs if item["item_id"] == cut)
    for score in (s for s in scores if s["item_id"] == cut):  # the exact answer, cut off: scored as an empty one
        empty = score_answer(item, "", score["mode"])
        exact = score_answer(item, oracle_answer(item, fmt=score["fmt"]), score["mode"])
        assert score["precision"] == empty["precision"] != exact["precision"]
    table = pd.read_csv(ctx.output["table"])
    assert (table["n_truncated"] == 1).all() and (table["n_error"] == 1).all()  # one of each per format and mode
    assert (table[["n_content_filter", "n_refusal"]] == 0).all().all() and (table["n"] == len(jobs) // 2).all()
    cache = [json.loads(line) for line in Path(ctx.params["cache"]).read_text().splitlines()]
    assert sorted(e["outcome"] for e in cache).count("error") == 2 and len(cache) == len(jobs)
    sent = len(server.requests)
    _respond(server, tmp_path)  # a rerun asks again only the failed prompts
    assert len(server.requests) == sent + 2

"""Rule entries of the llmpattern study: item sets, prompts answered by a responder and scored, tables.

Data flow: ``llmpattern_items`` writes one JSONL of items per set (``data/generated/llmpattern/<set>.jsonl``);
``llmpattern_respond`` builds every prompt of a set's evaluated items (formats, terminology / topology,
patterns, gold sets, styles as the set's tasks have them), answers them through one responder with a
content-addressed cache (``results/llmpattern/cache/<responder>/<set>.jsonl``, kept when a job stops, so a
rerun asks only what is missing) and scores every answer in both scoring modes; ``llmpattern_tables`` groups
the scores into the paper's tables. BA-2motif runs in two stages, as in the paper: the classification prompts
list the discriminative patterns that the same responder extracted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from graphaudit.common.records import write_records
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.answers import BASELINE_TASKS
from graphaudit.llmpattern.cache import ResponseCache
from graphaudit.llmpattern.datasets import Item, dataset_statistics, occurrence_statistics, read_items, write_items
from graphaudit.llmpattern.generators import (
    ba2motif_items,
    detection_items,
    discriminative_turns,
    eval_subset,
    frequent_graph_items,
    frequent_turns,
    isomorphism_items,
    kcore_items,
    modification_items,
    translation_items,
)
from graphaudit.llmpattern.parsers import parse_answer
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, FREQUENT_PATTERNS, MODIFICATIONS, UNDIRECTED_PATTERNS
from graphaudit.llmpattern.prompts import build_prompt
from graphaudit.llmpattern.responders import PROMPT_OPTIONS, Responder, make_responder
from graphaudit.llmpattern.scorers import aggregate, score_answer
from graphaudit.report.tables import write_table

__all__ = [
    "REPO_CAPS",
    "SETS",
    "TABLES",
    "covers",
    "evaluated_items",
    "llmpattern_items",
    "llmpattern_respond",
    "llmpattern_statistics",
    "llmpattern_tables",
    "prompt_jobs",
    "responder_slug",
    "set_items",
    "summary",
]

log = logging.getLogger(__name__)

SETS = ("translation", "detection", "isomorphism", "kcore", "modification", "frequent", "discriminative")
SET_TASKS = {
    "translation": {"translation"},
    "detection": {"detection"},
    "isomorphism": {"isomorphism"},
    "kcore": {"kcore"},
    "modification": {"modification"},
    "frequent": {"frequent"},
    "discriminative": {"discriminative", "ba2motif"},
}
DERIVED = {"isomorphism", "kcore"}  # sets built from the undirected detection graphs
# paper table -> task code (and stage); T3/T6 are Tables 18/19
TABLES = {
    "table2": ("T1", None),
    "table3": ("T2", None),
    "table4": ("T4", None),
    "table5": ("T5", None),
    "table6": ("T7", None),
    "table7": ("T8", None),
    "table8": ("T9", None),
    "table18": ("T3", None),
    "table19": ("T6", None),
}
TABLE_COLUMNS = [
    "task",
    "stage",
    "variant",
    "pattern",
    "scale",
    "fmt",
    "description",
    "style",
    "responder",
    "mode",
    "metric",
    "value",
    "n",
    "n_unparsed",
    "note",
]
# Why the exact answer scores below 1 under the authors' scoring (spec 4.9, pitfalls 4 and 6).
REPO_CAPS = {
    "T1": "the repository's translation parser reads edge tuples only, so an adjacency-list answer is unparsed",
    "T3": "the repository's 5-tuple regex needs ',,' before the fifth number, so house answers are unreadable "
    "and only graphs without a house score",
    "T6": "the repository's 5-tuple regex needs ',,' before the fifth number, so house answers are unreadable "
    "and only graphs without a house score",
    "T7": "an empty answer scores 0 even when the 3-core is empty, so the ceiling is the share of graphs with a "
    "non-empty 3-core",
}
SCORE_MODES = ("repo", "clean")


def responder_slug(spec: str) -> str:
    """A responder's name in paths: the baseline or model name, a replay file's stem, ``oracle``."""
    kind, _, argument = spec.partition(":")
    if kind == "replay":
        return f"replay-{Path(argument).stem}"
    name = argument or kind
    if not name or any(c in name for c in "/\\ "):
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return name


def covers(responder_spec: str, set_name: str) -> bool:
    """Whether a responder answers a set: models and the oracle answer everything, a baseline only its tasks."""
    kind, _, name = responder_spec.partition(":")
    return kind != "baseline" or bool(BASELINE_TASKS[name] & SET_TASKS[set_name])


# ---- item sets -------------------------------------------------------------------------------------------
def set_items(set_name: str, cfg: dict, detection: Sequence[Item] = ()) -> list[Item]:
    """Every item of a set at the configured scales and counts (pools and turns included)."""
    seed, scales = int(cfg["seed"]), list(cfg["scales"])
    if set_name == "translation":
        return translation_items(int(cfg["translation"]["per_pattern"]))
    if set_name == "detection":
        return [
            item
            for directed in (False, True)
            for scale in scales
            for item in detection_items(directed, scale, int(cfg["detection"]["per_n"]), seed)
        ]
    undirected = [item for item in detection if not item["directed"]]
    if set_name == "isomorphism":
        return [item for mode in cfg["isomorphism"]["modes"] for item in isomorphism_items(undirected, mode, seed)]
    if set_name == "kcore":
        return kcore_items(undirected)
    if set_name == "modification":
        return [
            item
            for variant in MODIFICATIONS
            for scale in scales
            for item in modification_items(variant, scale, int(cfg["modification"]["per_n"]), seed)
        ]
    if set_name == "frequent":
        return [
            item
            for pattern in FREQUENT_PATTERNS
            for scale in scales
            for item in _frequent(pattern, scale, cfg["frequent"], seed)
        ]
    if set_name == "discriminative":
        ba = ba2motif_items(int(cfg["ba2motif"]["per_class"]), int(cfg["ba2motif"]["test_per_class"]), seed=seed)
        return ba + discriminative_turns(ba, int(cfg["ba2motif"]["turns"]), int(cfg["ba2motif"]["per_label"]), seed)
    raise ValueError(f"unknown llmpattern set {set_name!r}; sets are {', '.join(SETS)}")


def _frequent(pattern: str, scale: str, cfg: dict, seed: int) -> list[Item]:
    pool = frequent_graph_items(pattern, scale, int(cfg["per_n"]), seed)
    turns = cfg["turns"].get(scale) if cfg.get("turns") else None
    return pool + frequent_turns(pool, turns, seed=seed)


def llmpattern_items(ctx: RuleContext) -> None:
    """Rule entry: one set's items (``wildcards.set``); isomorphism and k-core read the detection set."""
    cfg, name = ctx.params["llmpattern"], ctx.wildcards["set"]
    detection = read_items(ctx.input["detection"]) if name in DERIVED else ()
    count = write_items(ctx.output["itemset"], set_items(name, cfg, detection))
    log.info("%s: %d items", name, count)


def llmpattern_statistics(ctx: RuleContext) -> None:
    """Rule entry: Table 12 statistics of every generated set and the detection occurrence statistics."""
    items = [item for path in ctx.input_list("itemsets") for item in read_items(path)]
    write_table(
        pd.DataFrame(dataset_statistics(items)),
        ctx.output["table12"],
        title="Table 12: statistics of the generated data sets",
    )
    write_table(
        pd.DataFrame(occurrence_statistics(items)),
        ctx.output["occurrences"],
        title="Induced occurrences per detection graph (spec 7.2)",
    )


# ---- prompts ---------------------------------------------------------------------------------------------
def evaluated_items(items: Sequence[Item], cfg: dict) -> list[Item]:
    """The items that get prompts: every small item, ``n_eval`` of each medium / large set (one shared subset
    for detection, isomorphism and k-core, as the repository shares it), pools and discrimination graphs
    left out."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        if item["task"] in ("frequent_graph",) or (item["task"] == "ba2motif" and item["variant"] != "classification"):
            continue
        groups.setdefault((item["task"], item["variant"], item["scale"]), []).append(item)
    chosen = []
    for (task, variant, scale), group in groups.items():
        if scale is None or task in ("frequent",):
            chosen.extend(group)
            continue
        name = "detection" if task in ("detection", "isomorphism", "kcore") else f"{task}/{variant}"
        chosen.extend(group[i] for i in eval_subset(name, scale, len(group), int(cfg["n_eval"]), seed=int(cfg["seed"])))
    return chosen


def prompt_jobs(item: Item, cfg: dict) -> Iterator[dict[str, Any]]:
    """The prompt settings of an item: graph format, description, pattern, gold set and style as its task has
    them (classification prompts are built later, from the extracted patterns)."""
    task = item["task"]
    for fmt in cfg["formats"]:
        if task == "detection":
            patterns = DIRECTED_PATTERNS if item["directed"] else UNDIRECTED_PATTERNS
            for description in ("term", "topo"):
                for pattern in patterns:
                    for style in cfg["detection"]["styles"]:
                        yield {"fmt": fmt, "description": description, "pattern": pattern, "style": style}
        elif task == "modification":
            for description in ("term", "topo"):
                yield {"fmt": fmt, "description": description}
        elif task == "discriminative":
            for gold_set in ("Set1", "Set2"):
                yield {"fmt": fmt, "gold_set": gold_set}
        elif task == "translation":
            yield {"fmt": fmt, "description": "term"}
        elif task != "ba2motif":
            yield {"fmt": fmt}


def _prompt(item: Item, options: dict[str, Any]) -> str:
    options = dict(options)
    return build_prompt(
        item, options.pop("fmt"), options.pop("style", "zero_shot"), options.pop("description", None), **options
    )


def _answer_and_score(
    responder: Responder, responder_name: str, jobs: list[tuple[Item, dict]], cache: ResponseCache
) -> list[dict[str, Any]]:
    """Answer every (item, prompt options) through the cache and score each answer in both modes."""
    batch = [({**item, PROMPT_OPTIONS: options}, _prompt(item, options)) for item, options in jobs]
    responses = responder.respond_all(batch, cache)
    scores = []
    for (item, options), response in zip(jobs, responses):
        labels = {"fmt": options["fmt"], "style": options.get("style", "zero_shot"), "responder": responder_name}
        for mode in SCORE_MODES:
            score = score_answer(
                item,
                response.text,
                mode,
                description=options.get("description"),
                pattern=options.get("pattern"),
                gold_set=options.get("gold_set"),
                labels=labels,
            )
            scores.append({**score, "response_text": response.text if mode == "repo" else None})
    return scores


def _type_patterns(turns: list[tuple[Item, dict]], scores: list[dict], fmt: str) -> list[list[Any]]:
    """Per type (Set1 = label 0, Set2 = label 1): the distinct patterns the responder extracted in ``fmt`` that
    passed the repository's discriminative filter (repo mode)."""
    found: dict[str, list] = {"Set1": [], "Set2": []}
    repo = [s for s in scores if s["mode"] == "repo"]
    for (item, options), score in zip(turns, repo):
        if options["fmt"] != fmt or not score.get("discriminative"):
            continue
        pattern = parse_answer(item, score["response_text"], "repo").value
        if pattern and pattern not in found[options["gold_set"]]:
            found[options["gold_set"]].append(pattern)
    return [found["Set1"], found["Set2"]]


def _classification_jobs(
    items: Sequence[Item], turns: list[tuple[Item, dict]], scores: list[dict], cfg: dict
) -> list[tuple[Item, dict]]:
    tests = [item for item in items if item["task"] == "ba2motif" and item["variant"] == "classification"]
    return [
        (item, {"fmt": fmt, "type_patterns": _type_patterns(turns, scores, fmt)})
        for fmt in cfg["formats"]
        for item in tests
    ]


def llmpattern_respond(ctx: RuleContext) -> None:
    """Rule entry: one responder on one set; writes the per-answer scores (``scores``, JSONL) and their
    aggregates (``table``)."""
    cfg, set_name, name = ctx.params["llmpattern"], ctx.wildcards["set"], ctx.wildcards["responder"]
    spec = next(spec for spec in cfg["responders"] if responder_slug(spec) == name)
    responder = make_responder(spec, cfg["model"] if str(spec).startswith("openai-compatible") else None)
    items = read_items(ctx.input["itemset"])
    chosen = evaluated_items(items, cfg)
    jobs = [(item, options) for item in chosen for options in prompt_jobs(item, cfg)]
    cache_path = Path(ctx.params["cache"])
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(cache_path)
    scores = _answer_and_score(responder, name, jobs, cache)
    if set_name == "discriminative":
        turns = [(item, options) for item, options in jobs if item["task"] == "discriminative"]
        scores += _answer_and_score(responder, name, _classification_jobs(items, turns, scores, cfg), cache)
    write_records(ctx.output["scores"], ({k: v for k, v in s.items() if k != "response_text"} for s in scores))
    rows = aggregate(s for s in scores)
    write_table(pd.DataFrame(rows), ctx.output["table"], title=f"{set_name}: {name}")
    log.info("%s / %s: %d prompts, %d table cells", set_name, name, len(jobs), len(rows))


# ---- tables ----------------------------------------------------------------------------------------------
def _table(frame: pd.DataFrame, task: str) -> pd.DataFrame:
    """One paper table's cells, the oracle's repo-mode cells below 1 annotated with the scoring cap."""
    rows = frame[frame["task"] == task].reindex(columns=TABLE_COLUMNS)
    capped = (rows["responder"] == "oracle") & (rows["mode"] == "repo") & (rows["value"] < 1)
    return rows.assign(note=rows["note"].astype(object).where(~capped, REPO_CAPS.get(task, "")))


def llmpattern_tables(ctx: RuleContext) -> None:
    """Rule entry: Tables 2-8, 18 and 19 (every responder, both scoring modes) and Table 20 (responders ranked
    per task by the mean headline metric of the repo mode, over the responders that answered every task)."""
    frames = [pd.read_csv(path) for path in ctx.input_list("tables")]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=TABLE_COLUMNS)
    for name, (task, _) in TABLES.items():
        write_table(_table(frame, task), ctx.output[name], title=f"{name}: {task}")
    write_table(_ranks(frame), ctx.output["table20"], title="Table 20: responders ranked across tasks")
    write_table(summary(frame), ctx.output["summary"], title="Headline metric per task, responder, variant and mode")


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, minimum and maximum of the headline metric over a task's cells (patterns, scales, formats,
    descriptions, styles), per responder, variant and scoring mode, with the cell count."""
    keys = ["task", "stage", "variant", "responder", "mode", "metric"]
    rows = frame.dropna(subset=["value"]).fillna({"stage": "", "variant": ""})
    out = rows.groupby(keys)["value"].agg(["mean", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "cells"})


def _ranks(frame: pd.DataFrame) -> pd.DataFrame:
    repo = frame[frame["mode"] == "repo"].dropna(subset=["value"])
    means = repo.groupby(["task", "responder"])["value"].mean().unstack("responder")
    complete = means.dropna(axis=1)
    if complete.empty:
        return pd.DataFrame(columns=["responder", "mean_rank"])
    ranks = complete.rank(axis=1, ascending=False, method="min")
    out = ranks.T
    out["mean_rank"] = out.mean(axis=1)
    return out.reset_index().sort_values("mean_rank")

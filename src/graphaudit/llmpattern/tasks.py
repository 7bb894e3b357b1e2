"""Rule entries of the llmpattern study: item sets, prompts answered by a responder and scored, tables.

Data flow: ``llmpattern_items`` writes one JSONL of items per set (``data/generated/llmpattern/<set>.jsonl``);
``llmpattern_respond`` builds every prompt of a set's evaluated items (formats, terminology / topology,
patterns, gold sets, styles as the set's tasks have them), answers them through one responder with a
content-addressed cache (``results/llmpattern/cache/<responder>/<set>.jsonl``, kept when a job stops, so a
rerun asks only what is missing) and scores every answer in both scoring modes; :mod:`graphaudit.llmpattern.tables`
groups the scores into the paper's tables. BA-2motif runs in two stages, as in the paper: the classification
prompts list the discriminative patterns that the same responder extracted.

The real-world sets (:data:`REAL_SETS`) come from ``llmpattern_realworld_items``: ``molecule`` (T10, the SMILES
sets) and ``realworld`` (T11, the TU / OGB sets); T11 runs in the same two stages, per data set and format, with
the repository's filter for real-world patterns: none beyond exact de-duplication (spec §3.5 T11).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from graphaudit.common.records import write_records
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.llmpattern.answers import BASELINE_TASKS
from graphaudit.llmpattern.cache import NON_ANSWER_COLUMNS, NON_ANSWERS, ResponseCache
from graphaudit.llmpattern.datasets import Item, read_items, write_items
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
from graphaudit.llmpattern.molecules import molecule_items, read_smiles_csv
from graphaudit.llmpattern.parsers import parse_answer
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, FREQUENT_PATTERNS, MODIFICATIONS, UNDIRECTED_PATTERNS
from graphaudit.llmpattern.prompts import build_prompt
from graphaudit.llmpattern.realworld import REALWORLD, realworld_items
from graphaudit.llmpattern.responders import PROMPT_OPTIONS, Responder, make_responder
from graphaudit.llmpattern.scorers import GROUP_KEYS, aggregate, score_answer
from graphaudit.llmpattern.settings import (
    ITEM_SETTINGS,
    DetectionItems,
    DiscriminativeItems,
    FrequentItems,
    IsomorphismItems,
    ItemSettings,
    KcoreItems,
    ModificationItems,
    MoleculeItems,
    RealworldItems,
    RespondSettings,
    TranslationItems,
    responder_slug,
)
from graphaudit.report.tables import write_table

__all__ = [
    "DERIVED",
    "REAL_SETS",
    "SETS",
    "covers",
    "evaluated_items",
    "llmpattern_items",
    "llmpattern_realworld_items",
    "llmpattern_respond",
    "prompt_jobs",
    "responder_slug",
    "set_items",
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
    "molecule": {"molecule"},
    "realworld": {"realworld_turn", "realworld_graph"},
}
REAL_SETS = ("molecule", "realworld")
DERIVED = {"isomorphism", "kcore"}  # sets built from the undirected detection graphs
SCORE_MODES = ("repo", "clean")


def covers(responder_spec: str, set_name: str) -> bool:
    """Whether a responder answers a set: models and the oracle answer everything, a baseline only its tasks."""
    kind, _, name = responder_spec.partition(":")
    return kind != "baseline" or bool(BASELINE_TASKS[name] & SET_TASKS[set_name])


# ---- item sets -------------------------------------------------------------------------------------------
def set_items(settings: ItemSettings, detection: Sequence[Item] = ()) -> list[Item]:
    """Every item of the set whose settings are ``settings`` (:data:`graphaudit.llmpattern.settings.ITEM_SETTINGS`)
    at the configured scales and counts, pools and turns included; isomorphism and k-core are built from the
    undirected graphs of ``detection``."""
    undirected = [item for item in detection if not item["directed"]]
    match settings:
        case TranslationItems():
            return translation_items(settings.per_pattern)
        case DetectionItems():
            return [
                item
                for directed in (False, True)
                for scale in settings.scales
                for item in detection_items(directed, scale, settings.per_n, settings.seed, _induced(settings))
            ]
        case IsomorphismItems():
            return [item for mode in settings.modes for item in isomorphism_items(undirected, mode, settings.seed)]
        case ModificationItems():
            return [
                item
                for variant in MODIFICATIONS
                for scale in settings.scales
                for item in modification_items(variant, scale, settings.per_n, settings.seed, _induced(settings))
            ]
        case FrequentItems():
            return [
                item
                for pattern in FREQUENT_PATTERNS
                for scale in settings.scales
                for item in _frequent(pattern, scale, settings)
            ]
        case DiscriminativeItems():
            ba = ba2motif_items(settings.per_class, settings.test_per_class, seed=settings.seed)
            return ba + discriminative_turns(ba, settings.turns, settings.per_label, settings.seed)
        case KcoreItems():
            return kcore_items(undirected)
    raise TypeError(f"no llmpattern set has the settings {settings!r}")


def _frequent(pattern: str, scale: str, settings: FrequentItems) -> list[Item]:
    pool = frequent_graph_items(pattern, scale, settings.per_n, settings.seed, _induced(settings))
    turns = settings.turns.get(scale) if settings.turns else None  # a scale left out takes the repository's count
    return pool + frequent_turns(pool, turns, seed=settings.seed, induced=_induced(settings))


def _induced(settings: DetectionItems | ModificationItems | FrequentItems | RespondSettings) -> bool:
    """Whether the settings' occurrence semantics (``llmpattern.semantics``) is the node-induced one."""
    return settings.semantics == "induced"


def llmpattern_items(ctx: RuleContext) -> None:
    """Rule entry: one set's items (``wildcards.set``, its settings in ``params.generation``); isomorphism and k-core
    read the detection set."""
    name = ctx.wildcards["set"]
    if name not in ITEM_SETTINGS:
        raise ValueError(f"unknown llmpattern set {name!r}; sets are {', '.join(SETS)}")
    detection = read_items(ctx.input["detection"]) if name in DERIVED else ()
    count = write_items(ctx.output["itemset"], set_items(ctx.settings("generation", ITEM_SETTINGS[name]), detection))
    log.info("%s: %d items", name, count)


def molecule_set(settings: MoleculeItems) -> list[Item]:
    """The T10 items of every runnable SMILES set (``settings.files``: set name -> CSV), sets in the given order."""
    return [
        item
        for name, path in settings.files.items()
        for item in molecule_items(name, read_smiles_csv(path), settings.per_class)
    ]


def realworld_set(settings: RealworldItems, graphsets: dict[str, GraphSet]) -> list[Item]:
    """The T11 items (pools, turns, test graphs) of every runnable data set, from its verified GraphSet."""
    return [
        item
        for name in settings.datasets
        for item in realworld_items(
            REALWORLD[name],
            graphsets[name],
            settings.epochs,
            settings.max_turns,
            settings.max_test_per_class,
            settings.seed,
        )
    ]


def llmpattern_realworld_items(ctx: RuleContext) -> None:
    """Rule entry: the ``molecule`` (T10) or ``realworld`` (T11, ``input.graphsets`` in ``params.generation``'s
    data set order) item set."""
    name = ctx.wildcards["set"]
    if name == "molecule":
        items = molecule_set(ctx.settings("generation", MoleculeItems))
    elif name == "realworld":
        settings = ctx.settings("generation", RealworldItems)
        paths = ctx.input_list("graphsets")
        items = realworld_set(settings, {n: GraphSet.load(p) for n, p in zip(settings.datasets, paths)})
    else:
        raise ValueError(f"unknown real-world set {name!r}; sets are {', '.join(REAL_SETS)}")
    log.info("%s: %d items", name, write_items(ctx.output["itemset"], items))


# ---- prompts ---------------------------------------------------------------------------------------------
def evaluated_items(items: Sequence[Item], n_eval: int, seed: int) -> list[Item]:
    """The items that get prompts: every small item, ``n_eval`` of each medium / large set (one shared subset
    for detection, isomorphism and k-core, as the repository shares it), pools and discrimination graphs
    left out."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        if item["task"] in ("frequent_graph", "realworld_pool") or (
            item["task"] == "ba2motif" and item["variant"] != "classification"
        ):
            continue
        groups.setdefault((item["task"], item["variant"], item["scale"]), []).append(item)
    chosen = []
    for (task, variant, scale), group in groups.items():
        if scale is None or task in ("frequent",):
            chosen.extend(group)
            continue
        name = "detection" if task in ("detection", "isomorphism", "kcore") else f"{task}/{variant}"
        chosen.extend(group[i] for i in eval_subset(name, scale, len(group), n_eval, seed=seed))
    return chosen


def prompt_jobs(item: Item, formats: Sequence[str], styles: Sequence[str] | None) -> Iterator[dict[str, Any]]:
    """The prompt settings of an item: graph format, description, pattern, gold set and style as its task has
    them (classification prompts are built later, from the extracted patterns); ``styles`` are the detection
    prompts' styles (a detection item needs them)."""
    task = item["task"]
    if task == "detection" and styles is None:
        raise ValueError(f"detection item {item['item_id']!r} needs the detection prompt styles")
    for fmt in formats:
        if task == "detection":
            patterns = DIRECTED_PATTERNS if item["directed"] else UNDIRECTED_PATTERNS
            for description in ("term", "topo"):
                for pattern in patterns:
                    for style in styles:
                        yield {"fmt": fmt, "description": description, "pattern": pattern, "style": style}
        elif task == "modification":
            for description in ("term", "topo"):
                yield {"fmt": fmt, "description": description}
        elif task == "discriminative":
            for gold_set in ("Set1", "Set2"):
                yield {"fmt": fmt, "gold_set": gold_set}
        elif task == "translation":
            yield {"fmt": fmt, "description": "term"}
        elif task == "molecule":
            for description in ("term", "topo", "both"):
                yield {"fmt": fmt, "description": description}
        elif task == "realworld_turn":
            for k in range(1, len(item["truth"]["classes"]) + 1):
                yield {"fmt": fmt, "gold_set": f"Set{k}"}
        elif task not in ("ba2motif", "realworld_graph"):
            yield {"fmt": fmt}


def _prompt(item: Item, options: dict[str, Any]) -> str:
    options = dict(options)
    return build_prompt(
        item, options.pop("fmt"), options.pop("style", "zero_shot"), options.pop("description", None), **options
    )


def _answer_and_score(
    responder: Responder,
    responder_name: str,
    jobs: list[tuple[Item, dict]],
    cache: ResponseCache,
    induced: bool = True,
) -> list[dict[str, Any]]:
    """Answer every (item, prompt options) through the cache and score each answer in both modes (success tests
    under ``induced`` semantics); a response
    that is no answer (truncated, filtered, refused, failed) is scored as an empty one and labelled with its
    outcome, never parsed."""
    batch = [({**item, PROMPT_OPTIONS: options}, _prompt(item, options)) for item, options in jobs]
    responses = responder.respond_all(batch, cache)
    scores = []
    for (item, options), response in zip(jobs, responses):
        labels = {
            "fmt": options["fmt"],
            "style": options.get("style", "zero_shot"),
            "responder": responder_name,
            "outcome": response.outcome,
        }
        text = response.text if response.answered else ""
        for mode in SCORE_MODES:
            score = score_answer(
                item,
                text,
                mode,
                description=options.get("description"),
                pattern=options.get("pattern"),
                gold_set=options.get("gold_set"),
                fmt=options["fmt"],
                labels=labels,
                induced=induced,
            )
            scores.append({**score, "response_text": text if mode == "repo" else None})
    return scores


def _with_outcome_counts(rows: list[dict[str, Any]], scores: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each aggregated cell with the count of its responses of each non-answer outcome (``n_truncated``, ...)."""
    counts = Counter((tuple(s.get(key) for key in GROUP_KEYS), s["outcome"]) for s in scores)
    return [
        {
            **row,
            **{
                column: counts[(tuple(row[key] for key in GROUP_KEYS), outcome)]
                for column, outcome in zip(NON_ANSWER_COLUMNS, NON_ANSWERS)
            },
        }
        for row in rows
    ]


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
    items: Sequence[Item], turns: list[tuple[Item, dict]], scores: list[dict], formats: Sequence[str]
) -> list[tuple[Item, dict]]:
    tests = [item for item in items if item["task"] == "ba2motif" and item["variant"] == "classification"]
    return [
        (item, {"fmt": fmt, "type_patterns": _type_patterns(turns, scores, fmt)}) for fmt in formats for item in tests
    ]


def _realworld_type_patterns(
    turns: list[tuple[Item, dict]], scores: list[dict], fmt: str, dataset: str
) -> list[list[dict[str, Any]]]:
    """Per type (SetK = type K): the distinct non-empty patterns the responder extracted from ``dataset``'s turns in
    ``fmt`` (repo parsing, no filter: the repository's real-world scripts apply none)."""
    found: dict[str, list] = {}
    repo = [s for s in scores if s["mode"] == "repo"]
    for (item, options), score in zip(turns, repo):
        if item["variant"] != dataset or options["fmt"] != fmt:
            continue
        kept = found.setdefault(options["gold_set"], [])
        pattern = parse_answer(item, score["response_text"], "repo").value
        if pattern and pattern["edges"] and pattern not in kept:
            kept.append(pattern)
    classes = next(item["truth"]["classes"] for item, _ in turns if item["variant"] == dataset)
    return [found.get(f"Set{k}", []) for k in range(1, len(classes) + 1)]


def _realworld_classification_jobs(
    items: Sequence[Item], turns: list[tuple[Item, dict]], scores: list[dict], formats: Sequence[str]
) -> list[tuple[Item, dict]]:
    """Classification prompts of every test graph whose data set had extraction turns."""
    datasets = {item["variant"] for item, _ in turns}
    tests = [item for item in items if item["task"] == "realworld_graph" and item["variant"] in datasets]
    patterns = {(d, f): _realworld_type_patterns(turns, scores, f, d) for d in datasets for f in formats}
    return [(item, {"fmt": f, "type_patterns": patterns[(item["variant"], f)]}) for f in formats for item in tests]


def _responder_options(settings: RespondSettings, rate_file: str) -> dict[str, Any] | None:
    """A model's endpoint settings with the shared rate file; for the oracle and the baselines, whose answers
    follow the truths, the occurrence semantics; nothing for a replay."""
    if settings.model is not None:
        return {**settings.model, "rate_file": rate_file}
    kind = settings.responder.partition(":")[0]
    return {"semantics": settings.semantics} if kind in ("oracle", "baseline") else None


def llmpattern_respond(ctx: RuleContext) -> None:
    """Rule entry: one responder (``params.respond``) on one set; writes the per-answer scores (``scores``,
    JSONL) and their aggregates (``table``)."""
    settings = ctx.settings("respond", RespondSettings)
    set_name, name = ctx.wildcards["set"], ctx.wildcards["responder"]
    responder = make_responder(settings.responder, _responder_options(settings, ctx.params["rate_file"]))
    induced = _induced(settings)
    items = read_items(ctx.input["itemset"])
    chosen = evaluated_items(items, settings.n_eval, settings.seed)
    jobs = [(item, options) for item in chosen for options in prompt_jobs(item, settings.formats, settings.styles)]
    cache_path = Path(ctx.params["cache"])
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(cache_path)
    scores = _answer_and_score(responder, name, jobs, cache, induced)
    if set_name == "discriminative":
        turns = [(item, options) for item, options in jobs if item["task"] == "discriminative"]
        scores += _answer_and_score(
            responder, name, _classification_jobs(items, turns, scores, settings.formats), cache, induced
        )
    if set_name == "realworld":
        turns = [(item, options) for item, options in jobs if item["task"] == "realworld_turn"]
        scores += _answer_and_score(
            responder, name, _realworld_classification_jobs(items, turns, scores, settings.formats), cache, induced
        )
    write_records(ctx.output["scores"], ({k: v for k, v in s.items() if k != "response_text"} for s in scores))
    rows = _with_outcome_counts(aggregate(scores), scores)
    # a set without items (a real-world set whose data sets are all NOT RUN) still gets a readable header
    empty = [*GROUP_KEYS, "metric", "value", "n", "n_unparsed", "n_repo_error", *NON_ANSWER_COLUMNS]
    frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=empty)
    write_table(frame, ctx.output["table"], title=f"{set_name}: {name}")
    log.info("%s / %s: %d prompts, %d table cells", set_name, name, len(jobs), len(rows))

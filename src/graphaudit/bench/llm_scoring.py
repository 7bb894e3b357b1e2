"""Benchmark: llmpattern answer scoring (parse + score, both modes) against a straightforward networkx-based
scorer on the same answers, and the worst single-answer parse time over the 1 MB answers.

Answers. The study's synthetic item sets at small and medium scale (translation, detection, isomorphism,
3-core, modification, frequent turns, BA-2motif turns and classification), every prompt of each item (both
formats, both descriptions, every detection pattern) answered by the oracle and by each offline baseline
that covers the task (:mod:`graphaudit.llmpattern.answers`); perturbed copies of oracle answers (a cut, a
changed digit, a dropped bracket, prose around the answer); and long or adversarial texts: about 100 KB of
reasoning before the oracle's answer, and 1 MB texts made of "1. **nodes a, b, c**" heads with no tail, of
one digit run, of unbalanced brackets or of pair floods. ``answers`` of them are drawn with a fixed seed.

Peer. The answers are parsed by the same parsers; the peer then scores each parsed answer as a user would
without this package's solvers: networkx VF2 (``GraphMatcher`` / ``DiGraphMatcher`` induced
``subgraph_isomorphisms_iter`` / ``subgraph_is_isomorphic``) for occurrences and pattern supports, the
detection ground truth recomputed per answer by VF2 and the 3-core by ``nx.k_core`` (our scorer reads both
from the item, where item generation stored them once), ``nx.is_isomorphic`` for T8 de-duplication and a
relabel-and-compare mapping check. Every score record of the peer must equal ours, in both modes, before
any time is reported.

Rows: end to end (parse + score) per mode and for both, then the score step alone per mode (answers parsed
once, untimed), each with answers per second; the last row is the slowest single parse (either mode) of a
1 MB answer against the 1 s budget (ratio above 1: within it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
from networkx.algorithms import isomorphism

from graphaudit.bench.settings import LlmScoringBench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.llmpattern.answers import BASELINE_TASKS, BASELINES, split_turn
from graphaudit.llmpattern.datasets import Item, to_networkx
from graphaudit.llmpattern.parsers import MODES, Parsed, parse_answer
from graphaudit.llmpattern.patterns import get_pattern
from graphaudit.llmpattern.prompts import effective_description, task_code
from graphaudit.llmpattern.scorers import ANALYSIS_FIELDS, FAILED_SET, score_parsed, set_scores
from graphaudit.llmpattern.settings import (
    DetectionItems,
    DiscriminativeItems,
    FrequentItems,
    IsomorphismItems,
    KcoreItems,
    ModificationItems,
    TranslationItems,
)
from graphaudit.llmpattern.tasks import prompt_jobs, set_items
from graphaudit.report.tables import write_table

__all__ = [
    "COLUMNS",
    "Answer",
    "bench_answers",
    "bench_items",
    "bench_llm_scoring",
    "check_same",
    "checked_runs",
    "peer_score",
    "run_mode",
    "scoring_rows",
]

PEER = "parsers + networkx VF2 / k_core / is_isomorphic scorer"
COLUMNS = ["benchmark", "input", "answers", "ours_s", "ours_per_s", "peer", "peer_s", "peer_per_s", "ratio"]
SCALES = ("small", "medium")
FORMATS = ("AL", "EL")
MEGABYTE = 1_000_000
LONG_REASONING = 100_000
PARSE_BUDGET_S = 1.0  # no answer over 1 MB may take longer to parse (issue 20)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """One answer to score: the item, the prompt's options (fmt, description, pattern, gold_set) and the text."""

    item: Item
    options: dict[str, Any]
    text: str


# ---- the answers -------------------------------------------------------------------------------------
def bench_items(seed: int) -> list[Item]:
    """Every synthetic item set at small and medium scale, a few graphs per node count."""
    detection = set_items(DetectionItems(seed, SCALES, 1, "induced"))
    return [
        *set_items(TranslationItems(2)),
        *detection,
        *set_items(IsomorphismItems(seed, ("faithful", "hardened")), detection),
        *set_items(KcoreItems(), detection),
        *set_items(ModificationItems(seed, SCALES, 1, "induced")),
        *set_items(FrequentItems(seed, SCALES, 2, {"small": 2, "medium": 2}, "induced")),
        *set_items(DiscriminativeItems(seed, 24, 2, 2, 6)),
    ]


def _jobs(item: Item) -> list[dict[str, Any]]:
    """The prompt options of an item (a classification item gets one per format)."""
    if item["task"] == "ba2motif":
        return [{"fmt": fmt} for fmt in FORMATS] if item["variant"] == "classification" else []
    return list(prompt_jobs(item, FORMATS, ("zero_shot",)))


def _responders(task: str) -> list[str]:
    return [name for name, tasks in BASELINE_TASKS.items() if task in tasks and name in BASELINES]


def _answer_text(name: str, item: Item, options: dict[str, Any], seed: int) -> str:
    context = {**options, "seed": seed}
    if item["task"] == "ba2motif":
        context["type_patterns"] = [[[(0, 1), (1, 2), (2, 0)]], [[(0, 1), (1, 2), (2, 3), (3, 0)]]]
    return BASELINES[name](item, **context)


def _perturbed(text: str, rng: np.random.Generator) -> str:
    """An oracle answer damaged one way: cut short, a digit changed, a bracket dropped, or wrapped in prose."""
    kind = int(rng.integers(4))
    if kind == 0:
        return text[: int(rng.integers(len(text) + 1))]
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    if kind == 1 and digits:
        at = digits[int(rng.integers(len(digits)))]
        return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :]
    brackets = [i for i, c in enumerate(text) if c in "[]()"]
    if kind == 2 and brackets:
        at = brackets[int(rng.integers(len(brackets)))]
        return text[:at] + text[at + 1 :]
    return f"Let me check every node in turn. Node 0 has degree 3.\n{text}\nI hope this is right (3, 4)."


def _reasoning(size: int, rng: np.random.Generator) -> str:
    """About ``size`` characters of step-by-step prose with node ids and pairs in it."""
    sentences = []
    while sum(map(len, sentences)) < size:
        a, b, c = rng.integers(0, 40, size=3).tolist()
        sentences.append(f"Step: node {a} is connected to node {b}, so ({a}, {b}) and [{b}, {c}] are checked. ")
    return "".join(sentences)


def _megabyte_text(kind: int) -> str:
    """A 1 MB adversarial answer: heads without a tail, one digit run, unbalanced brackets or a pair flood."""
    if kind == 0:
        return "1. **nodes 1, 2, 3** " * (MEGABYTE // 21 + 1)
    if kind == 1:
        return "The detected patterns are: [(" + "9" * MEGABYTE + ", 1)]"
    if kind == 2:
        return "[" * (MEGABYTE // 2) + "(1, 2" + "]" * (MEGABYTE // 2)
    return "(1, 2), " * (MEGABYTE // 8 + 1)


def _pool(items: Sequence[Item], seed: int) -> list[Answer]:
    """Every offline responder's answer to every prompt, then a perturbed copy of each oracle answer."""
    pool, oracle = [], []
    for item in items:
        for options in _jobs(item):
            for name in _responders(item["task"]):
                answer = Answer(item, options, _answer_text(name, item, options, seed))
                pool.append(answer)
                if name == "oracle":
                    oracle.append(answer)
    rng = rng_for("bench", "llm_scoring", None, "perturb", seed)
    return pool + [Answer(a.item, a.options, _perturbed(a.text, rng)) for a in oracle]


def bench_answers(items: Sequence[Item], settings: LlmScoringBench, seed: int) -> list[Answer]:
    """``settings.answers`` answers: ``long_answers`` with 100 KB of reasoning before an oracle answer,
    ``megabyte_answers`` 1 MB adversarial texts, the rest drawn from the pool; in a seeded order."""
    pool = _pool(items, seed)
    rng = rng_for("bench", "llm_scoring", None, "draw", seed)
    normal = settings.answers - settings.long_answers - settings.megabyte_answers
    if normal < 0:
        raise ValueError(
            f"{settings.answers} answers cannot hold {settings.long_answers} + {settings.megabyte_answers}"
        )
    chosen = [pool[i] for i in rng.choice(len(pool), size=normal, replace=normal > len(pool))]
    hosts = [pool[i] for i in rng.choice(len(pool), size=settings.long_answers + settings.megabyte_answers)]
    long = [Answer(a.item, a.options, _reasoning(LONG_REASONING, rng) + a.text) for a in hosts[: settings.long_answers]]
    huge = [Answer(a.item, a.options, _megabyte_text(k % 4)) for k, a in enumerate(hosts[settings.long_answers :])]
    answers = chosen + long + huge
    return [answers[i] for i in rng.permutation(len(answers))]


# ---- ours and the peer ---------------------------------------------------------------------------------
def _parse(answer: Answer, mode: str) -> Parsed:
    return parse_answer(
        answer.item, answer.text, mode, pattern=answer.options.get("pattern"), fmt=answer.options["fmt"]
    )


def _ours(answer: Answer, parsed: Parsed) -> dict[str, Any]:
    options = answer.options
    return score_parsed(
        answer.item,
        parsed,
        description=options.get("description"),
        pattern=options.get("pattern"),
        gold_set=options.get("gold_set"),
    )


def _nx_graph(edges: Sequence[Sequence[Any]], directed: bool) -> nx.Graph:
    graph = nx.DiGraph() if directed else nx.Graph()
    graph.add_edges_from((u, v) for u, v in edges)
    return graph


def _matcher(host: nx.Graph, pattern: nx.Graph) -> isomorphism.GraphMatcher:
    return (isomorphism.DiGraphMatcher if host.is_directed() else isomorphism.GraphMatcher)(host, pattern)


def _vf2_occurrences(host: nx.Graph, pattern: nx.Graph) -> set[tuple[Any, ...]]:
    return {tuple(sorted(m)) for m in _matcher(host, pattern).subgraph_isomorphisms_iter()}


def _vf2_has(host: nx.Graph, edges: Sequence[Sequence[Any]]) -> bool:
    return not edges or _matcher(host, _nx_graph(edges, host.is_directed())).subgraph_is_isomorphic()


def _vf2_share(edges: Sequence[Sequence[Any]], hosts: Sequence[nx.Graph]) -> float:
    return sum(_vf2_has(host, edges) for host in hosts) / len(hosts)


def _peer_translation(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    pattern = get_pattern(item["truth"]["pattern"])
    edges = parsed.value
    found = len(_vf2_occurrences(_nx_graph(edges, pattern.directed), pattern.graph())) if edges else 0
    score = {
        "correct": int(found == 1),
        "occurrences": found,
        "edges": [list(e) for e in edges],
        "directed": pattern.directed,
        "counted": clean or not parsed.empty_text,
    }
    if clean:
        nodes = {x for e in edges for x in e}
        score["strict"] = int(found == 1 and len(nodes) == item["truth"]["num_nodes"] and all(u != v for u, v in edges))
    return score


def _peer_modification(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    directed, target = item["directed"], get_pattern(item["truth"]["target"])
    edges = parsed.value
    new, old = _nx_graph(edges, directed), to_networkx(item["graph"], directed)
    found = bool(edges) and _matcher(new, target.graph()).subgraph_is_isomorphic()
    if not clean:
        missing = sum(not new.has_edge(u, v) and not new.has_edge(v, u) for u, v in old.edges())
        extra = sum(not old.has_edge(u, v) and not old.has_edge(v, u) for u, v in new.edges())
        return {"success": int(found), "edits": missing + extra, "counted": True}
    key = tuple if directed else frozenset
    edits = len({key(e) for e in old.edges()} ^ {key(e) for e in edges})
    limit = target.num_nodes * (target.num_nodes - 1) // (1 if directed else 2)
    return {"success": int(found and edits <= limit), "edits": edits, "counted": True}


def _peer_detection(item: Item, parsed: Parsed, clean: bool, pattern: str | None = None, **_: Any) -> dict[str, Any]:
    motif = get_pattern(pattern)
    truth = _vf2_occurrences(to_networkx(item["graph"], motif.directed), motif.graph())
    scores = FAILED_SET if clean and parsed.unparsed else set_scores({tuple(t) for t in parsed.value}, truth)
    return {**scores, "counted": True}


def _peer_isomorphism(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    g1, g2 = (to_networkx(g, False) for g in item["graphs"])
    mapping = parsed.value
    relabelled = {tuple(sorted(e)) for e in nx.relabel_nodes(g1, mapping, copy=True).edges()}
    target = {tuple(sorted(e)) for e in g2.edges()}
    correct = relabelled <= target and len(relabelled) == len(target)
    if clean and correct:
        images = [mapping[v] for v in g1.nodes if v in mapping]
        correct = len(images) == len(g1) and set(images) == set(g2.nodes) and len(set(images)) == len(images)
    return {"correct": int(correct), "counted": True}


def _peer_kcore(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    truth = set(nx.k_core(to_networkx(item["graph"], False), item["truth"]["k"]).nodes)
    nodes = parsed.value
    if not clean:
        return {"precision": sum(n in truth for n in nodes) / len(nodes) if nodes else 0.0, "counted": True}
    return {**(FAILED_SET if parsed.unparsed else set_scores(set(nodes), truth)), "counted": True}


def _peer_frequent(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    hosts = [to_networkx(g, item["directed"]) for g in item["graphs"]]
    if not clean:
        if parsed.value["keyword"]:
            return {"pattern_scores": [1], "counted": True}
        scores = [
            int(len({x for e in p for x in e}) <= 7 and _vf2_share(p, hosts) > 0.6) for p in parsed.value["patterns"]
        ]
        return {"pattern_scores": scores, "counted": not parsed.unparsed}
    kept: list[tuple[nx.Graph, list[Any]]] = []
    for edges in parsed.value["patterns"]:
        graph = _nx_graph(edges, item["directed"])
        if not any(nx.is_isomorphic(graph, other) for other, _ in kept):
            kept.append((graph, edges))
    size = get_pattern(item["truth"]["pattern"]).num_nodes
    scores = [int(len({x for e in p for x in e}) >= size and _vf2_share(p, hosts) > 0.6) for _, p in kept]
    return {"pattern_scores": scores, "accuracy": sum(scores) / len(scores) if scores else 0.0, "counted": True}


def _peer_discriminative(item: Item, parsed: Parsed, clean: bool, gold_set: str | None = None, **_: Any) -> dict:
    gold, other = ([to_networkx(g, False) for g in graphs] for graphs in split_turn(item, gold_set))
    edges = parsed.value
    if not edges:
        found = False
    elif clean:
        in_gold, in_other = _vf2_share(edges, gold), _vf2_share(edges, other)
        found = (in_gold >= 0.9 and in_other < 0.1) or (in_other >= 0.9 and in_gold < 0.1)
    else:
        found = (
            _nx_graph(edges, False).number_of_edges() <= 10
            and _vf2_share(edges, gold) > 0.9
            and not _vf2_share(edges, other) > 0.9
        )
    return {
        "discriminative": int(found),
        "edges": [list(e) for e in edges] if found else None,
        "counted": clean or bool(edges),
    }


def _peer_classification(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    classes, number = item["truth"].get("classes", [0, 1]), parsed.value
    if number is None:
        predicted = None
    elif not clean and len(classes) == 2:
        predicted = classes[0] if number == 1 else classes[1]
    else:
        predicted = classes[number - 1] if 1 <= number <= len(classes) else None
    counted = clean or item["task"] == "ba2motif" or not parsed.unparsed
    return {"correct": int(predicted is not None and predicted == item["truth"]["label"]), "counted": counted}


_PEERS: dict[str, Callable[..., dict[str, Any]]] = {
    "translation": _peer_translation,
    "modification": _peer_modification,
    "detection": _peer_detection,
    "isomorphism": _peer_isomorphism,
    "kcore": _peer_kcore,
    "frequent": _peer_frequent,
    "discriminative": _peer_discriminative,
    "ba2motif": _peer_classification,
}
_PEER_STAGES = {"discriminative": "extraction", "ba2motif": "classification"}


def _peer_label(item: Item, pattern: str | None) -> str | None:
    task = item["task"]
    if task == "detection":
        return pattern
    if task == "modification":
        return item["truth"]["target"]
    return item["truth"].get("pattern") if task in ("translation", "frequent") else None


def peer_score(answer: Answer, parsed: Parsed) -> dict[str, Any]:
    """The peer's score record of a parsed answer (the fields and values of :func:`score_parsed`)."""
    item, options = answer.item, answer.options
    scores = _PEERS[item["task"]](
        item, parsed, parsed.mode == "clean", pattern=options.get("pattern"), gold_set=options.get("gold_set")
    )
    if parsed.error is not None:
        scores = {**scores, "counted": False}
    return {
        "item_id": item["item_id"],
        "task": task_code(item, options.get("description")),
        "stage": _PEER_STAGES.get(item["task"]),
        "variant": item["variant"],
        "pattern": _peer_label(item, options.get("pattern")),
        "scale": item["scale"],
        "description": effective_description(item, options.get("description")),
        "mode": parsed.mode,
        "unparsed": parsed.unparsed,
        "repo_error": parsed.error,
        **scores,
    }


Scorer = Callable[[Answer, Parsed], dict[str, Any]]


def check_same(answers: Sequence[Answer], ours: Sequence[dict], peer: Sequence[dict]) -> None:
    """Raise on the first answer whose two score records differ (named by item, prompt and differing fields); the
    analyses' descriptive fields (:data:`ANALYSIS_FIELDS`), which no matcher computes, are left out."""
    for index, (answer, mine, theirs) in enumerate(zip(answers, ours, peer, strict=True)):
        a, b = ({k: v for k, v in r.items() if k not in ANALYSIS_FIELDS} for r in (mine, theirs))
        if a != b:
            fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            raise RuntimeError(
                f"answer {index} ({answer.item['item_id']}, {answer.options}, {a.get('mode')}): our score and the "
                f"peer's differ in {fields}: {[a.get(k) for k in fields]} vs {[b.get(k) for k in fields]}"
            )


# ---- timing ------------------------------------------------------------------------------------------
@dataclass
class ModeRun:
    """One pass over the answers in one mode: total parse time, total score time of ours and of the peer, the
    slowest parse of an answer of at least 1 MB in CPU seconds (the budget is the parser's own cost, which wall
    time on a shared machine overstates) and how many there were, and both scorers' records."""

    parse_s: float = 0.0
    ours_s: float = 0.0
    peer_s: float = 0.0
    worst_megabyte_parse_s: float = 0.0
    megabyte_answers: int = 0
    ours: list[dict[str, Any]] = field(default_factory=list)
    peer: list[dict[str, Any]] = field(default_factory=list)


def _timed(function: Callable[..., Any], *args: Any) -> tuple[Any, float, float]:
    """The result, wall seconds and CPU seconds of this process."""
    start, start_cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return result, time.perf_counter() - start, time.process_time() - start_cpu


def run_mode(answers: Sequence[Answer], mode: str, peer: Scorer = peer_score) -> ModeRun:
    """Parse every answer once, score the parse with ours and with ``peer``, each step timed on its own (the
    parse is shared, so both end-to-end times are parse + their score time)."""
    run = ModeRun()
    for answer in answers:
        parsed, parse_s, parse_cpu_s = _timed(_parse, answer, mode)
        ours, ours_s, _ = _timed(_ours, answer, parsed)
        theirs, peer_s, _ = _timed(peer, answer, parsed)
        run.parse_s, run.ours_s, run.peer_s = run.parse_s + parse_s, run.ours_s + ours_s, run.peer_s + peer_s
        run.ours.append(ours)
        run.peer.append(theirs)
        if len(answer.text) >= MEGABYTE:
            run.megabyte_answers += 1
            run.worst_megabyte_parse_s = max(run.worst_megabyte_parse_s, parse_cpu_s)
    return run


def _row(name: str, what: str, count: int, ours_s: float, peer_s: float, peer: str = PEER) -> dict[str, Any]:
    return {
        "benchmark": name,
        "input": what,
        "answers": count,
        "ours_s": ours_s,
        "ours_per_s": count / ours_s,
        "peer": peer,
        "peer_s": peer_s,
        "peer_per_s": count / peer_s,
        "ratio": peer_s / ours_s,
    }


def scoring_rows(answers: Sequence[Answer], runs: dict[str, ModeRun]) -> list[dict[str, Any]]:
    """The table of checked runs (:func:`run_mode` per mode): end to end per mode and for both modes, the score
    step alone per mode, and the slowest 1 MB parse against its budget."""
    n = len(answers)
    rows = [
        _row(f"llm_scoring_{mode}", f"{n} answers, parse + score", n, r.parse_s + r.ours_s, r.parse_s + r.peer_s)
        for mode, r in runs.items()
    ]
    ours = sum(r.parse_s + r.ours_s for r in runs.values())
    theirs = sum(r.parse_s + r.peer_s for r in runs.values())
    rows.append(_row("llm_scoring_both", f"{n} answers, parse + score, both modes", n * len(runs), ours, theirs))
    rows += [
        _row(f"llm_scoring_{mode}_score_only", f"{n} parsed answers, score step", n, r.ours_s, r.peer_s)
        for mode, r in runs.items()
    ]
    worst = max(r.worst_megabyte_parse_s for r in runs.values())
    huge = max(r.megabyte_answers for r in runs.values())
    what = f"slowest single parse of {huge} answers >= 1 MB, both modes, CPU seconds"
    rows.append(_row("llm_scoring_parse_1mb_worst", what, 1, worst, PARSE_BUDGET_S, f"budget {PARSE_BUDGET_S:g} s"))
    return rows


def checked_runs(answers: Sequence[Answer], peer: Scorer = peer_score) -> dict[str, ModeRun]:
    """:func:`run_mode` in every mode, each checked record by record (ours = the peer's) before it is kept."""
    runs = {}
    for mode in MODES:
        run = run_mode(answers, mode, peer)
        check_same(answers, run.ours, run.peer)
        runs[mode] = run
    return runs


def write_scoring_table(path: str, rows: list[dict[str, Any]]) -> None:
    """The rows as ``COLUMNS`` (CSV and Markdown)."""
    write_table(pd.DataFrame(rows, columns=COLUMNS), path, title="Benchmark llm_scoring")


def bench_llm_scoring(ctx: RuleContext) -> None:
    """Rule entry: ``params.bench`` (answers, long_answers, megabyte_answers) over items generated with the
    workflow's ``params.seed``."""
    settings, seed = ctx.settings("bench", LlmScoringBench), ctx.params["seed"]
    answers = bench_answers(bench_items(seed), settings, seed)
    rows = scoring_rows(answers, checked_runs(answers))
    for row in rows:
        log.info("%s: ours %.3fs, peer %.3fs, ratio %.1f", row["benchmark"], row["ours_s"], row["peer_s"], row["ratio"])
    write_scoring_table(ctx.output["table"], rows)

"""Scorers: a parsed answer against the item's truth, per task, in ``repo`` and ``clean`` mode (spec §3.5, §4.9),
and the aggregation into the tables' cells.

``repo`` keeps the authors' metrics and quirks:

* T1 ACC: exactly one induced occurrence in the parsed graph (A.L. answers read by the node-list reader, E.L.
  answers by the edge reader; node count and isolated nodes unchecked); only non-empty responses count; DIV
  over all counted outputs, ordered pairs, the repository's isomorphism check (edge count, then a matcher that
  tells direction apart on digraphs).
* T2/T5: success iff the output graph holds an induced target; nothing checks that it is an edit of the input
  (``edits`` reports the repository's count: input edges with neither orientation in the output plus output
  edges with neither orientation in the input, so each direction of a reciprocal pair counts).
* T3/T6: per-graph P and R (empty vs empty = (1, 1), one side empty = (0, 0)); F1 = 2 P̄ R̄ / (P̄ + R̄).
* T4: the relabelled G1 equals G2 (partial maps allowed).
* T7: node precision, and an empty answer scores 0 even when the true 3-core is empty.
* T8: the keyword shortcut scores a whole response 1; otherwise each extracted pattern (isomorphic
  duplicates merged, direction-aware) scores 1 iff it has fewer than 8 nodes and occurs induced in more than
  60% of the turn's graphs; all pattern scores of a cell are pooled; responses without either contribute
  nothing (a cell without any scores 0).
* T9: D.P. over responses with a parsed pattern, a pattern being discriminative iff it has at most 10 edges,
  occurs in more than 90% of the gold graphs and not in more than 90% of the others; ACC with every
  answer lacking "it should be in type 1" read as Type 2.
* T10/T11: answers without a readable verdict or type are left out of the denominator.
* Where the authors' code raises on an answer (an ``int()`` of a number past Python's digit limit, an edge
  match with one number, a mapping match with fewer than two), the answer is a ``repo_error``: counted in
  ``n_repo_error`` and left out of every metric, since their run would have stopped there.

``clean`` is the contract below; each line is a rule with a test in ``tests/llmpattern``:

* every response counts; an unparsed one scores as a failure (0; for T10 the wrong verdict);
* an explicit "none" (after the answer phrase, or a text stating there is nothing, with no list) is an empty
  answer, not an unparsed one, so a correct "none" scores as empty vs empty;
* T1 also reports ``strict`` ACC (20 nodes, no self-loops) and DIV over the correct outputs only;
* T2/T5 succeed only if the answer changes at most :func:`edit_limit` edges of the input (direction-aware):
  the target's node pairs, enough to build any induced target, so an answer ignoring the input fails;
* T3/T6 read tuples of any width (a normal house 5-tuple);
* T4 needs a bijection G1 -> G2 that preserves every edge;
* T7 reports P, R, F1 and Jaccard with empty vs empty = 1;
* T8 checks every pattern structurally, needs at least the planted pattern's node count (a single edge is
  not a pattern) and support above 60%, and averages per turn (Algorithm 2);
* T9 uses the paper's 90/10 filter.

Occurrence semantics: every success test above reads "occurs" as node-induced by default (``induced=True``);
``induced=False`` (``llmpattern.semantics: non_induced``) reads it as non-induced, in both modes (spec pitfall 1).

Per-item scores are JSON-ready dicts, with what the analyses read: ``changed_nodes`` and
``changed_degree_sum`` (Table 23), ``mentions_degree`` (Fig. 2), ``degree_hits`` (Fig. 4) and ``extracted``
(Fig. 5). :func:`aggregate` groups them (by :data:`GROUP_KEYS`) into one row per table cell with the headline
``metric`` and ``value``, the other metrics of the task, ``n``, ``n_counted``, ``n_unparsed`` and
``n_repo_error``. Undefined metrics (nothing counted) are ``None``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx
from networkx.algorithms import isomorphism

from graphaudit.llmpattern.answers import split_turn
from graphaudit.llmpattern.datasets import Graph, Item, graph_edges, graph_nodes, graph_record, to_networkx
from graphaudit.llmpattern.parsers import MODES, Parsed, mentions_degree, parse_answer, repo_isomorphic
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, UNDIRECTED_PATTERNS, get_pattern, pattern_from_edges
from graphaudit.llmpattern.prompts import effective_description, task_code
from graphaudit.llmpattern.solvers import (
    DISCRIMINATIVE_THRESHOLDS,
    FREQUENT_THRESHOLD,
    REPO_DISCRIMINATIVE_MAX_EDGES,
    REPO_FREQUENT_MAX_NODES,
    count_occurrences,
    has_occurrence,
    verify_mapping,
)

__all__ = [
    "ANALYSIS_FIELDS",
    "FAILED_SET",
    "GROUP_KEYS",
    "HEADLINE",
    "OTHER_PATTERN",
    "aggregate",
    "diversity",
    "edit_limit",
    "primitive_name",
    "score_answer",
    "score_parsed",
    "set_scores",
    "unique_patterns",
]

GROUP_KEYS: tuple[str, ...] = (
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
)
ANALYSIS_FIELDS: tuple[str, ...] = (
    "changed_nodes",
    "changed_degree_sum",
    "mentions_degree",
    "degree_hits",
    "extracted",
)
"""The per-answer fields the analyses read (Table 23, Figures 2, 4, 5): descriptions of an answer, not its score."""
HEADLINE: dict[tuple[str, str | None], str] = {
    ("T1", None): "acc",
    ("T2", None): "success",
    ("T3", None): "f1",
    ("T4", None): "accuracy",
    ("T5", None): "success",
    ("T6", None): "f1",
    ("T7", None): "precision",
    ("T8", None): "accuracy",
    ("T9", "extraction"): "dp",
    ("T9", "classification"): "accuracy",
    ("T10", None): "f1",
    ("T11", "extraction"): "extracted",
    ("T11", "classification"): "accuracy",
}
_STAGES = {
    "discriminative": "extraction",
    "realworld_turn": "extraction",
    "ba2motif": "classification",
    "realworld_graph": "classification",
}


# ---- graphs from parsed edges ------------------------------------------------------------------------
def _renumbered(edges: Sequence[Sequence[Any]]) -> tuple[int, list[tuple[int, int]]]:
    """Edges over any node names as ints 0..n-1 (first appearance), with n."""
    index: dict[Any, int] = {}
    pairs = [(index.setdefault(u, len(index)), index.setdefault(v, len(index))) for u, v in edges]
    return len(index), pairs


def _record(edges: Sequence[Sequence[Any]], directed: bool) -> Graph:
    n, pairs = _renumbered(edges)
    return graph_record(n, pairs, directed)


def _nx_graph(edges: Sequence[Sequence[Any]], directed: bool) -> nx.Graph:
    graph = nx.DiGraph() if directed else nx.Graph()
    graph.add_edges_from((u, v) for u, v in edges)
    return graph


def _pattern_in(host: Graph, edges: Sequence[Sequence[Any]], directed: bool, induced: bool = True) -> bool:
    """Whether the pattern given by ``edges`` occurs (induced or not) in ``host`` (networkx semantics: an empty
    pattern occurs everywhere; a pattern with a self-loop never occurs in a loop-free graph)."""
    if not edges:
        return True
    if any(u == v for u, v in edges):
        matcher_class = isomorphism.DiGraphMatcher if directed else isomorphism.GraphMatcher
        matcher = matcher_class(to_networkx(host, directed), _nx_graph(edges, directed))
        return matcher.subgraph_is_isomorphic() if induced else matcher.subgraph_is_monomorphic()
    return has_occurrence(host, pattern_from_edges(_renumbered(edges)[1], directed), induced)


def _share(edges: Sequence[Sequence[Any]], graphs: Sequence[Graph], directed: bool, induced: bool = True) -> float:
    return sum(_pattern_in(g, edges, directed, induced) for g in graphs) / len(graphs)


def unique_patterns(edge_lists: Iterable[Sequence[Sequence[Any]]], directed: bool) -> list[list[Any]]:
    """The edge lists with isomorphic duplicates removed (first kept), e.g. to collect the accepted T9
    patterns of a (model, format, set) before the classification prompts."""
    kept: list[tuple[nx.Graph, list[Any]]] = []
    for edges in edge_lists:
        graph = _nx_graph(edges, directed)
        if not any(nx.is_isomorphic(graph, other) for other, _ in kept):
            kept.append((graph, [tuple(e) for e in edges]))
    return [edges for _, edges in kept]


# ---- per-task item scores ----------------------------------------------------------------------------
def _translation(item: Item, parsed: Parsed, clean: bool, induced: bool = True, **_: Any) -> dict[str, Any]:
    truth = item["truth"]
    pattern = get_pattern(truth["pattern"])
    edges = parsed.value
    found = count_occurrences(_record(edges, pattern.directed), pattern, induced) if edges else 0
    score = {
        "correct": int(found == 1),
        "occurrences": found,
        "edges": [list(e) for e in edges],
        "directed": pattern.directed,
        "counted": clean or not parsed.empty_text,
    }
    if clean:
        nodes = {x for e in edges for x in e}
        score["strict"] = int(found == 1 and len(nodes) == truth["num_nodes"] and all(u != v for u, v in edges))
    return score


def _edits(before: Sequence[Sequence[Any]], after: Sequence[Sequence[Any]], directed: bool) -> int:
    """Changed edges, direction-aware: the symmetric difference of the edge sets (ordered pairs when directed)."""
    keys = tuple if directed else frozenset
    return len({keys(e) for e in before} ^ {keys(e) for e in after})


def _repo_edits(before: Sequence[Sequence[Any]], after: Sequence[Sequence[Any]], directed: bool) -> int:
    """The repository's ``modified_edges``: the input edges with neither orientation in the output, plus the
    output edges with neither orientation in the input, each over the graph's own edge set (so each
    direction of a reciprocal pair counts)."""
    old, new = (_nx_graph(edges, directed) for edges in (before, after))

    def missing(edges: nx.Graph, other: nx.Graph) -> int:
        return sum(not other.has_edge(u, v) and not other.has_edge(v, u) for u, v in edges.edges())

    return missing(old, new) + missing(new, old)


def edit_limit(target: str) -> int:
    """Clean mode's bound on changed edges for a modification answer: the node pairs of the target pattern
    (ordered pairs when directed). Setting every pair among k chosen nodes creates an induced target, so no
    answer to "the number of modified edges should be as less as possible" needs more; an answer that drops
    the input graph does."""
    pattern = get_pattern(target)
    k = pattern.num_nodes
    return k * (k - 1) // (1 if pattern.directed else 2)


def _changed_nodes(graph: Graph, after: Sequence[Sequence[Any]], directed: bool) -> dict[str, int]:
    """Table 23's per-answer counts: the input graph's nodes incident to an edge of E_out Δ E_in
    (direction-aware) and the sum of their input degrees (in + out on digraphs). Nodes the input lacks have
    no input degree and are left out; an empty answer changes nothing (it is no modification)."""
    keys = tuple if directed else frozenset
    before = graph_edges(graph)
    changed = {keys(e) for e in before} ^ {keys(e) for e in after} if after else set()
    degree = Counter(x for e in before for x in e)
    nodes = {x for e in changed for x in e} & set(graph_nodes(graph))
    return {"changed_nodes": len(nodes), "changed_degree_sum": sum(degree[x] for x in nodes)}


def _modification(item: Item, parsed: Parsed, clean: bool, induced: bool = True, **_: Any) -> dict[str, Any]:
    directed, target = item["directed"], item["truth"]["target"]
    edges, before = parsed.value, graph_edges(item["graph"])
    found = bool(edges) and has_occurrence(_record(edges, directed), target, induced)
    changed = _changed_nodes(item["graph"], edges, directed)
    if not clean:
        return {"success": int(found), "edits": _repo_edits(before, edges, directed), **changed, "counted": True}
    edits = _edits(before, edges, directed)
    return {"success": int(found and edits <= edit_limit(target)), "edits": edits, **changed, "counted": True}


def _precision_recall(pred: set[Any], truth: set[Any]) -> tuple[float, float]:
    if not pred or not truth:
        return (1.0, 1.0) if not pred and not truth else (0.0, 0.0)
    hits = len(pred & truth)
    return hits / len(pred), hits / len(truth)


def set_scores(pred: set[Any], truth: set[Any]) -> dict[str, float]:
    """P, R, F1 and Jaccard of a predicted set against the true one (empty vs empty = 1, one side empty = 0)."""
    precision, recall = _precision_recall(pred, truth)
    union = pred | truth
    return {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "jaccard": len(pred & truth) / len(union) if union else 1.0,
    }


FAILED_SET = {"precision": 0.0, "recall": 0.0, "f1": 0.0, "jaccard": 0.0}
"""The set scores of an answer that cannot be read (clean mode)."""


def _detection(item: Item, parsed: Parsed, clean: bool, pattern: str | None = None, **_: Any) -> dict[str, Any]:
    truth = {tuple(t) for t in item["truth"]["occurrences"][get_pattern(pattern).name]}
    scores = FAILED_SET if clean and parsed.unparsed else set_scores({tuple(t) for t in parsed.value}, truth)
    return {**scores, "counted": True}


def _isomorphism(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    g1, g2 = item["graphs"]
    return {"correct": int(verify_mapping(g1, g2, parsed.value, strict=clean)), "counted": True}


def _degree_hits(graph: Graph, nodes: Sequence[int], truth: set[int]) -> list[list[int]]:
    """Fig. 4's per-answer counts, ``[degree, in the 3-core, predicted]`` per input degree (ascending), over the
    predicted nodes as the parse lists them (repo: with repeats, as the authors count); nodes the input
    graph lacks have no degree and are left out."""
    degree, present = Counter(x for e in graph_edges(graph) for x in e), set(graph_nodes(graph))
    known = [n for n in nodes if n in present]
    predicted, hits = Counter(degree[n] for n in known), Counter(degree[n] for n in known if n in truth)
    return [[d, hits[d], predicted[d]] for d in sorted(predicted)]


def _kcore(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    truth = set(item["truth"]["core"])
    nodes = parsed.value
    by_degree = {"degree_hits": _degree_hits(item["graph"], nodes, truth)}
    if not clean:
        precision = sum(n in truth for n in nodes) / len(nodes) if nodes else 0.0
        return {"precision": precision, **by_degree, "counted": True}
    return {**(FAILED_SET if parsed.unparsed else set_scores(set(nodes), truth)), **by_degree, "counted": True}


OTHER_PATTERN = "other"
"""Fig. 5's label of an extracted pattern that is no primitive pattern."""


def primitive_name(edges: Sequence[Sequence[Any]], directed: bool) -> str:
    """The primitive pattern (of the same directedness) that ``edges`` is isomorphic to, else :data:`OTHER_PATTERN`."""
    graph = _nx_graph(edges, directed)
    names = DIRECTED_PATTERNS if directed else UNDIRECTED_PATTERNS
    return next((n for n in names if nx.is_isomorphic(graph, get_pattern(n).graph())), OTHER_PATTERN)


def _frequent(item: Item, parsed: Parsed, clean: bool, induced: bool = True, **_: Any) -> dict[str, Any]:
    graphs, directed = item["graphs"], item["directed"]
    if not clean:
        extracted = [primitive_name(p, directed) for p in parsed.value["patterns"]]
        if parsed.value["keyword"]:
            return {"pattern_scores": [1], "extracted": extracted, "counted": True}
        scores = [
            int(
                len({x for e in p for x in e}) <= REPO_FREQUENT_MAX_NODES
                and _share(p, graphs, directed, induced) > FREQUENT_THRESHOLD
            )
            for p in parsed.value["patterns"]
        ]
        return {"pattern_scores": scores, "extracted": extracted, "counted": not parsed.unparsed}
    patterns = unique_patterns(parsed.value["patterns"], directed)
    size = get_pattern(item["truth"]["pattern"]).num_nodes
    scores = [
        int(len({x for e in p for x in e}) >= size and _share(p, graphs, directed, induced) > FREQUENT_THRESHOLD)
        for p in patterns
    ]
    return {
        "pattern_scores": scores,
        "accuracy": sum(scores) / len(scores) if scores else 0.0,
        "extracted": [primitive_name(p, directed) for p in patterns],
        "counted": True,
    }


def _discriminative(
    item: Item, parsed: Parsed, clean: bool, gold_set: str | None = None, induced: bool = True, **_: Any
) -> dict[str, Any]:
    if gold_set is None:
        raise ValueError(f"scoring an extraction answer for {item['item_id']} needs gold_set=")
    gold, other = split_turn(item, gold_set)
    edges = parsed.value
    high, low = DISCRIMINATIVE_THRESHOLDS
    if not edges:
        found = False
    elif clean:
        in_gold, in_other = _share(edges, gold, False, induced), _share(edges, other, False, induced)
        found = (in_gold >= high and in_other < low) or (in_other >= high and in_gold < low)
    else:
        found = (
            _nx_graph(edges, False).number_of_edges() <= REPO_DISCRIMINATIVE_MAX_EDGES
            and _share(edges, gold, False, induced) > high
            and not _share(edges, other, False, induced) > high
        )
    return {
        "discriminative": int(found),
        "edges": [list(e) for e in edges] if found else None,
        "counted": clean or bool(edges),
    }


def _predicted_class(item: Item, parsed: Parsed, clean: bool) -> Any:
    """The class a type answer names (repo, two classes: "Type 1" is the first class, anything else the
    second, as the repository compared only against 1)."""
    classes = item["truth"].get("classes", [0, 1])
    number = parsed.value
    if number is None:
        return None
    if not clean and len(classes) == 2:
        return classes[0] if number == 1 else classes[1]
    return classes[number - 1] if 1 <= number <= len(classes) else None


def _classification(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    predicted = _predicted_class(item, parsed, clean)
    counted = clean or item["task"] == "ba2motif" or not parsed.unparsed
    return {"correct": int(predicted is not None and predicted == item["truth"]["label"]), "counted": counted}


def _molecule(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    label = int(item["truth"]["label"])
    prediction = parsed.value if parsed.value is not None else 1 - label
    return {
        "label": label,
        "prediction": prediction,
        "correct": int(prediction == label),
        "counted": clean or not parsed.unparsed,
    }


def _realworld_turn(item: Item, parsed: Parsed, clean: bool, **_: Any) -> dict[str, Any]:
    return {"extracted": int(not parsed.unparsed), "counted": True}


_ITEM_SCORERS: dict[str, Callable[..., dict[str, Any]]] = {
    "translation": _translation,
    "modification": _modification,
    "detection": _detection,
    "isomorphism": _isomorphism,
    "kcore": _kcore,
    "frequent": _frequent,
    "discriminative": _discriminative,
    "ba2motif": _classification,
    "molecule": _molecule,
    "realworld_turn": _realworld_turn,
    "realworld_graph": _classification,
}


def _pattern_label(item: Item, pattern: str | None) -> str | None:
    task = item["task"]
    if task == "detection":
        return pattern
    if task == "modification":
        return item["truth"]["target"]
    return item["truth"].get("pattern") if task in ("translation", "frequent") else None


def score_parsed(
    item: Item,
    parsed: Parsed,
    *,
    description: str | None = None,
    pattern: str | None = None,
    gold_set: str | None = None,
    labels: Mapping[str, Any] | None = None,
    induced: bool = True,
) -> dict[str, Any]:
    """One item's score record in the parse's mode, success tests under ``induced`` semantics. ``labels`` (fmt,
    style, responder, ...) are copied in for :func:`aggregate`; they may not overwrite the score's own keys. A
    parse on which the authors' code raises scores as the task's failure with ``repo_error`` set and
    ``counted`` false: :func:`aggregate` counts it apart and leaves it out of every metric."""
    if parsed.task != item["task"]:
        raise ValueError(f"a {parsed.task} answer cannot score {item['item_id']}")
    if item["task"] == "detection" and pattern is None:
        raise ValueError(f"scoring a detection answer for {item['item_id']} needs pattern=")
    scorer = _ITEM_SCORERS[item["task"]]
    scores = scorer(item, parsed, parsed.mode == "clean", pattern=pattern, gold_set=gold_set, induced=induced)
    if parsed.error is not None:
        scores = {**scores, "counted": False}
    record = {
        "item_id": item["item_id"],
        "task": task_code(item, description),
        "stage": _STAGES.get(item["task"]),
        "variant": item["variant"],
        "pattern": _pattern_label(item, pattern),
        "scale": item["scale"],
        "description": effective_description(item, description),
        "mode": parsed.mode,
        "unparsed": parsed.unparsed,
        "repo_error": parsed.error,
        **scores,
    }
    clash = set(labels or {}) & set(record)
    if clash:
        raise ValueError(f"labels may not overwrite score fields: {sorted(clash)}")
    return {**record, **(labels or {})}


def score_answer(
    item: Item,
    text: str,
    mode: str = "repo",
    *,
    description: str | None = None,
    pattern: str | None = None,
    gold_set: str | None = None,
    fmt: str | None = None,
    emulate_house_bug: bool = True,
    labels: Mapping[str, Any] | None = None,
    induced: bool = True,
) -> dict[str, Any]:
    """Parse ``text`` in ``mode`` and score it (:func:`parse_answer` then :func:`score_parsed`); ``fmt`` is the
    graph format the prompt asked for (the repository reads translation answers by it)."""
    parsed = parse_answer(item, text, mode, pattern=pattern, fmt=fmt, emulate_house_bug=emulate_house_bug)
    record = score_parsed(
        item, parsed, description=description, pattern=pattern, gold_set=gold_set, labels=labels, induced=induced
    )
    if item["task"] == "isomorphism":
        record["mentions_degree"] = mentions_degree(text)  # Fig. 2's degree-counting proxy (spec 4.9)
    return record


# ---- aggregation -------------------------------------------------------------------------------------
def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _degrees(graph: nx.Graph) -> tuple[int, ...]:
    return tuple(sorted(d for _, d in graph.degree()))


def diversity(graphs: Sequence[nx.Graph]) -> float:
    """DIV = share of pairs of outputs that are not isomorphic (0 below two outputs), by the repository's
    check (:func:`repo_isomorphic`, direction-aware on digraphs). The modes differ in which outputs they pool,
    not in the check. The share over ordered pairs equals the share over unordered ones, so each pair is
    tested once."""
    if len(graphs) < 2:
        return 0.0
    keys = [(g.number_of_edges(), _degrees(g)) for g in graphs]  # quick necessary conditions
    different = sum(
        keys[i] != keys[j] or not repo_isomorphic(graphs[i], graphs[j])
        for i, j in itertools.combinations(range(len(graphs)), 2)
    )
    return different / (len(graphs) * (len(graphs) - 1) / 2)


def _translation_metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    counted = [r for r in rows if r["counted"]]
    pool = counted if mode == "repo" else [r for r in counted if r["correct"]]
    metrics = {
        "acc": _mean([r["correct"] for r in counted]),
        "div": diversity([_nx_graph(r["edges"], r["directed"]) for r in pool]),
    }
    if mode == "clean":
        metrics["strict_acc"] = _mean([r["strict"] for r in counted])
    return metrics


def _detection_metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    precision, recall = _mean([r["precision"] for r in rows]), _mean([r["recall"] for r in rows])
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    return {
        "f1": f1,
        "precision": precision,
        "recall": recall,
        "jaccard": _mean([r["jaccard"] for r in rows]),
        "f1_mean": _mean([r["f1"] for r in rows]),
    }


def _kcore_metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    names = ("precision",) if mode == "repo" else ("precision", "recall", "f1", "jaccard")
    return {name: _mean([r[name] for r in rows]) for name in names}


def _frequent_metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    if mode == "repo":
        pooled = [s for r in rows if r["counted"] for s in r["pattern_scores"]]
        return {"accuracy": sum(pooled) / len(pooled) if pooled else 0.0}
    return {"accuracy": _mean([r["accuracy"] for r in rows])}


def _molecule_metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    counted = [r for r in rows if r["counted"]]
    outcomes = Counter((r["label"], r["prediction"]) for r in counted)
    tp, fp, fn = outcomes[(1, 1)], outcomes[(0, 1)], outcomes[(1, 0)]
    return {"f1": 2 * tp / (2 * tp + fp + fn) if tp else 0.0, "accuracy": _mean([r["correct"] for r in counted])}


def _counted_mean(name: str, metric: str) -> Callable[[Sequence[dict[str, Any]], str], dict[str, Any]]:
    def metrics(rows: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
        return {metric: _mean([r[name] for r in rows if r["counted"]])}

    return metrics


_METRICS: dict[tuple[str, str | None], Callable[[Sequence[dict[str, Any]], str], dict[str, Any]]] = {
    ("T1", None): _translation_metrics,
    ("T2", None): _counted_mean("success", "success"),
    ("T3", None): _detection_metrics,
    ("T4", None): _counted_mean("correct", "accuracy"),
    ("T5", None): _counted_mean("success", "success"),
    ("T6", None): _detection_metrics,
    ("T7", None): _kcore_metrics,
    ("T8", None): _frequent_metrics,
    ("T9", "extraction"): _counted_mean("discriminative", "dp"),
    ("T9", "classification"): _counted_mean("correct", "accuracy"),
    ("T10", None): _molecule_metrics,
    ("T11", "extraction"): _counted_mean("extracted", "extracted"),
    ("T11", "classification"): _counted_mean("correct", "accuracy"),
}


def aggregate(scores: Iterable[Mapping[str, Any]], keys: Sequence[str] = GROUP_KEYS) -> list[dict[str, Any]]:
    """One row per group of item scores (groups in order of first appearance): the group keys, ``metric``
    (the table's headline) and ``value``, every metric of the task, ``n``, ``n_counted``, ``n_unparsed`` and
    ``n_repo_error`` (answers the authors' code raises on, left out of the metrics).
    A group must hold one task, stage and mode (keep those in ``keys``)."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for score in scores:
        groups.setdefault(tuple(score.get(key) for key in keys), []).append(dict(score))
    rows = []
    for key, group in groups.items():
        kinds = {(s["task"], s["stage"], s["mode"]) for s in group}
        if len(kinds) != 1:
            raise ValueError(f"group {dict(zip(keys, key))} mixes tasks, stages or modes: {sorted(map(str, kinds))}")
        task, stage, mode = kinds.pop()
        if mode not in MODES:
            raise ValueError(f"unknown scoring mode {mode!r}")
        scored = [s for s in group if not s.get("repo_error")]
        metrics = _METRICS[(task, stage)](scored, mode)
        headline = HEADLINE[(task, stage)]
        rows.append(
            {
                **dict(zip(keys, key)),
                "metric": headline,
                "value": metrics[headline],
                **metrics,
                "n": len(group),
                "n_counted": sum(bool(s["counted"]) for s in group),
                "n_unparsed": sum(bool(s["unparsed"]) for s in group),
                "n_repo_error": len(group) - len(scored),
            }
        )
    return rows

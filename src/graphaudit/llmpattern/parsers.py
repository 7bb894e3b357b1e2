"""Answer parsers: free model text -> the structured answer a scorer needs, in two modes (spec §3.5, §4.9).

``repo`` re-implements the authors' extraction literally, quirks included: the last (detection, modification,
discriminative) or first (3-core, real-world) bracketed group, sorted tuples, the detection fallbacks (lines
with "connected", bold "**nodes a, b, c** ... forms a X"), the house regex that needs ",," before the fifth
number (``emulate_house_bug``, on by default), the isomorphic-mapping regex zoo where later pairs overwrite
earlier ones, the frequent-subgraph keyword shortcut (a keyword *and* a "pattern #k" mention, as the
repository's ``text_ex`` requires; lowercasing first, so ``(Node a, Node b)`` edges are lost there), the
discriminative parser's ``clean()``, which drops every edge listed more than once, and the classification
rule "anything without 'it should be in type 1' is Type 2". Numbers are read by ``int()`` as there, any
length; where the authors' code raises on an answer (a number past Python's digit limit, a ``(1, a)`` match
in translation, a mapping match with fewer than two numbers, a bold node list with an empty piece), the parse
carries ``error`` (a ``repo_error`` outcome) instead of a value. Translation answers are read by the format
the prompt asked for, as the repository's eval does: A.L. by its node-list reader, E.L. by its edge reader.

``clean`` reads the answer the prompt asked for: the list after the last answer phrase (or the last list
holding answer items), ASCII integers, any tuple width (a normal house 5-tuple), no sentence heuristics, the
last verdict or type phrase, mapping pairs restricted to G1 -> G2 node ids.

No parser raises on any string. :class:`Parsed` carries the value and ``unparsed``: True when the text holds
no answer the mode can read (an explicit empty list, ``[]``, is an answer, and in clean mode so is an explicit
"none"). Scorers count unparsed answers
and treat them as the mode prescribes. Values per item task:

==================  =========================================================================================
translation         edge list (nodes are ints, or names in repo mode)
modification        edge list
detection           sorted list of node tuples (sorted within)
isomorphism         ``{G1 node: G2 node}``
kcore               node list (repo: with repeats, as the first list gave them; clean: sorted, distinct)
frequent            ``{"keyword": bool, "patterns": [edge list, ...]}``
discriminative      edge list
ba2motif            type number (1, 2), ``None`` when unparsed (repo: never None)
molecule            1 (exists) or 0, ``None`` when unparsed
realworld_turn      ``{"edges": [...], "atoms": {node: symbol} | None}``
realworld_graph     type number, ``None`` when unparsed
==================  =========================================================================================
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import networkx as nx
from networkx.algorithms import isomorphism

from graphaudit.llmpattern.datasets import Item, graph_nodes
from graphaudit.llmpattern.patterns import get_pattern

__all__ = [
    "MAX_DIGITS",
    "MODES",
    "REPO_BOLD_SENTENCES",
    "REPO_TUPLES",
    "Parsed",
    "lazy_matches",
    "mentions_degree",
    "parse_answer",
    "repo_isomorphic",
]

MODES: tuple[str, ...] = ("repo", "clean")
MAX_DIGITS = 18  # longer numbers are no node id (and Python refuses int() beyond 4300 digits)


@dataclass(frozen=True)
class Parsed:
    """A parsed answer: the structured ``value`` (module table), whether nothing could be read, whether the
    response was the empty string (the repository drops those from translation scores), and ``error``: why
    the authors' code raises on this answer (repo mode only; the value is then the task's empty answer)."""

    task: str
    mode: str
    value: Any
    unparsed: bool
    empty_text: bool = False
    error: str | None = None


class RepoCrash(Exception):
    """The authors' evaluation code raises on this answer: their script stops there, so the answer has no
    score; it is recorded as a counted ``repo_error`` outcome instead."""


def _int(digits: str) -> int | None:
    return int(digits) if len(digits) <= MAX_DIGITS else None


def _repo_int(text: str) -> int:
    """Python's ``int()`` as the authors call it (any size up to the interpreter's digit limit; surrounding
    whitespace, underscores and other Unicode digits accepted), raising :class:`RepoCrash` where it raises."""
    try:
        return int(text)
    except ValueError as error:
        shown = text if len(text) <= 24 else text[:24] + "..."
        raise RepoCrash(f"int() raises on {shown!r} ({len(text)} characters)") from error


def _repo_ints(pieces: Iterable[str]) -> tuple[int, ...]:
    return tuple(_repo_int(piece) for piece in pieces)


def _ints(groups: Iterable[str]) -> tuple[int, ...] | None:
    values = tuple(_int(g) for g in groups)
    return None if None in values else values  # type: ignore[return-value]


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def mentions_degree(text: str) -> bool:
    """The repository's Fig. 2 filter: a mapping answer that mentions "degree" (degree-counting proxy)."""
    return isinstance(text, str) and "degree" in text.lower()


# ---- repo: shared pieces -----------------------------------------------------------------------------
_REPO_GROUP = re.compile(r"\[([^\[\]]+(?:\[[^\[\]]+\][^\[\]]*)*)\]")
# The repository's edge forms, in its order, each with its two numbers captured (every form but the last has
# exactly two digit runs, so the captures are what its ``re.findall(r"\d+", match)`` reads); the last form,
# ``\(\w, \w\)``, captures its two word characters.
_REPO_NUMBER_PAIR_FORMS = [
    re.compile(p)
    for p in (
        r"\((\d+), (\d+)\)",
        r"\((\d+),(\d+)\)",
        r"\(Node (\d+), Node (\d+)\)",
        r"\[(\d+), (\d+)\]",
        r"\(N(\d+), N(\d+)\)",
        r"\(N_(\d+), N_(\d+)\)",
        r"\(N_(\d+), N_\{(\d+)\}\)",
        r"\(N_\{(\d+)\}, N_\{(\d+)\}\)",
    )
]
_REPO_CHAR_PAIR_FORM = re.compile(r"\((\w), (\w)\)")
_DIGITS = re.compile(r"\d+")


def _converted(found: list[Any], convert: Callable[[Any], Any]) -> list[Any]:
    """``[convert(f) for f in found]``, calling ``convert`` once per distinct match: a 1 MB flood of one
    repeated pair costs one call. Distinct matches are converted in first-occurrence order, so the first
    match that raises is the one that raises."""
    table = {key: convert(key) for key in dict.fromkeys(found)}
    return list(map(table.__getitem__, found))


def _repo_char_edge(pair: tuple[str, str], words_unless_two: bool) -> tuple[Any, Any]:
    """One ``(a, b)`` match of the word-character form: two digits give an int edge; else the two characters,
    except that the translation copy reads a lone number as an edge and raises (IndexError there)."""
    numbers = [c for c in pair if _DIGITS.fullmatch(c)]
    if len(numbers) == 2:
        return _repo_ints(numbers)
    if numbers and not words_unless_two:
        raise RepoCrash(f"extract_text_edge reads '({pair[0]}, {pair[1]})' as an edge with one number (IndexError)")
    return pair


def _repo_pairs(text: str, words_unless_two: bool = False) -> list[tuple[Any, Any]]:
    """The repository's ``extract_text_edge``: every form scanned over the whole text, in form order. Its
    modification (and 3-core) copy reads two numbers as an int edge and anything else as the two word
    characters (``words_unless_two``); its translation (and frequent-subgraph) copy reads any number as an int
    edge, so a ``(1, a)`` match raises there."""
    edges: list[tuple[Any, Any]] = []
    for form in _REPO_NUMBER_PAIR_FORMS:
        edges.extend(_converted(form.findall(text), _repo_ints))
    chars = _REPO_CHAR_PAIR_FORM.findall(text)
    edges.extend(_converted(chars, lambda pair: _repo_char_edge(pair, words_unless_two)))
    return edges


_REPO_ADJACENCY_FORMS = (re.compile(r"Node \#\d+: \[[\d, ]+\]"), re.compile(r"- \*\*Node [\d]:\*\* [\d, ]+"))


def _repo_adjacency(text: str) -> list[tuple[int, int]]:
    """The repository's ``extract_text_node`` (translation answers in A.L. form): ``Node #v: [a, b]`` lines,
    else ``- **Node v:** a, b`` lines (a one-digit v); each gives the edges (v, a), (v, b)."""
    lines = _REPO_ADJACENCY_FORMS[0].findall(text) or _REPO_ADJACENCY_FORMS[1].findall(text)
    edges = []
    for line in lines:
        head, *neighbours = _repo_ints(_DIGITS.findall(line))
        edges.extend((head, n) for n in neighbours)
    return edges


def _repo_last_group(text: str) -> str:
    groups = _REPO_GROUP.findall(text)
    return groups[-1] if groups else text


def _repo_translation(item: Item, text: str, fmt: str | None = None, **_: Any) -> tuple[Any, bool]:
    """A.L. answers through the node-list reader, E.L. answers through the edge reader, as the repository's
    translation eval picks by the requested format."""
    if fmt not in ("AL", "EL"):
        raise ValueError(f"parsing a translation answer for {item['item_id']} needs fmt='AL' or 'EL'")
    edges = _repo_adjacency(text) if fmt == "AL" else _repo_pairs(text)
    return edges, not edges


def _repo_modification(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """The edges of the last bracketed group; without one, of the whole text, where the repository catches
    any error (the answer then fails)."""
    groups = _REPO_GROUP.findall(text)
    if groups:
        edges = _repo_pairs(groups[-1], words_unless_two=True)
    else:
        try:
            edges = _repo_pairs(text, words_unless_two=True)
        except RepoCrash:
            edges = []
    return edges, not edges and not _EMPTY_LIST.search(text)


# ---- repo: detection ---------------------------------------------------------------------------------
_NODE_REF = r"(?:\\?(?:Node\s+|#))?(\d+)"


def _repo_tuple_regex(k: int, house_bug: bool) -> re.Pattern[str]:
    r"""The repository's k-tuple regex, ``\*{0,2}\\?\(?\\?\(\s*`` + k node references + its closing part,
    without the opening ``\*{0,2}\\?\(?\\?``: that part is optional and holds no group or digit, so every
    match's groups are those of a match starting at its mandatory "(", and starting there lets the regex
    engine jump from "(" to "(" instead of trying every position (a test checks the two on random text)."""
    separators = [r"\s*,\s*"] * (k - 1)
    if k == 5 and house_bug:
        separators[-1] = r"\s*,,\s*"
    body = _NODE_REF + "".join(sep + _NODE_REF for sep in separators)
    return re.compile(r"\(\s*" + body + r"\s*\\?\)\\?\)?\*{0,2}")


REPO_TUPLES = {(k, bug): _repo_tuple_regex(k, bug) for k in (3, 4, 5) for bug in (False, True) if k == 5 or not bug}
# The repository's sentence regexes (matched on the lowered text), each ``(?<!\d)\d+`` + head + ``.*?`` +
# tail under DOTALL, or (the last) a plain regex. Such a regex is matched as a head after a digit run, then the
# first tail after it: the same matches, in linear time, where the regex scans to the end once per head
# without a tail (an 88 KB answer took it 24 s). The heads start at their literal ". **nodes", which the
# regex engine skips to; the digit run before it is checked by looking back (:func:`lazy_matches`).
_STATUS = r"(a (\w+)|not a (\w+))"
REPO_BOLD_SENTENCES = [
    (re.compile(head), re.compile(tail))
    for head, tail in (
        (r"\.\s\*\*nodes\s([\d,\s]+):\*\*", r"this set has \d+ edges, " + _STATUS + r"\."),
        (r"\.\s\*\*nodes\s([\d,\s]+)\*\*", r"this forms " + _STATUS),
        (r"\.\s\*\*nodes\s([\d,\s]+)\*\*", _STATUS),
        (r"\.\s\*\*nodes\s([\d,\s]+):\*\*", r"this forms a complete graph \(\d+ edges\), " + _STATUS + r"\."),
    )
]
_REPO_BOLD_PLAIN = re.compile(r"nodes\s([\d,\s]+) forms " + _STATUS + ":")


def lazy_matches(head: re.Pattern[str], tail: re.Pattern[str], text: str) -> Iterable[tuple[str, str]]:
    r"""``(head group 1, tail group 1)`` of every match of ``(?<!\d)\d+`` + head + ``.*?`` + tail (DOTALL) in
    ``text``, in the order ``finditer`` gives them, in linear time: a match is the first head after a digit
    run from the current position and the first tail after that head, and once a head has no tail after it
    no later head has one either."""
    position = 0
    while (start := _head_after_digits(head, text, position)) is not None:
        end = tail.search(text, start.end())
        if end is None:
            return
        yield start.group(1), end.group(1)
        position = end.end()


def _head_after_digits(head: re.Pattern[str], text: str, position: int) -> re.Match[str] | None:
    r"""The first match of ``head`` right after a digit run that starts at or after ``position`` (and does not
    continue a run from before it, as ``(?<!\d)`` demands)."""
    found = head.search(text, position)
    while found is not None:
        start = found.start()
        while start > position and text[start - 1].isdecimal():
            start -= 1
        if start < found.start() and not (start > 0 and text[start - 1].isdecimal()):
            return found
        found = head.search(text, found.start() + 1)
    return None


def _repo_line_tuples(text: str, k: int) -> list[tuple[int, ...]]:
    """Fallback 1: lines with "connected" / "form a pattern" and no negation give numbers 2..k+1 (possibly
    fewer, even none: the repository keeps such short tuples)."""
    found = []
    for line in text.split("\n"):
        line = line.lower()
        if "no " in line or "n't" in line or "not " in line:
            continue
        if "connected" in line or "form a pattern" in line:
            found.append(_repo_ints(_DIGITS.findall(line)[1 : k + 1]))
    return found


def _repo_bold_tuples(text: str) -> list[tuple[int, ...]]:
    """Fallback 2: "**nodes a, b, c** ... a X" sentences, unless the verdict holds "no" or "n't"; the node
    list is split at commas and each piece read by ``int()`` before the verdict is looked at."""
    lowered = text.lower()
    matches = [pair for head, tail in REPO_BOLD_SENTENCES for pair in lazy_matches(head, tail, lowered)]
    matches += [(m.group(1), m.group(2)) for m in _REPO_BOLD_PLAIN.finditer(lowered)]
    found = []
    for nodes, status in matches:
        numbers = _repo_ints(piece.strip() for piece in nodes.split(","))
        if "no" not in status and "n't" not in status:
            found.append(numbers)
    return found


def _repo_detection(
    item: Item, text: str, pattern: str | None = None, emulate_house_bug: bool = True, **_: Any
) -> tuple[Any, bool]:
    k = _pattern_size(item, pattern)
    regex = REPO_TUPLES[(k, emulate_house_bug and k == 5)]
    groups = _REPO_GROUP.findall(text)
    found = regex.findall(groups[-1]) if groups else []
    if not found:
        found = regex.findall(text)
    tuples = [_repo_ints(numbers) for numbers in found]
    if not found:
        tuples = _repo_line_tuples(text, k) or _repo_bold_tuples(text)
    value = sorted({tuple(sorted(t)) for t in tuples})
    return value, not value and not _EMPTY_LIST.search(text)


# ---- repo: isomorphic mapping ------------------------------------------------------------------------
_REPO_MAPPING_FORMS = [
    re.compile(p)
    for p in (
        r"- Node (\d+) -> Node (\d+)(?:.*)?",
        r"- Node (\d+) -> (\d+)(?:.*)?",
        r"- Graph 1: Node (\d+) -> Graph 2: Node (\d+)(?:.*)?",
        r"- Node (\d+) \(Graph 1\) -> Node (\d+) \(Graph 2\)(?:.*)?",
        r"- (\d+) -> (\d+)(?:.*)?",
        r"- Graph 1: (\d+) -> Graph 2: (\d+)(?:.*)?",
        r"Graph 1 (\d+) -> Graph 2 (\d+)(?:.*)?",
        r"- Node (\d+) (G1) -> Node (\d+) (G2)(?:.*)?",
        r"- Graph 1 Node (\d+) -> Graph 2 Node (\d+)(?:.*)?",
        r"- Node (\d+) \(G1\) -> Node (\d+) \(G2\)",
        r"Graph 1: Node (\d+) -> Graph 2: Node (\d+)",
        r"Node (\d+)\s*[-–>]+\s*Node (\d+)",
        r"- Node (\d+) \(Degree \d+\) -> Node (\d+) \(Degree \d+\)",
        r"- G1: Node (\d+) -> G2: Node (\d+)(?: \((.*)\))?",
        r"\\text\{Graph 1: Node (\d+)\} \\rightarrow \\text\{Graph 2: Node (\d+)\}",
        r"(?<!\d)(\d+)\s*->\s*(\d+)",
        r"Graph 1: Node #(\d+) -> Graph 2: Node #(\d+)",
        r"G1: Node (\d+) -> G2: Node (\d+)",
        r"Graph 1: Node (\d+) -> Graph 2: Node (\d+)",
        r"Graph 1: Node (\d+) \([A-Za-z]+\) -> Graph 2: Node (\d+) \([A-Za-z]+\)",
        r"G1:\s*node\s*(\d+)\s*->\s*G2:\s*node\s*(\d+)",
        r"Graph 1: Node (\w+) \((\d+)\) -> Graph 2: Node (\w+) \((\d+)\)",
        r"Node (\d+)\s*->\s*Graph 2: Node (\d+)",
        r"G1\((\d+)\)\s*->\s*G2\((\d+)\)",
        r"G1:Node (\d+)\s*->\s*G2:Node (\d+)(?: \(degree \d+\))?",
        r"\|\s*Node\s*(\d+)\s*\|\s*Node\s*(\d+)\s*\|",
        r"Graph 1: Node(\d+)\s*->\s*Graph 2: Node(\d+)",
        r"Graph 1: Node (\d+)\s*->\s*Graph 2: Node (\d+)",
        r"-\s*Node\s*(\d+)\s*->\s*Graph\s*2:\s*Node\s*(\d+)",
        r"Graph 1: Node #(\d+)\s*->\s*Graph 2: Node (\d+)",
        r"Node (\d+)\s*->\s*Graph 2:\s*(\d+)",
        r"Graph 1: Node\s+(\d+)\s*->\s*Graph 2: Node\s+(\d+)",
        r"Graph G_1: Node (\d+)\s*->\s*Graph G_2: Node (\d+)",
        r"Graph 1: Node\s*(\d+)\s*->\s*Graph\s*2: Node\s*(\d+)",
        r"\|\s*(\d+)\s*\|\s*(\d+)\s*\|",
        r"Graph1: Node\s*(\d+)\s*->\s*Graph2: Node\s*(\d+)(?:.*)?",
        r"Graph\s*1\s*:\s*(\d+)\s*->\s*Graph\s*2\s*:\s*(\d+)(?:.*)?",
    )
]
_REPO_BOXED_PAIR = re.compile(r"(?<!\d)(\d+)\s*:\s*(\d+)")


def _repo_normalise(text: str) -> str:
    for old, new in (("↔", "->"), ("→", "->"), ("**", ""), ("  ", " "), ("\t", " "), ("&", ""), ("\\\\", "")):
        text = text.replace(old, new)
    text = re.sub(r"\\text\{", "", text).replace("}", "").replace("\\rightarrow", "->")
    return text.replace("\u202f", " ").replace("\u00a0", " ")


def _repo_isomorphism(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    text = _repo_normalise(text)
    matches = [m for form in _REPO_MAPPING_FORMS for m in form.findall(text)]
    if "\\boxed" in text:
        matches += _REPO_BOXED_PAIR.findall(text)
    mapping: dict[int, int] = {}
    for groups in matches:
        numbers = [n for n in map(_int_or_none, groups if isinstance(groups, tuple) else (groups,)) if n is not None]
        if len(numbers) < 2:
            raise RepoCrash(f"a mapping match {groups!r} holds fewer than two numbers (IndexError)")
        mapping[numbers[0]] = numbers[1]
    return mapping, not mapping


def _int_or_none(text: str) -> int | None:
    """Python's ``int()``, or None where it raises: the authors' mapping reader wraps each group's ``int()`` in a
    bare ``try/except: pass`` and skips the group (a word group, a number past the digit limit)."""
    try:
        return int(text)
    except ValueError:
        return None


# ---- repo: 3-core, frequent, discriminative, classification, real world --------------------------------
_PARENTHESISED = re.compile(r"\([^\)]*\)")


def _repo_kcore(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    groups = _REPO_GROUP.findall(text)
    if groups:
        nodes = _converted(_DIGITS.findall(groups[0]), _repo_int)
    else:
        numbers = _DIGITS.findall(" ".join(_PARENTHESISED.findall(text)))
        nodes = sorted(set(_converted(numbers, _repo_int)))
    return nodes, not nodes and not _EMPTY_LIST.search(text)


_KEYWORDS = ("triangle", "cycle", "star", "loop", "clique")
_PATTERN_MENTION = re.compile(r"pattern #(\d+)")
_REPO_PATTERN_LIST = re.compile(r"\[\s*(?:\(\s*(?:node\s+)?\d+\s*,\s*(?:node\s+)?\d+\s*\)\s*(?:,\s*)?)+\]")


def repo_isomorphic(g1: nx.Graph, g2: nx.Graph) -> bool:
    """The repository's ``graph_iso_check``: equal edge counts (its degree pre-check compares each graph with
    itself), then networkx's ``GraphMatcher``. On digraphs that matcher (networkx <= 3.4, which the authors
    ran; later versions refuse it) walks successor lists and compares edge counts in both directions, so it
    tells direction apart; this uses the direction-aware ``DiGraphMatcher`` there. The two can differ only
    when a one-way edge runs from an earlier-matched node to a later one, which the old matcher left
    unchecked (documented departure)."""
    if g1.number_of_edges() != g2.number_of_edges():
        return False
    matcher = isomorphism.DiGraphMatcher if g1.is_directed() else isomorphism.GraphMatcher
    return matcher(g1, g2).is_isomorphic()


def _repo_frequent(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    lowered = text.lower()
    keyword = any(word in lowered for word in _KEYWORDS) and bool(_PATTERN_MENTION.search(lowered))
    kept: list[nx.Graph] = []
    for listed in _REPO_PATTERN_LIST.findall(lowered):
        graph = nx.DiGraph() if item["directed"] else nx.Graph()
        graph.add_edges_from(_repo_pairs(listed))
        if not any(repo_isomorphic(graph, other) for other in kept):
            kept.append(graph)
    value = {"keyword": keyword, "patterns": [list(g.edges) for g in kept]}
    return value, not keyword and not kept


_REPO_PLAIN_PAIR = re.compile(r"\((\d+), (\d+)\)")
_REPO_NODE_PAIR = re.compile(r"\(Node (\d+), Node (\d+)\)")


def _repo_discriminative(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """Edges of the last group; the repository's ``clean()`` keeps only edges listed exactly once."""
    region = _repo_last_group(text)
    edges = _converted(_REPO_PLAIN_PAIR.findall(region) + _REPO_NODE_PAIR.findall(region), _repo_ints)
    counts = Counter(edges)
    once = [e for e in counts if counts[e] == 1]
    return once, not once and not _EMPTY_LIST.search(text)


def _repo_ba2motif(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    lowered = text.lower()
    return (1 if "it should be in type 1" in lowered else 2), not re.search(r"it should be in type [12]", lowered)


_BOLD = re.compile(r"\*\*(.*?)\*\*")


def _repo_molecule(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    spans = _BOLD.findall(text)
    if not spans:
        return None, True
    return (0 if "not exist" in spans[0] else 1), False


_REPO_WORD_PAIR = re.compile(r"\(\w+, \w+\)")
_REPO_ATOM_PAIR = re.compile(r"\(Node \w+ Atom \w+, Node \w+ Atom \w+\)")
_REPO_NODE_WORD_PAIR = re.compile(r"\(Node \w+, Node \w+\)")
_NODE_NAME = re.compile(r"Node (\w+)")
_ATOM_NAME = re.compile(r"Atom (\w+)")


def _first_lazy_group(text: str) -> str | None:
    r"""The first match of ``\[(.*?)\]`` (``.`` stops at newlines), found in linear time: on each line, from
    its first "[" to the next "]"."""
    for line in text.split("\n"):
        start = line.find("[")
        end = line.find("]", start + 1) if start >= 0 else -1
        if end >= 0:
            return line[start + 1 : end]
    return None


def _repo_realworld_turn(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """The first [...] group; molecules read "(Node a Atom X, Node b Atom Y)" and fail (the repository
    skips the response) on any other "(a, b)" pair; other graphs read "(Node a, Node b)"."""
    first = _first_lazy_group(text)
    if first is None:
        return None, True
    if "atoms" not in item["graphs"][0]:
        return {
            "edges": [tuple(_NODE_NAME.findall(f)) for f in _REPO_NODE_WORD_PAIR.findall(first)],
            "atoms": None,
        }, False
    edges, atoms = [], {}
    for found in _REPO_WORD_PAIR.findall(first) + _REPO_ATOM_PAIR.findall(first):
        names, symbols = _NODE_NAME.findall(found), _ATOM_NAME.findall(found)
        if len(names) < 2 or len(symbols) < 2:
            return None, True
        edges.append((names[0], names[1]))
        atoms.update({names[0]: symbols[0], names[1]: symbols[1]})
    return {"edges": edges, "atoms": atoms}, False


_REPO_TYPE = re.compile(r"It should be in Type (\d)")


def _repo_realworld_graph(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    found = _REPO_TYPE.search(text)
    return (int(found.group(1)), False) if found else (None, True)


# ---- clean: shared pieces ----------------------------------------------------------------------------
_FLAGS = re.IGNORECASE | re.ASCII
_EMPTY_LIST = re.compile(r"\[\s*\]")
_REF = r"(?:node\s*)?#?\s*([0-9]+)"
_PAIR = re.compile(r"\(\s*" + _REF + r"\s*,\s*" + _REF + r"\s*\)", _FLAGS)
_ADJACENCY_LINE = re.compile(r"node\s*#?\s*([0-9]+)\s*:\s*\[([^\[\]]*)\]", _FLAGS)
_NUMBER = re.compile(r"[0-9]+")


def _clean_pairs(text: str) -> list[tuple[int, int]]:
    """The distinct integer pairs, in first-occurrence order (matches deduplicated as text first: distinct
    texts can still be one pair, ``(01, 2)`` and ``(1, 2)``, which the second pass merges)."""
    return _unique(p for p in map(_ints, _unique(_PAIR.findall(text))) if p is not None)


_BRACKETS = re.compile(r"[\[\]]+")  # a character class: the regex engine scans to it fast
_SAME_BRACKETS = re.compile(r"\[+|\]+")


def _bracket_runs(text: str) -> Iterator[tuple[int, int, bool]]:
    """``(start, length, opens)`` of every run of one kind of bracket, in order."""
    for found in _BRACKETS.finditer(text):
        brackets = found.group()
        for run in _SAME_BRACKETS.finditer(brackets):
            yield found.start() + run.start(), run.end() - run.start(), brackets[run.start()] == "["


def _top_level_lists(text: str) -> list[str]:
    """Contents of the balanced top-level [...] groups, in order (stray brackets are ignored). Brackets are
    read a run at a time, so a megabyte of nested brackets costs two steps."""
    contents, depth, start = [], 0, 0
    for position, width, opens in _bracket_runs(text):
        if opens:
            start = position if depth == 0 else start
            depth += width
        elif depth:
            if width >= depth:
                contents.append(text[start + 1 : position + depth - 1])
            depth = max(depth - width, 0)
    return contents


_NONE_WORDS = (
    r"(?:occurrences?|instances?|patterns?|motifs?|subgraphs?|cores?|nodes?|matches|triangles?|squares?|diamonds?"
    r"|houses?|loops?|cycles?|structures?)"
)
_NONE_AFTER_PHRASE = re.compile(r"[\s:*\-]*(?:none\b|nothing\b|empty\b|no\s+" + _NONE_WORDS + r"\b)", _FLAGS)
# A text stating there is nothing: "no <up to three words> <none word>" (which also covers "there are no",
# "contains no", "has no": each ends in such a "no"), "is / are empty", "does not contain". Each form is only
# searched for when its word occurs at all (a cheap test on the lowered text).
_SAYS_NONE = (
    ("no", re.compile(r"\bno\s+(?:[\w-]+\s+){0,3}?" + _NONE_WORDS + r"\b", _FLAGS)),
    ("empty", re.compile(r"\b(?:is|are)\s+empty\b", _FLAGS)),
    ("contain", re.compile(r"\bdoes\s+not\s+contain\b", _FLAGS)),
)


def _says_none(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered and form.search(text) for word, form in _SAYS_NONE)


def _answer_region(text: str, phrase: str, has_items: Callable[[str], bool]) -> str | None:
    """The answer's list: after the last answer phrase, an explicit "none" (the empty region ``""``) or the
    first list; else the last top-level list holding answer items; else, if the text states there is
    nothing ("there are no 3-core subgraphs"), the empty region; else ``None`` (nothing to read)."""
    matches = list(re.finditer(phrase, text, _FLAGS))
    if matches:
        after = text[matches[-1].end() :]
        if _NONE_AFTER_PHRASE.match(after):
            return ""
        listed = _top_level_lists(after)
        if listed:
            return listed[0]
    holding = [content for content in _top_level_lists(text) if has_items(content)]
    if holding:
        return holding[-1]
    return "" if _says_none(text) else None


def _region_items(region: str | None, read: Callable[[str], list[Any]]) -> tuple[list[Any], bool]:
    """Items of a region; ``unparsed`` unless items were found or the region is an explicit empty list."""
    if region is None:
        return [], True
    items = read(region)
    return items, not items and bool(region.strip())


# ---- clean: per task ---------------------------------------------------------------------------------
def _clean_translation(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """A.L. lines ``Node v: [a, b]`` when present, else every integer pair of the text."""
    lines = _ADJACENCY_LINE.findall(text)
    if not lines:
        edges = _clean_pairs(text)
        return edges, not edges
    edges = []
    for head, listed in lines:
        pairs = (_ints((head, n)) for n in _NUMBER.findall(listed))
        edges.extend(pair for pair in pairs if pair is not None)
    edges = _unique(edges)
    return edges, not edges


def _clean_modification(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    region = _answer_region(text, r"edges of the final graph (?:are|is)", lambda c: bool(_PAIR.search(c)))
    return _region_items(region, _clean_pairs)


def _clean_tuple_regex(k: int) -> re.Pattern[str]:
    return re.compile(r"[\(\[]\s*" + r"\s*,\s*".join([_REF] * k) + r"\s*[\)\]]", _FLAGS)


_CLEAN_TUPLES = {k: _clean_tuple_regex(k) for k in (3, 4, 5)}


def _clean_detection(item: Item, text: str, pattern: str | None = None, **_: Any) -> tuple[Any, bool]:
    regex = _CLEAN_TUPLES[_pattern_size(item, pattern)]

    def read(region: str) -> list[tuple[int, ...]]:
        return sorted({tuple(sorted(t)) for t in (_ints(m) for m in regex.findall(region)) if t is not None})

    region = _answer_region(text, r"detected patterns are", lambda c: bool(regex.search(c)))
    return _region_items(region, read)


_ARROWS = (
    ("↔", "->"),
    ("→", "->"),
    ("⟶", "->"),
    ("⇒", "->"),
    ("=>", "->"),
    ("\\rightarrow", "->"),
    ("\\to", "->"),
    ("**", ""),
)
_MAPPING_PAIR = re.compile(
    r"(?:graph\s*1\s*:?\s*)?(?<![0-9])" + _REF + r"\s*(?:\([^()\n]{0,40}\)\s*)?-+>\s*"
    r"(?:graph\s*2\s*:?\s*)?" + _REF,
    _FLAGS,
)


def _clean_isomorphism(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """Every "a -> b" pair (optionally "Graph 1: Node a -> Graph 2: Node b") with a in G1 and b in G2; later
    pairs overwrite earlier ones."""
    for old, new in _ARROWS:
        text = text.replace(old, new)
    if "->" not in text:  # every pair holds an arrow: a megabyte without one is not scanned
        return {}, True
    first, second = (set(graph_nodes(g)) for g in item["graphs"])
    mapping: dict[int, int] = {}
    for pair in (_ints(m) for m in _MAPPING_PAIR.findall(text)):
        if pair is not None and pair[0] in first and pair[1] in second:
            mapping[pair[0]] = pair[1]
    return mapping, not mapping


def _clean_kcore(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    def read(region: str) -> list[int]:
        return sorted({n for n in map(_int, _NUMBER.findall(region)) if n is not None})

    region = _answer_region(text, r"nodes in the subgraphs? (?:are|is)", lambda c: bool(_NUMBER.search(c)))
    return _region_items(region, read)


def _innermost_pair_lists(text: str) -> list[str]:
    """Bracket groups that hold integer pairs and no inner group holding pairs (one per listed pattern).

    Brackets are read a run at a time. The stack holds runs of "[" as ``[first, count, inner]``: the run's
    still-open groups nest, and ``inner`` says whether a group inside the run's innermost open group holds
    pairs. Groups opened by one run and closed by one run of "]" hold the same pairs' starts (no pair starts
    at a bracket), so such a chunk is decided at once: its innermost group is listed when it holds pairs and
    nothing inside it does; the groups around it then have a holding group inside."""
    starts = [m.start() for m in _PAIR.finditer(text)]
    lists: list[str] = []
    opened: list[list[Any]] = []
    for close, remaining, opens in _bracket_runs(text):
        if opens:
            opened.append([close, remaining, False])
            continue
        while remaining and opened:
            first, count, inner = opened[-1]
            start = first + count - 1
            following = bisect.bisect_right(starts, start)
            holds = following < len(starts) and starts[following] < close
            if holds and not inner:
                lists.append(text[start + 1 : close])
            taken = min(remaining, count)
            close, remaining = close + taken, remaining - taken
            if taken == count:
                opened.pop()
                if opened:
                    opened[-1][2] = opened[-1][2] or holds or inner
            else:
                opened[-1][1:] = [count - taken, holds or inner]
    return lists


def _clean_frequent(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    patterns = [edges for edges in map(_clean_pairs, _innermost_pair_lists(text)) if edges]
    return {"keyword": False, "patterns": patterns}, not patterns


def _clean_discriminative(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    region = _answer_region(text, r"pattern graph is", lambda c: bool(_PAIR.search(c)))
    return _region_items(region, _clean_pairs)


_TYPE = re.compile(r"it should be in type\s*([0-9]+)", _FLAGS)


def _clean_type(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    """The last "It should be in Type k" with k a valid type number."""
    found = [m.group(1) for m in _TYPE.finditer(text)]
    types = len(item["truth"].get("classes", [0, 1]))
    value = _int(found[-1]) if found else None
    return (value, False) if value is not None and 1 <= value <= types else (None, True)


_VERDICT = re.compile(r"the pattern does (not )?exist", _FLAGS)


def _clean_molecule(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    found = list(_VERDICT.finditer(text))
    return (0 if found[-1].group(1) else 1, False) if found else (None, True)


_ATOM_PAIR = re.compile(
    r"\(\s*node\s+([0-9A-Za-z_]+)\s+atom\s+([A-Za-z]+)\s*,\s*node\s+([0-9A-Za-z_]+)\s+atom\s+"
    r"([A-Za-z]+)\s*\)",
    _FLAGS,
)
_NODE_PAIR = re.compile(r"\(\s*node\s+([0-9A-Za-z_]+)\s*,\s*node\s+([0-9A-Za-z_]+)\s*\)", _FLAGS)


def _clean_realworld_turn(item: Item, text: str, **_: Any) -> tuple[Any, bool]:
    molecular = "atoms" in item["graphs"][0]
    regex = _ATOM_PAIR if molecular else _NODE_PAIR
    holding = [content for content in _top_level_lists(text) if regex.search(content)]
    if not holding:
        return None, True
    found = regex.findall(holding[-1])
    if not molecular:
        return {"edges": _unique(found), "atoms": None}, False
    atoms = {name: symbol for a, x, b, y in found for name, symbol in ((a, x), (b, y))}
    return {"edges": _unique((a, b) for a, _, b, _ in found), "atoms": atoms}, False


# ---- entry point -------------------------------------------------------------------------------------
def _pattern_size(item: Item, pattern: str | None) -> int:
    if pattern is None:
        raise ValueError(f"parsing a detection answer for {item['item_id']} needs pattern=")
    return get_pattern(pattern).num_nodes


_PARSERS: dict[str, dict[str, Callable[..., tuple[Any, bool]]]] = {
    "repo": {
        "translation": _repo_translation,
        "modification": _repo_modification,
        "detection": _repo_detection,
        "isomorphism": _repo_isomorphism,
        "kcore": _repo_kcore,
        "frequent": _repo_frequent,
        "discriminative": _repo_discriminative,
        "ba2motif": _repo_ba2motif,
        "molecule": _repo_molecule,
        "realworld_turn": _repo_realworld_turn,
        "realworld_graph": _repo_realworld_graph,
    },
    "clean": {
        "translation": _clean_translation,
        "modification": _clean_modification,
        "detection": _clean_detection,
        "isomorphism": _clean_isomorphism,
        "kcore": _clean_kcore,
        "frequent": _clean_frequent,
        "discriminative": _clean_discriminative,
        "ba2motif": _clean_type,
        "molecule": _clean_molecule,
        "realworld_turn": _clean_realworld_turn,
        "realworld_graph": _clean_type,
    },
}


_CRASHED: dict[str, Any] = {"isomorphism": {}, "frequent": {"keyword": False, "patterns": []}, "molecule": None}


def parse_answer(
    item: Item,
    text: str,
    mode: str = "repo",
    *,
    pattern: str | None = None,
    fmt: str | None = None,
    emulate_house_bug: bool = True,
) -> Parsed:
    """Parse a model's answer to ``item``'s prompt (``pattern``: the detected motif of a detection prompt;
    ``fmt``: the graph format the prompt asked for, which picks the repository's translation reader;
    ``emulate_house_bug``: repo mode's unreadable 5-tuples). Never raises on the text: where the authors'
    code raises, the parse carries ``error``. A non-string answer reads as the empty string. Unknown modes,
    tasks or patterns are errors of the caller."""
    if mode not in _PARSERS:
        raise ValueError(f"unknown parsing mode {mode!r}; modes are {', '.join(MODES)}")
    parser = _PARSERS[mode].get(item["task"])
    if parser is None:
        raise ValueError(f"no {mode} parser for task {item['task']!r}")
    if item["task"] == "detection":
        _pattern_size(item, pattern)
    text = text if isinstance(text, str) else ""
    try:
        value, unparsed = parser(item, text, pattern=pattern, fmt=fmt, emulate_house_bug=emulate_house_bug)
    except RepoCrash as crash:
        return Parsed(item["task"], mode, _CRASHED.get(item["task"], []), True, not text, str(crash))
    return Parsed(item["task"], mode, value, unparsed, not text)

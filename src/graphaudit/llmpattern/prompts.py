"""Prompt builders: every task's prompt exactly as the authors' repository sent it (spec §3.2, §3.5).

Graph texts (spec §3.2). A graph is rendered the way the repository renders a networkx graph: the header
names the nodes in insertion order (``0, 1, 2, and 3.``); the adjacency list (A.L.) has one line per node
with (out-)neighbours, lines sorted by node id, neighbours in edge order, and no line for a node without
(out-)neighbours; the edge list (E.L.) has one ``Node u is connected to Node v .`` line per edge (a space
before the period; none when atoms are shown). Directed graphs say "a directed graph" and "is directed to".
Topology-based patterns use their letter names (A, B, ...) in the input graph's format.

Tasks (code: item task, descriptions, options; table). ``description`` is ``term`` or ``topo`` (``both`` too
for molecules) where a task has variants, and must be left out elsewhere:

* T1: ``translation``, term (topo: the repository's variant no table uses); Table 2. ``fmt`` picks the
  answer clause (E.L.: the repository's edge clause; A.L.: its adjacency clause).
* T2 / T5: ``modification``, term -> T2, topo -> T5; Tables 3 / 5.
* T3 / T6: ``detection``, term -> T3, topo -> T6, ``pattern=`` the motif; Tables 18 / 19.
* T4: ``isomorphism``; Table 4.  T7: ``kcore``; Table 6.  T8: ``frequent`` (a turn); Table 7.
* T9: ``discriminative`` (a turn, ``gold_set="Set1"|"Set2"``; D.P.) and ``ba2motif`` classification items
  (``type_patterns=[[type 1 patterns], [type 2 patterns]]``; ACC); Table 8.
* T10: ``molecule``, term | topo | both (default both); Table 9.
* T11: ``realworld_turn`` (``gold_set``) and ``realworld_graph`` (``type_patterns``); Table 10.

Real-world items have no generator in this package yet; the builders read these fields (plain dicts):
``molecule``: ``variant`` (benzene | alkane_carbonyl | fluoride_carbonyl), ``graph`` with ``atoms`` (one
symbol per node), ``smiles``, ``truth.label`` (1 = the group is present). ``realworld_turn``: ``variant``
(the dataset name), ``graphs`` (with ``atoms`` for molecules), ``truth.labels`` (per graph) and
``truth.classes`` (class order: Set1/Type 1 is ``classes[0]``). ``realworld_graph``: ``graph`` and
``truth.label``, ``truth.classes``. Real-world decisions where the repository is silent or buggy: the
T10 terminology-only and topology-only variants drop "represented as {P}" or the name; T11 binary turns
use :data:`DATASET_DESCRIPTIONS` (only BBBP's sentence is the repository's) and number non-molecular graphs
from 1 (the repository wrote "No. 0" for all of them); classification prompts cap every type at
:data:`REALWORLD_PATTERN_CAP` patterns (the repository capped only some types); three-class test graphs all
get one wording (the repository's class-1 graphs had a different sentence, which leaks the label).

Chain of thought. The paper's CoT (Table 25) prepends "3 cases with the reasoning process" to pattern
detection prompts and does not publish them. :data:`COT_DEMONSTRATIONS` are this project's three worked
demonstrations (a triangle, a house and a feed-forward loop, each on a small graph with its exact answer,
checked against the solver by the tests), rendered in the query's format and description. ``style="cot"``
exists for detection only, the one task the paper prompts with CoT.

Where the repository's strings are kept verbatim, their typos and bugs are kept too ("The given patterns
is", "as less as possible", "The secod type", the discriminative prompt's "The second sets are:" after every
Set1 graph). ``prompt_hash`` (re-exported from :mod:`graphaudit.llmpattern.cache`: sha256 of the exact UTF-8
text) names a prompt in prompt rows, caches and replay files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from graphaudit.llmpattern.answers import detection_answer, gold_label
from graphaudit.llmpattern.cache import prompt_hash
from graphaudit.llmpattern.datasets import Graph, Item, graph_record, to_networkx
from graphaudit.llmpattern.patterns import Pattern, get_pattern
from graphaudit.llmpattern.solvers import occurrences

__all__ = [
    "COT_DEMONSTRATIONS",
    "DATASET_DESCRIPTIONS",
    "DESCRIPTIONS",
    "FORMATS",
    "MOLECULE_PATTERNS",
    "REALWORLD_PATTERN_CAP",
    "STYLES",
    "TASK_NAMES",
    "Demonstration",
    "build_prompt",
    "effective_description",
    "graph_text",
    "pattern_text",
    "prompt_hash",
    "prompt_record",
    "record_text",
    "task_code",
]

FORMATS: tuple[str, ...] = ("AL", "EL")
STYLES: tuple[str, ...] = ("zero_shot", "cot")
DESCRIPTIONS: tuple[str, ...] = ("term", "topo", "both")
TASK_NAMES: dict[str, str] = {
    "T1": "Pattern translation",
    "T2": "Graph modification (terminology)",
    "T3": "Pattern detection (terminology)",
    "T4": "Isomorphic mapping",
    "T5": "Graph modification (topology)",
    "T6": "Pattern detection (topology)",
    "T7": "K-core detection",
    "T8": "Frequent subgraph extraction",
    "T9": "Discriminative pattern learning",
    "T10": "Molecule pattern detection",
    "T11": "Real-world discriminative patterns",
}

_CODES = {
    "translation": "T1",
    "isomorphism": "T4",
    "kcore": "T7",
    "frequent": "T8",
    "discriminative": "T9",
    "ba2motif": "T9",
    "molecule": "T10",
    "realworld_turn": "T11",
    "realworld_graph": "T11",
}
_TERM_TOPO = {"modification": ("T2", "T5"), "detection": ("T3", "T6")}
_VARIANT_TASKS = ("translation", "modification", "detection", "molecule")

# T10 functional groups: the repository's names and topology strings (spec §3.4, Table 14 [R]).
MOLECULE_PATTERNS: dict[str, tuple[str, tuple[tuple[int, str, int, str], ...]]] = {
    "benzene": (
        "benzene ring",
        ((0, "C", 1, "C"), (1, "C", 2, "C"), (2, "C", 3, "C"), (3, "C", 4, "C"), (4, "C", 5, "C")),
    ),
    "alkane_carbonyl": (
        "Alkane Carbonyl which contains an unbranched alkane and a carbonyl functional group",
        ((0, "C", 1, "O"), (0, "C", 2, "C"), (2, "C", 3, "O")),
    ),
    "fluoride_carbonyl": (
        "Fluoride Carbonyl whcih contains a fluoride (F) and a carbonyl (C=O) functional group",
        ((0, "C", 1, "O"), (2, "C", 3, "F")),
    ),
}

# T11 binary extraction: "{data_des}" sentences. Only BBBP's is the repository's; the others are this
# project's, in the same style.
DATASET_DESCRIPTIONS: dict[str, str] = {
    "ogbg-molbbbp": "The graphs of compounds include binary labels on their permeability properties to the blood "
    "brain barrier.",
    "MUTAG": "The graphs of compounds include binary labels on their mutagenic effect on a bacterium.",
    "ogbg-molhiv": "The graphs of compounds include binary labels on their ability to inhibit HIV replication.",
    "IMDB-BINARY": "The graphs are ego-networks of actors and actresses, with binary labels on the genre of the "
    "movies they play in.",
}
_BINARY_ROLES = {
    "molecular": "an expert in molecular chemistry",
    "plain": "an expert in identifying patterns within graphs",
}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
REALWORLD_PATTERN_CAP = 11  # the repository stops listing a type's patterns once more than 10 are listed


# ---- graph texts -------------------------------------------------------------------------------------
def _check(kind: str, value: Any, choices: Sequence[Any]) -> None:
    if value not in choices:
        raise ValueError(f"unknown {kind} {value!r}; choose one of {', '.join(map(str, choices))}")


def _name(node: Any, atoms: Mapping[Any, str] | None) -> str:
    return f"{node} (atom: {atoms[node]})" if atoms is not None else str(node)


def _sort_key(node: Any) -> tuple[bool, Any]:
    """Node ids sort as numbers, names as strings (numbers first when a graph mixes them)."""
    return isinstance(node, str), node


def _header(graph: nx.Graph, fmt: str) -> str:
    kind = "a directed" if graph.is_directed() else "an undirected"
    nodes = [str(v) for v in graph.nodes]
    listed = "".join(f"{v}, " for v in nodes[:-1]) + (f"and {nodes[-1]}.\n" if nodes else "")
    return f"G describes {kind} graph among " + ("node " if fmt == "EL" else "") + listed


def _adjacency_lines(graph: nx.Graph, atoms: Mapping[Any, str] | None) -> str:
    verb = "directed" if graph.is_directed() else "connected"
    neighbours: dict[Any, list[Any]] = {}
    for u, v in graph.edges():
        neighbours.setdefault(u, []).append(v)
        neighbours.setdefault(v, [])
        if not graph.is_directed():
            neighbours[v].append(u)
    return "".join(
        f"Node {_name(u, atoms)} is {verb} to nodes {', '.join(_name(w, atoms) for w in neighbours[u])}.\n"
        for u in sorted(neighbours, key=_sort_key)
        if neighbours[u]
    )


def _edge_lines(graph: nx.Graph, atoms: Mapping[Any, str] | None) -> str:
    verb = "directed" if graph.is_directed() else "connected"
    gap = "" if atoms is not None else " "
    return "".join(f"Node {_name(u, atoms)} is {verb} to Node {_name(v, atoms)}{gap}.\n" for u, v in graph.edges())


def graph_text(graph: nx.Graph, fmt: str, atoms: Mapping[Any, str] | None = None) -> str:
    """A networkx graph as the repository writes it (A.L. or E.L.), with ``(atom: X)`` labels when given."""
    _check("graph format", fmt, FORMATS)
    if fmt == "AL":
        return _header(graph, fmt) + "In this graph:\n" + _adjacency_lines(graph, atoms)
    return _header(graph, fmt) + _edge_lines(graph, atoms)


def record_text(graph: Graph, directed: bool, fmt: str) -> str:
    """A graph record's text (node and edge order as recorded; ``atoms`` shown when the record has them)."""
    atoms = dict(enumerate(graph["atoms"])) if "atoms" in graph else None
    return graph_text(to_networkx(graph, directed), fmt, atoms)


def pattern_text(pattern: Pattern | str, fmt: str) -> str:
    """A primitive pattern with letter node names, in the repository's node and edge order."""
    pattern = get_pattern(pattern) if isinstance(pattern, str) else pattern
    graph = nx.DiGraph() if pattern.directed else nx.Graph()
    graph.add_nodes_from(pattern.letters)
    graph.add_edges_from(pattern.letter_edges)
    return graph_text(graph, fmt)


def _edges_text(spec: Any, fmt: str, relabel: bool) -> str:
    """An extracted pattern (an edge list, or ``{"edges": ..., "atoms": {node: symbol}}``) as a graph text:
    nodes in first-appearance order, optionally renamed "1", "2", ... (the repository's T11 remapping)."""
    edges = spec["edges"] if isinstance(spec, Mapping) else spec
    atoms = spec.get("atoms") if isinstance(spec, Mapping) else None
    graph = nx.Graph()
    graph.add_edges_from((u, v) for u, v in edges)
    if not relabel:
        return graph_text(graph, fmt, atoms)
    names = {v: str(i + 1) for i, v in enumerate(graph.nodes)}
    renamed = {names[v]: atoms[v] for v in graph.nodes} if atoms is not None else None
    return graph_text(nx.relabel_nodes(graph, names), fmt, renamed)


# ---- task codes and descriptions ---------------------------------------------------------------------
def effective_description(item: Item, description: str | None) -> str | None:
    """The description a prompt uses: ``term`` by default (``both`` for molecules) on tasks that have
    variants; ``None`` on the others, where giving one is an error."""
    task = item["task"]
    if task not in _VARIANT_TASKS:
        if description is not None:
            raise ValueError(f"{task} prompts have no terminology/topology variants (got {description!r})")
        return None
    if description is None:
        return "both" if task == "molecule" else "term"
    _check("description", description, DESCRIPTIONS if task == "molecule" else DESCRIPTIONS[:2])
    return description


def task_code(item: Item, description: str | None = None) -> str:
    """The paper task (T1..T11) an item's prompt belongs to."""
    task = item["task"]
    if task in _TERM_TOPO:
        term, topo = _TERM_TOPO[task]
        return term if effective_description(item, description) == "term" else topo
    if task not in _CODES or (task == "ba2motif" and item["variant"] != "classification"):
        raise ValueError(f"no prompt for {item['item_id']} (task {task!r}, variant {item['variant']!r})")
    return _CODES[task]


@dataclass(frozen=True)
class _Options:
    fmt: str
    description: str | None
    pattern: str | None = None
    gold_set: str | None = None
    type_patterns: Sequence[Sequence[Any]] | None = None
    data_description: str | None = None

    def need(self, name: str, item: Item) -> Any:
        value = getattr(self, name)
        if value is None:
            raise ValueError(f"the prompt for {item['item_id']} needs {name}=")
        return value


# ---- synthetic tasks ---------------------------------------------------------------------------------
_TRANSLATION_CLAUSES = {
    ("EL", False): "The edges of the graph should be list as: (Node #1, Node #2), ...",
    ("EL", True): "We define the direction of edges by indicating Node #1 pointing to Node #2 as (Node #1, Node #2). "
    "The edges of the graph should be list as: (Node #1, Node #2), ...",
    ("AL", False): "For each node of the graph, the neighboring nodes are listed as follows: "
    '"Node #1: []\n Node #2: []"',
}


def _translation(item: Item, opts: _Options) -> str:
    """T1 (the repository's topology variant also keeps the undirected edge clause for digraphs)."""
    pattern = get_pattern(item["truth"]["pattern"])
    mode = "directed" if pattern.directed else "undirected"
    tail = (
        f", the node number is {item['truth']['num_nodes']}. Each node at least has one edge. "
        "The formulate of the graph should be:"
    )
    if opts.description == "term":
        clause = _TRANSLATION_CLAUSES[(opts.fmt, pattern.directed and opts.fmt == "EL")]
        return f"Generate a {mode} graph that includes only one {pattern.terminology}{tail}{clause}"
    shown = pattern_text(pattern, opts.fmt)
    return (
        f"Generate a {mode} graph that includes only one given pattern shown like: {shown}{tail}"
        + _TRANSLATION_CLAUSES[(opts.fmt, False)]
    )


def _modification(item: Item, opts: _Options) -> str:
    target = get_pattern(item["truth"]["target"])
    given = target.terminology if opts.description == "term" else pattern_text(target, opts.fmt)
    return (
        "Modify the graph to include the given pattern. The graph is shown as "
        + record_text(item["graph"], item["directed"], opts.fmt)
        + f"The given pattern is {given}\n"
        + "The number of modified edges should be as less as possible."
        + "The edges of the final graph should be list as: [(Node #1, Node #2), ...]"
    )


def _detection_text(graph: Graph, directed: bool, pattern: Pattern, fmt: str, description: str) -> str:
    slots = ", ".join(f"#{i}" for i in range(1, pattern.num_nodes + 1))
    ask = (
        f"Please identify the patterns for each node and list all of them as follows: "
        f"The detected patterns are: [({slots}), ...]."
    )
    if description == "term":
        return (
            f"Identify the occurrence patterns of the given motif in the graph. The given patterns is "
            f"{pattern.terminology}.\n" + record_text(graph, directed, fmt) + ask
        )
    return (
        "Identify the occurrence patterns of the given motif in the graph.\nThe pattern is:"
        + pattern_text(pattern, fmt)
        + "\n The graph is:\n"
        + record_text(graph, directed, fmt)
        + ask
    )


def _detection_pattern(item: Item, opts: _Options) -> Pattern:
    pattern = get_pattern(opts.need("pattern", item))
    if pattern.name not in item["truth"]["occurrences"]:
        raise ValueError(f"{item['item_id']} is a {item['variant']} set; {pattern.name} is not detected on it")
    return pattern


def _detection(item: Item, opts: _Options) -> str:
    return _detection_text(item["graph"], item["directed"], _detection_pattern(item, opts), opts.fmt, opts.description)


def _isomorphism(item: Item, opts: _Options) -> str:
    g1, g2 = (record_text(g, False, opts.fmt) for g in item["graphs"])
    return (
        "Given a pair of isomorphic graphs, determine the node correspondence between the two graphs. "
        f"The first graph is:\n{g1} The second graph is: {g2}"
        'Provide a node matching list such as "[Graph 1: Node #1 -> Graph 2: Node #2, ...]"'
    )


def _kcore(item: Item, opts: _Options) -> str:
    k = item["truth"]["k"]
    return (
        f"Determine the {k}-core subgraphs in the graph.\n"
        + record_text(item["graph"], False, opts.fmt)
        + f"Please identify the {k}-core subgraphs and list the nodes in the subgraphs as: "
        '"The nodes in the subgraphs are: [#1, #2].'
    )


def _frequent(item: Item, opts: _Options) -> str:
    listed = "".join(f"No. {i}. {record_text(g, item['directed'], opts.fmt)}" for i, g in enumerate(item["graphs"], 1))
    return (
        "Consider the following graphs and summarize the common patterns in them."
        + listed
        + "Show the common patterns as list as: [The pattern graphs are: Pattern #1: [(Node #1, Node #2), ...]; "
        "Pattern #2: [(Node #1, Node #2), ...]]"
    )


def _by_label(item: Item, label: Any) -> list[Graph]:
    return [g for y, g in zip(item["truth"]["labels"], item["graphs"]) if y == label]


def _discriminative(item: Item, opts: _Options) -> str:
    """T9 extraction, with the repository's repeated "The second sets are:" after every Set1 graph."""
    gold_set = opts.need("gold_set", item)
    gold_label(item, gold_set)
    first = "".join(
        f"\nSet1: No. {k}:\n{record_text(g, False, opts.fmt)}The second sets are:\n"
        for k, g in enumerate(_by_label(item, 0), 1)
    )
    second = "".join(
        f"\nSet2: No. {k}:\n{record_text(g, False, opts.fmt)}" for k, g in enumerate(_by_label(item, 1), 1)
    )
    return (
        "You are provided two sets of graphs. The first sets are:\n"
        + first
        + second
        + f"What are the differences between the two sets? Show the special pattern in {gold_set}, shown as "
        "list as: [The pattern graph is: (Node #1, Node #2), ...] "
    )


def _ba2motif(item: Item, opts: _Options) -> str:
    """T9 classification; the type patterns are numbered from 0 as in the repository."""
    first, second = opts.need("type_patterns", item)
    listed1 = "".join(f"\npattern 1: No. {i}:\n{_edges_text(p, opts.fmt, False)}" for i, p in enumerate(first))
    listed2 = "".join(f"\npattern 2: No. {i}:\n{_edges_text(p, opts.fmt, False)}" for i, p in enumerate(second))
    return (
        "You are an expert at classifying different types of graphs based on whether they contain specific "
        "patterns. The first type of graph includes patterns such as:"
        + listed1
        + "The secod type of patterns like"
        + listed2
        + "Now, please identify which type the given graph is most likely to belong to. The graph is shown as: "
        + record_text(item["graph"], False, opts.fmt)
        + 'Chosing the answers from "It should be in Type 1" or "It should be in Type 2" '
    )


# ---- chain-of-thought demonstrations (this project's; the paper publishes none) -----------------------
@dataclass(frozen=True)
class Demonstration:
    """A worked detection example: a small graph, the motif, the reasoning and the exact occurrences."""

    pattern: str
    num_nodes: int
    edges: tuple[tuple[int, int], ...]
    reasoning: str
    answer: tuple[tuple[int, ...], ...]

    @property
    def graph(self) -> Graph:
        return graph_record(self.num_nodes, self.edges, get_pattern(self.pattern).directed)

    def check(self) -> None:
        """Raise if the stated answer is not the solver's induced occurrences."""
        if tuple(occurrences(self.graph, self.pattern)) != self.answer:
            raise ValueError(f"demonstration {self.pattern}: stated answer {self.answer} is not the solver's")


COT_DEMONSTRATIONS: tuple[Demonstration, ...] = (
    Demonstration(
        "triangle",
        6,
        ((0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 4), (4, 5)),
        "Check every node together with each pair of its neighbours. Node 0 has neighbours 1 and 2, and "
        "1 is connected to 2, so (0, 1, 2) is a triangle. Node 1 also has neighbour 3, and 2 is "
        "connected to 3, so (1, 2, 3) is a triangle. Node 3 has neighbours 1, 2 and 4, but 4 is connected "
        "to neither 1 nor 2. Node 4 has neighbours 3 and 5, which are not connected. There are no other "
        "triangles.",
        ((0, 1, 2), (1, 2, 3)),
    ),
    Demonstration(
        "house",
        6,
        ((0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (3, 4), (0, 5)),
        "A house is a square base with a triangular roof on one side of the square. Nodes 0, 1, 2, 3 form "
        "the square 0-1-2-3-0, and neither diagonal (0-2 or 1-3) is an edge. Nodes 2 and 3 share the "
        "neighbour 4, which is connected to neither 0 nor 1, so 4 is the roof. Node 5 has a single "
        "neighbour, so it cannot belong to a house. The only house is on nodes 0, 1, 2, 3, 4.",
        ((0, 1, 2, 3, 4),),
    ),
    Demonstration(
        "ffl",
        4,
        ((0, 1), (0, 2), (1, 2), (2, 3), (3, 1)),
        "A feed-forward loop needs a source node pointing to two nodes, one of which also points to the "
        "other. Node 0 points to 1 and 2, and 1 points to 2, so (0, 1, 2) is a feed-forward loop. Nodes "
        "1, 2, 3 form the cycle 1 -> 2 -> 3 -> 1, a feedback loop rather than a feed-forward loop. Every "
        "other set of three nodes has at most two edges among them.",
        ((0, 1, 2),),
    ),
)

_COT_INTRO = (
    "Here are three examples of identifying the occurrence patterns of a motif in a graph, each solved step by step.\n"
)
_COT_QUERY = (
    "\nNow solve the following task in the same way: reason step by step, then give the final answer in "
    "the requested format.\n"
)


def _cot_detection(item: Item, opts: _Options) -> str:
    examples = "".join(
        f"\nExample {i}:\n"
        + _detection_text(
            demo.graph, get_pattern(demo.pattern).directed, get_pattern(demo.pattern), opts.fmt, opts.description
        )
        + f"\nAnswer: {demo.reasoning} {detection_answer(demo.answer)}\n"
        for i, demo in enumerate(COT_DEMONSTRATIONS, 1)
    )
    return _COT_INTRO + examples + _COT_QUERY + _detection(item, opts)


# ---- real-world tasks --------------------------------------------------------------------------------
def _molecule(item: Item, opts: _Options) -> str:
    """T10; the terminology-only variant drops "represented as {P}", the topology-only one the name [I]."""
    try:
        name, bonds = MOLECULE_PATTERNS[item["variant"]]
    except KeyError:
        raise ValueError(
            f"no functional group for molecule set {item['variant']!r}; sets are {', '.join(MOLECULE_PATTERNS)}"
        ) from None
    group = nx.Graph()
    group.add_edges_from((u, v) for u, _, v, _ in bonds)
    shown = graph_text(group, opts.fmt, {u: a for u, a, _, _ in bonds} | {v: b for _, _, v, b in bonds})
    first = {
        "both": f"the pattern is a {name}, represented as {shown}",
        "term": f"the pattern is a {name}",
        "topo": f"the pattern is represented as {shown}",
    }[opts.description]
    return (
        "In the context of molecular biology, you have been provided with a pattern motif to compare against a "
        f"test molecule graph. \nFirst, {first}"
        + f"\nSecond, the test molecule {item['smiles']} can be shown as"
        + record_text(item["graph"], False, opts.fmt)
        + "\nNow, please determine whether the pattern motif exists in the molecule graph by selecting either "
        "**The pattern does exist** or **The pattern does not exist**. Please consider from the perspective "
        "of molecular biology, and do not be too rigid."
    )


def _binary_turn(item: Item, opts: _Options, gold_set: str) -> str:
    molecular = "atoms" in item["graphs"][0]
    first, second = (_by_label(item, label) for label in item["truth"]["classes"])
    description = opts.data_description or DATASET_DESCRIPTIONS.get(item["variant"])
    if description is None:
        raise ValueError(f"no data description for {item['variant']!r}; pass data_description=")
    role = _BINARY_ROLES["molecular" if molecular else "plain"]
    ask = (
        "[(Node 0 Atom C, Node 1 Atom N), (Node 1 Atom N, Node 2 Atom O), ...]. "
        if molecular
        else "[(Node 1, Node 2), (Node 2, Node 3), ...]"
    )
    return (
        f"You are {role}. Here are two sets of graphs. {description}. The first set are:\n"
        + "".join(f"\nSet1: No. {k}:\n{record_text(g, False, opts.fmt)}" for k, g in enumerate(first, 1))
        + "The second set are:\n"
        + "".join(f"\nSet2: No. {k}:\n{record_text(g, False, opts.fmt)}" for k, g in enumerate(second, 1))
        + f"Please find out the differences between the two sets and show the significant pattern in {gold_set} "
        f"as list as: {ask}"
    )


def _multiclass_turn(item: Item, opts: _Options, gold_set: str) -> str:
    """The repository lists each class's graphs (numbered from 1) followed by the request, in class order."""
    ask = f"Please show the significant pattern in {gold_set} as list as: [(Node 1, Node 2), (Node 2, Node 3), ...]"
    plain = [{"num_nodes": g["num_nodes"], "edges": g["edges"]} for g in item["graphs"]]
    item = {**item, "graphs": plain}
    blocks = "".join(
        "".join(f"\nNo. {k}:\n{record_text(g, False, opts.fmt)}" for k, g in enumerate(_by_label(item, c), 1)) + ask
        for c in item["truth"]["classes"]
    )
    return (
        f"You are an expert in identifying patterns within graphs. Here are several graphs in the {gold_set}:\n"
        + blocks
    )


def _realworld_turn(item: Item, opts: _Options) -> str:
    gold_set = opts.need("gold_set", item)
    gold_label(item, gold_set)
    binary = len(item["truth"]["classes"]) == 2
    return _binary_turn(item, opts, gold_set) if binary else _multiclass_turn(item, opts, gold_set)


def _type_pattern_texts(type_patterns: Sequence[Sequence[Any]], fmt: str) -> list[list[str]]:
    """Each type's patterns renamed "1", "2", ..., de-duplicated by text across all types, at most
    :data:`REALWORLD_PATTERN_CAP` per type (the repository's T11 classification prompt)."""
    seen: set[str] = set()
    texts = []
    for patterns in type_patterns:
        kept: list[str] = []
        for spec in patterns:
            text = _edges_text(spec, fmt, relabel=True)
            if text not in seen and len(kept) < REALWORLD_PATTERN_CAP:
                seen.add(text)
                kept.append(text)
        texts.append(kept)
    return texts


def _realworld_graph(item: Item, opts: _Options) -> str:
    """T11 classification. The binary prompt is the repository's; for three or more classes every test graph
    gets the repository's class-2/3 wording (its class-1 graphs had a different sentence: a label leak)."""
    texts = _type_pattern_texts(opts.need("type_patterns", item), opts.fmt)
    if len(texts) != len(item["truth"]["classes"]) or len(texts) > len(_ORDINALS):
        raise ValueError(f"{item['item_id']}: {len(texts)} pattern types for {len(item['truth']['classes'])} classes")
    graph = record_text(item["graph"], False, opts.fmt)
    shown = (
        "\nNow, please identify which type the given graph is most likely to belong to. The graph is shown as: " + graph
    )
    if len(texts) == 2:
        return (
            "You are an expert at classifying different types of graphs based on whether they contain specific "
            "patterns. The first type of patterns such as:"
            + "".join(f"\nPatterns for Type 1: No.{c}:\n{t}" for c, t in enumerate(texts[0], 1))
            + "\nThe second type of patterns are like"
            + "".join(f"\nPatterns for Type 2: No.{c}:\n{t}" for c, t in enumerate(texts[1], 1))
            + shown
            + 'Choosing the answer from "It should be in Type 1" or "It should be in Type 2". Notably, the '
            "presence of distinct patterns in a graph suggests a higher probability of its association "
            "with a specific class. "
        )
    types = "".join(
        ("The first type of patterns such as:" if i == 0 else f"\nThe {_ORDINALS[i]} type of patterns are")
        + "".join(f"\nPattern Type {i + 1}: No.{c}:\n{t}" for c, t in enumerate(kept, 1))
        for i, kept in enumerate(texts)
    )
    choices = [f'"It should be in Type {i}"' for i in range(1, len(texts) + 1)]
    return (
        "You are an expert at classifying different types of graphs based on the presence of specific patterns. "
        + types
        + shown
        + "Now, please identify which type the given graph is most likely to belong to and "
        f"choose the answer from {', '.join(choices[:-1])}, or {choices[-1]}."
    )


# ---- entry points ------------------------------------------------------------------------------------
_BUILDERS = {
    "translation": _translation,
    "modification": _modification,
    "detection": _detection,
    "isomorphism": _isomorphism,
    "kcore": _kcore,
    "frequent": _frequent,
    "discriminative": _discriminative,
    "ba2motif": _ba2motif,
    "molecule": _molecule,
    "realworld_turn": _realworld_turn,
    "realworld_graph": _realworld_graph,
}


def build_prompt(
    item: Item,
    fmt: str,
    style: str = "zero_shot",
    description: str | None = None,
    *,
    pattern: str | None = None,
    gold_set: str | None = None,
    type_patterns: Sequence[Sequence[Any]] | None = None,
    data_description: str | None = None,
) -> str:
    """The exact prompt for ``item`` in graph format ``fmt`` (``AL`` | ``EL``).

    ``description``: ``term`` | ``topo`` (``both`` for molecules) where the task has variants (module table);
    ``style``: ``zero_shot`` | ``cot`` (detection only). Task options: ``pattern`` (detection: which motif),
    ``gold_set`` (extraction turns: "Set1", ...), ``type_patterns`` (classification: one list of extracted
    patterns per type, each an edge list or ``{"edges", "atoms"}``), ``data_description`` (T11 binary turns;
    defaults to :data:`DATASET_DESCRIPTIONS`).
    """
    _check("graph format", fmt, FORMATS)
    _check("prompt style", style, STYLES)
    task_code(item, description)
    opts = _Options(fmt, effective_description(item, description), pattern, gold_set, type_patterns, data_description)
    if style == "cot":
        if item["task"] != "detection":
            raise ValueError(
                f"chain-of-thought prompts exist for pattern detection only (Table 25), not {item['task']}"
            )
        return _cot_detection(item, opts)
    return _BUILDERS[item["task"]](item, opts)


def prompt_record(
    item: Item, fmt: str, style: str = "zero_shot", description: str | None = None, **options: Any
) -> dict[str, Any]:
    """A JSON-ready prompt row: item id, task code, the prompt's settings, the text and its hash."""
    text = build_prompt(item, fmt, style, description, **options)
    return {
        "item_id": item["item_id"],
        "task": task_code(item, description),
        "item_task": item["task"],
        "variant": item["variant"],
        "scale": item["scale"],
        "fmt": fmt,
        "style": style,
        "description": effective_description(item, description),
        "pattern": options.get("pattern"),
        "gold_set": options.get("gold_set"),
        "prompt": text,
        "prompt_hash": prompt_hash(text),
    }

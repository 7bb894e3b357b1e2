"""The round-trip control of the neural runs (Section 4.2 and Appendix D; spec 4.8 "Data conversion", 4.9 step 6):
conversion and encoding must not change a single prediction.

The paper takes the first 200 official test graphs apart into features, edges and labels, passes them through its
conversion to PyG's PATTERN form and the model's own encoding, and checks that every node gets the prediction it
gets through the original loader. Here the original loader is what a training job reads
(:func:`graphaudit.pattern.neural.graph_data` of the stored graphs with the cached RRWP); the round trip takes each
converted graph apart (:func:`take_apart`: the one-hot ``x`` back to features, ``edge_index`` to an edge list,
``y`` to labels), reassembles the graphs (:func:`reassemble`), saves and reloads them in the store's file format,
converts them again and computes RRWP on the fly (:func:`graphaudit.nn.rrwp.rrwp`, as the released transforms do
when a graph is loaded). :func:`pattern_neural_round_trip` scores both with a run's saved weights (the last epoch's)
on the CPU, where the arithmetic is deterministic, in the same batches, and writes ``round_trip.json``:

* ``inputs_identical``: every tensor of every graph (``x``, ``edge_index``, ``y``, the RRWP attributes) equal;
* ``labels_identical`` / ``probabilities_identical`` / ``max_abs_difference``: the predictions of the two paths
  (labels ``p > 0.5``, the released threshold); ``passed`` is ``inputs_identical and labels_identical``, the
  paper's criterion;
* ``saved``: the loader path against the run's own saved ``last``-rule predictions of the same graphs (computed on
  the run's device and in the batches of the whole test set, so recorded apart from the control, as the paper
  recorded its GPU comparison apart).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file
from torch_geometric.data import Data

from graphaudit.common.atomic import write_json
from graphaudit.common.rule import RuleContext
from graphaudit.nn.pattern_trainer import evaluate_set
from graphaudit.nn.rrwp import rrwp
from graphaudit.pattern.dense import DenseGraphs, pack_graphs
from graphaudit.pattern.neural import build_model, edge_index_of, graph_data, read_rrwp_cache
from graphaudit.pattern.neural_plan import RrwpPlan, neural_recipe
from graphaudit.pattern.plan import evaluated_graphs
from graphaudit.pattern.settings import NeuralScale, Selection
from graphaudit.pattern.shards import read_shards

__all__ = [
    "ROUND_TRIP_RULE",
    "ROUND_TRIP_SET",
    "compare_predictions",
    "pattern_neural_round_trip",
    "reassemble",
    "round_trip_data",
    "same_inputs",
    "take_apart",
]

log = logging.getLogger(__name__)

ROUND_TRIP_SET = "test"
"""The set whose first graphs (in evaluated order) make the round trip: the official-like test graphs."""
ROUND_TRIP_RULE = "last"
"""The checkpoint rule whose saved predictions the saved weights (the last epoch's) reproduce."""


def take_apart(data: Data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, edges ``(m, 2)`` with ``u < v``, labels) of a graph in PyG's PATTERN form; ``x`` must be one-hot
    and ``edge_index`` must hold both directions of every edge."""
    x = data.x
    if not (((x == 0) | (x == 1)).all() and (x.sum(dim=1) == 1).all()):
        raise ValueError("x is not one-hot: the conversion changed the features")
    source, target = data.edge_index.numpy()
    forward = {(int(u), int(v)) for u, v in zip(source, target)}
    if any((v, u) not in forward for u, v in forward):
        raise ValueError("edge_index lacks the reverse of an edge: the conversion changed the edges")
    upper = source < target
    edges = np.stack([source[upper], target[upper]], axis=1)
    return x.argmax(dim=1).numpy().astype(np.uint8), edges, data.y.numpy().astype(np.uint8)


def reassemble(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> DenseGraphs:
    """The graphs of :func:`take_apart`'s parts in the dense store."""
    adjacencies = []
    for features, edges, _ in parts:
        adjacency = np.zeros((len(features), len(features)), dtype=np.uint8)
        adjacency[edges[:, 0], edges[:, 1]] = adjacency[edges[:, 1], edges[:, 0]] = 1
        adjacencies.append(adjacency)
    return pack_graphs(adjacencies, [p[0] for p in parts], [p[2] for p in parts])


def round_trip_data(converted: Sequence[Data], plan: RrwpPlan, folder: str | Path) -> list[Data]:
    """``converted`` graphs taken apart, reassembled, saved in and reloaded from ``folder``, converted again, with
    their RRWP computed on the fly."""
    path = Path(folder) / "round_trip.npz"
    reassemble([take_apart(data) for data in converted]).save(path)
    graphs = DenseGraphs.load(path)
    return [
        graph_data(
            graphs,
            g,
            rrwp(edge_index_of(graphs.adjacency(g)), graphs.size(g), plan.steps, plan.add_identity, plan.variant),
        )
        for g in range(graphs.num_graphs)
    ]


def same_inputs(a: Data, b: Data) -> bool:
    """Whether two graphs carry the same attributes with equal tensors (dtype and shape included)."""
    if sorted(a.keys()) != sorted(b.keys()):
        return False
    for key in a.keys():
        left, right = a[key], b[key]
        if isinstance(left, torch.Tensor):
            if not (isinstance(right, torch.Tensor) and left.dtype == right.dtype and torch.equal(left, right)):
                return False
        elif left != right:
            return False
    return True


def compare_predictions(a: np.ndarray, b: np.ndarray) -> dict[str, bool | float | int]:
    """Labels (``p > 0.5``) and probabilities of two predictions of the same nodes."""
    if a.shape != b.shape:
        raise ValueError(f"predictions of {a.shape} and {b.shape} nodes are not of the same graphs")
    differ = (a > 0.5) != (b > 0.5)
    return {
        "labels_identical": bool(not differ.any()),
        "labels_differing": int(differ.sum()),
        "probabilities_identical": bool(np.array_equal(a, b)),
        "max_abs_difference": float(np.abs(a.astype(np.float64) - b).max()) if a.size else 0.0,
    }


def pattern_neural_round_trip(ctx: RuleContext) -> None:
    """The round trip of one run (``wildcards``: protocol, model, seed) on the first ``params.graphs`` official-like
    test graphs, with the run's saved weights on the CPU."""
    model, protocol, seed = ctx.wildcards["model"], ctx.wildcards["protocol"], int(ctx.wildcards["seed"])
    scale = None if ctx.params["scale"] is None else ctx.settings("scale", NeuralScale)
    recipe = neural_recipe(model, ctx.params["recipe"], scale)
    torch.set_num_threads(ctx.threads)
    order = evaluated_graphs(ROUND_TRIP_SET, ctx.settings("selection", Selection))[: int(ctx.params["graphs"])]
    graphs = DenseGraphs.load(ctx.input["graphs_test"])
    cache = read_rrwp_cache(ctx.input_list("rrwp_test"), recipe.rrwp)
    loader = [graph_data(graphs, g, cache[g]) for g in order]
    with tempfile.TemporaryDirectory() as folder:
        trip = round_trip_data(loader, recipe.rrwp, folder)
    net = build_model(recipe)
    net.load_state_dict(load_file(ctx.input["weights"]))
    net.eval()
    cpu = torch.device("cpu")
    _, loader_acc, loader_probs = evaluate_set(net, loader, recipe.batch_size, cpu)
    _, trip_acc, trip_probs = evaluate_set(net, trip, recipe.batch_size, cpu)
    saved = read_shards([ctx.input["predictions_test"]], f"prob_{ROUND_TRIP_RULE}")
    saved_probs = np.concatenate([saved[g] for g in order]) if order else np.zeros(0, np.float32)
    inputs_identical = all(same_inputs(a, b) for a, b in zip(loader, trip))
    control = compare_predictions(loader_probs.numpy(), trip_probs.numpy())
    result = {
        "model": model,
        "protocol": protocol,
        "seed": seed,
        "set": ROUND_TRIP_SET,
        "graphs": len(order),
        "nodes": int(loader_probs.numel()),
        "device": "cpu",
        "inputs_identical": inputs_identical,
        **control,
        "accuracy": {"loader": loader_acc, "round_trip": trip_acc},
        "passed": inputs_identical and bool(control["labels_identical"]),
        "saved": {"rule": ROUND_TRIP_RULE, **compare_predictions(loader_probs.numpy(), saved_probs)},
    }
    write_json(ctx.output["round_trip"], result)
    (log.info if result["passed"] else log.warning)(
        "%s %s seed %d round trip on %d graphs: %s", model, protocol, seed, len(order), result
    )

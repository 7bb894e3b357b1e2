"""Benchmark: the pattern study's neural half on the CPU.

* RRWP of PATTERN graphs with each released code's settings (``config/pattern/neural.yaml``: 21 steps, GRIT's and
  CKGConv's variants): ours, :func:`graphaudit.nn.rrwp.rrwp` graph by graph (what ``pattern_neural_rrwp`` caches)
  and :func:`graphaudit.nn.rrwp.rrwp_batch` (one padded product per power), against a dense numpy reference graph
  by graph (float32 matrix powers, pairs read as both codes read them), both on the rule's threads; the encodings are
  checked equal (the same pairs in the same order, values within float32 rounding) before any row is written.
* Training throughput of CKGConv and GRIT with their released recipes (widths and depths unchanged, one epoch of
  the first training graphs on the shared trainer, :func:`graphaudit.nn.pattern_trainer.train_pattern_model`):
  graphs per second, a measurement without a peer (``peer_s`` empty).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from graphaudit.bench.settings import PatternNeuralBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.nn.rrwp import Rrwp, rrwp, rrwp_batch
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.neural import build_model, edge_index_of, graph_data
from graphaudit.pattern.neural_plan import RrwpPlan, load_recipes, neural_recipe
from graphaudit.pattern.settings import NeuralScale

log = logging.getLogger(__name__)

ATOL = 1e-6  # float32 products in another library's order: equal to rounding


def numpy_rrwp(adjacency: np.ndarray, plan: RrwpPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dense reference: ``(abs_pe, rel_index, rel_val)`` of one graph from float32 numpy matrix powers of
    ``P = D^-1 A`` (an isolated node's row 0), the channels of :mod:`graphaudit.nn.rrwp` (``steps >= 3``)."""
    a = adjacency.astype(np.float32)
    degree = a.sum(axis=1)
    walk = np.divide(a, degree[:, None], out=np.zeros_like(a), where=degree[:, None] > 0)
    identity = plan.variant == "ckgconv" or plan.add_identity
    channels = plan.steps + 1 if plan.variant == "ckgconv" else plan.steps
    power = np.eye(len(a), dtype=np.float32)
    stack = [power] if identity else []
    while len(stack) < channels:
        power = power @ walk if stack else walk
        stack.append(power)
    dense = np.stack(stack, axis=-1)
    i, j = np.nonzero(np.any(dense != 0, axis=-1))
    diagonals = np.diagonal(dense).T
    abs_pe = diagonals[:, 1:] if plan.variant == "ckgconv" else diagonals
    return abs_pe, np.stack([j, i]), dense[i, j]


def check_equal(ours: Rrwp, reference: tuple[np.ndarray, np.ndarray, np.ndarray], graph: int) -> None:
    """Raise unless an encoding equals the reference: the same pairs in order, values within :data:`ATOL`."""
    abs_pe, index, values = reference
    if not np.array_equal(ours.rel_index.numpy(), index):
        raise RuntimeError(f"graph {graph}: RRWP pairs differ from the numpy reference")
    for name, mine, theirs in (("rel_val", ours.rel_val, values), ("abs_pe", ours.abs_pe, abs_pe)):
        if mine.shape != theirs.shape or not np.allclose(mine.numpy(), theirs, rtol=0.0, atol=ATOL):
            raise RuntimeError(f"graph {graph}: RRWP {name} differs from the numpy reference beyond {ATOL}")


def rrwp_rows(graphs: DenseGraphs, plans: dict[str, RrwpPlan], count: int, repeats: int) -> list[dict]:
    """One row per model and implementation of ours: the first ``count`` graphs, checked, then timed."""
    ids = list(range(min(count, graphs.num_graphs)))
    adjacency = [graphs.adjacency(g) for g in ids]
    inputs = [(edge_index_of(a), len(a)) for a in adjacency]
    rows = []
    for model, plan in plans.items():
        args = (plan.steps, plan.add_identity, plan.variant)
        reference = [numpy_rrwp(a, plan) for a in adjacency]
        for g, (single, batched) in enumerate(zip([rrwp(e, n, *args) for e, n in inputs], rrwp_batch(inputs, *args))):
            check_equal(single, reference[g], g)
            check_equal(batched, reference[g], g)
        peer_s = best_time(lambda: [numpy_rrwp(a, plan) for a in adjacency], repeats)
        ours = {
            "graph by graph": lambda: [rrwp(e, n, *args) for e, n in inputs],
            "padded batch": lambda: rrwp_batch(inputs, *args),
        }
        for how, run in ours.items():
            ours_s = best_time(run, repeats)
            log.info("RRWP %s (%s): ours %.3fs, numpy %.3fs", model, how, ours_s, peer_s)
            rows.append(
                {
                    "benchmark": "pattern_neural_rrwp",
                    "input": f"{len(ids)} PATTERN test graphs, {model}'s RRWP ({plan.steps} steps), ours {how}",
                    "ours_s": ours_s,
                    "peer": "dense numpy float32 matrix powers, graph by graph",
                    "peer_s": peer_s,
                }
            )
    return rows


def training_row(model: str, recipe_source: dict, train: DenseGraphs, count: int) -> dict:
    """One epoch of ``model``'s released recipe on the first ``count`` training graphs (one validation graph
    evaluated): the wall time and the graphs per second in ``input``."""
    from graphaudit.nn.pattern_trainer import train_pattern_model  # the trainer's torch stack, loaded here only

    recipe = neural_recipe(model, recipe_source, NeuralScale(max_epochs=1, warmup_epochs=0))  # widths unchanged
    plan = recipe.rrwp
    data = [
        graph_data(
            train,
            g,
            rrwp(edge_index_of(train.adjacency(g)), train.size(g), plan.steps, plan.add_identity, plan.variant),
        )
        for g in range(min(count, train.num_graphs))
    ]
    config = recipe.train_config(0, 0, "cpu", math.inf)
    ours_s = best_time(lambda: train_pattern_model(lambda: build_model(recipe), data, {"val": data[:1]}, config), 1)
    rate = len(data) / ours_s
    log.info("training %s: %d graphs in %.1fs, %.2f graphs/s", model, len(data), ours_s, rate)
    return {
        "benchmark": "pattern_neural_training",
        "input": f"{model}, released recipe, one epoch of {len(data)} PATTERN graphs: {rate:.2f} graphs/s on the CPU",
        "ours_s": ours_s,
        "peer": "none (throughput)",
        "peer_s": math.nan,
    }


def bench_pattern_neural(ctx: RuleContext) -> None:
    """Rule entry: the RRWP rows (checked, then timed) and each model's training row, in
    ``results/bench/pattern_neural.csv``."""
    settings = ctx.settings("bench", PatternNeuralBench)
    torch.set_num_threads(ctx.threads)
    recipes = load_recipes(ctx.input["recipes"])
    plans = {model: neural_recipe(model, recipes[model]).rrwp for model in settings.models}
    with threadpool_limits(ctx.threads, user_api="blas"):  # numpy's BLAS on the rule's threads, as torch
        rows = rrwp_rows(DenseGraphs.load(ctx.input["test"]), plans, settings.graphs, settings.repeats)
    train = DenseGraphs.load(ctx.input["train"])
    rows += [training_row(model, recipes[model], train, settings.train_graphs) for model in settings.models]
    write_bench(ctx.output["table"], rows)

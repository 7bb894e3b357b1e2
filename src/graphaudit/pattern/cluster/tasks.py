"""Rule entries of the CLUSTER baseline up to the tables: the test graphs and the sampler's shards.

Every sampler variant runs on the same graphs in shards of ``cluster.shard_size`` graphs; the tables
(:func:`graphaudit.pattern.tables.cluster`, :func:`~graphaudit.pattern.tables.cluster_differences`) pool them.
"""

from __future__ import annotations

import logging

from graphaudit.common.atomic import write_npz
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.pattern.cluster.generator import ClusterLaw, check_cluster_graphs, generate_split, release_test
from graphaudit.pattern.cluster.sampler import SamplerSettings, run_shard, settings_for
from graphaudit.pattern.dense import DenseGraphs, pack_graphs

__all__ = ["cluster_generate", "cluster_sample", "variant_settings"]

log = logging.getLogger(__name__)


def variant_settings(variant: str, override: dict[str, int] | None) -> SamplerSettings:
    """The sampler settings of a variant: the paper's, with chains / sweeps / burn-in overridden where the
    config's ``cluster.variants.<variant>`` gives them (null: the paper's)."""
    return settings_for(variant, **(override or {}))


def cluster_generate(ctx: RuleContext) -> None:
    """CLUSTER test graphs: regenerated with the notebook's law, or the official release's test split."""
    source, count, law = ctx.params["source"], ctx.params["graphs"], ClusterLaw()
    if source == "release":
        graphs = _first(release_test(GraphSet.load(ctx.input["release"]), law), count)
    else:
        graphs = generate_split(law, "test", count, ctx.params["seed"])
    check_cluster_graphs(graphs, law)
    graphs.save(ctx.output["graphs"])
    log.info("CLUSTER test: %d graphs, %d nodes (%s)", graphs.num_graphs, len(graphs.y), source)


def _first(graphs: DenseGraphs, count: int) -> DenseGraphs:
    if count > graphs.num_graphs:
        raise ValueError(f"cluster.graphs is {count} but the release's test split has {graphs.num_graphs} graphs")
    keep = range(count)
    return pack_graphs(
        [graphs.adjacency(g) for g in keep], [graphs.features(g) for g in keep], [graphs.labels(g) for g in keep]
    )


def cluster_sample(ctx: RuleContext) -> None:
    """One shard of one sampler variant."""
    graphs = DenseGraphs.load(ctx.input["graphs"])
    size, shard = ctx.params["shard_size"], int(ctx.wildcards["shard"])
    start, stop = shard * size, min((shard + 1) * size, graphs.num_graphs)
    settings = variant_settings(ctx.wildcards["variant"], ctx.params["override"])
    write_npz(ctx.output["samples"], **run_shard(graphs, start, stop, settings, ctx.params["seed"]))

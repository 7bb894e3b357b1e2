"""CLUSTER's rule entries: job counts and variant settings from the config."""

from graphaudit.common.settings import load_settings
from graphaudit.pattern.cluster.tasks import n_cluster_shards, variant_settings
from graphaudit.pattern.settings import ClusterSettings


def _settings(graphs: int, shard_size: int) -> ClusterSettings:
    return load_settings(
        ClusterSettings,
        {"source": "regenerate", "graphs": graphs, "shard_size": shard_size, "run": ["final"], "variants": {}},
    )


def test_job_counts() -> None:
    assert n_cluster_shards(_settings(1000, 100)) == 10
    assert n_cluster_shards(_settings(101, 100)) == 2


def test_variant_settings_override_only_what_is_given() -> None:
    assert variant_settings("final", None).chains == 8
    short = variant_settings("final", {"chains": 2, "sweeps": 300})
    assert (short.chains, short.sweeps, short.burn_in, short.prior) == (2, 300, 200, "revealed")

"""CLUSTER's rule entries: variant settings from the config."""

from graphaudit.pattern.cluster.tasks import variant_settings


def test_variant_settings_override_only_what_is_given() -> None:
    assert variant_settings("final", None).chains == 8
    short = variant_settings("final", {"chains": 2, "sweeps": 300})
    assert (short.chains, short.sweeps, short.burn_in, short.prior) == (2, 300, 200, "revealed")

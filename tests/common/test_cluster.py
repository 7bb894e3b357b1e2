"""The SLURM profile's account: the user's setting, `none` for no -A, and an unset one named before any submission."""

from __future__ import annotations

import pytest

from graphaudit.common.cluster import MissingAccountError, slurm_account, slurm_partition


def test_the_account_is_the_users_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHAUDIT_SLURM_ACCOUNT", " lab42 ")
    assert slurm_account() == "lab42"
    monkeypatch.setenv("GRAPHAUDIT_SLURM_ACCOUNT", "none")
    assert slurm_account() == ""


@pytest.mark.parametrize("value", [None, "", "  "])
def test_an_unset_account_says_how_to_set_it(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("GRAPHAUDIT_SLURM_ACCOUNT", raising=False)
    else:
        monkeypatch.setenv("GRAPHAUDIT_SLURM_ACCOUNT", value)
    with pytest.raises(
        MissingAccountError, match=r"export GRAPHAUDIT_SLURM_ACCOUNT=<account> .*ACCOUNT=none on a cluster"
    ):
        slurm_account()


def test_the_partition_is_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHAUDIT_SLURM_PARTITION", raising=False)
    assert slurm_partition() == ""
    monkeypatch.setenv("GRAPHAUDIT_SLURM_PARTITION", "gpu")
    assert slurm_partition() == "gpu"

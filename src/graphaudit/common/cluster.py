"""The SLURM profile's account and partition, from the user's environment (``workflow/profiles/slurm``).

Without an account the executor plugin guesses one from ``sacct``, which fails on clusters whose ``sacct`` lacks
the options it passes, and then submits without ``-A``; so an unset account is named before anything is submitted.
``GRAPHAUDIT_SLURM_ACCOUNT=none`` is the explicit choice of a cluster without accounts (no ``-A``).
"""

from __future__ import annotations

import os

ACCOUNT_ENV = "GRAPHAUDIT_SLURM_ACCOUNT"
PARTITION_ENV = "GRAPHAUDIT_SLURM_PARTITION"
NO_ACCOUNT = "none"


class MissingAccountError(RuntimeError):
    """The SLURM profile was used without saying which account to charge."""


def slurm_account() -> str:
    """The account every job is submitted with ('' for ``none``: no ``-A``); unset, a :class:`MissingAccountError`
    that says how to set it."""
    value = os.environ.get(ACCOUNT_ENV, "").strip()
    if not value:
        raise MissingAccountError(
            f"the SLURM profile needs an account: export {ACCOUNT_ENV}=<account> (`sacctmgr show associations "
            f"user=$USER format=account` lists yours), or {ACCOUNT_ENV}={NO_ACCOUNT} on a cluster without accounts"
        )
    return "" if value == NO_ACCOUNT else value


def slurm_partition() -> str:
    """The partition every job is submitted to ('' when unset: the cluster's default partition)."""
    return os.environ.get(PARTITION_ENV, "").strip()

"""Checkpoint rules over a run's per-epoch validation curve (the supervised studies: the pattern study's CKGConv
and GRIT retraining), by name in :data:`CURVE_RULES`. Each returns the chosen epoch's index (epochs from zero).

``released``: the rule of the GraphGPS training loop that GRIT and CKGConv ship (``custom_train.py`` with
``ckpt_best`` and ``ckpt_clean``; read in LiamMa/GRIT at 6c988ea). After every epoch the loop takes
``argmax`` of the whole validation history, warm-up included; when that is the current epoch (a value strictly
above every earlier one: ``argmax`` keeps the first of equal maxima) and the epoch is at or after the warm-up,
the checkpoint is saved and the earlier one deleted. What survives is the last new global maximum at or after
the warm-up (spec 4.8: CKGConv warm-up 10, GRIT 5); a run whose maximum came before the warm-up and was never
beaten keeps no checkpoint (:class:`NoEligiblePoint`). ``numpy.argmax`` treats NaN as the maximum, so the first
NaN epoch (at or after the warm-up) is saved and no later one ever is; the rule keeps that behaviour.

``best_validation``: the first epoch of the highest validation value; ``last``: the last epoch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graphaudit.selection.rules import NoEligiblePoint

__all__ = ["CURVE_RULES", "best_validation", "last_epoch", "released"]


def _curve(values: Sequence[float]) -> np.ndarray:
    curve = np.asarray(values, dtype=float)
    if curve.ndim != 1 or curve.size == 0:
        raise ValueError(f"a validation curve is a non-empty sequence of numbers, got shape {curve.shape}")
    return curve


def released(values: Sequence[float], warmup: int) -> int:
    """The released loop's surviving checkpoint: the last epoch ``e >= warmup`` with ``argmax(values[: e + 1])
    == e``."""
    curve = _curve(values)
    if warmup < 0:
        raise ValueError(f"warm-up is a number of epochs, got {warmup}")
    saved = [e for e in range(warmup, curve.size) if int(np.argmax(curve[: e + 1])) == e]
    if not saved:
        raise NoEligiblePoint(
            f"no new validation maximum at or after the warm-up of {warmup} epochs: the released loop saves no "
            f"checkpoint (maximum {np.nanmax(curve) if np.isfinite(curve).any() else 'none'} at epoch "
            f"{int(np.argmax(curve))})"
        )
    return saved[-1]


def best_validation(values: Sequence[float]) -> int:
    """The first epoch of the highest finite validation value."""
    curve = _curve(values)
    if not np.isfinite(curve).any():
        raise NoEligiblePoint("no finite validation value")
    return int(np.nanargmax(np.where(np.isfinite(curve), curve, np.nan)))


def last_epoch(values: Sequence[float]) -> int:
    """The last epoch of the curve."""
    return _curve(values).size - 1


CURVE_RULES: dict[str, Callable[..., int]] = {
    "released": released,
    "best_validation": best_validation,
    "last": last_epoch,
}

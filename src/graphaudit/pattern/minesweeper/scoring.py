"""Scores of the Minesweeper baselines: Table 4's rows (with diagnostics) and Table 15's criteria.

Belief propagation is scored by the mean ROC AUC over the test masks (the labelled variant: each mask with
the run that clamped its own training labels); the strip sampler by the AUC of its chains' combined
marginals. Table 15 checks the code (self-tests against enumeration) and the chains' convergence.

**ESS counts draws per kept sweep, as the paper's does.** Table 15's ``draws`` column gives the draws each R-hat,
ESS and half-trace check reads: chains x kept sweeps (every chain cut to the shortest). The paper's mine-count ESS
of 24,432 comes from 4 chains of about 10,000-11,000 sampling sweeps less 200 burn-in (about 39,000-43,000 draws,
0.57-0.62 per draw); counting per strip update instead (about 52 updates a sweep on the 100 x 100 board) would
multiply the draws, not the ESS: on the regenerated board, 2 chains x 1,200 kept sweeps gave a mine-count ESS of
1,319 per sweep (0.55 per draw) and 1,721 per update (1.3 times as many, from 51.5 times the draws). The quick scale's
ESS of about 700 is the paper's rate on a shorter run: one chain of 2,000 sweeps, 567 of them annealing and 200 burn-in,
leaves 1,233 draws (0.56-0.59 per draw).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from graphaudit.common.integrity import read_npz
from graphaudit.pattern.minesweeper.board import Board, MaskAUC, mask_auroc
from graphaudit.pattern.minesweeper.strip import ChainState, combine_chains
from graphaudit.stats.convergence import auc_spread, between_chain_sd_quantile, ess_bulk, half_difference, split_rhat

__all__ = [
    "MINESWEEPER_COLUMNS",
    "TABLE15_COLUMNS",
    "board_label",
    "bp_row",
    "chain_aucs",
    "code_rows",
    "convergence_rows",
    "read_checks",
    "strip_row",
]

MINESWEEPER_COLUMNS = [
    "method",
    "information",
    "board",
    "mean_auc",
    "sd_auc",
    "min_auc",
    "max_auc",
    "chains",
    "sweeps",
    "last_change",
    "annealing_sweeps_max",
    "valid_chains",
    "chain_aucs",
]
TABLE15_COLUMNS = ["criterion", "check", "required", "observed", "met", "draws"]
BOARD_LABELS = {
    "official": "official board and masks",
    "regenerated": "board regenerated from its recipe, own masks (not the official ones)",
}


def board_label(board: Board) -> str:
    return BOARD_LABELS[board.source]


def read_checks(path: str) -> dict:
    """The strip sampler's self-test errors and their tolerance (written by the self-test rule)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def chain_aucs(board: Board, states: list[ChainState]) -> list[float]:
    """Mean test-mask AUC of each chain that kept sampling sweeps, alone."""
    return [mask_auroc(s.marginals(), board.labels, board.test_masks).mean for s in states if s.kept_sweeps]


def bp_row(board: Board, path: str, information: str) -> dict:
    """Belief propagation's row from its marginals file (``information``: features or labels)."""
    marginals, last_change, sweeps = read_npz(path, ("marginals", "last_change", "sweeps")).values()
    if information == "features":
        auc = mask_auroc(marginals[0], board.labels, board.test_masks)
    else:  # each mask is scored with the run that clamped its own training labels
        auc = MaskAUC.of(
            mask_auroc(marginals[m], board.labels, board.test_masks[m : m + 1]).mean for m in range(board.n_masks)
        )
    return {
        "method": "belief propagation",
        "information": information.replace("labels", "features, training labels"),
        "board": board_label(board),
        "mean_auc": auc.mean,
        "sd_auc": auc.sd,
        "min_auc": min(auc.per_mask),
        "max_auc": max(auc.per_mask),
        "chains": np.nan,
        "sweeps": int(sweeps.max()),
        "last_change": float(last_change.max()),
        "annealing_sweeps_max": np.nan,
        "valid_chains": np.nan,
        "chain_aucs": "",
    }


def strip_row(board: Board, states: list[ChainState], aucs: list[float]) -> dict:
    """The strip sampler's row: the combined chains' AUC, their sweeps and each chain's AUC alone."""
    sampled = [s for s in states if s.kept_sweeps > 0]
    auc = mask_auroc(combine_chains(sampled), board.labels, board.test_masks) if sampled else None
    return {
        "method": "strip sampler",
        "information": "features",
        "board": board_label(board),
        "mean_auc": auc.mean if auc else np.nan,
        "sd_auc": auc.sd if auc else np.nan,
        "min_auc": min(auc.per_mask) if auc else np.nan,
        "max_auc": max(auc.per_mask) if auc else np.nan,
        "chains": len(states),
        "sweeps": min(s.sample_sweeps for s in states),
        "last_change": np.nan,
        "annealing_sweeps_max": max(s.anneal_sweeps for s in states),
        "valid_chains": sum(s.phase == "sample" for s in states),
        "chain_aucs": " ".join(f"{a:.2f}" for a in aucs),
    }


def _row15(
    criterion: str, check: str, required: str, observed: float, met: bool | None, draws: np.ndarray | None = None
) -> dict:
    """A Table 15 row; ``draws``: the (chains, draws) array a chain statistic read (its size is reported)."""
    return {
        "criterion": criterion,
        "check": check,
        "required": required,
        "observed": observed,
        "met": "n/a" if met is None else ("yes" if met else "no"),
        "draws": np.nan if draws is None else int(draws.size),
    }


def _equal_length(traces: list[np.ndarray]) -> np.ndarray:
    """Per-chain traces cut to the shortest one, as (chains, draws)."""
    length = min(len(t) for t in traces)
    return np.stack([t[:length] for t in traces])


def convergence_rows(states: list[ChainState], aucs: list[float]) -> list[dict]:
    """Table 15's convergence criteria: valid chains, split R-hat and bulk ESS of the mine count and the trace,
    chain AUC spread, first against second half of the trace, between-chain SD of the marginals."""
    sampled = [s for s in states if s.kept_sweeps >= 8]
    valid, needed = sum(s.phase == "sample" for s in states), math.ceil(0.75 * len(states))
    rows = [
        _row15(
            "Valid chains",
            "chains that reach a valid board",
            f"at least {needed} of {len(states)}",
            float(valid),
            valid >= needed,
        )
    ]
    draws = {
        name: _equal_length([getattr(s, attribute) for s in sampled]) if sampled else None
        for name, attribute in (("mine count", "mine_trace"), ("trace", "trace"))
    }
    for name, chains in draws.items():
        rhat = split_rhat(chains) if chains is not None else np.nan
        met = None if chains is None else rhat <= 1.01
        rows.append(_row15("Split R-hat", name, "at most 1.01", rhat, met, chains))
    for name, chains in draws.items():
        ess = ess_bulk(chains) if chains is not None else np.nan
        met = None if chains is None else ess >= 400
        rows.append(_row15("Effective sample size", name, "at least 400", ess, met, chains))
    several = len(sampled) >= 2
    spread = auc_spread(np.asarray(aucs)) if several else np.nan
    rows.append(
        _row15(
            "Chain agreement", "spread of the chains' AUCs", "at most 0.05", spread, spread <= 0.05 if several else None
        )
    )
    halves = half_difference(draws["trace"]) if sampled else np.nan
    rows.append(
        _row15(
            "Chain agreement",
            "trace, first half against second",
            "within 0.03",
            halves,
            None if not sampled else halves <= 0.03,
            draws["trace"],
        )
    )
    node = between_chain_sd_quantile(np.stack([s.marginals() for s in sampled])) if several else np.nan
    rows.append(
        _row15(
            "Node agreement",
            "between-chain SD of marginals, 99th percentile",
            "at most 0.02",
            node,
            node <= 0.02 if several else None,
        )
    )
    return rows


def code_rows(checks: dict) -> list[dict]:
    """Table 15's code checks: the self-test errors of :func:`read_checks` against their tolerance."""
    tol = checks["tolerance"]
    return [
        _row15(
            "The code",
            "full-width strip against enumeration",
            f"within {tol:g}",
            checks["full_width"],
            checks["full_width"] <= tol,
        ),
        _row15(
            "The code",
            "single strips against their conditionals",
            f"within {tol:g}",
            checks["single_strips"],
            checks["single_strips"] <= tol,
        ),
    ]

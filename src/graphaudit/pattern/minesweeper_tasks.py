"""Rule entries of the Minesweeper baselines (Table 4, Table 15, Appendix F).

The board rule is the only one that reads labels or the construction recipe; belief propagation and the strip
chains get the revealed-count grid (and, for the labelled BP variant, one mask's training labels at a time).
The test labels enter a chain only through its diagnostic trace (Appendix F), never its probabilities.
A strip chain runs as a sequence of parts, each continuing the saved state of the previous one, so a long
chain is many short jobs and an interrupted run resumes at its last finished part.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_json, write_npz
from graphaudit.common.progress import track
from graphaudit.common.rule import RuleContext
from graphaudit.data.registry import get_spec
from graphaudit.pattern.minesweeper import Board, MaskAUC, mask_auroc, read_official, regenerate_board
from graphaudit.pattern.ms_bp import belief_propagation
from graphaudit.pattern.ms_strip import (
    ChainState,
    combine_chains,
    label_trace_weights,
    run_chain,
    self_test_full_width,
    self_test_strips,
    start_chain,
)
from graphaudit.report.tables import write_table
from graphaudit.stats.convergence import auc_spread, between_chain_sd_quantile, ess_bulk, half_difference, split_rhat

__all__ = [
    "MINESWEEPER_COLUMNS",
    "SELF_TEST_TOLERANCE",
    "TABLE15_COLUMNS",
    "board_label",
    "ms_board",
    "ms_bp",
    "ms_score",
    "ms_selftest",
    "ms_strip",
    "strip_parts",
]

log = logging.getLogger(__name__)

SELF_TEST_TOLERANCE = 1e-9  # Table 15: the code's checks must agree with enumeration within this
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
TABLE15_COLUMNS = ["criterion", "check", "required", "observed", "met"]
PROGRESS_EVERY = 100  # sweeps between progress lines of a strip part
BOARD_LABELS = {
    "official": "official board and masks",
    "regenerated": "board regenerated from its recipe, own masks (not the official ones)",
}


def board_label(board: Board) -> str:
    return BOARD_LABELS[board.source]


def strip_parts(cfg: dict) -> int:
    """Parts per strip chain: ``sweeps`` (annealing and sampling together) in jobs of ``sweeps_per_part``."""
    return -(-int(cfg["sweeps"]) // int(cfg["sweeps_per_part"]))


def ms_board(ctx: RuleContext) -> None:
    """The board: the released file (registry entry ``minesweeper``), or the recipe with own masks."""
    cfg = ctx.params["minesweeper"]
    if cfg["source"] == "official":
        files = get_spec("minesweeper").files
        board = read_official(Path(ctx.input["source"]).parent / Path(files[0]).name)
    else:
        board = regenerate_board(int(cfg["seed"]))
    board.save(ctx.output["board"])
    log.info(
        "minesweeper: %s, %d mines, %d revealed counts",
        board_label(board),
        int(board.labels.sum()),
        int((board.counts >= 0).sum()),
    )


def ms_bp(ctx: RuleContext) -> None:
    """Belief propagation from the counts (``features``) or, per mask, with its training labels (``labels``)."""
    cfg, information = ctx.params["bp"], ctx.wildcards["information"]
    board = Board.load(ctx.input["board"])
    clamps = [None] if information == "features" else [board.train_clamp(m) for m in range(board.n_masks)]
    results = [
        belief_propagation(board.count_grid(), clamp, sweeps=int(cfg["sweeps"]), damping=float(cfg["damping"]))
        for clamp in track(clamps, f"belief propagation ({information})")
    ]
    write_npz(
        ctx.output["marginals"],
        marginals=np.stack([r.marginals.ravel() for r in results]),
        last_change=np.array([r.last_change for r in results]),
        sweeps=np.array([r.sweeps for r in results]),
        contradictions=np.array([r.contradictions for r in results]),
    )


def ms_selftest(ctx: RuleContext) -> None:
    """Table 15's code checks: a full-width strip and single strips against brute-force enumeration."""
    seed = int(ctx.params["seed"])
    errors = {"full_width": self_test_full_width(seed), "single_strips": self_test_strips(seed)}
    write_json(ctx.output["checks"], {**errors, "tolerance": SELF_TEST_TOLERANCE})
    log.info("strip self-tests: full width %.2e, single strips %.2e", errors["full_width"], errors["single_strips"])


def _read_checks(path: str) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _check_self_tests(path: str) -> None:
    checks = _read_checks(path)
    failed = [k for k in ("full_width", "single_strips") if not checks[k] <= checks["tolerance"]]
    if failed:
        raise RuntimeError(
            f"strip sampler self-tests {failed} exceed {checks['tolerance']:g} ({path}): the strip "
            "update does not match enumeration, so no chain is run"
        )


def ms_strip(ctx: RuleContext) -> None:
    """One part of one strip chain: start it (part 0) or continue the previous part's state."""
    cfg, seed, part = ctx.params["strip"], int(ctx.wildcards["seed"]), int(ctx.wildcards["part"])
    _check_self_tests(ctx.input["checks"])
    board = Board.load(ctx.input["board"])
    counts = board.count_grid()
    state = (
        start_chain(counts, seed, burn_in=int(cfg["burn_in"])) if part == 0 else ChainState.load(ctx.input["previous"])
    )
    trace = label_trace_weights(board.labels.reshape(counts.shape), board.test_masks[0].reshape(counts.shape))
    todo = min(int(cfg["sweeps_per_part"]), int(cfg["sweeps"]) - part * int(cfg["sweeps_per_part"]))
    for start in track(range(0, todo, PROGRESS_EVERY), f"strip chain {seed} part {part} ({todo} sweeps)"):
        state = run_chain(state, counts, min(PROGRESS_EVERY, todo - start), trace_weights=trace)
    state.save(ctx.output["state"])
    log.info(
        "chain %d: %s phase, %d annealing and %d sampling sweeps",
        seed,
        state.phase,
        state.anneal_sweeps,
        state.sample_sweeps,
    )


def _bp_row(board: Board, path: str, information: str) -> dict:
    with np.load(path, allow_pickle=False) as data:
        marginals, last_change, sweeps = data["marginals"], data["last_change"], data["sweeps"]
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


def _strip_row(board: Board, states: list[ChainState], chain_aucs: list[float]) -> dict:
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
        "chain_aucs": " ".join(f"{a:.2f}" for a in chain_aucs),
    }


def _row15(criterion: str, check: str, required: str, observed: float, met: bool | None) -> dict:
    return {
        "criterion": criterion,
        "check": check,
        "required": required,
        "observed": observed,
        "met": "n/a" if met is None else ("yes" if met else "no"),
    }


def _equal_length(traces: list[np.ndarray]) -> np.ndarray:
    """Per-chain traces cut to the shortest one, as (chains, draws)."""
    length = min(len(t) for t in traces)
    return np.stack([t[:length] for t in traces])


def _convergence_rows(states: list[ChainState], chain_aucs: list[float]) -> list[dict]:
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
        rows.append(_row15("Split R-hat", name, "at most 1.01", rhat, None if chains is None else rhat <= 1.01))
    for name, chains in draws.items():
        ess = ess_bulk(chains) if chains is not None else np.nan
        rows.append(_row15("Effective sample size", name, "at least 400", ess, None if chains is None else ess >= 400))
    several = len(sampled) >= 2
    spread = auc_spread(np.asarray(chain_aucs)) if several else np.nan
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


def _code_rows(path: str) -> list[dict]:
    checks = _read_checks(path)
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


def ms_score(ctx: RuleContext) -> None:
    """``minesweeper.csv`` (Table 4's Minesweeper rows, with diagnostics), per-mask AUCs and Table 15."""
    board = Board.load(ctx.input["board"])
    states = [ChainState.load(p) for p in ctx.input_list("chains")]
    chain_aucs = [mask_auroc(s.marginals(), board.labels, board.test_masks).mean for s in states if s.kept_sweeps]
    rows = [
        _bp_row(board, ctx.input["bp_features"], "features"),
        _bp_row(board, ctx.input["bp_labels"], "labels"),
        _strip_row(board, states, chain_aucs),
    ]
    write_table(
        pd.DataFrame(rows, columns=MINESWEEPER_COLUMNS),
        ctx.output["table"],
        title=f"Minesweeper generator baselines (Table 4; {board_label(board)})",
    )
    table15 = _code_rows(ctx.input["checks"]) + _convergence_rows(states, chain_aucs)
    write_table(
        pd.DataFrame(table15, columns=TABLE15_COLUMNS),
        ctx.output["table15"],
        title=f"Convergence criteria of the strip sampler (Table 15; {board_label(board)})",
    )
    for row in rows:
        log.info("%s (%s): %.2f +- %.2f", row["method"], row["information"], row["mean_auc"], row["sd_auc"])

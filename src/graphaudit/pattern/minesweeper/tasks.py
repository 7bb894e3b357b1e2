"""Rule entries of the Minesweeper baselines up to the tables (Table 4, Table 15, Appendix F).

The board rule is the only one that reads labels or the construction recipe; belief propagation and the strip
chains get the revealed-count grid (and, for the labelled BP variant, one mask's training labels at a time).
The test labels enter a chain only through its diagnostic trace (Appendix F), never its probabilities.
A strip chain runs as a sequence of parts, each continuing the saved state of the previous one, so a long
chain is many short jobs and an interrupted run resumes at its last finished part.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from graphaudit.common.atomic import write_json, write_npz
from graphaudit.common.progress import track
from graphaudit.common.rule import RuleContext
from graphaudit.data.registry import get_spec
from graphaudit.pattern.minesweeper.board import Board, read_official, regenerate_board
from graphaudit.pattern.minesweeper.bp import belief_propagation
from graphaudit.pattern.minesweeper.scoring import board_label, read_checks
from graphaudit.pattern.minesweeper.strip import (
    ChainState,
    label_trace_weights,
    run_chain,
    self_test_full_width,
    self_test_strips,
    start_chain,
)
from graphaudit.pattern.settings import BPSettings, StripChain

__all__ = [
    "SELF_TEST_TOLERANCE",
    "minesweeper_board",
    "minesweeper_bp",
    "minesweeper_selftest",
    "minesweeper_strip",
]

log = logging.getLogger(__name__)

SELF_TEST_TOLERANCE = 1e-9  # Table 15: the code's checks must agree with enumeration within this
PROGRESS_EVERY = 100  # sweeps between progress lines of a strip part


def minesweeper_board(ctx: RuleContext) -> None:
    """The board: the released file (registry entry ``minesweeper``), or the recipe with own masks."""
    if ctx.params["source"] == "official":
        files = get_spec("minesweeper").files
        board = read_official(Path(ctx.input["source"]).parent / Path(files[0]).name)
    else:
        board = regenerate_board(ctx.params["seed"])
    board.save(ctx.output["board"])
    log.info(
        "minesweeper: %s, %d mines, %d revealed counts",
        board_label(board),
        int(board.labels.sum()),
        int((board.counts >= 0).sum()),
    )


def minesweeper_bp(ctx: RuleContext) -> None:
    """Belief propagation from the counts (``features``) or, per mask, with its training labels (``labels``)."""
    settings, information = ctx.settings("bp", BPSettings), ctx.wildcards["information"]
    board = Board.load(ctx.input["board"])
    clamps = [None] if information == "features" else [board.train_clamp(m) for m in range(board.n_masks)]
    results = [
        belief_propagation(board.count_grid(), clamp, sweeps=settings.sweeps, damping=settings.damping)
        for clamp in track(clamps, f"belief propagation ({information})")
    ]
    write_npz(
        ctx.output["marginals"],
        marginals=np.stack([r.marginals.ravel() for r in results]),
        last_change=np.array([r.last_change for r in results]),
        sweeps=np.array([r.sweeps for r in results]),
        contradictions=np.array([r.contradictions for r in results]),
    )


def minesweeper_selftest(ctx: RuleContext) -> None:
    """Table 15's code checks: a full-width strip and single strips against brute-force enumeration."""
    seed = ctx.params["seed"]
    errors = {"full_width": self_test_full_width(seed), "single_strips": self_test_strips(seed)}
    write_json(ctx.output["checks"], {**errors, "tolerance": SELF_TEST_TOLERANCE})
    log.info("strip self-tests: full width %.2e, single strips %.2e", errors["full_width"], errors["single_strips"])


def _check_self_tests(path: str) -> None:
    checks = read_checks(path)
    failed = [k for k in ("full_width", "single_strips") if not checks[k] <= checks["tolerance"]]
    if failed:
        raise RuntimeError(
            f"strip sampler self-tests {failed} exceed {checks['tolerance']:g} ({path}): the strip "
            "update does not match enumeration, so no chain is run"
        )


def minesweeper_strip(ctx: RuleContext) -> None:
    """One part of one strip chain: start it (part 0) or continue the previous part's state."""
    chain, seed, part = ctx.settings("strip", StripChain), int(ctx.wildcards["seed"]), int(ctx.wildcards["part"])
    _check_self_tests(ctx.input["checks"])
    board = Board.load(ctx.input["board"])
    counts = board.count_grid()
    state = start_chain(counts, seed, burn_in=chain.burn_in) if part == 0 else ChainState.load(ctx.input["previous"])
    trace = label_trace_weights(board.labels.reshape(counts.shape), board.test_masks[0].reshape(counts.shape))
    todo = min(chain.sweeps_per_part, chain.sweeps - part * chain.sweeps_per_part)
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

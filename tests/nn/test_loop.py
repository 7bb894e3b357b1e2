"""The shared epoch loop: RNG capture and isolation, checkpoints tied to a run hash, the driver's checkpoint and
stop decisions, the caps."""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from graphaudit.nn.loop import (
    CapExceeded,
    Caps,
    Checkpoint,
    EpochEnd,
    MemoryMeter,
    capture_rng,
    preserved_rng,
    preserved_torch_rng,
    restore_rng,
    run_epochs,
    seed_everything,
    wall_clock_limit,
)


def draws() -> tuple[float, float, float]:
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def test_restored_rng_repeats_every_draw() -> None:
    seed_everything(3)
    generator = torch.Generator().manual_seed(1)
    state = capture_rng(generator)
    first = (*draws(), float(torch.rand(1, generator=generator)))
    restore_rng(state, generator)
    assert (*draws(), float(torch.rand(1, generator=generator))) == first


def test_preserved_rng_leaves_no_trace() -> None:
    seed_everything(3)
    expected = draws()
    seed_everything(3)
    with preserved_rng():
        draws()
    assert draws() == expected


class Counter:
    """A stateful part: the epochs it has seen."""

    def __init__(self) -> None:
        self.value = 0

    def state_dict(self) -> dict:
        return {"value": self.value}

    def load_state_dict(self, state: dict) -> None:
        self.value = state["value"]


def test_a_checkpoint_restores_its_parts_and_refuses_another_hash(tmp_path: Path) -> None:
    counter = Counter()
    counter.value = 5
    Checkpoint(tmp_path / "c.pt", "h1", {"counter": counter}).save(epoch=5, wall_s=2.5)
    restored = Counter()
    assert Checkpoint(tmp_path / "c.pt", "h1", {"counter": restored}).restore() == (5, 2.5) and restored.value == 5
    other = Checkpoint(tmp_path / "c.pt", "h2", {"counter": Counter()})
    with pytest.raises(ValueError, match="another configuration"):
        other.restore()
    assert other.discard_if_stale() and not (tmp_path / "c.pt").exists()


def test_the_driver_saves_on_request_and_at_the_pause_and_stops_when_told(tmp_path: Path) -> None:
    counter, saved = Counter(), []

    class Recording(Checkpoint):
        def save(self, epoch: int, wall_s: float) -> None:
            saved.append(epoch)

    def epoch_fn(epoch: int, clock) -> EpochEnd:
        counter.value = epoch
        return EpochEnd(checkpoint=epoch % 3 == 0, stop=epoch == 8)

    checkpoint = Recording(tmp_path / "c.pt", "h", {"counter": counter})
    paused = run_epochs(
        epoch_fn, checkpoint, start=0, wall_s=0.0, num_epoch=20, checkpoint_every_s=1e9, stop_after_epoch=4
    )
    assert (paused.epoch, paused.stopped, saved) == (4, False, [3, 4])
    end = run_epochs(epoch_fn, checkpoint, start=4, wall_s=paused.wall_s, num_epoch=20, checkpoint_every_s=1e9)
    assert (end.epoch, end.stopped, saved) == (8, True, [3, 4, 6]) and end.wall_s >= paused.wall_s


def test_the_driver_saves_when_the_interval_has_passed(tmp_path: Path) -> None:
    saved = []

    class Recording(Checkpoint):
        def save(self, epoch: int, wall_s: float) -> None:
            saved.append(epoch)

    run_epochs(
        lambda epoch, clock: EpochEnd(),
        Recording(tmp_path / "c.pt", "h", {}),
        start=0,
        wall_s=0.0,
        num_epoch=3,
        checkpoint_every_s=0.0,
    )
    assert saved == [1, 2, 3]


class FakeMeter(MemoryMeter):
    """A CPU meter whose peak the test sets."""

    def __init__(self, peaks: list[float]) -> None:
        super().__init__(torch.device("cpu"))
        self.peaks = peaks

    def peak_mb(self) -> float:
        return self.peaks.pop(0)


def test_the_memory_cap_counts_on_the_cpu_only_a_peak_the_run_raised() -> None:
    check = Caps(memory_mb=100.0).start(FakeMeter([150.0, 150.0, 180.0]))  # the job was at 150 MiB already
    check(1, 0.0)  # still 150: not this run's doing
    with pytest.raises(CapExceeded, match="memory cap of 100 MiB exceeded at epoch 2"):
        check(2, 0.0)


def test_the_wall_clock_cap_is_checked_after_each_epoch() -> None:
    check = Caps(wall_s=10.0).start(FakeMeter([0.0]))
    check(1, 9.0)
    with pytest.raises(CapExceeded, match="wall-clock cap of 10 s exceeded at epoch 2"):
        check(2, 10.5)


def test_the_wall_clock_limit_interrupts_a_long_step() -> None:
    with pytest.raises(CapExceeded, match="interrupted"):
        with wall_clock_limit(0.05, "trial"):
            time.sleep(5)
    with wall_clock_limit(None):
        pass


def test_preserved_torch_rng_leaves_no_trace_on_torch() -> None:
    seed_everything(5)
    expected = float(torch.rand(1))
    seed_everything(5)
    with preserved_torch_rng():
        torch.rand(3)
    assert float(torch.rand(1)) == expected

"""The GPU path check (``graphaudit gpu-check``): every trained model of the suite, a few epochs on the CPU and on
CUDA from the same seed, per-epoch losses compared within a stated tolerance.

A :class:`Case` is one model on one small input, trained through the library's own entry point (the trainer a
rule runs) and returning its loss sequences by name (``train``; ``val`` where the run has a validation loss). The
studies build their cases (:mod:`graphaudit.glad.device_cases`, :mod:`graphaudit.nodeground.device_cases`); this
module runs them on both devices, compares, and writes ``report.json`` and ``report.md``.

**Tolerance.** At every epoch, ``|cuda - cpu| <= atol + rtol * |cpu|`` with ``rtol = 1e-3`` and ``atol = 1e-4``,
the CPU run the reference. The two devices run the same float32 arithmetic in a different order: GPU reductions
(sums, means, matrix products, cuBLAS split-K) are tree-shaped where the CPU's are mostly sequential, and PyG's
scatter and index-add on CUDA use atomics, so even two CUDA runs may sum in different orders. One forward pass
then differs by about ``n * 2^-24`` relative (n the length of a reduction: 1e-6 to 1e-5 here), and a few
optimiser steps carry that into the weights (Adam divides by the gradient's own scale, so a component whose
gradient is rounding noise may move by up to ``2 * lr`` instead of 0). After a handful of epochs the losses should
agree to about 1e-5 relative; ``rtol`` 1e-3 leaves two orders of magnitude of margin while any real fault of the GPU
path (a tensor left on the wrong device, a dtype or reduction that differs, an op that is wrong on CUDA, an RNG
stream that moved) changes a loss by far more; ``atol`` covers losses near zero. Longer runs would need a looser
bound, since training amplifies differences: the check is meant for a few epochs.

**Randomness.** A seed gives the same stream on the CPU for every run, but CUDA's generator (Philox) draws other
numbers than the CPU's (Mersenne Twister) from the same seed. So the cases switch off stochastic regularisers
(every dropout rate to 0: ``overrides`` in the report); what else the models draw already comes from CPU generators
(initial weights, built before the move to the device; the loaders' shuffling; Python's and numpy's RNGs). A
model whose training itself draws from the device's generator (``device_rng``: NodeFormer's Gumbel noise, GraphCL's
augmentations) cannot follow the CPU trajectory; it still trains on both devices, and must give finite losses there
(``finite only`` in the report).

Each case's peak CUDA memory is the peak allocation during its CUDA run (:class:`~graphaudit.nn.loop.MemoryMeter`).
The report is rewritten after every case, so a run cut short keeps what it finished (``complete`` false).
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata as md
import math
import platform
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from graphaudit.common.atomic import write_json, write_text
from graphaudit.common.records import environment_versions
from graphaudit.nn.loop import MemoryMeter

__all__ = [
    "DROPOUT_KEYS",
    "PASSED",
    "Case",
    "DeviceRun",
    "Losses",
    "Tolerance",
    "candidate_device",
    "case_result",
    "compare_losses",
    "dropout_overrides",
    "environment",
    "render_markdown",
    "run_check",
    "write_report",
]

Losses = dict[str, list[float]]

PASSED = ("match", "finite only", "cpu only")
"""Statuses that pass; every other one (``mismatch``, ``non-finite``, ``error``) makes the check fail."""
DROPOUT_KEYS = ("dprate",)
"""Dropout rates whose name does not end in ``dropout`` (GPRGNN's propagation dropout)."""
REPORT_JSON, REPORT_MD = "report.json", "report.md"
CPU = torch.device("cpu")


@dataclass(frozen=True)
class Tolerance:
    """``|candidate - reference| <= atol + rtol * |reference|`` at every point (numpy's ``isclose``)."""

    rtol: float = 1e-3
    atol: float = 1e-4

    def allowed(self, reference: float) -> float:
        return self.atol + self.rtol * abs(reference)


@dataclass(frozen=True)
class Case:
    """One model on one small input. ``train(device)`` trains it through the library's entry point from a fixed
    seed and returns its per-epoch losses by name. ``overrides``: the options changed for the check (dropout off);
    ``device_rng``: why its training draws from the device's own generator (then compared for finiteness only)."""

    name: str
    train: Callable[[torch.device], Losses]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    device_rng: str | None = None


@dataclass
class DeviceRun:
    """One case on one device: its losses, or the error that stopped it."""

    device: str
    losses: Losses | None
    seconds: float
    peak_mb: float | None
    memory: str
    error: str | None = None
    traceback: str | None = None


def dropout_overrides(options: Mapping[str, Any]) -> dict[str, float]:
    """Every nonzero dropout rate among ``options`` (a name ending in ``dropout``, or one of :data:`DROPOUT_KEYS`)
    set to 0: the options a case changes so that its training draws nothing from the device's generator."""
    return {
        name: 0.0
        for name, value in options.items()
        if (name.endswith("dropout") or name in DROPOUT_KEYS) and value != 0
    }


def candidate_device(requested: str) -> tuple[torch.device | None, str | None]:
    """The CUDA device to check against the CPU, or ``None`` and the message saying why the CUDA half is skipped."""
    device = torch.device(requested)
    if device.type != "cuda":
        raise ValueError(f"the device to check is a CUDA device (cuda, cuda:1), got {requested!r}")
    if not torch.cuda.is_available():
        return None, "no CUDA device: torch sees none (torch.cuda.is_available() is False); the CUDA half is skipped"
    if device.index is not None and device.index >= torch.cuda.device_count():
        return None, f"no CUDA device {requested}: torch sees {torch.cuda.device_count()}; the CUDA half is skipped"
    return device, None


def environment(device: torch.device | None) -> dict[str, Any]:
    """Versions (Python, torch, CUDA, cuDNN, torch_geometric, ...), the GPU and the float32 settings that matter."""
    versions = environment_versions()
    for package in ("torch_scatter", "torch_sparse", "pyg_lib"):
        try:
            versions[package] = md.version(package.replace("_", "-"))
        except md.PackageNotFoundError:
            continue
    out: dict[str, Any] = {
        "versions": versions,
        "platform": platform.platform(),
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "cuda_available": torch.cuda.is_available(),
        "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "gpu": None,
        "cpu_threads": torch.get_num_threads(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
    }
    if device is not None and device.type == "cuda":
        properties = torch.cuda.get_device_properties(device)
        out["gpu"] = {
            "device": str(device),
            "name": properties.name,
            "capability": f"{properties.major}.{properties.minor}",
            "memory_gib": round(properties.total_memory / 2**30, 1),
        }
    return out


def compare_losses(
    reference: Mapping[str, Sequence[float]], candidate: Mapping[str, Sequence[float]], tolerance: Tolerance
) -> tuple[list[str], float]:
    """(problems, worst share of the tolerance used) of a candidate run against the reference run.

    A problem per loss sequence: another set of names, another length, a non-finite value, or the first epoch
    outside the tolerance. The share is ``max |candidate - reference| / allowed`` over every point compared
    (at most 1 when they agree; ``inf`` where a value is not finite)."""
    problems: list[str] = []
    worst = 0.0
    if set(reference) != set(candidate):
        problems.append(f"loss names differ: {sorted(reference)} on the CPU, {sorted(candidate)} on CUDA")
    for name in sorted(set(reference) & set(candidate)):
        ref, got = list(reference[name]), list(candidate[name])
        if len(ref) != len(got):
            problems.append(f"{name}: {len(ref)} epochs on the CPU, {len(got)} on CUDA")
            continue
        for epoch, (a, b) in enumerate(zip(ref, got), start=1):
            if not (math.isfinite(a) and math.isfinite(b)):
                problems.append(f"{name} loss at epoch {epoch}: not finite ({a!r} on the CPU, {b!r} on CUDA)")
                worst = math.inf
                break
            share = abs(b - a) / tolerance.allowed(a)
            worst = max(worst, share)
            if share > 1.0:
                problems.append(
                    f"{name} loss at epoch {epoch}: {b!r} on CUDA, {a!r} on the CPU (|diff| {abs(b - a):.3g} > "
                    f"{tolerance.allowed(a):.3g} = atol + rtol * |cpu|)"
                )
                break
    return problems, worst


def _nonfinite(losses: Losses) -> list[str]:
    return [
        f"{name} loss at epoch {epoch} is {value!r}"
        for name, values in sorted(losses.items())
        for epoch, value in enumerate(values, start=1)
        if not math.isfinite(value)
    ][:1]


def case_result(case: Case, cpu: DeviceRun, cuda: DeviceRun | None, tolerance: Tolerance) -> dict[str, Any]:
    """The report entry of one case: its status, the problems, the worst share of the tolerance, both runs."""
    problems: list[str] = []
    worst: float | None = None
    runs = [run for run in (cpu, cuda) if run is not None]
    errors = [f"{run.device}: {run.error}" for run in runs if run.error is not None]
    if errors:
        status, problems = "error", errors
    elif any(_nonfinite(run.losses) for run in runs):
        status, problems = "non-finite", [f"{run.device}: {p}" for run in runs for p in _nonfinite(run.losses)]
    elif cuda is None:
        status = "cpu only"
    elif case.device_rng is not None:
        status = "finite only"
    else:
        problems, worst = compare_losses(cpu.losses, cuda.losses, tolerance)
        status = "mismatch" if problems else "match"
    return {
        "name": case.name,
        "status": status,
        "problems": problems,
        "worst_share_of_tolerance": worst,
        "overrides": dict(case.overrides),
        "device_rng": case.device_rng,
        "cpu": asdict(cpu),
        "cuda": None if cuda is None else asdict(cuda),
    }


def _run_on(case: Case, device: torch.device) -> DeviceRun:
    """Train the case on ``device``; an exception becomes the run's error (with its traceback), not the check's."""
    meter = MemoryMeter(device)
    meter.reset()
    began = time.perf_counter()
    losses, error, trace = None, None, None
    try:
        losses = {name: [float(v) for v in values] for name, values in case.train(device).items()}
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    except Exception as exc:  # any failure of one model is that model's result, not the check's
        error, trace = f"{type(exc).__name__}: {exc}", traceback.format_exc()
    return DeviceRun(str(device), losses, time.perf_counter() - began, meter.peak_mb(), meter.kind, error, trace)


def run_check(
    cases: Sequence[Case],
    out_dir: str | Path,
    candidate: torch.device | None,
    *,
    skipped: str | None = None,
    tolerance: Tolerance = Tolerance(),
    context: Mapping[str, Any] | None = None,
    reference: torch.device = CPU,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Train every case on ``reference`` (the CPU) and on ``candidate`` (``None``: the CPU half only, ``skipped``
    says why), compare, and write the report into ``out_dir`` after every case; the final report.

    ``context`` adds fields to the report (the input, the epochs, what was left out); ``progress`` is called
    with each case's entry. ``reference`` is the CPU except in tests (two CPU runs must agree exactly)."""
    report: dict[str, Any] = {
        "command": "graphaudit gpu-check",
        "created_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "complete": False,
        "tolerance": {**asdict(tolerance), "rule": "|cuda - cpu| <= atol + rtol * |cpu| at every epoch"},
        "reference_device": str(reference),
        "candidate_device": None if candidate is None else str(candidate),
        "cuda_skipped": skipped,
        "environment": environment(candidate),
        "input": dict(context or {}),
        "cases": [],
    }
    for case in cases:
        cpu = _run_on(case, reference)
        cuda = None if candidate is None else _run_on(case, candidate)
        entry = case_result(case, cpu, cuda, tolerance)
        report["cases"].append(entry)
        _summarise(report)
        write_report(report, out_dir)
        if progress is not None:
            progress(entry)
    report["complete"] = True
    _summarise(report)
    write_report(report, out_dir)
    return report


def _summarise(report: dict[str, Any]) -> None:
    statuses = [c["status"] for c in report["cases"]]
    report["summary"] = {status: statuses.count(status) for status in sorted(set(statuses))}
    report["ok"] = bool(statuses) and all(s in PASSED for s in statuses)
    peaks = [c["cuda"]["peak_mb"] for c in report["cases"] if c["cuda"] is not None]
    report["peak_cuda_mb"] = max(peaks, default=None)


def write_report(report: Mapping[str, Any], out_dir: str | Path) -> tuple[Path, Path]:
    """``report.json`` and its Markdown twin ``report.md`` in ``out_dir`` (each written atomically)."""
    out = Path(out_dir)
    write_json(out / REPORT_JSON, report)
    write_text(out / REPORT_MD, render_markdown(report))
    return out / REPORT_JSON, out / REPORT_MD


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value).replace("|", "\\|")


def _sequence(losses: Losses | None, name: str) -> str:
    if not losses or name not in losses:
        return "-"
    return ", ".join(f"{v:.7g}" for v in losses[name])


def _gpu(gpu: Mapping[str, Any] | None) -> str:
    if gpu is None:
        return "-"
    return f"{gpu['name']} ({gpu['device']}, compute capability {gpu['capability']}, {gpu['memory_gib']} GiB)"


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown: the verdict, the set-up, one row per case, the problems, then every loss sequence."""
    lines = [*_summary_lines(report), *_case_lines(report), *_problem_lines(report), *_loss_lines(report)]
    return "\n".join(lines).rstrip() + "\n"


def _summary_lines(report: Mapping[str, Any]) -> list[str]:
    env, tol = report["environment"], report["tolerance"]
    verdict = "PASS" if report.get("ok") else "FAIL"
    cut = "" if report["complete"] else " (incomplete: the run stopped before its last case)"
    lines = ["# GPU check", "", f"**{verdict}**{cut}: " + ", ".join(f"{n} {s}" for s, n in report["summary"].items())]
    if report["cuda_skipped"]:
        lines += ["", f"> {report['cuda_skipped']}: only the CPU half ran, nothing was compared."]
    rows = {
        "devices": f"{report['reference_device']} (reference) vs {report['candidate_device'] or 'none'}",
        "GPU": _gpu(env["gpu"]),
        "versions": ", ".join(f"{k} {v}" for k, v in env["versions"].items()),
        "CUDA / cuDNN": f"{env['cuda'] or '-'} / {env['cudnn'] or '-'}",
        "float32": f"matmul precision {env['float32_matmul_precision']}, TF32 matmul {env['cuda_matmul_allow_tf32']}, "
        f"TF32 cuDNN {env['cudnn_allow_tf32']}",
        "tolerance": f"{tol['rule']}, rtol {tol['rtol']:g}, atol {tol['atol']:g}",
        "peak CUDA memory": f"{_cell(report.get('peak_cuda_mb'))} MiB (the largest case)",
        **report["input"],
        "created": report["created_utc"],
    }
    return [*lines, "", "| | |", "|---|---|", *(f"| {key} | {_cell(value)} |" for key, value in rows.items())]


def _case_lines(report: Mapping[str, Any]) -> list[str]:
    lines = [
        "",
        "## Cases",
        "",
        "| case | status | share of tolerance | CPU s | CUDA s | peak CUDA MiB | overrides | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case in report["cases"]:
        cuda = case["cuda"] or {}
        overrides = ", ".join(f"{k}={v}" for k, v in case["overrides"].items()) or None
        cells = [case["name"], case["status"], case["worst_share_of_tolerance"], case["cpu"]["seconds"]]
        cells += [cuda.get("seconds"), cuda.get("peak_mb"), overrides, case["device_rng"]]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def _problem_lines(report: Mapping[str, Any]) -> list[str]:
    failing = [case for case in report["cases"] if case["problems"]]
    lines = ["", "## Problems", ""] if failing else []
    for case in failing:
        traces = [run["traceback"] for run in (case["cpu"], case["cuda"]) if run and run["traceback"]]
        lines += [f"### {case['name']} ({case['status']})", "", "```", *case["problems"], *traces, "```", ""]
    return lines


def _loss_lines(report: Mapping[str, Any]) -> list[str]:
    lines = ["", "## Loss sequences (per epoch)", "", "| case | loss | CPU | CUDA |", "|---|---|---|---|"]
    for case in report["cases"]:
        cpu, cuda = case["cpu"]["losses"], (case["cuda"] or {}).get("losses")
        for name in sorted(set(cpu or {}) | set(cuda or {})):
            lines.append(f"| {case['name']} | {name} | {_sequence(cpu, name)} | {_sequence(cuda, name)} |")
    return lines

"""The GPU path check: the loss comparison and its tolerance edges, the statuses, the report, the CUDA-skip path, and
real models of both studies trained twice on the CPU through the check's own code path."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from graphaudit import cli
from graphaudit.glad import device_cases as glad_cases
from graphaudit.nn.device_check import (
    Case,
    DeviceRun,
    Tolerance,
    candidate_device,
    case_result,
    compare_losses,
    dropout_overrides,
    run_check,
)
from graphaudit.nodeground import device_cases as node_cases

ROOT = Path(__file__).resolve().parents[2]
GLAD_CATALOGUE = ROOT / "config/glad/detectors.yaml"
NODE_CATALOGUE = ROOT / "config/nodeground/methods.yaml"
EXACT = Tolerance(rtol=2.0**-10, atol=2.0**-12)  # powers of two: the bound and the test values are exact floats
CPU = torch.device("cpu")


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread: None) -> None:
    """One torch thread, as ``graphaudit gpu-check`` runs by default (tests/conftest.py)."""


def run(device: str, losses: dict[str, list[float]] | None, error: str | None = None) -> DeviceRun:
    return DeviceRun(device, losses, 0.1, 1.0, "test", error, None if error is None else "Traceback ...")


def fixed(losses: dict[str, list[float]]) -> Case:
    return Case("toy/fixed", lambda device: losses)


def failing(device: torch.device) -> dict[str, list[float]]:
    raise RuntimeError("the toy model broke")


# ---- the comparison -----------------------------------------------------------------------------------


def test_equal_sequences_pass_with_nothing_used() -> None:
    losses = {"train": [3.0, 2.5, 2.25], "val": [4.0, 3.5, 3.0]}
    assert compare_losses(losses, losses, Tolerance()) == ([], 0.0)


def test_a_hand_made_mismatch_fails_naming_the_loss_and_the_epoch() -> None:
    problems, worst = compare_losses({"train": [1.0, 0.9, 0.8]}, {"train": [1.0, 0.9, 0.85]}, Tolerance())
    assert len(problems) == 1 and problems[0].startswith("train loss at epoch 3: 0.85 on CUDA, 0.8 on the CPU")
    assert worst == pytest.approx(0.05 / (1e-4 + 1e-3 * 0.8))


def test_the_bound_itself_passes_and_anything_beyond_it_fails() -> None:
    bound = EXACT.atol + EXACT.rtol * 1.0
    at, beyond = 1.0 + bound, math.nextafter(1.0 + bound, 2.0)
    assert compare_losses({"train": [1.0]}, {"train": [at]}, EXACT) == ([], 1.0)
    assert compare_losses({"train": [1.0]}, {"train": [1.0 - bound]}, EXACT) == ([], 1.0)
    problems, worst = compare_losses({"train": [1.0]}, {"train": [beyond]}, EXACT)
    assert problems and worst > 1.0


def test_the_relative_part_follows_the_cpu_value_and_atol_covers_zero() -> None:
    assert compare_losses({"train": [1024.0]}, {"train": [1024.0 + 1.0 + EXACT.atol]}, EXACT)[0] == []
    assert compare_losses({"train": [1024.0]}, {"train": [1024.0 + 2.0]}, EXACT)[0]
    assert compare_losses({"train": [0.0]}, {"train": [EXACT.atol]}, EXACT)[0] == []
    assert compare_losses({"train": [0.0]}, {"train": [2 * EXACT.atol]}, EXACT)[0]


def test_lengths_names_and_non_finite_values_are_problems() -> None:
    assert "2 epochs on the CPU, 3 on CUDA" in compare_losses({"t": [1, 2]}, {"t": [1, 2, 3]}, EXACT)[0][0]
    assert "loss names differ" in compare_losses({"train": [1]}, {"train": [1], "val": [1]}, EXACT)[0][0]
    problems, worst = compare_losses({"train": [1.0, math.nan]}, {"train": [1.0, math.nan]}, EXACT)
    assert "not finite" in problems[0] and worst == math.inf


def test_dropout_rates_are_switched_off_and_nothing_else() -> None:
    options = {"dropout": 0.5, "attention_dropout": 0.6, "dprate": 0.5, "gcn_dropout": 0.0, "lr": 0.5, "K": 10}
    assert dropout_overrides(options) == {"dropout": 0.0, "attention_dropout": 0.0, "dprate": 0.0}


# ---- statuses -----------------------------------------------------------------------------------------


def test_statuses_of_a_case() -> None:
    cpu = run("cpu", {"train": [1.0, 0.5]})
    same, off = run("cuda:0", {"train": [1.0, 0.5000001]}), run("cuda:0", {"train": [1.0, 0.6]})
    assert case_result(fixed({}), cpu, same, Tolerance())["status"] == "match"
    assert case_result(fixed({}), cpu, off, Tolerance())["status"] == "mismatch"
    assert case_result(fixed({}), cpu, None, Tolerance())["status"] == "cpu only"
    noisy = Case("toy/noisy", fixed({}).train, device_rng="draws on the device")
    assert case_result(noisy, cpu, off, Tolerance())["status"] == "finite only"
    assert case_result(noisy, cpu, run("cuda:0", {"train": [1.0, math.inf]}), Tolerance())["status"] == "non-finite"
    broken = case_result(fixed({}), cpu, run("cuda:0", None, "RuntimeError: CUDA error"), Tolerance())
    assert broken["status"] == "error" and broken["problems"] == ["cuda:0: RuntimeError: CUDA error"]


# ---- the CUDA-skip path and the report ----------------------------------------------------------------


def test_no_cuda_device_skips_the_cuda_half_with_one_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    device, message = candidate_device("cuda")
    assert device is None and message.startswith("no CUDA device:") and "skipped" in message
    with pytest.raises(ValueError, match="CUDA device"):
        candidate_device("cpu")


def test_the_cpu_half_alone_passes_and_reports_everything(tmp_path: Path) -> None:
    skipped = "no CUDA device: none here; the CUDA half is skipped"
    cases = [
        fixed({"train": [2.0, 1.5], "val": [3.0, 2.0]}),
        Case("toy/dropout", fixed({"train": [1.0]}).train, {"dropout": 0.0}),
    ]
    report = run_check(cases, tmp_path, None, skipped=skipped, context={"epochs": 2})
    assert report["ok"] and report["complete"] and report["summary"] == {"cpu only": 2}
    saved = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert saved["cuda_skipped"] == skipped and saved["candidate_device"] is None
    assert saved["tolerance"] == {
        "rtol": 1e-3,
        "atol": 1e-4,
        "rule": "|cuda - cpu| <= atol + rtol * |cpu| at every epoch",
    }
    environment = saved["environment"]
    assert {"python", "torch", "torch_geometric"} <= set(environment["versions"])
    assert {"cuda", "cudnn", "gpu", "float32_matmul_precision"} <= set(environment)
    assert saved["input"] == {"epochs": 2}
    first = saved["cases"][0]
    assert first["cpu"]["losses"] == {"train": [2.0, 1.5], "val": [3.0, 2.0]} and first["cuda"] is None
    assert saved["cases"][1]["overrides"] == {"dropout": 0.0}
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# GPU check\n\n**PASS**: 2 cpu only") and skipped in markdown
    assert "| toy/fixed | val | 3, 2 | - |" in markdown and "dropout=0.0" in markdown
    assert "\\|cuda - cpu\\|" in markdown  # the rule's bars do not break the table


def test_an_exception_or_a_non_finite_loss_fails_the_check_and_the_others_still_run(tmp_path: Path) -> None:
    cases = [Case("toy/broken", failing), fixed({"train": [math.nan]}), fixed({"train": [1.0]})]
    report = run_check(cases, tmp_path, None, skipped="no CUDA device: test")
    assert not report["ok"] and [c["status"] for c in report["cases"]] == ["error", "non-finite", "cpu only"]
    assert report["cases"][0]["problems"] == ["cpu: RuntimeError: the toy model broke"]
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "**FAIL**" in markdown and "## Problems" in markdown and "Traceback" in markdown


def test_a_mismatch_against_the_candidate_device_fails(tmp_path: Path) -> None:
    calls = []

    def drifting(device: torch.device) -> dict[str, list[float]]:
        calls.append(device)
        return {"train": [1.0, 0.5 + 0.01 * (len(calls) - 1)]}

    report = run_check([Case("toy/drifting", drifting)], tmp_path, CPU)
    assert not report["ok"] and report["cases"][0]["status"] == "mismatch" and calls == [CPU, CPU]
    assert report["cases"][0]["cuda"]["losses"] == {"train": [1.0, 0.51]}


# ---- real models through the check's code path -------------------------------------------------------


def test_every_model_of_the_suite_has_a_case() -> None:
    glad = glad_cases.device_cases(GLAD_CATALOGUE, 4, glad_cases.glad_input(), tree=None)
    assert len(glad) == 12 and all(c.name.endswith("/own") for c in glad)
    by_name = {c.name: c for c in glad}
    assert by_name["glad/GLocalKD/own"].overrides == {"predictor_dropout": 0.0}
    assert by_name["glad/GraphCL-IF/own"].device_rng and not by_name["glad/OCGIN/own"].device_rng
    graph, splits = node_cases.node_input()
    node = {c.name: c for c in node_cases.device_cases(NODE_CATALOGUE, 4, graph, splits)}
    assert len(node) == 15 and node["nodeground/NodeFormer"].device_rng
    assert node["nodeground/Polynormer"].overrides["local_epochs"] == 2
    assert node["nodeground/GPRGNN"].overrides == {"dropout": 0.0, "dprate": 0.0}


def test_real_models_trained_twice_on_the_cpu_give_identical_losses(tmp_path: Path) -> None:
    glad = glad_cases.device_cases(GLAD_CATALOGUE, 3, glad_cases.glad_input(), tree=None)
    graph, splits = node_cases.node_input()
    node = node_cases.device_cases(NODE_CATALOGUE, 3, graph, splits)
    cases = [c for c in glad + node if c.name in ("glad/OCGIN/own", "nodeground/GCN")]
    report = run_check(cases, tmp_path, CPU)
    assert report["ok"] and [c["status"] for c in report["cases"]] == ["match", "match"]
    for case in report["cases"]:
        assert case["worst_share_of_tolerance"] == 0.0 and case["cpu"]["losses"] == case["cuda"]["losses"]
        assert all(len(values) == 3 for values in case["cpu"]["losses"].values())
    assert set(report["cases"][1]["cpu"]["losses"]) == {"train", "val"}


def test_the_command_runs_the_cpu_half_alone_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    monkeypatch.chdir(tmp_path)  # no UB-GOLD tree in data/code here, and no mirror: ubgold is left out, said so
    argv = ["gpu-check", "--out", "out", "--epochs", "2", "--only", "OCGIN|nodeground/MLP$"]
    argv += ["--glad-catalogue", str(GLAD_CATALOGUE), "--node-catalogue", str(NODE_CATALOGUE)]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("no CUDA device:") == 1 and "ubgold backend not checked" in err
    report = json.loads((tmp_path / "out/report.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in report["cases"]] == ["glad/OCGIN/own", "nodeground/MLP"]
    assert report["ok"] and report["input"]["ubgold"].startswith("ubgold backend not checked")


def test_the_command_exits_1_when_a_model_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(node_cases, "device_cases", lambda *args: [Case("toy/broken", failing)])
    argv = ["gpu-check", "--out", "out", "--only", "^toy/", "--glad-catalogue", str(GLAD_CATALOGUE)]
    assert cli.main(argv) == 1
    report = json.loads((tmp_path / "out/report.json").read_text(encoding="utf-8"))
    assert [c["status"] for c in report["cases"]] == ["error"] and not report["ok"]

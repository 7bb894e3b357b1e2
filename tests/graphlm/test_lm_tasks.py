"""The language models' rule entries on a toy corpus: serialization and tokenizer, a run's checkpoints and record
(a rerun writes the same bytes), sample sets whose parsed and unparsed samples add up, and the NLL hit / miss
split over the unique training graphs, with the per-token NLL checked against the model's logits by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml
from tokenizers import Tokenizer

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import load_settings
from graphaudit.graphlm import lm as lm_lib
from graphaudit.graphlm import lm_tasks
from graphaudit.graphlm.settings import LmSettings
from graphaudit.graphlm.tokenizer import encode
from graphaudit.graphs.dfscode import dfs_text, dgmg_text, parse_dfs_text

from .golden import toy_graphs

LM = {
    **yaml.safe_load(open("config/config.yaml", encoding="utf-8"))["graphlm"]["lm"],
    "tokens": 2048,
    "block": 32,
    "batch": {"dfs": 4, "dgmg": 4},
    "lr": 3e-3,
    "checkpoints": 2,
    "device": "cpu",
    "sample_batch": 16,
}
N_GEN = 24


@pytest.fixture(scope="module")
def corpus_lines() -> list[str]:
    from graphaudit.graphlm.corpus import training_corpus

    graphs = training_corpus(toy_graphs("ALPHA", 12), "first")
    return [dfs_text(g) for g in graphs] + [dfs_text(graphs[0])]  # one duplicate graph: 12 unique of 13


def _ctx(root: Path, inputs: dict, outputs: dict, wildcards: dict, **params) -> RuleContext:
    return RuleContext(
        input=inputs, output=outputs, params={"lm": LM, **params}, wildcards=wildcards, threads=1, log=str(root / "l")
    )


@pytest.fixture(scope="module", params=["dfs", "dgmg"])
def run(request, tmp_path_factory, corpus_lines):
    serialization = request.param
    root = tmp_path_factory.mktemp(f"lm-{serialization}")
    (root / "train.dfs.txt").write_text("".join(line + "\n" for line in corpus_lines))
    (root / "train.codes.txt").write_text("".join(line + "\n" for line in corpus_lines))  # exact codes as the text
    wildcards = {"dataset": "ALPHA", "serialization": serialization, "seed": "42"}
    serialized = {"texts": str(root / "train.txt"), "tokenizer": str(root / "tokenizer.json")}
    corpus = {"sequences": str(root / "train.dfs.txt"), "codes": str(root / "train.codes.txt")}
    lm_tasks.graphlm_serialize(_ctx(root, corpus, serialized, wildcards))
    folder = root / "s42"
    checkpoints = [str(folder / f"checkpoint_0{k}.safetensors") for k in (1, 2)]
    lm_tasks.graphlm_train(
        _ctx(root, serialized, {"run": str(folder / "run.json"), "checkpoints": checkpoints}, wildcards)
    )
    return root, serialization, wildcards, serialized, folder


def test_the_serialized_texts_are_the_corpus_in_its_serialization(run, corpus_lines) -> None:
    root, serialization, *_ = run
    texts = (root / "train.txt").read_text().splitlines()
    graphs = [parse_dfs_text(line).graph for line in corpus_lines]
    assert texts == (corpus_lines if serialization == "dfs" else [dgmg_text(g) for g in graphs])
    tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
    assert all(tokenizer.decode(encode(tokenizer, t), skip_special_tokens=True) == t for t in texts)


def test_a_run_records_every_checkpoint_and_its_budget(run) -> None:
    _, serialization, _, _, folder = run
    record = json.loads((folder / "run.json").read_text())
    steps = lm_lib.training_steps(load_settings(LmSettings, LM), serialization)
    assert record["steps"] == steps == 16 and record["tokens"] == 16 * 4 * 32
    assert [(r["checkpoint"], r["step"]) for r in record["records"]] == [(1, 8), (2, 16)]
    assert record["parameters"] == sum(
        p.numel()
        for p in lm_tasks.load_checkpoint(
            record, str(folder / "checkpoint_02.safetensors"), torch.device("cpu")
        ).parameters()
    )
    assert not (folder / "checkpoint.pt").exists()  # the finished run's optimiser state is removed


def test_retraining_writes_the_same_checkpoint_bytes(run, tmp_path) -> None:
    root, _, wildcards, serialized, folder = run
    again = [str(tmp_path / f"checkpoint_0{k}.safetensors") for k in (1, 2)]
    lm_tasks.graphlm_train(_ctx(root, serialized, {"run": str(tmp_path / "run.json"), "checkpoints": again}, wildcards))
    assert (tmp_path / "checkpoint_02.safetensors").read_bytes() == (folder / "checkpoint_02.safetensors").read_bytes()


def _sample(run, decoding: str, dseed: int) -> tuple[list[str], dict]:
    root, serialization, wildcards, serialized, folder = run
    sample = lm_lib.SampleSet(serialization, 42, 2, decoding, dseed)
    outputs = {"generated": str(root / f"{sample.name}.dfs.txt"), "summary": str(root / f"{sample.name}.json")}
    inputs = {"run": str(folder / "run.json"), "checkpoint": str(folder / "checkpoint_02.safetensors"), **serialized}
    wild = {**wildcards, "decoding": decoding, "dseed": str(dseed)}
    lm_tasks.graphlm_sample(_ctx(root, inputs, outputs, wild, n_gen=N_GEN, tuple_order="gspan"))
    return Path(outputs["generated"]).read_text().splitlines(), json.loads(Path(outputs["summary"]).read_text())


def test_a_sample_set_counts_its_parsed_and_unparsed_samples(run) -> None:
    lines, summary = _sample(run, "both_default", 0)
    assert summary["samples"] == len(summary["texts"]) == N_GEN
    assert len(lines) + summary["unparsed"] == N_GEN
    assert all(parse_dfs_text(line).graph is not None for line in lines)
    assert 0 <= summary["at_limit"] <= summary["unparsed"] + len(lines)
    assert _sample(run, "both_default", 0) == (lines, summary)  # the decoding seed fixes the set
    assert _sample(run, "both_default", 1)[1]["texts"] != summary["texts"]


def test_sequence_nll_is_the_mean_next_token_loss_after_the_opener(run) -> None:
    _, _, _, _, folder = run
    record = json.loads((folder / "run.json").read_text())
    model = lm_tasks.load_checkpoint(record, str(folder / "checkpoint_02.safetensors"), torch.device("cpu"))
    ids = [0, 5, 6, 7, 0]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0]
    by_hand = -sum(torch.log_softmax(logits[i], -1)[ids[i + 1]] for i in range(len(ids) - 1)) / (len(ids) - 1)
    assert lm_tasks.sequence_nll(model, ids, torch.device("cpu")) == pytest.approx(float(by_hand), rel=1e-5)


def test_nll_splits_the_unique_training_graphs_into_hits_and_misses(run, corpus_lines) -> None:
    root, serialization, wildcards, serialized, folder = run
    generated = root / "main.dfs.txt"
    generated.write_text(corpus_lines[0] + "\n" + corpus_lines[1] + "\n" + corpus_lines[0] + "\n")
    inputs = {
        "run": str(folder / "run.json"),
        "checkpoint": str(folder / "checkpoint_02.safetensors"),
        "sequences": str(root / "train.dfs.txt"),
        "generated": str(generated),
        **serialized,
    }
    lm_tasks.graphlm_nll(_ctx(root, inputs, {"nll": str(root / "nll.json")}, wildcards))
    nll = json.loads((root / "nll.json").read_text())
    assert (nll["hit"], nll["miss"]) == (2, 10)  # 12 unique training graphs, 2 of them generated
    assert 0 <= nll["mw_p"] <= 1 and nll["serialization"] == serialization


def test_subsets_are_nested_and_novel_sets_hold_only_untrained_graphs(tmp_path, corpus_lines) -> None:
    from graphaudit.graphlm import tasks

    (tmp_path / "train.dfs.txt").write_text("".join(line + "\n" for line in corpus_lines))
    (tmp_path / "train.codes.txt").write_text("".join(f"code {k}\n" for k in range(len(corpus_lines))))
    inputs = {"sequences": str(tmp_path / "train.dfs.txt"), "codes": str(tmp_path / "train.codes.txt")}
    subsets = {}
    for size in (4, 8):
        out = {"sequences": str(tmp_path / f"s{size}.txt"), "codes": str(tmp_path / f"c{size}.txt")}
        tasks.graphlm_subset(_ctx(tmp_path, inputs, out, {"dataset": "ALPHA", "size": str(size)}))
        subsets[size] = ((tmp_path / f"s{size}.txt").read_text().splitlines(), (tmp_path / f"c{size}.txt").read_text())
    assert subsets[8][0][:4] == subsets[4][0] and len(subsets[8][0]) == 8  # nested
    codes = subsets[8][1].splitlines()
    assert [corpus_lines[int(c.split()[1])] for c in codes] == subsets[8][0]  # the two files stay aligned
    with pytest.raises(ValueError, match="14 graphs asked of ALPHA, which has 13"):
        tasks.graphlm_subset(_ctx(tmp_path, inputs, out, {"dataset": "ALPHA", "size": "14"}))
    (tmp_path / "gen.txt").write_text(corpus_lines[0] + "\n(0,1,5,5,5)\n\n" + corpus_lines[2] + "\n")
    novel_out = {"generated": str(tmp_path / "novel.txt")}
    tasks.graphlm_novel(
        _ctx(tmp_path, {"generated": str(tmp_path / "gen.txt"), "sequences": inputs["sequences"]}, novel_out, {})
    )
    assert (tmp_path / "novel.txt").read_text() == "(0,1,5,5,5)\n"


def test_mmd_of_the_corpus_against_itself_is_zero_and_counts_unparsed_lines(tmp_path, corpus_lines) -> None:
    from graphaudit.graphlm import tasks

    (tmp_path / "train.dfs.txt").write_text("".join(line + "\n" for line in corpus_lines))
    (tmp_path / "gen.txt").write_text("".join(line + "\n" for line in corpus_lines) + "(0,1\n")
    inputs = {"sequences": str(tmp_path / "train.dfs.txt"), "generated": str(tmp_path / "gen.txt")}
    tasks.graphlm_mmd(_ctx(tmp_path, inputs, {"mmd": str(tmp_path / "m.json")}, {"dataset": "A", "generator": "g"}))
    mmd = json.loads((tmp_path / "m.json").read_text())
    assert mmd["n_invalid"] == 1 and mmd["n_generated"] == len(corpus_lines)
    assert all(abs(mmd[k]) < 1e-12 for k in ("degree", "clustering", "orbit", "spectral"))


def test_supports_pair_every_pattern_of_either_side_with_zero_where_unmined(tmp_path, corpus_lines) -> None:
    from graphaudit.graphlm import tasks

    train = {"n": 4, "patterns": {"p": 4, "q": 2}}
    (tmp_path / "patterns.json").write_text(json.dumps(train))
    (tmp_path / "gen.txt").write_text(corpus_lines[0] + "\n")
    gspan = {"sigma": 1.0, "upper": 2, "max_projection": None, "backend": "own"}
    inputs = {"patterns": str(tmp_path / "patterns.json"), "generated": str(tmp_path / "gen.txt")}
    out = {"supports": str(tmp_path / "s.json")}
    tasks.graphlm_supports(_ctx(tmp_path, inputs, out, {"dataset": "A", "generator": "g"}, gspan=gspan))
    supports = json.loads((tmp_path / "s.json").read_text())["patterns"]
    assert supports["p"] == [1.0, 0.0] and supports["q"] == [0.5, 0.0]
    gen_only = [v for k, v in supports.items() if k not in ("p", "q")]
    assert gen_only and all(v == [0.0, 1.0] for v in gen_only)  # each edge pattern of the one generated graph

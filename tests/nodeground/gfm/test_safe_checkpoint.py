"""Checksum first, then the allow-list: tampered files and foreign globals are refused with clear messages."""

from __future__ import annotations

import collections
import datetime
import hashlib

import pytest
import torch
from gfm_toys import TOY_CONFIG, graphany_config_node, pickle_as_omegaconf, write_graphany_checkpoint

from graphaudit.data.errors import ChecksumMismatchError
from graphaudit.nodeground.gfm.graphany_adapter import GRAPHANY_GLOBALS
from graphaudit.nodeground.gfm.safe_checkpoint import (
    ConfigInterpolationError,
    PickledConfig,
    UnsafeCheckpointError,
    load_checkpoint,
    only_safe_globals,
)


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_tampered_file_is_refused_before_unpickling(tmp_path, monkeypatch):
    path = tmp_path / "graph_any_toy.pt"
    sha = write_graphany_checkpoint(monkeypatch, path)
    assert load_checkpoint(path, sha, GRAPHANY_GLOBALS)["state_dict"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatchError, match=rf"sha256 is {_sha(path)}, the registry expects {sha}.*not loaded"):
        load_checkpoint(path, sha, GRAPHANY_GLOBALS)


def test_a_global_outside_the_allow_list_is_refused(tmp_path):
    path = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2), "when": datetime.date(2024, 5, 31)}, path)
    with pytest.raises(UnsafeCheckpointError, match=r"names \['datetime\.date'\].*refusing to load"):
        load_checkpoint(path, _sha(path), GRAPHANY_GLOBALS)


def test_globals_marked_safe_by_other_libraries_do_not_widen_the_allow_list(tmp_path):
    import torch_geometric  # noqa: F401  (marks collections.defaultdict safe process-wide)

    before = set(torch.serialization.get_safe_globals())
    assert collections.defaultdict in before
    path = tmp_path / "cache.pt"
    torch.save({"cache": collections.defaultdict(list)}, path)
    with pytest.raises(UnsafeCheckpointError, match=r"collections\.defaultdict"):
        load_checkpoint(path, _sha(path), allowed=())
    assert set(torch.serialization.get_safe_globals()) == before  # restored after the block
    with only_safe_globals(()):
        assert torch.serialization.get_safe_globals() == []


def test_the_toy_checkpoint_names_globals_of_the_released_ones(tmp_path, monkeypatch):
    path = tmp_path / "graph_any_toy.pt"
    write_graphany_checkpoint(monkeypatch, path)
    with only_safe_globals(()):
        named = set(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))
    assert {"omegaconf.dictconfig.DictConfig", "omegaconf.nodes.AnyNode", "collections.defaultdict", "typing.Any"} <= (
        named
    )
    assert named <= {name for _, name in GRAPHANY_GLOBALS}


def test_released_checkpoints_name_exactly_the_allow_list(mirror):
    allowed = {name for _, name in GRAPHANY_GLOBALS}
    for name in ("arxiv", "cora", "product", "wisconsin"):
        path = mirror / f"gfm/graphany/graph_any_{name}.pt"
        with only_safe_globals(()):
            assert set(torch.serialization.get_unsafe_globals_in_checkpoint(str(path))) == allowed, name


def test_pickled_config_resolves_graphany_interpolations(monkeypatch):
    pickle_as_omegaconf(monkeypatch)
    config = PickledConfig(graphany_config_node(TOY_CONFIG))
    assert config.get("feat_channels") == ["X", "L1", "H1"]  # ${feat_channels} -> ${eval:'"${feat_chn}".split("+")'}
    assert config.get("n_hidden") == 8 and config.get("att_temperature") == 5
    assert config.root_get("to_bidirected") is True
    assert config.get("_alias") == "GraphAny"
    with pytest.raises(KeyError, match="no key 'missing'"):
        config.get("missing")


def test_pickled_config_refuses_what_it_does_not_resolve(monkeypatch):
    pickle_as_omegaconf(monkeypatch)
    node = graphany_config_node(TOY_CONFIG)
    root = node._parent
    root._content["n_hidden"]._val = "${oc.env:HOME}"
    with pytest.raises(ConfigInterpolationError, match="not resolved here"):
        PickledConfig(node).get("n_hidden")
    root._content["n_hidden"]._val = "${graph_any.n_hidden}"  # graph_any.n_hidden is ${n_hidden}: a cycle
    with pytest.raises(ConfigInterpolationError, match="cycle"):
        PickledConfig(node).get("n_hidden")

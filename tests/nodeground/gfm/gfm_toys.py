"""A GraphAny-format checkpoint written without omegaconf or the mirror, and tiny graphs for the GFM tests.

The checkpoint has the released files' shape: ``state_dict`` (keys under ``gnn_model.``), an empty optimizer
state and ``graph_any_config``, a pickled omegaconf ``DictConfig`` whose values are interpolations into its parent
run config (``${n_hidden}``, ``${eval:'"${feat_chn}".split("+")'}``), with metadata holding ``typing.Any`` and a
``collections.defaultdict`` resolver cache. It is pickled under omegaconf's module names by giving the stand-in
classes those names for the duration of a test (``monkeypatch``), so the bytes name exactly the globals a
released checkpoint names.
"""

from __future__ import annotations

import collections
import hashlib
import sys
import types
import typing
from pathlib import Path

import numpy as np
import pytest
import torch

from graphaudit.nn.graphany import GraphAny, GraphAnyConfig
from graphaudit.nodeground.gfm import safe_checkpoint as sc
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.preprocess import preprocess
from graphaudit.nodeground.splits import Splits, make_splits

OMEGACONF_NAMES = {
    sc.DictConfig: "omegaconf.dictconfig",
    sc.ListConfig: "omegaconf.listconfig",
    sc.AnyNode: "omegaconf.nodes",
    sc.Metadata: "omegaconf.base",
    sc.ContainerMetadata: "omegaconf.base",
}

TOY_CONFIG = GraphAnyConfig(
    feat_channels=("X", "L1", "H1"),
    pred_channels=("X", "L1"),
    n_hidden=8,
    n_mlp_layer=2,
    entropy=1.0,
    att_temperature=5.0,
    add_self_loop=False,
    to_bidirected=True,
)


def pickle_as_omegaconf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the stand-ins pickle under omegaconf's names (modules registered, ``__module__`` renamed)."""
    monkeypatch.setitem(sys.modules, "omegaconf", types.ModuleType("omegaconf"))
    for cls, module_name in OMEGACONF_NAMES.items():
        module = sys.modules.get(module_name) or types.ModuleType(module_name)
        setattr(module, cls.__name__, cls)
        monkeypatch.setitem(sys.modules, module_name, module)
        monkeypatch.setattr(cls, "__module__", module_name)


def _node(cls: type, **state: object) -> object:
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


def _metadata(key: str | None) -> object:
    return _node(sc.Metadata, ref_type=typing.Any, object_type=None, optional=True, key=key, flags={})


def _container(content: dict[str, object], key: str | None, parent: object = None) -> object:
    cache = collections.defaultdict(dict, {"now": {}})
    metadata = _node(
        sc.ContainerMetadata,
        ref_type=typing.Any,
        object_type=dict,
        optional=True,
        key=key,
        flags={},
        resolver_cache=cache,
        key_type=typing.Any,
        element_type=typing.Any,
    )
    return _node(sc.DictConfig, _metadata=metadata, _parent=parent, _content=content)


def _value(value: object, key: str, parent: object) -> object:
    return _node(sc.AnyNode, _metadata=_metadata(key), _parent=parent, _val=value)


def graphany_config_node(config: GraphAnyConfig) -> object:
    """The run config (root) and its ``graph_any`` node, as GraphAny's Hydra run pickles them."""
    root = _container({}, None)
    root_values = {
        "feat_chn": "+".join(config.feat_channels),
        "pred_chn": "+".join(config.pred_channels),
        "feat_channels": """${eval:'"${feat_chn}".split("+")'}""",
        "pred_channels": """${eval:'"${pred_chn}".split("+")'}""",
        "n_hidden": config.n_hidden,
        "n_mlp_layer": config.n_mlp_layer,
        "entropy": int(config.entropy),
        "attn_temp": int(config.att_temperature),
        "add_self_loop": config.add_self_loop,
        "to_bidirected": config.to_bidirected,
    }
    root._content = {k: _value(v, k, root) for k, v in root_values.items()}
    node = _container({}, "graph_any", root)
    node_values = {
        "n_hidden": "${n_hidden}",
        "feat_channels": "${feat_channels}",
        "pred_channels": "${pred_channels}",
        "entropy": "${entropy}",
        "att_temperature": "${attn_temp}",
        "n_mlp_layer": "${n_mlp_layer}",
        "_alias": "GraphAny",
    }
    node._content = {k: _value(v, k, node) for k, v in node_values.items()}
    root._content["graph_any"] = node
    return node


def write_graphany_checkpoint(
    monkeypatch: pytest.MonkeyPatch, path: Path, config: GraphAnyConfig = TOY_CONFIG, seed: int = 0
) -> str:
    """Write a GraphAny-format checkpoint with random attention weights; return its sha256."""
    pickle_as_omegaconf(monkeypatch)
    torch.manual_seed(seed)
    model = GraphAny(config)
    with torch.no_grad():
        model.mlp.bns[0].running_mean.normal_()
        model.mlp.bns[0].running_var.uniform_(0.5, 2.0)
    state = collections.OrderedDict((f"gnn_model.{k}", v) for k, v in model.state_dict().items())
    torch.save(
        {"state_dict": state, "optimizer_state_dict": [], "graph_any_config": graphany_config_node(config)}, path
    )
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tiny_graph(name: str = "tiny", classes: int = 3, nodes: int = 60, seed: int = 0) -> NodeGraph:
    """Two-community-per-class graph with informative features (a ring within each class, a few cross edges)."""
    rng = np.random.default_rng(seed)
    labels = np.arange(nodes) % classes
    x = rng.normal(size=(nodes, 6)) + 1.5 * np.eye(classes, 6)[labels]
    same = [(u, v) for u in range(nodes) for v in range(u + 1, nodes) if labels[u] == labels[v] and v - u == classes]
    cross = [(int(u), int(v)) for u, v in rng.integers(0, nodes, size=(nodes // 6, 2))]
    return preprocess(name, x, np.array(same + cross), labels)


def tiny_splits(graph: NodeGraph, split: str = "50-25-25") -> Splits:
    return make_splits(graph, split, partitions=2)

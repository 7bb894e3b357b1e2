"""GATv2 (Brody et al. 2022): GAT's architecture with PyG's ``GATv2Conv`` (dynamic attention: the
nonlinearity is applied before the attention vector), ``add_self_loops=False`` as for GAT."""

from __future__ import annotations

from typing import ClassVar

from torch_geometric.nn import GATv2Conv
from torch_geometric.nn.conv import MessagePassing

from graphaudit.nn.node.gat import GAT

__all__ = ["GATv2"]


class GATv2(GAT):
    """GATv2: ``num_layers`` ``GATv2Conv`` layers."""

    conv: ClassVar[type[MessagePassing]] = GATv2Conv

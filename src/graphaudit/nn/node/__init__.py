"""The fifteen supervised node classifiers of nodeground (spec 3.3), one :class:`NodeModel` per file.

The paper's inventory has 15 supervised methods: 1 feature-only MLP, 10 GNNs and 4 graph Transformers. It
names 12 of them (MLP; the GNNs GCN, SGC, GAT, GATv2, GCNII, GPRGNN, FAGCN, LINKX; the Transformers
Polynormer, NAGphormer, NodeFormer), so 2 GNNs and 1 graph Transformer are unnamed (spec 3.3, 8.23). Three
methods of ours stand in for them, chosen by the paper's inclusion rule ("adds a distinct design family",
runnable, homogeneous single-graph node classification with the released features); they are stand-ins, not
a claim about which methods the paper ran:

- **APPNP** (GNN): decoupled prediction and propagation with personalised PageRank, the family GPRGNN
  generalises (fixed instead of learned propagation weights).
- **GraphSAGE** (GNN): a separate root weight next to a neighbour mean (``W_1 h_i + W_2 mean_j h_j``), the
  sampling-based inductive family none of the named GNNs belongs to; a PyG operator.
- **SGFormer** (graph Transformer): single-layer linear global attention combined with a GCN, the
  simplified-Transformer family between NodeFormer's kernelised sampling and Polynormer's staged attention.

PyG operators are used wherever one exists and is faithful (``GCNConv``, ``GATConv``, ``GATv2Conv``,
``GCN2Conv``, ``FAConv``, ``SAGEConv``, ``MLP``, and ``SimpleConv`` for plain propagation); LINKX, GPRGNN's
learned propagation, APPNP's propagation (PyG's ``APPNP`` compounds its edge dropout over the steps, see
:mod:`graphaudit.nn.node.appnp`), Polynormer's global attention, NAGphormer's Hop2Token and Transformer,
NodeFormer's kernelised Gumbel-softmax attention and SGFormer's global attention are written here in torch.
Our split is therefore not the paper's "7 wrap PyG operators, 8 are in-house", which cannot be reconstructed
(spec 8.23).

Every method reads the shared graph (one self-loop per node, spec 3.4) and does its own transform in
``prepare`` (GCN normalisation from the existing loops, SGC's ``S^K X``, FAGCN's and LINKX's loop removal,
NAGphormer's tokens, NodeFormer's adjacency powers); Polynormer's staged local-to-global path lives in the
model. Defaults, search spaces and their sources: ``config/nodeground/methods.yaml``.
"""

from graphaudit.nn.node.base import METHODS, RESERVED, NodeModel, node_loss, output_dim, resolve_method

__all__ = ["METHODS", "RESERVED", "NodeModel", "node_loss", "output_dim", "resolve_method"]

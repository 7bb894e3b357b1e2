"""T10 molecule sets (spec §3.4, §4.11): SMILES files, RDKit conversion and the authors' 200-molecule sample.

A SMILES set is a CSV file with a header holding the columns ``smiles`` and ``label`` (1 = the functional
group is present, 0 = absent), one molecule per row, in the release's order; other columns are ignored. The
canonical files are the Sanchez-Lengeling et al. (2020) attribution benchmark's ``<name>_smiles.csv``
(registry entries ``Benzene``, ``Alkane-Carbonyl``, ``Fluoride-Carbonyl``); a user may point
``llmpattern.molecules.files`` at any file in that format.

Conversion follows the repository: ``Chem.MolFromSmiles`` (plus ``Chem.AddHs`` for Alkane-Carbonyl), one node
per atom labelled ``GetSymbol()``, and the adjacency matrix as the edges. Sampling follows it too: the rows are
shuffled by ``numpy.random.seed(2024)`` + ``np.random.shuffle`` (legacy ``RandomState``), then the first 100
positives and the first 100 negatives in shuffled order are the evaluated molecules, positives first.
RDKit is imported inside the functions, so parsing the workflow does not load it.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphaudit.llmpattern.datasets import Graph, Item, graph_record, make_item

__all__ = [
    "MOLECULE_SETS",
    "REPO_SEED",
    "molecule_items",
    "read_smiles_csv",
    "sample_molecules",
    "smiles_graph",
]

REPO_SEED = 2024
MOLECULE_SETS: dict[str, tuple[str, bool]] = {
    "Benzene": ("benzene", False),
    "Alkane-Carbonyl": ("alkane_carbonyl", True),
    "Fluoride-Carbonyl": ("fluoride_carbonyl", False),
}
"""Registry name -> (item variant, explicit hydrogens): the repository adds hydrogens for Alkane-Carbonyl only."""


def smiles_graph(smiles: str, explicit_hydrogens: bool = False) -> Graph:
    """The molecule's graph record: atoms in RDKit order with their symbols (``atoms``), bonds as edges."""
    from rdkit import Chem
    from rdkit.Chem import rdmolops

    molecule = Chem.MolFromSmiles(smiles)
    if molecule is None:
        raise ValueError(f"RDKit cannot parse the SMILES {smiles!r}; fix or drop that row of the molecule file")
    if explicit_hydrogens:
        molecule = Chem.AddHs(molecule)
    adjacency = rdmolops.GetAdjacencyMatrix(molecule)
    rows, cols = np.nonzero(np.triu(adjacency, k=1))
    record = graph_record(molecule.GetNumAtoms(), zip(rows.tolist(), cols.tolist()), directed=False)
    record["atoms"] = [atom.GetSymbol() for atom in molecule.GetAtoms()]
    return record


def read_smiles_csv(path: str | os.PathLike[str]) -> list[tuple[str, int]]:
    """(SMILES, label) rows of a molecule CSV (module docstring); a missing column or a label other than 0/1 is
    an error naming the file and row."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in ("smiles", "label") if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(
                f"{path}: a molecule file needs a header with the columns smiles and label (lacks {', '.join(missing)})"
            )
        rows = []
        for number, row in enumerate(reader, start=2):
            label = row["label"].strip()
            if label not in ("0", "1", "0.0", "1.0"):
                raise ValueError(f"{path}:{number}: label {label!r} is not 0 or 1")
            rows.append((row["smiles"].strip(), int(float(label))))
    return rows


def sample_molecules(rows: Sequence[tuple[str, int]], per_class: int, seed: int = REPO_SEED) -> list[int]:
    """Row indices of the evaluated molecules: the first ``per_class`` positives, then the first ``per_class``
    negatives, of the rows shuffled as the repository shuffles them (legacy ``RandomState(seed).shuffle``)."""
    order = np.arange(len(rows))
    np.random.RandomState(seed).shuffle(order)
    positives = [int(i) for i in order if rows[i][1] == 1][:per_class]
    negatives = [int(i) for i in order if rows[i][1] == 0][:per_class]
    return positives + negatives


def molecule_items(name: str, rows: Sequence[tuple[str, int]], per_class: int, seed: int = REPO_SEED) -> list[Item]:
    """The T10 items of the registry set ``name`` (:data:`MOLECULE_SETS`): one per sampled molecule, with its
    SMILES, graph (``atoms``), ``truth.label`` and ``truth.row`` (its row in the file)."""
    variant, hydrogens = MOLECULE_SETS[name]
    items = []
    for index, row in enumerate(sample_molecules(rows, per_class, seed)):
        smiles, label = rows[row]
        truth: dict[str, Any] = {"label": label, "row": row}
        item = make_item("molecule", variant, None, index, False, truth, graph=smiles_graph(smiles, hydrogens))
        item["smiles"] = smiles
        items.append(item)
    return items

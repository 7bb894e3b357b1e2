"""SMILES molecules into GraphSet with RDKit: the OGB-LSC PCQM4Mv2 release (graphlm spec §4.3, Algorithm 3).

- ``smiles_graphs``: SMILES strings -> GraphSet, with the rows kept and the rows dropped.
- ``read_smiles_csv_graphs``: OGB-LSC's ``pcqm4m-v2.zip`` (member ``raw/data.csv.gz``, columns
  ``idx,smiles,homolumogap``) or a plain CSV / CSV.gz with a ``smiles`` column -> GraphSet, one graph per
  parsed row in file order.

RDKit handling (the paper's Algorithm 3, which OGB's ``smiles2graph`` matches):

- **Parsing**: ``Chem.MolFromSmiles`` with its default sanitization. RDKit's error log is silenced for the loop.
- **Invalid SMILES are counted, never raised**: a row that RDKit rejects (syntax, valence: ``MolFromSmiles``
  returns None), an empty cell (RDKit parses it to a molecule without atoms) and a non-string value are
  dropped, as Algorithm 3 discards them; :class:`SmilesGraphs` lists their rows and the CSV reader logs
  how many there were.
- **Aromaticity is kept, not kekulized**: sanitization perceives aromaticity, so a benzene ring gives six
  AROMATIC bonds whether written ``c1ccccc1`` or ``C1=CC=CC=C1``. No ``Chem.Kekulize`` is called, which would
  turn them into SINGLE/DOUBLE, unlike the paper's ``GetBondType()`` and OGB's bond feature. Lowercase input
  that is not aromatic (``c1ccc1``) comes out as SINGLE/DOUBLE, because RDKit kekulizes it while parsing.
- **Hydrogens stay implicit**: one node per atom of the parsed molecule, with no ``Chem.AddHs``. RDKit's parse
  removes explicit ``[H]`` atoms (``[H]C([H])([H])[H]`` is one node) except the ones ``RemoveHs`` keeps,
  such as isotopes (``[2H]``) and H2.
- **Node labels** are OGB's atom code: atomic number - 1, and :data:`ATOM_MISC` (118) for the dummy atom ``*``
  (atomic number 0). The code determines the paper's ``GetSymbol()`` label and the other way round
  (``Chem.GetPeriodicTable().GetElementSymbol(code + 1)``), so the codes are one global label map
  (spec §4.1), the same one that ``read_ogb_graphprop`` stores for the OGB molecule sets.
- **Edge labels** are OGB's bond code, i.e. the position in :data:`BOND_TYPES`: SINGLE 0, DOUBLE 1, TRIPLE 2,
  AROMATIC 3, and 4 for any other RDKit bond type (the order in spec §4.1).
- Not kept: the HOMO-LUMO gap (a float regression target, and graph labels are classes) and OGB's other
  eight atom and two bond features. RDKit is imported inside the functions, so importing this module does
  not load it.
"""

from __future__ import annotations

import logging
import os
import zipfile
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from graphaudit.common.progress import Progress
from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.data.readers import DataFormatError
from graphaudit.data.readers_external import _open_zip, _zip_member

log = logging.getLogger(__name__)

BOND_TYPES = ("SINGLE", "DOUBLE", "TRIPLE", "AROMATIC", "misc")
"""Edge label -> RDKit bond type name (OGB's ``possible_bond_type_list``)."""
ATOM_MISC = 118
"""The node label of an atom without an element (atomic number 0, ``*``): OGB's ``misc`` atom code."""
OGB_LSC_MEMBER = "raw/data.csv.gz"
"""The SMILES table inside OGB-LSC's ``pcqm4m-v2.zip`` (found by suffix under the top folder)."""


@dataclass(frozen=True)
class SmilesGraphs:
    """What :func:`smiles_graphs` made: the GraphSet, the input row of each of its graphs (``kept``) and the
    input rows that RDKit could not turn into a molecule with at least one atom (``invalid``)."""

    graphs: GraphSet
    kept: np.ndarray
    invalid: np.ndarray


def atom_label(atomic_number: int) -> int:
    """The node label of an atom (module docstring): atomic number - 1, or :data:`ATOM_MISC` for atomic number 0."""
    return atomic_number - 1 if atomic_number > 0 else ATOM_MISC


def smiles_graphs(smiles: Iterable[object], name: str) -> SmilesGraphs:
    """One undirected graph per SMILES string that RDKit parses, in input order (RDKit handling: module docstring).

    Atoms are nodes in RDKit's order, bonds are edges; ``node_labels`` holds the atom codes and ``edge_labels`` the
    bond codes. Rows that fail are left out and listed in ``invalid``; when no row parses (a GraphSet holds at
    least one graph) a :class:`~graphaudit.data.readers.DataFormatError` says so.
    """
    from rdkit import Chem, rdBase

    bond_codes = {getattr(Chem.BondType, kind): code for code, kind in enumerate(BOND_TYPES[:-1])}
    other_bond = len(BOND_TYPES) - 1
    atoms, sizes, kept, invalid = array("q"), array("q"), array("q"), array("q")
    ends, kinds = array("q"), array("q")
    offset = 0
    progress = Progress(f"{name}: SMILES to graphs", every_s=30.0, logger=log, unit="molecules")
    with rdBase.BlockLogs():
        for row, text in enumerate(smiles):
            molecule = Chem.MolFromSmiles(text) if isinstance(text, str) else None
            if molecule is None or molecule.GetNumAtoms() == 0:
                invalid.append(row)
                continue
            atoms.extend(atom_label(atom.GetAtomicNum()) for atom in molecule.GetAtoms())
            for bond in molecule.GetBonds():
                ends.append(offset + bond.GetBeginAtomIdx())
                ends.append(offset + bond.GetEndAtomIdx())
                kinds.append(bond_codes.get(bond.GetBondType(), other_bond))
            sizes.append(molecule.GetNumAtoms())
            kept.append(row)
            offset += molecule.GetNumAtoms()
            progress.update()
    progress.close()
    if not len(kept):  # a GraphSet holds at least one graph
        raise DataFormatError(f"{name}: none of the {len(invalid)} SMILES is a molecule RDKit can parse")
    sizes_np = np.frombuffer(sizes, dtype=np.int64)
    graphs = from_edge_list(
        name,
        np.repeat(np.arange(len(sizes_np), dtype=np.int64), sizes_np),
        np.frombuffer(ends, dtype=np.int64).reshape(-1, 2),
        directed=False,
        node_labels=_int64(atoms),
        edge_labels=_int64(kinds),
    )
    return SmilesGraphs(graphs, _int64(kept), _int64(invalid))


def _int64(values: array) -> np.ndarray:
    """A writable int64 numpy copy of a typed ``array('q')`` buffer."""
    return np.frombuffer(values, dtype=np.int64).copy()


def read_smiles_csv_graphs(path: str | os.PathLike[str], name: str) -> GraphSet:
    """Read the ``smiles`` column of OGB-LSC's ``pcqm4m-v2.zip`` (or of a CSV / CSV.gz) into a GraphSet, one graph
    per row that RDKit parses (module docstring); unparseable rows are dropped and logged with their count.

    An ``idx`` column, as OGB writes it, must number the rows 0, 1, 2, ... in order (a reordered or spliced file
    is refused).
    """
    where = f"{name} ({path})"
    frame = _smiles_table(path, name, where)
    if "smiles" not in frame.columns:
        raise DataFormatError(f"{where}: the SMILES table needs a header with a smiles column, found {list(frame)}")
    if "idx" in frame.columns:
        _check_row_ids(frame["idx"], where)
    result = smiles_graphs(frame["smiles"].tolist(), name)
    if len(result.invalid):
        from rdkit import __version__ as rdkit_version

        first = ", ".join(str(int(r)) for r in result.invalid[:5])
        log.warning(
            "%s: RDKit %s could not parse %d of %d SMILES rows (rows %s%s); they are dropped (graphlm spec 4.3)",
            where,
            rdkit_version,
            len(result.invalid),
            len(frame),
            first,
            ", ..." if len(result.invalid) > 5 else "",
        )
    return result.graphs


def _smiles_table(path: str | os.PathLike[str], name: str, where: str) -> pd.DataFrame:
    """The table as strings (empty cells stay empty strings): the zip's ``raw/data.csv.gz`` or the file itself."""
    try:
        if zipfile.is_zipfile(path):
            zf = _open_zip(path, name)
            try:
                member = _zip_member(zf, OGB_LSC_MEMBER, name, path)
                with zf.open(member) as handle:
                    return pd.read_csv(handle, compression="gzip", dtype=str, na_filter=False, engine="c")
            finally:
                zf.close()
        return pd.read_csv(Path(path), compression="infer", dtype=str, na_filter=False, engine="c")
    except DataFormatError:
        raise
    except pd.errors.EmptyDataError as err:
        raise DataFormatError(f"{where}: the SMILES table is empty (no header)") from err
    except (ValueError, OSError, EOFError, zlib.error, zipfile.BadZipFile, UnicodeDecodeError) as err:
        raise DataFormatError(f"{where}: not a readable SMILES table ({type(err).__name__}: {err})") from err


def _check_row_ids(ids: pd.Series, where: str) -> None:
    try:
        values = ids.astype(np.int64).to_numpy()
    except (ValueError, TypeError) as err:
        raise DataFormatError(f"{where}: the idx column holds a value that is not an integer ({err})") from err
    wrong = np.flatnonzero(values != np.arange(len(values)))
    if len(wrong):
        row = int(wrong[0])
        raise DataFormatError(
            f"{where}: idx must number the rows 0..{len(values) - 1} in order; row {row} has idx {values[row]} "
            "(file reordered, spliced or truncated?)"
        )

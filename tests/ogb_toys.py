"""A hand-written OGB graph-property zip of four molecules (the ``hiv.zip`` / ``bbbp.zip`` layout), shared by the
reader tests and the T11 tests.

Molecules, in published order (node features: atomic_num - 1 first; bond type first):

0. ethanol ``CCO``: C C O, bonds 0-1, 1-2 (single); label 0
1. acetyl fluoride ``CC(=O)F``: C C O F, bonds 0-1 (single), 1-2 (double), 1-3 (single); label 1
2. chloroform ``ClC(Cl)Cl``: Cl C Cl Cl, bonds 0-1, 1-2, 1-3 (single); label 1
3. sodium ion ``[Na+]``: Na, no bond; label 0

Scaffold split: train 2, 0 (in that order: not sorted), valid 3, test 1.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

SMILES = ("CCO", "CC(=O)F", "ClC(Cl)Cl", "[Na+]")
LABELS = (0, 1, 1, 0)
ATOMIC_NUMBERS = ((6, 6, 8), (6, 6, 8, 9), (17, 6, 17, 17), (11,))
SYMBOLS = (("C", "C", "O"), ("C", "C", "O", "F"), ("Cl", "C", "Cl", "Cl"), ("Na",))
BONDS = (((0, 1, 0), (1, 2, 0)), ((0, 1, 0), (1, 2, 1), (1, 3, 0)), ((0, 1, 0), (1, 2, 0), (1, 3, 0)), ())
SPLIT = {"train": (2, 0), "valid": (3,), "test": (1,)}


def gz_csv(rows: list, header: str | None = None) -> bytes:
    """A gzipped CSV member: one line per row (a scalar row is one column)."""
    lines = [header] if header else []
    lines += [",".join(str(v) for v in (row if isinstance(row, (list, tuple)) else [row])) for row in rows]
    return gzip.compress("".join(f"{line}\n" for line in lines).encode())


def ogb_tables() -> dict[str, list]:
    """Every member of the toy zip as rows (the published layout)."""
    return {
        "raw/edge.csv.gz": [(u, v) for bonds in BONDS for u, v, _ in bonds],
        "raw/edge-feat.csv.gz": [(kind, 0, 0) for bonds in BONDS for _, _, kind in bonds],
        "raw/node-feat.csv.gz": [(z - 1, 0, 1, 5, 0, 0, 1, 0, 0) for atoms in ATOMIC_NUMBERS for z in atoms],
        "raw/num-node-list.csv.gz": [len(atoms) for atoms in ATOMIC_NUMBERS],
        "raw/num-edge-list.csv.gz": [len(bonds) for bonds in BONDS],
        "raw/graph-label.csv.gz": list(LABELS),
        **{f"split/scaffold/{part}.csv.gz": list(ids) for part, ids in SPLIT.items()},
    }


def write_ogb_graphprop(
    path: Path, top: str = "hiv", drop: tuple[str, ...] = (), replace: dict[str, list] | None = None
) -> Path:
    """Write the toy zip to ``path`` (members under ``top/``), without the ``drop`` members and with ``replace``'s
    rows instead of the published ones."""
    tables = ogb_tables() | (replace or {})
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{top}/RELEASE_v1.txt", "")
        zf.writestr(f"{top}/mapping/mol.csv.gz", gz_csv([(s, y) for s, y in zip(SMILES, LABELS)], "smiles,label"))
        for member, rows in tables.items():
            if member not in drop:
                zf.writestr(f"{top}/{member}", gz_csv(rows))
    return path

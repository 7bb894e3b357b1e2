"""The blindness decision over the typed runs (spec 4.16, paper Section 3, 5.3, D.1, D.6, D.7) and Tables 3, 15-18.

**Cells.** A cell is one detector on one type and variant of one typed set (:mod:`graphaudit.glad.typed_runs`): the
mean over seeds of the Val-Normal AUROC (:func:`cell_means`, seeds without a finite AUROC left out and counted).

**Blind** ⇔ the cell's mean <= the threshold (60, fixed in advance). A *pair* is one detector on one *valid*
size-preserving type: the types whose controls Table 14 judged valid and not confounded (role ``decision``; read
from Table 14, never asserted here). The decision (pre-registered, amendment A9) over a group of detectors:

- **inconclusive** if fewer than 2 MS-v2 types are valid;
- **confirmed** if at least 75% of the pairs over GX and MS-v2 are blind, at least 60% of the MS-v2 pairs are blind,
  and at least 5 of the 8 detectors are blind on most (more than half) of the valid MS-v2 types;
- **refuted** if fewer than 40% of the MS-v2 pairs are blind;
- else **partial** (neither confirmed nor refuted: Table 17's label for the pilot group).

The detector condition is written for the eight confirmatory detectors; for a group of another size (the four pilot
detectors, or fewer detectors run) it is read as the same share, ``ceil(5/8 x detectors)``. **Scope test**: if the
blind share of the size-changing MS-v2 pairs (the same valid types) is lower than the size-preserving one by at least
25 points, the claim is limited to size-preserving changes.

**Groups** (spec 3.4): the 8 *confirmatory* detectors, added after the pre-registration (the decision's), and the 4
*pilot* detectors, seen before it (descriptive). The paper's 9 recent methods are not implemented in this project.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.common.seeds import rng_for
from graphaudit.glad import gx, typed
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad.typed_sets import GX_F1, GX_F2, MS_V2, SIZE_CHANGING, SIZE_PRESERVING
from graphaudit.stats.resampling import dataset_bootstrap, dataset_resamples

CONFIRMATORY = (
    "GLADC",
    "CVTGAD",
    "GOOD-D",
    "GraphDE",
    "GraphCL-IF",
    "GraphCL-OCSVM",
    "InfoGraph-IF",
    "InfoGraph-OCSVM",
)
PILOT = ("SIGNET", "OCGTL", "OCGIN", "GLocalKD")
DETECTOR_GROUPS = {"confirmatory": CONFIRMATORY, "pilot": PILOT}
THRESHOLD = 60.0
MIN_BLIND_SHARE = 75.0
MIN_MS_BLIND_SHARE = 60.0
REFUTED_BELOW = 40.0
DETECTORS_BLIND_ON_MOST = 5
OF_DETECTORS = 8
MIN_VALID_MS = 2
SCOPE_DROP = 25.0
VERDICTS = ("confirmed", "refuted", "inconclusive", "partial")
SCOPE_LIMITED, SCOPE_NOT_LIMITED = "limited to size-preserving changes", "not limited"
GX_TYPES = tuple(gx.ANOMALY_TYPES)
MS_TYPES = tuple(msd.FINAL_TYPES)
CELL_KEYS = ["detector", "typed_set", "generator", "encoding", "type", "variant"]
CONTROL_COLUMNS = {
    typed.SIZE_ONLY: "size_only",
    typed.GRAPHLET_LW: "graphlet_lw",
    typed.EDGE_LABEL_PAIR_LW: "edge_label_pair_lw",
}


def group_of(detector: str) -> str:
    """``confirmatory``, ``pilot`` or ``other``."""
    return next((name for name, members in DETECTOR_GROUPS.items() if detector in members), "other")


def ordered_detectors(detectors: Iterable[str]) -> list[str]:
    """The detectors in table order: confirmatory, then pilot, then any other, each in its group's order."""
    present = set(detectors)
    known = [d for members in DETECTOR_GROUPS.values() for d in members if d in present]
    return known + sorted(present - set(known))


# ---- cells -----------------------------------------------------------------------------------------------------
def cell_means(replay: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (:data:`CELL_KEYS`): ``mean`` of the finite seed AUROCs (NaN when none), ``seeds`` (their
    count), ``runs`` (seeds in the replay), ``min`` and ``max``, and ``note``: how many seeds have no result and
    why (the first reason a run gives, e.g. a run over the memory budget that was not started)."""
    rows = []
    for keys, frame in replay.groupby(CELL_KEYS, sort=False, dropna=False):
        values = frame["auroc"].astype(float)
        finite = values[np.isfinite(values)]
        rows.append(
            {
                **dict(zip(CELL_KEYS, keys)),
                "mean": float(finite.mean()) if len(finite) else math.nan,
                "seeds": len(finite),
                "runs": int(frame["seed"].nunique()),
                "min": float(finite.min()) if len(finite) else math.nan,
                "max": float(finite.max()) if len(finite) else math.nan,
                "note": _missing_note(frame, len(frame) - len(finite)),
            }
        )
    return pd.DataFrame(rows, columns=[*CELL_KEYS, "mean", "seeds", "runs", "min", "max", "note"])


def _missing_note(frame: pd.DataFrame, missing: int) -> str:
    """'k of n seeds without a result: <first reason, to its first semicolon>' ('' when every seed has one)."""
    if not missing:
        return ""
    reasons = [str(r) for r in frame.get("reason", pd.Series(dtype=str)).fillna("") if str(r)]
    why = reasons[0].split(";")[0] if reasons else "no finite AUROC"
    return f"{missing} of {len(frame)} seeds without a result: {why}"


def view(
    cells: pd.DataFrame, variant: str, gx_set: str = GX_F2, constant: Iterable[str] = ()
) -> dict[tuple[str, str], float]:
    """(detector, type) -> mean of one variant: GX from ``gx_set``, MS-v2, each detector's UB-GOLD encodings, or the
    constant ablation for the detectors in ``constant`` (a detector of ``constant`` without such runs: none)."""
    constant = set(constant)
    out = {}
    for row in cells.itertuples(index=False):
        wanted = "constant" if row.detector in constant else "encodings"
        if row.variant == variant and row.typed_set in (gx_set, MS_V2) and row.encoding == wanted:
            out[(row.detector, row.type)] = float(row.mean)
    return out


def valid_types(table14: pd.DataFrame) -> dict[str, list[str]]:
    """The valid, not confounded size-preserving types per generator (Table 14's role ``decision``)."""
    valid: dict[str, list[str]] = {typed.GX: [], msd.MS_V2: []}
    if not len(table14):
        return valid
    rows = table14[(table14["variant"] == SIZE_PRESERVING) & (table14["role"] == "decision")]
    for row in rows.itertuples(index=False):
        valid.setdefault(str(row.generator), []).append(str(row.type))
    return valid


# ---- the decision ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BlindCounts:
    """The blind pairs of a group of detectors at one threshold."""

    detectors: int
    pairs: int
    blind_pairs: int
    ms_pairs: int
    ms_blind_pairs: int
    blind_on_most_ms: int
    valid_ms: int

    @property
    def blind_share(self) -> float:
        """Blind pairs over GX and MS-v2, in percent (NaN without pairs)."""
        return 100.0 * self.blind_pairs / self.pairs if self.pairs else math.nan

    @property
    def ms_blind_share(self) -> float:
        """Blind MS-v2 pairs, in percent (NaN without MS-v2 pairs)."""
        return 100.0 * self.ms_blind_pairs / self.ms_pairs if self.ms_pairs else math.nan


def is_blind(mean: float, threshold: float = THRESHOLD) -> bool:
    """Blind ⇔ the mean AUROC is at most the threshold (a NaN mean is no pair at all)."""
    return mean <= threshold


def count_blind(
    means: Mapping[tuple[str, str], float],
    detectors: Sequence[str],
    valid: Mapping[str, Sequence[str]],
    threshold: float = THRESHOLD,
) -> BlindCounts:
    """Blind pairs of ``detectors`` over the ``valid`` types (generator -> types); a pair needs a finite mean. A
    detector is blind on most MS-v2 types when blind on more than half of the valid ones."""
    ms_types = list(valid.get(msd.MS_V2, []))
    pairs = blind = ms_pairs = ms_blind = most = 0
    for detector in detectors:
        detector_ms_blind = 0
        for generator, types in valid.items():
            for name in types:
                mean = means.get((detector, name), math.nan)
                if not math.isfinite(mean):
                    continue
                pairs += 1
                blind += is_blind(mean, threshold)
                if generator == msd.MS_V2:
                    ms_pairs += 1
                    ms_blind += is_blind(mean, threshold)
                    detector_ms_blind += is_blind(mean, threshold)
        most += bool(ms_types) and detector_ms_blind > len(ms_types) / 2
    return BlindCounts(len(detectors), pairs, blind, ms_pairs, ms_blind, most, len(ms_types))


def detectors_needed(detectors: int) -> int:
    """Detectors that must be blind on most MS-v2 types: 5 of 8, the same share of another group size."""
    return math.ceil(DETECTORS_BLIND_ON_MOST * detectors / OF_DETECTORS)


def decision(blind_share: float, ms_blind_share: float, blind_on_most_ms: int, detectors: int, valid_ms: int) -> str:
    """The pre-registered verdict (module docstring) from a group's shares (percent), the detectors blind on most
    valid MS-v2 types, the group's size and the number of valid MS-v2 types."""
    if valid_ms < MIN_VALID_MS:
        return "inconclusive"
    if (
        blind_share >= MIN_BLIND_SHARE
        and ms_blind_share >= MIN_MS_BLIND_SHARE
        and blind_on_most_ms >= detectors_needed(detectors)
    ):
        return "confirmed"
    if ms_blind_share < REFUTED_BELOW:
        return "refuted"
    return "partial"


def verdict_of(counts: BlindCounts) -> str:
    """:func:`decision` on counts."""
    return decision(
        counts.blind_share, counts.ms_blind_share, counts.blind_on_most_ms, counts.detectors, counts.valid_ms
    )


def scope(size_preserving_share: float, size_changing_share: float) -> tuple[float, str]:
    """(drop in points, scope): limited to size-preserving changes when the size-changing MS-v2 blind share is lower
    by at least 25 points; NaN and ``not tested`` when either share is missing."""
    drop = size_preserving_share - size_changing_share
    if math.isnan(drop):
        return drop, "not tested"
    return drop, SCOPE_LIMITED if drop >= SCOPE_DROP else SCOPE_NOT_LIMITED


# ---- tables ----------------------------------------------------------------------------------------------------
def _present(cells: pd.DataFrame, members: Sequence[str]) -> list[str]:
    run = set(cells.loc[np.isfinite(cells["mean"].astype(float)), "detector"])
    return [d for d in members if d in run]


def _decision_row(
    label: str,
    role: str,
    group: Sequence[str],
    present: Sequence[str],
    means: Mapping[tuple[str, str], float],
    valid: Mapping[str, Sequence[str]],
    threshold: float,
) -> dict[str, Any]:
    counts = count_blind(means, present, valid, threshold)
    return {
        "row": label,
        "role": role,
        "threshold": threshold,
        "detectors": counts.detectors,
        "missing": ", ".join(d for d in group if d not in present),
        "valid_gx": ", ".join(valid.get(typed.GX, [])),
        "valid_ms": ", ".join(valid.get(msd.MS_V2, [])),
        "pairs": counts.pairs,
        "blind_pairs": counts.blind_pairs,
        "blind_share": counts.blind_share,
        "ms_pairs": counts.ms_pairs,
        "ms_blind_pairs": counts.ms_blind_pairs,
        "ms_blind_share": counts.ms_blind_share,
        "blind_on_most_ms": counts.blind_on_most_ms,
        "needed": detectors_needed(counts.detectors),
        "verdict": verdict_of(counts),
        "size_preserving_ms_share": math.nan,
        "drop": math.nan,
        "scope": "",
    }


def table17_frame(cells: pd.DataFrame, table14: pd.DataFrame, threshold: float = THRESHOLD) -> pd.DataFrame:
    """Table 17, the decision summary: the confirmatory decision (GX F2 and MS-v2; the only confirmatory row), the
    pilot group, the confirmatory group with F1 GX features, with the constant-x_s ablation for the detectors that
    have such runs, and the size-changing scope row (the same valid MS-v2 types with a donor attached)."""
    valid = valid_types(table14)
    confirmatory = _present(cells, CONFIRMATORY)
    primary = view(cells, SIZE_PRESERVING)
    rows = [
        _decision_row("confirmatory", "decision", CONFIRMATORY, confirmatory, primary, valid, threshold),
        _decision_row("pilot", "descriptive", PILOT, _present(cells, PILOT), primary, valid, threshold),
    ]
    if (cells["typed_set"] == GX_F1).any():
        f1 = view(cells, SIZE_PRESERVING, GX_F1)
        rows.append(
            _decision_row("confirmatory, F1 features", "sensitivity", CONFIRMATORY, confirmatory, f1, valid, threshold)
        )
    ablated = sorted(set(cells.loc[cells["encoding"] == "constant", "detector"]) & set(confirmatory))
    if ablated:
        means = view(cells, SIZE_PRESERVING, constant=ablated)
        label = f"confirmatory, constant x_s ({', '.join(ablated)})"
        rows.append(_decision_row(label, "ablation (post hoc)", CONFIRMATORY, confirmatory, means, valid, threshold))
    ms_only = {msd.MS_V2: valid.get(msd.MS_V2, [])}
    changed = _decision_row(
        "confirmatory, size-changing MS-v2",
        "scope test",
        CONFIRMATORY,
        confirmatory,
        view(cells, SIZE_CHANGING),
        ms_only,
        threshold,
    )
    kept = count_blind(primary, confirmatory, ms_only, threshold).ms_blind_share
    drop, judged = scope(kept, changed["ms_blind_share"])
    changed.update({"verdict": "", "size_preserving_ms_share": kept, "drop": drop, "scope": judged})
    rows.append(changed)
    return _rounded(pd.DataFrame(rows))


def table18_frame(cells: pd.DataFrame, table14: pd.DataFrame, thresholds: Sequence[float]) -> pd.DataFrame:
    """Table 18, the confirmatory decision under other blindness thresholds (post hoc): shares, detectors blind on
    most MS-v2 types and the verdict per threshold."""
    valid = valid_types(table14)
    confirmatory = _present(cells, CONFIRMATORY)
    primary = view(cells, SIZE_PRESERVING)
    rows = []
    for threshold in thresholds:
        row = _decision_row(
            "confirmatory", "sensitivity (post hoc)", CONFIRMATORY, confirmatory, primary, valid, threshold
        )
        rows.append(
            {
                k: row[k]
                for k in (
                    "threshold",
                    "detectors",
                    "pairs",
                    "blind_share",
                    "ms_pairs",
                    "ms_blind_share",
                    "blind_on_most_ms",
                    "needed",
                    "verdict",
                )
            }
        )
    return _rounded(pd.DataFrame(rows))


def _type_columns() -> list[tuple[str, str, str]]:
    """(column, type, variant) of Table 15's value columns."""
    kept = [(name, name, SIZE_PRESERVING) for name in (*GX_TYPES, *MS_TYPES)]
    return kept + [(f"{name}_{SIZE_CHANGING}", name, SIZE_CHANGING) for name in MS_TYPES]


def table15_frame(cells: pd.DataFrame, table14: pd.DataFrame, threshold: float = THRESHOLD) -> pd.DataFrame:
    """Table 15, every detector on every type and variant (mean Val-Normal AUROC over the seeds): one row per
    detector, ``x_s`` (``encodings``: UB-GOLD's; ``constant``: the ablation's) and GX feature variant; MS-v2 has one
    feature variant (the atom labels), shown in the F2 rows; ``blind_types`` of ``types`` size-preserving cells are
    at most the threshold, ``seeds`` the fewest seeds of a cell. Then the control rows of Table 14."""
    rows = []
    columns = _type_columns()
    for detector in ordered_detectors(cells["detector"]):
        mine = cells[cells["detector"] == detector]
        keys = sorted(
            {
                (r.encoding, r.typed_set.removeprefix("GX-") if r.typed_set != MS_V2 else "F2")
                for r in mine.itertuples()
            },
            key=lambda k: (k[0] != "encodings", k[1] != "F2", k),
        )
        for encoding, features in keys:
            wanted = mine[
                (mine["encoding"] == encoding)
                & mine["typed_set"].isin([f"GX-{features}"] + ([MS_V2] if features == "F2" else []))
            ]
            values = {(r.type, r.variant): (float(r.mean), int(r.seeds)) for r in wanted.itertuples()}
            row = {
                "group": group_of(detector),
                "detector": detector,
                "x_s": encoding,
                "features": features,
            }
            row |= {column: values.get((name, variant), (math.nan, 0))[0] for column, name, variant in columns}
            kept = [values[(n, v)][0] for _, n, v in columns if v == SIZE_PRESERVING and (n, v) in values]
            kept = [x for x in kept if math.isfinite(x)]
            row |= {"blind_types": sum(is_blind(x, threshold) for x in kept), "types": len(kept)}
            row["seeds"] = min((s for _, s in values.values()), default=0)
            row["note"] = next((note for note in wanted["note"] if note), "")
            rows.append(row)
    rows += _control_rows(table14, columns)
    return _rounded(pd.DataFrame(rows))


def _control_rows(table14: pd.DataFrame, columns: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Table 15's last rows: each control's five-seed mean per type and variant, from Table 14."""
    if not len(table14):
        return []
    rows = []
    for control, field in CONTROL_COLUMNS.items():
        row = {"group": "control", "detector": control, "x_s": "", "features": ""}
        for column, name, variant in columns:
            match = table14[(table14["type"] == name) & (table14["variant"] == variant)]
            row[column] = float(match[field].iloc[0]) if len(match) else math.nan
        rows.append(row)
    return rows


def table3_frame(cells: pd.DataFrame, threshold: float = THRESHOLD) -> pd.DataFrame:
    """Table 3, the main text's view: the confirmatory detectors, then the pilot block, on GX T1a / T3a / T3b (F2)
    and MS1-MS3 (size-preserving), UB-GOLD's x_s; ``above_threshold`` names the cells above the threshold (the
    paper's bold, not blind)."""
    means = view(cells, SIZE_PRESERVING)
    rows = []
    for block, members in DETECTOR_GROUPS.items():
        for detector in _present(cells, members):
            values = {name: means.get((detector, name), math.nan) for name in (*GX_TYPES, *MS_TYPES)}
            above = [name for name, x in values.items() if math.isfinite(x) and not is_blind(x, threshold)]
            rows.append({"block": block, "detector": detector, **values, "above_threshold": ", ".join(above)})
    return _rounded(pd.DataFrame(rows, columns=["block", "detector", *GX_TYPES, *MS_TYPES, "above_threshold"]))


def table16_frame(replay: pd.DataFrame, resamples: int, threshold: float = THRESHOLD) -> pd.DataFrame:
    """Table 16, seed-bootstrap 95% intervals of Table 15's means: the seeds of a cell resampled with replacement
    (``resamples`` times, the same draws for every cell with as many seeds), percentile interval of the mean."""
    rows = []
    for keys, frame in replay.groupby(CELL_KEYS, sort=False, dropna=False):
        values = frame["auroc"].astype(float).to_numpy()
        values = values[np.isfinite(values)]
        row = {"group": group_of(keys[0]), **dict(zip(CELL_KEYS, keys)), "seeds": len(values)}
        if len(values):
            draws = dataset_resamples(len(values), rng_for("glad", "typed", "seed-bootstrap", len(values)), resamples)
            interval = dataset_bootstrap(values, draws)
            row |= {"mean": interval.estimate, "ci_low": interval.low, "ci_high": interval.high}
            row["blind"] = is_blind(interval.estimate, threshold)
        else:
            row |= {"mean": math.nan, "ci_low": math.nan, "ci_high": math.nan, "blind": None}
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["group", *CELL_KEYS, "seeds", "mean", "ci_low", "ci_high", "blind"])
    order = {d: i for i, d in enumerate(ordered_detectors(frame["detector"]))}
    frame = frame.sort_values("detector", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    return _rounded(frame)


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    """Floats rounded to 4 decimals (the tables' precision; byte-stable CSVs)."""
    return frame.apply(lambda s: s.round(4) if s.dtype.kind == "f" else s)

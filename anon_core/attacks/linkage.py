"""Linkage attack with an external table: how many people an attacker can re-identify by name.

The attacker holds an external table: an identifier (e.g. a name) and the raw values of some
quasi-identifiers. Each external record is matched against the released records on the
quasi-identifiers both tables share; the matching released group's size ``s`` is what the
attacker has to pick from, so a guess succeeds with probability ``1/s`` (the prosecutor model of
Sweeney 2002 / El Emam 2011, applied to the records an attacker actually holds).

Two ways to match, one per kind of release:

* **Full-domain generalization** (``levels`` given): each external value is generalized through
  its quasi-identifier's hierarchy to the release's level and matched exactly. Values the
  hierarchy lacks cannot be generalized: they count as unmatched and are reported per column.
* **Any other release** (``levels`` None: Mondrian, raw, ...): a raw value matches a released
  label equal to it, a numeric range label ``[lo-hi]`` (inclusive) or ``[lo-hi[`` containing it,
  an ancestor of it in its hierarchy (when one is given), or ``*``.

Suppressed records (every quasi-identifier ``*``, as ARX masks them) match nothing; records
removed from the release cannot match either.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError, DataError

log = logging.getLogger(__name__)

SUPPRESSED = "*"  # the release's suppression label (anon_core.release.apply.SUPPRESSED)
_RANGE = re.compile(r"^\[\s*(-?\d+(?:\.\d+)?)\s*[-,;]\s*(-?\d+(?:\.\d+)?)\s*([\]\[)])$")
_MAX_CELLS = 20_000_000  # external tuples x released groups per matching block

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class LinkageResult:
    """Figures of a linkage attack; ``group_sizes`` holds, per external record, the number of
    released records it matches (0: unmatched).

    ``expected_reidentified`` is the sum of ``1/size`` over matched external records whose true
    record was released and is among the matches when ``truth_known`` (the input and the external
    table share an identifier column); otherwise it is the attacker's expected successes over all
    matched records (``truth_known`` False, with a ``note`` saying so).
    """

    external_records: int
    matched_records: int
    unique_matches: int
    expected_reidentified: float
    reidentified_share: float
    truth_known: bool
    qis: tuple[str, ...]
    unknown_values: Mapping[str, int] = field(default_factory=dict)
    group_sizes: tuple[int, ...] = field(default=(), repr=False)
    note: str = ""

    def size_distribution(self) -> dict[int, int]:
        """External records per matching group size (0: unmatched), for a chart."""
        sizes, counts = np.unique(np.asarray(self.group_sizes, dtype=np.int64), return_counts=True)
        return {int(s): int(c) for s, c in zip(sizes, counts, strict=True)}

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``linkage`` object."""
        return {
            "external_records": self.external_records,
            "matched_records": self.matched_records,
            "unique_matches": self.unique_matches,
            "expected_reidentified": self.expected_reidentified,
            "reidentified_share": self.reidentified_share,
            "truth_known": self.truth_known,
            "note": self.note,
        }

    def details(self) -> dict[str, Any]:
        """Everything else: truth known, the columns matched on, unknown values, the size chart."""
        return {
            "truth_known": self.truth_known,
            "qis": list(self.qis),
            "unknown_values": dict(self.unknown_values),
            "size_distribution": {str(k): v for k, v in self.size_distribution().items()},
        }


def shared_qis(
    external: pd.DataFrame, qis: Sequence[str], id_column: str | None = None
) -> list[str]:
    """The quasi-identifiers the external table holds; at least one, or a clear error."""
    shared = [q for q in qis if q in external.columns and q != id_column]
    if not shared:
        raise ConfigError(
            f"The external table shares no quasi-identifier with the release: its columns are "
            f"{list(external.columns)}, the quasi-identifiers are {list(qis)}. Give the external "
            "table at least one quasi-identifier column under the same name."
        )
    return shared


def _generalize(
    values: np.ndarray, hierarchy: Hierarchy | None, level: int, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """Labels at ``level`` and a mask of values the hierarchy lacks (those stay unmatched)."""
    if hierarchy is None:
        if level != 0:
            raise ConfigError(
                f"Quasi-identifier {name!r} is released at level {level} but no hierarchy was given "
                "to generalize the external values with."
            )
        return values, np.zeros(len(values), dtype=bool)
    if not 0 <= level < hierarchy.height:
        raise ConfigError(
            f"Level {level} of {name!r} is outside its hierarchy (levels 0..{hierarchy.height - 1})."
        )
    index = pd.Index(hierarchy.table[:, 0].astype(str))
    pos = index.get_indexer(pd.Index(values.astype(str)))
    unknown = pos < 0
    out = np.asarray(hierarchy.table[:, level], dtype=object)[np.where(unknown, 0, pos)].astype(str)
    return out.astype(object), unknown


def _covers(label: str, value: str, ancestors: Mapping[str, set[str]] | None) -> bool:
    if label == value or label == SUPPRESSED:
        return True
    if ancestors is not None and label in ancestors.get(value, ()):
        return True
    m = _RANGE.match(label)
    if m is None:
        return False
    try:
        v = float(value)
    except ValueError:
        return False
    lo, hi = float(m.group(1)), float(m.group(2))
    return lo <= v <= hi if m.group(3) == "]" else lo <= v < hi


def _coverage(
    ext_values: np.ndarray, labels: np.ndarray, hierarchy: Hierarchy | None
) -> np.ndarray:
    """Boolean matrix: distinct external value x distinct released label (does the label cover it?)."""
    ancestors = None
    if hierarchy is not None:
        table = hierarchy.table.astype(str)
        ancestors = {row[0]: set(row[1:]) for row in table}
    out = np.zeros((len(ext_values), len(labels)), dtype=bool)
    for i, v in enumerate(ext_values):
        out[i] = [_covers(lab, v, ancestors) for lab in labels]
    return out


def linkage(
    external: pd.DataFrame,
    released: pd.DataFrame,
    *,
    qis: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    levels: Mapping[str, int] | None = None,
    id_column: str | None = None,
    released_ids: Sequence[Any] | np.ndarray | None = None,
    progress: Progress | None = None,
) -> LinkageResult:
    """Match every external record against the released records; see the module docstring.

    ``qis`` are the release's quasi-identifiers (those the external table lacks are ignored).
    ``released_ids``, aligned with ``released``'s rows, gives each released record's identifier
    (from the input's ``id_column``), so the truth of each match is known.
    """
    hierarchies = dict(hierarchies or {})
    if len(external) == 0:
        raise DataError("The external table has no records: give at least one.")
    if id_column is not None and id_column not in external.columns:
        raise ConfigError(
            f"'id_column' {id_column!r} is not a column of the external table; its columns are "
            f"{list(external.columns)}."
        )
    missing = [q for q in qis if q not in released.columns]
    if missing:
        raise ConfigError(
            f"Quasi-identifier(s) {missing} are not columns of the released table ({list(released.columns)})."
        )
    cols = shared_qis(external, qis, id_column)
    truth = released_ids is not None and id_column is not None
    if released_ids is not None and len(released_ids) != len(released):
        raise DataError(
            f"'released_ids' has {len(released_ids)} entries for {len(released)} released records; "
            "give one identifier per released record."
        )
    report = progress or (lambda f, m: None)
    report(0.0, "linkage: matching")

    rel = np.column_stack([to_labels(released[q]) for q in cols]).astype(object)
    suppressed = np.all(
        np.column_stack([to_labels(released[q]) for q in qis]) == SUPPRESSED, axis=1
    )
    if levels is not None and all(
        q in hierarchies and levels.get(q, 0) == hierarchies[q].height - 1 for q in qis
    ):
        suppressed[:] = (
            False  # every QI at its top level: '*' is the released value, not suppression
        )
    keep = ~suppressed
    rel = rel[keep]
    rel_ids = None if not truth else np.asarray(released_ids, dtype=object)[keep]

    ext = np.column_stack([to_labels(external[q]) for q in cols]).astype(object)
    unknown_values: dict[str, int] = {}
    unknown_rows = np.zeros(len(external), dtype=bool)
    if levels is not None:
        for j, q in enumerate(cols):
            ext[:, j], unknown = _generalize(
                ext[:, j], hierarchies.get(q), int(levels.get(q, 0)), q
            )
            if unknown.any():
                unknown_values[q] = int(unknown.sum())
                unknown_rows |= unknown

    # Groups: distinct released tuples on the shared QIs, with their sizes.
    rel_keys = pd.MultiIndex.from_arrays([rel[:, j] for j in range(len(cols))])
    group_of_row, groups = pd.factorize(rel_keys, sort=False)
    sizes = np.bincount(group_of_row, minlength=len(groups)).astype(np.int64)
    ext_keys = pd.MultiIndex.from_arrays([ext[:, j] for j in range(len(cols))])
    ext_tuple, ext_tuples = pd.factorize(ext_keys, sort=False)
    n_ext_tuples = len(ext_tuples)

    group_codes: list[np.ndarray] = []
    ext_codes: list[np.ndarray] = []
    cover: list[np.ndarray] = []
    value_labels: list[np.ndarray] = []
    label_labels: list[np.ndarray] = []
    exact = levels is not None
    if not exact:
        # Coverage per QI: distinct external value x distinct released label.
        for j in range(len(cols)):
            lab_codes, labs = pd.factorize(np.asarray([g[j] for g in groups], dtype=object))
            val_codes, vals = pd.factorize(
                np.asarray([t[j] for t in ext_tuples], dtype=object), sort=False
            )
            group_codes.append(lab_codes)
            ext_codes.append(val_codes)
            value_labels.append(np.asarray(vals, dtype=str))
            label_labels.append(np.asarray(labs, dtype=str))
            cover.append(_coverage(value_labels[-1], label_labels[-1], hierarchies.get(cols[j])))
        # Labels that only ever cover equal values (a raw release): an exact match says the same.
        exact = all(
            np.array_equal(c, v[:, None] == lab[None, :])
            for c, v, lab in zip(cover, value_labels, label_labels, strict=True)
        )

    if exact:
        # Exact match of (generalized) tuples: at most one group per external record.
        pos = pd.Index(groups).get_indexer(pd.Index(ext_tuples))
        matched_group = pos[ext_tuple]
        matched_group[unknown_rows] = -1
        size = np.where(matched_group >= 0, sizes[np.maximum(matched_group, 0)], 0)

        def true_matched(i_ext: np.ndarray, g_true: np.ndarray) -> np.ndarray:
            return matched_group[i_ext] == g_true
    else:
        # Per block of external tuples, the groups matching on every QI.
        tuple_size = np.zeros(n_ext_tuples, dtype=np.int64)
        block = max(1, _MAX_CELLS // max(len(groups), 1))
        match_blocks: list[np.ndarray] = []
        for start in range(0, n_ext_tuples, block):
            stop = min(start + block, n_ext_tuples)
            m = np.ones((stop - start, len(groups)), dtype=bool)
            for j in range(len(cols)):
                m &= cover[j][ext_codes[j][start:stop]][:, group_codes[j]]
            tuple_size[start:stop] = m.astype(np.int64) @ sizes
            if truth:
                match_blocks.append(m)
            report(0.9 * stop / n_ext_tuples, "linkage: matching")
        size = tuple_size[ext_tuple]
        matches = np.concatenate(match_blocks) if match_blocks else None

        def true_matched(i_ext: np.ndarray, g_true: np.ndarray) -> np.ndarray:
            assert matches is not None
            return matches[ext_tuple[i_ext], g_true]

    matched = size > 0
    inverse = np.where(matched, 1.0 / np.maximum(size, 1), 0.0)
    if truth:
        id_pos = pd.Index(pd.Series(rel_ids, dtype=object)).get_indexer(
            pd.Index(pd.Series(external[id_column].to_numpy(), dtype=object))
        )
        if pd.Index(pd.Series(rel_ids, dtype=object)).has_duplicates:
            raise DataError(
                f"The identifier column {id_column!r} repeats values among the released records; "
                "the truth of a match needs one record per identifier."
            )
        released_here = matched & (id_pos >= 0)
        hit = np.zeros(len(external), dtype=bool)
        idx = np.flatnonzero(released_here)
        if len(idx):
            hit[idx] = true_matched(idx, group_of_row[id_pos[idx]])
        expected = float(inverse[hit].sum())
    else:
        expected = float(inverse.sum())
    report(1.0, "linkage: done")
    n = len(external)
    note = (
        ""
        if truth
        else "whose record each released row is cannot be established (no identifier aligns the "
        "released rows with the input), so this is the attacker's own expectation: the sum over "
        "matched external records of 1 / (number of released records matching)"
    )
    if unknown_values:
        log.info("linkage: values absent from the hierarchies: %s", unknown_values)
    return LinkageResult(
        external_records=n,
        matched_records=int(matched.sum()),
        unique_matches=int((size == 1).sum()),
        expected_reidentified=expected,
        reidentified_share=expected / n,
        truth_known=bool(truth),
        qis=tuple(cols),
        unknown_values=unknown_values,
        group_sizes=tuple(int(s) for s in size),
        note=note,
    )


def linkage_attack(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    external: pd.DataFrame,
    qis: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    levels: Mapping[str, int] | None = None,
    id_column: str | None = None,
    released_ids: Sequence[Any] | np.ndarray | None = None,
    progress: Progress | None = None,
) -> LinkageResult:
    """:func:`linkage` in the attack registry's calling convention ``(original, released,
    control, **params)``; linkage reads only the release and the external table."""
    return linkage(
        external,
        released,
        qis=qis,
        hierarchies=hierarchies,
        levels=levels,
        id_column=id_column,
        released_ids=released_ids,
        progress=progress,
    )

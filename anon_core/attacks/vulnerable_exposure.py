"""How many of the most vulnerable records a release singles out, links or lets infer.

For the 1% most vulnerable records of the original (:mod:`anon_core.attacks.vulnerable`):

* **singled out**: exactly one released row's quasi-identifier labels all cover the record's
  values (the value itself, its generalization in the hierarchy, an interval or masked code
  holding it). On a generalized release that is "the record's released class has size 1"; on a
  release of raw values it is the predicate "every quasi-identifier equals this record's value"
  (the strictest multivariate predicate of anonymeter's singling out) matching one row.
  Suppressed rows (every quasi-identifier ``*``) cover nothing.
* **linked**: with the quasi-identifiers split in two halves (first half of the columns, the
  rest), the nearest released row by the first half is the nearest by the second (anonymeter's
  linkability with one neighbour, Giomi et al., PETS 2023), under the Gower distance, the
  record generalized like the release first (as the battery does). A nearest row counts only
  when it is strictly nearer than every other row: with a tie (every row of a generalized class
  is equally near) the attacker has no single row to link, and the order in which the rows
  happen to be stored must not decide.
* **inferred** (when secrets are given): the battery's inference attack
  (:mod:`anon_core.attacks.inference`) guesses at least one of the record's secrets right: the
  secret of the nearest released row on every other column (ties drawn with the seed), equal,
  or within 5% for a numeric secret.

Counts only: never a record's values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.battery import frame_inputs
from anon_core.attacks.comparators import contains, is_generalized_label
from anon_core.attacks.encoding import encode_tables, is_numeric_column
from anon_core.attacks.inference import right_guesses
from anon_core.attacks.neighbors import nearest
from anon_core.attacks.release_rows import suppressed_rows
from anon_core.attacks.vulnerable import MixedEncoder, knn_distances, vulnerable_records
from anon_core.data.dataset import Role
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.validation import check_float

#: Cells (targets x released classes) compared at once when counting the rows that cover.
_CELLS_PER_CHUNK = 4_000_000


@dataclass(frozen=True)
class Exposure:
    """Of ``n_records`` most vulnerable records: how many are singled out, how many linked
    (None when there are fewer than two quasi-identifiers to split) and, when secrets were
    given, how many have a secret inferred (in total and per secret)."""

    n_records: int
    singled_out: int
    linked: int | None
    inferred: int | None = None
    inferred_by_secret: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_records": self.n_records,
            "singled_out": self.singled_out,
            "linked": self.linked,
        }
        if self.inferred is not None:
            out["inferred"] = self.inferred
            out["inferred_by_secret"] = dict(self.inferred_by_secret)
        return out


def covering_rows(
    targets: pd.DataFrame,
    released: pd.DataFrame,
    qis: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> np.ndarray:
    """Per target record, the number of released rows whose labels cover its values on every
    quasi-identifier (see the module docstring); suppressed rows cover nothing."""
    hierarchies = hierarchies or {}
    stars = suppressed_rows(released, qis)
    if stars.all():
        return np.zeros(len(targets), dtype=np.int64)
    kept = released.loc[~stars, list(qis)]
    labels = pd.DataFrame({q: to_labels(kept[q]).astype(str) for q in qis})
    classes = labels.groupby(list(qis), sort=False, dropna=False).size()
    sizes = classes.to_numpy(dtype=np.int64)
    keys = classes.index.to_frame(index=False)
    covers: list[np.ndarray] = []  # per column: (targets, distinct labels) covered
    codes: list[np.ndarray] = []  # per column: each class's label position
    for q in qis:
        codes_q, distinct = pd.factorize(keys[q].astype(str))
        codes.append(codes_q)
        values = to_labels(targets[q]).astype(str)
        where = {v: j for j, v in enumerate(distinct)}
        matrix = np.zeros((len(values), len(distinct)), dtype=bool)
        for i, v in enumerate(values):
            j = where.get(v)
            if j is not None:
                matrix[i, j] = True
        hierarchy = hierarchies.get(q)
        ancestors = None
        leaves = None
        if hierarchy is not None:
            table = hierarchy.table.astype(str)
            ancestors = {row[0]: set(row) for row in table}
            leaves = set(ancestors)
        general = [
            j
            for j, label in enumerate(distinct)
            if label == "*" or is_generalized_label(label, leaves)
        ]
        for j in general:
            for i, v in enumerate(values):
                if not matrix[i, j]:
                    matrix[i, j] = contains(distinct[j], v, ancestors)
        covers.append(matrix)
    out = np.zeros(len(targets), dtype=np.int64)
    step = max(1, _CELLS_PER_CHUNK // max(1, len(targets)))
    for start in range(0, len(sizes), step):
        stop = min(start + step, len(sizes))
        match = np.ones((len(targets), stop - start), dtype=bool)
        for matrix, c in zip(covers, codes, strict=True):
            match &= matrix[:, c[start:stop]]
        out += match.astype(np.int64) @ sizes[start:stop]
    return out


def _linked(
    original: pd.DataFrame, released: pd.DataFrame, rows: np.ndarray, qis: list[str]
) -> int:
    """Targets (``rows`` of ``original``) whose strictly nearest released row is the same by
    both halves of the quasi-identifiers."""
    targets = original.iloc[rows]
    halves = (qis[: len(qis) // 2], qis[len(qis) // 2 :])
    nearest_rows, unique = [], []
    for cols in halves:
        enc = MixedEncoder([original, released], cols)
        k_near = min(2, len(released))
        dist, idx = knn_distances(enc.transform(released), k_near, enc.transform(targets))
        nearest_rows.append(idx[:, 0])
        # a tie at the smallest distance (e.g. a generalized release, where every row of a
        # class is as near as the next) leaves no single nearest row: nothing is linked
        unique.append(dist[:, 0] < dist[:, 1] if k_near == 2 else np.ones(len(idx), bool))
    return int(np.sum((nearest_rows[0] == nearest_rows[1]) & unique[0] & unique[1]))


def _inferred(
    original: pd.DataFrame,
    released: pd.DataFrame,
    rows: np.ndarray,
    secrets: Sequence[str],
    random_state: int | None,
) -> tuple[int, dict[str, int]]:
    """Targets with at least one secret guessed right by the battery's inference attack, and
    the count per secret."""
    rng = np.random.default_rng(random_state)
    columns = [str(c) for c in released.columns]
    right = np.zeros(len(rows), dtype=bool)
    per: dict[str, int] = {}
    for secret in secrets:
        aux = [c for c in columns if c != secret]
        if not aux:
            continue
        used = [*aux, secret]
        frames = [original[used], released[used]]
        enc = encode_tables(frames, used)
        s = len(aux)
        values = enc.levels[s].astype(float) if is_numeric_column(frames, secret) else None
        guess = enc.codes[1][:, s][nearest(enc, 0, rows, 1, enc.index(aux), 1, rng)[:, 0]]
        ok = right_guesses(guess, enc.codes[0][rows, s], values)
        per[secret] = int(ok.sum())
        right |= ok
    return int(right.sum()), per


def vulnerable_exposure(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qis: Sequence[str],
    *,
    secrets: Sequence[str] | None = None,
    roles: Mapping[str, Role | str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    share: float = 0.01,
    k: int = 5,
    random_state: int | None = None,
) -> Exposure:
    """Exposure of the ``share`` most vulnerable records of ``original`` (at least one) in
    ``released`` over the quasi-identifiers ``qis`` (see the module docstring).

    ``secrets`` (columns of both tables) adds the inference count with ``random_state``;
    ``roles`` names the other columns' roles (identifiers are left out); ``hierarchies``
    generalize the records like the release before linking and guessing."""
    share = check_float("share", share, 0.0, 1.0, min_inclusive=False)
    qis = [str(c) for c in qis]
    if not qis:
        raise ConfigError("Exposure needs at least one quasi-identifier.")
    if len(original) < 2 or len(released) == 0:
        raise ConfigError("Exposure needs at least 2 original records and 1 released row.")
    secrets = [str(s) for s in secrets or ()]
    for name in [*qis, *secrets]:
        if name not in original.columns or name not in released.columns:
            raise ConfigError(
                f"Exposure: column {name!r} is not in both the original and the released table; "
                "name columns the two share."
            )
    original = original.reset_index(drop=True)
    n = max(1, math.ceil(share * len(original)))
    vul = vulnerable_records(original, qis, k=min(k, len(original) - 1), top=0)
    rows = np.asarray(vul.most(n), dtype=np.int64)
    singled = int((covering_rows(original.iloc[rows], released, qis, hierarchies) == 1).sum())
    if len(qis) < 2 and not secrets:
        return Exposure(n, singled, None)
    # linkage and inference compare the records generalized like the release (as the battery)
    given = {str(c): Role(r) for c, r in (roles or {}).items()}
    all_roles = {str(c): given.get(str(c), Role.INSENSITIVE) for c in released.columns}
    all_roles.update({q: Role.QUASI_IDENTIFIER for q in qis})
    all_roles.update({s: Role.SENSITIVE for s in secrets})
    inputs = frame_inputs(original, released, original.iloc[:1], all_roles, hierarchies)
    if len(inputs.released) == 0:
        return Exposure(n, singled, 0 if len(qis) >= 2 else None, 0 if secrets else None)
    linked = _linked(inputs.original, inputs.released, rows, qis) if len(qis) >= 2 else None
    if not secrets:
        return Exposure(n, singled, linked)
    inferred, per = _inferred(inputs.original, inputs.released, rows, secrets, random_state)
    return Exposure(n, singled, linked, inferred, per)

"""How many of the most vulnerable records a release singles out or links.

For the 1% most vulnerable records of the original (:mod:`anon_core.attacks.vulnerable`):

* **singled out**: the predicate "every quasi-identifier equals this record's value" matches
  exactly one released row (the strictest multivariate predicate of anonymeter's singling out);
* **linked**: with the quasi-identifiers split in two halves (first half of the columns, the
  rest), the nearest released row by the first half is the nearest by the second (anonymeter's
  linkability with one neighbour, Giomi et al., PETS 2023), under the Gower distance. A nearest
  row counts only when it is strictly nearer than every other row: with a tie (every row of a
  generalized class is equally near) the attacker has no single row to link, and the order in
  which the rows happen to be stored must not decide.

Counts only: never a record's values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.vulnerable import MixedEncoder, knn_distances, vulnerable_records
from anon_core.errors import ConfigError
from anon_core.validation import check_float


@dataclass(frozen=True)
class Exposure:
    """Of ``n_records`` most vulnerable records: how many are singled out, how many linked
    (None when there are fewer than two quasi-identifiers to split)."""

    n_records: int
    singled_out: int
    linked: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"n_records": self.n_records, "singled_out": self.singled_out, "linked": self.linked}


def _labels(frame: pd.DataFrame, columns: Sequence[str]) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [frame[c].astype(object).where(frame[c].notna(), None).astype(str) for c in columns]
    )


def vulnerable_exposure(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qis: Sequence[str],
    *,
    share: float = 0.01,
    k: int = 5,
) -> Exposure:
    """Exposure of the ``share`` most vulnerable records of ``original`` (at least one) in
    ``released`` over the quasi-identifiers ``qis`` (see the module docstring)."""
    share = check_float("share", share, 0.0, 1.0, min_inclusive=False)
    qis = [str(c) for c in qis]
    if not qis:
        raise ConfigError("Exposure needs at least one quasi-identifier.")
    if len(original) < 2 or len(released) == 0:
        raise ConfigError("Exposure needs at least 2 original records and 1 released row.")
    original = original.reset_index(drop=True)
    n = max(1, math.ceil(share * len(original)))
    vul = vulnerable_records(original, qis, k=min(k, len(original) - 1), top=0)
    targets = original.iloc[vul.most(n)]
    released_keys = pd.Series(1, index=_labels(released, qis)).groupby(level=list(range(len(qis))))
    counts = released_keys.size()
    target_keys = _labels(targets, qis)
    matched = counts.reindex(target_keys).fillna(0).to_numpy()
    singled = int((matched == 1).sum())
    linked = None
    if len(qis) >= 2:
        halves = (qis[: len(qis) // 2], qis[len(qis) // 2 :])
        nearest, unique = [], []
        for cols in halves:
            enc = MixedEncoder([original, released], cols)
            k_near = min(2, len(released))
            dist, idx = knn_distances(enc.transform(released), k_near, enc.transform(targets))
            nearest.append(idx[:, 0])
            # a tie at the smallest distance (e.g. a generalized release, where every row of a
            # class is as near as the next) leaves no single nearest row: nothing is linked
            unique.append(dist[:, 0] < dist[:, 1] if k_near == 2 else np.ones(len(idx), bool))
        linked = int(np.sum((nearest[0] == nearest[1]) & unique[0] & unique[1]))
    return Exposure(n, singled, linked)

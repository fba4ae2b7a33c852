"""Distributions of a released transformation: per-attribute Hellinger distance to the original.

:func:`compare_distributions` projects the released distribution back onto the original values
(the maximum-entropy reconstruction of Kifer and Gehrke, "Injecting utility into anonymized
datasets", SIGMOD 2006) and measures the Hellinger distance per attribute.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.dataset import Role
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.search.evaluate import TransformationResult
from anon_core.transform.problem import Problem
from anon_core.validation import check_choice

log = logging.getLogger(__name__)

__all__ = [
    "AttributeDistance",
    "DistributionComparison",
    "check_problem_result",
    "compare_distributions",
    "hellinger",
]


def check_problem_result(problem: Problem, result: TransformationResult) -> None:
    """ConfigError unless ``result`` is a TransformationResult evaluated on ``problem``."""
    if not isinstance(problem, Problem):
        raise ConfigError(f"'problem' must be an anon_core.Problem, got {type(problem).__name__}.")
    if not isinstance(result, TransformationResult):
        raise ConfigError(
            f"'result' must be a TransformationResult (from problem.evaluate(...) or "
            f"problem.search().optimum), got {type(result).__name__}."
        )
    if result.table.freq is not problem.freq:
        raise ConfigError(
            "'result' was evaluated on another Problem (another dataset or role assignment). "
            "Evaluate the transformation with this problem: problem.evaluate(result.transformation)."
        )


def hellinger(p: Any, q: Any) -> float:
    """Hellinger distance H(P, Q) = sqrt(1 - sum_i sqrt(p_i q_i)), in [0, 1].

    ``p`` and ``q`` are non-negative weights over the same values (counts or
    shares); each is normalised to sum 1. H = 0 for identical distributions and
    1 for disjoint supports. Sources: E. Hellinger, J. reine angew. Math. 136
    (1909); the sum is Bhattacharyya's coefficient (Bull. Calcutta Math. Soc. 35,
    1943). Equivalently H^2 = (1/2) * sum_i (sqrt p_i - sqrt q_i)^2: the convention
    with the 1/2 factor, which bounds H by 1.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1:
        raise ConfigError(
            f"'p' and 'q' must be 1-D arrays of the same length, got shapes {p.shape} and {q.shape}."
        )
    for name, x in (("p", p), ("q", q)):
        if not np.isfinite(x).all() or (x < 0).any():
            raise ConfigError(
                f"'{name}' must hold finite non-negative weights, got {x.tolist()[:10]}."
            )
        if x.sum() <= 0:
            raise ConfigError(
                f"'{name}' must have a positive total to be a distribution, got all zeros."
            )
    # The squared-difference form: 1 - BC cancels catastrophically (identical
    # distributions would give ~1e-8 instead of 0).
    diff = np.sqrt(p / p.sum()) - np.sqrt(q / q.sum())
    return min(1.0, math.sqrt(0.5 * float(np.dot(diff, diff))))


@dataclass(frozen=True)
class AttributeDistance:
    """Hellinger distance of one attribute (``level`` is None for non-QIs)."""

    attribute: str
    role: str
    level: int | None
    n_values: int
    hellinger: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "role": self.role,
            "level": self.level,
            "n_values": int(self.n_values),
            "hellinger": float(self.hellinger),
        }


@dataclass(frozen=True, eq=False)
class DistributionComparison:
    """Original vs released distributions per attribute.

    ``distributions`` is tidy: one row per (attribute, original value) with
    columns attribute, value (original label), released_value (the label it is
    released as), original_share, released_share (the projection described in
    :func:`compare_distributions`). Values are in the dataset's dictionary order
    (first appearance in the table).
    """

    attributes: tuple[AttributeDistance, ...]
    distributions: pd.DataFrame = field(repr=False)
    suppressed_records: str
    released_records: int
    suppressed_count: int

    def hellinger(self, attribute: str) -> float:
        for a in self.attributes:
            if a.attribute == attribute:
                return a.hellinger
        raise ConfigError(
            f"'attribute' {attribute!r} was not compared; compared: {[a.attribute for a in self.attributes]}."
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per attribute: attribute, role, level, n_values, hellinger."""
        frame = pd.DataFrame(
            [a.to_dict() for a in self.attributes],
            columns=["attribute", "role", "level", "n_values", "hellinger"],
        )
        return frame.astype({"level": "Int64"})

    def to_dict(self, include_distributions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "suppressed_records": self.suppressed_records,
            "released_records": int(self.released_records),
            "suppressed_count": int(self.suppressed_count),
            "attributes": [a.to_dict() for a in self.attributes],
        }
        if include_distributions:
            out["distributions"] = self.distributions.to_dict(orient="records")
        return out


def compare_distributions(
    problem: Problem,
    result: TransformationResult,
    attributes: Sequence[str] | None = None,
    suppressed_records: str = "remove",
) -> DistributionComparison:
    """Per attribute, the Hellinger distance between original and released distributions.

    *Original distribution*: shares of the original values over all N records.

    *Released distribution*, projected back onto the original values: the
    records released with generalized value g (at the QI's level) are spread
    **uniformly** over the original values of the data that g covers. Uniform,
    not in proportion to the values' original frequencies, because:

    * it is what a user of the release can reconstruct: the release does not
      publish the frequencies inside g, and the uniform spread is the
      maximum-entropy distribution consistent with the released counts (Kifer
      and Gehrke, SIGMOD 2006; the uniformity assumption of LeFevre et al.,
      "Workload-aware anonymization", KDD 2006);
    * spreading in proportion to the original frequencies would give back the
      original distribution exactly whenever no record is suppressed, so the
      distance would not see generalization at all.

    "The original values g covers" are those present in the data (hierarchy rows
    without records are left out), so both distributions live on the same
    values and sum to 1. Consequences: the identity transformation without
    suppression gives 0; generalizing a QI to ``*`` gives the distance between
    its original distribution and the uniform one over its m distinct values,
    sqrt(1 - sum_a sqrt(p_a / m)) (0 only if the original is uniform).

    *Suppressed records*, ``suppressed_records='remove'`` (default, as
    ``apply_transformation`` releases them): excluded; the released
    distribution is normalised over the released records. Sensitive and
    insensitive attributes are released unchanged, so suppression is the only
    thing that moves them. If every record is suppressed the released
    distribution is undefined and the distance is NaN. With ``'mask'`` (records
    kept with every QI ``*``, as ARX outputs them) a suppressed record counts as
    fully generalized: its QI mass is spread uniformly over all m values and its
    other attributes are kept.

    ``attributes`` defaults to every QI then every sensitive attribute; insensitive
    columns may be named too (they are encoded here). Computed on the frequency
    table's tuples (QIs, sensitive attributes) with ``np.bincount``, so the cost
    is one pass over the distinct tuples per attribute.
    """
    check_problem_result(problem, result)
    mode = check_choice("suppressed_records", suppressed_records, ("remove", "mask"))
    ds, freq = problem.dataset, problem.freq
    if attributes is None:
        names = list(ds.qis) + list(ds.sensitive)
    else:
        if isinstance(attributes, str):
            attributes = [attributes]
        names = list(dict.fromkeys(str(a) for a in attributes))
        for a in names:
            if a not in ds.roles:
                raise ConfigError(
                    f"'attributes' names {a!r}, which is not a column. Columns are: {list(ds.roles)}."
                )
            if ds.roles[a] == Role.IDENTIFIER:
                raise ConfigError(
                    f"'attributes' names {a!r}, an identifier: identifiers are not released. Leave it out."
                )
    kept_tuple = ~result.suppressed[result.table.tuple_class]
    if mode == "remove" and not kept_tuple.any():
        log.warning(
            "every record is suppressed: the released distributions are undefined (distance NaN)"
        )
    kept_counts = np.where(kept_tuple, freq.counts, 0).astype(float)
    n_supp = int(result.suppressed_records)
    n_kept = freq.n_records - n_supp
    record_kept: np.ndarray | None = None
    rows: list[AttributeDistance] = []
    frames: list[pd.DataFrame] = []
    for name in names:
        role = ds.roles[name]
        level: int | None = None
        if role == Role.QUASI_IDENTIFIER:
            j = freq.qis.index(name)
            level = int(result.levels[j])
            enc = ds.hierarchy(name)
            labels = ds.columns[name].labels
            m = len(labels)
            original = freq.value_counts[name].astype(float)
            gmap = enc.maps[level]
            n_g = enc.cardinality(level)
            released_g = np.bincount(freq.generalized(j, level), weights=kept_counts, minlength=n_g)
            covered = np.bincount(gmap, minlength=n_g).astype(float)
            released = released_g[gmap] / covered[gmap]
            if mode == "mask" and n_supp:
                released = released + n_supp / m
            released_labels = np.asarray(enc.labels[level], dtype=object)[gmap]
        elif role == Role.SENSITIVE:
            sc = freq.sensitive[name]
            labels = ds.columns[name].labels
            original = sc.global_counts.astype(float)
            weights = sc.count * (kept_tuple[sc.tuple_idx] if mode == "remove" else 1)
            released = np.bincount(sc.value, weights=weights, minlength=sc.cardinality).astype(
                float
            )
            released_labels = labels
        else:  # insensitive: not encoded by the dataset, encode it here
            codes, uniq = pd.factorize(to_labels(ds.frame[name]), sort=False)
            labels = np.asarray(uniq, dtype=object)
            original = np.bincount(codes, minlength=len(labels)).astype(float)
            if mode == "mask":
                released = original.copy()
            else:
                if record_kept is None:
                    record_kept = kept_tuple[freq.row_tuple]
                released = np.bincount(codes[record_kept], minlength=len(labels)).astype(float)
            released_labels = labels
        total = released.sum()
        if total > 0:
            distance = hellinger(original, released)
            released_share = released / total
        else:
            distance = math.nan
            released_share = np.zeros_like(released)
        rows.append(AttributeDistance(name, role.value, level, len(labels), distance))
        frames.append(
            pd.DataFrame(
                {
                    "attribute": name,
                    "value": np.asarray(labels, dtype=object).astype(str),
                    "released_value": np.asarray(released_labels, dtype=object).astype(str),
                    "original_share": original / original.sum(),
                    "released_share": released_share,
                }
            )
        )
    columns = ["attribute", "value", "released_value", "original_share", "released_share"]
    distributions = (
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    )
    return DistributionComparison(
        attributes=tuple(rows),
        distributions=distributions,
        suppressed_records=mode,
        released_records=int(n_kept if mode == "remove" else freq.n_records),
        suppressed_count=n_supp,
    )

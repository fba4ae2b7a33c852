"""Attribute disclosure of a released table: what each class reveals about a sensitive attribute.

For every sensitive attribute and every released (not suppressed) equivalence
class: the distribution of sensitive values, the distinct l and entropy l the
class reaches, the t it reaches under t-closeness (equal distance always,
ordered distance for numeric values, hierarchical distance when the attribute
has a hierarchy), and whether the class is homogeneous (a single sensitive
value, so membership discloses it). The per-class figures come from the
privacy models' own ``measure`` (anon_core.privacy.models), so they agree with what the
models enforce; t-closeness compares with the distribution over all input
records, as ARX does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING
from anon_core.errors import ConfigError
from anon_core.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity
from anon_core.privacy.models import PrivacyModel
from anon_core.privacy.tcloseness import (
    EqualDistanceTCloseness,
    HierarchicalDistanceTCloseness,
    OrderedDistanceTCloseness,
)

#: Columns of the per-class frame besides the QI columns.
FIXED_COLUMNS = (
    "class",
    "size",
    "distribution",
    "distinct_l",
    "entropy_l",
    "t_equal",
    "t_ordered",
    "t_hierarchical",
    "homogeneous",
)


@dataclass(frozen=True)
class DisclosureSummary:
    """Worst case over the released classes for one sensitive attribute."""

    attribute: str
    classes: int
    records: int
    min_distinct_l: int
    min_entropy_l: float
    max_t_equal: float
    max_t_ordered: float | None  # None: the attribute is not numeric
    max_t_hierarchical: float | None  # None: the attribute has no hierarchy
    homogeneous_classes: int
    homogeneous_records: int
    homogeneous_share: float  # of the released records


@dataclass(frozen=True, eq=False)
class AttributeDisclosure:
    """Per-class figures (a DataFrame, one row per released class) and their summary."""

    attribute: str
    classes: pd.DataFrame
    summary: DisclosureSummary


def is_numeric_attribute(labels: np.ndarray) -> bool:
    """Do all (non-missing) values of a sensitive attribute read as numbers?"""
    values = pd.Series(np.asarray(labels, dtype=object).astype(str))
    values = values[values != MISSING]
    return bool(len(values)) and bool(pd.to_numeric(values, errors="coerce").notna().all())


def _measure(model: PrivacyModel, result: Any) -> np.ndarray:
    freq = result.table.freq
    model.validate(freq)
    return np.asarray(model.measure(result.table, model.prepare(freq)), dtype=float)


def _distributions(
    cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, released: np.ndarray, labels: np.ndarray
) -> list[dict[str, int]]:
    """value -> count per released class, from sorted (class, value, count) triplets."""
    pick = np.isin(cls, released)
    cls, val, cnt = cls[pick], val[pick], cnt[pick]
    bounds = np.searchsorted(cls, released, side="left")
    ends = np.searchsorted(cls, released, side="right")
    names = np.asarray(labels, dtype=object).astype(str)[val].tolist()
    counts = cnt.tolist()
    # One small dict per released class: the only per-class Python step (bounded by the classes).
    return [
        dict(zip(names[b:e], counts[b:e], strict=True))
        for b, e in zip(bounds.tolist(), ends.tolist(), strict=True)
    ]


def _one(result: Any, attribute: str) -> AttributeDisclosure:
    table = result.table
    freq = table.freq
    dataset = freq.dataset
    column = dataset.columns[attribute]
    released = np.flatnonzero(~np.asarray(result.suppressed, dtype=bool))
    sizes = table.sizes[released]

    distinct = _measure(DistinctLDiversity(attribute=attribute, l=1), result)[released].astype(
        np.int64
    )
    entropy = _measure(EntropyLDiversity(attribute=attribute, l=1.0, estimator="shannon"), result)[
        released
    ]
    t_equal = _measure(EqualDistanceTCloseness(attribute=attribute, t=1.0), result)[released]
    numeric = is_numeric_attribute(column.labels)
    t_ordered = (
        _measure(OrderedDistanceTCloseness(attribute=attribute, t=1.0), result)[released]
        if numeric
        else None
    )
    has_hierarchy = column.encoded is not None
    t_hier = (
        _measure(HierarchicalDistanceTCloseness(attribute=attribute, t=1.0), result)[released]
        if has_hierarchy
        else None
    )
    homogeneous = distinct == 1

    frame: dict[str, Any] = {"class": released}
    for j, q in enumerate(freq.qis):
        enc = dataset.hierarchy(q)
        level = table.levels[j]
        name = q if q not in FIXED_COLUMNS else f"qi:{q}"
        frame[name] = np.asarray(enc.labels[level], dtype=object)[table.codes[released, j]]
    cls, val, cnt = table.sparse_hist(attribute)
    frame["size"] = sizes
    frame["distribution"] = _distributions(cls, val, cnt, released, column.labels)
    frame["distinct_l"] = distinct
    frame["entropy_l"] = entropy
    frame["t_equal"] = t_equal
    if t_ordered is not None:
        frame["t_ordered"] = t_ordered
    if t_hier is not None:
        frame["t_hierarchical"] = t_hier
    frame["homogeneous"] = homogeneous
    classes = pd.DataFrame(frame)

    records = int(sizes.sum())
    empty = len(released) == 0
    summary = DisclosureSummary(
        attribute=attribute,
        classes=len(released),
        records=records,
        min_distinct_l=0 if empty else int(distinct.min()),
        min_entropy_l=0.0 if empty else float(entropy.min()),
        max_t_equal=0.0 if empty else float(t_equal.max()),
        max_t_ordered=None if t_ordered is None else (0.0 if empty else float(t_ordered.max())),
        max_t_hierarchical=None if t_hier is None else (0.0 if empty else float(t_hier.max())),
        homogeneous_classes=int(homogeneous.sum()),
        homogeneous_records=int(sizes[homogeneous].sum()),
        homogeneous_share=float(sizes[homogeneous].sum() / records) if records else 0.0,
    )
    return AttributeDisclosure(attribute, classes, summary)


def attribute_disclosure(
    result: Any, attributes: Sequence[str] | None = None
) -> dict[str, AttributeDisclosure]:
    """Attribute disclosure of a :class:`~anon_core.search.evaluate.TransformationResult`, per sensitive attribute.

    ``attributes`` defaults to every sensitive attribute of the dataset (an
    empty dict when there is none).
    """
    sensitive = list(result.table.freq.dataset.sensitive)
    if attributes is None:
        attributes = sensitive
    if isinstance(attributes, str):
        attributes = [attributes]
    unknown = [a for a in attributes if a not in sensitive]
    if unknown:
        raise ConfigError(
            f"'attributes' names {unknown}, which are not sensitive attributes; sensitive attributes are "
            f"{sensitive or 'none'}. Give them the role 'sensitive'."
        )
    return {a: _one(result, a) for a in attributes}


def _num(x: float | None) -> float | None:
    if x is None or math.isnan(x) or math.isinf(x):
        return None
    return float(x)


def disclosure_dict(disclosures: dict[str, AttributeDisclosure]) -> dict[str, Any]:
    """The summaries as a JSON-ready dict, keyed by attribute."""
    out: dict[str, Any] = {}
    for name, d in disclosures.items():
        s = d.summary
        out[name] = {
            "classes": s.classes,
            "records": s.records,
            "min_distinct_l": s.min_distinct_l,
            "min_entropy_l": _num(s.min_entropy_l),
            "max_t_equal": _num(s.max_t_equal),
            "max_t_ordered": _num(s.max_t_ordered),
            "max_t_hierarchical": _num(s.max_t_hierarchical),
            "homogeneous_classes": s.homogeneous_classes,
            "homogeneous_records": s.homogeneous_records,
            "homogeneous_share": _num(s.homogeneous_share),
        }
    return out

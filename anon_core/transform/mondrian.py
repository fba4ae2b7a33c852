"""Mondrian: strict multidimensional local recoding (LeFevre, DeWitt and Ramakrishnan 2006).

K. LeFevre, D. J. DeWitt and R. Ramakrishnan, "Mondrian multidimensional
k-anonymity", ICDE 2006. The table starts as one partition; a partition is cut
in two (numeric attribute, at the median) or into the children of its covering
hierarchy node (categorical attribute), choosing the attribute with the widest
normalised range first and the next one when the cut is not *allowable*. A cut
is allowable when every resulting partition satisfies the privacy models
(strict partitioning: both sides, or every child, must hold on their own). A
partition no cut is allowable for is released as one equivalence class.

Partitions are judged with the registry's own models
(:mod:`anon_core.privacy.models`): the candidate partitions of a cut are handed to
``model.class_ok`` as the classes of a small class table, so k-anonymity and
distinct, entropy and recursive (c,l)-diversity (and any other class-based
model) mean exactly what they mean for full-domain generalization.

Everything works on the frequency table (distinct QI tuples with counts and
sparse sensitive histograms), so the cost grows with distinct tuples, not
rows. Partitions are refined breadth-first: all partitions of a round try their
first-choice attribute in one vectorized pass, those not cut try their second
choice in the next pass, and so on. Each partition's outcome depends only on
itself, so this is the paper's recursion, evaluated level by level.

Released values
    Numeric QIs (every label parses as a number): ``[min-max]`` of the values
    present in the partition, or the value itself. Categorical QIs: the label of
    the lowest hierarchy node covering the partition's values (``*`` when the
    values span several top-level nodes of a hierarchy without a single root).

Quality (local-recoding versions of :mod:`anon_core.quality.metrics`; they coincide
exactly with them when the partitions are a full-domain transformation's
classes released as hierarchy nodes, see :func:`full_domain_recoding`)
    * Loss: per record and QI the share of the hierarchy's rows the released
      value spans (for a numeric range: the hierarchy rows whose value lies in
      it), normalised with N/d and combined by the geometric mean as ARX's Loss.
    * Non-uniform entropy: per QI, sum over records of
      log2(records whose original value is in the released set / records with
      the record's original value).
    * Discernability: sum of squared partition sizes. AECS: N / partitions.
    * Precision and Height: per record and QI the hierarchy level of the
      released node. A numeric range has no node of its own; it counts with
      the level of the lowest hierarchy node covering every data value in the
      range (the node a hierarchy-based release would have to use), so for
      ranges Precision is an upper bound of the generalization actually done.

No records are suppressed: the suppression limit of the problem is not used.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anon_core.data.dataset import DROPPED_ROLES, Role
from anon_core.errors import ConfigError
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.privacy.models import PrivacyModel
from anon_core.quality.metrics import Loss, MetricValue, QualityMetric, floor10, make_metric
from anon_core.release.mondrian_partition import (
    LocalRecoding,
    PartitionEngine,
    categorical_domain,
    is_numeric_labels,
    parse_numbers,
)

if TYPE_CHECKING:
    from anon_core.transform.problem import Problem

log = logging.getLogger(__name__)

_LN2 = math.log(2.0)
#: Metrics reported in :attr:`MondrianResult.metrics` (default variants).
REPORTED_METRICS = ("loss", "precision", "discernability", "non-uniform-entropy", "aecs", "height")


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class MondrianResult:
    """A Mondrian release: the table, the partition of every input row, figures and quality.

    ``quality`` is the problem's metric (as the global optimum reports it);
    ``metrics`` holds every supported metric in its default variant.
    """

    released: pd.DataFrame
    row_partition: np.ndarray  # partition of each input row (numbered by first appearance)
    n_partitions: int
    min_partition_size: int
    max_partition_size: int
    average_partition_size: float
    runtime: float  # seconds
    quality: MetricValue | None
    metrics: dict[str, MetricValue]
    recoding: LocalRecoding = field(repr=False)
    models: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()

    @property
    def partition_sizes(self) -> np.ndarray:
        return self.recoding.sizes

    @property
    def loss(self) -> float:
        return self.metrics["loss"].value

    def summary(self) -> dict:
        """JSON-friendly figures (the CLI/dashboard style)."""
        return {
            "method": "mondrian",
            "models": list(self.models),
            "numeric": list(self.numeric),
            "partitions": int(self.n_partitions),
            "min_partition_size": int(self.min_partition_size),
            "max_partition_size": int(self.max_partition_size),
            "average_partition_size": float(self.average_partition_size),
            "runtime_s": round(self.runtime, 6),
            "quality": None
            if self.quality is None
            else {
                "metric": self.quality.metric,
                "value": self.quality.value,
                "per_attribute": dict(self.quality.per_attribute),
            },
            "metrics": {k: v.value for k, v in self.metrics.items()},
        }


# ------------------------------------------------------------------ quality
def full_domain_recoding(
    problem: Problem, levels: Mapping[str, int] | Sequence[int]
) -> LocalRecoding:
    """The classes of a full-domain transformation as a local recoding releasing hierarchy nodes.

    The consistency oracle: :func:`recoding_quality` of it equals the
    transformation's quality in :mod:`anon_core.quality.metrics` when nothing is suppressed.
    """
    freq = problem.freq
    table = freq.classes(levels)
    n_q = len(freq.qis)
    labels = np.empty((table.n_classes, n_q), dtype=object)
    leaves = np.zeros((table.n_classes, n_q), dtype=np.int64)
    covered = np.zeros_like(leaves)
    lv = np.zeros_like(leaves)
    for j, q in enumerate(freq.qis):
        dom = categorical_domain(freq, q)
        h = table.levels[j]
        node = table.codes[:, j]
        labels[:, j] = dom.labels[h][node]
        leaves[:, j] = dom.leaves[h][node]
        covered[:, j] = dom.records[h][node]
        lv[:, j] = h
    return LocalRecoding(
        np.asarray(table.tuple_class, dtype=np.int64),
        table.sizes.astype(np.int64),
        labels,
        leaves,
        covered,
        lv,
    )


def recoding_quality(
    problem: Problem, recoding: LocalRecoding, metric: QualityMetric | str | None = None
) -> MetricValue | None:
    """A quality metric of a local recoding (None for a metric without a local-recoding version).

    Sums are formed as :mod:`anon_core.quality.metrics` forms them (per original value
    in dictionary order), so a recoding whose released values are a full-domain
    transformation's nodes gets bit-identical figures.
    """
    freq = problem.freq
    if metric is None:
        metric = problem.evaluator.metric
    elif isinstance(metric, str):
        metric = make_metric(metric)
    n = float(freq.n_records)
    part = recoding.tuple_partition
    counts = freq.counts
    key = metric.key
    if key == "loss":
        totals = np.zeros(len(freq.qis))
        bases = np.zeros(len(freq.qis))
        for j, q in enumerate(freq.qis):
            enc = freq.dataset.hierarchy(q)
            c = freq.value_counts[q]
            d = float(enc.n_rows)
            spanned = np.bincount(
                freq.tuples[:, j], weights=counts * recoding.leaves[part, j], minlength=len(c)
            )
            share = (spanned / c) / d
            totals[j] = float(np.dot(c.astype(float), share))
            bases[j] = freq.n_records / d
        loss = Loss()
        v = loss._normalise(freq, totals, bases)
        per = {q: float(x) for q, x in zip(freq.qis, v, strict=True)}
        return MetricValue(key, float(loss._geometric(v)), per)
    if key in ("precision", "height"):
        per = {}
        for j, q in enumerate(freq.qis):
            mean_level = float(np.dot(counts, recoding.levels[part, j])) / n
            if key == "height":
                per[q] = mean_level
                continue
            top = freq.dataset.hierarchy(q).height - 1
            frac = mean_level / top if top > 0 else 0.0
            if not metric.monotonic:
                frac = (
                    (n - 0) * frac + 0
                ) / n  # no suppression; ARX's formula kept for bit-equality
            per[q] = float(frac)
        if key == "height":
            return MetricValue(key, float(sum(per.values())), per)
        score = 0.0
        for v in per.values():
            score += v / len(per)
        return MetricValue(key, score, per)
    if key == "non-uniform-entropy":
        per = {}
        for j, q in enumerate(freq.qis):
            a = freq.tuples[:, j].astype(np.int64)
            cover = recoding.covered[part, j]
            order = np.lexsort((cover, a))
            a_s, cov_s = a[order], cover[order]
            first = np.flatnonzero(np.r_[True, (a_s[1:] != a_s[:-1]) | (cov_s[1:] != cov_s[:-1])])
            nums = np.add.reduceat(counts[order], first).astype(float)
            c = freq.value_counts[q].astype(float)[a_s[first]]
            terms = nums * (np.log(c / cov_s[first].astype(float)) / _LN2)
            raw = float(np.cumsum(terms)[-1]) if len(terms) else 0.0
            per[q] = float(floor10(-raw))
        return MetricValue(key, float(sum(per.values())), per)
    if key == "discernability":
        return MetricValue(key, float(np.sum(recoding.sizes.astype(float) ** 2)))
    if key == "aecs":
        return MetricValue(key, freq.n_records / max(recoding.n_partitions, 1))
    log.warning("Metric %r has no local-recoding version; Mondrian reports no value for it.", key)
    return None


# ------------------------------------------------------------------ entry point
def _resolve_models(
    problem: Problem, k: int | None, models: Iterable[PrivacyModel] | None
) -> list[PrivacyModel]:
    chosen = list(problem.evaluator.models if models is None else models)
    if k is not None:
        chosen = [KAnonymity(k=k)] + [m for m in chosen if not isinstance(m, KAnonymity)]
    if not chosen:
        raise ConfigError(
            "Mondrian needs a privacy model: pass k (e.g. k=5) or models, or give the problem privacy models."
        )
    for m in chosen:
        if not isinstance(m, PrivacyModel):
            raise ConfigError(
                f"'models' must hold privacy models (see anon_core.make_model), got {m!r}."
            )
        if m.sample_based:
            raise ConfigError(
                f"Mondrian checks models per partition; {m!r} judges the whole release and is not supported. "
                "Use a class-based model (k-anonymity, l-diversity, t-closeness...)."
            )
        m.validate(problem.freq)
    return chosen


def _resolve_numeric(problem: Problem, numeric: Iterable[str] | None) -> set[str]:
    ds = problem.dataset
    if numeric is None:
        return {q for q in ds.qis if is_numeric_labels(ds.columns[q].labels)}
    if isinstance(numeric, str):
        numeric = [numeric]
    chosen = set(numeric)
    unknown = sorted(chosen - set(ds.qis))
    if unknown:
        raise ConfigError(f"'numeric' names {unknown}, which are not quasi-identifiers ({ds.qis}).")
    for q in sorted(chosen):
        if not np.isfinite(parse_numbers(ds.columns[q].labels)).all():
            raise ConfigError(
                f"'numeric' names {q!r}, but not all of its values are numbers; it can only be split "
                "along its hierarchy (leave it out of 'numeric')."
            )
    return chosen


def _released_frame(
    problem: Problem, recoding: LocalRecoding, row_partition: np.ndarray
) -> pd.DataFrame:
    """As :func:`anon_core.release.apply.apply_transformation`: identifiers dropped, QIs recoded, row order kept."""
    ds = problem.dataset
    out = {}
    for col in ds.frame.columns:
        role = ds.roles[str(col)]
        if role in DROPPED_ROLES:
            continue
        if role == Role.QUASI_IDENTIFIER:
            j = ds.qis.index(str(col))
            out[col] = np.asarray(recoding.labels[:, j], dtype=object)[row_partition]
        else:
            out[col] = ds.frame[col].to_numpy()
    return pd.DataFrame(out, index=ds.frame.index).reset_index(drop=True)


def mondrian(
    problem: Problem,
    k: int | None = None,
    models: Iterable[PrivacyModel] | None = None,
    numeric: Iterable[str] | None = None,
) -> MondrianResult:
    """Strict multidimensional Mondrian partitioning (LeFevre, DeWitt and Ramakrishnan, ICDE 2006).

    ``models`` default to the problem's; ``k`` replaces any k-anonymity among
    them by k-anonymity with this k. Every class-based model is supported
    (checked per partition as the registry defines it); sample-based risk
    models are not. ``numeric`` lists the QIs cut at the median into ranges
    (default: those whose labels all parse as numbers, as the loader infers
    them); the others are cut along their hierarchies. No record is
    suppressed. Raises :class:`~anon_core.errors.ConfigError` when the whole
    table (one partition) already fails a model, e.g. k above the number of
    records.
    """
    t0 = time.perf_counter()
    freq = problem.freq
    if not problem.dataset.qis:
        raise ConfigError(
            "No quasi-identifiers: mark at least one column 'quasi-identifier' for Mondrian."
        )
    if problem.dataset.grouped:
        raise ConfigError(
            f"Mondrian recodes record by record and needs the table in memory; it is not available "
            f"with the {problem.engine_name} engine. Use engine: pandas (or a sample of the file)."
        )
    chosen = _resolve_models(problem, k, models)
    numeric_qis = _resolve_numeric(problem, numeric)
    for m in chosen:
        if m.min_class_size() > freq.n_records:
            raise ConfigError(
                f"{m!r} needs classes of at least {m.min_class_size()} records, which is larger than the table "
                f"({freq.n_records} records): no release can satisfy it. Choose a weaker parameter."
            )
    engine = PartitionEngine(freq, chosen, numeric_qis)
    whole = engine.classes_ok(
        np.arange(freq.n_tuples),
        np.zeros(freq.n_tuples, dtype=np.int64),
        np.array([freq.n_records], dtype=np.int64),
    )
    if not whole[0]:
        raise ConfigError(
            f"The whole table does not satisfy {', '.join(repr(m) for m in chosen)} even as a single "
            "partition (every quasi-identifier fully generalized), so Mondrian cannot release it. "
            "Relax the privacy models."
        )
    final = engine.run()
    row_temp = final[freq.row_tuple]
    row_partition, uniq = pd.factorize(row_temp, sort=False)
    renumber = np.empty(len(uniq), dtype=np.int64)
    renumber[np.asarray(uniq, dtype=np.int64)] = np.arange(len(uniq))
    tuple_partition = renumber[final]
    recoding = engine.recoding(tuple_partition)
    row_partition = row_partition.astype(np.int64)
    released = _released_frame(problem, recoding, row_partition)
    metrics = {}
    for key in REPORTED_METRICS:
        value = recoding_quality(problem, recoding, key)
        if value is not None:
            metrics[key] = value
    quality = recoding_quality(problem, recoding, problem.evaluator.metric)
    sizes = recoding.sizes
    runtime = time.perf_counter() - t0
    log.info(
        "mondrian: %d partitions (sizes %d-%d) in %.3f s, Loss %.6f",
        len(sizes),
        int(sizes.min()),
        int(sizes.max()),
        runtime,
        metrics["loss"].value,
    )
    return MondrianResult(
        released=released,
        row_partition=row_partition,
        n_partitions=int(len(sizes)),
        min_partition_size=int(sizes.min()),
        max_partition_size=int(sizes.max()),
        average_partition_size=float(sizes.mean()),
        runtime=runtime,
        quality=quality,
        metrics=metrics,
        recoding=recoding,
        models=tuple(repr(m) for m in chosen),
        numeric=tuple(q for q in problem.dataset.qis if q in numeric_qis),
    )


__all__ = [
    "LocalRecoding",
    "MondrianResult",
    "full_domain_recoding",
    "mondrian",
    "recoding_quality",
]

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

from anon_core.data.dataset import Role
from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.data.io import ColumnKind, infer_kind
from anon_core.errors import ConfigError
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.privacy.models import PrivacyModel
from anon_core.quality.metrics import Loss, MetricValue, QualityMetric, _floor10, make_metric
from anon_core.release.apply import SUPPRESSED

if TYPE_CHECKING:
    from anon_core.services.problem import Problem

log = logging.getLogger(__name__)

_LN2 = math.log(2.0)
#: Metrics reported in :attr:`MondrianResult.metrics` (default variants).
REPORTED_METRICS = ("loss", "precision", "discernability", "non-uniform-entropy", "aecs", "height")


# ------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class LocalRecoding:
    """A local recoding: the partition of every frequency-table tuple and what each partition releases.

    Per partition ``p`` and QI ``j``: ``labels[p, j]`` the released label,
    ``leaves[p, j]`` the hierarchy rows it spans (Loss), ``covered[p, j]`` the
    records of the whole table whose original value lies in it (non-uniform
    entropy) and ``levels[p, j]`` its hierarchy level (Precision, Height; for a
    numeric range the level of the lowest node covering it).
    """

    tuple_partition: np.ndarray  # (tuples,) partition of each frequency-table tuple
    sizes: np.ndarray  # (partitions,) records per partition
    labels: np.ndarray  # (partitions, qis) object
    leaves: np.ndarray  # (partitions, qis) int64
    covered: np.ndarray  # (partitions, qis) int64
    levels: np.ndarray  # (partitions, qis) int64

    @property
    def n_partitions(self) -> int:
        return len(self.sizes)


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


# ------------------------------------------------------------------ per-QI domains
@dataclass(frozen=True, eq=False)
class _Categorical:
    """A QI split along its hierarchy. Lists are per level, with a virtual root added
    when the top level has several nodes, so every partition has a covering node."""

    maps: list[np.ndarray]  # data code -> node code
    leaves: list[np.ndarray]  # node -> hierarchy rows under it
    records: list[np.ndarray]  # node -> records under it
    labels: list[np.ndarray]  # node -> label
    levels: list[int]  # hierarchy level counted for Precision/Height
    n_rows: int  # rows of the hierarchy file


@dataclass(frozen=True, eq=False)
class _Numeric:
    """A QI split at the median of its values; ranks order its distinct values."""

    rank: np.ndarray  # data code -> rank of its value
    values: np.ndarray  # rank -> value
    labels: np.ndarray  # rank -> label (first data code with that value)
    cum_records: np.ndarray  # (ranks + 1,) records with rank < i
    leaf_values: np.ndarray  # sorted numbers of the hierarchy's level-0 labels
    changes: list[np.ndarray]  # per level: node changes along the ranks, cumulated
    span: float  # largest - smallest value
    top: int  # highest hierarchy level


def _parse_numbers(labels: np.ndarray) -> np.ndarray:
    return pd.to_numeric(
        pd.Series(np.asarray(labels, dtype=object).astype(str)), errors="coerce"
    ).to_numpy(float)


def _is_numeric(labels: np.ndarray) -> bool:
    """Numeric kind as the loader infers it (numbers without leading zeros), all finite."""
    series = pd.Series(np.asarray(labels, dtype=object).astype(str))
    return infer_kind(series, sample=len(series) + 1) == ColumnKind.NUMERIC and bool(
        np.isfinite(_parse_numbers(labels)).all()
    )


def _categorical(freq: FrequencyTable, q: str) -> _Categorical:
    enc = freq.dataset.hierarchy(q)
    counts = freq.value_counts[q]
    maps = list(enc.maps)
    leaves = [lc.astype(np.int64) for lc in enc.leaf_counts]
    records = [
        np.bincount(enc.maps[h], weights=counts, minlength=enc.cardinality(h)).astype(np.int64)
        for h in range(enc.height)
    ]
    labels = [np.asarray(lab, dtype=object) for lab in enc.labels]
    levels = list(range(enc.height))
    if enc.cardinality(enc.height - 1) > 1:
        maps.append(np.zeros(len(enc.maps[0]), dtype=np.int32))
        leaves.append(np.array([enc.n_rows], dtype=np.int64))
        records.append(np.array([freq.n_records], dtype=np.int64))
        labels.append(np.array([SUPPRESSED], dtype=object))
        levels.append(enc.height - 1)
    return _Categorical(maps, leaves, records, labels, levels, enc.n_rows)


def _numeric(freq: FrequencyTable, q: str) -> _Numeric:
    col = freq.dataset.columns[q]
    enc = freq.dataset.hierarchy(q)
    assert col.hierarchy is not None
    values, rank = np.unique(_parse_numbers(col.labels), return_inverse=True)
    rank = rank.astype(np.int64).ravel()
    _, first = np.unique(rank, return_index=True)  # first data code of each rank
    per_rank = np.bincount(rank, weights=freq.value_counts[q], minlength=len(values)).astype(
        np.int64
    )
    leaf_values = _parse_numbers(col.hierarchy.table[:, 0])
    changes = []
    for h in range(enc.height):
        node = enc.maps[h][first]
        changes.append(np.r_[0, np.cumsum(node[1:] != node[:-1])].astype(np.int64))
    return _Numeric(
        rank=rank,
        values=values,
        labels=np.asarray(col.labels, dtype=object)[first].astype(str),
        cum_records=np.r_[0, np.cumsum(per_rank)].astype(np.int64),
        leaf_values=np.sort(leaf_values[np.isfinite(leaf_values)]),
        changes=changes,
        span=float(values[-1] - values[0]),
        top=enc.height - 1,
    )


def _fmt_range(lo: str, hi: str) -> str:
    return lo if lo == hi else f"[{lo}-{hi}]"


# ------------------------------------------------------------------ model checks
class _Batch(ClassTable):
    """Candidate partitions as the classes of a class table, so registry models judge them.

    ``tuple_class`` is -1 for tuples outside the batch; histograms only read the
    batch's tuples.
    """

    def __init__(self, freq: FrequencyTable, sizes: np.ndarray, tuple_class: np.ndarray) -> None:
        super().__init__(
            freq, (), np.zeros((len(sizes), 0), dtype=np.int32), sizes, tuple_class=tuple_class
        )

    def sparse_hist(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        hit = self._hist.get(attribute)
        if hit is None:
            sc = self.freq.sensitive[attribute]
            cls = self.tuple_class[sc.tuple_idx]
            keep = cls >= 0
            hit = self._aggregate(attribute, cls[keep], sc.value[keep], sc.count[keep])
            self._hist[attribute] = hit
        return hit


def _min_size(models: Sequence[PrivacyModel]) -> int:
    """Records every acceptable partition needs (a lower bound used to prune)."""
    return max([1, *(m.min_class_size() for m in models)])


class _Engine:
    def __init__(
        self, freq: FrequencyTable, models: Sequence[PrivacyModel], numeric: set[str]
    ) -> None:
        self.freq = freq
        self.tuples = freq.tuples
        self.counts = freq.counts
        self.qis = list(freq.qis)
        self.domains: list[_Categorical | _Numeric] = [
            _numeric(freq, q) if q in numeric else _categorical(freq, q) for q in self.qis
        ]
        self.models = list(models)
        self.states = [m.prepare(freq) for m in self.models]
        self.min_size = _min_size(self.models)

    # -------------------------------------------------------------- checks
    def classes_ok(self, tuple_ids: np.ndarray, cls: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Do the candidate partitions (``cls`` of each tuple in ``tuple_ids``) satisfy every model?"""
        ok = sizes >= self.min_size
        if not self.models or not ok.any():
            return ok
        tuple_class = np.full(self.freq.n_tuples, -1, dtype=np.int64)
        tuple_class[tuple_ids] = cls
        batch = _Batch(self.freq, sizes, tuple_class)
        for model, state in zip(self.models, self.states, strict=True):
            ok &= np.asarray(model.class_ok(batch, state), dtype=bool)
        return ok

    # -------------------------------------------------------------- partition statistics
    def stats(self, t: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per partition (tuples ``t`` sorted by partition, partitions starting at ``starts``) and QI:
        numeric: (lowest, highest) rank present; categorical: (level, code) of the lowest covering node."""
        n_parts = len(starts)
        a = np.zeros((n_parts, len(self.qis)), dtype=np.int64)
        b = np.zeros_like(a)
        for j, dom in enumerate(self.domains):
            codes = self.tuples[t, j]
            if isinstance(dom, _Numeric):
                r = dom.rank[codes]
                a[:, j] = np.minimum.reduceat(r, starts)
                b[:, j] = np.maximum.reduceat(r, starts)
                continue
            level = np.full(n_parts, -1, dtype=np.int64)
            for h, mp in enumerate(dom.maps):
                c = mp[codes]
                lo = np.minimum.reduceat(c, starts)
                new = (level < 0) & (lo == np.maximum.reduceat(c, starts))
                level[new] = h
                b[new, j] = lo[new]
                if (level >= 0).all():
                    break
            a[:, j] = level
        return a, b

    def widths(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Normalised width of every partition on every QI; -inf where it cannot be cut."""
        w = np.full(a.shape, -np.inf)
        for j, dom in enumerate(self.domains):
            if isinstance(dom, _Numeric):
                cut = b[:, j] > a[:, j]
                span = dom.span if dom.span > 0 else 1.0
                w[cut, j] = (dom.values[b[cut, j]] - dom.values[a[cut, j]]) / span
            else:
                for h in range(1, len(dom.maps)):
                    sel = a[:, j] == h
                    w[sel, j] = dom.leaves[h][b[sel, j]] / float(dom.n_rows)
        return w

    def children(
        self, j: int, t: np.ndarray, p: np.ndarray, a: np.ndarray, b: np.ndarray, sizes: np.ndarray
    ) -> np.ndarray:
        """Child key of each tuple ``t`` (of partition ``p``) when its partition is cut on QI ``j``."""
        dom = self.domains[j]
        codes = self.tuples[t, j]
        if isinstance(dom, _Categorical):
            child = np.empty(len(t), dtype=np.int64)
            level = a[p, j]
            for h in np.unique(level):
                sel = level == h
                child[sel] = dom.maps[h - 1][codes[sel]]
            return child
        # numeric: lower median (first value reaching half the records); when it is the
        # largest value, the largest value below it, so that both sides are non-empty.
        r = dom.rank[codes]
        order = np.lexsort((r, p))
        rs, ps, ws = r[order], p[order], self.counts[t[order]]
        first = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
        lengths = np.diff(np.r_[first, len(ps)])
        seg = np.repeat(np.arange(len(first)), lengths)
        cs = np.cumsum(ws)
        within = cs - np.repeat(cs[first] - ws[first], lengths)
        reach = np.flatnonzero(2 * within >= sizes[ps])
        _, pick = np.unique(seg[reach], return_index=True)
        split = rs[reach[pick]]
        seg_p = ps[first]
        at_max = split == b[seg_p, j]
        if at_max.any():
            below = np.maximum.reduceat(np.where(rs < b[ps, j], rs, -1), first)
            split = np.where(at_max, below, split)
        split_of = np.full(len(sizes), -1, dtype=np.int64)
        split_of[seg_p] = split
        return (r > split_of[p]).astype(np.int64)

    # -------------------------------------------------------------- the partitioning
    def run(self) -> np.ndarray:
        """Final partition of every tuple (ids in order of completion)."""
        n_t = self.freq.n_tuples
        n_q = len(self.qis)
        final = np.full(n_t, -1, dtype=np.int64)
        n_final = 0
        active_t = np.arange(n_t, dtype=np.int64)
        active_p = np.zeros(n_t, dtype=np.int64)
        rounds = 0
        while len(active_t):
            rounds += 1
            order = np.argsort(active_p, kind="stable")
            t, p_raw = active_t[order], active_p[order]
            starts = np.flatnonzero(np.r_[True, p_raw[1:] != p_raw[:-1]])
            n_parts = len(starts)
            p = np.repeat(np.arange(n_parts), np.diff(np.r_[starts, len(t)]))
            sizes = np.add.reduceat(self.counts[t], starts)
            a, b = self.stats(t, starts)
            w = self.widths(a, b)
            can = np.isfinite(w) & (sizes >= 2 * self.min_size)[:, None]
            choice = np.argsort(-w, axis=1, kind="stable")  # widest first, ties in QI order
            decided = np.zeros(n_parts, dtype=bool)
            new_p = np.full(len(t), -1, dtype=np.int64)
            n_new = 0
            for attempt in range(n_q):
                j_of = choice[:, attempt]
                cand = ~decided & can[np.arange(n_parts), j_of]
                if not cand.any():
                    break
                in_cand = cand[p]
                ti, pi = t[in_cand], p[in_cand]
                child = np.empty(len(ti), dtype=np.int64)
                for j in np.unique(j_of[cand]):
                    sel = j_of[pi] == j
                    child[sel] = self.children(int(j), ti[sel], pi[sel], a, b, sizes)
                key = pi * (int(child.max()) + 1) + child
                cls, uniq = pd.factorize(key, sort=False)
                cls = cls.astype(np.int64)
                cls_p = uniq // (int(child.max()) + 1)
                csizes = np.bincount(cls, weights=self.counts[ti], minlength=len(uniq)).astype(
                    np.int64
                )
                ok = self.classes_ok(ti, cls, csizes)
                bad = np.bincount(cls_p, weights=(~ok).astype(float), minlength=n_parts)
                cut = cand & (bad == 0)
                if cut.any():
                    keep_cls = cut[cls_p]
                    new_id = np.full(len(uniq), -1, dtype=np.int64)
                    new_id[keep_cls] = n_new + np.arange(int(keep_cls.sum()))
                    n_new += int(keep_cls.sum())
                    moved = cut[pi]
                    new_p[np.flatnonzero(in_cand)[moved]] = new_id[cls[moved]]
                    decided |= cut
            done = ~decided[p]
            if done.any():
                finished = np.flatnonzero(~decided)
                fid = np.full(n_parts, -1, dtype=np.int64)
                fid[finished] = n_final + np.arange(len(finished))
                n_final += len(finished)
                final[t[done]] = fid[p[done]]
            log.debug(
                "mondrian round %d: %d partitions, %d cut, %d final",
                rounds,
                n_parts,
                int(decided.sum()),
                int((~decided).sum()),
            )
            active_t, active_p = t[~done], new_p[~done]
        return final

    # -------------------------------------------------------------- releases
    def recoding(self, tuple_partition: np.ndarray) -> LocalRecoding:
        """Released labels and coverage of each partition (lowest covering node / range)."""
        order = np.argsort(tuple_partition, kind="stable")
        t = order
        starts = np.flatnonzero(np.r_[True, tuple_partition[t][1:] != tuple_partition[t][:-1]])
        sizes = np.add.reduceat(self.counts[t], starts).astype(np.int64)
        a, b = self.stats(t, starts)
        n_parts, n_q = a.shape
        labels = np.empty((n_parts, n_q), dtype=object)
        leaves = np.zeros((n_parts, n_q), dtype=np.int64)
        covered = np.zeros_like(leaves)
        levels = np.zeros_like(leaves)
        for j, dom in enumerate(self.domains):
            if isinstance(dom, _Numeric):
                lo, hi = a[:, j], b[:, j]
                labels[:, j] = [
                    _fmt_range(x, y) for x, y in zip(dom.labels[lo], dom.labels[hi], strict=True)
                ]
                leaves[:, j] = np.searchsorted(
                    dom.leaf_values, dom.values[hi], side="right"
                ) - np.searchsorted(dom.leaf_values, dom.values[lo], side="left")
                covered[:, j] = dom.cum_records[hi + 1] - dom.cum_records[lo]
                level = np.full(n_parts, dom.top, dtype=np.int64)
                for h in range(dom.top, -1, -1):
                    same = dom.changes[h][hi] == dom.changes[h][lo]
                    level[same] = h
                levels[:, j] = level
            else:
                for h in np.unique(a[:, j]):
                    sel = a[:, j] == h
                    node = b[sel, j]
                    labels[sel, j] = dom.labels[h][node]
                    leaves[sel, j] = dom.leaves[h][node]
                    covered[sel, j] = dom.records[h][node]
                    levels[sel, j] = dom.levels[h]
        return LocalRecoding(tuple_partition, sizes, labels, leaves, covered, levels)


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
        dom = _categorical(freq, q)
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
            per[q] = float(_floor10(-raw))
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
        return {q for q in ds.qis if _is_numeric(ds.columns[q].labels)}
    if isinstance(numeric, str):
        numeric = [numeric]
    chosen = set(numeric)
    unknown = sorted(chosen - set(ds.qis))
    if unknown:
        raise ConfigError(f"'numeric' names {unknown}, which are not quasi-identifiers ({ds.qis}).")
    for q in sorted(chosen):
        if not np.isfinite(_parse_numbers(ds.columns[q].labels)).all():
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
        if role == Role.IDENTIFIER:
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
    engine = _Engine(freq, chosen, numeric_qis)
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

"""Mondrian's partitioning engine: per-QI domains (ordered numeric ranges, categorical sets) and
the strict multidimensional median split, checking the privacy models on every candidate cut
(LeFevre, DeWitt and Ramakrishnan 2006)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.data.io import ColumnKind, infer_kind
from anon_core.privacy.models import PrivacyModel
from anon_core.release.plan import SUPPRESSED

log = logging.getLogger(__name__)


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


# ------------------------------------------------------------------ per-QI domains
@dataclass(frozen=True, eq=False)
class CategoricalDomain:
    """A QI split along its hierarchy. Lists are per level, with a virtual root added
    when the top level has several nodes, so every partition has a covering node."""

    maps: list[np.ndarray]  # data code -> node code
    leaves: list[np.ndarray]  # node -> hierarchy rows under it
    records: list[np.ndarray]  # node -> records under it
    labels: list[np.ndarray]  # node -> label
    levels: list[int]  # hierarchy level counted for Precision/Height
    n_rows: int  # rows of the hierarchy file


@dataclass(frozen=True, eq=False)
class NumericDomain:
    """A QI split at the median of its values; ranks order its distinct values."""

    rank: np.ndarray  # data code -> rank of its value
    values: np.ndarray  # rank -> value
    labels: np.ndarray  # rank -> label (first data code with that value)
    cum_records: np.ndarray  # (ranks + 1,) records with rank < i
    leaf_values: np.ndarray  # sorted numbers of the hierarchy's level-0 labels
    changes: list[np.ndarray]  # per level: node changes along the ranks, cumulated
    span: float  # largest - smallest value
    top: int  # highest hierarchy level


def parse_numbers(labels: np.ndarray) -> np.ndarray:
    return pd.to_numeric(
        pd.Series(np.asarray(labels, dtype=object).astype(str)), errors="coerce"
    ).to_numpy(float)


def is_numeric_labels(labels: np.ndarray) -> bool:
    """Numeric kind as the loader infers it (numbers without leading zeros), all finite."""
    series = pd.Series(np.asarray(labels, dtype=object).astype(str))
    return infer_kind(series, sample=len(series) + 1) == ColumnKind.NUMERIC and bool(
        np.isfinite(parse_numbers(labels)).all()
    )


def categorical_domain(freq: FrequencyTable, q: str) -> CategoricalDomain:
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
    return CategoricalDomain(maps, leaves, records, labels, levels, enc.n_rows)


def numeric_domain(freq: FrequencyTable, q: str) -> NumericDomain:
    col = freq.dataset.columns[q]
    enc = freq.dataset.hierarchy(q)
    assert col.hierarchy is not None
    values, rank = np.unique(parse_numbers(col.labels), return_inverse=True)
    rank = rank.astype(np.int64).ravel()
    _, first = np.unique(rank, return_index=True)  # first data code of each rank
    per_rank = np.bincount(rank, weights=freq.value_counts[q], minlength=len(values)).astype(
        np.int64
    )
    leaf_values = parse_numbers(col.hierarchy.table[:, 0])
    changes = []
    for h in range(enc.height):
        node = enc.maps[h][first]
        changes.append(np.r_[0, np.cumsum(node[1:] != node[:-1])].astype(np.int64))
    return NumericDomain(
        rank=rank,
        values=values,
        labels=np.asarray(col.labels, dtype=object)[first].astype(str),
        cum_records=np.r_[0, np.cumsum(per_rank)].astype(np.int64),
        leaf_values=np.sort(leaf_values[np.isfinite(leaf_values)]),
        changes=changes,
        span=float(values[-1] - values[0]),
        top=enc.height - 1,
    )


def range_label(lo: str, hi: str) -> str:
    return lo if lo == hi else f"[{lo}-{hi}]"


# ------------------------------------------------------------------ model checks
class PartitionBatch(ClassTable):
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


def min_partition_size(models: Sequence[PrivacyModel]) -> int:
    """Records every acceptable partition needs (a lower bound used to prune)."""
    return max([1, *(m.min_class_size() for m in models)])


class PartitionEngine:
    def __init__(
        self, freq: FrequencyTable, models: Sequence[PrivacyModel], numeric: set[str]
    ) -> None:
        self.freq = freq
        self.tuples = freq.tuples
        self.counts = freq.counts
        self.qis = list(freq.qis)
        self.domains: list[CategoricalDomain | NumericDomain] = [
            numeric_domain(freq, q) if q in numeric else categorical_domain(freq, q)
            for q in self.qis
        ]
        self.models = list(models)
        self.states = [m.prepare(freq) for m in self.models]
        self.min_size = min_partition_size(self.models)

    # -------------------------------------------------------------- checks
    def classes_ok(self, tuple_ids: np.ndarray, cls: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Do the candidate partitions (``cls`` of each tuple in ``tuple_ids``) satisfy every model?"""
        ok = sizes >= self.min_size
        if not self.models or not ok.any():
            return ok
        tuple_class = np.full(self.freq.n_tuples, -1, dtype=np.int64)
        tuple_class[tuple_ids] = cls
        batch = PartitionBatch(self.freq, sizes, tuple_class)
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
            if isinstance(dom, NumericDomain):
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
            if isinstance(dom, NumericDomain):
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
        if isinstance(dom, CategoricalDomain):
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
            if isinstance(dom, NumericDomain):
                lo, hi = a[:, j], b[:, j]
                labels[:, j] = [
                    range_label(x, y) for x, y in zip(dom.labels[lo], dom.labels[hi], strict=True)
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

"""Optimal full-domain generalization: search the lattice of transformations.

Exact search in two phases.

1. *Anonymity of the monotone models.* For models that are monotonic (under
   generalization, and under suppression when records may be suppressed), a
   transformation that satisfies them implies every coarser one does, and one
   that fails implies every finer one fails. Greedy paths from the bottom are
   binary-searched for their lowest satisfying node and the result is tagged on
   the whole up-set / down-set (predictive tagging, as ARX's Flash: Kohlmayer
   et al., "Flash: efficient, stable and optimal k-anonymity", 2012). Each
   decision then seeds a walk along the boundary: the undecided predecessors of
   a satisfying node and successors of a failing one are checked next. When
   candidates are not only minimal nodes, nodes whose quality bound exceeds the
   best quality found so far are not checked at all (they cannot be optimal).
2. *Quality.* Candidates are the minimal satisfying nodes when every model and
   the metric are monotonic; otherwise every node passing the monotone models.
   The metric's declared goal decides the direction: a maximised metric is
   searched on its negated value (and without lower bounds, which only
   minimised metrics offer).
   They are scored finer first (so coarser ones roll up from cached classes),
   skipping any whose lower bound of quality (the metric without suppression,
   which suppression can only raise) exceeds the best quality already reached
   (branch and bound); successors of a satisfying node are skipped when the
   metric is monotonic, as they cannot be better. Ties: lowest quality, then
   lowest sum of levels (as ARX), then Flash's order.

Lattices above ``exact_limit`` nodes are searched by a bounded greedy heuristic
that says so in its result.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from anon_core.errors import ConfigError
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.privacy.models import PrivacyModel
from anon_core.search import flash
from anon_core.search.evaluate import Evaluator, TransformationResult
from anon_core.search.nodecheck import NodeCheck

log = logging.getLogger(__name__)

DEFAULT_EXACT_LIMIT = 1_000_000
_TIE_RTOL = 1e-12


def _tie_limit(best_q: float) -> float:
    """Largest quality still counted as equal to ``best_q`` (inf when none yet)."""
    return best_q + abs(best_q) * _TIE_RTOL + _TIE_RTOL if math.isfinite(best_q) else math.inf


@dataclass(frozen=True)
class NodeRecord:
    """One evaluated transformation, for the trade-off explorer."""

    levels: tuple[int, ...]
    satisfied: bool
    quality: float
    suppressed_records: int
    equivalence_classes: int
    highest_risk: float  # prosecutor: 1 / smallest released class
    average_risk: float  # prosecutor: released classes / released records


@dataclass(frozen=True, eq=False)
class SearchResult:
    """The optimum (None when no transformation satisfies the configuration) and how it was found."""

    optimum: TransformationResult | None
    ties: tuple[dict[str, int], ...]
    nodes_checked: int
    lattice_size: int
    search_ms: float
    heuristic: bool
    evaluated: tuple[NodeRecord, ...] = field(repr=False)
    qis: tuple[str, ...] = ()
    goal: str = "minimize"  # the quality metric's goal

    def summary(self) -> dict:
        out = (
            self.optimum.summary()
            if self.optimum is not None
            else {"satisfied": False, "transformation": None}
        )
        out.update(
            {
                "nodes_checked": self.nodes_checked,
                "lattice_size": self.lattice_size,
                "ties": [dict(t) for t in self.ties],
                "search_ms": round(self.search_ms, 3),
                "heuristic": self.heuristic,
            }
        )
        return out

    def tradeoff(self) -> list[dict]:
        """Every evaluated node as a row (levels, status, quality, suppression, risks).

        Nodes the search only needed a verdict for have quality NaN; see
        :func:`score_tradeoff` to fill them in.
        """
        rows = []
        for r in self.evaluated:
            row = dict(zip(self.qis, r.levels, strict=True))
            row.update(
                satisfied=r.satisfied,
                quality=r.quality,
                suppressed_records=r.suppressed_records,
                equivalence_classes=r.equivalence_classes,
                highest_risk=r.highest_risk,
                average_risk=r.average_risk,
            )
            rows.append(row)
        return rows

    def pareto_frontier(self, risk: str = "average_risk") -> list[dict]:
        """Satisfying nodes not dominated in (risk, quality) by increasing risk.

        Risk is minimised; quality follows the metric's goal.
        """
        sign = goal_sign(self.goal)
        rows = sorted(
            (r for r in self.tradeoff() if r["satisfied"]),
            key=lambda r: (r[risk], sign * r["quality"]),
        )
        front, best_q = [], math.inf
        for r in rows:
            if sign * r["quality"] < best_q:
                front.append(r)
                best_q = sign * r["quality"]
        return front


def goal_sign(goal: str) -> int:
    """+1 for a minimised metric, -1 for a maximised one (the search minimises sign * value)."""
    if goal == "minimize":
        return 1
    if goal == "maximize":
        return -1
    raise ConfigError(
        f"A quality metric's goal must be 'minimize' or 'maximize', got {goal!r}. "
        "Fix the metric's declaration."
    )


class Lattice:
    """All level vectors between per-attribute minimum and maximum levels, as an int matrix."""

    def __init__(self, lower: Sequence[int], upper: Sequence[int]) -> None:
        self.lower = np.asarray(lower, dtype=np.int64)
        self.upper = np.asarray(upper, dtype=np.int64)
        self.radix = self.upper - self.lower + 1
        self.size = int(np.prod(self.radix))
        # id = sum (level_j - lower_j) * stride_j, first QI varying fastest.
        self.stride = np.concatenate(([1], np.cumprod(self.radix)[:-1])).astype(np.int64)

    def nodes(self) -> np.ndarray:
        grids = np.meshgrid(
            *[np.arange(lo, hi + 1) for lo, hi in zip(self.lower, self.upper, strict=True)],
            indexing="ij",
        )
        mat = np.stack([g.ravel(order="F") for g in grids], axis=1)
        return mat.astype(np.int16)


def node_region(flags: np.ndarray, shape: tuple[int, ...], at: np.ndarray, up: bool) -> np.ndarray:
    """The view of ``flags`` (one per node of a lattice of ``shape`` radices, first attribute
    fastest) over the up-set (``up``) or the down-set of the node at offsets ``at`` from the
    lattice's lower levels: one slice, so writing to it tags the region in ``flags``."""
    view = flags.reshape(shape, order="F")
    return view[tuple(slice(int(a), None) if up else slice(0, int(a) + 1) for a in at)]


def level_bounds(
    evaluator: Evaluator, min_levels: Mapping[str, int] | None, max_levels: Mapping[str, int] | None
) -> tuple[list[int], list[int]]:
    """The lattice's lower and upper level per QI from the search options (validated)."""
    qis = evaluator.freq.qis
    heights = evaluator.freq.dataset.heights
    lower, upper = [0] * len(qis), [h - 1 for h in heights]
    for name, bound, target in (
        ("min_levels", min_levels, lower),
        ("max_levels", max_levels, upper),
    ):
        for attr, lv in (bound or {}).items():
            if attr not in qis:
                raise ConfigError(
                    f"'search.{name}' names {attr!r}, which is not a quasi-identifier ({qis})."
                )
            h = heights[qis.index(attr)]
            if isinstance(lv, bool) or not isinstance(lv, int) or not 0 <= lv < h:
                raise ConfigError(
                    f"'search.{name}.{attr}' must be a level between 0 and {h - 1}, got {lv!r}."
                )
            target[qis.index(attr)] = lv
    for q, lo, hi in zip(qis, lower, upper, strict=True):
        if lo > hi:
            raise ConfigError(
                f"'search.min_levels.{q}' ({lo}) is above 'search.max_levels.{q}' ({hi})."
            )
    return lower, upper


#: Lattice layouts (nodes, level sums, Flash order, ranks) by what they depend on: the
#: cardinality of every hierarchy level and the bounds. A new problem on hierarchies of the same
#: shape (the dashboard rebuilds one per change of roles or models) reuses it. Small lattices
#: only, and a few of them, so the memo stays a few MB.
_LAYOUTS: dict[tuple, tuple] = {}
_LAYOUT_MAX_NODES = 100_000
_LAYOUT_ENTRIES = 8


class _Search:
    def __init__(
        self, evaluator: Evaluator, lattice: Lattice, progress: Callable[[float], None] | None
    ) -> None:
        self.ev = evaluator
        self.lattice = lattice
        self.progress = progress
        self.records: dict[int, NodeRecord] = {}
        self.checked: set[int] = set()  # distinct nodes checked, in either phase
        # The lattice's nodes and Flash order depend only on the hierarchies' level
        # cardinalities and the bounds: computed once and reused by every search of that shape.
        freq = evaluator.freq
        key = (
            tuple(
                tuple(freq.dataset.hierarchy(q).cardinality(h) for h in range(height))
                for q, height in zip(freq.qis, freq.dataset.heights, strict=True)
            ),
            tuple(lattice.lower.tolist()),
            tuple(lattice.upper.tolist()),
        )
        layout = _LAYOUTS.get(key)
        if layout is None:
            layout = self._layout(evaluator, lattice)
            if lattice.size <= _LAYOUT_MAX_NODES:
                while len(_LAYOUTS) >= _LAYOUT_ENTRIES:
                    _LAYOUTS.pop(next(iter(_LAYOUTS)))  # the oldest
                _LAYOUTS[key] = layout
        self.nodes, self.level_sum, self.order, self.rank = layout
        self.n = len(self.nodes)
        # The lattice as an array of its radices (first QI fastest): an up-set or a down-set
        # is then one slice of a view, not a conjunction of masks over every node.
        self._shape = tuple(int(r) for r in lattice.radix)
        # The common models (k-anonymity, distinct and recursive l-diversity, no sample-based
        # model): one compiled pass per node.
        self.fast = self.node_check(evaluator.models)

    def _layout(self, evaluator: Evaluator, lattice: Lattice) -> tuple:
        nodes = lattice.nodes()
        freq = evaluator.freq
        heights = np.asarray(freq.dataset.heights)
        top = np.maximum(heights - 1, 1)
        # Flash's strategy: level, then mean relative level, then loss of distinct values.
        distinct = [
            np.array(
                [
                    freq.dataset.hierarchy(q).cardinality(h)
                    for h in range(freq.dataset.hierarchy(q).height)
                ]
            )
            for q in freq.qis
        ]
        rel = nodes / top
        dd = 1.0 - np.mean(
            [distinct[j][nodes[:, j]] / distinct[j][0] for j in range(len(freq.qis))], axis=0
        )
        level_sum = nodes.sum(axis=1).astype(np.int64)
        order = np.lexsort((dd, rel.mean(axis=1), level_sum))
        rank = np.empty(len(nodes), dtype=np.int64)
        rank[order] = np.arange(len(nodes))
        for arr in (nodes, level_sum, order, rank):
            arr.flags.writeable = False
        return nodes, level_sum, order, rank

    def node_check(self, models: Sequence[PrivacyModel]) -> NodeCheck | None:
        """The compiled check for ``models`` where it applies (see :mod:`.nodecheck`), else None."""
        if not NodeCheck.applies(self.ev.freq, models):
            return None
        return NodeCheck(self.ev.freq, self.lattice.lower, self.lattice.upper, models)

    def region(self, flags: np.ndarray, idx: int, up: bool) -> np.ndarray:
        """The view of ``flags`` (one per node) over the up-set (``up``) or down-set of a node."""
        return node_region(flags, self._shape, self.nodes[idx] - self.lattice.lower, up)

    # ---------------------------------------------------------------- checks
    def assess(self, idx: int, with_quality: bool | str = True) -> tuple[bool, float]:
        """Satisfied and quality of a node, recorded for the trade-off data (memoised).

        Phase 1 only needs the verdict (quality NaN); phase 2 scores only the
        nodes that satisfy the configuration ("satisfied").
        """
        rec = self.records.get(idx)
        wants = with_quality is True or (
            with_quality == "satisfied" and (rec is None or rec.satisfied)
        )
        if rec is None or (wants and math.isnan(rec.quality)):
            levels = tuple(self.nodes[idx].tolist())
            if self.fast is None:
                satisfied, quality, suppressed, classes, smallest = self.ev.assess(
                    levels, with_quality
                )
            else:
                satisfied, quality, suppressed, classes, smallest = self._assess_fast(
                    idx, levels, with_quality
                )
            self.checked.add(idx)
            kept = self.ev.freq.n_records - suppressed
            rec = NodeRecord(
                levels=levels,
                satisfied=satisfied,
                quality=quality,
                suppressed_records=suppressed,
                equivalence_classes=classes,
                highest_risk=1.0 / smallest if smallest else 0.0,
                average_risk=classes / kept if kept else 0.0,
            )
            self.records[idx] = rec
        return rec.satisfied, rec.quality

    def _assess_fast(
        self, idx: int, levels: tuple[int, ...], with_quality: bool | str
    ) -> tuple[bool, float, int, int, int]:
        """:meth:`Evaluator.assess` by the compiled check (the same figures)."""
        assert self.fast is not None
        node = self.fast.check(levels, self.nodes[idx])
        satisfied = node.outliers <= self.ev.max_outliers
        quality = math.nan
        if with_quality is True or (with_quality == "satisfied" and satisfied):
            table = self.fast.class_table(node)
            quality = self.ev.metric.compute(table, ~node.ok, self.ev._metric_state).value
        return satisfied, quality, node.outliers, node.kept, node.smallest

    def result(self, idx: int) -> TransformationResult:
        """The full result of a node (for the optimum)."""
        levels = tuple(int(v) for v in self.nodes[idx])
        if self.fast is not None and self.fast.attribute is None:
            # k-anonymity alone: the checked classes are the whole class table.
            return self.ev.result_of(
                self.fast.class_table(self.fast.check(levels, self.nodes[idx]))
            )
        return self.ev.evaluate(levels, validate=False)

    def predecessors_all_fail(self, status: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Of the nodes ``ids``, those none of whose direct predecessors has status 1 (pass)."""
        compiled = flash.minimal_nodes(ids, status, self.lattice.radix)
        if compiled is not None:
            return compiled
        ok = np.ones(len(ids), dtype=bool)
        for j in range(self.nodes.shape[1]):
            has = self.nodes[ids, j] > self.lattice.lower[j]
            ok[has] &= status[ids[has] - self.lattice.stride[j]] != 1
        return ids[ok]

    # ---------------------------------------------------------------- phase 1
    def tag_monotone(
        self,
        passes: Callable[[int], bool],
        bound: np.ndarray | None = None,
        best: Callable[[], float] | None = None,
    ) -> np.ndarray:
        """Status per node for a monotone predicate: 1 pass, -1 fail, 0 undecided (Flash's
        predictive tagging, :func:`anon_core.search.flash.tag_monotone`)."""
        return flash.tag_monotone(
            self.lattice.radix,
            self.order,
            self.rank,
            passes,
            bound,
            best,
            tie_limit=_tie_limit,
            progress=self.progress,
        )


def search(
    evaluator: Evaluator,
    min_levels: Mapping[str, int] | None = None,
    max_levels: Mapping[str, int] | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    heuristic_budget: int = 2000,
    progress: Callable[[float], None] | None = None,
) -> SearchResult:
    """Find the transformation with the best quality (for the metric's goal) that satisfies it."""
    t0 = time.perf_counter()
    lower, upper = level_bounds(evaluator, min_levels, max_levels)
    lattice = Lattice(lower, upper)
    if lattice.size > exact_limit:
        return _heuristic(evaluator, lattice, heuristic_budget, t0, progress)
    sign = goal_sign(evaluator.metric.goal)
    s = _Search(evaluator, lattice, progress)
    limit_used = evaluator.max_outliers > 0
    monotone_models = [
        m
        for m in evaluator.models
        if m.monotonic_generalization and (m.monotonic_suppression or not limit_used)
    ]
    all_monotone = len(monotone_models) == len(evaluator.models)

    # Lower bounds of the searched cost (sign * value): only minimised metrics offer them.
    # Phase 1 prunes with them only when not all of it is monotone; otherwise they are worked
    # out for the candidates alone, after it.
    metric_monotone = evaluator.metric.monotonic or not limit_used
    bound = np.full(s.n, -np.inf)
    bounded = sign == 1 and not (monotone_models and all_monotone and metric_monotone)
    if bounded:
        bound = _lower_bounds(evaluator, s.nodes)
    if monotone_models:
        best_seen = [math.inf]
        sub = (
            None
            if all_monotone
            else Evaluator(
                evaluator.freq, monotone_models, evaluator.suppression_limit, evaluator.metric
            )
        )

        # The monotone models are k-anonymity alone and the compiled check counts its outliers
        # apart: one pass serves both verdicts.
        sized = (
            sub is not None
            and s.fast is not None
            and all(isinstance(m, KAnonymity) for m in monotone_models)
            and [m for m in evaluator.models if isinstance(m, KAnonymity)] == monotone_models
        )
        max_outliers = evaluator.max_outliers

        def passes(idx: int) -> bool:
            if sub is not None:
                s.checked.add(idx)
                if sized:
                    row = s.nodes[idx]
                    node = s.fast.check(tuple(row.tolist()), row, max_outliers)  # type: ignore[union-attr]
                    if node.size_outliers > max_outliers:
                        return False
                elif not sub.satisfies(s.nodes[idx]):
                    return False
            # Score satisfying nodes now: the best so far lets the walk skip hopeless nodes.
            satisfied, quality = s.assess(idx, with_quality="satisfied")
            if satisfied:
                best_seen[0] = min(best_seen[0], sign * quality)
            return satisfied if sub is None else True

        # When only the minimal satisfying nodes matter (all monotone, monotone metric),
        # deciding every node is cheap; otherwise every passing node is a candidate, so
        # skip those whose bound already exceeds the best.
        pruning = not (all_monotone and metric_monotone) and bool(np.isfinite(bound).all())
        status = s.tag_monotone(
            passes, bound if pruning else None, (lambda: best_seen[0]) if pruning else None
        )
    else:
        status = np.ones(s.n, dtype=np.int8)

    candidates = np.flatnonzero(status == 1)
    if all_monotone and metric_monotone:
        candidates = s.predecessors_all_fail(status, candidates)
    if sign == 1 and not bounded and len(candidates):
        bound[candidates] = _lower_bounds(evaluator, s.nodes[candidates])
    # Finer nodes first, so coarser ones roll up from cached classes; a node is skipped
    # when its bound exceeds a quality some satisfying node already reached.
    order = candidates[np.lexsort((s.rank[candidates], s.level_sum[candidates]))]
    reached = min(
        (sign * r.quality for r in s.records.values() if r.satisfied and not math.isnan(r.quality)),
        default=math.inf,
    )

    best_q, best = math.inf, []
    dominated = np.zeros(s.n, dtype=bool)
    for i, idx in enumerate(order):
        if bound[idx] > _tie_limit(min(best_q, reached)):
            continue
        if dominated[idx]:
            continue
        satisfied, value = s.assess(int(idx), with_quality="satisfied")
        q = sign * value
        if progress is not None and i % 16 == 0:
            progress(0.5 + 0.5 * i / max(len(order), 1))
        if not satisfied:
            continue
        if not best or q < best_q - abs(best_q) * _TIE_RTOL - _TIE_RTOL:
            best_q, best = q, [int(idx)]
        elif abs(q - best_q) <= abs(best_q) * _TIE_RTOL + _TIE_RTOL:
            best.append(int(idx))
        if metric_monotone:
            s.region(dominated, int(idx), up=True)[...] = True
            dominated[idx] = False

    optimum, ties = None, ()
    if best:
        best.sort(key=lambda i: (s.level_sum[i], s.rank[i]))
        optimum = s.result(best[0])
        ties = tuple(
            dict(zip(evaluator.freq.qis, map(int, s.nodes[i]), strict=True)) for i in best[1:]
        )
    if progress is not None:
        progress(1.0)
    return SearchResult(
        optimum=optimum,
        ties=ties,
        nodes_checked=len(s.checked),
        lattice_size=lattice.size,
        search_ms=(time.perf_counter() - t0) * 1e3,
        heuristic=False,
        evaluated=tuple(s.records.values()),
        qis=tuple(evaluator.freq.qis),
        goal=evaluator.metric.goal,
    )


def score_tradeoff(evaluator: Evaluator, result: SearchResult) -> list[dict]:
    """Trade-off rows with the quality of every evaluated node computed (for the explorer)."""
    rows = result.tradeoff()
    for row in rows:
        if math.isnan(row["quality"]):
            levels = tuple(row[q] for q in result.qis)
            row["quality"] = evaluator.assess(levels)[1]
    return rows


def _lower_bounds(evaluator: Evaluator, nodes: np.ndarray) -> np.ndarray:
    """A lower bound of the quality of every node (or -inf where the metric offers none)."""
    lb = evaluator.metric.lower_bounds(evaluator.freq, nodes, evaluator._metric_state)
    return np.full(len(nodes), -np.inf) if lb is None else lb


def _heuristic(
    evaluator: Evaluator,
    lattice: Lattice,
    budget: int,
    t0: float,
    progress: Callable[[float], None] | None,
) -> SearchResult:
    """Greedy descent from the top: move to the best satisfying predecessor while one exists."""
    qis = evaluator.freq.qis
    sign = goal_sign(evaluator.metric.goal)
    records: list[NodeRecord] = []
    checked = 0

    def run(levels: tuple[int, ...]) -> TransformationResult:
        nonlocal checked
        checked += 1
        r = evaluator.evaluate(levels)
        kept = evaluator.freq.n_records - r.suppressed_records
        records.append(
            NodeRecord(
                levels,
                r.satisfied,
                r.quality.value,
                r.suppressed_records,
                r.equivalence_classes,
                1.0 / r.min_class_size if r.min_class_size else 0.0,
                r.equivalence_classes / kept if kept else 0.0,
            )
        )
        return r

    current = tuple(int(v) for v in lattice.upper)
    best = run(current)
    if best.satisfied:
        while checked < budget:
            options = []
            for j in range(len(current)):
                if current[j] > lattice.lower[j]:
                    cand = current[:j] + (current[j] - 1,) + current[j + 1 :]
                    r = run(cand)
                    if r.satisfied:
                        options.append(r)
            if not options:
                break
            nxt = min(options, key=lambda r: (sign * r.quality.value, sum(r.levels)))
            if sign * nxt.quality.value > sign * best.quality.value:
                break
            best, current = nxt, tuple(nxt.levels)
            if progress is not None:
                progress(min(1.0, checked / budget))
    log.info("heuristic search over %d nodes checked %d", lattice.size, checked)
    return SearchResult(
        optimum=best if best.satisfied else None,
        ties=(),
        nodes_checked=checked,
        lattice_size=lattice.size,
        search_ms=(time.perf_counter() - t0) * 1e3,
        heuristic=True,
        evaluated=tuple(records),
        qis=tuple(qis),
        goal=evaluator.metric.goal,
    )

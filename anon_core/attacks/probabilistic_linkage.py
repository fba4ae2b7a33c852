"""Probabilistic (Fellegi-Sunter) linkage of a noisy external table with a release.

Exact linkage (:mod:`anon_core.attacks.linkage`) links an external record only when its values,
generalized like the release, equal a released label: a typo, an age off by one, another coding
or a missing field and the person is lost. An attacker does better with the field's standard,
Fellegi and Sunter's (1969) record linkage:

1. **Compare** every candidate pair (external record, released record) field by field into
   agreement levels (:mod:`anon_core.attacks.comparators`: exact, Jaro-Winkler for text,
   numeric and date distances, "the generalized label contains the value").
2. **Block**: only pairs that agree at least weakly on a coarse key are candidates (default: the
   compared column with the fewest distinct released labels; ``block_on=None`` for none).
3. **Train** without labels (:mod:`anon_core.attacks.fellegi_sunter`): u is each field's level
   distribution over the candidate pairs (almost all non-matches); the m-probabilities come from
   EM on the counts of comparison patterns, refined by EM under the per-record model below;
   a higher level never weighs less than a lower one.
4. **Score**: a pair's weight is ``sum log(m/u)`` over its fields, the top level adjusted for the
   value's frequency among the released records (agreeing on a rare value says more). Per
   external record the prior puts ``rho`` (the share of external records whose person is in the
   release, fitted by EM on every record unless ``prior`` is given) uniformly on its candidate
   records and ``1 - rho`` on "no match"; the posterior of each candidate is
   ``(rho/N) LR / ((1 - rho) + (rho/N) sum LR)``.

Released records are handled per distinct released tuple (with its count), so the cost grows
with external records x distinct released tuples in their block, not with released rows.

Figures: per external record the posterior of its best match. When an identifier aligns the
external records with the released rows (``id_column`` + ``released_ids``) ``expected_reidentified``
is the sum of the posteriors of the true records, and precision/recall of "claim the best match
when its posterior >= t" are given for a range of thresholds; otherwise it is the attacker's
expected successes (the sum of the best posteriors) and ``truth_known`` is false.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks import comparators as cmp
from anon_core.attacks.fellegi_sunter import (
    fit_em,
    fit_pattern_em,
    fit_prior,
    monotone,
    term_frequency,
)
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError, DataError

log = logging.getLogger(__name__)

Progress = Callable[[float, str], None]

#: Candidate cells (external records x distinct released tuples) one run may score.
MAX_CANDIDATE_CELLS = 500_000_000
#: Cells scored at once.
CHUNK_CELLS = 2_000_000
MAX_COLUMNS = 20
MAX_EXTERNAL = 1_000_000
#: External records whose candidate pairs train EM (a seeded sample when there are more).
EM_SAMPLE = 1_000
#: Candidate pairs of that sample EM works on at most.
EM_CELLS = 20_000_000
THRESHOLDS = (0.5, 0.9, 0.99)
CURVE = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999)
_RADIX = cmp.N_LEVELS + 1  # levels -1..3 stored as 0..4


@dataclass(frozen=True)
class ProbabilisticLinkageResult:
    """Figures of a probabilistic linkage attack (see the module docstring)."""

    external_records: int
    candidate_pairs: int
    expected_reidentified: float
    reidentified_share: float
    truth_known: bool
    columns: tuple[str, ...]
    block_on: str | None
    kinds: Mapping[str, str]
    match_share: float
    prior: float
    em_iterations: int
    m: Mapping[str, tuple[float, ...]]
    u: Mapping[str, tuple[float, ...]]
    true_released: int = 0
    at_thresholds: Mapping[str, Mapping[str, float | int | None]] = field(default_factory=dict)
    curve: tuple[Mapping[str, float | int | None], ...] = ()
    best_match_probability: tuple[float, ...] = field(default=(), repr=False)

    @property
    def matched_records(self) -> int:
        """External records whose best match has posterior >= 0.5."""
        return int(sum(p >= 0.5 for p in self.best_match_probability))

    @property
    def unique_matches(self) -> int:
        """As exact linkage's figure of that name: records linked to one record (posterior >= 0.5)."""
        return self.matched_records

    @property
    def group_sizes(self) -> tuple[int, ...]:
        """Per external record 1 when its best match has posterior >= 0.5, else 0 (unmatched), so
        that views of exact linkage's group sizes read this result too."""
        return tuple(int(p >= 0.5) for p in self.best_match_probability)

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``linkage`` object (``mode: probabilistic``); per threshold t of
        :data:`THRESHOLDS` the claims (best posterior >= t) and, when the truth is known, their
        precision and recall."""
        out: dict[str, Any] = {
            "mode": "probabilistic",
            "external_records": self.external_records,
            "matched_records": self.matched_records,
            "expected_reidentified": self.expected_reidentified,
            "reidentified_share": self.reidentified_share,
            "truth_known": self.truth_known,
        }
        for key, row in self.at_thresholds.items():
            out[f"matches_at_{key}"] = row["matches"]
            if self.truth_known:
                out[f"precision_at_{key}"] = row["precision"]
                out[f"recall_at_{key}"] = row["recall"]
        return out

    def details(self) -> dict[str, Any]:
        """The model: columns, comparators, blocking, EM's parameters and the threshold curve."""
        return {
            "mode": "probabilistic",
            "truth_known": self.truth_known,
            "columns": list(self.columns),
            "comparators": dict(self.kinds),
            "block_on": self.block_on,
            "candidate_pairs": self.candidate_pairs,
            "match_share": self.match_share,
            "prior": self.prior,
            "em_iterations": self.em_iterations,
            "m": {k: list(v) for k, v in self.m.items()},
            "u": {k: list(v) for k, v in self.u.items()},
            "true_released": self.true_released,
            "at_thresholds": {k: dict(v) for k, v in self.at_thresholds.items()},
            "curve": [dict(c) for c in self.curve],
        }


# ------------------------------------------------------------------ helpers
def _labels(series: pd.Series) -> np.ndarray:
    return np.asarray(to_labels(series), dtype=object).astype(str)


def _choose_block(
    columns: Sequence[str], rel_labels: Mapping[str, np.ndarray], block_on: str | None | bool
) -> str | None:
    if block_on is None or block_on is False:
        return None
    if block_on is not True and block_on != "auto":
        if block_on not in columns:
            raise ConfigError(
                f"'block_on' {block_on!r} is not a compared column; compared columns are "
                f"{list(columns)}. Name one of them, or 'auto'."
            )
        return str(block_on)
    best, best_n = None, None
    for c in columns:
        vals = set(rel_labels[c]) - {cmp.SUPPRESSED} - cmp.NULL_VALUES
        if len(vals) >= 2 and (best_n is None or len(vals) < best_n):
            best, best_n = c, len(vals)
    return best


def _rates(
    claim: np.ndarray, correct: np.ndarray, true_released: int, t: float
) -> dict[str, float | int | None]:
    n = int(claim.sum())
    hits = float(correct[claim].sum())
    return {
        "threshold": t,
        "matches": n,
        "precision": hits / n if n else None,
        "recall": hits / true_released if true_released else None,
    }


# ------------------------------------------------------------------ main
def probabilistic_linkage(
    external: pd.DataFrame,
    released: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    comparators: Mapping[str, str] | None = None,
    block_on: str | None | bool = "auto",
    id_column: str | None = None,
    released_ids: Sequence[Any] | np.ndarray | None = None,
    prior: float | None = None,
    abs_tol: float = 2.0,
    rel_tol: float = 0.05,
    days: int = 31,
    max_iter: int = 100,
    progress: Progress | None = None,
) -> ProbabilisticLinkageResult:
    """Link ``external`` to ``released`` probabilistically; see the module docstring.

    ``columns``: the columns to compare (default: every column both tables have, the identifier
    aside). ``comparators`` overrides the detected comparator per column (one of
    :data:`~anon_core.attacks.comparators.KINDS`). ``prior``: the share of external records
    whose person is in the release (default: estimated by EM).
    """
    report = progress or (lambda f, m: None)
    hierarchies = dict(hierarchies or {})
    comparators = dict(comparators or {})
    if len(external) == 0:
        raise DataError("The external table has no records: give at least one.")
    if len(external) > MAX_EXTERNAL:
        raise DataError(
            f"The external table has {len(external):,} records; at most {MAX_EXTERNAL:,} are "
            "linked at once. Use a sample."
        )
    if len(released) == 0:
        raise DataError("The release has no records: there is nothing to link to.")
    if id_column is not None and id_column not in external.columns:
        raise ConfigError(
            f"'id_column' {id_column!r} is not a column of the external table; its columns are "
            f"{list(external.columns)}."
        )
    if columns is None:
        columns = [c for c in released.columns if c in external.columns and c != id_column]
    else:
        columns = [c for c in columns if c in external.columns and c != id_column]
        missing = [c for c in columns if c not in released.columns]
        if missing:
            raise ConfigError(
                f"Column(s) {missing} are not columns of the released table ({list(released.columns)})."
            )
    if not columns:
        raise ConfigError(
            f"The external table shares no column with the release to compare: its columns are "
            f"{list(external.columns)}, the release's are {list(released.columns)}. Give the "
            "external table at least one released column under the same name."
        )
    if len(columns) > MAX_COLUMNS:
        raise ConfigError(
            f"Probabilistic linkage compares at most {MAX_COLUMNS} columns; {len(columns)} are "
            "shared. Name the columns to compare."
        )
    unknown = sorted(set(comparators) - set(columns))
    if unknown:
        raise ConfigError(
            f"'comparators' names {unknown}, which are not compared columns ({list(columns)})."
        )
    for c, kind in comparators.items():
        if kind not in cmp.KINDS:
            raise ConfigError(
                f"Unknown comparator {kind!r} for column {c!r}; choose one of {', '.join(cmp.KINDS)}."
            )
    if prior is not None and not (isinstance(prior, float | int) and 0.0 < float(prior) < 1.0):
        raise ConfigError(f"'prior' must be a number strictly between 0 and 1, got {prior!r}.")
    truth = released_ids is not None and id_column is not None
    if released_ids is not None and len(released_ids) != len(released):
        raise DataError(
            f"'released_ids' has {len(released_ids)} entries for {len(released)} released records; "
            "give one identifier per released record."
        )
    report(0.0, "probabilistic linkage: comparing")

    # Released rows -> distinct tuples (groups) with counts; fully suppressed rows match nothing.
    rel_lab = {c: _labels(released[c]) for c in columns}
    rel_mat = np.column_stack([rel_lab[c] for c in columns])
    keep = ~np.all((rel_mat == cmp.SUPPRESSED) | np.isin(rel_mat, list(cmp.NULL_VALUES)), axis=1)
    group_of_row = np.full(len(released), -1, dtype=np.int64)
    keys = pd.MultiIndex.from_arrays([rel_lab[c][keep] for c in columns])
    codes, groups = pd.factorize(keys, sort=False)
    group_of_row[keep] = codes
    n_groups = len(groups)
    if n_groups == 0:
        raise DataError("Every released record is suppressed: there is nothing to link to.")
    count = np.bincount(codes, minlength=n_groups).astype(float)

    ext_lab = {c: _labels(external[c]) for c in columns}
    kinds: dict[str, str] = {}
    tables: list[np.ndarray] = []
    ext_codes: list[np.ndarray] = []
    grp_codes: list[np.ndarray] = []
    for j, c in enumerate(columns):
        g_vals = np.asarray(
            groups.get_level_values(j) if isinstance(groups, pd.MultiIndex) else groups,
            dtype=object,
        )
        if g_vals.ndim != 1:
            g_vals = np.asarray([g[j] for g in groups], dtype=object)
        g_code, g_uni = pd.factorize(g_vals.astype(str), sort=False)
        e_code, e_uni = pd.factorize(ext_lab[c], sort=False)
        kind = comparators.get(c) or cmp.detect_kind(list(g_uni), hierarchies.get(c))
        kinds[c] = kind
        tables.append(
            cmp.level_table(
                kind,
                np.asarray(e_uni, dtype=object),
                np.asarray(g_uni, dtype=object),
                hierarchy=hierarchies.get(c),
                abs_tol=abs_tol,
                rel_tol=rel_tol,
                days=days,
                name=c,
            )
        )
        ext_codes.append(e_code.astype(np.int64))
        grp_codes.append(g_code.astype(np.int64))
    report(0.2, "probabilistic linkage: blocking")

    # Blocking: per distinct external block value, the groups it agrees with at least weakly.
    block = _choose_block(columns, rel_lab, block_on)
    n_ext = len(external)
    if block is None:
        blocks = [(np.arange(n_ext), np.arange(n_groups))]
    else:
        jb = columns.index(block)
        ok = tables[jb] != cmp.DISAGREE  # weak or better, or null
        blocks = []
        order = np.argsort(ext_codes[jb], kind="stable")
        values, starts = np.unique(ext_codes[jb][order], return_index=True)
        for v, rows in zip(values, np.split(order, starts[1:]), strict=True):
            blocks.append((rows, np.flatnonzero(ok[v][grp_codes[jb]])))
    cells = sum(len(r) * len(g) for r, g in blocks)
    if cells > MAX_CANDIDATE_CELLS:
        raise ConfigError(
            f"Probabilistic linkage would score {cells:,} candidate pairs (external records x "
            f"distinct released records in their block), more than {MAX_CANDIDATE_CELLS:,}. Block "
            "on a column with more distinct values ('block_on') or link a sample of the external table."
        )
    pairs = float(sum(len(r) * count[g].sum() for r, g in blocks))
    if pairs == 0:
        raise DataError(
            f"No external record agrees with any released record on the blocking column {block!r}; "
            "block on another column ('block_on') or none."
        )

    def chunks(only: np.ndarray | None = None) -> Any:
        for rows, grp in blocks:
            if len(grp) == 0:
                continue
            if only is not None:
                rows = rows[only[rows]]
            step = max(1, CHUNK_CELLS // len(grp))
            for s in range(0, len(rows), step):
                yield rows[s : s + step], grp

    # Pass 1, on a seeded sample of the external records (at most EM_CELLS candidate pairs): the
    # comparison pattern of every candidate pair; u is each column's level distribution over these
    # pairs (almost all non-matches) weighted by the released tuples' counts; EM fits m and rho.
    rng = np.random.default_rng(0)
    order = rng.permutation(n_ext)
    width = np.zeros(n_ext, dtype=np.int64)
    for rows, grp in blocks:
        width[rows] = len(grp)
    within = np.cumsum(width[order]) <= EM_CELLS
    within[0] = True
    sample = np.zeros(n_ext, dtype=bool)
    sample[order[within][:EM_SAMPLE]] = True
    raw: list[tuple[np.ndarray, np.ndarray, tuple[int, int], np.ndarray]] = []
    for r, grp in chunks(sample):
        code = np.zeros((len(r), len(grp)), dtype=np.int64)
        for j in range(len(columns)):
            lv = tables[j][ext_codes[j][r][:, None], grp_codes[j][grp][None, :]]
            code += (lv.astype(np.int64) + 1) * (_RADIX**j)
        uniq, inv = np.unique(code.ravel(), return_inverse=True)
        raw.append((uniq, inv.astype(np.int64), code.shape, grp))
    all_uniq = np.unique(np.concatenate([x[0] for x in raw]))
    patterns = np.stack([(all_uniq // (_RADIX**j)) % _RADIX - 1 for j in range(len(columns))], 1)
    em_chunks = []
    totals = np.zeros(len(all_uniq))
    for uniq, inv, shape, grp in raw:
        pidx = np.searchsorted(all_uniq, uniq)[inv].reshape(shape).astype(np.int32)
        em_chunks.append((pidx, np.log(count[grp])))
        totals += np.bincount(
            pidx.ravel(),
            weights=np.broadcast_to(count[grp][None, :], shape).ravel(),
            minlength=len(all_uniq),
        )
    del raw
    u = np.full((len(columns), cmp.N_LEVELS), 1e-9)
    for j in range(len(columns)):
        for lv in range(cmp.N_LEVELS):
            u[j, lv] += totals[patterns[:, j] == lv].sum()
    u /= u.sum(axis=1, keepdims=True)
    n_sample = int(sample.sum())
    # m from the classic pattern EM; then rho, the share of external records whose person is in
    # the release, from the per-record model (each record has at most one true match).
    m, lam, iters = fit_pattern_em(
        patterns,
        totals,
        u,
        max_share=min(1.0, n_sample / max(float(totals.sum()), 1.0)),
        max_iter=max_iter,
    )
    m, rho, _ = fit_em(
        em_chunks, patterns, u, n_sample, prior=prior, m=m, refine=True, max_iter=max_iter
    )
    del em_chunks
    report(0.6, "probabilistic linkage: scoring")

    # Pass 2: per external record, log-sum-exp of the weights over its candidates.
    weight_tables = []
    m = monotone(m, u)
    wl = np.log(m) - np.log(u)  # (columns, 4)
    for j in range(len(columns)):
        lut = np.concatenate([[0.0], wl[j]])  # null -> 0
        table = lut[tables[j].astype(np.int64) + 1]
        if columns[j] != block:
            table = term_frequency(table, tables[j], grp_codes[j], count, m[j], wl[j])
        weight_tables.append(table.astype(np.float32))
    best_log = np.full(n_ext, -np.inf)
    best_group = np.full(n_ext, -1, dtype=np.int64)
    log_sum = np.full(n_ext, -np.inf)
    n_cand = np.zeros(n_ext)
    true_log = np.full(n_ext, -np.inf)
    true_group = np.full(n_ext, -1, dtype=np.int64)
    if truth:
        rel_ids = pd.Index(pd.Series(np.asarray(released_ids, dtype=object), dtype=object))
        if rel_ids.has_duplicates:
            raise DataError(
                f"The identifier column {id_column!r} repeats values among the released records; "
                "the truth of a match needs one record per identifier."
            )
        pos = rel_ids.get_indexer(pd.Index(pd.Series(external[id_column].to_numpy(), dtype=object)))
        true_group = np.where(pos >= 0, group_of_row[np.maximum(pos, 0)], -1)
    log_count = np.log(count)
    done = 0
    for r, grp in chunks():
        s = np.zeros((len(r), len(grp)), dtype=np.float32)
        for j in range(len(columns)):
            s += weight_tables[j][ext_codes[j][r][:, None], grp_codes[j][grp][None, :]]
        arg = np.argmax(s, axis=1)
        best_log[r] = s[np.arange(len(r)), arg]
        best_group[r] = grp[arg]
        t = s + log_count[grp][None, :].astype(np.float32)
        top = t.max(axis=1)
        log_sum[r] = top + np.log(np.exp(t - top[:, None]).sum(axis=1))
        n_cand[r] = count[grp].sum()
        if truth:
            where = pd.Index(grp).get_indexer(true_group[r])
            has = (true_group[r] >= 0) & (where >= 0)
            true_log[r[has]] = s[np.flatnonzero(has), where[has]]
        done += len(r) * len(grp)
        report(0.6 + 0.35 * done / max(cells, 1), "probabilistic linkage: scoring")

    has_cand = n_cand > 0
    if prior is None:
        rho = fit_prior(log_sum[has_cand] - np.log(n_cand[has_cand]), n_ext, rho)
    log_a = np.where(has_cand, math.log(rho) - np.log(np.maximum(n_cand, 1)), -np.inf)
    log_den = np.logaddexp(math.log1p(-rho), log_a + log_sum)
    best_p = np.where(has_cand, np.exp(log_a + best_log - log_den), 0.0)
    if truth:
        true_p = np.where(true_log > -np.inf, np.exp(log_a + true_log - log_den), 0.0)
        expected = float(true_p.sum())
        true_released = int((true_group >= 0).sum())
        size = np.where(best_group >= 0, count[np.maximum(best_group, 0)], 1.0)
        correct = np.where((best_group == true_group) & (true_group >= 0), 1.0 / size, 0.0)
        at = {str(t): _rates(best_p >= t, correct, true_released, t) for t in THRESHOLDS}
        curve = tuple(_rates(best_p >= t, correct, true_released, t) for t in CURVE)
    else:
        expected = float(best_p.sum())
        true_released = 0
        at = {
            str(t): {
                "threshold": t,
                "matches": int((best_p >= t).sum()),
                "precision": None,
                "recall": None,
            }
            for t in THRESHOLDS
        }
        curve = tuple(
            {"threshold": t, "matches": int((best_p >= t).sum()), "precision": None, "recall": None}
            for t in CURVE
        )
    report(1.0, "probabilistic linkage: done")
    log.info(
        "probabilistic linkage: %d external records, %d candidate pairs, %d EM iterations",
        n_ext,
        int(pairs),
        iters,
    )
    return ProbabilisticLinkageResult(
        external_records=n_ext,
        candidate_pairs=int(pairs),
        expected_reidentified=expected,
        reidentified_share=expected / n_ext,
        truth_known=bool(truth),
        columns=tuple(columns),
        block_on=block,
        kinds=kinds,
        match_share=lam,
        prior=rho,
        em_iterations=iters,
        m={c: tuple(float(x) for x in m[j]) for j, c in enumerate(columns)},
        u={c: tuple(float(x) for x in u[j]) for j, c in enumerate(columns)},
        true_released=true_released,
        at_thresholds=at,
        curve=curve,
        best_match_probability=tuple(float(p) for p in best_p),
    )


def battery_linkage(
    external: pd.DataFrame,
    released: pd.DataFrame,
    *,
    qis: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    levels: Mapping[str, int] | None = None,  # noqa: ARG001 - labels are compared, not levels
    id_column: str | None = None,
    released_ids: Sequence[Any] | np.ndarray | None = None,
    progress: Progress | None = None,
) -> ProbabilisticLinkageResult:
    """:func:`probabilistic_linkage` with exact linkage's signature (the battery's
    ``linkage_mode: probabilistic``): compares the quasi-identifiers the external table holds."""
    cols = [q for q in qis if q in external.columns and q != id_column]
    if not cols:
        raise ConfigError(
            f"The external table shares no quasi-identifier with the release: its columns are "
            f"{list(external.columns)}, the quasi-identifiers are {list(qis)}. Give the external "
            "table at least one quasi-identifier column under the same name."
        )
    return probabilistic_linkage(
        external,
        released,
        columns=cols,
        hierarchies=hierarchies,
        id_column=id_column,
        released_ids=released_ids,
        progress=progress,
    )

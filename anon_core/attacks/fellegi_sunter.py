"""Fellegi-Sunter estimation for :mod:`anon_core.attacks.probabilistic_linkage`.

The m-probabilities come from EM on the counts of comparison patterns (the classic two-class
mixture of Winkler 1988, u fixed), refined by EM under the per-record model (each external record
has at most one true match among its candidates, or none); level weights are kept monotone and
the top level is adjusted for term frequency; the prior (the share of external records whose
person is in the release) is fitted on every record.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from anon_core.attacks import comparators as cmp


def initial_m(u: np.ndarray) -> np.ndarray:
    """EM's start: matches agree, mostly at the highest level each column shows among the pairs."""
    present = u > 1e-6
    m = np.where(present, 0.02, 1e-9)
    for j in range(len(u)):
        levels = np.flatnonzero(present[j])
        if len(levels):
            m[j, levels[-1]] = 0.9
    return m / m.sum(axis=1, keepdims=True)


def monotone(m: np.ndarray, u: np.ndarray) -> np.ndarray:
    """m adjusted so that a higher agreement level never weighs less than a lower one.

    Without this, EM on real data can give a weak level (say two different but similarly spelt
    categories) a larger m/u ratio than exact agreement, because near-duplicate records make
    weak agreement rarer among random pairs than among "matches"; a record would then link to
    its near-duplicate rather than to itself. Per column, the log ratio of each level is capped
    by that of every higher level the pairs show.
    """
    w = np.log(m) - np.log(u)
    present = u > 1e-6
    out = w.copy()
    for j in range(len(w)):
        cap = np.inf
        for lv in range(w.shape[1] - 1, -1, -1):
            if present[j, lv]:
                out[j, lv] = min(w[j, lv], cap)
                cap = out[j, lv]
    new = u * np.exp(out)
    return new / new.sum(axis=1, keepdims=True)


def fit_pattern_em(
    patterns: np.ndarray,
    counts: np.ndarray,
    u: np.ndarray,
    *,
    max_share: float,
    max_iter: int = 100,
    tol: float = 1e-7,
) -> tuple[np.ndarray, float, int]:
    """Fellegi-Sunter EM on the counts of comparison patterns, u fixed: the m-probabilities and
    the match share among the pairs (at most ``max_share``, one match per external record).

    Pairs are taken as independent draws of a two-class mixture (the classic model of Winkler
    1988 and splink). Returns m, the match share and the iterations.
    """
    n_columns = patterns.shape[1]
    counts = np.asarray(counts, dtype=float)
    onehot = np.zeros((len(patterns), n_columns, cmp.N_LEVELS))
    for j in range(n_columns):
        lv = patterns[:, j]
        ok = lv >= 0
        onehot[np.flatnonzero(ok), j, lv[ok]] = 1.0
    log_u = np.einsum("pjl,jl->p", onehot, np.log(u))
    m = initial_m(u)
    lam = max_share / 2
    total = counts.sum()
    prev = -np.inf
    iterations = 0
    for it in range(1, max_iter + 1):
        iterations = it
        a = math.log(lam) + np.einsum("pjl,jl->p", onehot, np.log(m))
        b = math.log1p(-lam) + log_u
        ll_p = np.logaddexp(a, b)
        g = counts * np.exp(a - ll_p)
        m = np.einsum("p,pjl->jl", g, onehot) + 1e-9
        m = monotone(m / m.sum(axis=1, keepdims=True), u)
        lam = float(np.clip(g.sum() / total, 1e-12, min(max_share, 1 - 1e-9)))
        ll = float((counts * ll_p).sum())
        if abs(ll - prev) <= tol * max(1.0, abs(ll)):
            break
        prev = ll
    return m, lam, iterations


def fit_em(
    chunks: Sequence[tuple[np.ndarray, np.ndarray]],
    patterns: np.ndarray,
    u: np.ndarray,
    n_records: int,
    *,
    prior: float | None = None,
    m: np.ndarray | None = None,
    refine: bool = False,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> tuple[np.ndarray, float, int]:
    """EM for the m-probabilities and the prior ``rho`` with at most one match per external record.

    ``chunks`` holds, per block of external records sharing their candidates, the pattern index
    of every (record, released tuple) pair and the log counts of the tuples; ``patterns`` is
    (P, columns) of levels -1..3 (-1 null, ignored); ``u`` (columns x 4) stays fixed. Each
    record's responsibilities are normalized over its candidates and "no match" (the model of
    the module docstring), so that k identical released records share one match between them
    instead of all counting as matches, and correlated non-matching fields cannot pose as a
    match class. ``n_records`` counts the records of the sample (those without candidates too).
    With ``m`` given only rho is fitted. Returns m (rows summing to 1), rho and the iterations.
    """
    n_columns = patterns.shape[1]
    onehot = np.zeros((len(patterns), n_columns, cmp.N_LEVELS))
    for j in range(n_columns):
        lv = patterns[:, j]
        ok = lv >= 0
        onehot[np.flatnonzero(ok), j, lv[ok]] = 1.0
    eps = 1e-9
    log_u = np.einsum("pjl,jl->p", onehot, np.log(u))
    fixed_m = m is not None and not refine
    m = initial_m(u) if m is None else np.asarray(m, dtype=float)
    rho = float(prior) if prior is not None else 0.5
    iterations = 0
    for it in range(1, max_iter + 1):
        iterations = it
        w = np.einsum("pjl,jl->p", onehot, np.log(m)) - log_u
        resp = np.zeros(len(patterns))
        matched = 0.0
        for pidx, log_count in chunks:
            t = w[pidx] + log_count[None, :]
            top = t.max(axis=1)
            lse = top + np.log(np.exp(t - top[:, None]).sum(axis=1))
            a = math.log(rho) - float(np.logaddexp.reduce(log_count))
            log_l = np.logaddexp(math.log1p(-rho), a + lse)
            r = np.exp(a + t - log_l[:, None])
            resp += np.bincount(pidx.ravel(), weights=r.ravel(), minlength=len(patterns))
            matched += float(np.exp(a + lse - log_l).sum())
        if fixed_m:
            new_m = m
        else:
            new_m = np.einsum("p,pjl->jl", resp, onehot) + eps
            new_m = monotone(new_m / new_m.sum(axis=1, keepdims=True), u)
        new_rho = rho if prior is not None else float(np.clip(matched / n_records, 1e-3, 1 - 1e-3))
        delta = max(float(np.abs(new_m - m).max()), abs(new_rho - rho))
        m, rho = new_m, new_rho
        if delta < tol:
            break
    return m, rho, iterations


def term_frequency(
    table: np.ndarray,
    levels: np.ndarray,
    group_labels: np.ndarray,
    count: np.ndarray,
    m: np.ndarray,
    weights: np.ndarray,
) -> np.ndarray:
    """Weights with term-frequency adjustment of the column's top agreement level.

    Agreeing on a rare value is stronger evidence than agreeing on a common one: for the pairs
    at the top level, u is replaced by the share of released records at that level with the
    external value (splink's term-frequency adjustment), never weighing less than the next level.
    """
    present = np.flatnonzero(m > 1e-6)
    shown = [lv for lv in range(cmp.N_LEVELS) if (levels == lv).any()]
    if not shown:
        return table
    top = shown[-1]
    mass = np.bincount(group_labels, weights=count, minlength=levels.shape[1])
    valid = (levels >= 0).any(axis=0)
    total = mass[valid].sum()
    if total <= 0 or top not in present:
        return table
    tf = ((levels == top) * mass[None, :]).sum(axis=1) / total
    lower = [weights[lv] for lv in shown[:-1]]
    floor = max(lower) if lower else -np.inf
    tf_weight = np.maximum(np.log(m[top]) - np.log(np.maximum(tf, 1e-12)), floor)
    out = table.copy()
    at_top = levels == top
    out[at_top] = np.broadcast_to(tf_weight[:, None], levels.shape)[at_top]
    return out


def fit_prior(log_mean_lr: np.ndarray, n_records: int, rho: float, max_iter: int = 500) -> float:
    """EM for rho given each record's mean likelihood ratio over its candidates (log): the share
    of external records whose person is in the release. Records without candidates count as
    unmatched."""
    mean_lr = np.exp(np.minimum(log_mean_lr, 700.0))
    for _ in range(max_iter):
        post = rho * mean_lr / (1.0 - rho + rho * mean_lr)
        new = float(np.clip(post.sum() / n_records, 1e-3, 1 - 1e-3))
        if abs(new - rho) < 1e-9:
            return new
        rho = new
    return rho

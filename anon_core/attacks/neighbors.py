"""Nearest released records under anonymeter's Gower-like mixed distance, vectorized.

The distance between two records sums over the columns: for a numeric column
``|x - y| / range`` (range over all tables), for a categorical one 0 when the codes are equal
and 1 otherwise (a missing category is its own value). A numeric column missing on either side
counts 1 (anonymeter counts 1 when both are missing). Rows are deduplicated on the columns
first (generalized tables have few distinct rows), and ties between equally near released
records are broken by a random (seeded) order of the released rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anon_core.attacks.encoding import EncodedTables, row_keys

_CELLS_PER_CHUNK = 2_000_000
_ONE_HOT_MAX = 512


def _features(enc: EncodedTables, table: int, cols: np.ndarray) -> np.ndarray:
    """Numeric columns as value / range (NaN missing), categorical as codes, float."""
    out = np.empty((len(enc.codes[table]), len(cols)))
    for k, j in enumerate(cols):
        if enc.numeric[j]:
            out[:, k] = enc.values(table, j) / enc.scale[j]
        else:
            out[:, k] = enc.codes[table][:, j]
    return out


def _one_hot(features: np.ndarray, columns: list[tuple[int, int, int]], width: int) -> np.ndarray:
    """Rows x categories indicator matrix (float32) of the categorical ``columns``
    (position, offset, cardinality); a missing code -1 is its own category."""
    out = np.zeros((len(features), width), dtype=np.float32)
    rows = np.arange(len(features))
    for k, offset, _ in columns:
        out[rows, offset + features[:, k].astype(np.int64) + 1] = 1.0
    return out


@dataclass(frozen=True)
class GowerPlan:
    """What every chunk of queries against the same candidates shares: the categorical columns
    compared through indicator matrices (position, offset, cardinality), the others, and the
    candidates' indicator matrix (transposed), built once."""

    small: tuple[tuple[int, int, int], ...]
    wide: tuple[int, ...]
    candidates_one_hot: np.ndarray | None


def gower_plan(queries: np.ndarray, candidates: np.ndarray, numeric: np.ndarray) -> GowerPlan:
    """The plan of :func:`gower_distances` for these candidates and any rows of ``queries``."""
    small: list[tuple[int, int, int]] = []
    wide: list[int] = []
    width = 0
    for k in range(queries.shape[1]):
        if numeric[k]:
            continue
        top = max(queries[:, k].max(initial=-1.0), candidates[:, k].max(initial=-1.0))
        cardinality = int(top) + 2
        if cardinality <= _ONE_HOT_MAX:
            small.append((k, width, cardinality))
            width += cardinality
        else:
            wide.append(k)
    one_hot = _one_hot(candidates, small, width).T.copy() if small else None
    return GowerPlan(tuple(small), tuple(wide), one_hot)


def gower_distances(
    queries: np.ndarray, candidates: np.ndarray, numeric: np.ndarray, plan: GowerPlan | None = None
) -> np.ndarray:
    """(len(queries), len(candidates)) distances between feature rows (see the module doc).

    Categorical columns of modest cardinality are compared all at once: the number of equal
    columns is a product of indicator matrices (exact in float32 for small counts). ``plan``
    (from :func:`gower_plan` over these candidates and a superset of the queries) is reused
    across chunks of queries.
    """
    if plan is None:
        plan = gower_plan(queries, candidates, numeric)
    dist = np.zeros((len(queries), len(candidates)))
    diff = np.empty_like(dist)
    for k in np.flatnonzero(numeric):
        q, c = queries[:, k][:, None], candidates[:, k][None, :]
        np.subtract(q, c, out=diff)
        np.abs(diff, out=diff)
        if np.isnan(q).any() or np.isnan(c).any():
            diff[np.isnan(diff)] = 1.0
        dist += diff
    for k in plan.wide:
        dist += queries[:, k][:, None] != candidates[:, k][None, :]
    if plan.small:
        width = plan.candidates_one_hot.shape[0]
        equal = _one_hot(queries, list(plan.small), width) @ plan.candidates_one_hot
        dist += len(plan.small) - np.rint(equal)
    return dist


def _cutoff(row: np.ndarray, sizes: np.ndarray, k: int) -> float:
    """The least distance d such that the combinations at distance <= d hold at least ``k``
    candidate rows (all of them when they hold fewer). Each combination holds one row or more,
    so only the ``k`` nearest combinations need sorting, not the whole row."""
    m = min(k, len(row))
    near = np.argpartition(row, m - 1)[:m] if m < len(row) else np.arange(len(row))
    near = near[np.argsort(row[near], kind="stable")]
    reach = np.cumsum(sizes[near])
    return row[near[min(int(np.searchsorted(reach, k)), len(near) - 1)]]


def nearest(
    enc: EncodedTables,
    query_table: int,
    query_rows: np.ndarray,
    candidate_table: int,
    cols: np.ndarray,
    n_neighbors: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Indices (len(query_rows), n_neighbors) of the nearest candidate rows on ``cols``, nearest
    first. Equally near candidates are drawn at random for each query row, so a tie costs the
    attacker what a random pick among the tied records costs (the expectation of anonymeter's
    arbitrary, sort-order tie-break, without its per-class clustering)."""
    cand_codes = enc.codes[candidate_table][:, cols]
    query_codes = enc.codes[query_table][query_rows][:, cols]
    n_cand = len(cand_codes)
    k = min(n_neighbors, n_cand)
    cand_keys, query_keys = row_keys(cand_codes, query_codes)
    u_cand, first_cand, cand_inverse = np.unique(cand_keys, return_index=True, return_inverse=True)
    u_query, first_query, query_inverse = np.unique(
        query_keys, return_index=True, return_inverse=True
    )
    cand_inverse, query_inverse = cand_inverse.reshape(-1), query_inverse.reshape(-1)
    # candidate rows grouped by distinct combination; query rows grouped by distinct query
    by_combo = np.argsort(cand_inverse, kind="stable")
    combo_start = np.searchsorted(cand_inverse[by_combo], np.arange(len(u_cand)))
    combo_size = np.diff(np.append(combo_start, n_cand))
    by_query = np.argsort(query_inverse, kind="stable")
    query_start = np.searchsorted(query_inverse[by_query], np.arange(len(u_query) + 1))
    cand_feat = _features(enc, candidate_table, cols)[first_cand]
    query_feat = _features(enc, query_table, cols)[query_rows][first_query]
    numeric = enc.numeric[cols]
    result = np.empty((len(query_rows), k), dtype=np.int64)
    plan = gower_plan(query_feat, cand_feat, numeric)
    chunk = max(1, _CELLS_PER_CHUNK // max(1, len(u_cand)))
    for start in range(0, len(u_query), chunk):
        stop = min(start + chunk, len(u_query))
        dist = gower_distances(query_feat[start:stop], cand_feat, numeric, plan)
        targets = by_query[query_start[start] : query_start[stop]]
        which = query_inverse[targets] - start
        if k == 1:
            # the tied nearest combinations, row by row; a target draws one of their rows
            tied_row, tied_combo = np.nonzero(dist == dist.min(axis=1, keepdims=True))
            weight = combo_size[tied_combo]
            reach = np.cumsum(weight)
            first = np.searchsorted(tied_row, np.arange(len(dist) + 1))
            before = np.concatenate([[0], reach])[first]
            pick = (rng.random(len(targets)) * (before[which + 1] - before[which])).astype(np.int64)
            at = np.searchsorted(reach, before[which] + pick, side="right")
            combo = tied_combo[at]
            offset = before[which] + pick - (reach[at] - weight[at])
            result[targets, 0] = by_combo[combo_start[combo] + offset]
            continue
        for i, row in enumerate(dist):
            cutoff = _cutoff(row, combo_size, k)
            near = np.flatnonzero(row <= cutoff)
            members = np.concatenate(
                [by_combo[combo_start[c] : combo_start[c] + combo_size[c]] for c in near]
            )
            member_dist = row[cand_inverse[members]]
            for t in by_query[query_start[start + i] : query_start[start + i + 1]]:
                ranked = np.lexsort((rng.random(len(members)), member_dist))
                result[t] = members[ranked[:k]]
    return result

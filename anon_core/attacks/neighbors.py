"""Nearest released records under anonymeter's Gower-like mixed distance, vectorized.

The distance between two records sums over the columns: for a numeric column
``|x - y| / range`` (range over all tables), for a categorical one 0 when the codes are equal
and 1 otherwise (a missing category is its own value). A numeric column missing on either side
counts 1 (anonymeter counts 1 when both are missing). Rows are deduplicated on the columns
first (generalized tables have few distinct rows), and ties between equally near released
records are broken by a random (seeded) order of the released rows.
"""

from __future__ import annotations

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


def gower_distances(queries: np.ndarray, candidates: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """(len(queries), len(candidates)) distances between feature rows (see the module doc).

    Categorical columns of modest cardinality are compared all at once: the number of equal
    columns is a product of indicator matrices (exact in float32 for small counts).
    """
    dist = np.zeros((len(queries), len(candidates)))
    small: list[tuple[int, int, int]] = []
    width = 0
    for k in range(queries.shape[1]):
        q, c = queries[:, k][:, None], candidates[:, k][None, :]
        if numeric[k]:
            diff = np.abs(q - c)
            dist += np.where(np.isnan(diff), 1.0, diff)
            continue
        top = max(queries[:, k].max(initial=-1.0), candidates[:, k].max(initial=-1.0))
        cardinality = int(top) + 2
        if cardinality <= _ONE_HOT_MAX:
            small.append((k, width, cardinality))
            width += cardinality
        else:
            dist += q != c
    if small:
        equal = _one_hot(queries, small, width) @ _one_hot(candidates, small, width).T
        dist += len(small) - np.rint(equal)
    return dist


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
    chunk = max(1, _CELLS_PER_CHUNK // max(1, len(u_cand)))
    for start in range(0, len(u_query), chunk):
        stop = min(start + chunk, len(u_query))
        dist = gower_distances(query_feat[start:stop], cand_feat, numeric)
        targets = by_query[query_start[start] : query_start[stop]]
        which = query_inverse[targets] - start
        if k == 1:
            tied = dist == dist.min(axis=1, keepdims=True)
            cum = np.cumsum(np.where(tied, combo_size[None, :], 0), axis=1)
            big = int(cum[:, -1].max()) + 1
            flat = (cum + np.arange(len(cum))[:, None] * big).ravel()
            pick = (rng.random(len(targets)) * cum[which, -1]).astype(np.int64)
            combo = np.searchsorted(flat, which * big + pick, side="right") - which * len(u_cand)
            offset = pick - (cum[which, combo] - combo_size[combo])
            result[targets, 0] = by_combo[combo_start[combo] + offset]
            continue
        for i, row in enumerate(dist):
            order = np.argsort(row, kind="stable")
            sizes = np.cumsum(combo_size[order])
            cutoff = row[order[min(int(np.searchsorted(sizes, k)), len(order) - 1)]]
            near = np.flatnonzero(row <= cutoff)
            members = np.concatenate(
                [by_combo[combo_start[c] : combo_start[c] + combo_size[c]] for c in near]
            )
            member_dist = row[cand_inverse[members]]
            for t in by_query[query_start[start + i] : query_start[start + i + 1]]:
                ranked = np.lexsort((rng.random(len(members)), member_dist))
                result[t] = members[ranked[:k]]
    return result

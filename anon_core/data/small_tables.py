"""Dictionary encoding of small tables in plain Python.

For a hierarchy file of a few hundred cells, or a column of a few hundred distinct values, a
hash table's set-up and numpy's per-call checks cost more than the work itself. These helpers
give the same codes as the vectorized path (codes by first appearance) with dictionaries, so
the fixed cost of building a small problem stays proportional to its size.
"""

from __future__ import annotations

import numpy as np

#: At most this many distinct values are factorized with a dictionary.
DICT_MAX_VALUES = 256
#: Hierarchy tables of at most this many cells are encoded with dictionaries.
DICT_MAX_CELLS = 4096


def factorize_strings(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``pd.factorize(values, sort=False)`` of values that are all ``str`` (codes by first
    appearance, the first value of each code) with a dictionary, or None when some value is
    not a ``str`` (missing values and numbers then take pandas' path)."""
    ids: dict[str, int] = {}
    codes = []
    for value in values.tolist():
        if type(value) is not str:
            return None
        codes.append(ids.setdefault(value, len(ids)))
    return np.asarray(codes, dtype=np.intp), np.asarray(list(ids), dtype=object)


def encode_levels(
    ids: np.ndarray, names: np.ndarray, data_labels: list[str]
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] | None:
    """A hierarchy's lookup arrays over the data's labels, from its validated label ids
    (``ids``: rows x levels, level-0 labels distinct; ``names``: label of each id).

    Per level: the code of each data label (codes by first appearance among the data's
    labels), the label of each code and the rows of the table under each code. None when a
    data label has no row (the caller's vectorized path words the error).
    """
    level0 = names[ids[:, 0]].tolist()
    row_of = {label: row for row, label in enumerate(level0)}
    pos = [row_of.get(label, -1) for label in data_labels]
    if -1 in pos:
        return None
    maps, labels, leaf_counts = [], [], []
    for h, column in enumerate(ids.T.tolist()):
        seen: dict[int, int] = {}
        codes = [seen.setdefault(column[p], len(seen)) for p in pos]
        uniq = np.fromiter(seen, dtype=np.int64, count=len(seen))
        maps.append(np.asarray(codes, dtype=np.int32))
        labels.append(names[uniq])
        leaf_counts.append(np.bincount(ids[:, h])[uniq].astype(np.int64))
    return maps, labels, leaf_counts

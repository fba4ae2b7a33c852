"""Bounds on what an untrusted input file may cost before it is parsed.

A table wider than :data:`MAX_COLUMNS` or a text line longer than
:data:`MAX_LINE_CHARS` is refused up front with one clear message: parsers,
separator sniffing and SQL planning grow faster than linearly with them (a
10 MB line without a newline, or 5,000 columns, ran for many minutes).
"""

from __future__ import annotations

import numpy as np

from anon_core.errors import DataError

#: Widest table accepted by every loader and engine.
MAX_COLUMNS = 2000
#: Longest physical line of a text table (characters between two line breaks).
MAX_LINE_CHARS = 1_000_000


def check_columns_count(count: int, name: str) -> None:
    """One DataError line when a table has more columns than :data:`MAX_COLUMNS`."""
    if count > MAX_COLUMNS:
        raise DataError(
            f"{name} has {count:,} columns; at most {MAX_COLUMNS:,} are accepted. Keep the columns you "
            "need (drop the others before loading), or check the separator."
        )


def longest_line(raw: bytes, unit: int = 1) -> int:
    """Length in characters of the longest line of text bytes (``unit``: bytes per character, 1 for UTF-8/8-bit;
    an upper bound for multi-byte UTF-8). Line breaks are LF or CR, as the CSV parser reads them."""
    if not raw:
        return 0
    data = np.frombuffer(raw, dtype=np.uint8)
    breaks = np.flatnonzero((data == 10) | (data == 13))
    edges = np.concatenate(([-1], breaks, [len(data)]))
    return int(np.diff(edges).max() - 1) // max(unit, 1)


def check_line_length(raw: bytes, name: str, unit: int = 1) -> None:
    """One DataError line when a text line is longer than :data:`MAX_LINE_CHARS` (checked in one pass)."""
    longest = longest_line(raw, unit)
    if longest > MAX_LINE_CHARS:
        raise DataError(
            f"{name} has a line of {longest:,} characters without a line break; lines are limited to "
            f"{MAX_LINE_CHARS:,} characters. Check that it is a delimited text table with one record per "
            "line (and its line breaks were not lost), or split the long values."
        )

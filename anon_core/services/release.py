"""The release value: one released table with everything needed to judge, sign and verify it.

Any registered method produces a :class:`Release` (through :class:`~anon_core.services.session.
Session`); everything downstream (risk, attacks, utility, downloads, the dossier and ``verify``)
reads this one value and never re-applies or re-derives the table. ``output_sha256`` is the
SHA-256 of the table's canonical CSV bytes, the bytes a CSV download holds.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

#: What the final release covers: the whole table, or only the rehearsal's released part.
SCOPES = ("whole", "part")


def jsonable(value: Any) -> Any:
    """A JSON-ready copy: mappings with text keys, lists for tuples, numpy scalars as Python's."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return value.item()
    return value


def canonical_csv(frame: pd.DataFrame) -> bytes:
    """The table as the CLI writes a .csv (no index, LF line ends, UTF-8): the bytes hashed."""
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


def sha256_of_table(frame: pd.DataFrame) -> str:
    return hashlib.sha256(canonical_csv(frame)).hexdigest()


#: A cell that a CSV writer neutralized as a spreadsheet formula: an apostrophe before = + - @ tab CR.
_ESCAPED = re.compile(r"^'[=+\-@\t\r]")


def read_back(data: bytes, like: pd.DataFrame, unescape: bool = False) -> pd.DataFrame:
    """A released CSV as its reader gets it: text cells as text ('' is missing), and the columns
    that are numbers in ``like`` (the input) as numbers where every value parses. ``unescape``
    removes the apostrophe a formula-escaping writer put before = + - @ tab or CR.

    A release's table is this reading of its own canonical CSV, so every figure is measured on
    what a reader of the file gets, and ``verify`` can read the file back to the same table."""
    frame = pd.read_csv(
        io.BytesIO(data), dtype=str, keep_default_na=False, na_values=[""], lineterminator="\n"
    )
    for col in frame.columns:
        s = frame[col]
        if unescape:
            hit = s.str.match(_ESCAPED, na=False)
            if hit.any():
                s = s.where(~hit, s.str.slice(1))
        if col in like.columns and pd.api.types.is_numeric_dtype(like[col]):
            numbers = pd.to_numeric(s, errors="coerce")
            if numbers.notna().sum() == s.notna().sum():
                s = numbers
        frame[col] = s
    return frame


def settled_table(table: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """``table`` as read back from its canonical CSV (:func:`read_back`); reading the result's
    CSV again gives the same bytes."""
    return read_back(canonical_csv(table), like)


@dataclass(frozen=True)
class Rehearsal:
    """The seeded split the evidence was measured on.

    The input (identifiers dropped) is split into a released part and control records that are
    never released. The same method and parameters release the part; the attacks compare that
    release with the part and the control records. ``scope`` says what the final release covers.
    """

    control_fraction: float
    random_state: int
    n_released_part: int
    n_control: int
    scope: str = "whole"

    def to_dict(self) -> dict[str, Any]:
        return {
            "control_fraction": self.control_fraction,
            "random_state": self.random_state,
            "released_part": self.n_released_part,
            "control": self.n_control,
            "scope": self.scope,
        }

    def sentence(self) -> str:
        """What was done, in one line for a page or a report."""
        if self.scope == "part":
            return (
                f"The release covers the released part only ({self.n_released_part:,} records): "
                f"{self.n_control:,} control records were held back and never released, so every "
                "attack figure is measured on the released file itself."
            )
        return (
            f"Rehearsal: the same method released a seeded part of {self.n_released_part:,} "
            f"records and was attacked with {self.n_control:,} records it never saw; the final "
            "release covers the whole table, so its attack figures are those of the rehearsal."
        )


@dataclass(frozen=True, eq=False)
class Release:
    """One release of any method: the table and what made it."""

    table: pd.DataFrame
    method: str
    label: str
    parameters: Mapping[str, Any]
    random_state: int
    guarantee: str
    synthetic: bool
    reproducible: bool
    input_sha256: str
    rehearsal: Rehearsal
    details: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    output_sha256: str = ""

    def __post_init__(self) -> None:
        if not self.output_sha256:
            object.__setattr__(self, "output_sha256", sha256_of_table(self.table))

    @property
    def rows(self) -> int:
        return int(len(self.table))

    def csv_bytes(self) -> bytes:
        """The CSV download: exactly the bytes ``output_sha256`` is the hash of."""
        return canonical_csv(self.table)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the table (JSON-ready): the CLI's JSON and the dossier's release block."""
        return {
            "method": self.method,
            "label": self.label,
            "parameters": jsonable(dict(self.parameters)),
            "random_state": self.random_state,
            "guarantee": self.guarantee,
            "synthetic": self.synthetic,
            "reproducible": self.reproducible,
            "rows": self.rows,
            "columns": [str(c) for c in self.table.columns],
            "input_sha256": self.input_sha256,
            "output_sha256": self.output_sha256,
            "rehearsal": self.rehearsal.to_dict(),
            "details": jsonable(dict(self.details)),
        }

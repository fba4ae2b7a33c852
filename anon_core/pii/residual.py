"""Direct identifiers left in de-identified free text, measured apart from the detector.

The detector (Presidio) cannot tell what it missed, so the check uses two other sources:

* the record's **own identifier values**: each row's values in the table's identifier columns
  (a name, an e-mail, a phone number) and, for multi-word values such as names, each word of
  four letters or more, searched in that row's de-identified text (case-insensitive, whole words);
  phone-like values are compared by their digits;
* **patterns** that need no reference: e-mail addresses, phone-like digit groups (7 to 15 digits,
  dates excluded) and card numbers that pass the Luhn check.

A row counts once however many identifiers it still carries. Fake replacements (the ``fake``
operator) are format-valid by design and are counted by the patterns: read that figure with the
operators in mind. No cell value is kept in the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from anon_core.pii.checksums import card_number_valid

#: Share of non-empty text rows with an identifier left above which the release is flagged.
DEFAULT_WARN_SHARE = 0.01

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w])\+?\(?\d[\d\s().\-/]{5,}\d(?![\w])")
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){11,18}\d(?!\d)")
_WORD = re.compile(r"[^\W\d_]{4,}")


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _phones(text: str) -> list[str]:
    """Digit strings of the phone-like groups of ``text`` (dates left out)."""
    out = []
    for m in _PHONE.finditer(text):
        cand = m.group(0).strip()
        digits = _digits(cand)
        if 7 <= len(digits) <= 15 and not _DATE.fullmatch(cand):
            out.append(digits)
    return out


def _cards(text: str) -> int:
    """Card numbers left in ``text``, by the card recognizer's own rule (12-digit Maestro too)."""
    return sum(1 for m in _CARD.finditer(text) if card_number_valid(m.group(0)))


@dataclass(frozen=True)
class ResidualCheck:
    """What the de-identified text of one or more columns still carries (counts, no values)."""

    rows: int  # non-empty text rows checked
    rows_with_own_values: int  # rows whose text holds one of the record's own identifier values
    rows_with_patterns: int  # rows with an e-mail, phone-like or card-like pattern
    rows_with_any: int
    by_kind: dict[str, int] = field(default_factory=dict)  # rows per kind of leftover
    reference_columns: tuple[str, ...] = ()  # identifier columns the own values came from
    warn_share: float = DEFAULT_WARN_SHARE

    @property
    def share(self) -> float:
        """Share of checked rows that still carry a direct identifier."""
        return self.rows_with_any / self.rows if self.rows else 0.0

    @property
    def flagged(self) -> bool:
        return self.share > self.warn_share

    def to_dict(self) -> dict[str, object]:
        return {
            "rows": self.rows,
            "rows_with_own_values": self.rows_with_own_values,
            "rows_with_patterns": self.rows_with_patterns,
            "rows_with_any": self.rows_with_any,
            "share": round(self.share, 6),
            "by_kind": dict(self.by_kind),
            "reference_columns": list(self.reference_columns),
            "warn_share": self.warn_share,
            "flagged": self.flagged,
        }

    def sentence(self) -> str:
        """One line for a page or a report."""
        ref = (
            f"the record's own {', '.join(self.reference_columns)}"
            if self.reference_columns
            else "no identifier column to compare names with"
        )
        kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(self.by_kind.items())) or "none"
        return (
            f"{self.rows_with_any:,} of {self.rows:,} de-identified texts ({self.share:.1%}) still "
            f"hold a direct identifier (checked against {ref} and against e-mail, phone and card "
            f"patterns; rows per kind: {kinds})."
        )


def _own_terms(values: Sequence[object]) -> tuple[list[str], list[str]]:
    """Words (lower case) and phone digit strings of one record's identifier values."""
    words: list[str] = []
    digits: list[str] = []
    for v in values:
        if v is None or (isinstance(v, float) and pd.isna(v)):
            continue
        text = str(v).strip()
        if not text:
            continue
        d = _digits(text)
        if len(d) >= 7 and len(d) >= 0.6 * len(re.sub(r"\s", "", text)):
            digits.append(d)  # a phone or number-like identifier: compared by digits
            continue
        words.append(text.lower())
        if " " in text:
            words.extend(w.lower() for w in _WORD.findall(text))
    return words, digits


def residual_identifiers(
    original: pd.DataFrame,
    deidentified: pd.DataFrame,
    text_columns: Sequence[str],
    identifier_columns: Sequence[str] = (),
    warn_share: float = DEFAULT_WARN_SHARE,
) -> ResidualCheck:
    """Count the rows of ``deidentified[text_columns]`` that still carry a direct identifier.

    ``original`` and ``deidentified`` are row-aligned (same index); ``identifier_columns`` of
    ``original`` are the reference for each record's own values.
    """
    refs = tuple(c for c in identifier_columns if c in original.columns and c not in text_columns)
    own_rows = pattern_rows = any_rows = rows = 0
    by_kind: dict[str, int] = {}
    ref_values = original[list(refs)].to_numpy(dtype=object) if refs else None
    texts = deidentified[list(text_columns)].to_numpy(dtype=object)
    for i in range(len(deidentified)):
        cells = [
            str(t) for t in texts[i] if t is not None and not (isinstance(t, float) and pd.isna(t))
        ]
        text = " \n ".join(c for c in cells if c.strip())
        if not text:
            continue
        rows += 1
        kinds: set[str] = set()
        lower = text.lower()
        phones = _phones(text)
        if ref_values is not None:
            words, digits = _own_terms(ref_values[i])
            for w in words:
                if re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", lower):
                    kinds.add("own name or value")
                    break
            if any(d in p or p in d for d in digits for p in phones if len(p) >= 7):
                kinds.add("own phone or number")
        own = bool(kinds)
        if _EMAIL.search(text):
            kinds.add("e-mail pattern")
        if phones:
            kinds.add("phone pattern")
        if _cards(text):
            kinds.add("card pattern")
        patterns = bool(kinds - {"own name or value", "own phone or number"})
        own_rows += own
        pattern_rows += patterns
        any_rows += bool(kinds)
        for k in kinds:
            by_kind[k] = by_kind.get(k, 0) + 1
    return ResidualCheck(rows, own_rows, pattern_rows, any_rows, by_kind, refs, warn_share)

"""Role suggestions for a new table: a role per column with the reason, from names, kinds and uniqueness."""

from __future__ import annotations

import pandas as pd

from anon_core.data.dataset import Role
from anon_core.data.io import ColumnKind, column_profile

#: Column names that almost always hold direct identifiers.
_IDENTIFIER_HINTS = (
    "name",
    "email",
    "e-mail",
    "phone",
    "ssn",
    "passport",
    "iban",
    "account",
    "patient_id",
    "record_id",
    "mrn",
)
#: Column names that usually hold the attribute an attacker wants to learn.
_SENSITIVE_HINTS = (
    "diagnos",
    "disease",
    "illness",
    "condition",
    "salary",
    "income",
    "religion",
    "treatment",
)
MAX_HISTORY = 50


def suggest_roles(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    """A role per column with the reason, from names, kinds and uniqueness.

    Identifier-like names and nearly unique categorical columns (>= 90% unique
    values) are identifiers; free text is an identifier too, so it is dropped from
    the release by default (it carries names and phone numbers): de-identify it
    on the PII page (the ``text`` section) to release it;
    names such as diagnosis or income suggest a sensitive attribute; everything
    else, dates and numbers included however unique, is a quasi-identifier
    (they can be generalized).
    """
    profile = column_profile(frame).set_index("column")
    out = {}
    for col in frame.columns:
        row = profile.loc[str(col)]
        lowered = str(col).lower()
        if any(h in lowered for h in _IDENTIFIER_HINTS):
            out[str(col)] = {
                "role": Role.IDENTIFIER.value,
                "reason": "name suggests a direct identifier",
            }
        elif row["kind"] == ColumnKind.TEXT:
            out[str(col)] = {
                "role": Role.IDENTIFIER.value,
                "reason": "free text: dropped from the release unless de-identified on the PII page",
            }
        elif any(h in lowered for h in _SENSITIVE_HINTS):
            out[str(col)] = {
                "role": Role.SENSITIVE.value,
                "reason": "name suggests a sensitive attribute",
            }
        elif (
            row["kind"] == ColumnKind.CATEGORICAL
            and row["unique_share"] >= 0.9
            and len(frame) >= 10
        ):
            out[str(col)] = {
                "role": Role.IDENTIFIER.value,
                "reason": f"{row['unique_share']:.0%} of values are unique",
            }
        else:
            out[str(col)] = {
                "role": Role.QUASI_IDENTIFIER.value,
                "reason": f"{row['distinct']} distinct values; could be known to an attacker",
            }
    return out

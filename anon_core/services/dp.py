"""Differential privacy as the dashboard asks for it: queries answered under a privacy budget
(each draw seeded from the session's seed), the ``dp`` section that reproduces them headless,
error-against-epsilon curves, DP machine-learning curves, and the server's ledger of what was
spent per table.

These are the dp package's own application entry points (each takes the table and the query and
returns a result value); this module is where the dashboard reaches them.
"""

from __future__ import annotations

from anon_core.dp import (
    DP_MODELS,
    PrivacyBudget,
    dp_ml_curve,
    dp_query,
    dp_section,
    error_curve,
    parse_query,
    query_seed,
)
from anon_core.dp.ledger import DPLedger, LedgerError

__all__ = [
    "DP_MODELS",
    "DPLedger",
    "LedgerError",
    "PrivacyBudget",
    "dp_ml_curve",
    "dp_query",
    "dp_section",
    "error_curve",
    "parse_query",
    "query_seed",
]

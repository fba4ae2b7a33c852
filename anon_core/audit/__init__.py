"""Audits of differential-privacy claims: does a mechanism behave as its epsilon says?

:mod:`~anon_core.audit.dp_audit` holds the pure auditor (runs on neighbouring datasets, a
threshold test, Clopper-Pearson intervals, the advantage bound and an empirical epsilon lower
bound); :mod:`~anon_core.audit.mechanisms` wraps the project's mechanisms (the ``dp`` section's
statistics and the marginal synthesizers' measurement step) for it.
"""

from anon_core.audit.dp_audit import (
    AuditResult,
    advantage_bound,
    audit_mechanism,
    audit_scores,
    clopper_pearson,
    distance_score,
    epsilon_lower_bound,
)

__all__ = [
    "AuditResult",
    "advantage_bound",
    "audit_mechanism",
    "audit_scores",
    "clopper_pearson",
    "distance_score",
    "epsilon_lower_bound",
]

"""Error and warning types of anon_core.

Every error carries a message that says what is wrong and how to fix it, so the
CLI and the dashboard can show it verbatim (no traceback).
"""

from __future__ import annotations


class AnonError(ValueError):
    """Base class: a problem with the user's input, data or configuration."""


class DataError(AnonError):
    """The input table cannot be read or used as given."""


class HierarchyError(AnonError):
    """A generalization hierarchy is malformed or does not cover the data."""


class ConfigError(AnonError):
    """A release configuration field is missing or invalid."""


class PrivacyWarning(UserWarning):
    """A choice that is allowed but weakens the privacy guarantee."""


class PrivacyLeakWarning(PrivacyWarning):
    """A DP method had to read something from the data (e.g. a column's domain) that the
    configuration should have declared: the formal guarantee does not cover that leak."""

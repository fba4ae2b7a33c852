"""What can be configured: the registries of release methods, privacy models and quality metrics,
as the dashboard lists them (names, labels, declared parameters, availability here).

The registries are values: each maps a name to a class that declares its label and parameters.
Importing this module registers every built-in method, model and metric.
"""

from __future__ import annotations

from anon_core.methods import METHODS, method_available
from anon_core.methods.config import DEFAULT_METHOD, MethodSection, parse_method_section
from anon_core.privacy.models import MODELS
from anon_core.quality.metrics import METRICS

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "METRICS",
    "MODELS",
    "MethodSection",
    "method_available",
    "parse_method_section",
]

"""anon_core: an ARX-exact anonymization engine (pure Python, no Streamlit).

Data path: load -> encode -> hierarchies -> frequency table -> evaluate -> apply.
See docs/architecture.md for the layers and the data path.
"""

import anon_core.geo.hierarchy  # noqa: F401  (registers the geo-grid and h3 hierarchy builders)
from anon_core.config import ReleaseConfig, load_config, parse_config
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import MISSING, ColumnKind, column_profile, infer_kinds, load_table
from anon_core.errors import AnonError, ConfigError, DataError, HierarchyError, PrivacyWarning
from anon_core.privacy.models import MODELS, make_model
from anon_core.quality.metrics import METRICS, make_metric
from anon_core.search.evaluate import Evaluator, TransformationResult
from anon_core.transform.problem import Problem
from anon_core.version import __version__ as __version__

__all__ = [
    "METRICS",
    "MISSING",
    "MODELS",
    "AnonError",
    "ColumnKind",
    "ConfigError",
    "DataError",
    "Dataset",
    "Evaluator",
    "FrequencyTable",
    "Hierarchy",
    "HierarchyError",
    "PrivacyWarning",
    "Problem",
    "ReleaseConfig",
    "Role",
    "TransformationResult",
    "column_profile",
    "infer_kinds",
    "load_config",
    "load_table",
    "make_metric",
    "make_model",
    "parse_config",
]

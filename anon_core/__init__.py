"""anon_core: an ARX-exact anonymization engine (pure Python, no Streamlit).

Data path: load -> encode -> hierarchies -> frequency table -> evaluate -> apply.
See README.md (architecture) and DESIGN notes.
"""

from .config import Problem, ReleaseConfig, load_config, parse_config
from .dataset import Dataset, Role
from .errors import AnonError, ConfigError, DataError, HierarchyError, PrivacyWarning
from .evaluate import Evaluator, TransformationResult
from .frequency import FrequencyTable
from .hierarchy import Hierarchy
from .io import MISSING, ColumnKind, column_profile, infer_kinds, load_table
from .metrics import METRICS, make_metric
from .models import MODELS, make_model

__version__ = "0.1.0"

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

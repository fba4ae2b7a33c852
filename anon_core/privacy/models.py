"""Privacy models as a registry of small plug-in classes (presidio-analyzer style).

Each model declares its parameters and whether it is monotonic under
generalization and under suppression (the search prunes with these flags).
Class-based models judge every equivalence class; a class that fails any model
is an outlier and is suppressed when the suppression limit allows. Sample-based
models (risk thresholds) judge the whole released table. Definitions follow ARX
(Prasser et al., "Flexible data anonymization using ARX", 2020) and the papers
cited per class.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.params import Param, values_of
from anon_core.registry import Registry
from anon_core.validation import check_choice, check_keys

_LN2 = math.log(2.0)


def log2_arx(x: np.ndarray) -> np.ndarray:
    """log2 computed as ARX does (ln x / ln 2), so thresholds compare bit-exactly."""
    return np.log(x) / _LN2


class PrivacyModel(ABC):
    """Base class. Subclasses set the class variables and implement :meth:`class_ok`."""

    key: ClassVar[str]
    label: ClassVar[str]
    params: ClassVar[tuple[Param, ...]] = ()
    monotonic_generalization: ClassVar[bool] = True
    monotonic_suppression: ClassVar[bool] = True
    sample_based: ClassVar[bool] = False
    #: True for models that judge released rows against the records (an attack-bounded model):
    #: the search then needs the records, not only the frequency table.
    needs_records: ClassVar[bool] = False
    #: True for models that release only a research subset of a population table (delta-presence):
    #: a scale engine, which writes whole files, cannot release them.
    releases_subset: ClassVar[bool] = False
    description: ClassVar[str] = ""
    #: Sensitive attribute, for models that protect one (set from the parameters).
    attribute: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each declared parameter becomes a read-only typed field of the subclass."""
        super().__init_subclass__(**kwargs)
        for p in cls.params:
            if p.name not in cls.__dict__:
                setattr(cls, p.name, p)  # class-level declaration (a descriptor), once per class

    def __init__(self, **values: Any) -> None:
        check_keys(self.key, values, [p.name for p in self.params])
        #: The validated parameter values (read them as fields: ``model.k``).
        self.values: Mapping[str, Any] = MappingProxyType(
            values_of(self.params, values, self.key, self.label)
        )

    def to_config(self) -> dict[str, Any]:
        return {
            "model": self.key,
            **{k: v for k, v in self.values.items() if v is not None},
        }

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items() if v is not None)
        return f"{self.label} ({args})"

    def validate(self, freq: FrequencyTable) -> None:
        """Check the model fits the data (attribute is sensitive, hierarchy present...)."""
        if self.attribute is not None and self.attribute not in freq.sensitive:
            raise ConfigError(
                f"{self.label} needs {self.attribute!r} to be a sensitive attribute; sensitive "
                f"attributes are {list(freq.sensitive) or 'none'}. Mark it 'sensitive'."
            )

    # ----------------------------------------------------------------- checks
    def prepare(self, freq: FrequencyTable) -> Any:
        """Per-dataset state (global distribution, orderings); computed once."""
        return None

    def set_suppression_budget(self, budget: int) -> None:
        """The records the search may suppress (a sample-based model may stop enforcing past it,
        as ARX's early abort does); most models ignore it."""
        return None

    def min_class_size(self) -> int:
        """Records every released class needs under this model (1 when it sets no such bound).

        Mondrian prunes partitions with it and the disclosure analysis reports it, without
        knowing the model's type."""
        return 1

    @abstractmethod
    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """The model's figure per class (the k, l, t... that class reaches)."""

    @abstractmethod
    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        """Boolean per class: does the class satisfy the model?"""


MODELS: Registry[type[PrivacyModel]] = Registry("privacy model")


def register(cls: type[PrivacyModel]) -> type[PrivacyModel]:
    return MODELS.add(cls.key, cls)


def make_model(spec: Mapping[str, Any]) -> PrivacyModel:
    """Build a model from ``{"model": key, **params}``."""
    if not isinstance(spec, Mapping) or "model" not in spec:
        raise ConfigError(f"Each entry of 'privacy_models' needs a 'model' field; got {spec!r}.")
    key = check_choice("privacy_models[].model", spec["model"], MODELS)
    return MODELS[key](**{k: v for k, v in spec.items() if k != "model"})


ATTRIBUTE = Param(
    "attribute", "attribute", help="Sensitive attribute the model protects", required=True
)


# --------------------------------------------------------------------- helpers
def class_shares(table: ClassTable, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse per-class relative frequencies: (class, value, share of the class)."""
    cls, val, cnt = table.sparse_hist(attribute)
    return cls, val, cnt / table.sizes[cls]


def global_shares(freq: FrequencyTable, attribute: str) -> np.ndarray:
    g = freq.sensitive[attribute].global_counts
    return g / g.sum()


def class_max(values: np.ndarray, cls: np.ndarray, n: int, fill: float) -> np.ndarray:
    out = np.full(n, fill, dtype=float)
    np.maximum.at(out, cls, values)
    return out


class SensitiveModel(PrivacyModel):
    """A model protecting one sensitive attribute."""

    attribute: str


class SampleBasedModel(PrivacyModel):
    """A model that judges the whole release (risk thresholds), not each class.

    Subclasses say whether a release with given class sizes meets the model
    (:meth:`released_ok`) and which classes to suppress to make it so (:meth:`enforce`); the
    evaluator calls these instead of a per-class verdict.
    """

    sample_based = True

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return np.ones(table.n_classes, dtype=bool)

    @abstractmethod
    def released_ok(self, sizes: np.ndarray) -> bool:
        """Does the release with these (non-suppressed) class sizes meet the model?"""

    @abstractmethod
    def enforce(
        self, table: ClassTable, suppressed: np.ndarray, class_loss: np.ndarray | None = None
    ) -> np.ndarray:
        """The classes to suppress (a superset of ``suppressed``) so the model holds."""

"""The ``attack-risk`` privacy model: an empirical attack's residual risk at most a threshold.

"Minimum loss such that multivariate singling-out risk <= 5%": the model bounds the risk that
anonymeter's attack measures on the release (singling out, linkability or inference; PETS 2023),
or with ``confidence`` the upper end of its interval. It is neither a class property nor a
function of class sizes, and it is **not monotonic**: a coarser release can score a higher
measured risk (the attack draws other predicates and the control rate moves too). The attack
needs records: the released part and a control set of records never released. So the model
cannot judge a transformation from the class table alone, and the plain evaluator never reports
it satisfied (:meth:`AttackRisk.released_ok` is always False). Only the risk-bounded search
(:mod:`anon_core.transform.attack_bounded`) runs the attack, on a control set bound to the model
with :meth:`AttackRisk.bind`, and reports the model satisfied where the measured risk passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.params import Param
from anon_core.privacy.models import PrivacyModel, register

ATTACK_KINDS = ("singling-out-multivariate", "linkability", "inference")


@dataclass(eq=False)
class AttackRiskContext:
    """What the attack needs beyond the class table: the control records (raw, never released)
    and the measured results per transformation (levels -> result), so each runs once."""

    control: pd.DataFrame
    cache: dict[tuple[int, ...], Any] = field(default_factory=dict)


@register
class AttackRisk(PrivacyModel):
    """Residual risk of an anonymeter-style attack on the release at most ``threshold``."""

    key = "attack-risk"
    label = "attack risk"
    params = (
        Param(
            "attack",
            "choice",
            "singling-out-multivariate",
            choices=ATTACK_KINDS,
            help="Attack whose residual risk is bounded",
            required=True,
        ),
        Param(
            "threshold",
            "float",
            0.05,
            0.0,
            1.0,
            help="Largest residual risk (share of the attacker's guesses)",
            required=True,
        ),
        Param(
            "confidence",
            "float",
            None,
            0.5,
            0.999,
            help="Optional: bound the upper end of the risk's interval at this confidence instead of the risk",
            optional=True,
        ),
        Param("n_attacks", "int", 2000, 1, None, help="Guesses of the attack"),
        Param("random_state", "int", 0, 0, None, help="Seed of the attack"),
        Param(
            "max_attempts",
            "int",
            None,
            1,
            None,
            help="Singling out only: predicate tries per attack (default 1000 x n_attacks)",
            optional=True,
        ),
        Param(
            "secret",
            "attribute",
            None,
            help="Inference only: the secret column (default: the first sensitive attribute)",
            optional=True,
        ),
    )
    description = (
        "An attack on the released rows (singling out, linkability or inference, with a control set "
        "of never-released records) succeeds beyond the control for at most this share of its guesses."
    )
    monotonic_generalization = False
    monotonic_suppression = False
    sample_based = True
    #: The model needs rows and a control set (the risk-bounded search provides them).
    needs_records = True

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        if self.secret is not None and self.attack != "inference":
            raise ConfigError(
                f"'{self.key}.secret' is only used by the inference attack, not {self.attack!r}; remove it."
            )
        self.context: AttackRiskContext | None = None

    def bind(self, control: pd.DataFrame) -> AttackRisk:
        """Give the model the control records (never released) its attack compares against."""
        if len(control) == 0:
            raise ConfigError(
                "The control set bound to attack-risk is empty: give records that were never released."
            )
        self.context = AttackRiskContext(control=control)
        return self

    def bound_value(self, risk: float, ci: tuple[float, float]) -> float:
        """The figure compared with the threshold: the risk, or its interval's upper end."""
        return float(ci[1]) if self.confidence is not None else float(risk)

    def passes(self, risk: float, ci: tuple[float, float]) -> bool:
        return self.bound_value(risk, ci) <= self.threshold

    def validate(self, freq: FrequencyTable) -> None:
        columns = list(freq.dataset.frame.columns)
        if self.secret is not None and self.secret not in columns:
            raise ConfigError(
                f"'{self.key}.secret' is {self.secret!r}, which is not a column; columns are {columns}."
            )
        if self.attack == "inference" and self.secret is None and not freq.dataset.sensitive:
            raise ConfigError(
                f"'{self.key}' with attack 'inference' needs a secret: set 'secret' or mark a column sensitive."
            )
        if self.attack == "linkability" and len(freq.qis) < 2:
            raise ConfigError(
                f"'{self.key}' with attack 'linkability' needs two or more quasi-identifiers to split "
                "between the attacker's two tables."
            )

    # ------------------------------------------------------------ evaluator hooks
    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """No per-class figure: the risk belongs to the whole release (NaN per class)."""
        return np.full(table.n_classes, np.nan)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return np.ones(table.n_classes, dtype=bool)

    def enforce(
        self, table: ClassTable, suppressed: np.ndarray, class_loss: np.ndarray | None = None
    ) -> np.ndarray:
        """Suppresses nothing: the attack's risk is not lowered class by class."""
        return suppressed

    def released_ok(self, sizes: np.ndarray) -> bool:
        """Always False: class sizes cannot tell whether the attack passes; only the risk-bounded
        search, which runs it, may report this model satisfied."""
        return False

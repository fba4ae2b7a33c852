"""Typed results of the anonymeter-style attacks: a success rate and an attack's residual risk."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SuccessRate:
    """A success rate with its Wilson score interval (anonymeter's definition).

    ``value`` is the interval's centre and ``error`` its half-width at the attack's confidence.
    """

    value: float
    error: float
    n_success: int
    n_total: int

    @property
    def interval(self) -> tuple[float, float]:
        """``(value - error, value + error)`` clipped to [0, 1]."""
        return max(0.0, self.value - self.error), min(1.0, self.value + self.error)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "error": self.error,
            "n_success": self.n_success,
            "n_total": self.n_total,
        }


@dataclass(frozen=True)
class AttackResult:
    """One attack's outcome: the residual risk beyond what the control set already reveals.

    ``attack_rate`` is the main attack's success on the released records, ``control_rate`` the
    same attack's success on records that were never released (what the population alone
    gives away), ``baseline_rate`` random guessing. ``risk = (attack - control) / (1 - control)``
    bounded to [0, 1], with its propagated interval ``ci`` (PETS 2023).
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    attack_rate: SuccessRate
    control_rate: SuccessRate
    baseline_rate: SuccessRate
    n_attacks: int
    confidence: float = 0.95
    random_state: int | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def baseline_exceeds_attack(self) -> bool:
        """True when random guessing did better than the attack: the attack is too weak to trust."""
        return self.baseline_rate.value > self.attack_rate.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "risk": self.risk,
            "ci": [self.ci[0], self.ci[1]],
            "attack_rate": self.attack_rate.value,
            "control_rate": self.control_rate.value,
            "baseline_rate": self.baseline_rate.value,
            "n_attacks": self.n_attacks,
            **dict(self.detail),
        }

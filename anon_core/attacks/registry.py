"""The attack registry: each attack declares its name, what it measures and its parameters,
so the CLI, the pages and the risk-bounded search list attacks from one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from anon_core.attacks.battery_steps import BatteryPlan, BatteryStep
from anon_core.params import Param
from anon_core.registry import Registry


@dataclass(frozen=True)
class AttackSpec:
    """An attack: ``run(original, released, control, **params)`` returns its result.

    ``measures`` says in one line what the risk means; ``reference`` names the definition it
    follows. ``randomized`` attacks take ``random_state``; ``params`` excludes the three tables,
    ``random_state`` and ``progress``. ``battery`` declares the steps the attack battery takes
    with it on a release (:mod:`anon_core.attacks.battery_steps`); None keeps it out of the
    battery.
    """

    name: str
    label: str
    measures: str
    run: Callable[..., Any]
    params: tuple[Param, ...] = ()
    reference: str = ""
    randomized: bool = True
    result: str = "AttackResult"
    extra: Mapping[str, Any] = field(default_factory=dict)
    battery: Callable[[BatteryPlan], list[BatteryStep]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "measures": self.measures,
            "params": [p.to_dict() for p in self.params],
            "reference": self.reference,
            "randomized": self.randomized,
            "result": self.result,
        }


ATTACKS: Registry[AttackSpec] = Registry("attack")


def register_attack(spec: AttackSpec) -> AttackSpec:
    """Add ``spec`` to :data:`ATTACKS` (a name may be registered once)."""
    return ATTACKS.add(spec.name, spec)


def get_attack(name: str) -> AttackSpec:
    """The registered attack ``name``, or ConfigError listing the known ones."""
    return ATTACKS.lookup(name)

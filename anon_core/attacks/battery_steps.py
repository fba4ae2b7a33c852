"""How the battery runs each registered attack: the steps an attack declares on one release.

Every :class:`~anon_core.attacks.registry.AttackSpec` in :data:`ATTACKS` may declare
``battery``: a function from the :class:`BatteryPlan` (the three tables, the seed, the number of
guesses, the secrets, the column groups, the external table) to the steps it takes. The battery
(:func:`anon_core.attacks.battery.run_battery`) runs the steps of every registered attack in
registration order, so an attack joins the battery by being registered with its steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.inference import inference
from anon_core.attacks.linkability import linkability
from anon_core.attacks.linkage import linkage
from anon_core.attacks.membership import dcr_membership
from anon_core.attacks.probabilistic_linkage import battery_linkage
from anon_core.attacks.singling_out import singling_out
from anon_core.data.hierarchy import Hierarchy

Progress = Callable[[float, str], None]


@dataclass(frozen=True, eq=False)
class BatteryPlan:
    """What the battery's attacks read: the tables and the attack section's choices."""

    original: pd.DataFrame
    released: pd.DataFrame
    control: pd.DataFrame
    qis: tuple[str, ...]
    secrets: tuple[str, ...]
    aux: tuple[Sequence[str], Sequence[str]] | None
    n_attacks: int
    random_state: int
    external: pd.DataFrame | None = None
    id_column: str | None = None
    linkage_mode: str = "exact"
    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    levels: Mapping[str, int] | None = None
    released_ids: Mapping[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class BatteryStep:
    """One run of an attack: its progress label, where its result goes in the battery's report
    (``report_field``, and ``key`` within it for attacks run once per mode or secret) and the
    call itself."""

    label: str
    report_field: str
    key: str | None
    run: Callable[[Progress], Any]


def singling_out_steps(mode: str) -> Callable[[BatteryPlan], list[BatteryStep]]:
    """Singling out in ``mode`` (univariate or multivariate): always runs."""

    def steps(plan: BatteryPlan) -> list[BatteryStep]:
        def run(p: Progress) -> Any:
            return singling_out(
                plan.original,
                plan.released,
                plan.control,
                mode=mode,
                n_attacks=plan.n_attacks,
                # anonymeter's 3 columns per predicate, fewer when the release has fewer
                n_cols=min(3, len(plan.released.columns)),
                random_state=plan.random_state,
                progress=p,
            )

        return [BatteryStep(f"singling out ({mode})", "singling_out", mode, run)]

    return steps


def linkability_steps(plan: BatteryPlan) -> list[BatteryStep]:
    """Linkability when there are two groups of columns."""
    aux = plan.aux
    if aux is None:
        return []

    def run(p: Progress) -> Any:
        return linkability(
            plan.original,
            plan.released,
            plan.control,
            aux_columns=(list(aux[0]), list(aux[1])),
            n_attacks=plan.n_attacks,
            random_state=plan.random_state,
            progress=p,
        )

    return [BatteryStep("linkability", "linkability", None, run)]


def inference_steps(plan: BatteryPlan) -> list[BatteryStep]:
    """Inference of each secret column."""

    def run_for(secret: str) -> Callable[[Progress], Any]:
        return lambda p: inference(
            plan.original,
            plan.released,
            plan.control,
            secret=secret,
            n_attacks=plan.n_attacks,
            random_state=plan.random_state,
            progress=p,
        )

    return [
        BatteryStep(f"inference ({secret})", "inference", secret, run_for(secret))
        for secret in plan.secrets
    ]


def linkage_steps(plan: BatteryPlan) -> list[BatteryStep]:
    """Linkage with the external table, when one is given (exact or probabilistic)."""
    external = plan.external
    if external is None:
        return []
    id_column = plan.id_column or next(
        (c for c in plan.released_ids if c in external.columns), None
    )
    ids = plan.released_ids.get(id_column) if id_column is not None else None
    link_with = battery_linkage if plan.linkage_mode == "probabilistic" else linkage

    def run(p: Progress) -> Any:
        return link_with(
            external,
            plan.released,
            qis=plan.qis,
            hierarchies=plan.hierarchies,
            levels=plan.levels,
            id_column=id_column,
            released_ids=ids,
            progress=p,
        )

    return [BatteryStep("linkage", "linkage", None, run)]


def membership_steps(plan: BatteryPlan) -> list[BatteryStep]:
    """DCR membership inference: always runs."""

    def run(p: Progress) -> Any:
        return dcr_membership(
            plan.original,
            plan.released,
            plan.control,
            n_attacks=plan.n_attacks,
            random_state=plan.random_state,
            progress=p,
        )

    return [BatteryStep("membership", "membership", None, run)]

"""A recommendation: the release with the best utility that passes the acceptance criteria.

Each method family's main parameter is tried over a small grid (k for generalization, Mondrian
and MDAV; the noise amount; the swap range p; PRAM's retention; ε for MST). Every setting is
released on the rehearsal's part (``scope: part``), attacked with the never-released control
records and scored by the utility yardstick; its verdict is the configuration's ``acceptance``
criteria (or the defaults). The winner is the passing setting with the highest utility (ML
accuracy ratio, then the smaller marginal distance); each family also reports its runner-up, and
every setting tried is kept for the Pareto chart (utility against the highest attack risk).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anon_core.errors import AnonError, ConfigError
from anon_core.methods import METHODS, method_available
from anon_core.services.session import Session

Progress = Callable[[float, str], None]

#: family -> (parameter, values from the most private to the least), plus fixed parameters.
FAMILIES: dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]] = {
    "generalization": ("k", (20, 10, 5, 3, 2), {}),
    "mondrian": ("k", (20, 10, 5, 3, 2), {}),
    "microaggregation": ("k", (20, 10, 5, 3), {}),
    "noise": ("noise", (200.0, 100.0, 50.0, 25.0, 10.0), {}),
    "rank-swapping": ("p", (20.0, 10.0, 5.0, 2.0), {}),
    "pram": ("retention", (0.4, 0.6, 0.8, 0.9), {}),
    "synthetic-mst": ("epsilon", (0.25, 0.5, 1.0, 2.0, 4.0), {"iters": 300}),
}

#: Attack figures whose largest upper interval end is the Pareto chart's risk axis.
RISK_FIGURES = (
    "singling_out_multivariate",
    "linkability",
    "inference_max",
    "membership_advantage",
)


@dataclass(frozen=True)
class Trial:
    """One setting tried: its verdict, utility and risk (or why it could not run)."""

    family: str
    parameter: str
    value: Any
    passed: bool
    utility: float | None
    marginal_distance: float | None
    risk: float | None
    failed: tuple[str, ...] = ()
    error: str | None = None

    def score(self) -> tuple[float, float]:
        """Higher is better: ML accuracy ratio, then a smaller marginal distance."""
        u = self.utility if self.utility is not None else -1.0
        m = self.marginal_distance if self.marginal_distance is not None else 1.0
        return (u, -m)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"failed": list(self.failed)}


@dataclass(frozen=True)
class Recommendation:
    winner: Trial | None
    per_family: Mapping[str, tuple[Trial | None, Trial | None]]  # (best, runner-up) that pass
    tried: tuple[Trial, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": None if self.winner is None else self.winner.to_dict(),
            "per_family": {
                f: {
                    "best": None if b is None else b.to_dict(),
                    "runner_up": None if r is None else r.to_dict(),
                }
                for f, (b, r) in self.per_family.items()
            },
            "tried": [t.to_dict() for t in self.tried],
            "notes": list(self.notes),
        }

    def method_section(self) -> dict[str, Any] | None:
        """The winner as a configuration ``method`` section."""
        if self.winner is None:
            return None
        fixed = FAMILIES[self.winner.family][2]
        return {"name": self.winner.family, self.winner.parameter: self.winner.value, **fixed}


def _risk(figures: Mapping[str, Mapping[str, Any]]) -> float | None:
    ends = []
    for name in RISK_FIGURES:
        fig = figures.get(name) or {}
        ci = fig.get("ci")
        value = ci[1] if ci else fig.get("value")
        if value is not None:
            ends.append(float(value))
    return max(ends) if ends else None


def recommend(
    session: Session,
    families: Sequence[str] | None = None,
    *,
    n_attacks: int = 500,
    progress: Progress | None = None,
) -> Recommendation:
    """Try every family's grid (``families``: default every available one) and pick the winner."""
    chosen = list(families) if families is not None else list(FAMILIES)
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        raise ConfigError(f"'families' names {unknown}; choose from {', '.join(FAMILIES)}.")
    notes = []
    runnable = []
    for f in chosen:
        ok, why = method_available(f)
        if ok:
            runnable.append(f)
        else:
            notes.append(f"{f} was not tried: {why}")
    total = sum(len(FAMILIES[f][1]) for f in runnable) or 1
    done = 0
    tried: list[Trial] = []
    base_method = session.config.sections.get("method")
    for family in runnable:
        param, values, fixed = FAMILIES[family]
        for value in values:
            if progress is not None:
                progress(done / total, f"{METHODS[family].label}: {param} = {value}")
            done += 1
            spec = {"name": family, param: value, **fixed}
            if isinstance(base_method, Mapping) and base_method.get("name") == family:
                spec = {**base_method, param: value}
            trial_session = session.with_config(
                sections={**session.config.sections, "method": spec}
            )
            try:
                release = trial_session.release(scope="part")
                # the exposure of the most vulnerable records is no figure the choice reads
                evidence = trial_session.evidence(release, n_attacks=n_attacks, exposure=False)
                verdict = trial_session.verdict(evidence)
            except AnonError as exc:
                tried.append(Trial(family, param, value, False, None, None, None, (), str(exc)))
                continue
            figs = evidence.figures
            tried.append(
                Trial(
                    family,
                    param,
                    value,
                    verdict.passed,
                    figs.get("ml_accuracy_ratio", {}).get("value"),
                    figs.get("marginal_distance", {}).get("value"),
                    _risk(figs),
                    tuple(c.criterion.figure for c in verdict.failed),
                )
            )
    if progress is not None:
        progress(1.0, "done")
    per_family: dict[str, tuple[Trial | None, Trial | None]] = {}
    for family in runnable:
        passing = sorted(
            (t for t in tried if t.family == family and t.passed), key=Trial.score, reverse=True
        )
        per_family[family] = (
            passing[0] if passing else None,
            passing[1] if len(passing) > 1 else None,
        )
    bests = [b for b, _ in per_family.values() if b is not None]
    winner = max(bests, key=Trial.score) if bests else None
    if winner is None:
        notes.append(
            "no setting tried passes the acceptance criteria: relax them, or protect more "
            "(larger k, more noise, a smaller epsilon)"
        )
    return Recommendation(winner, per_family, tuple(tried), tuple(notes))

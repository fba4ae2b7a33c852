"""The officer's acceptance criteria and the one verdict they give on a release's evidence.

The configuration's ``acceptance`` section holds thresholds on evidence figures::

    acceptance:
      singling_out_multivariate: {max: 0.05, bound: upper}   # read at the interval's upper end
      membership_advantage: {max: 0.05}
      highest_prosecutor_risk: {max: 0.09}
      ml_accuracy_ratio: {min: 0.95}

``bound`` is ``value`` (default), ``upper`` or ``lower``: which end of the figure's interval the
threshold is checked against (a figure without an interval is read as it is). Without a section
the :data:`DEFAULT_CRITERIA` apply, each with its source; a default whose figure is not defined
for a release (e.g. class-based risk of synthetic data) is listed as *not applicable*, while a
criterion the officer wrote whose figure was not measured fails (nothing was shown to hold).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anon_core.errors import ConfigError
from anon_core.validation import check_choice, check_float, check_keys, check_mapping

BOUNDS = ("value", "upper", "lower")
CRITERION_KEYS = {"max", "min", "bound", "source"}


@dataclass(frozen=True)
class Criterion:
    """One threshold on one evidence figure."""

    figure: str
    maximum: float | None = None
    minimum: float | None = None
    bound: str = "value"
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"figure": self.figure, "bound": self.bound}
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.source:
            out["source"] = self.source
        return out

    def describe(self) -> str:
        end = {"value": "", "upper": " (upper end of the interval)", "lower": " (lower end)"}
        parts = []
        if self.maximum is not None:
            parts.append(f"≤ {self.maximum:g}")
        if self.minimum is not None:
            parts.append(f"≥ {self.minimum:g}")
        return f"{self.figure} {' and '.join(parts)}{end[self.bound]}"


_GUIDANCE = (
    "0.09: highest re-identification probability for a public release of clinical data "
    "(EMA Policy 0070 external guidance; Health Canada PRCI guidance)"
)
_ATTACK = (
    "workbench default (no published threshold): the attack's residual risk beyond the control "
    "records stays under 5 percentage points at the upper end of its 95% interval"
)

#: Criteria used when the configuration has no ``acceptance`` section, each with its source.
DEFAULT_CRITERIA: tuple[Criterion, ...] = (
    Criterion("highest_prosecutor_risk", maximum=0.09, source=_GUIDANCE),
    Criterion("singling_out_multivariate", maximum=0.05, bound="upper", source=_ATTACK),
    Criterion("linkability", maximum=0.05, bound="upper", source=_ATTACK),
    Criterion("inference_max", maximum=0.05, bound="upper", source=_ATTACK),
    Criterion(
        "membership_advantage",
        maximum=0.05,
        bound="upper",
        source="workbench default: a DCR membership advantage under 5 points at the upper end",
    ),
    Criterion(
        "epsilon",
        maximum=1.0,
        source="ε ≤ 1: the range commonly recommended for strong differential privacy "
        "(e.g. Dwork and Roth; US Census practice uses larger budgets with justification)",
    ),
    Criterion(
        "ml_accuracy_ratio",
        minimum=0.95,
        source="workbench default: a model trained on the release keeps 95% of the accuracy of "
        "one trained on the original (tested on never-released records)",
    ),
)


def parse_acceptance(section: Any) -> tuple[Criterion, ...] | None:
    """The validated ``acceptance`` section (None when absent: the defaults apply)."""
    if section is None:
        return None
    section = check_mapping("acceptance", section)
    if not section:
        raise ConfigError(
            "'acceptance' is empty: give at least one criterion, e.g. "
            '{"highest_prosecutor_risk": {"max": 0.09}}, or remove the section to use the defaults.'
        )
    out = []
    for name, spec in section.items():
        where = f"acceptance.{name}"
        if not isinstance(name, str) or not name:
            raise ConfigError(f"'acceptance' keys must be figure names, got {name!r}.")
        spec = check_mapping(where, spec)
        check_keys(where, spec, CRITERION_KEYS)
        if "max" not in spec and "min" not in spec:
            raise ConfigError(f"'{where}' needs 'max' or 'min', e.g. {{\"max\": 0.05}}.")
        hi = check_float(f"{where}.max", spec["max"]) if "max" in spec else None
        lo = check_float(f"{where}.min", spec["min"]) if "min" in spec else None
        for label, v in ((f"{where}.max", hi), (f"{where}.min", lo)):
            if v is not None and not math.isfinite(v):
                raise ConfigError(f"'{label}' must be a finite number, got {v!r}.")
        bound = check_choice(f"{where}.bound", spec.get("bound", "value"), BOUNDS)
        source = spec.get("source", "configured by the officer")
        if not isinstance(source, str):
            raise ConfigError(f"'{where}.source' must be text, got {source!r}.")
        out.append(Criterion(name, hi, lo, bound, source))
    return tuple(out)


@dataclass(frozen=True)
class CriterionResult:
    criterion: Criterion
    value: float | None
    ci: tuple[float, float] | None
    checked: float | None  # the number compared with the threshold
    passed: bool | None  # None: not applicable (a default whose figure is not defined here)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.criterion.to_dict(),
            "value": self.value,
            "ci": None if self.ci is None else [self.ci[0], self.ci[1]],
            "checked": self.checked,
            "passed": self.passed,
            "note": self.note,
        }


@dataclass(frozen=True)
class Verdict:
    """Pass/fail per criterion; the release passes when every applicable criterion passes."""

    criteria: tuple[CriterionResult, ...]
    defaults: bool  # True when the configuration had no acceptance section
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        applicable = [c for c in self.criteria if c.passed is not None]
        return bool(applicable) and all(c.passed for c in applicable)

    @property
    def failed(self) -> list[CriterionResult]:
        return [c for c in self.criteria if c.passed is False]

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "defaults": self.defaults,
            "criteria": [c.to_dict() for c in self.criteria],
            "notes": list(self.notes),
        }

    def headline(self) -> str:
        n = len([c for c in self.criteria if c.passed is not None])
        if self.passed:
            return f"PASS: all {n} acceptance criteria hold."
        names = ", ".join(c.criterion.figure for c in self.failed)
        return f"FAIL: {len(self.failed)} of {n} acceptance criteria do not hold ({names})."


def judge(
    figures: Mapping[str, Mapping[str, Any]], criteria: tuple[Criterion, ...] | None
) -> Verdict:
    """The verdict of ``criteria`` (None: the defaults) on evidence ``figures``
    (name -> {"value": float|None, "ci": [lo, hi]|None, "why": reason when not defined})."""
    defaults = criteria is None
    chosen = DEFAULT_CRITERIA if defaults else criteria
    results = []
    for c in chosen:
        fig = figures.get(c.figure)
        value = None if fig is None else fig.get("value")
        ci_raw = None if fig is None else fig.get("ci")
        ci = None if ci_raw is None else (float(ci_raw[0]), float(ci_raw[1]))
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            why = (fig or {}).get("why") or "not measured for this release"
            if defaults:
                results.append(CriterionResult(c, None, None, None, None, f"not applicable: {why}"))
            else:
                results.append(CriterionResult(c, None, None, None, False, f"not measured: {why}"))
            continue
        value = float(value)
        checked = value
        if c.bound == "upper" and ci is not None:
            checked = ci[1]
        elif c.bound == "lower" and ci is not None:
            checked = ci[0]
        ok = True
        if c.maximum is not None and checked > c.maximum + 1e-12:
            ok = False
        if c.minimum is not None and checked < c.minimum - 1e-12:
            ok = False
        results.append(CriterionResult(c, value, ci, checked, ok))
    return Verdict(tuple(results), defaults)


def check_approval(verdict: Verdict, signoff: Mapping[str, Any] | None) -> None:
    """Approving a release that fails a criterion needs a written justification."""
    if not signoff or signoff.get("decision") != "approve" or verdict.passed:
        return
    text = str(signoff.get("justification") or "").strip()
    if len(text) < 10:
        failed = ", ".join(c.criterion.figure for c in verdict.failed) or "no criterion applies"
        raise ConfigError(
            f"The release fails its acceptance criteria ({failed}); approving it needs a written "
            "justification (at least 10 characters) in the sign-off's 'justification'."
        )

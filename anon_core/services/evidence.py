"""The evidence of one release: class-based figures, the attack battery, utility, the guarantee.

Every figure the acceptance criteria can name is a flat entry of :attr:`Evidence.figures`:
``{"value": float|None, "ci": [lo, hi]|None, "kind": ..., "explain": one line, "why": reason
when not defined}``. Class-based figures are read from the final release; attack and utility
figures from the rehearsal (:class:`~anon_core.services.release.Rehearsal`), whose released part
and never-released control records are what the attacks need.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anon_core.attacks.stats import wilson_interval

#: One line per figure, for pages and the dossier.
EXPLAIN = {
    "highest_prosecutor_risk": "1 / the smallest equivalence class of the release (class-based; an "
    "attacker who knows a person is in the release and their quasi-identifiers)",
    "average_prosecutor_risk": "the mean over records of 1 / their class size (class-based)",
    "sample_uniques_share": "share of released records alone in their class (class-based)",
    "singling_out_univariate": "residual risk that one-attribute predicates isolate a single "
    "record, beyond what control records give (anonymeter's definition)",
    "singling_out_multivariate": "residual risk that multi-attribute predicates isolate a single "
    "record, beyond what control records give (anonymeter's definition)",
    "singling_out_univariate_precision": "share of the one-attribute predicates the attacker "
    "found that isolate a single released record",
    "singling_out_multivariate_precision": "share of the multi-attribute predicates the attacker "
    "found that isolate a single released record (its risk divides by the requested count)",
    "linkability": "residual risk that two halves of the quasi-identifiers link the same record",
    "inference_max": "the largest residual risk of inferring a sensitive value from the others "
    "(an attacker who knows the quasi-identifiers; differs from class-based risk because it "
    "uses the sensitive values too)",
    "membership_advantage": "how much better than chance an attacker tells released records from "
    "never-released ones by their distance to the closest released record (DCR)",
    "linkage_reidentified_share": "expected share of external records re-identified by linking "
    "on the quasi-identifiers",
    "exact_copies_share": "share of released rows that copy a training record exactly",
    "ml_accuracy_ratio": "accuracy of a model trained on the release over one trained on the "
    "original, both tested on never-released records",
    "marginal_distance": "mean total-variation distance of the columns' distributions (0 = same)",
    "epsilon": "the differential-privacy budget ε of the release (smaller is stronger)",
    "shadow_mia_auc": "mean over the most vulnerable records of how well an attacker who re-runs "
    "the method on reference data with and without a record tells from the output whether it "
    "was in the input (AUC: 0.5 = chance, 1 = always)",
    "shadow_mia_advantage": "TPR - FPR of that shadow-model attacker, pooled over the most "
    "vulnerable records (0 = no better than chance)",
    "dp_audit_violation": "1 when repeated runs of the method's noisy measurement on neighbouring "
    "tables tell them apart better than its ε allows (an implementation fault), else 0",
}

#: Runs per side of the DP audit in the evidence (asked for with ``dp_audit=True``).
DP_AUDIT_RUNS = 500


def _num(x: Any) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def figure(
    value: Any, ci: Any = None, kind: str = "", why: str | None = None, name: str = ""
) -> dict[str, Any]:
    """One evidence figure (``why`` says why it is not defined when ``value`` is None)."""
    v = _num(value)
    interval = None
    if ci is not None and v is not None:
        lo, hi = _num(ci[0]), _num(ci[1])
        interval = None if lo is None or hi is None else [lo, hi]
    out: dict[str, Any] = {
        "value": v,
        "ci": interval,
        "kind": kind,
        "explain": EXPLAIN.get(name, ""),
    }
    if v is None:
        out["why"] = why or "not measured"
    return out


def class_based_figures(risk: Mapping[str, Any] | None, why: str | None) -> dict[str, dict]:
    """Class-based figures from a risk report dict (:func:`anon_core.risk.reidentification.report_dict`)."""
    names = ("highest_prosecutor_risk", "average_prosecutor_risk", "sample_uniques_share")
    if risk is None:
        return {n: figure(None, kind="class-based", why=why, name=n) for n in names}
    records = risk.get("records") or 0
    uniques = risk.get("sample_uniques")
    pros = risk.get("prosecutor") or {}
    return {
        "highest_prosecutor_risk": figure(
            pros.get("highest_risk"), kind="class-based", name="highest_prosecutor_risk"
        ),
        "average_prosecutor_risk": figure(
            pros.get("average_risk"), kind="class-based", name="average_prosecutor_risk"
        ),
        "sample_uniques_share": figure(
            None if not records or uniques is None else uniques / records,
            kind="class-based",
            why="no record released",
            name="sample_uniques_share",
        ),
    }


def attack_figures(attacks: Mapping[str, Any] | None, why: str | None = None) -> dict[str, dict]:
    """Attack figures from the battery's JSON (``AttackReport.to_dict()``)."""
    attacks = attacks or {}
    kind = "attack (rehearsal)"
    out: dict[str, dict] = {}
    so = attacks.get("singling_out") or {}
    for mode in ("univariate", "multivariate"):
        n = f"singling_out_{mode}"
        r = so.get(mode)
        out[n] = figure(
            None if r is None else r.get("risk"),
            None if r is None else r.get("ci"),
            kind,
            why or "not run",
            n,
        )
        # precision over the predicates the attacker actually found (anonymeter's figure divides
        # by the requested count): "few guesses, mostly right" and "many, rarely right" differ
        found, hits = (r or {}).get("n_predicates_found"), (r or {}).get("n_singled_out")
        p = f"{n}_precision"
        if found:
            out[p] = figure(hits / found, wilson_interval(hits, found), kind, name=p)
        else:
            out[p] = figure(None, kind=kind, why=why or "no predicate was found", name=p)
    link = attacks.get("linkability")
    out["linkability"] = figure(
        None if link is None else link.get("risk"),
        None if link is None else link.get("ci"),
        kind,
        why or "fewer than two quasi-identifiers to split between the halves",
        "linkability",
    )
    inf = attacks.get("inference") or {}
    if inf:
        worst = max(inf, key=lambda c: _num(inf[c].get("ci", [0, 0])[1]) or 0.0)
        out["inference_max"] = figure(
            inf[worst].get("risk"), inf[worst].get("ci"), kind, name="inference_max"
        )
        out["inference_max"]["column"] = worst
        for col, r in inf.items():
            out[f"inference[{col}]"] = figure(r.get("risk"), r.get("ci"), kind)
    else:
        out["inference_max"] = figure(
            None, kind=kind, why=why or "no sensitive attribute to infer", name="inference_max"
        )
    mem = attacks.get("membership")
    out["membership_advantage"] = figure(
        None if mem is None else mem.get("advantage"),
        None if mem is None else mem.get("ci"),
        kind,
        why or "not run",
        "membership_advantage",
    )
    lk = attacks.get("linkage")
    if lk is not None:
        out["linkage_reidentified_share"] = figure(
            lk.get("reidentified_share"), kind=kind, name="linkage_reidentified_share"
        )
    return out


def is_dp(guarantee: str, parameters: Mapping[str, Any]) -> bool:
    """Whether a release claims differential privacy with an epsilon among its parameters."""
    return "DP" in str(guarantee) and _num(parameters.get("epsilon")) is not None


def dp_audit_figure(
    method: str,
    guarantee: str,
    parameters: Mapping[str, Any],
    frame: Any,
    context: Any,
    seed: int,
    runs: int = DP_AUDIT_RUNS,
) -> dict[str, Any]:
    """``dp_audit_violation`` (1.0 or 0.0) of the method's measurement step on ``frame``, with
    the audit's details (:func:`anon_core.audit.mechanisms.audit_release_method`)."""
    from anon_core.audit.mechanisms import AUDITED_METHODS, audit_release_method
    from anon_core.errors import AnonError

    name, kind = "dp_audit_violation", "DP audit"
    if not is_dp(guarantee, parameters):
        return figure(
            None, kind=kind, why="the method gives no differential-privacy guarantee", name=name
        )
    if method not in AUDITED_METHODS:
        return figure(None, kind=kind, why=f"no DP audit is defined for {method}", name=name)
    try:
        result, details = audit_release_method(
            method, parameters, frame, context, runs=runs, random_state=seed
        )
    except AnonError as exc:
        return figure(None, kind=kind, why=f"the DP audit could not run: {exc}", name=name)
    out = figure(1.0 if result.violation else 0.0, kind=kind, name=name)
    out["details"] = details
    return out


def utility_figures(utility: Mapping[str, Any] | None, why: str | None) -> dict[str, dict]:
    kind = "utility (rehearsal)"
    if not utility:
        return {
            "ml_accuracy_ratio": figure(None, kind=kind, why=why, name="ml_accuracy_ratio"),
            "marginal_distance": figure(None, kind=kind, why=why, name="marginal_distance"),
        }
    ml = utility.get("ml") or {}
    acc, base = _num(ml.get("accuracy")), _num(ml.get("baseline_accuracy"))
    ratio = None if acc is None or not base else acc / base
    return {
        "ml_accuracy_ratio": figure(
            ratio,
            kind=kind,
            why="no accuracy on the original to compare with",
            name="ml_accuracy_ratio",
        ),
        "marginal_distance": figure(
            utility.get("marginal_distance"), kind=kind, name="marginal_distance"
        ),
    }


@dataclass(frozen=True)
class Evidence:
    """Everything measured on one release, as JSON-ready blocks plus the flat named figures."""

    figures: Mapping[str, Mapping[str, Any]]
    class_based: Mapping[str, Any] | None
    attacks: Mapping[str, Any]
    attack_details: Mapping[str, Any]
    utility: Mapping[str, Any] | None
    synthetic_checks: Mapping[str, Any] | None
    guarantee: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: What :meth:`Session.evidence` was asked for (n_attacks, utility, models, target): what
    #: ``verify`` passes again to recompute the same figures.
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "figures": {k: dict(v) for k, v in self.figures.items()},
            "class_based": None if self.class_based is None else dict(self.class_based),
            "attacks": dict(self.attacks),
            "attack_details": dict(self.attack_details),
            "utility": None if self.utility is None else dict(self.utility),
            "synthetic_checks": None
            if self.synthetic_checks is None
            else dict(self.synthetic_checks),
            "guarantee": self.guarantee,
            "notes": list(self.notes),
            "options": dict(self.options),
        }

    def value(self, name: str) -> float | None:
        fig = self.figures.get(name)
        return None if fig is None else fig.get("value")

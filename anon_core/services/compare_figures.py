"""The attack figures a comparison adds beyond the battery's, and what every chartable attack
figure means: its words with units and one line of explanation (the Compare chart's y-axes).

Per method, besides the battery (:func:`anon_core.attacks.battery.run_battery`):

* ``vulnerable_exposure``: of the 1% most vulnerable records of the released part, how many
  the release singles out and links (:mod:`anon_core.attacks.vulnerable_exposure`);
* ``shadow_mia`` (asked for, synthetic and perturbative releases only): the shadow-model
  membership attack's mean AUC and advantage over the most vulnerable records
  (:mod:`anon_core.services.shadow_evidence`, the evidence's budget).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from anon_core.errors import AnonError

#: Chartable attack figures: key in a comparison's attack figures -> (words with units, meaning).
FIGURES: dict[str, tuple[str, str]] = {
    "singling_out.multivariate.precision": (
        "Singling out multivariate: precision over the predicates found (share, 0–1)",
        "Of the predicates the attacker found that single out one released row, the share that "
        "single out one original record (anonymeter's risk divides by the predicates requested).",
    ),
    "singling_out.univariate.precision": (
        "Singling out univariate: precision over the predicates found (share, 0–1)",
        "Of the one-attribute predicates the attacker found, the share that single out one "
        "original record.",
    ),
    "linkage.expected_reidentified": (
        "Linkage: expected re-identifications (records)",
        "Expected number of external records linked to the right person: per record the "
        "probability its best match is right (probabilistic linkage's posterior, or one over "
        "the matching class size for exact linkage), summed.",
    ),
    "linkage.reidentified_share": (
        "Linkage: expected re-identifications (share of external records, 0–1)",
        "The expected re-identifications divided by the number of external records.",
    ),
    "vulnerable_exposure.singled_out": (
        "Most vulnerable 1%: singled out (records)",
        "Of the 1% most outlying records of the released part, how many are the only released "
        "row with their exact quasi-identifiers.",
    ),
    "vulnerable_exposure.linked": (
        "Most vulnerable 1%: linked (records)",
        "Of the 1% most outlying records, how many the release links: the nearest released row "
        "by one half of the quasi-identifiers is the nearest by the other half.",
    ),
    "shadow_mia.auc": (
        "Shadow-model membership inference: mean AUC (0.5 = chance, 1 = certain)",
        "How well an attacker who re-runs the method on data with and without a record tells "
        "whether it was in the input, averaged over the most vulnerable records.",
    ),
    "shadow_mia.advantage": (
        "Shadow-model membership inference: advantage (TPR − FPR, 0–1)",
        "The shadow attacker's true-positive minus false-positive rate, pooled over the most "
        "vulnerable records.",
    ),
}


def figure_label(key: str) -> str | None:
    found = FIGURES.get(key)
    return None if found is None else found[0]


def figure_explanation(key: str) -> str | None:
    found = FIGURES.get(key)
    return None if found is None else found[1]


def exposure_figures(
    part: pd.DataFrame, released: pd.DataFrame, qis: Sequence[str]
) -> dict[str, Any]:
    """``{"vulnerable_exposure": {...}}`` of ``released`` for the records of ``part``, or {}
    when there is no quasi-identifier or nothing to compare."""
    from anon_core.attacks.vulnerable_exposure import vulnerable_exposure

    qis = [q for q in qis if q in part.columns and q in released.columns]
    if not qis or len(part) < 2 or len(released) == 0:
        return {}
    e = vulnerable_exposure(part, released, qis)
    return {"vulnerable_exposure": e.to_dict()}


def shadow_mia_figures(
    method: Any,
    config: Any,
    part: pd.DataFrame,
    control: pd.DataFrame,
    seed: int,
    progress: Any = None,
) -> dict[str, Any]:
    """``{"shadow_mia": {"auc", "advantage", ...}}`` of ``method`` (a ReleaseMethod) on the
    comparison's split, with the evidence's budget; {} when the attack is not defined for the
    method (a generalization's rows are the input's records)."""
    from anon_core.services.shadow_evidence import shadow_applies, shadow_figures

    if not shadow_applies(method.name, bool(method.synthetic)):
        return {}

    class _Release:  # what shadow_figures reads of a release
        def __init__(self) -> None:
            self.method = method.name
            self.synthetic = bool(method.synthetic)

    figures, details, why = shadow_figures(
        _Release(), method, config, part, control, seed, progress
    )
    if details is None:
        raise AnonError(why or "the shadow attack could not run")
    auc, adv = figures["shadow_mia_auc"], figures["shadow_mia_advantage"]
    return {
        "shadow_mia": {
            "auc": auc.get("value"),
            "auc_ci": auc.get("ci"),
            "advantage": adv.get("value"),
            "advantage_ci": adv.get("ci"),
            "n_targets": len(details.get("targets") or []),
        }
    }


def extra_attack_figures(
    method: Any,
    config: Any,
    part: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    qis: Sequence[str],
    seed: int,
    shadow: bool,
) -> tuple[dict[str, Any], list[str]]:
    """The comparison's figures beyond the battery for one method, and notes for those that
    could not be measured (never a failed comparison)."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    try:
        out.update(exposure_figures(part, released, qis))
    except (AnonError, ValueError) as exc:
        notes.append(f"The exposure of the most vulnerable records could not be measured: {exc}")
    if shadow:
        try:
            out.update(shadow_mia_figures(method, config, part, control, seed))
        except (AnonError, ValueError) as exc:
            notes.append(f"The shadow-model membership attack could not run: {exc}")
    return out, notes


def chart_keys(attacks: Mapping[str, Any]) -> list[str]:
    """The figures of :data:`FIGURES` present in one method's attack figures."""

    def get(path: str) -> Any:
        node: Any = attacks
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node

    return [k for k in FIGURES if isinstance(get(k), int | float) and not isinstance(get(k), bool)]

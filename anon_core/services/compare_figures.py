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


#: Spatial figures (a ``geo`` section; see :mod:`anon_core.services.geo_evidence`): the risk
#: ones join a method's attack figures, the utility ones its utility figures, under ``spatial.``.
SPATIAL_FIGURES: dict[str, tuple[str, str]] = {
    "spatial.nn_reidentification": (
        "Spatial: nearest-neighbour re-identification (share of people, 0–1)",
        "An attacker who holds every original address links each released point to the nearest "
        "one; the share linked to the right person.",
    ),
    "spatial.spatial_k_share_below": (
        "Spatial: people with spatial k below 5 (share, 0–1)",
        "Spatial k of a person: how many original addresses lie closer to their released point "
        "than their true home; the share below 5.",
    ),
    "spatial.displacement_median_m": (
        "Spatial: median displacement (metres)",
        "Median great-circle distance between a person's true and released location.",
    ),
    "spatial.displacement_p95_m": (
        "Spatial: 95th-percentile displacement (metres)",
        "95 % of the people moved at most this far (great-circle distance).",
    ),
    "spatial.ripley_l_max_diff_m": (
        "Spatial: Ripley's L, largest difference from the original (metres; 0 = same)",
        "Largest |L_release(r) − L_original(r)| over 12 radii from 1 % to 25 % of the side of "
        "the original's hull: how much the clustering changed at any of these scales.",
    ),
    "spatial.nn_index_release": (
        "Spatial: nearest-neighbour index of the release (1 = random, <1 clustered)",
        "Clark-Evans: mean distance to the nearest other point over its value under complete "
        "spatial randomness; compare with the unprotected copy's.",
    ),
    "spatial.hotspot_recovery": (
        "Spatial: hot spots recovered (share of the original's clusters, 0–1)",
        "DBSCAN at eps 500 m and at least 20 points on both tables; the share of the original's "
        "clusters with a release cluster centre within 500 m.",
    ),
}


def figure_label(key: str) -> str | None:
    found = FIGURES.get(key) or SPATIAL_FIGURES.get(key)
    return None if found is None else found[0]


def figure_explanation(key: str) -> str | None:
    found = FIGURES.get(key) or SPATIAL_FIGURES.get(key)
    return None if found is None else found[1]


def spatial_figures(
    config: Any, part: pd.DataFrame, released: pd.DataFrame
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """({"spatial": risk figures}, {"spatial": utility figures}, notes) of one method's release
    of ``part``; empty without a ``geo`` section, a note when the points cannot be paired."""
    from anon_core.geo.section import geo_section_of
    from anon_core.services.geo_evidence import geo_figures

    try:
        section = geo_section_of(config)
    except AnonError:
        return {}, {}, []
    if section is None:
        return {}, {}, []
    try:
        figures, details = geo_figures(section, part, released)
    except (AnonError, ValueError) as exc:
        return {}, {}, [f"The spatial figures could not be measured: {exc}"]
    if details is None:
        why = next(iter(figures.values())).get("why", "")
        return {}, {}, [f"The spatial figures were not measured: {why}."]
    value = {name: f["value"] for name, f in figures.items()}
    risk = {k: value[k] for k in ("nn_reidentification", "spatial_k_share_below")}
    utility = {k: v for k, v in value.items() if k not in risk and k != "spatial_k_min"}
    return {"spatial": risk}, {"spatial": utility}, []


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

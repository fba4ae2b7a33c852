"""The shadow-model membership figures of the evidence (asked for with ``shadow=True``).

The release method is re-fitted ``2 x SHADOW_SHADOWS`` times on reference datasets drawn from the
rehearsal's control records, with and without each of the ``SHADOW_TARGETS`` most vulnerable
records of the rehearsal's released part (:mod:`anon_core.attacks.shadow`). Defined for
synthetic and perturbative releases: a generalized release's rows are the input's records, for
which the class-based figures and the attack battery already speak.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.errors import AnonError
from anon_core.services.evidence import figure

#: Targets (most vulnerable records) and shadow fits per side of the evidence's shadow attack.
SHADOW_TARGETS = 10
SHADOW_SHADOWS = 8
#: Release methods that perturb the input's records (synthetic methods count as well).
PERTURBATIVE = frozenset(
    {
        "noise",
        "rank-swapping",
        "pram",
        "microaggregation",
        "geomask-gaussian",
        "geomask-donut",
        "location-swap",
    }
)
NAMES = ("shadow_mia_auc", "shadow_mia_advantage")


def shadow_applies(method: str, synthetic: bool) -> bool:
    return bool(synthetic) or method in PERTURBATIVE


def shadow_figures(
    release: Any,
    method: Any,
    config: Any,
    part: pd.DataFrame,
    control: pd.DataFrame,
    seed: int,
    progress: Any = None,
) -> tuple[dict[str, dict], dict[str, Any] | None, str | None]:
    """(figures, the attack's JSON or None, a note or None) for ``release`` (a Release value)
    whose method object is ``method`` (a ReleaseMethod), on the rehearsal's part and control."""
    from anon_core.attacks.shadow import shadow_membership
    from anon_core.methods.registry import make_context
    from anon_core.services.release import settled_table

    kind = "attack (shadow models)"
    if not shadow_applies(release.method, release.synthetic):
        why = "defined for synthetic and perturbative releases only"
        return {n: figure(None, kind=kind, why=why, name=n) for n in NAMES}, None, None

    def fit(frame: pd.DataFrame, random_state: int) -> pd.DataFrame:
        out = method.release(frame, make_context(frame, config), random_state=random_state)
        return settled_table(out.table, frame)

    try:
        result = shadow_membership(
            fit,
            part,
            control,
            n_targets=min(SHADOW_TARGETS, len(part)),
            n_shadows=SHADOW_SHADOWS,
            random_state=seed,
            progress=progress,
        )
    except AnonError as exc:
        why = f"the shadow attack could not run: {exc}"
        return {n: figure(None, kind=kind, why=why, name=n) for n in NAMES}, None, why
    figures = {
        "shadow_mia_auc": figure(result.auc, result.auc_ci, kind, name="shadow_mia_auc"),
        "shadow_mia_advantage": figure(
            result.advantage, result.advantage_ci, kind, name="shadow_mia_advantage"
        ),
    }
    note = (
        f"shadow-model membership inference: {result.fits} fits of the method on reference "
        f"datasets of {result.shadow_rows:,} control records, {len(result.targets)} most "
        f"vulnerable targets, mean AUC {result.auc:.2f} (0.5 = chance)"
    )
    # timings stay out of the evidence: verify re-runs it and compares every other number
    details = {k: v for k, v in result.to_dict().items() if k not in ("estimated_seconds",)}
    return figures, details, note


def exposure_note(
    figures: dict[str, dict], part: pd.DataFrame, rehearsed: pd.DataFrame, qis: list[str]
) -> str | None:
    """How many of the 1% most vulnerable records of the rehearsal's part its release singles
    out / links (:mod:`anon_core.attacks.vulnerable_exposure`), when the evidence has the
    singling-out or linkability figures; else None."""
    from anon_core.attacks.vulnerable_exposure import vulnerable_exposure

    def measured(name: str) -> bool:
        return (figures.get(name) or {}).get("value") is not None

    want_so, want_link = measured("singling_out_multivariate"), measured("linkability")
    if not qis or not (want_so or want_link):
        return None
    try:
        e = vulnerable_exposure(part, rehearsed, qis)
    except AnonError as exc:
        return f"the exposure of the most vulnerable records could not be measured: {exc}"
    said = []
    if want_so:
        said.append(f"{e.singled_out} singled out by their exact quasi-identifiers")
    if want_link and e.linked is not None:
        said.append(f"{e.linked} linked by the two halves of their quasi-identifiers")
    if not said:
        return None
    return f"of the {e.n_records} most vulnerable records (1%) of the rehearsal: " + ", ".join(said)

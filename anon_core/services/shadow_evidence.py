"""The shadow-model membership figures of the evidence (asked for with ``shadow=True``).

The release method is re-fitted ``2 x SHADOW_SHADOWS`` times on reference datasets drawn from the
rehearsal's control records, with and without each of the ``SHADOW_TARGETS`` most vulnerable
records of the rehearsal's released part (:mod:`anon_core.attacks.shadow`). Defined for
synthetic and perturbative releases: a generalized release's rows are the input's records, for
which the class-based figures and the attack battery already speak.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
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


@contextlib.contextmanager
def reproducible_fit(seed: int) -> Iterator[None]:
    """A shadow fit seeded end to end: PyTorch's generator seeded, its deterministic kernels
    asked for (warning only where an operation has none) and one intra-op thread, so that the
    same fit on the same machine gives the same output whatever else runs; all restored after.
    Without PyTorch (the method does not use it) nothing changes."""
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(seed))
            yield
    finally:
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.set_num_threads(threads)


def shadow_applies(method: str, synthetic: bool) -> bool:
    return bool(synthetic) or method in PERTURBATIVE


def shadow_time_estimate(release: Any) -> tuple[float, str] | None:
    """(seconds, one line) the evidence's shadow attack should take on ``release`` (a Release
    value), before it starts, or None when the attack is not defined for its method.

    The rule: ``2 x SHADOW_SHADOWS`` fits of the method, each on a reference dataset of
    min(released part, control // 2) rows, each taking the release's own measured time scaled
    linearly by rows (the release fitted the whole table, or the part for scope ``part``)."""
    from anon_core.estimate import describe

    if not shadow_applies(release.method, release.synthetic):
        return None
    rehearsal = release.rehearsal
    fitted = rehearsal.n_released_part + (rehearsal.n_control if rehearsal.scope == "whole" else 0)
    rows = max(1, min(rehearsal.n_released_part, rehearsal.n_control // 2))
    fits = 2 * SHADOW_SHADOWS
    seconds = fits * float(release.seconds) * rows / max(1, fitted)
    text = (
        f"about {describe(seconds)}: {fits} fits of the method on {rows:,} records each; the "
        f"release took {describe(release.seconds)} on {fitted:,} records (time taken as growing "
        "with the rows)"
    )
    return seconds, text


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
        with reproducible_fit(random_state):
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


def exposure_evidence(
    part: pd.DataFrame,
    rehearsed: pd.DataFrame,
    qis: list[str],
    *,
    secrets: list[str],
    roles: Mapping[str, Any],
    hierarchies: Mapping[str, Any],
    seed: int,
) -> tuple[dict[str, Any] | None, str | None]:
    """(the exposure's JSON or None, a note or None): how many of the 1% most vulnerable records
    of the rehearsal's part its release singles out, links and lets infer
    (:mod:`anon_core.attacks.vulnerable_exposure`, the battery's secrets and seed)."""
    from anon_core.attacks.vulnerable_exposure import vulnerable_exposure

    qis = [q for q in qis if q in part.columns and q in rehearsed.columns]
    secrets = [s for s in secrets if s in part.columns and s in rehearsed.columns]
    if not qis:
        return None, None
    try:
        e = vulnerable_exposure(
            part,
            rehearsed,
            qis,
            secrets=secrets,
            roles=roles,
            hierarchies=hierarchies,
            random_state=seed,
        )
    except AnonError as exc:
        return None, f"the exposure of the most vulnerable records could not be measured: {exc}"
    said = [f"{e.singled_out} singled out (alone in the release on their quasi-identifiers)"]
    if e.linked is not None:
        said.append(f"{e.linked} linked by the two halves of their quasi-identifiers")
    if e.inferred is not None:
        said.append(f"{e.inferred} with a secret inferred ({', '.join(secrets)})")
    note = f"of the {e.n_records} most vulnerable records (1%) of the rehearsal: " + ", ".join(said)
    return e.to_dict(), note


#: Where a dossier's evidence keeps the shadow attack's figures, JSON and note.
_SHADOW_NOTE = "shadow-model membership inference:"


def _shadow_parts(evidence: Mapping[str, Any]) -> dict[str, Any]:
    figures = evidence.get("figures") or {}
    return {
        "figures": {n: figures.get(n) for n in NAMES},
        "attack": (evidence.get("attacks") or {}).get("shadow_membership"),
        "notes": [n for n in evidence.get("notes") or [] if str(n).startswith(_SHADOW_NOTE)],
    }


def keep_unreproducible_shadow(recorded: Mapping[str, Any], again: dict[str, Any]) -> str | None:
    """For a release method that is not bit-reproducible (CTGAN: PyTorch's floating point
    differs across machines and builds), the shadow attack's 16 re-fits may not give the figures
    the dossier records even with every seed the same. When the re-run's shadow figures differ,
    the recorded ones are put back into ``again`` (the re-run's dossier figures) and a note says
    they were not re-checked and why; everything else is still compared. Returns that note, or
    None when they match, the method is reproducible or there is no shadow attack."""
    release = recorded.get("release") or {}
    if release.get("reproducible", True):
        return None
    before = _shadow_parts(recorded.get("evidence") or {})
    evidence = again.get("evidence") or {}
    if before["attack"] is None or _shadow_parts(evidence) == before:
        return None
    figures = evidence.setdefault("figures", {})
    for name, value in before["figures"].items():
        if value is not None:
            figures[name] = value
    evidence.setdefault("attacks", {})["shadow_membership"] = before["attack"]
    recorded_notes = list((recorded.get("evidence") or {}).get("notes") or [])

    def others(notes: list[Any]) -> list[Any]:
        return [n for n in notes if not str(n).startswith(_SHADOW_NOTE)]

    if others(list(evidence.get("notes") or [])) == others(recorded_notes):
        evidence["notes"] = recorded_notes
    return (
        f"shadow-model figures not re-checked: {release.get('method')} is not bit-reproducible "
        "(PyTorch's floating point differs across machines and builds), and the re-run of its "
        "shadow fits gave other figures than the dossier records; the other figures were compared"
    )

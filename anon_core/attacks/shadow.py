"""Shadow-model membership inference against a release method (TAPAS-style), and DOMIAS.

Stadler, Oprisanu and Troncoso, "Synthetic Data -- Anonymisation Groundhog Day", USENIX Security
2022, and Meeus et al., "Achilles' Heels", ESORICS 2023 (the TAPAS toolbox): an attacker who
knows a target record and has data of the same population trains the release method on
reference datasets *with* and *without* the target, describes each output by features around
the target, and learns to tell the two apart. How well a held-out classifier does (AUC,
advantage) is how much the method's output reveals whether the target was in its input.

Here the reference datasets are drawn from the control records (never released). To bound the
cost, one set of ``2 M`` shadow datasets serves every target: each target is inserted in
exactly ``M`` of them (balanced in each half), so the method is fitted ``2 M`` times in all,
not ``2 M`` times per target. Features of an output for a target: the number of output rows
within radius r of the target (r = the target's k-th nearest-neighbour distance in the
original, see :mod:`anon_core.attacks.vulnerable`), the distance to the nearest output row, and
per column the share of output rows matching the target's value (numbers: within 2% of the
range). A logistic regression is trained on one half of the shadow outputs and scores the other,
and the other way round (two-fold cross-fitting: every score comes from a classifier that never
saw that output). Per target: the AUC with the Hanley-McNeil interval (Hanley and McNeil,
Radiology 1982), and the advantage TPR - FPR of the 0.5 threshold with Newcombe's interval; over
targets: the mean AUC (interval: the wider of the Hanley-McNeil one, as if targets were
independent, and a percentile bootstrap over the shadow outputs, which the targets share) and
the pooled advantage.

DOMIAS (van Breugel et al., "Membership Inference Attacks against Synthetic Data through
Overfitting Detection", AISTATS 2023) is the cheap option: no refit at all, a record is scored
by the density of the release around it over the density of reference data around it (scikit-
learn ``KernelDensity``, Gaussian, bandwidth the median distance between nearest reference
records, on the encoded rows of :class:`~anon_core.attacks.vulnerable.MixedEncoder`); members are the released part's records, non-members control
records kept out of the reference.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.stats import wilson_interval
from anon_core.attacks.vulnerable import MixedEncoder, knn_distances, vulnerable_records
from anon_core.errors import AnonError, ConfigError
from anon_core.validation import check_float, check_int

Progress = Callable[[float, str], None]
#: ``fit(frame, seed) -> released table`` (the release method under attack).
Fit = Callable[[pd.DataFrame, int], pd.DataFrame]

#: Smallest number of control records the shadow game accepts (reference datasets come from them).
MIN_CONTROL = 20
#: Numbers within this share of their range count as matching the target's value.
NUMERIC_MATCH = 0.02
#: Rows each table of the DOMIAS densities is sampled down to (its cost is rows x rows).
DOMIAS_ROWS = 5000


def hanley_mcneil(auc: float, n_pos: int, n_neg: int) -> float:
    """Standard error of an AUC (Hanley and McNeil 1982, eq. 2)."""
    q1, q2 = auc / (2.0 - auc), 2.0 * auc * auc / (1.0 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc) + (n_neg - 1) * (q2 - auc * auc)) / max(
        n_pos * n_neg, 1
    )
    return math.sqrt(max(var, 0.0))


def auc_score(scores: np.ndarray, labels: np.ndarray) -> float:
    """P(score of a member > score of a non-member) + half the ties (Mann-Whitney)."""
    ranks = pd.Series(scores).rank(method="average").to_numpy()
    pos = labels.astype(bool)
    n1, n0 = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _advantage(tp: int, n_pos: int, fp: int, n_neg: int, confidence: float) -> tuple[float, tuple]:
    """TPR - FPR with Newcombe's hybrid score interval (as in membership.py)."""
    tpr, fpr = tp / n_pos, fp / n_neg
    l1, u1 = wilson_interval(tp, n_pos, confidence)
    l2, u2 = wilson_interval(fp, n_neg, confidence)
    adv = tpr - fpr
    lo = adv - math.sqrt((tpr - l1) ** 2 + (u2 - fpr) ** 2)
    hi = adv + math.sqrt((u1 - tpr) ** 2 + (fpr - l2) ** 2)
    return float(adv), (float(max(-1.0, lo)), float(min(1.0, hi)))


@dataclass(frozen=True)
class TargetResult:
    """The attack on one target (its position in the original, never its values)."""

    position: int
    auc: float
    auc_ci: tuple[float, float]
    advantage: float
    advantage_ci: tuple[float, float]
    columns: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "auc": self.auc,
            "auc_ci": list(self.auc_ci),
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "columns": list(self.columns),
        }


@dataclass(frozen=True)
class ShadowResult:
    """Shadow-model membership inference on the most vulnerable targets."""

    auc: float  # mean over targets
    auc_ci: tuple[float, float]
    advantage: float  # pooled over targets (TPR - FPR of the 0.5 threshold)
    advantage_ci: tuple[float, float]
    targets: tuple[TargetResult, ...]
    n_shadows: int  # per side
    shadow_rows: int
    fits: int
    seconds: float
    estimated_seconds: float
    random_state: int | None
    confidence: float = 0.95
    attack: str = "shadow"
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": self.attack,
            "auc": self.auc,
            "auc_ci": list(self.auc_ci),
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "targets": [t.to_dict() for t in self.targets],
            "n_shadows": self.n_shadows,
            "shadow_rows": self.shadow_rows,
            "fits": self.fits,
            "seconds": self.seconds,
            "estimated_seconds": self.estimated_seconds,
            "random_state": self.random_state,
            "confidence": self.confidence,
            **self.details,
        }


def _features(enc: MixedEncoder, output: pd.DataFrame, target: pd.DataFrame, radius: float):
    """The feature vector of one output around one target (see the module docstring)."""
    if len(output) == 0:
        return np.zeros(2 + len(enc.columns))
    per_col = enc.column_distances(output, target)
    dist = per_col.sum(axis=1)
    numeric = np.array([c in enc.numeric for c in enc.columns])
    match = np.where(numeric[None, :], per_col <= NUMERIC_MATCH, per_col == 0).mean(axis=0)
    return np.concatenate([[float((dist <= radius).sum()), float(dist.min())], match])


def _check(original: pd.DataFrame, control: pd.DataFrame, n_targets: int, rows: int) -> None:
    missing = [c for c in original.columns if c not in control.columns]
    if missing:
        raise ConfigError(f"The control records lack the column(s) {missing}; give them all.")
    if len(original) < 2:
        raise ConfigError(
            f"The shadow attack needs at least 2 original records, got {len(original)}."
        )
    if len(control) < max(MIN_CONTROL, rows):
        raise ConfigError(
            f"The shadow attack needs at least {max(MIN_CONTROL, rows)} control records (never "
            f"released) to draw reference datasets of {rows} rows from, got {len(control)}: "
            "enlarge the control set ('attack.control_fraction') or lower 'shadow_rows'."
        )
    if n_targets > len(original):
        raise ConfigError(
            f"'n_targets' is {n_targets}, more than the {len(original)} original records."
        )


def shadow_membership(
    fit: Fit,
    original: pd.DataFrame,
    control: pd.DataFrame,
    *,
    n_targets: int = 10,
    n_shadows: int = 8,
    shadow_rows: int | None = None,
    k: int = 5,
    confidence: float = 0.95,
    random_state: int | None = 0,
    progress: Progress | None = None,
    columns: Sequence[str] | None = None,
) -> ShadowResult:
    """Shadow-model membership inference on the ``n_targets`` most vulnerable records of
    ``original`` (see the module docstring). ``fit(frame, seed)`` runs the release method;
    reference datasets of ``shadow_rows`` rows (default: as many as ``original``, at most half
    the control records) are drawn from ``control``; ``n_shadows`` outputs per side."""
    n_targets = check_int("n_targets", n_targets, minimum=1)
    n_shadows = check_int("n_shadows", n_shadows, minimum=2)
    k = check_int("k", k, minimum=1)
    confidence = check_float("confidence", confidence, 0.5, 0.999)
    if shadow_rows is None:
        shadow_rows = max(1, min(len(original), len(control) // 2))
    shadow_rows = check_int("shadow_rows", shadow_rows, minimum=1)
    _check(original, control, n_targets, shadow_rows)
    cols = [str(c) for c in (original.columns if columns is None else columns)]
    original = original.reset_index(drop=True)
    control = control.reset_index(drop=True)[list(original.columns)]
    vul = vulnerable_records(original, cols, k=min(k, len(original) - 1), top=n_targets)
    targets = vul.most(n_targets)
    enc = MixedEncoder([original, control], cols)
    radii = knn_distances(enc.transform(original), min(k, len(original) - 1))[0][targets, -1]
    rng = np.random.default_rng(random_state)
    total = 2 * n_shadows
    # labels[t, j]: target t inserted in shadow j; balanced within each half.
    labels = np.zeros((len(targets), total), dtype=bool)
    halves = (np.arange(n_shadows), np.arange(n_shadows, total))
    for t in range(len(targets)):
        for h, idx in enumerate(halves):
            ins = (len(idx) + (1 - h)) // 2 if n_shadows % 2 else len(idx) // 2
            labels[t, rng.permutation(idx)[:ins]] = True
    seeds = rng.integers(0, 2**31 - 1, size=total)
    features = np.zeros((len(targets), total, 2 + len(cols)))
    t0 = time.perf_counter()
    estimated = 0.0
    for j in range(total):
        base = control.iloc[rng.choice(len(control), size=shadow_rows, replace=False)]
        inserted = original.iloc[targets[labels[:, j]]]
        # an inserted target replaces a reference row, so every shadow input has shadow_rows rows
        keep = base.iloc[: max(0, shadow_rows - len(inserted))]
        shadow = pd.concat([keep, inserted], ignore_index=True)
        shadow = shadow.sample(frac=1.0, random_state=int(seeds[j])).reset_index(drop=True)
        started = time.perf_counter()
        output = fit(shadow, int(seeds[j]))
        if j == 0:
            estimated = (time.perf_counter() - started) * total
        for t, pos in enumerate(targets):
            features[t, j] = _features(enc, output, original.iloc[[int(pos)]], float(radii[t]))
        if progress is not None:
            left = (time.perf_counter() - t0) / (j + 1) * (total - j - 1)
            progress(
                (j + 1) / (total + 1), f"shadow fits {j + 1}/{total} (about {left:.0f} s left)"
            )
    results = []
    scores = np.zeros((len(targets), total))
    for t, pos in enumerate(targets):
        for train, test in (halves, halves[::-1]):
            model = _classifier()
            model.fit(features[t, train], labels[t, train])
            scores[t, test] = model.predict_proba(features[t, test])[:, 1]
        y = labels[t]
        auc = auc_score(scores[t], y)
        se = hanley_mcneil(auc, int(y.sum()), int((~y).sum()))
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        guess = scores[t] > 0.5
        adv, adv_ci = _advantage(
            int((guess & y).sum()),
            int(y.sum()),
            int((guess & ~y).sum()),
            int((~y).sum()),
            confidence,
        )
        results.append(
            TargetResult(
                int(pos),
                auc,
                (max(0.0, auc - z * se), min(1.0, auc + z * se)),
                adv,
                adv_ci,
                vul.top[t].columns,
            )
        )
    mean_auc = float(np.mean([r.auc for r in results]))
    ses = [hanley_mcneil(r.auc, n_shadows, n_shadows) for r in results]
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    half_width = z * math.sqrt(sum(s * s for s in ses)) / len(results)
    # the targets share the shadow outputs, so their AUCs are correlated: the interval of the
    # mean is the wider of Hanley-McNeil (independent targets) and a bootstrap over the outputs
    boot_lo, boot_hi = _bootstrap_mean_auc(scores, labels, confidence, rng)
    half_width = max(half_width, mean_auc - boot_lo, boot_hi - mean_auc)
    guess = scores > 0.5
    adv, adv_ci = _advantage(
        int((guess & labels).sum()),
        int(labels.sum()),
        int((guess & ~labels).sum()),
        int((~labels).sum()),
        confidence,
    )
    if progress is not None:
        progress(1.0, "shadow attack done")
    return ShadowResult(
        auc=mean_auc,
        auc_ci=(max(0.0, mean_auc - half_width), min(1.0, mean_auc + half_width)),
        advantage=adv,
        advantage_ci=adv_ci,
        targets=tuple(results),
        n_shadows=n_shadows,
        shadow_rows=shadow_rows,
        fits=total,
        seconds=time.perf_counter() - t0,
        estimated_seconds=estimated,
        random_state=random_state,
        confidence=confidence,
    )


def _bootstrap_mean_auc(
    scores: np.ndarray, labels: np.ndarray, confidence: float, rng: np.random.Generator
) -> tuple[float, float]:
    """Percentile interval of the mean over targets of the AUC, resampling the shadow outputs
    (the same resample for every target: outputs are what the targets share)."""
    n_boot = 1000
    total = scores.shape[1]
    weights = rng.multinomial(total, np.full(total, 1.0 / total), size=n_boot).astype(float)
    aucs = np.full((scores.shape[0], n_boot), np.nan)
    for t in range(scores.shape[0]):
        s, pos = scores[t], labels[t]
        greater = (s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])
        pair = greater * (pos[:, None] & ~pos[None, :])
        wp, wn = weights * pos, weights * ~pos
        num = np.einsum("bi,ij,bj->b", wp, pair, wn)
        den = wp.sum(axis=1) * wn.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            aucs[t] = np.where(den > 0, num / den, np.nan)
    # a resample without a member or a non-member of some target has no AUC for it: dropped
    means = aucs.mean(axis=0)
    means = means[np.isfinite(means)]
    if len(means) == 0:  # pragma: no cover - needs every resample to lose a class
        return 0.0, 1.0
    alpha = (1.0 - confidence) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def _classifier():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))


def estimate_cost(
    fit: Fit,
    control: pd.DataFrame,
    *,
    n_shadows: int = 8,
    shadow_rows: int | None = None,
    random_state: int | None = 0,
) -> float:
    """Seconds the shadow attack would take: one method fit on a reference dataset, timed, times
    the number of fits (``2 n_shadows``); the features and classifiers are negligible beside it."""
    n_shadows = check_int("n_shadows", n_shadows, minimum=2)
    rows = shadow_rows or max(1, len(control) // 2)
    if len(control) < max(MIN_CONTROL, rows):
        raise ConfigError(
            f"The shadow attack needs at least {max(MIN_CONTROL, rows)} control records, got "
            f"{len(control)}: enlarge the control set ('attack.control_fraction')."
        )
    rng = np.random.default_rng(random_state)
    sample = control.iloc[rng.choice(len(control), size=rows, replace=False)].reset_index(drop=True)
    started = time.perf_counter()
    fit(sample, int(rng.integers(0, 2**31 - 1)))
    return (time.perf_counter() - started) * 2 * n_shadows


@dataclass(frozen=True)
class DomiasResult:
    """DOMIAS density-ratio membership inference: AUC with its Hanley-McNeil interval."""

    auc: float
    auc_ci: tuple[float, float]
    n_members: int
    n_non_members: int
    random_state: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": "domias",
            "auc": self.auc,
            "auc_ci": list(self.auc_ci),
            "n_members": self.n_members,
            "n_non_members": self.n_non_members,
            "random_state": self.random_state,
        }


def _nearest_other(x: np.ndarray) -> np.ndarray:
    from sklearn.neighbors import NearestNeighbors

    dist, _ = NearestNeighbors(n_neighbors=2).fit(x).kneighbors(x)
    return dist[:, 1]


def domias_membership(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    n_attacks: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> DomiasResult:
    """DOMIAS score ``log p_release(x) - log p_reference(x)`` of members (``original``) and
    non-members (half of ``control``; the other half is the reference), and its AUC."""
    from sklearn.neighbors import KernelDensity

    n_attacks = check_int("n_attacks", n_attacks, minimum=1)
    confidence = check_float("confidence", confidence, 0.5, 0.999)
    _check(original, control, 1, MIN_CONTROL)
    if len(released) == 0:
        raise ConfigError("The released table has no records: there is nothing to attack.")
    rng = np.random.default_rng(random_state)
    cols = [str(c) for c in original.columns]
    perm = rng.permutation(len(control))
    reference = control.iloc[perm[: len(control) // 2]]
    non_members = control.iloc[perm[len(control) // 2 :]]
    n = min(n_attacks, len(original), len(non_members))
    members = original.iloc[rng.choice(len(original), size=n, replace=False)]
    non_members = non_members.iloc[rng.choice(len(non_members), size=n, replace=False)]
    enc = MixedEncoder([original, control, released], cols)

    def dense(frame: pd.DataFrame) -> np.ndarray:
        if len(frame) > DOMIAS_ROWS:
            frame = frame.iloc[rng.choice(len(frame), size=DOMIAS_ROWS, replace=False)]
        x = enc.transform(frame)
        return x if isinstance(x, np.ndarray) else x.toarray()

    queries = np.vstack([dense(members), dense(non_members)])
    ref = dense(reference)
    # bandwidth: the median distance of a reference record to its nearest other one (Euclidean)
    bandwidth = float(np.median(_nearest_other(ref))) if len(ref) > 1 else 1.0
    bandwidth = max(bandwidth, 1e-3)
    try:
        p_rel = KernelDensity(bandwidth=bandwidth).fit(dense(released)).score_samples(queries)
        p_ref = KernelDensity(bandwidth=bandwidth).fit(ref).score_samples(queries)
    except (ValueError, MemoryError) as exc:  # pragma: no cover - degenerate inputs
        raise AnonError(f"DOMIAS could not estimate the densities: {exc}") from exc
    score = np.nan_to_num(p_rel - p_ref, nan=0.0, posinf=1e300, neginf=-1e300)
    y = np.r_[np.ones(n, dtype=bool), np.zeros(n, dtype=bool)]
    auc = auc_score(score, y)
    se = hanley_mcneil(auc, n, n)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return DomiasResult(auc, (max(0.0, auc - z * se), min(1.0, auc + z * se)), n, n, random_state)


__all__ = [
    "DomiasResult",
    "ShadowResult",
    "TargetResult",
    "auc_score",
    "domias_membership",
    "estimate_cost",
    "hanley_mcneil",
    "shadow_membership",
]

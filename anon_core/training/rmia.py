"""RMIA: the robust membership inference attack of Zarifzadeh, Liu and Shokri ("Low-Cost
High-Power Membership Inference Attacks", ICML 2024, PMLR 235:58244-58282).

The attacker knows the training algorithm and has **population** records (never in the target's
training set). It trains a few **reference models** (1 to 4) on random halves of part of that
population, the same way the target was trained, and keeps the rest as population samples z,
which no model (target or reference) has seen. For a record x with label y, Pr(x | theta) is
the model's softmax probability of y. The reference models are all OUT for x (offline RMIA),
so Pr(x) is approximated with the paper's formula

    Pr(x) = ((1 + a) / 2) * mean over reference models of Pr(x | theta_ref) + (1 - a) / 2,

and the same for every z. The pairwise likelihood ratio
LR(x, z) = (Pr(x | theta) / Pr(x)) / (Pr(z | theta) / Pr(z)) compares x with each population
record; RMIA's score is the share of z with LR(x, z) > gamma (gamma = 1 here). ``a`` is tuned
as in the paper's code: one reference model plays the target (its training half are members,
the other half non-members) and the others are its references; the ``a`` of a grid with the
best AUC is used (with one reference model, a = :data:`DEFAULT_A`).

Results: the AUC over members and non-members, and the advantage TPR - FPR at the best
threshold (the maximum over thresholds: an optimistic figure, as in the literature), each with
a percentile bootstrap interval (seeded). On an (epsilon, delta)-DP model no test can exceed
(e^epsilon - 1 + 2 delta) / (e^epsilon + 1) (:func:`anon_core.audit.dp_audit.advantage_bound`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.errors import ConfigError
from anon_core.training.membership import BOOTSTRAP, CONFIDENCE, auc_score
from anon_core.validation import check_int

#: Reference models trained by default, and the most allowed (each costs one training run).
REFERENCE_MODELS = 2
MAX_REFERENCE_MODELS = 4
#: Population samples z compared with every record (a seeded sample beyond this).
MAX_POPULATION = 1000
#: The offline coefficient when it cannot be tuned (one reference model).
DEFAULT_A = 0.3
A_GRID = tuple(round(0.1 * i, 1) for i in range(11))
GAMMA = 1.0
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class RmiaResult:
    """RMIA on one model: AUC and best-threshold advantage with bootstrap intervals."""

    auc: float
    auc_ci: tuple[float, float]
    advantage: float
    advantage_ci: tuple[float, float]
    tpr: float
    fpr: float
    threshold: float
    members: int
    non_members: int
    references: int
    population: int
    offline_a: float
    gamma: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": "rmia",
            "auc": self.auc,
            "ci": list(self.auc_ci),
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "tpr": self.tpr,
            "fpr": self.fpr,
            "threshold": self.threshold,
            "members": self.members,
            "non_members": self.non_members,
            "references": self.references,
            "population": self.population,
            "offline_a": self.offline_a,
            "gamma": self.gamma,
        }

    def summary(self) -> dict[str, Any]:
        """The short form ``anon-core train`` prints beside ``membership``."""
        return {"advantage": self.advantage, "auc": self.auc, "ci": list(self.auc_ci)}


def true_class_probability(model: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pr(x | theta): the model's probability of each record's true class."""
    proba = np.asarray(model.predict_proba(X), dtype=float)
    return proba[np.arange(len(y)), np.asarray(y, dtype=np.int64)]


def rmia_scores(
    p_target_x: np.ndarray,
    p_ref_x: np.ndarray,
    p_target_z: np.ndarray,
    p_ref_z: np.ndarray,
    offline_a: float,
    gamma: float = GAMMA,
) -> np.ndarray:
    """RMIA's score of each x: the share of population records z with LR(x, z) > gamma.

    ``p_ref_x`` and ``p_ref_z`` have one column per reference model (all OUT)."""
    if not 0.0 <= offline_a <= 1.0:
        raise ConfigError(f"'offline_a' must be in [0, 1], got {offline_a}.")

    def ratio(p: np.ndarray, ref: np.ndarray) -> np.ndarray:
        mean_out = np.atleast_2d(np.asarray(ref, dtype=float).T).T.mean(axis=1)
        px = (1 + offline_a) / 2 * mean_out + (1 - offline_a) / 2
        return np.asarray(p, dtype=float) / np.maximum(px, 1e-30)

    rx = ratio(p_target_x, p_ref_x)
    rz = np.sort(ratio(p_target_z, p_ref_z))
    # LR(x, z) > gamma  <=>  rz < rx / gamma: count with a sorted search
    below = np.searchsorted(rz, rx / gamma, side="left")
    return below / len(rz)


def best_advantage(member_scores: np.ndarray, non_member_scores: np.ndarray):
    """max over thresholds t of TPR - FPR for "score >= t": (advantage, tpr, fpr, t)."""
    m, o = np.sort(member_scores), np.sort(non_member_scores)
    cands = np.unique(np.concatenate([m, o]))
    tpr = 1.0 - np.searchsorted(m, cands, side="left") / len(m)
    fpr = 1.0 - np.searchsorted(o, cands, side="left") / len(o)
    i = int(np.argmax(tpr - fpr))
    return float(tpr[i] - fpr[i]), float(tpr[i]), float(fpr[i]), float(cands[i])


def _interval(values: np.ndarray) -> tuple[float, float]:
    lo, hi = np.quantile(values, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def tune_offline_a(
    p_refs_on_pool: np.ndarray,
    in_masks: np.ndarray,
    p_refs_on_z: np.ndarray,
    gamma: float = GAMMA,
) -> float:
    """The ``a`` of :data:`A_GRID` with the best AUC when each reference model in turn plays the
    target (``in_masks[k]``: the pool records model k trained on) against the others."""
    k = p_refs_on_pool.shape[1]
    if k < 2:
        return DEFAULT_A
    best, best_auc = DEFAULT_A, -1.0
    for a in A_GRID:
        aucs = []
        for t in range(k):
            others = [j for j in range(k) if j != t]
            # records OUT of every other model: references stay OUT, as offline RMIA assumes
            out_of_others = ~np.any(in_masks[others], axis=0)
            members = out_of_others & in_masks[t]
            non_members = out_of_others & ~in_masks[t]
            if members.sum() < 2 or non_members.sum() < 2:
                continue
            s = rmia_scores(
                p_refs_on_pool[:, t],
                p_refs_on_pool[:, others],
                p_refs_on_z[:, t],
                p_refs_on_z[:, others],
                a,
                gamma,
            )
            aucs.append(auc_score(s[members], s[non_members]))
        if aucs and float(np.mean(aucs)) > best_auc:
            best, best_auc = a, float(np.mean(aucs))
    return float(best)


def rmia_attack(
    model: Any,
    X_members: np.ndarray,
    y_members: np.ndarray,
    X_non_members: np.ndarray,
    y_non_members: np.ndarray,
    X_population: np.ndarray,
    y_population: np.ndarray,
    train_reference: Callable[[np.ndarray, np.ndarray, int], Any],
    *,
    references: int = REFERENCE_MODELS,
    gamma: float = GAMMA,
    offline_a: float | None = None,
    bootstrap: int = BOOTSTRAP,
    random_state: int = 0,
    progress: Progress | None = None,
) -> RmiaResult:
    """RMIA on ``model`` (anything with ``predict_proba``), members against non-members.

    ``X_population`` / ``y_population`` are records in neither the target's training set nor
    the evaluation: a seeded half (at most :data:`MAX_POPULATION`) are the z samples, and each
    reference model ``train_reference(X, y, seed)`` is trained on a seeded random half of the
    rest. ``offline_a`` None tunes it (:func:`tune_offline_a`)."""
    references = check_int("references", references, minimum=1, maximum=MAX_REFERENCE_MODELS)
    bootstrap = check_int("bootstrap", bootstrap, minimum=10)
    random_state = check_int("random_state", random_state, minimum=0)
    if not (isinstance(gamma, int | float) and math.isfinite(gamma) and gamma > 0):
        raise ConfigError(f"'gamma' must be a number > 0, e.g. 1; got {gamma!r}.")
    n_pop = len(y_population)
    if n_pop < 8:
        raise ConfigError(
            f"RMIA needs population records to train reference models and compare with; only "
            f"{n_pop} are held out. Use more records or a larger 'test_size'."
        )
    if len(y_members) < 2 or len(y_non_members) < 2:
        raise ConfigError("RMIA needs at least 2 members and 2 non-members.")
    rng = np.random.default_rng(np.random.SeedSequence([random_state, 31]))
    order = rng.permutation(n_pop)
    n_z = min(n_pop // 2, MAX_POPULATION)
    z_idx, pool_idx = order[:n_z], order[n_z:]
    Xz, yz = X_population[z_idx], y_population[z_idx]
    Xp, yp = X_population[pool_idx], y_population[pool_idx]
    in_masks = np.zeros((references, len(pool_idx)), dtype=bool)
    models = []
    for k in range(references):
        half = rng.permutation(len(pool_idx))[: max(2, len(pool_idx) // 2)]
        in_masks[k, half] = True
        if progress is not None:
            progress(k / references, f"RMIA: reference model {k + 1} of {references}")
        models.append(train_reference(Xp[half], yp[half], int(rng.integers(2**31 - 1))))

    def on_refs(X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.column_stack([true_class_probability(m, X, y) for m in models])

    ref_z = on_refs(Xz, yz)
    a = offline_a
    if a is None:
        a = tune_offline_a(on_refs(Xp, yp), in_masks, ref_z, gamma)
    target_z = true_class_probability(model, Xz, yz)

    def scores(X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return rmia_scores(
            true_class_probability(model, X, y), on_refs(X, y), target_z, ref_z, a, gamma
        )

    sm, so = scores(X_members, y_members), scores(X_non_members, y_non_members)
    advantage, tpr, fpr, threshold = best_advantage(sm, so)
    boot = np.random.default_rng(np.random.SeedSequence([random_state, 37]))
    advs, aucs = np.empty(bootstrap), np.empty(bootstrap)
    for b in range(bootstrap):
        bm = sm[boot.integers(0, len(sm), len(sm))]
        bo = so[boot.integers(0, len(so), len(so))]
        advs[b] = best_advantage(bm, bo)[0]
        aucs[b] = auc_score(bm, bo)
    if progress is not None:
        progress(1.0, "RMIA done")
    return RmiaResult(
        auc=auc_score(sm, so),
        auc_ci=_interval(aucs),
        advantage=advantage,
        advantage_ci=_interval(advs),
        tpr=tpr,
        fpr=fpr,
        threshold=threshold,
        members=int(len(sm)),
        non_members=int(len(so)),
        references=references,
        population=int(n_z),
        offline_a=float(a),
        gamma=float(gamma),
    )

"""Membership inference against a trained model: was this record in the training set?

The attacker sees the model's output on a record and its true label. Two attacks, both
without shadow models:

* ``loss`` - the loss-threshold attack of Yeom, Giacomelli, Fredrikson and Jha ("Privacy risk
  in machine learning: analyzing the connection to overfitting", CSF 2018): guess "member"
  when the record's cross-entropy loss is below the model's average training loss. Its
  membership advantage TPR - FPR is Yeom et al.'s Adv; the AUC ranks records by -loss over all
  thresholds.
* ``lr`` - an offline likelihood-ratio variant in the spirit of Carlini, Chien, Nasr, Song,
  Terzis and Tramer ("Membership inference attacks from first principles", S&P 2022) without
  shadow models: the score is the logit-scaled confidence in the true class,
  phi = log(p / (1 - p)), and each class's non-member distribution of phi is fitted as a
  Gaussian on a **reference** set of records known not to be members (held-out records disjoint
  from the evaluation ones). A record's score is the one-sided test statistic
  (phi - mu_c) / sigma_c: members sit high in their class's non-member distribution. It
  corrects for classes that are intrinsically easier; the guess "member" is made when the
  score exceeds the threshold that gives a :data:`REFERENCE_FPR` (10 %) false positive rate on
  the reference set (likelihood-ratio attacks are judged at low false positive rates).

Results report the advantage (TPR - FPR at the attack's threshold) and the AUC (probability
that a random member scores above a random non-member; ties count one half) with percentile
bootstrap intervals (members and non-members resampled separately, seeded). A model trained
with (epsilon, delta)-DP bounds every attack: TPR <= e^epsilon FPR + delta and
1 - FPR <= e^epsilon (1 - TPR) + delta, so the advantage is at most
(e^epsilon - 1 + 2 delta) / (e^epsilon + 1) (:func:`advantage_bound`; Yeom et al.'s Theorem 1
gives the looser e^epsilon - 1). The measured figures are what these attacks achieve on this
model, usually far below the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.errors import ConfigError
from anon_core.validation import check_choice, check_int


@dataclass(frozen=True)
class ModelAttack:
    """A declared membership attack on trained models (what it measures, its source, its rule)."""

    name: str
    label: str
    measures: str
    reference: str
    threshold: str
    needs_reference: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "measures": self.measures,
            "reference": self.reference,
            "threshold": self.threshold,
            "needs_reference": self.needs_reference,
        }


#: The model attacks (the ML counterpart of the attack lab's table attacks), by name.
MODEL_ATTACKS = {
    a.name: a
    for a in (
        ModelAttack(
            "loss",
            "loss threshold (Yeom)",
            "whether a record was trained on, from its loss: advantage TPR - FPR and AUC",
            "Yeom, Giacomelli, Fredrikson and Jha, CSF 2018",
            "loss below the model's average training loss",
            False,
        ),
        ModelAttack(
            "lr",
            "likelihood ratio (offline, no shadow models)",
            "whether a record was trained on, from its class-calibrated confidence",
            "after Carlini, Chien, Nasr, Song, Terzis and Tramer, S&P 2022",
            f"score above the reference non-members' {1 - 0.1:.0%} quantile (10 % false positives)",
            True,
        ),
    )
}
ATTACKS = tuple(MODEL_ATTACKS)
BOOTSTRAP = 200
CONFIDENCE = 0.95
#: False positive rate on the reference non-members that sets the ``lr`` attack's threshold.
REFERENCE_FPR = 0.1


@dataclass(frozen=True)
class MembershipResult:
    """One attack on one model: advantage and AUC with bootstrap intervals."""

    attack: str
    advantage: float
    advantage_ci: tuple[float, float]
    auc: float
    auc_ci: tuple[float, float]
    tpr: float
    fpr: float
    threshold: float
    members: int
    non_members: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": self.attack,
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "auc": self.auc,
            "ci": list(self.auc_ci),
            "tpr": self.tpr,
            "fpr": self.fpr,
            "members": self.members,
            "non_members": self.non_members,
        }


def advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """The largest membership advantage any attack can have on an (epsilon, delta)-DP model."""
    if math.isinf(epsilon):
        return 1.0
    return float(min((math.exp(epsilon) - 1 + 2 * delta) / (math.exp(epsilon) + 1), 1.0))


def auc_score(member_scores: np.ndarray, non_member_scores: np.ndarray) -> float:
    """P[member score > non-member score] + P[tie] / 2 (the Mann-Whitney form of the ROC AUC)."""
    m = np.asarray(member_scores, dtype=float)
    o = np.asarray(non_member_scores, dtype=float)
    both = np.concatenate([m, o])
    order = np.argsort(both, kind="mergesort")
    ranks = np.empty(len(both), dtype=float)
    sorted_vals = both[order]
    # average ranks over ties (1-based)
    _, first, counts = np.unique(sorted_vals, return_index=True, return_counts=True)
    avg = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    u = ranks[: len(m)].sum() - len(m) * (len(m) + 1) / 2.0
    return float(u / (len(m) * len(o)))


def _advantage(member_scores: np.ndarray, non_member_scores: np.ndarray, threshold: float):
    tpr = float(np.mean(member_scores > threshold))
    fpr = float(np.mean(non_member_scores > threshold))
    return tpr - fpr, tpr, fpr


def _interval(values: np.ndarray) -> tuple[float, float]:
    lo, hi = np.quantile(values, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def _logit_confidence(proba: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(proba[np.arange(len(y)), y], 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def attack_scores(
    attack: str,
    model: Any,
    X_members: np.ndarray,
    y_members: np.ndarray,
    X_non_members: np.ndarray,
    y_non_members: np.ndarray,
    X_reference: np.ndarray | None = None,
    y_reference: np.ndarray | None = None,
    train_loss: float | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """(member scores, non-member scores, threshold): higher score = "more likely a member"."""
    if attack == "loss":
        sm = -model.losses(X_members, y_members)
        so = -model.losses(X_non_members, y_non_members)
        threshold = -float(train_loss) if train_loss is not None else float(np.median(sm))
        return sm, so, threshold
    if X_reference is None or y_reference is None or len(y_reference) == 0:
        raise ConfigError("The 'lr' attack needs reference non-member records.")
    ref = _logit_confidence(model.predict_proba(X_reference), y_reference)
    mu_all, sd_all = float(ref.mean()), float(ref.std()) or 1.0
    stats = {}
    for c in np.unique(y_reference):
        part = ref[y_reference == c]
        if len(part) >= 5:
            stats[int(c)] = (float(part.mean()), float(part.std()) or sd_all)

    def score(X: np.ndarray, y: np.ndarray) -> np.ndarray:
        phi = _logit_confidence(model.predict_proba(X), y)
        mu = np.array([stats.get(int(c), (mu_all, sd_all))[0] for c in y])
        sd = np.array([stats.get(int(c), (mu_all, sd_all))[1] for c in y])
        return (phi - mu) / np.maximum(sd, 1e-6)

    ref_scores = score(X_reference, y_reference)
    return (
        score(X_members, y_members),
        score(X_non_members, y_non_members),
        float(np.quantile(ref_scores, 1 - REFERENCE_FPR)),
    )


def membership_inference(
    model: Any,
    X_members: np.ndarray,
    y_members: np.ndarray,
    X_non_members: np.ndarray,
    y_non_members: np.ndarray,
    attack: str = "loss",
    X_reference: np.ndarray | None = None,
    y_reference: np.ndarray | None = None,
    train_loss: float | None = None,
    bootstrap: int = BOOTSTRAP,
    random_state: int = 0,
) -> MembershipResult:
    """Run ``attack`` on ``model`` (a :class:`~anon_core.training.dpsgd.TrainedModel` or any
    object with ``losses(X, y)`` and ``predict_proba(X)``) with the given members (training
    records) and non-members (records never trained on).

    ``train_loss`` is Yeom et al.'s threshold (the model's average training loss; default:
    the members' median loss). The bootstrap resamples members and non-members ``bootstrap``
    times with ``random_state``; the same seed gives the same intervals.
    """
    attack = check_choice("attack", attack, ATTACKS)
    bootstrap = check_int("bootstrap", bootstrap, minimum=10)
    random_state = check_int("random_state", random_state, minimum=0)
    if len(y_members) < 2 or len(y_non_members) < 2:
        raise ConfigError(
            "Membership inference needs at least 2 members and 2 non-members: keep more records "
            "for training and for the holdout."
        )
    sm, so, threshold = attack_scores(
        attack,
        model,
        X_members,
        y_members,
        X_non_members,
        y_non_members,
        X_reference,
        y_reference,
        train_loss,
    )
    advantage, tpr, fpr = _advantage(sm, so, threshold)
    auc = auc_score(sm, so)
    rng = np.random.default_rng(np.random.SeedSequence([random_state, 7]))
    advs, aucs = np.empty(bootstrap), np.empty(bootstrap)
    for b in range(bootstrap):
        bm = sm[rng.integers(0, len(sm), len(sm))]
        bo = so[rng.integers(0, len(so), len(so))]
        advs[b] = _advantage(bm, bo, threshold)[0]
        aucs[b] = auc_score(bm, bo)
    return MembershipResult(
        attack=attack,
        advantage=advantage,
        advantage_ci=_interval(advs),
        auc=auc,
        auc_ci=_interval(aucs),
        tpr=tpr,
        fpr=fpr,
        threshold=threshold if math.isfinite(threshold) else 0.0,
        members=int(len(sm)),
        non_members=int(len(so)),
    )

"""Auditing a differentially private mechanism by distinguishing neighbouring datasets.

An (epsilon, delta)-DP mechanism M bounds every test that tries to tell M(D) from M(D'),
where D' is D without one target record (or with it replaced). For any set S of outputs,
P[M(D) in S] <= e^epsilon P[M(D') in S] + delta and the same with D and D' swapped, so a test
"output in S" with true positive rate TPR = P[M(D) in S] and false positive rate
FPR = P[M(D') in S] satisfies TPR <= e^eps FPR + delta and 1 - FPR <= e^eps (1 - TPR) + delta.
Adding the two (weighted to the tightest corner) gives the **advantage bound**

    TPR - FPR <= (e^epsilon - 1 + 2 delta) / (e^epsilon + 1)

(Kairouz, Oh and Viswanath, "The composition theorem for differential privacy", ICML 2015,
the hypothesis-testing view of DP; Humphries et al. 2023 for membership advantage). The
auditor runs M many times on D and on D' (seeded), scores each output (higher = "D, the target
is in"), chooses a threshold on one half of the runs and measures TPR and FPR on the other half,
with Clopper-Pearson intervals. The interval on the advantage is
[TPR_low - FPR_high, TPR_high - FPR_low]; a **violation** is reported only when its LOWER end
exceeds the bound: at the stated confidence this proves that M does not satisfy its claimed
guarantee (an implementation fault), it is not a risk figure. The same counts give an
**empirical epsilon lower bound**, epsilon_lb = max(log((TPR_low - delta) / FPR_high),
log((1 - FPR_high - delta) / (1 - TPR_low))) (Jagielski, Ullman and Oprea, "Auditing
differentially private machine learning: how private is private SGD?", NeurIPS 2020; Nasr,
Song, Thakurta, Papernot and Carlini, "Adversary instantiation: lower bounds for
differentially private machine learning", IEEE S&P 2021). A passing audit shows only that this
test found no fault with this neighbour pair; it never proves the guarantee.

Pure NumPy (and SciPy's beta quantiles): the mechanism, the datasets and the score are given.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.errors import ConfigError

#: Runs per side (D and D') by default; half choose the threshold, half measure.
DEFAULT_RUNS = 2000
#: The most runs per side one audit may make (bounds the cost of a request).
MAX_RUNS = 200_000
CONFIDENCE = 0.95

Mechanism = Callable[[Any, np.random.Generator], Any]
Score = Callable[[Any], float]


def advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """The largest TPR - FPR any test can reach against an (epsilon, delta)-DP mechanism."""
    epsilon, delta = float(epsilon), float(delta)
    if math.isnan(epsilon) or epsilon < 0 or not 0 <= delta <= 1:
        raise ConfigError(
            f"An advantage bound needs epsilon >= 0 and 0 <= delta <= 1, got ({epsilon}, {delta})."
        )
    if math.isinf(epsilon) or epsilon > 700:
        return 1.0
    return float(min((math.exp(epsilon) - 1 + 2 * delta) / (math.exp(epsilon) + 1), 1.0))


def clopper_pearson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper-Pearson) two-sided interval of a proportion k / n."""
    from scipy.stats import beta

    if n <= 0 or not 0 <= k <= n:
        raise ConfigError(f"A proportion needs 0 <= k <= n and n > 0, got k={k}, n={n}.")
    a = 1.0 - confidence
    lo = 0.0 if k == 0 else float(beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def epsilon_lower_bound(tpr_low: float, fpr_high: float, delta: float = 0.0) -> float:
    """The epsilon a test with these (interval ends of) TPR and FPR proves, 0 when none.

    Both DP inequalities are used: TPR <= e^eps FPR + delta, and
    1 - FPR <= e^eps (1 - TPR) + delta (the complementary test)."""
    best = 0.0
    if tpr_low - delta > 0 and fpr_high > 0:
        best = max(best, math.log((tpr_low - delta) / fpr_high))
    if (1 - fpr_high) - delta > 0 and (1 - tpr_low) > 0:
        best = max(best, math.log((1 - fpr_high - delta) / (1 - tpr_low)))
    return float(best)


def distance_score(with_target: Any, without_target: Any, norm: int = 1) -> Score:
    """A score that is high when an output is closer to ``with_target`` (the answer on D) than
    to ``without_target`` (on D'): ||o - a'|| - ||o - a|| (L1), or the difference of squared
    L2 distances (``norm=2``). For Laplace (geometric) noise the L1 form is the log-likelihood
    ratio up to a factor, for Gaussian noise the L2 form is."""
    a = np.asarray(with_target, dtype=float).ravel()
    b = np.asarray(without_target, dtype=float).ravel()
    if a.shape != b.shape:
        raise ConfigError(f"The two answers differ in shape: {a.shape} and {b.shape}.")
    if norm not in (1, 2):
        raise ConfigError(f"'norm' must be 1 or 2, got {norm!r}.")

    def score(output: Any) -> float:
        o = np.asarray(output, dtype=float).ravel()
        if norm == 1:
            return float(np.abs(o - b).sum() - np.abs(o - a).sum())
        return float(((o - b) ** 2).sum() - ((o - a) ** 2).sum())

    return score


@dataclass(frozen=True)
class AuditResult:
    """One audit: the measured advantage and its interval against the bound of the claim."""

    epsilon: float
    delta: float
    bound: float
    advantage: float
    ci: tuple[float, float]
    tpr: float
    fpr: float
    tpr_ci: tuple[float, float]
    fpr_ci: tuple[float, float]
    epsilon_lower_bound: float
    runs: int
    confidence: float
    threshold: float

    @property
    def violation(self) -> bool:
        """True when even the lower end of the advantage interval exceeds the bound."""
        return self.ci[0] > self.bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "bound": self.bound,
            "advantage": self.advantage,
            "ci": list(self.ci),
            "violation": self.violation,
            "tpr": self.tpr,
            "fpr": self.fpr,
            "tpr_ci": list(self.tpr_ci),
            "fpr_ci": list(self.fpr_ci),
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "epsilon_lower_bound_exceeds": self.epsilon_lower_bound > self.epsilon,
            "runs": self.runs,
            "confidence": self.confidence,
            "threshold": self.threshold,
        }


def _rates(
    pos: np.ndarray, neg: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """TPR and FPR of "score >= t" for every t (vectorised)."""
    p, n = np.sort(pos), np.sort(neg)
    tpr = 1.0 - np.searchsorted(p, thresholds, side="left") / len(p)
    fpr = 1.0 - np.searchsorted(n, thresholds, side="left") / len(n)
    return tpr, fpr


def choose_threshold(pos: np.ndarray, neg: np.ndarray) -> float:
    """The threshold t of "score >= t" with the largest TPR - FPR on these scores."""
    cands = np.unique(np.concatenate([pos, neg]))
    tpr, fpr = _rates(pos, neg, cands)
    return float(cands[int(np.argmax(tpr - fpr))])


def _scores(
    mechanism: Mechanism, dataset: Any, score: Score, runs: int, seed: int, side: int
) -> np.ndarray:
    out = np.empty(runs)
    for i in range(runs):
        rng = np.random.default_rng(np.random.SeedSequence([seed, side, i]))
        value = float(score(mechanism(dataset, rng)))
        out[i] = value if not math.isnan(value) else -math.inf
    return out


def audit_scores(
    pos: np.ndarray,
    neg: np.ndarray,
    epsilon: float,
    delta: float = 0.0,
    confidence: float = CONFIDENCE,
) -> AuditResult:
    """Audit from scores already drawn: ``pos`` on D (target in), ``neg`` on D' (target out).

    The first half of each chooses the threshold, the second half measures TPR and FPR."""
    pos, neg = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    if len(pos) < 4 or len(neg) < 4:
        raise ConfigError("An audit needs at least 4 runs on each dataset; use more runs.")
    if not 0.5 < confidence < 1:
        raise ConfigError(f"'confidence' must be in (0.5, 1), e.g. 0.95; got {confidence}.")
    bound = advantage_bound(epsilon, delta)
    hp, hn = len(pos) // 2, len(neg) // 2
    threshold = choose_threshold(pos[:hp], neg[:hn])
    ep, en = pos[hp:], neg[hn:]
    k_tp, k_fp = int(np.sum(ep >= threshold)), int(np.sum(en >= threshold))
    # each proportion at 1 - (1 - confidence)/2: the advantage interval holds at ``confidence``
    each = 1 - (1 - confidence) / 2
    tpr_ci = clopper_pearson(k_tp, len(ep), each)
    fpr_ci = clopper_pearson(k_fp, len(en), each)
    tpr, fpr = k_tp / len(ep), k_fp / len(en)
    # the epsilon lower bound: its own threshold, chosen on the first half, measured on the second
    cands = np.unique(np.concatenate([pos[:hp], neg[:hn]]))
    t1, f1 = _rates(pos[:hp], neg[:hn], cands)
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = np.maximum(
            np.log((t1 * hp + 0.5) / (f1 * hn + 0.5)),
            np.log(((1 - f1) * hn + 0.5) / ((1 - t1) * hp + 0.5)),
        )
    t_eps = float(cands[int(np.argmax(smooth))])
    k2_tp, k2_fp = int(np.sum(ep >= t_eps)), int(np.sum(en >= t_eps))
    tl, _ = clopper_pearson(k2_tp, len(ep), each)
    _, fh = clopper_pearson(k2_fp, len(en), each)
    eps_lb = max(
        epsilon_lower_bound(tpr_ci[0], fpr_ci[1], delta),
        epsilon_lower_bound(tl, fh, delta),
    )
    return AuditResult(
        epsilon=float(epsilon),
        delta=float(delta),
        bound=bound,
        advantage=float(tpr - fpr),
        ci=(float(tpr_ci[0] - fpr_ci[1]), float(tpr_ci[1] - fpr_ci[0])),
        tpr=float(tpr),
        fpr=float(fpr),
        tpr_ci=tpr_ci,
        fpr_ci=fpr_ci,
        epsilon_lower_bound=eps_lb,
        runs=int(min(len(pos), len(neg))),
        confidence=float(confidence),
        threshold=threshold if math.isfinite(threshold) else 0.0,
    )


def audit_mechanism(
    mechanism: Mechanism,
    with_target: Any,
    without_target: Any,
    score: Score,
    epsilon: float,
    delta: float = 0.0,
    *,
    runs: int = DEFAULT_RUNS,
    random_state: int = 0,
    confidence: float = CONFIDENCE,
) -> AuditResult:
    """Run ``mechanism(dataset, rng)`` ``runs`` times on each dataset and audit its claim of
    (``epsilon``, ``delta``)-DP with ``score`` (higher = the output looks like ``with_target``'s).

    Run i on dataset side s draws from ``default_rng(SeedSequence([random_state, s, i]))``: the
    same seed gives the same result."""
    if (
        isinstance(runs, bool)
        or not isinstance(runs, int | np.integer)
        or not 8 <= runs <= MAX_RUNS
    ):
        raise ConfigError(f"'runs' must be a whole number from 8 to {MAX_RUNS:,}, got {runs!r}.")
    if (
        isinstance(random_state, bool)
        or not isinstance(random_state, int | np.integer)
        or random_state < 0
    ):
        raise ConfigError(f"'random_state' must be a whole number >= 0, got {random_state!r}.")
    pos = _scores(mechanism, with_target, score, int(runs), int(random_state), 1)
    neg = _scores(mechanism, without_target, score, int(runs), int(random_state), 0)
    return audit_scores(pos, neg, epsilon, delta, confidence)

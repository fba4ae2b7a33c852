"""The DP audit of a DP-SGD model: do the measured membership attacks stay within what its
(epsilon, delta) allows?

An (epsilon, delta)-DP model bounds every membership attack's advantage by
(e^epsilon - 1 + 2 delta) / (e^epsilon + 1) (:func:`advantage_bound`). An attack whose
advantage interval lies wholly above the bound (its lower end exceeds it) proves, at the
interval's confidence, that the model does not satisfy its claim: an accounting or
implementation fault of the training, not a risk figure. An upper end above the bound alone
proves nothing (the sample is too small to tell) and is only reported. The same rule as the
audit of the other DP mechanisms (:mod:`anon_core.audit.dp_audit`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from anon_core.training.membership import advantage_bound

MEANING = (
    "an implementation check, not a risk figure: a violation means the model does not satisfy "
    "the (epsilon, delta) it claims (an accounting or implementation fault)"
)


def dp_audit_block(
    epsilon: float, delta: float, attacks: Mapping[str, tuple[float, Sequence[float]] | None]
) -> dict[str, Any]:
    """The ``dp_audit`` block of ``anon-core train``'s JSON: the bound of (``epsilon``,
    ``delta``) and, per attack (name -> (advantage, [low, high]) or None when it did not run),
    the measured advantage, its interval and whether it violates the bound; overall the attack
    with the highest advantage and ``violation`` when any attack violates."""
    bound = advantage_bound(float(epsilon), float(delta))
    per: dict[str, dict[str, Any]] = {}
    for name, measured in attacks.items():
        if measured is None:
            continue
        advantage, (low, high) = float(measured[0]), (float(measured[1][0]), float(measured[1][1]))
        per[name] = {
            "advantage": advantage,
            "advantage_ci": [low, high],
            "violation": low > bound,
            "upper_end_above_bound": high > bound,
        }
    strongest = max(per, key=lambda n: per[n]["advantage"], default=None)
    return {
        "epsilon": float(epsilon) if math.isfinite(float(epsilon)) else None,
        "delta": float(delta),
        "bound": bound,
        "attack": strongest,
        "advantage": None if strongest is None else per[strongest]["advantage"],
        "advantage_ci": None if strongest is None else per[strongest]["advantage_ci"],
        "violation": any(a["violation"] for a in per.values()),
        "upper_end_above_bound": any(a["upper_end_above_bound"] for a in per.values()),
        "attacks": per,
        "meaning": MEANING,
    }

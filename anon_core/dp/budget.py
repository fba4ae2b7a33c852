"""The privacy budget: one diffprivlib ``BudgetAccountant`` with a ledger of the queries."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anon_core.dp.library import BUDGET_TOLERANCE, diffprivlib_parts
from anon_core.errors import ConfigError
from anon_core.validation import check_float


class PrivacyBudget:
    """A privacy budget: one diffprivlib ``BudgetAccountant`` with a ledger of the queries.

    ``epsilon`` is the total (``math.inf`` for an unlimited budget, for experiments),
    ``delta`` the total delta (Laplace and exponential queries spend delta 0, Gaussian ones
    their own delta). Spending follows basic sequential composition (Dwork, McSherry, Nissim
    and Smith 2006; Dwork and Roth 2014, Thm 3.16): the accountant's ``total()`` is the sum of
    the epsilons and of the deltas spent (slack 0), and ``remaining`` is the total minus that
    sum, which equals ``BudgetAccountant.remaining()`` without its bisection rounding.
    """

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        if epsilon != math.inf:
            epsilon = check_float("epsilon", epsilon, 0.0, min_inclusive=False)
        delta = check_float("delta", delta, 0.0, 1.0)
        if delta >= 1.0:
            raise ConfigError(
                "'delta' must be below 1 (usually 0, or much smaller than 1/number of records)."
            )
        self.accountant = diffprivlib_parts().BudgetAccountant(
            epsilon=float(epsilon), delta=float(delta)
        )
        self.ledger: list[dict[str, Any]] = []

    @classmethod
    def after(
        cls,
        epsilon: float,
        delta: float,
        earlier: list[tuple[float, float, str]],
    ) -> PrivacyBudget:
        """A budget of (epsilon, delta) of which ``earlier`` spends (epsilon, delta, what: from the
        table's :class:`~anon_core.dp.ledger.DPLedger`) are already used, summed by basic
        sequential composition. Earlier spends above a lowered total leave nothing remaining."""
        budget = cls(epsilon, delta)
        eps_spent = math.fsum(e for e, _, _ in earlier)
        delta_spent = math.fsum(d for _, d, _ in earlier)
        if eps_spent > 0 or delta_spent > 0:
            eps_spent = min(eps_spent, budget.epsilon)
            delta_spent = min(delta_spent, budget.delta)
            budget.accountant.spend(eps_spent, delta_spent)
        for e, d, what in earlier:
            entry = {"query": what, "type": "earlier", "epsilon": float(e)}
            if d > 0:
                entry["delta"] = float(d)
            budget.ledger.append(entry)
        return budget

    @property
    def epsilon(self) -> float:
        return float(self.accountant.epsilon)

    @property
    def delta(self) -> float:
        return float(self.accountant.delta)

    @property
    def spent(self) -> float:
        return float(self.accountant.total()[0])

    @property
    def spent_delta(self) -> float:
        return float(self.accountant.total()[1])

    @property
    def remaining(self) -> float:
        """Total minus spent; a float-rounding remainder (<= 1e-12 of the total) counts as spent."""
        if self.epsilon == math.inf:
            return math.inf
        left = self.epsilon - self.spent
        return left if left > 1e-12 * max(self.epsilon, 1.0) else 0.0

    @property
    def fraction_spent(self) -> float:
        """Share of the total spent, in [0, 1] (0 for an unlimited budget)."""
        if self.epsilon == math.inf:
            return 0.0
        return min(self.spent / self.epsilon, 1.0)

    def admit(self, label: str, epsilon: float, delta: float = 0.0) -> float:
        """The epsilon ``label`` may spend now, or ConfigError when it would exceed the budget.

        Calls ``BudgetAccountant.check``; a request above the remainder by at most
        :data:`BUDGET_TOLERANCE` of the total (float rounding) is granted exactly the remainder.
        Nothing is spent here.
        """
        dpl = diffprivlib_parts()
        if delta > 0 and delta > self.delta - self.spent_delta + BUDGET_TOLERANCE * self.delta:
            left = max(self.delta - self.spent_delta, 0.0)
            raise ConfigError(
                f"Query {label!r} asks for δ = {delta:g} but only δ = {left:.6g} of the budget's "
                f"δ = {self.delta:g} remains. Lower its delta, use the Laplace mechanism (δ = 0), "
                "or start a new release with a larger delta."
            )
        delta = min(delta, max(self.delta - self.spent_delta, 0.0)) if delta > 0 else 0.0
        try:
            self.accountant.check(epsilon, delta)
            return float(epsilon)
        except ValueError as exc:
            if not isinstance(exc, dpl.BudgetError):  # e.g. an epsilon below 1e-14 of the total
                raise ConfigError(
                    f"Query {label!r}: ε = {epsilon:g} is not usable ({exc}). Give a larger epsilon."
                ) from None
            remaining = self.remaining
            if 0 < remaining and epsilon - remaining <= BUDGET_TOLERANCE * max(self.epsilon, 1.0):
                granted = remaining
                for _ in range(16):
                    try:
                        self.accountant.check(granted, delta)
                        return float(granted)
                    except dpl.BudgetError:
                        granted = float(np.nextafter(granted, 0.0))
            if remaining <= 0:
                state = f"the budget ε = {self.epsilon:g} is spent ({len(self.ledger)} queries)"
                fix = "Start a new release with a new budget to ask more."
            else:
                state = (
                    f"only ε = {remaining:.6g} of the budget ε = {self.epsilon:g} remains "
                    f"({self.spent:.6g} spent on {len(self.ledger)} queries)"
                )
                fix = f"Lower this query's epsilon to at most {remaining:.6g}, or start a new release with a larger budget."
            raise ConfigError(
                f"Query {label!r} asks for ε = {epsilon:g} but {state}. {fix}"
            ) from None

    def spend(self, label: str, epsilon: float, query_type: str = "", delta: float = 0.0) -> None:
        """Record a spend of (epsilon, delta) in the accountant and the ledger."""
        dpl = diffprivlib_parts()
        if delta > 0:  # float rounding of a sum of deltas: spend at most what remains
            delta = min(delta, max(self.delta - self.spent_delta, 0.0))
        try:
            self.accountant.spend(epsilon, delta)
        except dpl.BudgetError:
            raise ConfigError(
                f"Query {label!r} asks for ε = {epsilon:g} but only ε = {self.remaining:.6g} of the budget remains. "
                "Lower its epsilon or start a new release with a larger budget."
            ) from None
        entry = {"query": label, "type": query_type, "epsilon": float(epsilon)}
        if delta > 0:
            entry["delta"] = float(delta)
        self.ledger.append(entry)

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if x == math.inf else float(x)

        return {
            "epsilon": num(self.epsilon),
            "delta": float(self.delta),
            "spent": {"epsilon": float(self.spent), "delta": float(self.spent_delta)},
            "remaining": {
                "epsilon": num(self.remaining),
                "delta": max(float(self.delta - self.spent_delta), 0.0),
            },
            "queries": [dict(e) for e in self.ledger],
        }

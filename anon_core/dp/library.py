"""diffprivlib access and the constants every DP module shares.

diffprivlib is imported lazily (it is slow to import) and only through :func:`diffprivlib_parts`,
so the rest of the package never touches diffprivlib's global default accountant.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import numpy as np

#: The accuracy-against-epsilon grid: 0.01 to 10, log-spaced (half decades).
DEFAULT_EPSILONS = tuple(float(x) for x in np.logspace(-2, 1, 7))
#: Draws behind an empirical (quantile) expected error, and their fixed seed.
EMPIRICAL_DRAWS = 50
EMPIRICAL_SEED = 0
#: A request that exceeds the remaining budget by at most this share of the total (float
#: rounding of a sum such as 0.1 + 0.2) spends exactly the remainder instead of failing.
BUDGET_TOLERANCE = 1e-9
MAX_BINS = 10_000
#: The value of ``bounds`` / ``categories`` that takes them from the data (with a warning).
FROM_DATA = "data"


@functools.cache
def diffprivlib_parts() -> SimpleNamespace:
    """diffprivlib's pieces used here, imported once (on first use: it is slow to import)."""
    import diffprivlib.mechanisms as mechanisms
    import diffprivlib.models as models
    import diffprivlib.tools as tools
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.utils import BudgetError, PrivacyLeakWarning, check_random_state

    return SimpleNamespace(
        tools=tools,
        models=models,
        mechanisms=mechanisms,
        BudgetAccountant=BudgetAccountant,
        BudgetError=BudgetError,
        PrivacyLeakWarning=PrivacyLeakWarning,
        check_random_state=check_random_state,
    )


def scratch_accountant() -> Any:
    """An unlimited accountant for one diffprivlib call (never diffprivlib's global default).

    Budgets are kept by :class:`~anon_core.dp.budget.PrivacyBudget`, which charges each query
    once with its full epsilon; internal splits (several quantiles, a noisy count) stay inside it.
    """
    return diffprivlib_parts().BudgetAccountant()


def leak_message(label: str, what: str, reveals: str) -> str:
    """A value taken from the data instead of domain knowledge, in plain words."""
    example = (
        "the categories listed in the codebook"
        if "categor" in what or "class" in what
        else "an age from 0 to 120"
    )
    return (
        f"{label}: the {what} were taken from the data, not entered. The result then also reveals "
        f"{reveals}, which differential privacy does not protect. Enter them from domain knowledge "
        f"(for example {example}) for a full guarantee."
    )


def as_label(value: Any) -> str:
    """A category or count value as the table's labels spell it (1.0 -> "1")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

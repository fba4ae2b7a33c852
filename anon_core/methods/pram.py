"""PRAM, the post-randomization method, on categorical columns (sdcMicro's ``pram``).

Gouweleeuw, Kooiman, Willenborg and de Wolf, "Post randomisation for statistical disclosure
control: theory and implementation", J. Official Statistics 14(4), 1998; sdcMicro ``pram(pd, alpha)``.
Per column with categories 1..L and observed shares p:

* the transition matrix P has diagonal entries drawn uniformly in [retention, 1] (sdcMicro's
  ``pd``, the minimum probability of keeping a category) and spreads the rest evenly over the
  other L - 1 categories;
* ``invariant`` (default, sdcMicro's behaviour): Q is P reversed by Bayes' rule
  (Q[k, j] = P[j, k] p_j / sum_i p_i P[i, k]) and R = P Q satisfies p R = p, so the expected
  category shares of the release equal the original ones; the matrix used is
  alpha * R + (1 - alpha) * I;
* otherwise P itself is used (expected shares p P).

Every record's category is then drawn from its row of the matrix. Missing values stay missing.
With retention 1 the matrix is the identity and the release equals the input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
    select_columns,
)
from anon_core.params import Param


def transition_matrix(
    shares: np.ndarray,
    retention: float,
    invariant: bool,
    alpha: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """The L x L PRAM matrix (rows sum to 1) for categories with the given observed shares."""
    n_cat = len(shares)
    if n_cat < 2:
        return np.ones((1, 1))
    diag = rng.uniform(retention, 1.0, size=n_cat)
    p = np.repeat(((1.0 - diag) / (n_cat - 1))[:, None], n_cat, axis=1)
    np.fill_diagonal(p, diag)
    if not invariant:
        return p
    col = shares @ p  # sum_j p_j P[j, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = (p * shares[:, None]).T / col[:, None]
    q = np.nan_to_num(q)
    r = p @ q
    return alpha * r + (1.0 - alpha) * np.eye(n_cat)


def draw(codes: np.ndarray, matrix: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A new code per record drawn from its category's row (inverse CDF on one uniform each)."""
    cdf = np.cumsum(matrix, axis=1)
    cdf[:, -1] = 1.0
    u = rng.random(len(codes))
    out = (u[:, None] >= cdf[codes]).sum(axis=1)
    return np.minimum(out, matrix.shape[1] - 1)


@register_method
class Pram(ReleaseMethod):
    name = "pram"
    label = "PRAM (post-randomization)"
    params = (
        Param(
            "retention",
            "float",
            0.8,
            help="minimum probability of keeping a category (sdcMicro 'pd')",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "invariant",
            "bool",
            True,
            help="keep the expected category shares (invariant transition matrix)",
        ),
        Param(
            "alpha",
            "float",
            0.5,
            help="amount of perturbation of the invariant matrix (sdcMicro 'alpha')",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "columns",
            "columns",
            None,
            help="categorical columns (default: the categorical quasi-identifiers)",
        ),
    )
    accepts = frozenset({"categorical"})
    randomized = True
    guarantee = "none"
    protects = "Certainty about a record's categories: any released category may have been changed."
    does_not_protect = "Numeric columns; rare categories changed rarely stay rare; no formal bound."

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        retention = float(self.parameters["retention"])
        invariant = bool(self.parameters["invariant"])
        alpha = float(self.parameters["alpha"])
        columns = select_columns(self, frame, context, self.parameters["columns"])
        rng = np.random.default_rng(random_state)
        out = frame.copy()
        changed = {}
        for j, c in enumerate(columns):
            codes, categories = pd.factorize(frame[c], sort=True)
            present = codes >= 0
            counts = np.bincount(codes[present], minlength=len(categories)).astype(float)
            shares = counts / max(counts.sum(), 1.0)
            matrix = transition_matrix(shares, retention, invariant, alpha, rng)
            new = codes.copy()
            new[present] = draw(codes[present], matrix, rng)
            values = frame[c].to_numpy(copy=True)
            values[present] = np.asarray(categories)[new[present]]
            out[c] = pd.Series(values, index=frame.index, dtype=frame[c].dtype)
            changed[c] = int((new != codes).sum())
            report(progress, (j + 1) / len(columns), f"PRAM: {c}")
        return MethodOutput(
            out,
            self.guarantee,
            {"columns": columns, "changed_records": changed, "invariant": invariant},
        )

"""Additive noise on numeric columns, as sdcMicro's ``addNoise``.

Brand, "Microdata protection through noise addition", LNCS 2316, 2002; Domingo-Ferrer, Sebe and
Castella, "On the security of noise addition for privacy in statistical databases", LNCS 3050,
2004; sdcMicro ``addNoise(method = ...)``:

* ``additive``: each column independently, x + N(0, (noise/100 * sd(x))^2). The released
  standard deviation is sd(x) * sqrt(1 + (noise/100)^2); correlations shrink by the same factor.
* ``correlated``: x + N(0, noise/100 * Cov(X)) (multivariate, needs >= 2 columns). The noise has
  the data's correlation structure, so correlations are kept in expectation and every variance
  grows by the factor 1 + noise/100 (sdcMicro scales the covariance, not the standard deviation).
* ``correlated2``: x * sqrt(1 - delta^2) + delta * N((1 - sqrt(1 - delta^2)) / delta * mean(x),
  sd(x)^2) per column: means and variances are kept in expectation, correlations shrink by the
  factor 1 - delta^2 (``noise`` is not used; ``delta`` sets the amount).

Sample standard deviations and covariances use n - 1. Missing values stay missing (and are left out
of the column statistics). Released values are floats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
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

NOISE_METHODS = ("additive", "correlated", "correlated2")


@register_method
class AdditiveNoise(ReleaseMethod):
    name = "noise"
    label = "Additive noise"
    params = (
        Param(
            "noise",
            "float",
            50.0,
            help="noise standard deviation in % of each column's standard deviation (sdcMicro 'noise')",
            minimum=0.0,
        ),
        Param(
            "method",
            "choice",
            "additive",
            help="additive (independent), correlated (keeps correlations), correlated2 (keeps variances)",
            choices=NOISE_METHODS,
        ),
        Param(
            "delta",
            "float",
            0.1,
            help="amount of noise for correlated2 (0 < delta <= 1)",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "columns",
            "columns",
            None,
            help="numeric columns (default: the numeric quasi-identifiers)",
        ),
    )
    accepts = frozenset({"numeric"})
    randomized = True
    guarantee = "none"
    protects = "Exact numeric values: a released value is only near the true one."
    does_not_protect = "Categorical quasi-identifiers; outliers stay recognisable; no formal bound."

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        method = self.parameters["method"]
        noise = float(self.parameters["noise"]) / 100.0
        delta = float(self.parameters["delta"])
        columns = select_columns(self, frame, context, self.parameters["columns"])
        if method == "correlated" and len(columns) < 2:
            raise ConfigError(
                f"'method' is 'correlated', which needs at least 2 numeric columns, got {columns}; "
                "use method 'additive' or name more columns."
            )
        if method == "correlated2" and delta <= 0:
            raise ConfigError(f"'delta' must be greater than 0 for correlated2, got {delta}.")
        rng = np.random.default_rng(random_state)
        x = np.column_stack(
            [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float) for c in columns]
        )
        missing = np.isnan(x)
        n = len(x)
        if method == "additive":
            sd = np.nanstd(x, axis=0, ddof=1)
            xm = x + rng.standard_normal(x.shape) * (noise * sd)
        elif method == "correlated":
            complete = x[~missing.any(axis=1)]
            cov = np.atleast_2d(np.cov(complete, rowvar=False, ddof=1))
            xm = x + rng.multivariate_normal(np.zeros(len(columns)), noise * cov, size=n)
        else:
            d1 = np.sqrt(1.0 - delta**2)
            mean = np.nanmean(x, axis=0)
            sd = np.nanstd(x, axis=0, ddof=1)
            draw = rng.standard_normal(x.shape) * sd + (1.0 - d1) / delta * mean
            xm = x * d1 + delta * draw
        xm[missing] = np.nan
        out = frame.copy()
        for j, c in enumerate(columns):
            out[c] = xm[:, j]
        report(progress, 1.0, f"noise added to {len(columns)} column(s)")
        return MethodOutput(
            out,
            self.guarantee,
            {"columns": columns, "method": method, "noise_percent": noise * 100.0},
        )

"""Differential privacy with diffprivlib: private statistics under a privacy budget, DP models,
and utility against epsilon.

A mechanism M is epsilon-differentially private when, for every pair of neighbouring
datasets D, D' and every set S of outputs, P[M(D) in S] <= e^epsilon * P[M(D') in S]
(Dwork, McSherry, Nissim and Smith, "Calibrating noise to sensitivity in private data
analysis", TCC 2006; Dwork and Roth, "The algorithmic foundations of differential
privacy", 2014). Every figure released here comes from IBM's diffprivlib
(Holohan, Braghin, Mac Aonghusa and Levacher, "Diffprivlib: the IBM differential privacy
library", arXiv:1907.02444, 2019; https://diffprivlib.readthedocs.io); this package chooses
the mechanisms and sensitivities, keeps the accounts and explains the results. It never draws
noise itself.

Modules: ``queries`` (what may be asked), ``budget`` (the accountant), ``prepare`` (a query
bound to its table), ``noise`` (the mechanisms and their errors), ``results`` (``dp_query``),
``release`` (the ``dp`` section and ``run_dp``), ``curves`` (error against epsilon),
``models`` (diffprivlib classifiers against epsilon).

What it offers
--------------
1. **Private statistics** (:func:`dp_query`): counts, 1-D and 2-D histograms, sums, means,
   variances, quantiles and medians of chosen columns, each with its own epsilon (and, for
   the Gaussian mechanism, delta), through ``diffprivlib.tools`` and
   ``diffprivlib.mechanisms`` (:mod:`anon_core.dp.noise` states the neighbouring relation
   and sensitivity of each). No result carries the exact number of rows or values unless
   the query declares it public (``"n"``). Bounds and categories are entered by the
   user; when the user asks for them to be taken from the data instead, diffprivlib's
   ``PrivacyLeakWarning`` is turned into a plain-words :class:`~anon_core.errors.PrivacyWarning`
   (and recorded on the result): the released figure then also reveals the data's range or
   its set of categories, which the guarantee does not cover.
2. **A privacy budget** (:class:`PrivacyBudget`): one diffprivlib ``BudgetAccountant`` per
   session or release, with the total epsilon and delta set by the user. Every query is
   checked against it before it runs and spends its epsilon and delta from it afterwards
   (basic sequential composition, Dwork et al. 2006: epsilons and deltas add up; slack 0).
   A query over budget is refused with a :class:`~anon_core.errors.ConfigError` naming the
   query, the epsilon asked, the remaining budget and the fix.
3. **A DP release**: a noisy histogram or contingency table as a DataFrame
   (:meth:`DPResult.release_frame`, noisy figures only), with its epsilon and parameters
   in a ``dp`` configuration section (:meth:`DPRunResult.section`, :func:`dp_section`).
4. **DP machine learning** (:func:`dp_ml_curve`): diffprivlib's ``LogisticRegression``
   (objective perturbation, Chaudhuri, Monteleoni and Sarwate, JMLR 12, 2011),
   ``GaussianNB`` (Vaidya, Shafiq, Basu and Hong, "Differentially private naive Bayes
   classification", WI-IAT 2013) and ``RandomForestClassifier`` (Fletcher and Islam,
   "Differentially private random decision forests using smooth sensitivity", Expert
   Systems with Applications 78, 2017) against their scikit-learn counterparts: accuracy
   against epsilon over a log-spaced grid (0.01 to 10), repeated with seeds (mean and
   spread), and on the same result the non-private model trained on the k-anonymized
   release.
5. **Utility against epsilon** for the statistics (:func:`error_curve`): mean absolute and
   relative error over repeated draws at each epsilon of a grid, next to the expected error.

Neighbouring datasets and what is public
----------------------------------------
Counts, histograms, sums without a public n, means and variances without a public n, and
quantiles are DP for **add/remove-one** neighbours (one record more or fewer), so the number
of records is itself protected and never printed. A numeric query may declare its number of
values public (``"n": 1995``, checked to be exact); it then uses **replace-one** neighbours
with n known (diffprivlib's mean, var and sum) and its output shows n. Means and variances
without a public n spend ``count_share`` (default 0.25) of their epsilon on a noisy count.
Values outside the bounds are clipped to them (sums, means, variances, quantiles) or not
counted (histograms: numpy's binning; categories not listed), which biases the result but
not the guarantee. With ``"mechanism": "gaussian"`` and a ``delta`` (the section's
``delta`` must cover the sum of the queries' deltas) a count, histogram, sum, mean or
variance adds Gaussian noise instead (discrete Gaussian on counts, analytic Gaussian on
sums) and spends (epsilon, delta).

Expected error (``DPResult.expected_error``, ``error_basis`` says which formula)
-------------------------------------------------------------------------------
The mean absolute error of the noise (:func:`~anon_core.dp.noise.expected_error`): count and
bins 1/sinh(epsilon) (geometric) or sigma sqrt(2/pi) (Gaussian); sum max(|L|, |U|)/epsilon
(or (U - L)/epsilon with a public n); mean (U - L)/(n epsilon) with a public n, else a
first-order value from the noisy count and sum; var: the bounded-domain Laplace scale with a
public n (Holohan et al., JPC 10(1), 2020), else first order. Quantiles (exponential
mechanism, McSherry and Talwar, FOCS 2007) have no data-independent error: an empirical one
(50 draws against the true quantile) is shown only when compared, never in a release.

``dp`` configuration section (read by :func:`validate_dp_section`)
-------------------------------------------------------------------
``anon_core.config`` carries it unvalidated in ``ReleaseConfig.sections["dp"]``::

    "dp": {
      "epsilon": 1.0,          # total budget, finite, > 0 (required)
      "delta": 0,              # total delta in [0, 1) (default 0); Gaussian queries spend from it
      "random_state": 0,       # integer >= 0 for reproducible noise, or null (default) for fresh noise
      "compare": false,        # add the true values to the output (NOT private; default false)
      "queries": [             # run in order; their epsilons must add up to at most "epsilon"
        {"type": "count", "epsilon": 0.1},                                   # rows
        {"type": "count", "column": "sex", "value": "Female", "epsilon": 0.1, "name": "women"},
        {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90], "n": 1995},   # public n
        {"type": "sum", "column": "age", "epsilon": 0.2, "bounds": [17, 90],
         "mechanism": "gaussian", "delta": 1e-7},                                        # needs dp.delta > 0
        {"type": "sum" | "var" | "median", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "quantile", "column": "age", "quantile": [0.25, 0.75], "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "histogram", "column": "sex", "epsilon": 0.3, "categories": ["Female", "Male"]},
        {"type": "histogram", "column": "age", "epsilon": 0.3, "bounds": [17, 90], "bins": 8},
        {"type": "histogram2d", "epsilon": 0.3,
         "x": {"column": "age", "bounds": [17, 90], "bins": 8},
         "y": {"column": "sex", "categories": ["Female", "Male"]}}
      ]
    }

* ``bounds`` is ``[lower, upper]`` (lower < upper) from domain knowledge, or the string
  ``"data"`` to take the minimum and maximum from the data (a plain-words privacy warning
  says so). Numeric queries (sum, mean, var, quantile, median) need it.
* A histogram axis has either ``categories`` (a list, or ``"data"`` for the sorted distinct
  values) or ``bounds`` with ``bins`` (default 10, numpy's equal-width bins).
* ``count`` counts rows; with ``column`` the non-missing values; with ``value`` the rows
  equal to it (compared as text, as the table was read).
* Missing values are left out of numeric queries and numeric histogram axes; on a
  categorical axis they are the category ``NULL`` (list it to count them).
* ``name`` (optional) labels the result; it defaults to ``type(column)``.
* Query *i* draws its noise with the seed ``SeedSequence([random_state, i])``: distinct,
  independent noise per query, reproducible from the section. Anyone who knows the seed
  and the data layout can recompute the noise, so keep ``random_state`` secret or null
  for a real release (diffprivlib's advice: ``random_state`` is for reproducibility).

Unknown fields are errors, as everywhere in the configuration. :func:`run_dp` runs a
validated section on a table and returns :class:`DPRunResult`; ``to_dict()`` holds the
results and the budget spent.

Compatibility
-------------
diffprivlib 0.6.6 supports scikit-learn up to 1.7 (1.8 removed ``multi_class`` from
``LogisticRegression``; 1.9 also private names diffprivlib imports); pyproject.toml pins
``scikit-learn<1.8`` accordingly.
"""

from anon_core.dp.budget import PrivacyBudget
from anon_core.dp.curves import error_curve
from anon_core.dp.library import (
    BUDGET_TOLERANCE,
    DEFAULT_EPSILONS,
    EMPIRICAL_DRAWS,
    EMPIRICAL_SEED,
    FROM_DATA,
    MAX_BINS,
)
from anon_core.dp.models import DP_MODELS, DPMLResult, MLEncoding, dp_ml_curve
from anon_core.dp.noise import expected_error
from anon_core.dp.queries import (
    COUNT_SHARE,
    MECHANISMS,
    NUMERIC_TYPES,
    QUERY_TYPES,
    AxisSpec,
    DPQuery,
    parse_query,
)
from anon_core.dp.release import (
    DP_KEYS,
    DPConfig,
    DPRunResult,
    dp_section,
    run_dp,
    validate_dp_section,
)
from anon_core.dp.results import DPResult, dp_query, query_seed

__all__ = [
    "BUDGET_TOLERANCE",
    "COUNT_SHARE",
    "DEFAULT_EPSILONS",
    "DP_KEYS",
    "DP_MODELS",
    "EMPIRICAL_DRAWS",
    "EMPIRICAL_SEED",
    "FROM_DATA",
    "MAX_BINS",
    "MECHANISMS",
    "NUMERIC_TYPES",
    "QUERY_TYPES",
    "AxisSpec",
    "DPConfig",
    "DPMLResult",
    "DPQuery",
    "DPResult",
    "DPRunResult",
    "MLEncoding",
    "PrivacyBudget",
    "dp_ml_curve",
    "dp_query",
    "dp_section",
    "error_curve",
    "expected_error",
    "parse_query",
    "query_seed",
    "run_dp",
    "validate_dp_section",
]

"""MST: (epsilon, delta)-DP synthetic data from noisy marginals (McKenna, Sheldon and Miklau,
"Winning the NIST Contest: A scalable and general approach to differentially private synthetic
data", J. Privacy and Confidentiality 11(3), 2021), on Private-PGM's ``mbi`` 2.0.

With the budget converted to rho-zCDP (:func:`~anon_core.methods.dp_marginals.cdp_rho`)
and split in thirds, as in the reference:

1. every 1-way marginal is measured with the Gaussian mechanism (rho/3 shared equally);
   cells whose noisy count is below 3 standard deviations are merged into one "rare" cell
   (post-processing; a synthetic "rare" value becomes one of the merged values, uniformly);
2. a maximum spanning tree over the columns is chosen with d-1 exponential-mechanism draws
   (rho/3; each draw picks an edge joining two components, scored by the L1 distance between
   the pair's true 2-way marginal and its independence estimate from the noisy 1-way
   marginals - the reference's proxy for mutual information, sensitivity 1);
3. the tree's 2-way marginals are measured with the Gaussian mechanism (rho/3);
4. Private-PGM's mirror descent fits a graphical model to all noisy measurements (run in NumPy
   on mbi's structures, :mod:`anon_core.methods.pgm_numpy`: the same iterates as
   ``mbi.estimation.MirrorDescent`` without compiling JAX programs), and the released rows are
   sampled from it as mbi's ``synthetic_data`` does (as many as the model's noisy total unless
   ``rows`` is given).

Domains come from the configuration, never silently from the data (see
:mod:`anon_core.methods.dp_marginals`). The epsilon spent, from the accountant's rho,
never exceeds the configured epsilon. Reproducible: the noise, the selections and the sampling
are seeded from ``random_state`` (mbi samples through NumPy's global generator, which is seeded
for the call and restored after it), and the JAX estimation is deterministic on CPU.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.methods.dp_marginals import (
    Accountant,
    ColumnDomain,
    cdp_epsilon,
    cdp_rho,
    resolve_domains,
)
from anon_core.methods.pgm_numpy import mirror_descent
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    release_rows,
    report,
    rows_params,
)
from anon_core.params import Param

__all__ = [
    "DP_PARAMS",
    "MarginalSynthesizer",
    "Mst",
    "encode_table",
    "fit_and_sample",
    "numpy_seed",
]

#: Parameters shared by the marginal-based DP synthesizers.
DP_PARAMS = (
    Param("epsilon", "float", 1.0, help="privacy budget epsilon (> 0)", minimum=0.0),
    Param(
        "delta",
        "float",
        1e-6,
        help="privacy budget delta (0 < delta < 1)",
        minimum=0.0,
        maximum=1.0,
    ),
    Param(
        "bins",
        "int",
        16,
        help="bins per numeric column (equal width over its bounds)",
        minimum=2,
        maximum=1000,
    ),
    Param(
        "iters", "int", 1000, help="Private-PGM estimation iterations", minimum=50, maximum=100000
    ),
    rows_params("the model's noisy total")[0],
    Param(
        "domains",
        "mapping",
        None,
        help="per column: a list of categories or {min, max[, bins, integer]}",
    ),
    rows_params("the model's noisy total")[1],  # force_rows (last: AIM slices the tuple)
)


def check_budget(params: Mapping[str, Any]) -> None:
    """epsilon > 0 and 0 < delta < 1 (the registry checks only the closed bounds)."""
    if params["epsilon"] <= 0:
        raise ConfigError(
            f"'epsilon' must be greater than 0, got {params['epsilon']}; e.g. epsilon: 1.0."
        )
    if not 0 < params["delta"] < 1:
        raise ConfigError(
            f"'delta' must be between 0 and 1 (exclusive), got {params['delta']}; e.g. delta: 1e-6."
        )


@contextlib.contextmanager
def numpy_seed(seed: int | None) -> Iterator[None]:
    """Seed NumPy's global generator for a block (mbi samples with it) and restore it after."""
    if seed is None:
        yield
        return
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def encode_table(
    frame: pd.DataFrame, domains: Mapping[str, ColumnDomain]
) -> tuple[dict[str, np.ndarray], int]:
    """Codes per column over the declared domains, rows with any missing/outside value left out,
    and how many rows were left out."""
    codes = {c: d.encode(frame[c]) for c, d in domains.items()}
    keep = np.ones(len(frame), dtype=bool)
    for values in codes.values():
        keep &= values >= 0
    if not keep.any():
        raise DataError(
            "No row lies within the declared domains (every row has a missing value or a category "
            "outside 'domains'); check the declared categories and bounds."
        )
    return {c: v[keep] for c, v in codes.items()}, int((~keep).sum())


def jax_x64() -> Any:
    """Import JAX in 64-bit mode (mbi's estimates stall in float32 on larger tables)."""
    import jax

    jax.config.update("jax_enable_x64", True)
    # mbi compiles many small programs: the on-disk cache only costs (mbi's own advice).
    jax.config.update("jax_enable_compilation_cache", False)
    return jax


def _compress(
    y: np.ndarray, std: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """MST's domain compression of one noisy 1-way marginal: (old code -> new code, compressed
    measurement, its query weights or None, the merged old codes)."""
    keep = y >= 3.0 * std
    merged = np.flatnonzero(~keep)
    if not merged.size:
        return np.arange(len(y)), y, None, merged
    mapping = np.full(len(y), int(keep.sum()))
    mapping[keep] = np.arange(int(keep.sum()))
    scale = 1.0 / math.sqrt(merged.size)
    y2 = np.append(y[keep], y[~keep].sum() * scale)
    weights = np.ones(len(y2))
    weights[-1] = scale
    return mapping, y2, weights, merged


def fit_and_sample(
    codes: Mapping[str, np.ndarray],
    sizes: Mapping[str, int],
    measurements: list[tuple[tuple[str, ...], np.ndarray, float, np.ndarray | None]],
    iters: int,
    rows: Callable[[float], int],
    seed: int | None,
    progress: Progress | None,
    start: float,
) -> dict[str, np.ndarray]:
    """Private-PGM estimation from (clique, noisy vector, std, query weights) and sampled codes;
    ``rows(noisy total)`` says how many rows to sample."""
    jax_x64()
    import mbi

    columns = list(sizes)
    domain = mbi.Domain(columns, [sizes[c] for c in columns])
    linear = [
        mbi.LinearMeasurement(
            np.asarray(y, dtype=float),
            clique,
            float(std),
            mbi.WeightedQuery(np.asarray(w, dtype=float))
            if w is not None
            else mbi.DatavectorQuery(),
        )
        for clique, y, std, w in measurements
    ]
    steps = 50 * max(1, math.ceil(iters / 50))

    def callback(done: int) -> None:
        report(progress, start + (0.95 - start) * done / steps, "Private-PGM estimation")

    model = mirror_descent(domain, linear, iters, callback=callback)
    n = rows(float(model.total))
    with numpy_seed(seed):
        data = model.synthetic_data(n)
    return {c: np.asarray(data[c], dtype=np.int64) for c in columns}


def decode_table(
    frame: pd.DataFrame,
    domains: Mapping[str, ColumnDomain],
    codes: Mapping[str, np.ndarray],
    rng: np.random.Generator,
) -> pd.DataFrame:
    """The synthetic codes as a table of ``frame``'s columns (numeric: ints or floats)."""
    out = {}
    for col in frame.columns:
        values = domains[str(col)].decode(codes[str(col)], rng)
        out[col] = pd.Series(values, dtype=object if domains[str(col)].categories else None)
    return pd.DataFrame(out, columns=frame.columns)


def output(
    method: ReleaseMethod,
    table: pd.DataFrame,
    accountant: Accountant,
    domains: Mapping[str, ColumnDomain],
    dropped: int,
    extra: Mapping[str, Any],
) -> MethodOutput:
    """The MethodOutput of a DP synthesizer, with its accounting in ``details``."""
    eps, delta = float(method.parameters["epsilon"]), float(method.parameters["delta"])
    return MethodOutput(
        table,
        f"({eps:g}, {delta:g})-DP",
        {
            "epsilon": eps,
            "delta": delta,
            "rho": accountant.rho,
            "rho_spent": accountant.spent,
            "epsilon_spent": cdp_epsilon(accountant.spent, delta),
            "measurements": len(accountant.log),
            "mechanisms": "diffprivlib GaussianAnalytic and Exponential; zCDP accounting",
            "domains": {c: d.to_dict() for c, d in domains.items()},
            "domains_from_data": [c for c, d in domains.items() if d.source == "data"],
            "rows_outside_domains": dropped,
            **extra,
        },
    )


class MarginalSynthesizer(ReleaseMethod):
    """What the marginal-based DP synthesizers (MST, AIM) share: the guarantee, the column
    kinds, the optional dependencies and the budget check. Not registered itself."""

    accepts = frozenset({"numeric", "categorical", "date", "text"})
    synthetic = True
    randomized = True
    guarantee = "(epsilon, delta)-DP"
    protects = (
        "Every individual, formally: (epsilon, delta)-DP over all columns of the synthetic table."
    )
    extra = "synthetic"
    requires = ("mbi", "jax", "diffprivlib")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_budget(self.parameters)


@register_method
class Mst(MarginalSynthesizer):
    name = "synthetic-mst"
    label = "DP synthetic data (MST)"
    params = DP_PARAMS
    does_not_protect = (
        "Relations beyond the selected pairs of columns; domains read from the data (warned)."
    )

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        p = self.parameters
        release_rows(self, len(frame))  # a 'rows' beyond the bound fails before any measurement
        domains = resolve_domains(frame, context, p["domains"], int(p["bins"]))
        codes, dropped = encode_table(frame, domains)
        rng = np.random.default_rng(random_state) if random_state is not None else None
        budget = cdp_rho(float(p["epsilon"]), float(p["delta"]))
        # Plan a hair under the budget, so float rounding in the sums never spends more than it.
        rho = budget * (1.0 - 1e-9)
        acc = Accountant(budget, rng)
        columns = list(domains)
        d = len(columns)
        report(progress, 0.02, "MST: measuring 1-way marginals")
        rho1 = rho if d == 1 else rho / 3.0
        std1 = math.sqrt(d / (2.0 * rho1))
        mapping, sizes, merged, measurements = {}, {}, {}, []
        for c in columns:
            x = np.bincount(codes[c], minlength=domains[c].size).astype(float)
            y = acc.gaussian(x, std1, f"1-way {c}")
            mapping[c], y2, w, merged[c] = _compress(y, std1)
            sizes[c] = len(y2)
            measurements.append(((c,), y2, std1, w))
        small = {c: mapping[c][codes[c]] for c in columns}
        edges: list[tuple[str, str]] = []
        if d > 1:
            report(progress, 0.1, "MST: selecting a spanning tree")
            edges = self._select(small, sizes, measurements, acc, rho / 3.0)
            std2 = math.sqrt(len(edges) / (2.0 * (rho / 3.0)))
            for a, b in edges:
                x = np.bincount(small[a] * sizes[b] + small[b], minlength=sizes[a] * sizes[b])
                y = acc.gaussian(x.astype(float), std2, f"2-way {a} x {b}")
                measurements.append(((a, b), y, std2, None))
        report(progress, 0.2, "MST: Private-PGM estimation")
        seed = None if rng is None else int(rng.integers(2**31 - 1))
        sampled = fit_and_sample(
            small, sizes, measurements, int(p["iters"]),
            lambda total: release_rows(self, len(frame), total), seed, progress, 0.2,
        )  # fmt: skip
        draw = rng if rng is not None else np.random.default_rng()
        full = {}
        for c in columns:  # undo the compression: a "rare" cell becomes one merged value
            values = sampled[c].copy()
            if merged[c].size:
                kept = np.setdiff1d(np.arange(domains[c].size), merged[c])  # new code i -> kept[i]
                rare = values == len(kept)
                values[~rare] = kept[values[~rare]]
                values[rare] = draw.choice(merged[c], int(rare.sum()))
            full[c] = values
        table = decode_table(frame, domains, full, draw)
        report(progress, 1.0, f"MST: {len(table)} synthetic rows")
        return output(
            self, table, acc, domains, dropped, {"selected_pairs": [list(e) for e in edges]}
        )

    @staticmethod
    def _select(
        small: Mapping[str, np.ndarray],
        sizes: Mapping[str, int],
        measurements: list,
        acc: Accountant,
        rho: float,
    ) -> list[tuple[str, str]]:
        """A spanning tree chosen by d-1 exponential-mechanism draws (see the module docstring)."""
        columns = list(sizes)
        one_way = {}
        for (c,), y2, _, w in measurements:
            y = np.asarray(y2, dtype=float) / (w if w is not None else 1.0)
            one_way[c] = np.clip(y, 0, None)
        total = max(1.0, float(np.mean([y.sum() for y in one_way.values()])))
        probs = {
            c: y / y.sum() if y.sum() > 0 else np.full(len(y), 1 / len(y))
            for c, y in one_way.items()
        }
        scores = {}
        for a, b in itertools.combinations(columns, 2):
            x = np.bincount(small[a] * sizes[b] + small[b], minlength=sizes[a] * sizes[b])
            estimate = total * np.outer(probs[a], probs[b]).ravel()
            scores[a, b] = float(np.abs(x - estimate).sum())
        parent = {c: c for c in columns}

        def root(c: str) -> str:
            while parent[c] != c:
                parent[c] = parent[parent[c]]
                c = parent[c]
            return c

        eps = math.sqrt(8.0 * rho / (len(columns) - 1))
        chosen = []
        for i in range(len(columns) - 1):
            candidates = [e for e in scores if root(e[0]) != root(e[1])]
            k = acc.exponential(np.array([scores[e] for e in candidates]), eps, f"edge {i + 1}")
            a, b = candidates[k]
            parent[root(a)] = root(b)
            chosen.append((a, b))
        return chosen

"""AIM: an adaptive and iterative (epsilon, delta)-DP synthesizer (McKenna, Mullins, Sheldon and
Miklau, "AIM: An Adaptive and Iterative Mechanism for Differentially Private Synthetic Data",
PVLDB 15(11), 2022), on Private-PGM's ``mbi`` 2.0.

The workload is every set of ``degree`` columns (all pairs by default); the candidates are its
downward closure, each weighted by its overlap with the workload. With the budget as rho-zCDP
(the same accounting and mechanisms as :mod:`anon_core.methods.mst`):

1. every 1-way marginal is measured with the Gaussian mechanism, sigma = sqrt(T / (2 * 0.9 rho)),
   T = ``rounds`` (default 4 x the number of columns; the paper's 16 x plans smaller rounds, which
   costs more refits);
2. each round picks the candidate the current model answers worst with the exponential
   mechanism (epsilon_r = sqrt(8 * 0.1 rho / T); score = weight x (L1 error of the model's
   marginal - sqrt(2/pi) sigma x cells), sensitivity = the largest weight), among the candidates
   whose junction tree stays within ``max_model_size`` MB x the share of the budget used so far;
   measures it with the Gaussian mechanism and refits the model (warm start);
3. when the refit barely moves the chosen marginal (by less than its expected noise), sigma is
   halved and epsilon_r doubled (the budget per round grows x4); the last round spends exactly
   what is left, so the epsilon spent never exceeds the configured epsilon;
4. the released rows are sampled from the final model.

The data's marginals are counted once per clique (not once per round). The model is fitted, and
its marginals on the candidates computed, by Private-PGM's algorithms run in NumPy
(:mod:`anon_core.methods.pgm_numpy`) on mbi's structures: through JAX, every round's new model
structure compiled anew, which took over 90% of AIM's time on Adult, while the arithmetic of a
refit takes a fraction of a second. The released rows are sampled from the final model as mbi's
``synthetic_data`` does, also in NumPy.

Domains, binning and reproducibility as for MST (:mod:`anon_core.methods.dp_marginals`).
Each round refits the model, so AIM is slower than MST; fewer ``rounds`` (more budget per
round) make it faster.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.methods.dp_marginals import Accountant, cdp_rho, resolve_domains
from anon_core.methods.mst import (
    DP_PARAMS,
    MarginalSynthesizer,
    decode_table,
    encode_table,
    jax_x64,
    numpy_seed,
    output,
)
from anon_core.methods.pgm_numpy import mirror_descent
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    register_method,
    release_rows,
    report,
)
from anon_core.params import Param

__all__ = ["Aim", "aim_candidates"]


def aim_candidates(columns: list[str], degree: int) -> dict[tuple[str, ...], float]:
    """The workload's downward closure, each clique weighted by sum |clique & w| over workload w."""
    workload = list(itertools.combinations(columns, min(degree, len(columns))))
    out: dict[tuple[str, ...], float] = {}
    for size in range(1, min(degree, len(columns)) + 1):
        for clique in itertools.combinations(columns, size):
            out[clique] = float(sum(len(set(clique) & set(w)) for w in workload))
    return out


@register_method
class Aim(MarginalSynthesizer):
    name = "synthetic-aim"
    label = "DP synthetic data (AIM)"
    params = (
        *DP_PARAMS[:3],
        Param(
            "iters", "int", 200, help="Private-PGM iterations per round", minimum=50, maximum=100000
        ),
        *DP_PARAMS[4:],
        Param(
            "degree",
            "int",
            2,
            help="workload: every set of this many columns",
            minimum=1,
            maximum=3,
        ),
        Param("rounds", "int", None, help="T, the planned rounds (default 4 x columns)", minimum=2),
        Param(
            "max_model_size", "float", 80.0, help="largest model (MB of parameters)", minimum=1.0
        ),
    )
    does_not_protect = (
        "Relations beyond the workload's column sets; domains read from the data (warned)."
    )

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        jax_x64()
        import mbi
        from mbi.junction_tree import hypothetical_model_size

        p = self.parameters
        release_rows(self, len(frame))  # a 'rows' beyond the bound fails before any measurement
        domains = resolve_domains(frame, context, p["domains"], int(p["bins"]))
        codes, dropped = encode_table(frame, domains)
        rng = np.random.default_rng(random_state) if random_state is not None else None
        budget = cdp_rho(float(p["epsilon"]), float(p["delta"]))
        rho = budget * (1.0 - 1e-9)  # a hair under: float sums never exceed the budget
        acc = Accountant(budget, rng)
        columns = list(domains)
        domain = mbi.Domain(columns, [domains[c].size for c in columns])
        candidates = aim_candidates(columns, int(p["degree"]))
        rounds = int(p["rounds"]) if p["rounds"] is not None else 4 * len(columns)
        if rounds < len(columns):  # the 1-way marginals take 0.9 x columns / rounds of rho
            raise ConfigError(
                f"'rounds' ({rounds}) must be at least the number of columns ({len(columns)}): "
                "the 1-way marginals alone take one round's budget per column; e.g. rounds: "
                f"{4 * len(columns)} (the default, 4 x columns)."
            )
        iters = int(p["iters"])
        sigma = math.sqrt(rounds / (2 * 0.9 * rho))
        eps = math.sqrt(8 * 0.1 * rho / rounds)

        truth: dict[tuple[str, ...], np.ndarray] = {}

        def marginal(clique: tuple[str, ...]) -> np.ndarray:
            """The data's marginal on a clique, counted once (the data never changes)."""
            if clique not in truth:
                shape = [domain[c] for c in clique]
                cells = np.ravel_multi_index([codes[c] for c in clique], shape)
                truth[clique] = np.bincount(cells, minlength=math.prod(shape)).astype(float)
            return truth[clique]

        def measure(clique: tuple[str, ...], std: float) -> Any:
            x = marginal(clique)
            y = acc.gaussian(x, std, "x".join(clique))
            return mbi.LinearMeasurement(y, clique, std)

        report(progress, 0.02, "AIM: measuring 1-way marginals")
        measurements = [measure((c,), sigma) for c in columns]
        used = len(columns) * 0.5 / sigma**2
        model = mirror_descent(domain, measurements, iters)
        chosen: list[tuple[str, ...]] = []
        final = False
        while not final:
            if rho - used < 2 * (0.5 / sigma**2 + eps**2 / 8):
                remaining = rho - used
                sigma = math.sqrt(1 / (2 * 0.9 * remaining))
                eps = math.sqrt(8 * 0.1 * remaining)
                final = True
            used += eps**2 / 8 + 0.5 / sigma**2
            limit = float(p["max_model_size"]) * used / rho
            cliques = [m.clique for m in measurements]
            small = [
                cl for cl in candidates if hypothetical_model_size(domain, [*cliques, cl]) <= limit
            ] or [(c,) for c in columns]
            top = max(candidates[cl] for cl in small)
            scores = []
            for cl in small:
                error = np.abs(marginal(cl) - model.marginal(cl)).sum()
                bias = math.sqrt(2 / math.pi) * sigma * domain.size(cl)
                scores.append(candidates[cl] * (float(error) - bias) / top)
            pick = small[acc.exponential(np.array(scores), eps, f"select round {len(chosen) + 1}")]
            chosen.append(pick)
            before = model.marginal(pick)
            measurements.append(measure(pick, sigma))
            model = mirror_descent(domain, measurements, iters, warm_start=model)
            after = model.marginal(pick)
            if np.abs(after - before).sum() <= math.sqrt(2 / math.pi) * sigma * domain.size(pick):
                sigma, eps = sigma / 2, eps * 2
            report(progress, 0.05 + 0.85 * min(used / rho, 1.0), f"AIM: round {len(chosen)}")
        report(progress, 0.92, "AIM: sampling")
        seed = None if rng is None else int(rng.integers(2**31 - 1))
        n = release_rows(self, len(frame), float(model.total))
        with numpy_seed(seed):
            sampled = model.synthetic_data(n)
        draw = rng if rng is not None else np.random.default_rng()
        full = {c: np.asarray(sampled[c], dtype=np.int64) for c in columns}
        table = decode_table(frame, domains, full, draw)
        report(progress, 1.0, f"AIM: {len(table)} synthetic rows")
        return output(
            self, table, acc, domains, dropped,
            {"rounds": len(chosen), "selected_cliques": [list(c) for c in chosen]},
        )  # fmt: skip

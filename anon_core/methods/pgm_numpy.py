"""Private-PGM's estimation and inference in NumPy, for the small models of MST and AIM.

``mbi`` (Private-PGM on JAX) compiles its mirror-descent loop and message passing once per model
structure. MST fits one structure, but AIM adds a clique every round, and on Adult each compile
costs seconds of CPU while the arithmetic of a whole refit takes milliseconds: these models are
small (a few thousand cells). Here the same algorithms run in NumPy on the same structures,
which ``mbi`` still builds (junction tree, message order, clique routing, Lipschitz constant,
total estimate), so nothing is compiled:

* :func:`mirror_descent` is ``mbi.estimation.MirrorDescent`` (McKenna, Sheldon and Miklau,
  "Graphical-model based estimation and inference for differential privacy", ICML 2019,
  Algorithm 1): step size ``2 / (L x total)``, the same Armijo line search (accept when the
  loss falls by at least half the linearized decrease, then x1.01, else halve), the same number
  of steps (``iters`` rounded up to mbi's blocks of 50) and the same warm start (the previous
  potentials summed into the new cliques). The marginals come from HUGIN message passing on the
  same junction tree and message order in log space, as ``mbi.marginal_oracles`` does on CPU.
* :func:`model_marginal` is variable elimination on the log-space potentials: any marginal, in
  or out of the model's cliques.

The result matches ``mbi`` to rounding (tested against it); :meth:`PgmModel.to_mbi` hands the
fitted potentials back to ``mbi`` for sampling.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PgmModel", "mirror_descent", "model_marginal"]

Clique = tuple[str, ...]
Factor = tuple[Clique, np.ndarray]

#: mbi runs its iterations in fused blocks of this many steps (``iters`` is rounded up).
BLOCK = 50


def _aligned(scope: Clique, table: np.ndarray, target: Clique) -> np.ndarray:
    """``table`` (axes ``scope``) transposed to ``target``'s order, size 1 on missing axes."""
    order = sorted(range(len(scope)), key=lambda i: target.index(scope[i]))
    shape = [1] * len(target)
    for i in order:
        shape[target.index(scope[i])] = table.shape[i]
    return np.transpose(table, order).reshape(shape)


def _logsumexp(table: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """log(sum(exp(table))) over ``axes`` (dropped), without overflow."""
    if not axes:
        return table
    peak = table.max(axis=axes, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        summed = np.log(np.exp(table - peak).sum(axis=axes))
    return summed + np.squeeze(peak, axis=axes)


def _project(scope: Clique, table: np.ndarray, target: Clique) -> np.ndarray:
    """The sum of ``table`` over the axes not in ``target``, in ``target``'s order."""
    axes = tuple(i for i, a in enumerate(scope) if a not in target)
    kept = tuple(a for a in scope if a in target)
    summed = table.sum(axis=axes) if axes else table
    return np.transpose(summed, [kept.index(a) for a in target])


def _smallest(container: Sequence[Clique], clique: Clique, size: Callable[[Clique], int]) -> Clique:
    """The first smallest clique of ``container`` that includes ``clique`` (mbi's rule)."""
    if clique in container:
        return clique
    return min((c for c in container if set(clique) <= set(c)), key=size)


def model_marginal(factors: Sequence[Factor], query: Sequence[str], total: float) -> np.ndarray:
    """The marginal on ``query`` (axes in the query's order, summing to ``total``) of the model
    proportional to exp(sum of ``factors``), each a (scope, log-space table) pair.

    Variable elimination: the variable whose elimination makes the smallest table goes first;
    the factors that mention it are summed and it is log-sum-exp'ed out.
    """
    query = tuple(query)
    sizes: dict[str, int] = {}
    for scope, table in factors:
        if np.ndim(table) != len(scope):
            raise ValueError(f"A table of shape {np.shape(table)} cannot have scope {scope}.")
        sizes.update(zip(scope, np.shape(table), strict=True))
    missing = [a for a in query if a not in sizes]
    if missing:
        raise ValueError(f"The model has no attribute {missing}.")
    work = [(tuple(scope), np.asarray(table, dtype=float)) for scope, table in factors]
    others = sorted({a for scope, _ in work for a in scope} - set(query))

    def union(z: str) -> Clique:
        return tuple(dict.fromkeys(a for scope, _ in work if z in scope for a in scope))

    while others:
        z = min(others, key=lambda a: math.prod(sizes[b] for b in union(a)))
        scope = union(z)
        joint = sum((_aligned(s, t, scope) for s, t in work if z in s), np.zeros(()))
        work = [(s, t) for s, t in work if z not in s]
        work.append((tuple(a for a in scope if a != z), _logsumexp(joint, (scope.index(z),))))
        others.remove(z)
    joint = np.zeros([sizes[a] for a in query])
    for scope, table in work:
        joint = joint + _aligned(scope, table, query)
    probs = np.exp(joint - joint.max())
    return probs * (float(total) / probs.sum())


class _Tree:
    """mbi's junction tree of ``cliques``, and HUGIN message passing on it in NumPy."""

    def __init__(self, domain: Any, cliques: list[Clique]) -> None:
        from mbi import junction_tree
        from mbi.clique_utils import reverse_clique_mapping

        tree, self.elimination = junction_tree.make_junction_tree(domain, cliques)
        self.nodes = [tuple(m) for m in tree.nodes]
        self.cliques = cliques
        self.order = junction_tree.message_passing_order(tree)
        self.maximal = [tuple(m) for m in junction_tree.maximal_cliques(tree)]
        self.routes = reverse_clique_mapping(self.maximal, cliques, domain=domain)
        self.shapes = {m: tuple(domain[a] for a in m) for m in self.maximal}
        self.home = {cl: _smallest(self.maximal, cl, domain.size) for cl in cliques}

    def marginals(self, potentials: dict[Clique, np.ndarray], total: float) -> dict:
        """The model's marginals on ``cliques``, summing to ``total``."""
        beliefs = self.beliefs(potentials, total)
        return {cl: _project(self.home[cl], beliefs[self.home[cl]], cl) for cl in self.cliques}

    def beliefs(self, potentials: dict[Clique, np.ndarray], total: float) -> dict:
        """The model's marginals on the junction tree's cliques, summing to ``total``."""
        beliefs = {}
        for m in self.maximal:
            belief = np.zeros(self.shapes[m])
            for cl in self.routes[m]:
                belief = belief + _aligned(cl, potentials[cl], m)
            beliefs[m] = belief
        messages: dict[tuple[Clique, Clique], np.ndarray] = {}  # axes in the sender's order
        for i, j in self.order:
            tau = beliefs[i]
            if (j, i) in messages:
                tau = tau - _aligned(tuple(a for a in j if a in i), messages[j, i], i)
            message = _logsumexp(tau, tuple(k for k, a in enumerate(i) if a not in j))
            messages[i, j] = message
            beliefs[j] = beliefs[j] + _aligned(tuple(a for a in i if a in j), message, j)
        log_total = math.log(total)
        for m, belief in beliefs.items():
            beliefs[m] = np.exp(
                belief + (log_total - _logsumexp(belief, tuple(range(belief.ndim))))
            )
        return beliefs


@dataclass
class PgmModel:
    """A fitted model: log-space potentials and marginals on the loss's cliques, and its total."""

    domain: Any  # mbi.Domain
    potentials: dict[Clique, np.ndarray]
    marginals: dict[Clique, np.ndarray]
    total: float

    def factors(self) -> list[Factor]:
        return list(self.potentials.items())

    def marginal(self, query: Sequence[str]) -> np.ndarray:
        """The model's marginal on ``query``, flattened (the order of ``mbi``'s datavector)."""
        return model_marginal(self.factors(), query, self.total).ravel()

    def synthetic_data(self, rows: int | None = None) -> dict[str, np.ndarray]:
        """Codes of ``rows`` (default: the total) records drawn from the model by randomized
        rounding, column by column in the reverse elimination order, each conditioned on the
        columns drawn before it that share a junction-tree clique with it: ``mbi``'s
        ``MarkovRandomField.synthetic_data(rows)`` in NumPy, with NumPy's global generator (seed
        it for a reproducible draw). One difference: the conditioning columns are taken in the
        elimination order, where mbi takes them in a Python set's order, which changes from
        process to process with string hashing."""
        domain = self.domain
        total = max(1, int(rows or self.total))
        tree = _Tree(domain, list(self.potentials))
        beliefs = tree.beliefs(self.potentials, self.total)

        def project(attrs: Clique) -> np.ndarray:
            home = _smallest(tree.nodes, attrs, domain.size)
            return _project(home, beliefs[home], attrs)

        order = list(tree.elimination)[::-1]
        data = {order[0]: _rounded(project((order[0],)), total)}
        for col in order[1:]:
            near = set().union(*[cl for cl in tree.nodes if col in cl])
            proj = tuple(a for a in order if a in data and a in near)
            if proj:
                data[col] = _conditional(
                    np.stack([data[a] for a in proj], -1), project((*proj, col))
                )
            else:
                data[col] = _rounded(project((col,)), total)
        return data

    def to_mbi(self) -> Any:
        """The same model as an ``mbi.MarkovRandomField`` (for its ``synthetic_data``)."""
        import jax.numpy as jnp
        from mbi import CliqueVector, Factor, MarkovRandomField

        def vector(tables: dict[Clique, np.ndarray]) -> Any:
            return CliqueVector(
                self.domain,
                list(tables),
                {cl: Factor(self.domain.project(cl), jnp.asarray(t)) for cl, t in tables.items()},
            )

        return MarkovRandomField(
            potentials=vector(self.potentials), marginals=vector(self.marginals), total=self.total
        )


def _rounded(counts: np.ndarray, total: int) -> np.ndarray:
    """``total`` values with the shares of ``counts``, by randomized rounding, shuffled."""
    counts = np.asarray(counts, dtype=np.float64)
    options = np.arange(counts.size, dtype=np.min_scalar_type(counts.size))
    counts = counts * (total / counts.sum())
    frac, integ = np.modf(counts)
    integ = integ.astype(int)
    extra = total - integ.sum()
    if extra > 0:
        integ[np.random.choice(options, extra, False, frac / frac.sum())] += 1
    values = np.repeat(options, integ)
    np.random.shuffle(values)
    return values


def _conditional(parents: np.ndarray, joint: np.ndarray) -> np.ndarray:
    """One value per row of ``parents`` from ``joint``'s conditional distribution given them
    (last axis), stratified within each group of equal parents (mbi's randomized rounding)."""
    total, size = len(parents), joint.shape[-1]
    above = joint.sum(axis=-1, keepdims=True)
    cdfs = np.divide(joint, above, out=np.zeros_like(joint), where=above != 0).cumsum(axis=-1)
    uniques, inverse, counts = np.unique(parents, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    perm = np.argsort(inverse, kind="stable")
    starts = np.zeros(len(counts), dtype=int)
    np.cumsum(counts[:-1], out=starts[1:])
    for start, count in zip(starts, counts, strict=True):
        np.random.shuffle(perm[start : start + count])  # no link to the earlier columns' order
    ranks = np.empty(total, dtype=int)
    ranks[perm] = np.arange(total) - starts[inverse[perm]]
    u = (ranks + np.random.rand(total)) / counts[inverse]
    group_cdfs = cdfs[tuple(uniques.T)]
    choices = np.empty(total, dtype=np.min_scalar_type(size))
    u_sorted = u[perm]
    for i, (start, count) in enumerate(zip(starts, counts, strict=True)):
        picked = np.searchsorted(group_cdfs[i], u_sorted[start : start + count], side="right")
        choices[perm[start : start + count]] = np.minimum(picked, size - 1)
    return choices


def _terms(measurements: list, cliques: list[Clique], domain: Any) -> list:
    """Per measurement: its clique, the loss clique it reads, shape, noisy values, std, weights."""
    from mbi.marginal_loss import DatavectorQuery, WeightedQuery

    out = []
    for m in measurements:
        if isinstance(m.query, WeightedQuery):
            weights = np.asarray(m.query.weights, dtype=float)
        elif isinstance(m.query, DatavectorQuery):
            weights = None
        else:
            raise TypeError(f"Unsupported query {type(m.query).__name__} in a measurement.")
        clique = tuple(m.clique)
        out.append(
            (
                clique,
                _smallest(cliques, clique, domain.size),
                tuple(domain[a] for a in clique),
                np.asarray(m.noisy_measurement, dtype=float).ravel(),
                max(float(m.stddev), 1e-12),
                weights,
            )
        )
    return out


def mirror_descent(
    domain: Any,
    measurements: list,
    iters: int,
    warm_start: PgmModel | None = None,
    callback: Callable[[int], None] | None = None,
) -> PgmModel:
    """``mbi.estimation.MirrorDescent().estimate(domain, measurements, iters=iters,
    warm_start=...)`` in NumPy (see the module docstring). ``measurements`` are
    ``mbi.LinearMeasurement`` with identity or weighted queries; ``callback(steps done)`` is
    called after every block of steps."""
    from mbi.estimation import minimum_variance_unbiased_total
    from mbi.marginal_loss import from_linear_measurements

    total = minimum_variance_unbiased_total(measurements)
    loss_fn = from_linear_measurements(measurements, domain)
    cliques = [tuple(cl) for cl in loss_fn.cliques]
    tree = _Tree(domain, cliques)
    terms = _terms(measurements, cliques, domain)
    shapes = {cl: tuple(domain[a] for a in cl) for cl in cliques}
    theta = {cl: np.zeros(shapes[cl]) for cl in cliques}
    if warm_start is not None:
        from mbi.clique_utils import reverse_clique_mapping

        routes = reverse_clique_mapping(cliques, list(warm_start.potentials), domain=domain)
        for cl in cliques:
            for old in routes[cl]:
                theta[cl] = theta[cl] + _aligned(old, warm_start.potentials[old], cl)

    def loss_and_grad(mu: dict) -> tuple[float, dict]:
        loss, grad = 0.0, {cl: np.zeros(shapes[cl]) for cl in cliques}
        for clique, home, shape, y, std, weights in terms:
            x = _project(home, mu[home], clique).ravel()
            diff = ((x if weights is None else x * weights) - y) / std
            loss += 0.5 * float(diff @ diff)
            g = diff / std if weights is None else diff / std * weights
            grad[home] = grad[home] + _aligned(clique, g.reshape(shape), home)
        return loss, grad

    alpha = 2.0 / (float(loss_fn.lipschitz) * total)
    mu = tree.marginals(theta, total)
    loss, grad = loss_and_grad(mu)
    blocks = math.ceil(iters / BLOCK)
    for block in range(blocks):
        for _ in range(BLOCK):
            theta2 = {cl: theta[cl] - alpha * grad[cl] for cl in cliques}
            mu2 = tree.marginals(theta2, total)
            loss2, grad2 = loss_and_grad(mu2)
            decrease = sum(float(np.vdot(grad[cl], mu[cl] - mu2[cl])) for cl in cliques)
            if loss - loss2 >= 0.5 * alpha * decrease:
                alpha, theta, mu, loss, grad = 1.01 * alpha, theta2, mu2, loss2, grad2
            else:
                alpha = 0.5 * alpha
        if callback is not None:
            callback((block + 1) * BLOCK)
    return PgmModel(domain, theta, mu, total)

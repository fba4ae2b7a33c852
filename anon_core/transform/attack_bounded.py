"""Risk-bounded search: the lowest-loss transformation whose measured attack risk passes.

The ``attack-risk`` model (:mod:`anon_core.privacy.attack_risk`) is not monotonic, so the lattice
search cannot prune with it. This search

0. runs the plain lattice search under the *other* models: its optimum and ties hold the first
   candidate of the order below; if that candidate's attacks pass it is the optimum (the common
   case, and as fast as the plain search plus one attack run);
1. otherwise evaluates every node of the (restricted) lattice under the other models,
   suppression limit and metric (the attack is never needed for a node that already fails them);
2. orders the nodes that satisfy them best-first: lowest quality value, then lowest sum of
   levels, then the levels themselves (a total, deterministic order);
3. runs each attack-risk model's attack on them in that order (released part generalized and
   suppressed as the node says, original and control records generalized the same way, the
   model's seed and n_attacks), caching results per transformation, and stops at the first node
   where every attack passes. That node is the optimum: no node of lower quality passes.

Nodes whose attack was not run are recorded as not satisfied: the search never reports
``attack-risk`` as satisfied without having measured it.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from anon_core.attacks.battery import attack_inputs
from anon_core.attacks.inference import inference
from anon_core.attacks.linkability import linkability
from anon_core.attacks.results import AttackResult
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.split import AttackSection, default_aux_columns, split_frame
from anon_core.data.dataset import Dataset
from anon_core.data.frequency import FrequencyTable
from anon_core.errors import ConfigError
from anon_core.privacy.attack_risk import AttackRisk, AttackRiskContext
from anon_core.privacy.models import make_model
from anon_core.search.evaluate import Evaluator, ModelStatus, TransformationResult
from anon_core.search.lattice import (
    DEFAULT_EXACT_LIMIT,
    Lattice,
    NodeRecord,
    SearchResult,
    level_bounds,
    search,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AttackCheck:
    """One attack measured on one candidate transformation."""

    levels: tuple[int, ...]
    model: str
    risk: float
    ci: tuple[float, float]
    bound: float
    threshold: float
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": list(self.levels),
            "model": self.model,
            "risk": self.risk,
            "ci": [self.ci[0], self.ci[1]],
            "bound": self.bound,
            "threshold": self.threshold,
            "passed": self.passed,
        }


@dataclass(frozen=True, eq=False)
class AttackBoundedResult(SearchResult):
    """A search result plus every attack run, in the order the search ran them."""

    attack_checks: tuple[AttackCheck, ...] = ()

    def summary(self) -> dict:
        out = super().summary()
        out["attack_checks"] = len(self.attack_checks)
        return out


def attack_models(evaluator: Evaluator) -> list[AttackRisk]:
    return [m for m in evaluator.models if isinstance(m, AttackRisk)]


def require_context(model: AttackRisk) -> AttackRiskContext:
    """The model's bound control set, or the one-line error saying how to give one."""
    if model.context is None:
        raise ConfigError(
            "The attack-risk model needs a control set of records that were never released: run "
            "'anon-core anonymize CONFIG' or 'anon-core attack CONFIG' (they split the input as the "
            "'attack' section says) or bind one with AttackRisk.bind(control)."
        )
    return model.context


def measure_attack(
    model: AttackRisk, evaluator: Evaluator, result: TransformationResult
) -> AttackResult:
    """The model's attack on the release of ``result`` (cached per transformation in the model's context)."""
    context = require_context(model)
    key = tuple(int(v) for v in result.levels)
    cached = context.cache.get(key)
    if cached is not None:
        return cached
    dataset = evaluator.freq.dataset
    inputs = attack_inputs(dataset, result, context.control)
    if len(inputs.released) == 0:
        raise ConfigError("The release has no records (everything suppressed): nothing to attack.")
    common = {"n_attacks": model.n_attacks, "random_state": model.random_state}
    if model.attack == "singling-out-multivariate":
        out = singling_out(
            inputs.original,
            inputs.released,
            inputs.control,
            mode="multivariate",
            max_attempts=model.max_attempts,
            **common,
        )
    elif model.attack == "linkability":
        aux = default_aux_columns(inputs.qis)
        out = linkability(
            inputs.original,
            inputs.released,
            inputs.control,
            aux_columns=(list(aux[0]), list(aux[1])),
            **common,
        )
    else:
        secret = model.secret or inputs.sensitive[0]
        out = inference(inputs.original, inputs.released, inputs.control, secret=secret, **common)
    if model.confidence is not None and abs(out.confidence - model.confidence) > 1e-12:
        out = _with_confidence(out, model.confidence)
    context.cache[key] = out
    return out


def _with_confidence(result: AttackResult, confidence: float) -> AttackResult:
    """The same attack with its interval at another confidence (anonymeter's propagation)."""
    from anon_core.attacks.stats import residual_risk

    risk, ci = residual_risk(result.attack_rate, result.control_rate, confidence)
    return replace(result, risk=risk, ci=ci, confidence=confidence)


def _nodes(
    evaluator: Evaluator,
    min_levels: Mapping[str, int] | None,
    max_levels: Mapping[str, int] | None,
) -> Lattice:
    lower, upper = level_bounds(evaluator, min_levels, max_levels)
    return Lattice(lower, upper)


def _sub_evaluator(evaluator: Evaluator) -> Evaluator:
    others = [m for m in evaluator.models if not isinstance(m, AttackRisk)]
    return Evaluator(evaluator.freq, others, evaluator.suppression_limit, evaluator.metric)


def _with_attacks(
    result: TransformationResult, checks: Sequence[AttackCheck], models: Sequence[AttackRisk]
) -> TransformationResult:
    passed = all(c.passed for c in checks)
    statuses = result.models + tuple(
        ModelStatus(repr(m), c.passed, 0 if c.passed else result.equivalence_classes, 0)
        for m, c in zip(models, checks, strict=True)
    )
    return replace(result, satisfied=bool(result.satisfied and passed), models=statuses)


def check_attacks(
    evaluator: Evaluator, result: TransformationResult
) -> tuple[TransformationResult, tuple[AttackCheck, ...]]:
    """Run every attack-risk model on ``result`` (a result of the other models); the result with
    the attack-risk models' statuses added and ``satisfied`` only if every attack passes."""
    models = attack_models(evaluator)
    checks = []
    for m in models:
        out = measure_attack(m, evaluator, result)
        checks.append(
            AttackCheck(
                levels=tuple(int(v) for v in result.levels),
                model=repr(m),
                risk=float(out.risk),
                ci=(float(out.ci[0]), float(out.ci[1])),
                bound=m.bound_value(out.risk, out.ci),
                threshold=float(m.threshold),
                passed=m.passes(out.risk, out.ci),
            )
        )
    return _with_attacks(result, checks, models), tuple(checks)


def evaluate_with_attacks(
    evaluator: Evaluator, transformation: Mapping[str, int] | Sequence[int]
) -> TransformationResult:
    """Evaluate one transformation under every model, running the attacks of the attack-risk ones
    (the plain evaluator cannot; it reports them unsatisfied)."""
    sub = _sub_evaluator(evaluator)
    result = sub.evaluate(transformation)
    if not result.satisfied or result.suppressed_records >= evaluator.freq.n_records:
        return _with_attacks(
            result,
            [
                AttackCheck(
                    tuple(result.levels),
                    repr(m),
                    math.nan,
                    (math.nan, math.nan),
                    math.nan,
                    m.threshold,
                    False,
                )
                for m in attack_models(evaluator)
            ],
            attack_models(evaluator),
        )
    return check_attacks(evaluator, result)[0]


def _key(levels: Sequence[int], quality: float) -> tuple:
    """The best-first order of candidates: quality, then sum of levels, then the levels."""
    return (quality, sum(levels), tuple(levels))


def _first_candidate(
    sub: Evaluator,
    min_levels: Mapping[str, int] | None,
    max_levels: Mapping[str, int] | None,
    exact_limit: int,
    evaluator: Evaluator,
) -> tuple[TransformationResult, tuple[AttackCheck, ...], SearchResult] | None:
    """The plain search's optimum under the other models and its ties give the first candidate
    of the best-first order (every node of the lowest quality); its attacks are run and cached.
    None when nothing satisfies the other models."""
    plain = search(sub, min_levels=min_levels, max_levels=max_levels, exact_limit=exact_limit)
    if plain.optimum is None or plain.heuristic:
        return None
    options = [tuple(int(v) for v in plain.optimum.levels)]
    options += [tuple(int(t[q]) for q in sub.freq.qis) for t in plain.ties]
    scored = [(lv, sub.assess(lv, with_quality=True)) for lv in options]
    best = min(
        (lv for lv, a in scored if a[0] and a[2] < sub.freq.n_records),
        key=lambda lv: _key(lv, dict(scored)[lv][1]),
        default=None,
    )
    if best is None:
        return None
    full, found = check_attacks(evaluator, sub.evaluate(best, validate=False))
    return full, found, plain


def attack_bounded_search(
    evaluator: Evaluator,
    min_levels: Mapping[str, int] | None = None,
    max_levels: Mapping[str, int] | None = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    progress: Callable[[float], None] | None = None,
    **_: Any,
) -> AttackBoundedResult:
    """The lowest-quality transformation satisfying every model, attack-risk included (module docstring)."""
    t0 = time.perf_counter()
    models = attack_models(evaluator)
    if not models:
        raise ConfigError(
            "attack_bounded_search needs an 'attack-risk' model among the privacy models."
        )
    for m in models:
        require_context(m)
    lattice = _nodes(evaluator, min_levels, max_levels)
    if lattice.size > exact_limit:
        raise ConfigError(
            f"The lattice has {lattice.size} transformations, more than 'search.exact_limit' ({exact_limit}); "
            "the risk-bounded search checks every one. Narrow it with 'search.min_levels'/'search.max_levels'."
        )
    sub = _sub_evaluator(evaluator)
    n_records = evaluator.freq.n_records
    quick = _first_candidate(sub, min_levels, max_levels, exact_limit, evaluator)
    if quick is not None:
        full, found, plain = quick
        if full.satisfied:  # the first candidate of the best-first order passes: done
            passed = tuple(int(v) for v in full.levels)
            if progress is not None:
                progress(1.0)
            return AttackBoundedResult(
                optimum=full,
                ties=(),
                nodes_checked=plain.nodes_checked,
                lattice_size=lattice.size,
                search_ms=(time.perf_counter() - t0) * 1e3,
                heuristic=False,
                evaluated=tuple(
                    replace(r, satisfied=tuple(r.levels) == passed) for r in plain.evaluated
                ),
                qis=tuple(evaluator.freq.qis),
                attack_checks=found,
            )
    nodes = lattice.nodes()
    assessed = []
    for i, row in enumerate(nodes):
        levels = tuple(int(v) for v in row)
        ok, quality, suppressed, classes, smallest = sub.assess(levels, with_quality="satisfied")
        assessed.append(
            (levels, ok and suppressed < n_records, quality, suppressed, classes, smallest)
        )
        if progress is not None and i % 64 == 0:
            progress(0.5 * i / len(nodes))
    candidates = sorted((a for a in assessed if a[1]), key=lambda a: _key(a[0], a[2]))
    passed_levels: set[tuple[int, ...]] = set()
    checks: list[AttackCheck] = []
    optimum = None
    for i, cand in enumerate(candidates):
        result = sub.evaluate(cand[0], validate=False)
        full, found = check_attacks(evaluator, result)
        checks.extend(found)
        if progress is not None:
            progress(0.5 + 0.5 * (i + 1) / len(candidates))
        if full.satisfied:
            optimum = full
            passed_levels.add(cand[0])
            break
    records = tuple(
        NodeRecord(
            levels=levels,
            satisfied=levels in passed_levels,
            quality=quality,
            suppressed_records=suppressed,
            equivalence_classes=classes,
            highest_risk=1.0 / smallest if smallest else 0.0,
            average_risk=classes / (n_records - suppressed) if n_records > suppressed else 0.0,
        )
        for levels, _, quality, suppressed, classes, smallest in assessed
    )
    if progress is not None:
        progress(1.0)
    log.info(
        "risk-bounded search: %d nodes, %d candidates, %d attacks run",
        len(nodes),
        len(candidates),
        len(checks),
    )
    return AttackBoundedResult(
        optimum=optimum,
        ties=(),
        nodes_checked=len(nodes),
        lattice_size=lattice.size,
        search_ms=(time.perf_counter() - t0) * 1e3,
        heuristic=False,
        evaluated=records,
        qis=tuple(evaluator.freq.qis),
        attack_checks=tuple(checks),
    )


def candidate_risks(
    frame: pd.DataFrame,
    roles: Mapping[str, Any],
    hierarchies: Mapping[str, Any],
    transformations: Sequence[Mapping[str, int]],
    attack: str,
    section: AttackSection,
    *,
    models: Sequence[Any] = (),
    suppression_limit: float = 0.0,
    metric: Any = None,
    progress: Callable[[float, str], None] | None = None,
) -> list[AttackCheck]:
    """One attack's risk on each of several candidate transformations (the Explore page's colours).

    The input is split once as ``section`` says; each transformation is evaluated on the released
    part with the other ``models`` and attacked like the ``attack-risk`` model would (same seed and
    n_attacks for all, so the figures compare). ``threshold`` 1 is used, so ``passed`` is always
    True; read ``risk`` and ``ci``.
    """
    part, control = split_frame(frame, section.control_fraction, section.random_state)
    dataset = Dataset(part, roles, hierarchies)
    others = [m for m in models if not m.needs_records]
    ev = Evaluator(FrequencyTable(dataset), others, suppression_limit, metric)
    model = make_model(
        {
            "model": "attack-risk",
            "attack": attack,
            "threshold": 1.0,
            "n_attacks": section.n_attacks,
            "random_state": section.random_state,
        }
    )
    assert isinstance(model, AttackRisk)
    model.bind(control)
    out = []
    for i, levels in enumerate(transformations):
        if progress is not None:
            progress(i / max(len(transformations), 1), f"attacking candidate {i + 1}")
        result = ev.evaluate(dict(levels))
        r = measure_attack(model, ev, result)
        out.append(
            AttackCheck(
                tuple(int(v) for v in result.levels),
                repr(model),
                float(r.risk),
                (float(r.ci[0]), float(r.ci[1])),
                float(r.risk),
                1.0,
                True,
            )
        )
    if progress is not None:
        progress(1.0, "done")
    return out


__all__ = [
    "candidate_risks",
    "AttackBoundedResult",
    "AttackCheck",
    "attack_bounded_search",
    "attack_models",
    "check_attacks",
    "evaluate_with_attacks",
    "measure_attack",
]

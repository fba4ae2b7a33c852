"""The evidence a release report renders: every figure of ``anon-core anonymize --report``.

:func:`report_evidence` runs the engine once for a generalization's transformation: the released
table and its fingerprint, the hierarchies at the chosen levels, the privacy models' status, risk
before and after, attribute disclosure, quality and distributions, the release method and its
guarantee, the population figures and (with an ``attack`` section) the attack battery on the
configuration's seeded split. :func:`rerun_report_evidence` is what ``verify`` re-runs: the same
problem and transformation, chosen the way the report says, through the same function.

The report (:mod:`anon_core.report`) renders a :class:`ReportEvidence`; it computes nothing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.search.evaluate import TransformationResult
from anon_core.search.lattice import SearchResult
from anon_core.services.release import sha256_of_table
from anon_core.transform.problem import Problem


@dataclass(frozen=True, eq=False)
class ReportEvidence:
    """What a release report shows, computed (plain values, engine summaries as dicts).

    ``released_table`` is the released table in memory (None when a scale engine streamed it to a
    file); ``hierarchy_codes`` holds, per quasi-identifier, its original values, the records per
    value and each value's released label index (the report names only values held by enough
    records); ``attacks`` is the battery's report (None without an ``attack`` section)."""

    engine: str
    grouped: bool
    n_rows: int
    input_columns: list[str]
    input_table_sha256: str | None
    released_table: pd.DataFrame | None = field(repr=False)
    released_rows: int
    released_columns: list[str]
    released_sha256: str | None
    suppressed_records: str
    roles: dict[str, str]
    hierarchy_files: dict[str, tuple[str, bytes]] = field(repr=False)
    hierarchies: dict[str, dict[str, Any]]
    hierarchy_codes: dict[str, tuple[list[str], np.ndarray, np.ndarray]] = field(repr=False)
    privacy: dict[str, Any]
    transformation: dict[str, Any]
    risk_before: dict[str, Any]
    risk_after: dict[str, Any]
    disclosure: dict[str, Any]
    quality: dict[str, Any]
    distributions: dict[str, Any]
    distribution_table: pd.DataFrame = field(repr=False)
    method: dict[str, Any]
    population: dict[str, Any] | None
    attacks: Any
    search_ms: float | None


def check_matches(config: ReleaseConfig, problem: Any, result: Any) -> None:
    """Refuse a problem or transformation that is not the configuration's (one clear message)."""
    if not isinstance(problem, Problem):
        raise ConfigError(f"'problem' must be an anon_core.Problem, got {type(problem).__name__}.")
    if not isinstance(result, TransformationResult):
        raise ConfigError(
            "'result' must be a TransformationResult (problem.evaluate(...) or problem.search().optimum); "
            f"got {type(result).__name__}. Without a transformation there is nothing to report."
        )
    qis = {n for n, r in config.roles.items() if r == Role.QUASI_IDENTIFIER}
    if qis != set(problem.freq.qis) or not math.isclose(
        config.suppression_limit, problem.evaluator.suppression_limit, rel_tol=0, abs_tol=1e-15
    ):
        raise ConfigError(
            "'problem' was not built from this configuration (quasi-identifiers or suppression limit differ). "
            "Build it with Problem.from_config(config)."
        )


def _hierarchy_source(spec: Mapping[str, Any] | None) -> str:
    if spec is None:
        return "default for the column's kind"
    if "file" in spec:
        return f"file {Path(str(spec['file'])).name}"
    if "builder" in spec:
        return f"builder {spec['builder']}"
    return "inline table"


def _risk_figures(report: Any) -> dict[str, Any]:
    from anon_core.risk.reidentification import report_dict

    out = report_dict(report)
    pop = report.population
    out["suppressed_records"] = int(report.suppressed_records)
    out["sample_uniques_share"] = report.sample_uniques_share
    out["population_uniqueness"].update(
        population_size=int(pop.population_size),
        sampling_fraction=pop.sampling_fraction,
        dankar_model=pop.dankar_model,
    )
    return out


def _pareto_frontier(problem: Problem, search_result: SearchResult) -> list[dict[str, Any]]:
    """The search's Pareto frontier over every node it checked, with the quality of each computed
    (the nodes the search merely tagged are scored first)."""
    from anon_core.search.lattice import score_tradeoff

    rows = score_tradeoff(problem.evaluator, search_result)
    scored = dataclasses.replace(
        search_result,
        evaluated=tuple(
            dataclasses.replace(rec, quality=row["quality"])
            for rec, row in zip(search_result.evaluated, rows, strict=True)
        ),
    )
    return scored.pareto_frontier("average_risk")


def _selection(
    problem: Problem,
    result: TransformationResult,
    search_result: SearchResult | None,
    config: ReleaseConfig,
) -> dict:
    optimum = None if search_result is None else search_result.optimum
    if optimum is None or dict(optimum.transformation) != dict(result.transformation):
        return {"method": "configured"}
    return {
        "method": "search",
        "search_options": config.search,
        "heuristic": bool(search_result.heuristic),
        "nodes_checked": int(search_result.nodes_checked),
        "lattice_size": int(search_result.lattice_size),
        "ties": [dict(t) for t in search_result.ties],
        "pareto_frontier": _pareto_frontier(problem, search_result),
    }


def method_figures(config: ReleaseConfig, result: TransformationResult) -> dict[str, Any]:
    """The release method (generalization unless the configuration's ``method`` says otherwise),
    its parameters and the guarantee it gives (a method whose guarantee is the configuration's
    privacy models reports the models the transformation holds)."""
    from anon_core.methods.config import method_section

    chosen = method_section(config)
    method = chosen.method
    guarantee = method.guarantee
    if method.guarantee_from_models:
        guarantee = "; ".join(s.model for s in result.models) or "none"
    return {
        "name": method.name,
        "label": method.label,
        "parameters": {k: v for k, v in method.parameters.items() if v is not None},
        "random_state": chosen.random_state,
        "guarantee": guarantee,
        "protects": method.protects,
        "does_not_protect": method.does_not_protect,
    }


def population_figures(
    config: ReleaseConfig, problem: Problem, result: TransformationResult
) -> dict[str, Any]:
    """Journalist risk's basis (population table or not), survey-weighted risk and SUDA2."""
    from anon_core.risk.population_report import population_matcher, release_extras
    from anon_core.risk.reidentification import report_dict, risk_of_result

    matcher = population_matcher(config, problem)
    risk = report_dict(risk_of_result(result, population=matcher))
    return {
        "journalist_basis": risk.get("journalist_basis"),
        "journalist": risk.get("journalist"),
        **release_extras(config, problem, result),
    }


def attack_report(config: ReleaseConfig) -> Any:
    """The ``anon-core attack`` battery's report on the configuration's release (None without an
    ``attack`` section): the same seeded split, so ``verify`` gets the same figures again."""
    if "attack" not in config.sections:
        return None
    from anon_core.attacks.split import parse_attack_section
    from anon_core.services.attacks import attack_release

    return attack_release(config, parse_attack_section(config.sections["attack"], config.base_dir))


def _record_counts(ds: Any, column: str) -> np.ndarray:
    """Records per dictionary code of a column (row weights of a grouped table counted)."""
    col = ds.columns[column]
    return np.bincount(col.codes, weights=ds.weights, minlength=col.cardinality).astype(np.int64)


def report_evidence(
    config: ReleaseConfig,
    problem: Problem,
    result: TransformationResult,
    search_result: SearchResult | None = None,
) -> ReportEvidence:
    """Every figure the release report of ``result`` (a transformation of ``problem``, built from
    ``config``) shows, computed once with the engine's own functions."""
    from anon_core.risk.disclosure import attribute_disclosure, disclosure_dict
    from anon_core.risk.reidentification import risk_of_original, risk_of_result
    from anon_core.utility.summary import compare_distributions, quality_summary

    check_matches(config, problem, result)
    ds, freq, ev = problem.dataset, problem.freq, problem.evaluator
    mode = config.suppressed_records
    grouped = ds.grouped  # a scale engine's table: the records are in the file, not in memory
    released = None if grouped else problem.apply(result, mode)
    hierarchy_files = {}
    for name, spec in config.hierarchy_specs.items():
        if "file" in spec:
            path = Path(str(spec["file"]))
            path = path if path.is_absolute() else config.base_dir / path
            if path.is_file():
                hierarchy_files[name] = (path.name, path.read_bytes())
    hierarchies: dict[str, Any] = {}
    codes: dict[str, Any] = {}
    for j, q in enumerate(freq.qis):
        enc = ds.hierarchy(q)
        level = int(result.levels[j])
        hierarchies[q] = {
            "source": _hierarchy_source(config.hierarchy_specs.get(q)),
            "height": enc.height,
            "level": level,
            "values": ds.columns[q].cardinality,
            "labels": [str(v) for v in enc.labels[level]],
        }
        values = np.asarray(ds.columns[q].labels, dtype=object).astype(str)
        codes[q] = (values, _record_counts(ds, q), enc.maps[level])
    for s in ds.sensitive:
        enc = ds.columns[s].encoded
        if enc is not None:
            hierarchies[s] = {
                "source": _hierarchy_source(config.hierarchy_specs.get(s)),
                "height": enc.height,
                "level": None,
                "values": ds.columns[s].cardinality,
                "labels": None,
            }
    metric = ev.metric
    distributions = compare_distributions(problem, result, suppressed_records=mode)
    return ReportEvidence(
        engine=problem.engine_name,
        grouped=grouped,
        n_rows=int(ds.n_rows),
        input_columns=[str(c) for c in (problem.input_roles if grouped else ds.frame.columns)],
        input_table_sha256=None if grouped else sha256_of_table(ds.frame),
        released_table=released,
        released_rows=int(ds.n_rows - (result.suppressed_records if mode == "remove" else 0))
        if grouped
        else int(len(released)),
        released_columns=[c for c, r in problem.input_roles.items() if r != Role.IDENTIFIER]
        if grouped
        else [str(c) for c in released.columns],
        released_sha256=None if grouped else sha256_of_table(released),
        suppressed_records=mode,
        roles={c: r.value for c, r in ds.roles.items()},
        hierarchy_files=hierarchy_files,
        hierarchies=hierarchies,
        hierarchy_codes=codes,
        privacy={
            "models": [dict(m) for m in config.models],
            "status": [
                {
                    "model": s.model,
                    "satisfied": s.satisfied,
                    "violating_classes": s.violating_classes,
                    "violating_records": s.violating_records,
                }
                for s in result.models
            ],
            "suppression_limit": float(config.suppression_limit),
            "max_suppressed_records": int(ev.max_outliers),
            "suppressed_records": int(result.suppressed_records),
            "quality_metric": {**metric.to_config(), "label": repr(metric)},
        },
        transformation={
            **result.summary(),
            "selection": _selection(problem, result, search_result, config),
        },
        risk_before=_risk_figures(risk_of_original(problem)),
        risk_after=_risk_figures(risk_of_result(result)),
        disclosure=disclosure_dict(attribute_disclosure(result) if ds.sensitive else {}),
        quality=quality_summary(problem, result).to_dict(),
        distributions=distributions.to_dict(),
        distribution_table=distributions.distributions,
        method=method_figures(config, result),
        population=None if grouped else population_figures(config, problem, result),
        attacks=attack_report(config),
        search_ms=None if search_result is None else float(search_result.search_ms),
    )


def rerun_report_evidence(
    config: ReleaseConfig, selection: str = "configured"
) -> tuple[ReportEvidence | None, str, bool]:
    """What ``verify`` re-runs: the configuration's problem and transformation (searched again
    when ``selection`` is ``search`` or none is configured) and its :func:`report_evidence`.

    Returns (the evidence, or None when no transformation satisfies the models within the
    suppression limit; the engine's name; whether the engine grouped the input in place)."""
    from anon_core.services.inputs import problem_for_release

    problem, _, _ = problem_for_release(config)
    found = None
    if config.transformation is None or selection == "search":
        found = problem.search(**config.search)
    result = (
        problem.evaluate(config.transformation)
        if config.transformation is not None
        else found.optimum
    )
    engine, grouped = problem.engine_name, bool(problem.dataset.grouped)
    if result is None:
        return None, engine, grouped
    return report_evidence(config, problem, result, found), engine, grouped

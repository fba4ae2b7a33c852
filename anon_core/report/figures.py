"""Building a release report from the engine's own figures (risk, disclosure, utility, search)."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import platform
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from anon_core.config import ReleaseConfig, load_config, parse_config
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.report.evidence import attack_figures, method_figures, population_figures
from anon_core.report.html import embedded_libraries
from anon_core.report.model import (
    DECISIONS,
    FIGURES_SCHEMA,
    MIN_CELL,
    SHOWN_VALUES,
    SIGNOFF_KEYS,
    Report,
    figures_json,
    figures_sha256,
    file_fingerprint,
    path_fingerprint,
    plain,
    scrub_config,
    scrub_secrets,
    sha256_hex,
    table_csv_bytes,
)
from anon_core.report.signature import configured_private_key, sign, signing_payload
from anon_core.search.evaluate import TransformationResult
from anon_core.search.lattice import SearchResult
from anon_core.transform.problem import Problem
from anon_core.validation import check_choice, check_keys, check_mapping


def _coerce_config(source: Any) -> tuple[ReleaseConfig, bool]:
    """(config, from_file): a path, a ReleaseConfig or a configuration mapping."""
    if isinstance(source, ReleaseConfig):
        return source, True
    if isinstance(source, str | os.PathLike):
        return load_config(source), True
    if isinstance(source, Mapping):
        return parse_config(source), False
    raise ConfigError(
        f"'config' must be a configuration file path, a ReleaseConfig or a configuration mapping, "
        f"got {type(source).__name__}."
    )


def _check_matches(config: ReleaseConfig, problem: Problem, result: TransformationResult) -> None:
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


def _released_fingerprint(released: Any) -> dict[str, Any] | None:
    if released is None:
        return None
    if isinstance(released, bytes | bytearray):
        return file_fingerprint(None, bytes(released))
    if (
        isinstance(released, tuple)
        and len(released) == 2
        and isinstance(released[1], bytes | bytearray)
    ):
        return file_fingerprint(str(released[0]), bytes(released[1]))
    if isinstance(released, str | os.PathLike):
        path = Path(released)
        if not path.exists():
            raise ConfigError(
                f"'released' file {str(path)!r} does not exist. Give the file that was released."
            )
        return path_fingerprint(path)
    raise ConfigError(
        f"'released' must be the released file's path, its bytes, or (name, bytes); got {type(released).__name__}."
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
    out["sample_uniques_share"] = plain(report.sample_uniques_share)
    out["population_uniqueness"].update(
        population_size=int(pop.population_size),
        sampling_fraction=plain(pop.sampling_fraction),
        dankar_model=pop.dankar_model,
    )
    return out


def _pareto_frontier(problem: Problem, search_result: SearchResult) -> list[dict[str, Any]]:
    """The search's Pareto frontier over every node it checked, with the quality of each computed.

    The search scores only the nodes it needs, so the nodes it merely tagged get
    their quality from :func:`~anon_core.search.lattice.score_tradeoff` first; the
    frontier itself is :meth:`SearchResult.pareto_frontier` on the scored nodes.
    """
    import dataclasses

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
        "search_options": plain(config.search),
        "heuristic": bool(search_result.heuristic),
        "nodes_checked": int(search_result.nodes_checked),
        "lattice_size": int(search_result.lattice_size),
        "ties": plain([dict(t) for t in search_result.ties]),
        "pareto_frontier": plain(_pareto_frontier(problem, search_result)),
    }


def compute_figures(
    config: ReleaseConfig,
    problem: Problem,
    result: TransformationResult,
    search_result: SearchResult | None,
    input_file: dict[str, Any] | None,
    released_file: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(figures, details) from the engine's own functions."""
    from anon_core.risk.disclosure import attribute_disclosure, disclosure_dict
    from anon_core.risk.reidentification import risk_of_original, risk_of_result
    from anon_core.utility.summary import compare_distributions, quality_summary

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
                hierarchy_files[name] = file_fingerprint(path.name, path.read_bytes())

    hierarchies: dict[str, Any] = {}
    hierarchy_details: dict[str, Any] = {}
    for j, q in enumerate(freq.qis):
        enc = ds.hierarchy(q)
        level = int(result.levels[j])
        labels = [str(v) for v in enc.labels[level]]
        hierarchies[q] = {
            "source": _hierarchy_source(config.hierarchy_specs.get(q)),
            "height": enc.height,
            "level": level,
            "values": ds.columns[q].cardinality,
            "labels": labels,
        }
        hierarchy_details[q] = _covers(ds, q, enc.maps[level], labels)
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
    quality = quality_summary(problem, result)
    distributions = compare_distributions(problem, result, suppressed_records=mode)
    disclosure = attribute_disclosure(result) if ds.sensitive else {}
    figures = {
        "schema": FIGURES_SCHEMA,
        "input": {
            "file": input_file,
            "hierarchy_files": hierarchy_files,
            "rows": int(ds.n_rows),
            "columns": [str(c) for c in (problem.input_roles if grouped else ds.frame.columns)],
            "table_sha256": None if grouped else sha256_hex(table_csv_bytes(ds.frame)),
            "engine": problem.engine_name,
        },
        "output": {
            "file": released_file,
            "rows": int(ds.n_rows - (result.suppressed_records if mode == "remove" else 0))
            if grouped
            else int(len(released)),
            "columns": [c for c, r in problem.input_roles.items() if r != Role.IDENTIFIER]
            if grouped
            else [str(c) for c in released.columns],
            "csv_sha256": None if grouped else sha256_hex(table_csv_bytes(released)),
            "suppressed_records": mode,
        },
        "attributes": {c: r.value for c, r in ds.roles.items()},
        "hierarchies": hierarchies,
        "privacy": {
            "models": plain([dict(m) for m in config.models]),
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
        "transformation": {
            **result.summary(),
            "selection": _selection(problem, result, search_result, config),
        },
        "risk": {
            "note": "Journalist figures equal the prosecutor's (no population table); population: USA (ARX)",
            "before": _risk_figures(risk_of_original(problem)),
            "after": _risk_figures(risk_of_result(result)),
        },
        "disclosure": disclosure_dict(disclosure),
        "utility": {"quality": quality.to_dict(), "distributions": distributions.to_dict()},
    }
    # Evidence beyond class sizes: the method and its guarantee, the population figures and,
    # with an 'attack' section, the attack battery on the configuration's seeded split.
    figures["method"] = method_figures(config, result)
    if not grouped:
        figures["population"] = population_figures(config, problem, result)
    attacks = attack_figures(config)
    if attacks is not None:
        figures["attacks"] = attacks
    details = {
        "hierarchies": hierarchy_details,
        "distributions": _distribution_details(distributions.distributions, int(ds.n_rows)),
        "search_ms": None if search_result is None else float(search_result.search_ms),
    }
    return plain(figures), details


def _value_counts(ds: Any, column: str) -> np.ndarray:
    """Records per dictionary code of a column (row weights of a grouped table counted)."""
    col = ds.columns[column]
    return np.bincount(col.codes, weights=ds.weights, minlength=col.cardinality).astype(np.int64)


def _covers(ds: Any, q: str, level_map: np.ndarray, labels: list[str]) -> list[list[Any]]:
    """Per released label: [label, values covered, the values with >= MIN_CELL records, values hidden].

    Original values held by fewer than MIN_CELL records are not named in the
    report (an exact birth date or ZIP code held by one person is personal data).
    """
    values = np.asarray(ds.columns[q].labels, dtype=object).astype(str)
    counts = _value_counts(ds, q)
    shown: list[list[str]] = [[] for _ in labels]
    total = np.bincount(level_map, minlength=len(labels))
    for code, g in enumerate(level_map.tolist()):
        if counts[code] >= MIN_CELL:
            shown[g].append(values[code])
    return [
        [lab, int(total[g]), shown[g], int(total[g]) - len(shown[g])]
        for g, lab in enumerate(labels)
    ]


def _distribution_details(dist: Any, n_rows: int) -> dict[str, Any]:
    """Chart data per attribute: shares by RELEASED value, cells under MIN_CELL records merged.

    Quasi-identifiers are shown as their generalized labels (what the release
    holds), never as the exact original values; any bar standing for fewer than
    MIN_CELL original records is folded into one "other" bar.
    """
    out: dict[str, Any] = {}
    for name, part in dist.groupby("attribute", sort=False):
        grouped = part.groupby("released_value", sort=False)[
            ["original_share", "released_share"]
        ].sum()
        grouped = grouped.sort_values("original_share", ascending=False, kind="stable")
        records = (grouped["original_share"] * n_rows).round().astype(np.int64)
        small = records < MIN_CELL
        kept = grouped[~small].head(SHOWN_VALUES)
        rest = grouped.drop(index=kept.index)
        values = [str(v) for v in kept.index]
        original = kept["original_share"].tolist()
        released = kept["released_share"].tolist()
        if len(rest):
            values.append(f"other ({len(rest)} values; cells under {MIN_CELL} records merged)")
            original.append(float(rest["original_share"].sum()))
            released.append(float(rest["released_share"].sum()))
        out[str(name)] = {
            "total": int(len(grouped)),
            "values": values,
            "original": original,
            "released": released,
        }
    return plain(out)


def _software() -> dict[str, str | None]:
    from importlib import metadata

    from anon_core.version import __version__

    out: dict[str, str | None] = {"python": platform.python_version(), "anon_core": __version__}
    for dist in ("numpy", "pandas", "scikit-learn", "streamlit", "plotly", "fpdf2"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            if dist != "streamlit":
                out[dist] = None
    return out


def _timestamp(generated_at: datetime | None) -> str:
    if generated_at is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        generated_at = (
            datetime.fromtimestamp(int(epoch), UTC)
            if epoch and epoch.isdigit()
            else datetime.now(UTC)
        )
    if generated_at.tzinfo is None:
        raise ConfigError(
            "'generated_at' must be timezone-aware (UTC), e.g. datetime.now(timezone.utc)."
        )
    return generated_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_signoff(signoff: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if signoff is None:
        return None
    signoff = check_mapping("signoff", signoff)
    check_keys("signoff", signoff, SIGNOFF_KEYS)
    out = {
        k: ("" if signoff.get(k) is None else str(signoff.get(k)))
        for k in ("name", "role", "decision", "comments")
    }
    if out["decision"]:
        check_choice("signoff.decision", out["decision"], DECISIONS)
    if signoff.get("date"):
        out["date"] = str(signoff["date"])
    if signoff.get("justification"):
        out["justification"] = str(signoff["justification"])
    return scrub_secrets(out)


def check_audit(audit: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]] | None:
    if audit is None:
        return None
    if isinstance(audit, str | bytes | Mapping) or not isinstance(audit, Sequence):
        raise ConfigError(
            '\'audit\' must be a list of {"change": ..., "at": ...} entries (Workspace.audit).'
        )
    out = []
    for i, entry in enumerate(audit):
        entry = check_mapping(f"audit[{i}]", entry)
        if "change" not in entry or "at" not in entry:
            raise ConfigError(
                f"'audit[{i}]' needs 'change' and 'at' (when, ISO 8601 UTC), got {dict(entry)!r}."
            )
        out.append({"change": str(entry["change"]), "at": str(entry["at"])})
    return out


def _provided(name: str, value: Any) -> dict[str, Any] | None:
    """An optional input as plain JSON (a mapping, or an object with ``to_dict()``), secrets redacted."""
    if value is None:
        return None
    if not isinstance(value, Mapping) and callable(getattr(value, "to_dict", None)):
        value = value.to_dict()
    return scrub_secrets(plain(check_mapping(name, value)))


def build_report(
    config_path_or_config: Any,
    problem: Problem,
    result: TransformationResult,
    search_result: SearchResult | None = None,
    released: Any = None,
    input_bytes: bytes | None = None,
    signoff: Mapping[str, Any] | None = None,
    audit: Sequence[Mapping[str, Any]] | None = None,
    pii: Any = None,
    dp: Any = None,
    ml: Any = None,
    *,
    generated_at: datetime | None = None,
    signing_key: Any = None,
    chosen_by: str | None = None,
) -> Report:
    """The release report of ``result`` (a transformation of ``problem``, built from the configuration).

    * ``config_path_or_config``: the configuration file (its input file is read
      and fingerprinted unless ``input_bytes`` is given), a ReleaseConfig, or a
      configuration mapping (the dashboard's; then only ``input_bytes`` is
      fingerprinted, the loaded table always is).
    * ``search_result``: the search that found ``result``; its statistics, ties
      and Pareto frontier are reported when its optimum is ``result``.
    * ``released``: the released file (path, bytes or ``(name, bytes)``) to
      fingerprint; the released table's canonical CSV is fingerprinted anyway.
    * ``signoff``: ``{"name", "role", "decision": "approve"|"reject", "comments"}``;
      ``audit``: ``Workspace.audit``; ``pii``, ``dp``: the PII-handling and
      differential-privacy summaries to show (secret fields redacted); ``ml``:
      an :class:`~anon_core.utility.summary.MLUtilityResult` (or its ``to_dict()``);
      ``chosen_by``: how the transformation was chosen in the dashboard (search, explore,
      manual, configured), recorded as given.
    * ``signing_key``: an Ed25519 private key to sign the sign-off with; by default
      the key the configuration names (``output.signing_key_file`` or
      ``output.signing_key_env``), else the report is unsigned.
    """
    config, from_file = _coerce_config(config_path_or_config)
    _check_matches(config, problem, result)
    name = config.input_path.name if config.input_path is not None else None
    input_file = None if input_bytes is None else file_fingerprint(name, bytes(input_bytes))
    if (
        input_bytes is None
        and config.input_path is not None
        and config.input_path.exists()
        and (from_file or problem.dataset.grouped)
    ):
        input_file = path_fingerprint(config.input_path)
    figures, details = compute_figures(
        config, problem, result, search_result, input_file, _released_fingerprint(released)
    )
    provided = {
        "signoff": check_signoff(signoff),
        "audit": check_audit(audit),
        "pii": _provided("pii", pii),
        "dp": _provided("dp", dp),
        "ml": _provided("ml", ml),
        "chosen_by": _chosen_by(chosen_by),
    }
    return assemble_report(
        config,
        figures,
        details,
        provided,
        signing_key=signing_key,
        generated_at=generated_at,
        run_ms=details.pop("search_ms"),
    )


def assemble_report(
    config: ReleaseConfig,
    figures: dict[str, Any],
    details: dict[str, Any],
    provided: dict[str, Any],
    *,
    signing_key: Any = None,
    generated_at: datetime | None = None,
    run_ms: float | None = None,
) -> Report:
    """A report from its figures: the metadata (time, software, the figures' SHA-256, the inlined
    libraries), the configuration with secrets redacted, and the Ed25519 signature over all of it
    (``signing_key``, else the key the configuration names, else unsigned)."""
    meta = {
        "schema": figures.get("schema", FIGURES_SCHEMA),
        "generated_at": _timestamp(generated_at),
        "software": _software(),
        "figures_sha256": figures_sha256(figures),
        # A run time is not reproducible: left out in reproducible mode (SOURCE_DATE_EPOCH set).
        "search_ms": None if os.environ.get("SOURCE_DATE_EPOCH") else run_ms,
        "libraries": embedded_libraries(),  # what the HTML page inlines (signed, checked by verify)
    }
    embedded_config = scrub_config(config.raw)
    key = signing_key
    if key is None:
        key = configured_private_key(config.raw.get("output") or {}, config.base_dir)
    if key is not None:
        meta["signature"] = sign(
            key, signing_payload(figures, embedded_config, meta, provided, details)
        )
    return Report(
        figures=figures,
        config=embedded_config,
        meta=meta,
        provided=provided,
        details=details,
    )


def _chosen_by(value: str | None) -> str | None:
    from anon_core.transform.choose import CHOSEN_BY

    if value is not None and value not in CHOSEN_BY:
        raise ConfigError(f"'chosen_by' must be one of {list(CHOSEN_BY)}, got {value!r}.")
    return value


def report_figures(report: Report) -> dict[str, Any]:
    """The canonical figures block (what :func:`figures_json` hashes), as plain JSON values."""
    return json.loads(figures_json(report.figures))


def audit_csv(audit: Sequence[Mapping[str, Any]]) -> str:
    """The audit trail as CSV (columns change, at)."""
    rows = check_audit(audit) or []
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["change", "at"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def audit_json(audit: Sequence[Mapping[str, Any]]) -> str:
    """The audit trail as a JSON list of {"change", "at"}."""
    return json.dumps(check_audit(audit) or [], indent=2, ensure_ascii=False)

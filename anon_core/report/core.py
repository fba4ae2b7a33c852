"""Release report: what was released, how, and with which risk and utility, for sign-off.

:func:`build_report` gathers a :class:`Report` from the engine's own functions
(``Problem``/``TransformationResult``, :mod:`anon_core.analysis.risk`,
:mod:`anon_core.analysis.disclosure`, :mod:`anon_core.analysis.utility`), so every figure in it is
the core's figure. A report has

* ``figures`` - the canonical, reproducible block: fingerprints (SHA-256 of the
  input file, of the input table, of the released table and file), roles,
  hierarchies, privacy models, suppression, the transformation and how it was
  chosen, risk before and after, attribute disclosure and utility. The same
  configuration on the same input gives the same figures, and
  :func:`figures_json` (sorted keys, no spaces, UTF-8) the same bytes, hence a
  stable ``figures_sha256``. Nothing time- or machine-dependent goes in here.
* ``config`` - the full release configuration (secrets of the module sections
  redacted).
* ``meta`` - UTC timestamp, software versions, the figures' SHA-256.
* ``provided`` - optional inputs shown as given: sign-off, audit trail, PII
  handling, differential-privacy budget, ML utility (never keys or salts: any
  field named like key/secret/salt/password/token is redacted).

:func:`render_html` writes one self-contained HTML file: plotly.js is inlined
once for all the interactive charts, no remote resource is referenced, and the
figures, configuration and metadata are embedded as JSON
(``<script type="application/json" id="release-figures">``, ``id="release-config"``,
``id="release-meta"``). :func:`render_pdf` writes the same sections as a PDF with
vector bar charts and tables, the configuration as an appendix, and the three
JSON documents as standard PDF attachments (``release-figures.json``,
``release-config.json``, ``release-meta.json``). :func:`read_report_figures`
reads the figures back from either; :func:`verify` re-runs a configuration and
lists every fingerprint or figure that differs.

PDF library: **fpdf2** (pure Python; its dependencies Pillow, fontTools and
defusedxml ship wheels, so no system package is needed). It was chosen over
ReportLab because it writes standard embedded files (``FPDF.embed_file``), which
carry the machine-readable figures inside the PDF without relying on text
extraction, it has a table API and vector drawing primitives enough for simple
bar charts, and it is actively maintained (py-pdf). Its core fonts cover
Latin-1 only, so the PDF shows other characters as ``?`` (the HTML and the
embedded JSON keep them exactly). Reading the attachments back uses **pypdf**
(pure Python, same organisation).

With ``SOURCE_DATE_EPOCH`` set (the reproducible-builds convention) the
timestamp is that time and the search's run time is left out, so the HTML and
the PDF of the same configuration, input and sign-off are byte-identical on the
same software versions.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import html
import io
import json
import math
import os
import platform
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.config import (
    MODULE_SECTIONS,
    ReleaseConfig,
    load_config,
    parse_config,
    read_config_file,
)
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.search.evaluate import TransformationResult
from anon_core.search.lattice import SearchResult
from anon_core.services.problem import Problem
from anon_core.validation import check_choice, check_keys, check_mapping

__all__ = [
    "FIGURES_SCHEMA",
    "Report",
    "audit_csv",
    "audit_json",
    "build_report",
    "figures_json",
    "figures_sha256",
    "read_report",
    "read_report_figures",
    "render_html",
    "render_pdf",
    "report_figures",
    "report_sections",
    "scrub_secrets",
    "verify",
    "write_report",
]

FIGURES_SCHEMA = "anon-core/release-figures/1"
REDACTED = "[redacted]"
#: Field names whose values are never written into a report.
SECRET_FIELD = re.compile(
    r"key|secret|salt|pepper|passw|pwd|token|credential|private", re.IGNORECASE
)
#: Fields that name where a secret lives (an environment variable), not the secret itself.
SECRET_REFERENCE = re.compile(r"_env$", re.IGNORECASE)
DECISIONS = ("approve", "reject")
SIGNOFF_KEYS = {"name", "role", "decision", "comments", "date"}
#: Formats whose released file verify() regenerates byte for byte.
REGENERATED_FORMATS = (".csv", ".tsv", ".json")
_FLOAT_RTOL = 1e-9
_FLOAT_ATOL = 1e-12
_MAX_DIFFERENCES = 60
_SHOWN_LABELS = 40  # generalized labels listed per QI in the rendered report
_SHOWN_VALUES = 40  # values per attribute in the distribution chart
_SHOWN_QI_ROWS = 10
ATTACHMENTS = {
    "figures": "release-figures.json",
    "config": "release-config.json",
    "meta": "release-meta.json",
}


# ============================================================================ JSON helpers
def _plain(obj: Any) -> Any:
    """A JSON-ready copy: numpy scalars to Python, NaN/inf to None, tuples to lists, keys to str."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | np.ndarray | pd.Index):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        x = float(obj)
        return None if math.isnan(x) or math.isinf(x) else x
    if isinstance(obj, Path):
        return str(obj)
    if obj is pd.NA or obj is pd.NaT:
        return None
    return str(obj)


def figures_json(figures: Mapping[str, Any]) -> str:
    """Canonical JSON of a figures block: sorted keys, no whitespace, UTF-8, no NaN."""
    return json.dumps(
        _plain(figures), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def figures_sha256(figures: Mapping[str, Any]) -> str:
    return hashlib.sha256(figures_json(figures).encode("utf-8")).hexdigest()


def scrub_secrets(obj: Any) -> Any:
    """A copy with the value of every field named like key/secret/salt/password/token redacted."""
    if isinstance(obj, Mapping):
        return {
            str(k): REDACTED
            if SECRET_FIELD.search(str(k)) and not SECRET_REFERENCE.search(str(k))
            else scrub_secrets(v)
            for k, v in obj.items()
        }
    if isinstance(obj, list | tuple):
        return [scrub_secrets(v) for v in obj]
    return copy.deepcopy(obj)


def _scrub_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as embedded in a report: module sections (PII, pseudonymization, DP) scrubbed.

    The core sections are schema-validated and hold no secret; their mappings are
    keyed by column names, which must not be mistaken for secret fields.
    """
    out = _plain(copy.deepcopy(dict(raw)))
    for section in MODULE_SECTIONS:
        if section in out:
            out[section] = scrub_secrets(out[section])
    return out


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_fingerprint(name: str | None, data: bytes) -> dict[str, Any]:
    return {"name": name, "sha256": _sha256(data), "bytes": len(data)}


def _path_fingerprint(path: Path) -> dict[str, Any]:
    """Like :func:`_file_fingerprint` for a file read in blocks (or a folder of parts, as Spark writes)."""
    from anon_core.release.engines.base import file_sha256

    size = (
        sum(f.stat().st_size for f in path.iterdir() if f.is_file())
        if path.is_dir()
        else path.stat().st_size
    )
    return {"name": path.name, "sha256": file_sha256(path), "bytes": size}


def table_csv_bytes(frame: pd.DataFrame) -> bytes:
    """The table as the CLI writes a .csv (no index, LF line ends, UTF-8): the canonical bytes hashed."""
    return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")


# ============================================================================ the model
@dataclass(frozen=True, eq=False)
class Report:
    """A release report (see the module docstring). Render with :func:`render_html` / :func:`render_pdf`."""

    figures: dict[str, Any]
    config: dict[str, Any]
    meta: dict[str, Any]
    provided: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict, repr=False)  # chart data, display only

    @property
    def figures_sha256(self) -> str:
        return self.meta["figures_sha256"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "meta": self.meta,
            "figures": self.figures,
            "config": self.config,
            "provided": self.provided,
        }


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
        return _file_fingerprint(None, bytes(released))
    if (
        isinstance(released, tuple)
        and len(released) == 2
        and isinstance(released[1], bytes | bytearray)
    ):
        return _file_fingerprint(str(released[0]), bytes(released[1]))
    if isinstance(released, str | os.PathLike):
        path = Path(released)
        if not path.exists():
            raise ConfigError(
                f"'released' file {str(path)!r} does not exist. Give the file that was released."
            )
        return _path_fingerprint(path)
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
    from anon_core.analysis.risk import report_dict

    out = report_dict(report)
    pop = report.population
    out["suppressed_records"] = int(report.suppressed_records)
    out["sample_uniques_share"] = _plain(report.sample_uniques_share)
    out["population_uniqueness"].update(
        population_size=int(pop.population_size),
        sampling_fraction=_plain(pop.sampling_fraction),
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
        "search_options": _plain(config.search),
        "heuristic": bool(search_result.heuristic),
        "nodes_checked": int(search_result.nodes_checked),
        "lattice_size": int(search_result.lattice_size),
        "ties": _plain([dict(t) for t in search_result.ties]),
        "pareto_frontier": _plain(_pareto_frontier(problem, search_result)),
    }


def _compute(
    config: ReleaseConfig,
    problem: Problem,
    result: TransformationResult,
    search_result: SearchResult | None,
    input_file: dict[str, Any] | None,
    released_file: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(figures, details) from the engine's own functions."""
    from anon_core.analysis.disclosure import attribute_disclosure, disclosure_dict
    from anon_core.analysis.risk import risk_of_original, risk_of_result
    from anon_core.analysis.utility import compare_distributions, quality_summary

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
                hierarchy_files[name] = _file_fingerprint(path.name, path.read_bytes())

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
        values = np.asarray(ds.columns[q].labels, dtype=object).astype(str)
        covers: list[list[str]] = [[] for _ in labels]
        for code, g in enumerate(enc.maps[level].tolist()):
            covers[g].append(values[code])
        hierarchy_details[q] = [(lab, cov) for lab, cov in zip(labels, covers, strict=True)]
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
            "table_sha256": None if grouped else _sha256(table_csv_bytes(ds.frame)),
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
            "csv_sha256": None if grouped else _sha256(table_csv_bytes(released)),
            "suppressed_records": mode,
        },
        "attributes": {c: r.value for c, r in ds.roles.items()},
        "hierarchies": hierarchies,
        "privacy": {
            "models": _plain([dict(m) for m in config.models]),
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
    dist = distributions.distributions
    dist_details = {}
    for name, part in dist.groupby("attribute", sort=False):
        part = part.sort_values("original_share", ascending=False, kind="stable")
        dist_details[str(name)] = {
            "total": int(len(part)),
            "values": part["value"].head(_SHOWN_VALUES).tolist(),
            "original": part["original_share"].head(_SHOWN_VALUES).tolist(),
            "released": part["released_share"].head(_SHOWN_VALUES).tolist(),
        }
    details = {
        "hierarchies": hierarchy_details,
        "distributions": dist_details,
        "search_ms": None if search_result is None else float(search_result.search_ms),
    }
    return _plain(figures), details


def _software() -> dict[str, str | None]:
    from importlib import metadata

    from anon_core import __version__

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


def _check_signoff(signoff: Mapping[str, Any] | None) -> dict[str, Any] | None:
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
    return scrub_secrets(out)


def _check_audit(audit: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]] | None:
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
    return scrub_secrets(_plain(check_mapping(name, value)))


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
      an :class:`~anon_core.analysis.utility.MLUtilityResult` (or its ``to_dict()``).
    """
    config, from_file = _coerce_config(config_path_or_config)
    _check_matches(config, problem, result)
    name = config.input_path.name if config.input_path is not None else None
    input_file = None if input_bytes is None else _file_fingerprint(name, bytes(input_bytes))
    if (
        input_bytes is None
        and config.input_path is not None
        and config.input_path.exists()
        and (from_file or problem.dataset.grouped)
    ):
        input_file = _path_fingerprint(config.input_path)
    figures, details = _compute(
        config, problem, result, search_result, input_file, _released_fingerprint(released)
    )
    provided = {
        "signoff": _check_signoff(signoff),
        "audit": _check_audit(audit),
        "pii": _provided("pii", pii),
        "dp": _provided("dp", dp),
        "ml": _provided("ml", ml),
    }
    meta = {
        "schema": FIGURES_SCHEMA,
        "generated_at": _timestamp(generated_at),
        "software": _software(),
        "figures_sha256": figures_sha256(figures),
        # A run time is not reproducible: left out in reproducible mode (SOURCE_DATE_EPOCH set).
        "search_ms": None if os.environ.get("SOURCE_DATE_EPOCH") else details["search_ms"],
    }
    return Report(
        figures=figures,
        config=_scrub_config(config.raw),
        meta=meta,
        provided=provided,
        details=details,
    )


def report_figures(report: Report) -> dict[str, Any]:
    """The canonical figures block (what :func:`figures_json` hashes), as plain JSON values."""
    return json.loads(figures_json(report.figures))


# ============================================================================ sections
def _fmt(x: Any, digits: int = 6) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        if math.isnan(x):
            return "n/a"
        if x == int(x) and abs(x) < 1e15:
            return f"{int(x):,}"
        return f"{x:.{digits}g}"
    if isinstance(x, Mapping | list):
        return json.dumps(x, ensure_ascii=False, sort_keys=True)
    return str(x)


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * float(x):.3g} %"


def _levels(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items())


def _text(t: str) -> dict:
    return {"kind": "text", "text": t}


def _kv(rows: Sequence[tuple[str, Any]]) -> dict:
    return {"kind": "kv", "rows": [(str(k), v if isinstance(v, str) else _fmt(v)) for k, v in rows]}


def _table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    note: str | None = None,
    text_columns: Sequence[int] = (0,),
) -> dict:
    """A table block; columns not in ``text_columns`` holding numbers are right-aligned in HTML."""
    return {
        "kind": "table",
        "columns": list(columns),
        "rows": [[c if isinstance(c, str) else _fmt(c) for c in r] for r in rows],
        "note": note,
        "text_columns": list(text_columns),
    }


def _bars(
    title: str, categories: Sequence[str], series: Mapping[str, Sequence[Any]], unit: str = ""
) -> dict:
    return {
        "kind": "chart",
        "chart": {
            "type": "bars",
            "title": title,
            "categories": list(categories),
            "series": {k: list(v) for k, v in series.items()},
            "unit": unit,
        },
    }


def _risk_rows(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    rows = [
        ("records counted", before["records"], after["records"]),
        ("equivalence classes", before["equivalence_classes"], after["equivalence_classes"]),
        (
            "prosecutor: highest risk",
            before["prosecutor"]["highest_risk"],
            after["prosecutor"]["highest_risk"],
        ),
        (
            "prosecutor: records at highest risk",
            before["prosecutor"]["records_at_highest_risk"],
            after["prosecutor"]["records_at_highest_risk"],
        ),
        (
            "prosecutor: average risk",
            before["prosecutor"]["average_risk"],
            after["prosecutor"]["average_risk"],
        ),
    ]
    for t, v in before["prosecutor"]["records_at_risk"].items():
        rows.append(
            (f"prosecutor: records at risk > {t}", v, after["prosecutor"]["records_at_risk"].get(t))
        )
    rows += [
        (
            "journalist: highest risk",
            before["journalist"]["highest_risk"],
            after["journalist"]["highest_risk"],
        ),
        (
            "journalist: average risk",
            before["journalist"]["average_risk"],
            after["journalist"]["average_risk"],
        ),
        (
            "marketer: average risk",
            before["marketer"]["average_risk"],
            after["marketer"]["average_risk"],
        ),
        ("sample uniques", before["sample_uniques"], after["sample_uniques"]),
        ("sample uniques (share)", before["sample_uniques_share"], after["sample_uniques_share"]),
    ]
    for k in ("zayatz", "pitman", "snb", "dankar"):
        rows.append(
            (
                f"population uniques: {k}",
                before["population_uniqueness"][k],
                after["population_uniqueness"][k],
            )
        )
    rows.append(
        (
            "population model chosen (Dankar)",
            before["population_uniqueness"]["dankar_model"],
            after["population_uniqueness"]["dankar_model"],
        )
    )
    return rows


def _top_qi(rows: list[dict[str, Any]]) -> list[list[Any]]:
    ranked = sorted(rows, key=lambda r: (-(r["distinction"] or 0), -(r["separation"] or 0)))
    return [
        [", ".join(r["attributes"]), r["distinction"], r["separation"]]
        for r in ranked[:_SHOWN_QI_ROWS]
    ]


def _key_values(obj: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for k, v in obj.items():
        if isinstance(v, Mapping) and v:
            rows += _key_values(v, f"{prefix}{k}.")
        else:
            rows.append((f"{prefix}{k}", v))
    return rows


def report_sections(report: Report) -> list[dict[str, Any]]:
    """The report as ordered sections of blocks (text, key-value, table, chart, code), for any renderer."""
    f, meta, prov, det = report.figures, report.meta, report.provided, report.details
    tr, priv, sel = f["transformation"], f["privacy"], f["transformation"]["selection"]
    before, after = f["risk"]["before"], f["risk"]["after"]
    sections: list[dict[str, Any]] = []

    def add(sid: str, title: str, *blocks: dict) -> None:
        sections.append({"id": sid, "title": title, "blocks": [b for b in blocks if b is not None]})

    signoff = prov.get("signoff") or {}
    add(
        "summary",
        "Summary",
        _kv(
            [
                (
                    "verdict",
                    "satisfies the privacy models within the suppression limit"
                    if tr["satisfied"]
                    else "DOES NOT satisfy the privacy models within the suppression limit",
                ),
                ("decision", signoff.get("decision") or "pending sign-off"),
                ("transformation", _levels(tr["transformation"])),
                ("chosen by", "search optimum" if sel["method"] == "search" else "configured"),
                ("records released", f"{f['output']['rows']:,} of {f['input']['rows']:,}"),
                (
                    "highest prosecutor risk",
                    f"{_fmt(before['prosecutor']['highest_risk'])} before, "
                    f"{_fmt(after['prosecutor']['highest_risk'])} after",
                ),
                (f"quality ({priv['quality_metric']['label']})", tr["quality"]["value"]),
                ("generated (UTC)", meta["generated_at"]),
                ("figures SHA-256", meta["figures_sha256"]),
            ]
        ),
    )

    inp, out = f["input"], f["output"]
    fp_rows = [
        (
            "input file",
            "not fingerprinted (no file bytes given)"
            if inp["file"] is None
            else inp["file"]["name"] or "-",
        ),
        ("input file SHA-256", "-" if inp["file"] is None else inp["file"]["sha256"]),
        ("input file size (bytes)", None if inp["file"] is None else inp["file"]["bytes"]),
        (
            "input table SHA-256 (canonical CSV)",
            inp["table_sha256"]
            or f"- (read by path with {inp.get('engine')}: the file's SHA-256 fingerprints it)",
        ),
        ("input rows x columns", f"{inp['rows']:,} x {len(inp['columns'])}"),
        (
            "released file",
            "not fingerprinted (no file given)"
            if out["file"] is None
            else out["file"]["name"] or "-",
        ),
        ("released file SHA-256", "-" if out["file"] is None else out["file"]["sha256"]),
        (
            "released table SHA-256 (canonical CSV)",
            out["csv_sha256"]
            or "- (written by the engine: the released file's SHA-256 fingerprints it)",
        ),
        ("released rows x columns", f"{out['rows']:,} x {len(out['columns'])}"),
        (
            "suppressed records in the release",
            "removed"
            if out["suppressed_records"] == "remove"
            else "kept with every quasi-identifier '*'",
        ),
    ]
    for name, fp in inp["hierarchy_files"].items():
        fp_rows.append((f"hierarchy file of {name} ({fp['name']}) SHA-256", fp["sha256"]))
    add(
        "fingerprints",
        "Input and output fingerprints",
        _kv(fp_rows),
        _text("Released columns: " + ", ".join(out["columns"])),
    )

    add(
        "attributes",
        "Attribute roles",
        _table(
            ["attribute", "role", "treatment"],
            [
                [
                    c,
                    r,
                    {
                        "identifier": "removed",
                        "quasi-identifier": "generalized",
                        "sensitive": "kept, protected",
                        "insensitive": "kept unchanged",
                    }[r],
                ]
                for c, r in f["attributes"].items()
            ],
        ),
    )

    blocks = [
        _table(
            [
                "attribute",
                "hierarchy",
                "level used",
                "of levels",
                "original values",
                "released labels",
            ],
            [
                [
                    q,
                    h["source"],
                    "-" if h["level"] is None else h["level"],
                    h["height"] - 1,
                    h["values"],
                    "-" if h["labels"] is None else len(h["labels"]),
                ]
                for q, h in f["hierarchies"].items()
            ],
        )
    ]
    for q, pairs in det.get("hierarchies", {}).items():
        rows = [
            [
                lab,
                len(cov),
                ", ".join(cov[:8]) + (f", ... (+{len(cov) - 8})" if len(cov) > 8 else ""),
            ]
            for lab, cov in pairs[:_SHOWN_LABELS]
        ]
        more = len(pairs) - _SHOWN_LABELS
        blocks.append(
            _table(
                [f"{q}: released label (level {f['hierarchies'][q]['level']})", "values", "covers"],
                rows,
                note=f"... and {more} more labels (all in the figures JSON)" if more > 0 else None,
                text_columns=(0, 2),
            )
        )
    add("hierarchies", "Hierarchies and generalized labels", *blocks)

    add(
        "privacy",
        "Privacy models, suppression and quality metric",
        _table(
            ["model", "parameters", "status", "violating classes", "violating records"],
            [
                [
                    m["model"],
                    ", ".join(f"{k}={v}" for k, v in m.items() if k != "model"),
                    ("holds" if not s["violating_records"] else "holds after suppression")
                    if s["satisfied"]
                    else "VIOLATED",
                    s["violating_classes"],
                    s["violating_records"],
                ]
                for m, s in zip(priv["models"], priv["status"], strict=True)
            ],
        ),
        _kv(
            [
                (
                    "suppression limit",
                    f"{_pct(priv['suppression_limit'])} of the records "
                    f"(at most {priv['max_suppressed_records']:,})",
                ),
                ("suppressed records", priv["suppressed_records"]),
                ("quality metric", priv["quality_metric"]["label"]),
            ]
        ),
    )

    blocks = [
        _kv(
            [
                ("transformation", _levels(tr["transformation"])),
                ("satisfied", tr["satisfied"]),
                (f"quality ({tr['quality']['metric']})", tr["quality"]["value"]),
                ("equivalence classes", tr["equivalence_classes"]),
                (
                    "class sizes (min / average / max)",
                    f"{tr['min_class_size']:,} / {_fmt(tr['average_class_size'])} / {tr['max_class_size']:,}",
                ),
                ("suppressed records", tr["suppressed_records"]),
            ]
        )
    ]
    if sel["method"] == "search":
        search_ms = meta.get("search_ms")
        blocks.append(
            _text(
                f"Chosen as the optimum of the {'heuristic' if sel['heuristic'] else 'exact'} search: "
                f"{sel['nodes_checked']:,} of {sel['lattice_size']:,} transformations checked"
                + (f" in {search_ms:,.0f} ms" if search_ms is not None else "")
                + f"; {len(sel['ties'])} tie(s) of equal quality"
                + (" (ties: lowest quality, then lowest sum of levels)." if sel["ties"] else ".")
            )
        )
        qis = list(tr["transformation"])
        order = "levels in the order " + ", ".join(qis)

        def vector(levels: Mapping[str, Any]) -> str:
            return "(" + ", ".join(str(levels[q]) for q in qis) + ")"

        if sel["ties"]:
            blocks.append(
                _table(["tie (other optimum)"], [[vector(t)] for t in sel["ties"]], note=order)
            )
        front = sel["pareto_frontier"]
        if front:
            chosen = [all(r[q] == tr["transformation"][q] for q in qis) for r in front]
            blocks.append(
                _table(
                    [
                        "levels",
                        "quality",
                        "average risk",
                        "highest risk",
                        "suppressed records",
                        "chosen",
                    ],
                    [
                        [
                            vector(r),
                            r["quality"],
                            r["average_risk"],
                            r["highest_risk"],
                            r["suppressed_records"],
                            "yes" if c else "",
                        ]
                        for r, c in zip(front, chosen, strict=True)
                    ],
                    note=f"Pareto frontier of the {sel['nodes_checked']:,} transformations the search checked: none is "
                    f"better in both average prosecutor risk and quality ({order}).",
                    text_columns=(0, 5),
                )
            )
            blocks.append(
                {
                    "kind": "chart",
                    "chart": {
                        "type": "scatter",
                        "title": "Pareto frontier: average risk against quality",
                        "x": [r["average_risk"] for r in front],
                        "y": [r["quality"] for r in front],
                        "labels": [_levels({q: r[q] for q in qis}) for r in front],
                        "chosen": chosen,
                        "x_title": "average prosecutor risk",
                        "y_title": f"quality ({tr['quality']['metric']})",
                    },
                }
            )
    else:
        blocks.append(
            _text("The transformation was set in the configuration (not searched in this run).")
        )
    add("transformation", "Chosen transformation", *blocks)

    risk_rows = _risk_rows(before, after)
    thresholds = list(before["prosecutor"]["records_at_risk"])
    add(
        "risk",
        "Re-identification risk before and after",
        _text(
            "Shares are fractions of the records counted (suppressed records are left out, as ARX does). "
            + f["risk"]["note"]
            + "."
        ),
        _table(
            ["measure", "before (input)", "after (release)"], [[a, b, c] for a, b, c in risk_rows]
        ),
        _bars(
            "Prosecutor risk before and after",
            [
                "highest risk",
                "average risk",
                *[f"records at risk > {t}" for t in thresholds],
                "sample uniques share",
            ],
            {
                "before": [
                    before["prosecutor"]["highest_risk"],
                    before["prosecutor"]["average_risk"],
                    *[before["prosecutor"]["records_at_risk"][t] for t in thresholds],
                    before["sample_uniques_share"],
                ],
                "after": [
                    after["prosecutor"]["highest_risk"],
                    after["prosecutor"]["average_risk"],
                    *[after["prosecutor"]["records_at_risk"][t] for t in thresholds],
                    after["sample_uniques_share"],
                ],
            },
            unit="share",
        ),
        {
            "kind": "chart",
            "chart": {
                "type": "lines",
                "title": "Risk distribution: cumulative share of records by risk",
                "x": [b["high"] for b in before["distribution"]],
                "series": {
                    "before": [b["cumulative"] for b in before["distribution"]],
                    "after": [b["cumulative"] for b in after["distribution"]],
                },
                "x_title": "risk (1 / class size) at most",
                "y_title": "share of records",
            },
        },
        _table(
            ["QI combination (input)", "distinction", "separation"],
            _top_qi(before["qi_analysis"]),
            note="The combinations of quasi-identifiers that identify most records in the input.",
        ),
        _table(
            ["QI combination (release)", "distinction", "separation"], _top_qi(after["qi_analysis"])
        ),
    )

    if f["disclosure"]:
        add(
            "disclosure",
            "Attribute disclosure",
            _table(
                [
                    "sensitive attribute",
                    "classes",
                    "min distinct l",
                    "min entropy l",
                    "max t (equal)",
                    "max t (ordered)",
                    "max t (hierarchical)",
                    "homogeneous classes",
                    "homogeneous records",
                ],
                [
                    [
                        a,
                        d["classes"],
                        d["min_distinct_l"],
                        d["min_entropy_l"],
                        d["max_t_equal"],
                        d["max_t_ordered"],
                        d["max_t_hierarchical"],
                        d["homogeneous_classes"],
                        f"{d['homogeneous_records']:,} ({_pct(d['homogeneous_share'])})",
                    ]
                    for a, d in f["disclosure"].items()
                ],
                note="A homogeneous class has a single sensitive value: membership in it discloses the value.",
            ),
        )
    else:
        add("disclosure", "Attribute disclosure", _text("No attribute has the role 'sensitive'."))

    q, dist = f["utility"]["quality"], f["utility"]["distributions"]
    optimized = next((m for m in q["metrics"] if m["optimized"]), None)
    blocks = [
        _table(
            ["metric", "variant", "value", "range", "optimized"],
            [
                [
                    m["name"],
                    "monotonic" if m["monotonic"] else "non-monotonic",
                    m["value"],
                    f"{_fmt(m['lower'])} - {_fmt(m['upper'])}",
                    "yes" if m["optimized"] else "",
                ]
                for m in q["metrics"]
            ],
            note=f"Suppression rate {_pct(q['suppression_rate'])} ({q['suppressed_records']:,} records).",
        ),
    ]
    if optimized and optimized["per_attribute"]:
        blocks.append(
            _bars(
                f"{optimized['name']} per attribute",
                list(optimized["per_attribute"]),
                {"loss": list(optimized["per_attribute"].values())},
            )
        )
    blocks += [
        _table(
            ["attribute", "role", "level", "values", "Hellinger distance"],
            [
                [
                    a["attribute"],
                    a["role"],
                    "-" if a["level"] is None else a["level"],
                    a["n_values"],
                    a["hellinger"],
                ]
                for a in dist["attributes"]
            ],
            note="Hellinger distance between the original distribution and the released one projected back "
            "uniformly onto the original values (0 = unchanged, 1 = disjoint).",
        ),
        _bars(
            "Hellinger distance per attribute",
            [a["attribute"] for a in dist["attributes"]],
            {"distance": [a["hellinger"] for a in dist["attributes"]]},
        ),
    ]
    if det.get("distributions"):
        blocks.append(
            {
                "kind": "chart",
                "chart": {
                    "type": "distributions",
                    "title": "Distributions before and after",
                    "attributes": det["distributions"],
                },
            }
        )
    ml = prov.get("ml")
    if ml:
        rows, cats, orig, rel = [], [], [], []
        for m in ml.get("models", []):
            for s in ("accuracy", "f1_macro", "roc_auc"):
                o, r = m["original"][s]["mean"], m["released"][s]["mean"]
                rows.append([m["model"], s, o, r, m["drop"][s]])
                cats.append(f"{m['model']}: {s}")
                orig.append(o)
                rel.append(r)
        blocks += [
            _text(
                f"ML utility: predicting {ml.get('target')!r} with {ml.get('cv')}-fold stratified cross-validation "
                f"(random_state {ml.get('random_state')}); {ml.get('n_original', 0):,} original and "
                f"{ml.get('n_released', 0):,} released rows."
            ),
            _table(["model", "score", "original", "released", "drop"], rows),
            _bars(
                "ML utility: original against released", cats, {"original": orig, "released": rel}
            ),
        ]
    else:
        blocks.append(_text("ML utility was not assessed for this release."))
    add("utility", "Utility", *blocks)

    if prov.get("pii") is not None:
        add("pii", "PII handling", _table(["setting", "value"], _key_values(prov["pii"])))
    if prov.get("dp") is not None:
        add(
            "dp",
            "Differential privacy budget",
            _table(["setting", "value"], _key_values(prov["dp"])),
        )

    add(
        "software",
        "Software and time",
        _kv(
            [
                ("generated (UTC)", meta["generated_at"]),
                *[(k, v or "not installed") for k, v in meta["software"].items()],
            ]
        ),
    )
    if prov.get("audit") is not None:
        add(
            "audit",
            "Audit trail",
            _table(
                ["#", "change", "at (UTC)"],
                [[str(i + 1), a["change"], a["at"]] for i, a in enumerate(prov["audit"])],
                text_columns=(0, 1, 2),
            )
            if prov["audit"]
            else _text("No change was recorded."),
        )
    add(
        "signoff",
        "Sign-off",
        _kv(
            [
                ("name", signoff.get("name") or ""),
                ("role", signoff.get("role") or ""),
                ("decision", signoff.get("decision") or "pending"),
                ("comments", signoff.get("comments") or ""),
                *([("date", signoff["date"])] if signoff.get("date") else []),
            ]
        ),
        _text("Signature: ______________________________    Date: ________________"),
    )
    add(
        "configuration",
        "Appendix: release configuration",
        _text(
            "The configuration this release was made with (fields of the PII, pseudonymization and DP sections "
            "named like key/secret/salt/password/token are redacted). Re-run and check it with "
            "'anon-core verify CONFIG REPORT [--released FILE]'."
        ),
        {"kind": "code", "text": _compact_json(report.config)},
    )
    return sections


def _compact_json(obj: Any, indent: int = 0) -> str:
    """Readable JSON with every list of scalars (hierarchy rows, models' values) on one line."""
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(obj, Mapping):
        if not obj:
            return "{}"
        items = [
            f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_compact_json(v, indent + 2)}"
            for k, v in obj.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, Mapping | list) for v in obj):
            return json.dumps(obj, ensure_ascii=False)
        return (
            "[\n" + ",\n".join(inner + _compact_json(v, indent + 2) for v in obj) + "\n" + pad + "]"
        )
    return json.dumps(obj, ensure_ascii=False)


# ============================================================================ HTML
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:24px}
header{background:#0d1117;color:#fff;padding:20px 24px}header h1{margin:0 0 6px;font-size:1.5rem}
header p{margin:0;color:#c9d1d9;font-size:.9rem}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:16px 20px;margin:16px 0}
h2{font-size:1.15rem;margin:0 0 12px}table{border-collapse:collapse;width:100%;margin:8px 0;font-size:.85rem}
th,td{border-bottom:1px solid #eaeef2;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.kv th{width:32%;background:none;font-weight:600}
.note{color:#57606a;font-size:.8rem}.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}
pre{background:#f6f8fa;border:1px solid #eaeef2;padding:10px;overflow:auto;font-size:.75rem;max-height:480px}
nav a{margin-right:10px;font-size:.8rem;color:#0969da}.chart{width:100%;height:380px}
@media print{.chart{page-break-inside:avoid}pre{max-height:none}}
"""
_COLORS = {"before": "#8c959f", "after": "#0969da", "original": "#8c959f", "released": "#0969da"}
_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


def _script_json(obj: Any) -> str:
    """JSON safe inside <script>: '<', '>' and '&' escaped (still valid JSON)."""
    text = json.dumps(_plain(obj), ensure_ascii=False, allow_nan=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _is_number(s: str) -> bool:
    return bool(re.fullmatch(r"[-+]?[\d,]*\.?\d+(e[-+]?\d+)?( %)?", s))


def _html_table(block: dict, kv: bool = False) -> str:
    e = html.escape
    if kv:
        rows = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in block["rows"])
        return f'<table class="kv">{rows}</table>'
    text = set(block.get("text_columns", (0,)))
    head = "".join(f"<th>{e(c)}</th>" for c in block["columns"])
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{e(c)}</td>'
            if i not in text and _is_number(c)
            else f"<td>{e(c)}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in block["rows"]
    )
    note = f'<p class="note">{e(block["note"])}</p>' if block.get("note") else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def _plotly_figure(chart: dict) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure()
    kind = chart["type"]
    if kind == "bars":
        for name, values in chart["series"].items():
            fig.add_bar(
                name=name,
                x=chart["categories"],
                y=values,
                marker_color=_COLORS.get(name, "#0969da"),
                hovertemplate="%{x}: %{y:.6g}<extra>" + name + "</extra>",
            )
        fig.update_layout(
            barmode="group",
            xaxis={"type": "category"},
            yaxis_title="share of records" if chart["unit"] == "share" else None,
        )
    elif kind == "lines":
        for name, values in chart["series"].items():
            fig.add_scatter(
                name=name,
                x=chart["x"],
                y=values,
                mode="lines+markers",
                line={"color": _COLORS.get(name, "#0969da"), "shape": "hv"},
            )
        fig.update_layout(
            xaxis={"type": "log", "title": chart["x_title"]}, yaxis_title=chart["y_title"]
        )
    elif kind == "scatter":
        chosen = chart["chosen"]
        fig.add_scatter(
            name="frontier",
            x=chart["x"],
            y=chart["y"],
            mode="lines+markers",
            text=chart["labels"],
            line={"color": _COLORS["before"]},
            hovertemplate="%{text}<br>average risk %{x:.6g}<br>quality %{y:.6g}<extra></extra>",
        )
        fig.add_scatter(
            name="chosen",
            x=[x for x, c in zip(chart["x"], chosen, strict=True) if c],
            y=[y for y, c in zip(chart["y"], chosen, strict=True) if c],
            mode="markers",
            marker={"size": 14, "color": _COLORS["after"], "symbol": "star"},
        )
        fig.update_layout(xaxis_title=chart["x_title"], yaxis_title=chart["y_title"])
    elif kind == "distributions":
        names = list(chart["attributes"])
        buttons = []
        for i, name in enumerate(names):
            d = chart["attributes"][name]
            for series in ("original", "released"):
                fig.add_bar(
                    name=series,
                    x=d["values"],
                    y=d[series],
                    visible=i == 0,
                    marker_color=_COLORS[series],
                    legendgroup=series,
                    showlegend=True,
                )
            visible = [j // 2 == i for j in range(2 * len(names))]
            shown = (
                f" ({_SHOWN_VALUES} most frequent of {d['total']})"
                if d["total"] > _SHOWN_VALUES
                else ""
            )
            buttons.append(
                {
                    "label": name,
                    "method": "update",
                    "args": [{"visible": visible}, {"title": {"text": f"{name}{shown}"}}],
                }
            )
        first = chart["attributes"][names[0]] if names else {"total": 0}
        fig.update_layout(
            barmode="group",
            yaxis_title="share of records",
            xaxis={"type": "category"},
            updatemenus=[
                {"buttons": buttons, "direction": "down", "x": 1.0, "xanchor": "right", "y": 1.18}
            ],
            title={
                "text": (names[0] if names else "")
                + (
                    f" ({_SHOWN_VALUES} most frequent of {first['total']})"
                    if first["total"] > _SHOWN_VALUES
                    else ""
                )
            },
        )
        return fig
    fig.update_layout(title={"text": chart["title"]})
    return fig


def _html_chart(chart: dict, div_id: str) -> str:
    fig = _plotly_figure(chart)
    fig.update_layout(
        template="plotly_white",
        margin={"l": 50, "r": 20, "t": 60, "b": 60},
        legend={"orientation": "h", "y": -0.2},
    )
    spec = json.loads(fig.to_json())
    return (
        f'<div id="{div_id}" class="chart"></div>\n<script>Plotly.newPlot("{div_id}", '
        f"{_script_json(spec.get('data', []))}, {_script_json(spec.get('layout', {}))}, "
        f"{_script_json(_PLOTLY_CONFIG)});</script>"
    )


def render_html(report: Report) -> str:
    """One self-contained HTML page: interactive charts (plotly.js inlined once), no remote resource."""
    from plotly.offline import get_plotlyjs

    e = html.escape
    sections = report_sections(report)
    f = report.figures
    parts, chart_no = [], 0
    for sec in sections:
        body = []
        for block in sec["blocks"]:
            kind = block["kind"]
            if kind == "text":
                body.append(f"<p>{e(block['text'])}</p>")
            elif kind == "kv":
                body.append(_html_table(block, kv=True))
            elif kind == "table":
                body.append(_html_table(block))
            elif kind == "code":
                body.append(f"<pre>{e(block['text'])}</pre>")
            elif kind == "chart":
                chart_no += 1
                body.append(_html_chart(block["chart"], f"chart-{chart_no}"))
        parts.append(
            f'<section id="{e(sec["id"])}"><h2>{e(sec["title"])}</h2>\n'
            + "\n".join(body)
            + "</section>"
        )
    nav = "".join(f'<a href="#{e(s["id"])}">{e(s["title"])}</a>' for s in sections)
    source = (f["input"]["file"] or {}).get("name") or "table"
    verdict = (
        '<span class="ok">satisfied</span>'
        if f["transformation"]["satisfied"]
        else '<span class="bad">NOT satisfied</span>'
    )
    meta = {
        **report.meta,
        "signoff": report.provided.get("signoff"),
        "audit": report.provided.get("audit"),
    }
    # Plotly.js: inlined once, before every chart; '</' cannot occur inside it unescaped.
    plotly_js = get_plotlyjs().replace("</script", "<\\/script")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="anon-core {e(str(report.meta["software"].get("anon_core")))}">',
            f'<meta name="figures-sha256" content="{e(report.figures_sha256)}">',
            f"<title>Release report: {e(source)}</title>",
            f"<style>{_CSS}</style>",
            f'<script type="text/javascript">{plotly_js}</script>',
            "</head><body>",
            f"<header><h1>Release report: {e(source)}</h1><p>Generated {e(report.meta['generated_at'])} (UTC) "
            f"&middot; {verdict} &middot; figures SHA-256 <code>{e(report.figures_sha256)}</code></p></header>",
            f"<main><nav>{nav}</nav>",
            *parts,
            "</main>",
            f'<script type="application/json" id="release-figures">{_script_json(report.figures)}</script>',
            f'<script type="application/json" id="release-config">{_script_json(report.config)}</script>',
            f'<script type="application/json" id="release-meta">{_script_json(meta)}</script>',
            "</body></html>",
            "",
        ]
    )


# ============================================================================ PDF
_LATIN1 = str.maketrans(
    {
        "≤": "<=",
        "≥": ">=",
        "–": "-",
        "—": "-",
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "…": "...",
        "•": "*",
        "×": "x",
        "→": "->",
        "−": "-",
        "\u00a0": " ",
    }
)
_PDF_CELL_CHARS = (
    700  # longer cells are cut in the PDF (a row must fit on a page); the JSON has all
)
_PDF_COLORS = {
    "before": (140, 149, 159),
    "after": (9, 105, 218),
    "original": (140, 149, 159),
    "released": (9, 105, 218),
}


def _latin1(text: Any) -> str:
    """Text the PDF's core fonts can show (Latin-1; anything else becomes '?')."""
    return str(text).translate(_LATIN1).encode("latin-1", "replace").decode("latin-1")


def _pdf_class() -> Any:
    from fpdf import FPDF

    class _ReportPDF(FPDF):
        title_text = ""

        def footer(self) -> None:
            self.set_y(-10)
            self.set_font("Helvetica", "", 7)
            self.set_text_color(110, 119, 129)
            self.cell(
                0, 5, _latin1(f"{self.title_text}  -  page {self.page_no()}/{{nb}}"), align="C"
            )
            self.set_text_color(0, 0, 0)

    return _ReportPDF


def _pdf_table(
    pdf: Any, columns: Sequence[str] | None, rows: Sequence[Sequence[str]], kv: bool = False
) -> None:
    from fpdf.fonts import FontFace

    ncol = len(columns) if columns else 2
    pdf.set_fill_color(255, 255, 255)  # a chart's bar colour must not leak into the cells
    size = 8 if ncol <= 4 else (7 if ncol <= 6 else 6)
    pdf.set_font("Helvetica", "", size)
    widths = (35, 65) if kv else None
    with pdf.table(
        col_widths=widths,
        text_align="LEFT",
        first_row_as_headings=not kv,
        line_height=size * 0.5,
        borders_layout="HORIZONTAL_LINES",
        headings_style=FontFace(emphasis="BOLD", fill_color=(246, 248, 250)),
        padding=0.8,
    ) as table:
        if columns and not kv:
            row = table.row()
            for c in columns:
                row.cell(_latin1(c))
        for r in rows:
            row = table.row()
            for c in r:
                text = _latin1(c)
                row.cell(
                    text if len(text) <= _PDF_CELL_CHARS else text[: _PDF_CELL_CHARS - 4] + " ..."
                )
    pdf.ln(2)


def _pdf_bars(pdf: Any, chart: dict) -> None:
    """A horizontal grouped bar chart drawn with vector rectangles."""
    cats, series = chart["categories"], chart["series"]
    values = [v for vs in series.values() for v in vs if v is not None]
    if not cats or not values:
        return
    top = max(max(values), 0.0) or 1.0
    if chart.get("unit") == "share":
        top = max(top, 1e-12)
    k = len(series)
    bar_h, label_w = 2.6, 58.0
    row_h = bar_h * k + 1.6
    area_w = pdf.epw - label_w - 22
    needed = 8 + row_h * len(cats) + 8
    if pdf.get_y() + needed > pdf.h - pdf.b_margin:
        pdf.add_page()
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 6, _latin1(chart["title"]), new_x="LMARGIN", new_y="NEXT")
    x0, y = pdf.l_margin, pdf.get_y()
    pdf.set_draw_color(208, 215, 222)
    pdf.line(x0 + label_w, y, x0 + label_w, y + row_h * len(cats))
    for i, cat in enumerate(cats):
        ry = y + i * row_h
        pdf.set_font("Helvetica", "", 7)
        pdf.set_xy(x0, ry + (row_h - 3.5) / 2)
        pdf.cell(label_w - 2, 3.5, _latin1(cat)[:48], align="R")
        for j, (name, vs) in enumerate(series.items()):
            v = vs[i]
            by = ry + 0.8 + j * bar_h
            pdf.set_fill_color(*_PDF_COLORS.get(name, (9, 105, 218)))
            w = 0.0 if v is None else max(0.0, area_w * float(v) / top)
            if w > 0:
                pdf.rect(x0 + label_w, by, w, bar_h - 0.4, style="F")
            pdf.set_font("Helvetica", "", 6)
            pdf.set_xy(x0 + label_w + w + 1, by - 0.3)
            pdf.cell(20, bar_h, _latin1("n/a" if v is None else _fmt(v, 4)))
    pdf.set_xy(x0, y + row_h * len(cats) + 1)
    if k > 1 or list(series) != ["distance"]:
        for name in series:
            pdf.set_fill_color(*_PDF_COLORS.get(name, (9, 105, 218)))
            pdf.rect(pdf.get_x(), pdf.get_y() + 0.8, 3, 2.4, style="F")
            pdf.set_x(pdf.get_x() + 4)
            pdf.set_font("Helvetica", "", 7)
            pdf.cell(25, 4, _latin1(name))
    pdf.set_fill_color(255, 255, 255)
    pdf.ln(7)


def render_pdf(report: Report) -> bytes:
    """The report as a PDF: tables, vector bar charts, the configuration appendix, JSON attachments."""
    sections = report_sections(report)
    cls = _pdf_class()
    pdf = cls(format="A4")
    generated = datetime.strptime(report.meta["generated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=UTC
    )
    source = (report.figures["input"]["file"] or {}).get("name") or "table"
    pdf.title_text = f"Release report: {source}"
    pdf.set_title(_latin1(pdf.title_text))
    pdf.set_author("anon-core")
    pdf.set_creator(f"anon-core {report.meta['software'].get('anon_core')}")
    pdf.set_subject(f"figures-sha256:{report.figures_sha256}")
    pdf.set_keywords(f"release report, anon-core, figures-sha256:{report.figures_sha256}")
    pdf.set_creation_date(generated)
    pdf.set_auto_page_break(True, margin=14)
    pdf.set_margins(14, 14, 14)
    for key, basename in ATTACHMENTS.items():
        payload = {
            "figures": figures_json(report.figures),
            "config": json.dumps(report.config, ensure_ascii=False, sort_keys=True, indent=1),
            "meta": json.dumps(
                {
                    **report.meta,
                    "signoff": report.provided.get("signoff"),
                    "audit": report.provided.get("audit"),
                },
                ensure_ascii=False,
                sort_keys=True,
                indent=1,
            ),
        }[key]
        pdf.embed_file(
            bytes=payload.encode("utf-8"),
            basename=basename,
            modification_date=generated,
            creation_date=generated,
            mime_type="application/json",
            compress=True,
            desc=f"anon-core release {key} (JSON)",
        )
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, _latin1(pdf.title_text), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 8)
    pdf.multi_cell(
        0,
        4,
        _latin1(
            f"Generated {report.meta['generated_at']} (UTC). Figures SHA-256 "
            f"{report.figures_sha256}. The figures, configuration and metadata are attached to "
            "this PDF as JSON files."
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.ln(2)
    for sec in sections:
        if sec["id"] == "configuration":
            pdf.add_page()
        elif pdf.get_y() > pdf.h - 50:
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 12)
        pdf.set_text_color(13, 17, 23)
        pdf.cell(0, 8, _latin1(sec["title"]), new_x="LMARGIN", new_y="NEXT")
        for block in sec["blocks"]:
            kind = block["kind"]
            if kind == "text":
                pdf.set_font("Helvetica", "", 8)
                pdf.multi_cell(0, 4, _latin1(block["text"]), new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            elif kind == "kv":
                _pdf_table(pdf, None, block["rows"], kv=True)
            elif kind == "table":
                _pdf_table(pdf, block["columns"], block["rows"])
                if block.get("note"):
                    pdf.set_font("Helvetica", "I", 7)
                    pdf.multi_cell(0, 3.5, _latin1(block["note"]), new_x="LMARGIN", new_y="NEXT")
                    pdf.ln(1)
            elif kind == "chart" and block["chart"]["type"] == "bars":
                _pdf_bars(pdf, block["chart"])
            elif kind == "code":
                pdf.set_font("Courier", "", 6.5)
                pdf.multi_cell(0, 3, _latin1(block["text"]), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    return bytes(pdf.output())


def write_report(report: Report, path: str | os.PathLike[str]) -> Path:
    """Write the report as HTML (.html/.htm) or PDF (.pdf), by the suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in {".html", ".htm"}:
        data = render_html(report).encode("utf-8")
    elif suffix == ".pdf":
        data = render_pdf(report)
    else:
        raise ConfigError(
            f"Report format {suffix or '(none)'!r} is not supported; name the report .html or .pdf."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ============================================================================ reading back
class _ScriptGrabber:
    """Collects the text of <script type="application/json" id=...> elements."""

    def __init__(self, text: str) -> None:
        from html.parser import HTMLParser

        found: dict[str, str] = {}

        class Parser(HTMLParser):
            current: str | None = None

            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                a = dict(attrs)
                if tag == "script" and a.get("type") == "application/json" and a.get("id"):
                    self.current = a["id"]
                    found[self.current] = ""

            def handle_endtag(self, tag: str) -> None:
                if tag == "script":
                    self.current = None

            def handle_data(self, data: str) -> None:
                if self.current is not None:
                    found[self.current] += data

        parser = Parser(convert_charrefs=False)
        parser.feed(text)
        parser.close()
        self.found = found


def read_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"figures", "config", "meta"}`` embedded in an HTML or PDF report."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Report {str(path)!r} does not exist. Check the path.")
    raw = path.read_bytes()
    out: dict[str, Any] = {}
    try:
        if raw.lstrip()[:5] == b"%PDF-":
            try:
                from pypdf import PdfReader
            except ImportError:
                raise ConfigError("Reading a PDF report needs pypdf: pip install pypdf.") from None

            attachments = PdfReader(io.BytesIO(raw)).attachments
            for key, basename in ATTACHMENTS.items():
                if basename in attachments:
                    out[key] = json.loads(attachments[basename][0].decode("utf-8"))
        else:
            found = _ScriptGrabber(raw.decode("utf-8")).found
            for key in ATTACHMENTS:
                if f"release-{key}" in found:
                    out[key] = json.loads(found[f"release-{key}"])
    except ConfigError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"Report {path.name} could not be read ({exc}); it is not a release report."
        ) from None
    except Exception as exc:  # pypdf raises its own errors on a broken PDF
        raise ConfigError(f"Report {path.name} is not a readable PDF ({exc}).") from None
    if "figures" not in out:
        raise ConfigError(
            f"Report {path.name} holds no release figures: give an HTML or PDF written by anon-core's release report."
        )
    return out


def read_report_figures(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The canonical figures block embedded in an HTML or PDF report."""
    return read_report(path)["figures"]


# ============================================================================ verify
def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for k in sorted(set(a) | set(b)):
            p = f"{where}.{k}" if where else str(k)
            if k not in b:
                out.append(f"{p}: in the report ({_short(a[k])}) but not in the re-run")
            elif k not in a:
                out.append(f"{p}: not in the report, re-run gives {_short(b[k])}")
            else:
                _diff(a[k], b[k], p, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: the report lists {len(a)} entries, the re-run {len(b)}")
            if not all(isinstance(x, Mapping | list) for x in a + b):
                return
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{where}[{i}]", out)
        return
    numbers = (int, float)
    if (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and math.isclose(a, b, rel_tol=_FLOAT_RTOL, abs_tol=_FLOAT_ATOL)
    ):
        return
    if a != b:
        out.append(f"{where}: report {_short(a)}, re-run {_short(b)}")


def _short(x: Any) -> str:
    text = json.dumps(x, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _regenerate(frame: pd.DataFrame, suffix: str) -> bytes:
    """The released file's bytes as the CLI writes them (its own writer, via a temporary file)."""
    import tempfile

    from anon_core.data.io import write_table

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"released{suffix}"
        write_table(frame, path)
        return path.read_bytes()


def verify(
    config_path: str | os.PathLike[str],
    report_path: str | os.PathLike[str],
    released_path: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Re-run the configuration and compare with the report; the differences, or [] when all match.

    Checks: the report's figures against its own SHA-256 (an edited report); the
    configuration file against the one embedded (module sections' secrets
    redacted on both sides); every figure of a re-run (same input, same
    selection: a searched optimum is searched again) against the report's,
    numbers to a relative 1e-9; the released file given against the report's
    fingerprint, and, for .csv/.tsv/.json, the re-run's own output file. The
    input file is compared when the report fingerprinted one.
    """
    embedded = read_report(report_path)
    figures = embedded["figures"]
    differences: list[str] = []
    stated = (embedded.get("meta") or {}).get("figures_sha256")
    if stated is not None and stated != figures_sha256(figures):
        differences.append(
            f"report: its figures do not hash to the SHA-256 it states ({stated}): the report was edited"
        )
    config_file = read_config_file(config_path)
    if "config" in embedded:
        _diff(embedded["config"], _scrub_config(config_file), "configuration", differences)
    else:
        differences.append("report: it embeds no configuration")

    config = load_config(config_path)
    # Build from the section-applied configuration, but compare against the one as written.
    problem, _, _ = Problem.for_release(config)
    method = (figures.get("transformation") or {}).get("selection", {}).get("method", "configured")
    found = None
    if config.transformation is None or method == "search":
        found = problem.search(**config.search)
    result = (
        problem.evaluate(config.transformation)
        if config.transformation is not None
        else found.optimum
    )
    if result is None:
        return [
            *differences,
            "re-run: no transformation satisfies the privacy models within the suppression limit",
        ]
    reported_out = (figures.get("output") or {}).get("file")
    rerun_out = None
    released = None if problem.dataset.grouped else problem.apply(result, config.suppressed_records)
    if reported_out is not None:
        suffix = Path(reported_out.get("name") or "released.csv").suffix.lower() or ".csv"
        if released is None and suffix in {".csv", ".parquet"}:  # the engine writes it again
            with tempfile.TemporaryDirectory(prefix="anon-verify-") as tmp:
                out = problem.write_release(
                    result,
                    Path(tmp) / (reported_out.get("name") or f"released{suffix}"),
                    config.suppressed_records,
                )
                rerun_out = {**_path_fingerprint(out.path), "name": reported_out.get("name")}
        elif released is None:
            rerun_out = reported_out
        elif suffix in REGENERATED_FORMATS:
            rerun_out = _file_fingerprint(reported_out.get("name"), _regenerate(released, suffix))
        else:
            rerun_out = (
                reported_out  # not byte-reproducible (e.g. Excel stamps the time): not compared
            )
    input_file = None
    if (figures.get("input") or {}).get("file") is not None and config.input_path is not None:
        input_file = _path_fingerprint(config.input_path)
    rerun = _compute(config, problem, result, found, input_file, rerun_out)[0]
    _diff(figures, rerun, "", differences)
    if released_path is not None:
        path = Path(released_path)
        if not path.exists():
            differences.append(f"released file {str(path)!r} does not exist")
        else:
            digest = _path_fingerprint(path)["sha256"]
            expected = reported_out["sha256"] if reported_out is not None else None
            if expected is None and path.suffix.lower() in {".csv", ""}:
                expected = figures["output"]["csv_sha256"]
            if expected is None:
                differences.append(
                    f"released file {path.name}: the report has no fingerprint of a released file"
                )
            elif digest != expected:
                differences.append(
                    f"released file {path.name}: SHA-256 {digest}, the report states {expected}"
                )
    if len(differences) > _MAX_DIFFERENCES:
        more = len(differences) - _MAX_DIFFERENCES
        differences = [*differences[:_MAX_DIFFERENCES], f"... and {more} more differences"]
    return differences


# ============================================================================ audit trail
def audit_csv(audit: Sequence[Mapping[str, Any]]) -> str:
    """The audit trail as CSV (columns change, at)."""
    rows = _check_audit(audit) or []
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["change", "at"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def audit_json(audit: Sequence[Mapping[str, Any]]) -> str:
    """The audit trail as a JSON list of {"change", "at"}."""
    return json.dumps(_check_audit(audit) or [], indent=2, ensure_ascii=False)

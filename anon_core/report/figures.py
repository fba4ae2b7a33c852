"""Building a release report: its figures block rendered from the evidence the application layer
computed (:mod:`anon_core.services.report_evidence`), the metadata, the sign-off and the signature."""

from __future__ import annotations

import csv
import io
import json
import os
import platform
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from anon_core.config import ReleaseConfig, load_config, parse_config
from anon_core.errors import ConfigError
from anon_core.report.evidence import attack_figures
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
)
from anon_core.report.signature import configured_private_key, sign, signing_payload
from anon_core.services.report_evidence import ReportEvidence
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


def render_figures(
    evidence: ReportEvidence,
    config: ReleaseConfig,
    input_file: dict[str, Any] | None,
    released_file: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(figures, details) of the report: ``evidence`` laid out as the canonical figures block,
    with the input and released files' fingerprints; chart data with small cells merged."""
    ev = evidence
    figures = {
        "schema": FIGURES_SCHEMA,
        "input": {
            "file": input_file,
            "hierarchy_files": {
                name: file_fingerprint(file, data)
                for name, (file, data) in ev.hierarchy_files.items()
            },
            "rows": ev.n_rows,
            "columns": ev.input_columns,
            "table_sha256": ev.input_table_sha256,
            "engine": ev.engine,
        },
        "output": {
            "file": released_file,
            "rows": ev.released_rows,
            "columns": ev.released_columns,
            "csv_sha256": ev.released_sha256,
            "suppressed_records": ev.suppressed_records,
        },
        "attributes": ev.roles,
        "hierarchies": ev.hierarchies,
        "privacy": ev.privacy,
        "transformation": ev.transformation,
        "risk": {
            "note": "Journalist figures equal the prosecutor's (no population table); population: USA (ARX)",
            "before": ev.risk_before,
            "after": ev.risk_after,
        },
        "disclosure": ev.disclosure,
        "utility": {"quality": ev.quality, "distributions": ev.distributions},
    }
    # Evidence beyond class sizes: the method and its guarantee, the population figures and,
    # with an 'attack' section, the attack battery on the configuration's seeded split.
    figures["method"] = ev.method
    if ev.population is not None:
        figures["population"] = ev.population
    attacks = attack_figures(ev.attacks)
    if attacks is not None:
        figures["attacks"] = attacks
    details = {
        "hierarchies": {
            q: _covers(values, counts, level_map, ev.hierarchies[q]["labels"])
            for q, (values, counts, level_map) in ev.hierarchy_codes.items()
        },
        "distributions": _distribution_details(ev.distribution_table, ev.n_rows),
        "search_ms": ev.search_ms,
    }
    return plain(figures), details


def _covers(
    values: Any, counts: np.ndarray, level_map: np.ndarray, labels: list[str]
) -> list[list[Any]]:
    """Per released label: [label, values covered, the values with >= MIN_CELL records, values hidden].

    Original values held by fewer than MIN_CELL records are not named in the
    report (an exact birth date or ZIP code held by one person is personal data).
    """
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
    problem: Any = None,
    result: Any = None,
    search_result: Any = None,
    released: Any = None,
    input_bytes: bytes | None = None,
    signoff: Mapping[str, Any] | None = None,
    audit: Sequence[Mapping[str, Any]] | None = None,
    pii: Any = None,
    dp: Any = None,
    ml: Any = None,
    *,
    evidence: ReportEvidence | None = None,
    generated_at: datetime | None = None,
    signing_key: Any = None,
    chosen_by: str | None = None,
) -> Report:
    """The release report of a generalization's transformation, rendered from its evidence.

    * ``config_path_or_config``: the configuration file (its input file is read
      and fingerprinted unless ``input_bytes`` is given), a ReleaseConfig, or a
      configuration mapping (the dashboard's; then only ``input_bytes`` is
      fingerprinted, the loaded table always is).
    * ``evidence``: the figures :meth:`Session.report_evidence
      <anon_core.services.session.Session.report_evidence>` computed (the CLI's and the
      dashboard's way). Without it, ``problem`` and ``result`` (a transformation of the
      problem built from the configuration) and ``search_result`` are handed to
      :func:`anon_core.services.report_evidence.report_evidence`, which computes them; the
      search's statistics, ties and Pareto frontier are reported when its optimum is ``result``.
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
    if evidence is None:
        from anon_core.services.report_evidence import report_evidence

        evidence = report_evidence(config, problem, result, search_result)
    name = config.input_path.name if config.input_path is not None else None
    input_file = None if input_bytes is None else file_fingerprint(name, bytes(input_bytes))
    if (
        input_bytes is None
        and config.input_path is not None
        and config.input_path.exists()
        and (from_file or evidence.grouped)
    ):
        input_file = path_fingerprint(config.input_path)
    figures, details = render_figures(evidence, config, input_file, _released_fingerprint(released))
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

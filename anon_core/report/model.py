"""The report's model: the canonical figures block, its hashing, secret scrubbing and fingerprints.

A report has ``figures`` (the canonical, reproducible block: fingerprints, roles,
hierarchies, models, transformation, risk, disclosure, utility; nothing time- or
machine-dependent), ``config`` (secrets of module sections redacted), ``meta``
(time, software, the figures' SHA-256, the optional Ed25519 signature),
``provided`` (sign-off, audit trail, PII, DP, ML summaries as given) and
``details`` (aggregated chart data, small cells suppressed). :func:`figures_json`
(sorted keys, no spaces, UTF-8) gives stable bytes, hence a stable ``figures_sha256``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.config import MODULE_SECTIONS

FIGURES_SCHEMA = "anon-core/release-figures/1"
REDACTED = "[redacted]"
#: Field names whose values are never written into a report.
SECRET_FIELD = re.compile(
    r"key|secret|salt|pepper|passw|pwd|token|credential|private", re.IGNORECASE
)
#: Fields that name where a secret lives (an environment variable), not the secret itself.
SECRET_REFERENCE = re.compile(r"_env$", re.IGNORECASE)
DECISIONS = ("approve", "reject")
SIGNOFF_KEYS = {"name", "role", "decision", "comments", "date", "justification"}
#: Formats whose released file verify() regenerates byte for byte.
REGENERATED_FORMATS = (".csv", ".tsv", ".json", ".xlsx")
SHOWN_LABELS = 40  # generalized labels listed per QI in the rendered report
SHOWN_VALUES = 40  # values per attribute in the distribution chart
SHOWN_QI_ROWS = 10
#: Smallest number of records a chart bar or a named original value may stand for (smaller cells merged).
MIN_CELL = 5
ATTACHMENTS = {
    "figures": "release-figures.json",
    "config": "release-config.json",
    "meta": "release-meta.json",
    "provided": "release-provided.json",
    "details": "release-details.json",
}
#: Metadata keys kept in the embedded meta for readers of older reports (their source is ``provided``).
META_PROVIDED_KEYS = ("signoff", "audit")


def plain(obj: Any) -> Any:
    """A JSON-ready copy: numpy scalars to Python, NaN/inf to None, tuples to lists, keys to str."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | np.ndarray | pd.Index):
        return [plain(v) for v in obj]
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
        plain(figures), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
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


def scrub_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration as embedded in a report: module sections (PII, pseudonymization, DP) scrubbed.

    The core sections are schema-validated and hold no secret; their mappings are
    keyed by column names, which must not be mistaken for secret fields.
    """
    out = plain(copy.deepcopy(dict(raw)))
    for section in MODULE_SECTIONS:
        if section in out:
            out[section] = scrub_secrets(out[section])
    return out


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_fingerprint(name: str | None, data: bytes) -> dict[str, Any]:
    return {"name": name, "sha256": sha256_hex(data), "bytes": len(data)}


def path_fingerprint(path: Path) -> dict[str, Any]:
    """Like :func:`file_fingerprint` for a file read in blocks (or a folder of parts, as Spark writes)."""
    from anon_core.release.engines.base import file_sha256

    size = (
        sum(f.stat().st_size for f in path.iterdir() if f.is_file())
        if path.is_dir()
        else path.stat().st_size
    )
    return {"name": path.name, "sha256": file_sha256(path), "bytes": size}


def table_csv_bytes(frame: pd.DataFrame) -> bytes:
    """The table as the CLI writes a .csv (no index, LF line ends, UTF-8): the canonical bytes hashed
    (:func:`anon_core.services.release.canonical_csv`, the bytes a release's SHA-256 is of)."""
    from anon_core.services.release import canonical_csv

    return canonical_csv(frame)


@dataclass(frozen=True, eq=False)
class Report:
    """A release report (see the module docstring). Render with :func:`render_html` / :func:`render_pdf`."""

    figures: dict[str, Any]
    config: dict[str, Any]
    meta: dict[str, Any]
    provided: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict, repr=False)  # chart data, display only

    @classmethod
    def from_embedded(cls, embedded: Mapping[str, Any]) -> Report:
        """The report as its file embeds it (what verify re-renders the visible content from)."""
        meta = {
            k: v for k, v in (embedded.get("meta") or {}).items() if k not in META_PROVIDED_KEYS
        }
        return cls(
            figures=dict(embedded.get("figures") or {}),
            config=dict(embedded.get("config") or {}),
            meta=meta,
            provided=dict(embedded.get("provided") or {}),
            details=dict(embedded.get("details") or {}),
        )

    def embedded_meta(self) -> dict[str, Any]:
        """The metadata block as embedded (with the sign-off and audit trail, for readers)."""
        return {**self.meta, **{k: self.provided.get(k) for k in META_PROVIDED_KEYS}}

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

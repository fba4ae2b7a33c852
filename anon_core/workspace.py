"""The analyst's working state, independent of any UI: data, roles, hierarchies,
privacy configuration, current transformation and an undo history.

The dashboard keeps one Workspace per session; it round-trips through the same
release configuration the CLI reads (hierarchies inline), so a session can be
saved, resumed and rerun headless.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.config import parse_config
from anon_core.data.builders import build_hierarchy, default_hierarchy
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import ColumnKind, column_profile, infer_kind, to_labels
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.quality.metrics import make_metric
from anon_core.release.apply import apply_transformation
from anon_core.search.evaluate import Evaluator
from anon_core.services.problem import Problem

#: Column names that almost always hold direct identifiers.
_IDENTIFIER_HINTS = (
    "name",
    "email",
    "e-mail",
    "phone",
    "ssn",
    "passport",
    "iban",
    "account",
    "patient_id",
    "record_id",
    "mrn",
)
#: Column names that usually hold the attribute an attacker wants to learn.
_SENSITIVE_HINTS = (
    "diagnos",
    "disease",
    "illness",
    "condition",
    "salary",
    "income",
    "religion",
    "treatment",
)
MAX_HISTORY = 50


def suggest_roles(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    """A role per column with the reason, from names, kinds and uniqueness.

    Identifier-like names and nearly unique categorical columns (>= 90% unique
    values) are identifiers; long free text is insensitive (scan it for PII);
    names such as diagnosis or income suggest a sensitive attribute; everything
    else, dates and numbers included however unique, is a quasi-identifier
    (they can be generalized).
    """
    profile = column_profile(frame).set_index("column")
    out = {}
    for col in frame.columns:
        row = profile.loc[str(col)]
        lowered = str(col).lower()
        if any(h in lowered for h in _IDENTIFIER_HINTS):
            out[str(col)] = {
                "role": Role.IDENTIFIER.value,
                "reason": "name suggests a direct identifier",
            }
        elif row["kind"] == ColumnKind.TEXT:
            out[str(col)] = {
                "role": Role.INSENSITIVE.value,
                "reason": "free text (scan it for personal data)",
            }
        elif any(h in lowered for h in _SENSITIVE_HINTS):
            out[str(col)] = {
                "role": Role.SENSITIVE.value,
                "reason": "name suggests a sensitive attribute",
            }
        elif (
            row["kind"] == ColumnKind.CATEGORICAL
            and row["unique_share"] >= 0.9
            and len(frame) >= 10
        ):
            out[str(col)] = {
                "role": Role.IDENTIFIER.value,
                "reason": f"{row['unique_share']:.0%} of values are unique",
            }
        else:
            out[str(col)] = {
                "role": Role.QUASI_IDENTIFIER.value,
                "reason": f"{row['distinct']} distinct values; could be known to an attacker",
            }
    return out


@dataclass
class Workspace:
    """Mutable working state; every change through :meth:`update` is undoable."""

    frame: pd.DataFrame
    source: str = "data"
    roles: dict[str, str] = field(default_factory=dict)
    hierarchy_specs: dict[str, dict[str, Any]] = field(default_factory=dict)
    models: list[dict[str, Any]] = field(default_factory=lambda: [{"model": "k-anonymity", "k": 5}])
    suppression_limit: float = 0.02
    metric: dict[str, Any] = field(default_factory=lambda: {"name": "loss"})
    transformation: dict[str, int] | None = None
    #: Module sections of the release configuration: "text", "pseudonymize", "dp".
    sections: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list, repr=False)
    audit: list[dict[str, Any]] = field(default_factory=list, repr=False)
    frame_hash: str = field(default="", repr=False)
    #: A file opened by path (:class:`~anon_core.release.engines.large.LargeTable`): ``frame`` is then its
    #: seeded sample for row-level views; frequency tables, search, risk and the release read the
    #: whole file through the engine.
    large: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.large is not None and not self.frame_hash:
            self.frame_hash = hashlib.sha256(self.large.key.encode()).hexdigest()
        if not self.frame_hash:  # the frame is never modified: hash it once
            digest = hashlib.sha256(
                pd.util.hash_pandas_object(self.frame, index=True).to_numpy().tobytes()
            )
            digest.update(json.dumps(list(map(str, self.frame.columns))).encode())
            self.frame_hash = digest.hexdigest()

    # ------------------------------------------------------------ creation
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "data") -> Workspace:
        roles = {c: s["role"] for c, s in suggest_roles(frame).items()}
        return cls(frame=frame, source=source, roles=roles)

    @classmethod
    def from_large(cls, large: Any) -> Workspace:
        """A workspace over a file opened by path; roles are suggested from its sample."""
        roles = {c: s["role"] for c, s in suggest_roles(large.sample).items()}
        return cls(frame=large.sample, source=str(large.source.path), roles=roles, large=large)

    @property
    def n_rows(self) -> int:
        """Records of the whole table (of the file, for one opened by path)."""
        return self.large.n_rows if self.large is not None else len(self.frame)

    def values(self, column: str) -> pd.Series:
        """The column's values that hierarchies must cover: every row, or for a file opened by
        path its distinct values over the whole file (in order of first appearance)."""
        if self.large is not None:
            return self.large.distinct(column)
        return self.frame[column]

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], frame: pd.DataFrame, source: str = "data", large: Any = None
    ) -> Workspace:
        """Resume from a release configuration (the file the CLI reads)."""
        parsed = parse_config(config)
        missing = [a for a in parsed.roles if a not in frame.columns]
        if missing:
            raise ConfigError(
                f"The configuration names columns {missing} that this table does not have."
            )
        roles = {c: Role.INSENSITIVE.value for c in frame.columns}
        roles.update({c: r.value for c, r in parsed.roles.items()})
        specs = {
            name: dict(spec) for name, spec in parsed.hierarchy_specs.items() if "file" not in spec
        }
        ws = cls(
            frame=frame,
            source=source,
            roles=roles,
            hierarchy_specs=specs,
            models=[dict(m) for m in parsed.models],
            suppression_limit=parsed.suppression_limit,
            metric=dict(parsed.quality_metric or {"name": "loss"}),
            transformation=dict(parsed.transformation) if parsed.transformation else None,
            sections=copy.deepcopy(parsed.sections),
            large=large,
        )
        ws.problem()  # validates hierarchies and models against the data now
        return ws

    # ------------------------------------------------------------ state
    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(
            {
                "roles": self.roles,
                "hierarchy_specs": self.hierarchy_specs,
                "models": self.models,
                "suppression_limit": self.suppression_limit,
                "metric": self.metric,
                "transformation": self.transformation,
                "sections": self.sections,
            }
        )

    def update(self, what: str, **changes: Any) -> None:
        """Apply a change, remembering the previous state for undo and the audit trail."""
        before = self.snapshot()
        for key, value in changes.items():
            if key not in before:
                raise AttributeError(f"Workspace has no setting {key!r}.")
            setattr(self, key, copy.deepcopy(value))
        if self.snapshot() == before:
            return
        self.history.append(before)
        del self.history[:-MAX_HISTORY]
        self.audit.append(
            {"change": what, "at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds")}
        )

    def undo(self) -> bool:
        if not self.history:
            return False
        state = self.history.pop()
        for key, value in state.items():
            setattr(self, key, value)
        self.audit.append(
            {"change": "undo", "at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds")}
        )
        return True

    # ------------------------------------------------------------ derived
    @property
    def qis(self) -> list[str]:
        return [c for c in self.frame.columns if self.roles.get(c) == Role.QUASI_IDENTIFIER.value]

    @property
    def sensitive(self) -> list[str]:
        return [c for c in self.frame.columns if self.roles.get(c) == Role.SENSITIVE.value]

    def hierarchy(self, column: str) -> Hierarchy:
        """The column's hierarchy: from its spec, else the default for its kind."""
        spec = self.hierarchy_specs.get(column)
        column_values = self.values(column)
        values = pd.unique(to_labels(column_values))
        if spec is None:
            return default_hierarchy(values, infer_kind(column_values), name=column)
        if "table" in spec:
            return Hierarchy(np.asarray(spec["table"], dtype=object), name=column)
        return build_hierarchy(spec, values, name=column)

    def set_hierarchy(self, column: str, spec: dict[str, Any] | None) -> None:
        """Use ``spec`` (None = default for the kind) for ``column`` after checking it covers the data."""
        if column not in self.frame.columns:
            raise ConfigError(f"{column!r} is not a column of the table.")
        trial = dict(self.hierarchy_specs)
        if spec is None:
            trial.pop(column, None)
        else:
            trial[column] = copy.deepcopy(spec)
        if trial == self.hierarchy_specs:
            return
        probe = Workspace(
            self.frame,
            self.source,
            dict(self.roles),
            trial,
            frame_hash=self.frame_hash,
            large=self.large,
        )
        probe.hierarchy(column).encode(
            pd.unique(to_labels(self.values(column)))
        )  # raises if values are missing
        self.update(f"hierarchy of {column}", hierarchy_specs=trial, transformation=None)

    def hierarchies(self) -> dict[str, Hierarchy]:
        cols = self.qis + [s for s in self.sensitive if s in self.hierarchy_specs]
        return {c: self.hierarchy(c) for c in cols}

    def data_key(self) -> str:
        """Fingerprint of the data, roles and hierarchies: the frequency table's cache key."""
        h = hashlib.sha256(self.frame_hash.encode())
        h.update(
            json.dumps([self.roles, self.hierarchy_specs], sort_keys=True, default=str).encode()
        )
        return h.hexdigest()

    def encoded_columns(self) -> list[str]:
        """Columns the frequency table encodes: quasi-identifiers and sensitive attributes, in table order."""
        return [c for c in self.frame.columns if c in set(self.qis) | set(self.sensitive)]

    def dataset(self, progress: Any = None) -> Dataset:
        if not self.qis:
            raise ConfigError(
                "No column is a quasi-identifier yet: mark at least one on the Attributes page."
            )
        if self.large is not None:
            cols = self.encoded_columns()
            grouped = self.large.group(cols, progress) if progress else self.large.group(cols)
            return Dataset(
                grouped.frame,
                {c: self.roles[c] for c in cols},
                self.hierarchies(),
                weights=grouped.counts,
            )
        return Dataset(self.frame, self.roles, self.hierarchies())

    def evaluator(self, freq: FrequencyTable) -> Evaluator:
        """Models, suppression limit and metric bound to a (cached) frequency table."""
        return Evaluator(
            freq,
            [make_model(m) for m in self.models],
            self.suppression_limit,
            make_metric(self.metric),
        )

    def problem(self) -> Problem:
        if not self.qis:
            raise ConfigError(
                "No column is a quasi-identifier yet: mark at least one on the Attributes page."
            )
        if self.large is not None:
            return Problem.from_grouped(
                self.large.group(self.encoded_columns()),
                self.large.engine,
                self.roles,
                self.hierarchies(),
                [make_model(m) for m in self.models],
                self.suppression_limit,
                make_metric(self.metric),
            )
        return Problem(
            self.frame,
            self.roles,
            self.hierarchies(),
            [make_model(m) for m in self.models],
            self.suppression_limit,
            make_metric(self.metric),
        )

    def default_transformation(self) -> dict[str, int]:
        return {q: 0 for q in self.qis}

    def to_config(self, input_path: str | None = None) -> dict[str, Any]:
        """The release configuration; hierarchies inline so it is self-contained."""
        attributes: dict[str, Any] = {}
        for col in self.frame.columns:
            role = self.roles.get(col, Role.INSENSITIVE.value)
            entry: dict[str, Any] = {"role": role}
            if role == Role.QUASI_IDENTIFIER.value or col in self.hierarchy_specs:
                entry["hierarchy"] = {"table": self.hierarchy(col).table.tolist()}
            attributes[str(col)] = entry
        config: dict[str, Any] = {
            "input": {"path": input_path or self.source},
            **({"engine": self.large.engine.name} if self.large is not None else {}),
            "attributes": attributes,
            "privacy_models": copy.deepcopy(self.models),
            "suppression_limit": self.suppression_limit,
            "quality_metric": dict(self.metric),
        }
        if self.transformation:
            config["transformation"] = {
                q: int(v) for q, v in self.transformation.items() if q in self.qis
            }
        config.update(copy.deepcopy(self.sections))
        return config

    def write_release(
        self, result: Any, out: Any, suppressed_records: str = "remove", progress: Any = None
    ) -> Any:
        """Write the release of a file opened by path with its engine (returns a ReleaseSummary)."""
        if self.large is None:
            raise ConfigError(
                "Only a file opened by path is released to a file here; download the release instead."
            )
        if "text" in self.sections or "pseudonymize" in self.sections:
            raise ConfigError(
                "Text de-identification and pseudonymization run in memory; they are not available "
                "for a file opened by path."
            )
        from anon_core.release.engines import build_release_plan

        problem = self.problem()
        plan = build_release_plan(
            problem.dataset,
            result,
            suppressed_records,
            list(self.large.source.columns),
            problem.input_roles,
        )
        kwargs = {"progress": progress} if progress else {}
        return self.large.engine.release(self.large.source, plan, out, **kwargs)

    def sample_release(self, result: Any, suppressed_records: str = "remove") -> pd.DataFrame:
        """For a file opened by path: the release restricted to the sample's rows (row-level views, ML)."""
        if self.large is None:
            return self.release(self.dataset(), result, suppressed_records)
        from anon_core.release.engines import build_release_plan

        problem = self.problem()
        plan = build_release_plan(
            problem.dataset,
            result,
            suppressed_records,
            list(self.large.source.columns),
            problem.input_roles,
        )
        return plan.apply_frame(self.frame)

    def release(
        self, dataset: Dataset, result: Any, suppressed_records: str = "remove"
    ) -> pd.DataFrame:
        """The released table as the CLI writes it: text and pseudonymization sections applied,
        quasi-identifiers generalized, suppressed records handled. Secrets come from the environment."""
        if self.large is not None:
            raise ConfigError(
                "A file opened by path is not in memory: write the release to a file instead."
            )
        frame, roles = self.frame, None
        if "text" in self.sections or "pseudonymize" in self.sections:
            from anon_core.pii.core import apply_release_sections  # Presidio loads only when needed

            frame, config = apply_release_sections(self.frame, parse_config(self.to_config()))
            roles = {c: Role(config.roles.get(c, Role.INSENSITIVE)) for c in self.frame.columns}
        return apply_transformation(dataset, result, suppressed_records, frame=frame, roles=roles)

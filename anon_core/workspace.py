"""The analyst's working state, independent of any UI: the table and its release configuration.

The state **is** a release configuration (the file the CLI reads) plus undo/redo history and an
audit trail. Roles, hierarchies, models, suppression, metric and transformation are views of that
configuration; every section of a loaded configuration (``search``, ``output``, ``engine``, module
sections, hierarchy files) is kept, so loading, editing and saving round-trips exactly. Everything
derived (frequency table, search, attacks) is cached by the fingerprints below, never invalidated
by hand: Undo restores the configuration and the derived figures follow.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.config import MODULE_SECTIONS, parse_config
from anon_core.data.builders import default_hierarchy
from anon_core.data.config_paths import check_config_files
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.hierarchy_spec import hierarchy_from_spec
from anon_core.data.io import infer_kind, to_labels
from anon_core.data.roles import suggest_roles
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.privacy.presence import research_subset_rows
from anon_core.quality.metrics import make_metric
from anon_core.release.apply import apply_transformation
from anon_core.search.evaluate import Evaluator
from anon_core.services.geo_workspace import LocationState, location_of
from anon_core.transform.choose import CHOSEN_BY
from anon_core.transform.problem import Problem

MAX_HISTORY = 50
DEFAULT_MODELS = ({"model": "k-anonymity", "k": 5},)
#: The views of the configuration that :meth:`Workspace.update` changes.
SETTINGS = (
    "roles",
    "hierarchy_specs",
    "models",
    "suppression_limit",
    "metric",
    "transformation",
    "sections",
    "chosen_by",
)

__all__ = ["MAX_HISTORY", "SETTINGS", "Workspace", "fingerprint", "suggest_roles"]


def fingerprint(*parts: Any) -> str:
    """SHA-256 of JSON-serialisable parts (sorted keys): the key of every derived cache."""
    text = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _frame_hash(frame: pd.DataFrame) -> str:
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    digest.update(json.dumps(list(map(str, frame.columns))).encode())
    return digest.hexdigest()


@dataclass
class Workspace(LocationState):
    """A table and its release configuration; every change through :meth:`update` is undoable."""

    frame: pd.DataFrame
    source: str = "data"
    config: dict[str, Any] = field(default_factory=dict)
    #: Folder that relative paths of the configuration (hierarchy files) resolve against.
    base_dir: Path = field(default_factory=Path.cwd)
    #: How the current transformation was chosen: configured, search, explore or manual.
    chosen_by: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list, repr=False)
    redo_stack: list[dict[str, Any]] = field(default_factory=list, repr=False)
    audit: list[dict[str, Any]] = field(default_factory=list, repr=False)
    frame_hash: str = field(default="", repr=False)
    #: A file opened by path (:class:`~anon_core.release.engines.large.LargeTable`): ``frame`` is then
    #: its seeded sample for row-level views; frequency tables, search, risk and the release read the
    #: whole file through the engine.
    large: Any = field(default=None, repr=False)
    #: The uploaded file's bytes, kept in memory only, so the report fingerprints the real input.
    input_bytes: bytes | None = field(default=None, repr=False)
    #: The free-text columns of ``frame`` (read once: the frame never changes).
    _text_columns: list[str] | None = field(default=None, repr=False, compare=False)
    #: The table as given, and its hash; ``frame`` adds the geo section's location column.
    _input: Any = field(default=None, repr=False, compare=False)
    _input_hash: str = field(default="", repr=False, compare=False)
    _location_key: Any = field(default=None, repr=False, compare=False)
    _input_large: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.large is not None and not self.frame_hash:
            self.frame_hash = hashlib.sha256(self.large.key.encode()).hexdigest()
        if not self.frame_hash:  # the frame is never modified: hash it once
            self.frame_hash = _frame_hash(self.frame)
        self._input, self._input_hash = self.frame, self.frame_hash
        self._input_large = getattr(self.large, "origin", None) or self.large
        self.config = copy.deepcopy(self.config)
        self.config.setdefault("input", {"path": self.source})
        self.config.setdefault("attributes", {})
        self.config.setdefault("privacy_models", [dict(m) for m in DEFAULT_MODELS])
        self.config.setdefault("suppression_limit", 0.02)
        self.config.setdefault("quality_metric", {"name": "loss"})
        if self.large is not None:
            self.config.setdefault("engine", self.large.engine.name)
        self._sync_location()

    # ------------------------------------------------------------ creation
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "data") -> Workspace:
        roles = {c: s["role"] for c, s in suggest_roles(frame).items()}
        ws = cls(frame=frame, source=source)
        ws._set_roles(roles)
        return ws

    @classmethod
    def from_large(cls, large: Any) -> Workspace:
        """A workspace over a file opened by path; roles are suggested from its sample."""
        roles = {c: s["role"] for c, s in suggest_roles(large.sample).items()}
        ws = cls(frame=large.sample, source=str(large.source.path), large=large)
        ws._set_roles(roles)
        return ws

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        frame: pd.DataFrame,
        source: str = "data",
        large: Any = None,
        base_dir: str | Path | None = None,
        allowed_roots: Any = None,
        allowed_files: Any = (),
    ) -> Workspace:
        """Resume from a release configuration (the file the CLI reads), kept exactly as given.

        Hierarchy files resolve against ``base_dir`` (default: the working folder); a file that
        cannot be read is an error, never silently replaced by a default hierarchy. With
        ``allowed_roots`` (the dashboard), a configuration naming a file outside those folders
        (and ``allowed_files``) is refused before anything is read.
        """
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        if allowed_roots is not None:
            check_config_files(config, base, allowed_roots, allowed_files)
        parsed = parse_config(config, base_dir=base)  # validates every section now
        made = location_of(config)  # the geo section's location column is made from the table
        missing = [
            a for a in parsed.roles if a not in frame.columns and (made is None or a != made.column)
        ]
        if missing:
            raise ConfigError(
                f"The configuration names columns {missing} that this table does not have."
            )
        ws = cls(
            frame=frame,
            source=source,
            config=dict(config),
            base_dir=base,
            chosen_by="configured" if parsed.transformation else None,
            large=large,
        )
        ws.problem()  # validates hierarchies and models against the data now
        return ws

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

    # ------------------------------------------------------------ views of the configuration
    @property
    def roles(self) -> dict[str, str]:
        """A role per column (columns the configuration does not name are insensitive)."""
        attrs = self.config.get("attributes", {})
        roles = {
            str(c): str(attrs.get(str(c), {}).get("role", Role.INSENSITIVE.value))
            for c in self.frame.columns
        }
        return self._location_roles(roles)  # the geo section's location fixes its columns' roles

    def _set_roles(self, roles: Mapping[str, str]) -> None:
        attrs = self.config.setdefault("attributes", {})
        section = self.location
        for col, role in roles.items():
            if section is not None and str(col) == section.column:
                continue  # the location's role is the geo section's (remove_location ends it)
            entry = attrs.setdefault(str(col), {})
            entry["role"] = Role(role).value

    @property
    def hierarchy_specs(self) -> dict[str, dict[str, Any]]:
        attrs = self.config.get("attributes", {})
        specs = {c: dict(a["hierarchy"]) for c, a in attrs.items() if "hierarchy" in a}
        return self._location_specs(specs)

    def _set_hierarchy_specs(self, specs: Mapping[str, Mapping[str, Any]]) -> None:
        specs = self._take_location_spec(specs)  # the location's goes to geo.hierarchy
        attrs = self.config.setdefault("attributes", {})
        for col, entry in attrs.items():
            if col not in specs:
                entry.pop("hierarchy", None)
        for col, spec in specs.items():
            attrs.setdefault(col, {"role": Role.INSENSITIVE.value})["hierarchy"] = dict(spec)

    @property
    def models(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self.config.get("privacy_models", [])]

    @property
    def suppression_limit(self) -> float:
        return float(self.config.get("suppression_limit", 0.0))

    @property
    def metric(self) -> dict[str, Any]:
        return dict(self.config.get("quality_metric") or {"name": "loss"})

    @property
    def transformation(self) -> dict[str, int] | None:
        t = self.config.get("transformation")
        return dict(t) if t else None

    @property
    def sections(self) -> dict[str, Any]:
        """Module sections of the configuration (text, pseudonymize, dp, attack, method, ...)."""
        return {k: self.config[k] for k in MODULE_SECTIONS if k in self.config}

    @property
    def search_options(self) -> dict[str, Any]:
        return dict(self.config.get("search", {}))

    def _assign(self, key: str, value: Any) -> None:
        value = copy.deepcopy(value)
        if key == "roles":
            self._set_roles(value)
        elif key == "hierarchy_specs":
            self._set_hierarchy_specs(value)
        elif key == "models":
            self.config["privacy_models"] = list(value)
        elif key == "suppression_limit":
            self.config["suppression_limit"] = float(value)
        elif key == "metric":
            self.config["quality_metric"] = dict(value)
        elif key == "transformation":
            if value:
                self.config["transformation"] = {str(q): int(v) for q, v in value.items()}
            else:
                self.config.pop("transformation", None)
        elif key == "sections":
            for name in MODULE_SECTIONS:
                self.config.pop(name, None)
            self.config.update(value)
        elif key == "chosen_by":
            if value is not None and value not in CHOSEN_BY:
                raise ConfigError(f"'chosen_by' must be one of {CHOSEN_BY}, got {value!r}.")
            self.chosen_by = value

    # ------------------------------------------------------------ history
    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({"config": self.config, "chosen_by": self.chosen_by})

    def _restore(self, state: Mapping[str, Any]) -> None:
        self.config = copy.deepcopy(dict(state["config"]))
        self.chosen_by = state.get("chosen_by")
        self._sync_location()

    def _log(self, change: str) -> None:
        self.audit.append(
            {"change": change, "at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds")}
        )

    def update(self, what: str, **changes: Any) -> None:
        """Apply a change, remembering the previous state for undo and the audit trail.

        A change of the transformation without ``chosen_by`` records it as chosen by hand
        ("manual"); clearing it clears how it was chosen.
        """
        unknown = [k for k in changes if k not in SETTINGS]
        if unknown:
            raise AttributeError(f"Workspace has no setting {unknown[0]!r}.")
        if "transformation" in changes and "chosen_by" not in changes:
            changes["chosen_by"] = "manual" if changes["transformation"] else None
        before = self.snapshot()
        try:
            for key, value in changes.items():
                self._assign(key, value)
            self._sync_location()
        except Exception:
            self._restore(before)
            raise
        if self.snapshot() == before:
            return
        self.history.append(before)
        del self.history[:-MAX_HISTORY]
        self.redo_stack.clear()
        self._log(what)

    def start_at(self, transformation: Mapping[str, int], chosen_by: str = "search") -> None:
        """Set the starting transformation of a new workspace (not a change: no history entry)."""
        if self.history or self.audit:
            raise ConfigError("start_at sets the first state of a new workspace only.")
        self._assign("transformation", transformation)
        self._assign("chosen_by", chosen_by)

    def load_config(
        self,
        config: Mapping[str, Any],
        base_dir: str | Path | None = None,
        allowed_roots: Any = None,
        allowed_files: Any = (),
    ) -> None:
        """Replace the whole configuration with ``config`` (validated against this table, kept
        exactly as given); an undoable change like any other. ``allowed_roots``: see from_config."""
        probe = Workspace.from_config(
            config, self.frame, self.source, self.large, base_dir, allowed_roots, allowed_files
        )
        before = self.snapshot()
        self.config, self.base_dir, self.chosen_by = probe.config, probe.base_dir, probe.chosen_by
        self._sync_location()
        if self.snapshot() == before:
            return
        self.history.append(before)
        del self.history[:-MAX_HISTORY]
        self.redo_stack.clear()
        self._log("configuration loaded")

    def undo(self) -> bool:
        if not self.history:
            return False
        self.redo_stack.append(self.snapshot())
        self._restore(self.history.pop())
        self._log("undo")
        return True

    def redo(self) -> bool:
        if not self.redo_stack:
            return False
        self.history.append(self.snapshot())
        self._restore(self.redo_stack.pop())
        self._log("redo")
        return True

    # ------------------------------------------------------------ derived
    @property
    def qis(self) -> list[str]:
        return [c for c, r in self.roles.items() if r == Role.QUASI_IDENTIFIER.value]

    @property
    def sensitive(self) -> list[str]:
        return [c for c, r in self.roles.items() if r == Role.SENSITIVE.value]

    def hierarchy(self, column: str) -> Hierarchy:
        """The column's hierarchy: from its spec (file, builder or table), else the default."""
        spec = self.hierarchy_specs.get(column)
        column_values = self.values(column)
        values = pd.unique(to_labels(column_values))
        if spec is None:
            return default_hierarchy(values, infer_kind(column_values), name=column)
        spec = self._resolved_spec(column, spec)  # a polygon layer's path resolved
        return hierarchy_from_spec(column, spec, values, self.base_dir)

    def set_hierarchy(self, column: str, spec: dict[str, Any] | None) -> None:
        """Use ``spec`` (None = default for the kind) for ``column`` after checking it covers the data."""
        if column not in self.frame.columns:
            raise ConfigError(f"{column!r} is not a column of the table.")
        trial = self.hierarchy_specs
        if spec is None:
            trial.pop(column, None)
        else:
            trial[column] = copy.deepcopy(spec)
        if trial == self.hierarchy_specs:
            return
        values = pd.unique(to_labels(self.values(column)))
        if spec is not None:  # raises if values are missing
            hierarchy_from_spec(column, spec, values, self.base_dir).encode(values)
        self.update(f"hierarchy of {column}", hierarchy_specs=trial, transformation=None)

    def hierarchies(self) -> dict[str, Hierarchy]:
        cols = self.qis + [s for s in self.sensitive if s in self.hierarchy_specs]
        return {c: self.hierarchy(c) for c in cols}

    def data_key(self) -> str:
        """Fingerprint of the data, roles and hierarchies: the frequency table's cache key."""
        return fingerprint(self.frame_hash, self.roles, self.hierarchy_specs)

    def search_key(self) -> str:
        """Fingerprint of everything the optimal search depends on."""
        return fingerprint(
            self.data_key(),
            self.models,
            self.suppression_limit,
            self.metric,
            self.search_options,
        )

    def config_key(self) -> str:
        """Fingerprint of the data and the whole configuration (every derived figure's key)."""
        return fingerprint(self.frame_hash, self.config)

    def encoded_columns(self) -> list[str]:
        """Columns the frequency table encodes: quasi-identifiers and sensitive attributes, in table order."""
        keep = set(self.qis) | set(self.sensitive)
        return [c for c in self.frame.columns if c in keep]

    def _require_qis(self) -> None:
        if not self.qis:
            raise ConfigError(
                "No column is a quasi-identifier yet: mark at least one on the Attributes page."
            )

    def dataset(self, progress: Any = None) -> Dataset:
        self._require_qis()
        if self.large is not None:
            cols = self.encoded_columns()
            grouped = self.large.group(cols, progress) if progress else self.large.group(cols)
            roles = self.roles
            return Dataset(
                grouped.frame,
                {c: roles[c] for c in cols},
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
        self._require_qis()
        models = [make_model(m) for m in self.models]
        metric = make_metric(self.metric)
        if self.large is not None:
            return Problem.from_grouped(
                self.large.group(self.encoded_columns()),
                self.large.engine,
                self.roles,
                self.hierarchies(),
                models,
                self.suppression_limit,
                metric,
            )
        return Problem(
            self.frame, self.roles, self.hierarchies(), models, self.suppression_limit, metric
        )

    def default_transformation(self) -> dict[str, int]:
        return {q: 0 for q in self.qis}

    def to_config(self, input_path: str | None = None) -> dict[str, Any]:
        """The release configuration, exactly as held (every section and hierarchy file kept).

        Quasi-identifiers without a hierarchy spec get their (default) hierarchy inline, so the
        file reproduces the release on its own. ``input_path`` replaces ``input.path``.
        """
        config = copy.deepcopy(self.config)
        attrs = config.setdefault("attributes", {})
        section = self.location
        for col in self.qis:
            if section is not None and col == section.column:
                continue  # its hierarchy is geo.hierarchy
            entry = attrs.setdefault(col, {"role": Role.QUASI_IDENTIFIER.value})
            if "hierarchy" not in entry:
                entry["hierarchy"] = {"table": self.hierarchy(col).table.tolist()}
        if input_path is not None:
            config.setdefault("input", {})["path"] = input_path
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
        plan = self._plan(result, suppressed_records)
        kwargs = {"progress": progress} if progress else {}
        return self.large.engine.release(self.large.source, plan, out, **kwargs)

    def _plan(self, result: Any, suppressed_records: str) -> Any:
        from anon_core.release.engines import build_release_plan

        problem = self.problem()
        return build_release_plan(
            problem.dataset,
            result,
            suppressed_records,
            list(self.large.source.columns),
            problem.input_roles,
        )

    def sample_release(self, result: Any, suppressed_records: str = "remove") -> pd.DataFrame:
        """For a file opened by path: the release restricted to the sample's rows (row-level views, ML)."""
        if self.large is None:
            return self.release(self.dataset(), result, suppressed_records)
        return self._plan(result, suppressed_records).apply_frame(self.frame)

    def free_text_columns(self) -> list[str]:
        """Columns whose values are free text (``infer_kind``'s rule), in table order."""
        from anon_core.data.io import ColumnKind

        if self._text_columns is None:
            self._text_columns = [
                c for c in self.frame.columns if infer_kind(self.frame[c]) == ColumnKind.TEXT
            ]
        return self._text_columns

    def raw_free_text(self) -> list[str]:
        """Free-text columns the release would carry raw: kept (not identifier) and not
        de-identified by the ``text`` section. Free text is released only de-identified."""
        text = self.sections.get("text")
        deidentified = set(text.get("columns", [])) if isinstance(text, Mapping) else set()
        return [
            c
            for c in self.free_text_columns()
            if self.roles.get(c, Role.INSENSITIVE.value) != Role.IDENTIFIER.value
            and c not in deidentified
        ]

    def check_free_text(self) -> None:
        """One clear error when free text would be released raw (see :meth:`raw_free_text`)."""
        raw = self.raw_free_text()
        if raw:
            raise ConfigError(
                f"{', '.join(map(repr, raw))} hold free text that would be released raw. Free text is "
                "released only de-identified: de-identify it on the PII page (text section), or give "
                "it the role identifier to drop it."
            )

    def released_sections(self) -> tuple[pd.DataFrame, dict[str, Role] | None]:
        """The input after the ``text`` and ``pseudonymize`` sections, and the roles they imply
        (``None`` when there are no such sections: the input as it is)."""
        if "text" not in self.sections and "pseudonymize" not in self.sections:
            return self.frame, None
        from anon_core.services.inputs import release_sections  # Presidio loads only when needed

        frame, config, _ = release_sections(self.frame, parse_config(self.to_config()))
        return frame, {c: Role(config.roles.get(c, Role.INSENSITIVE)) for c in self.frame.columns}

    def text_residual(self, deidentified: pd.DataFrame) -> Any:
        """Direct identifiers left in the de-identified text columns (``None`` without a ``text``
        section): see :func:`anon_core.pii.residual.residual_identifiers`."""
        text = self.sections.get("text")
        if not isinstance(text, Mapping) or not text.get("columns"):
            return None
        from anon_core.pii.residual import residual_identifiers

        identifiers = [c for c, r in self.roles.items() if r == Role.IDENTIFIER.value]
        return residual_identifiers(self.frame, deidentified, list(text["columns"]), identifiers)

    def release(
        self,
        dataset: Dataset,
        result: Any,
        suppressed_records: str = "remove",
        sections: tuple[pd.DataFrame, dict[str, Role] | None] | None = None,
    ) -> pd.DataFrame:
        """The released table as the CLI writes it: text and pseudonymization sections applied,
        quasi-identifiers generalized, suppressed records handled. Secrets come from the environment.
        ``sections`` is :meth:`released_sections`' result when the caller already has it."""
        if self.large is not None:
            raise ConfigError(
                "A file opened by path is not in memory: write the release to a file instead."
            )
        self.check_free_text()
        frame, roles = sections if sections is not None else self.released_sections()
        keep = research_subset_rows([make_model(m) for m in self.models], self.frame)
        return apply_transformation(
            dataset, result, suppressed_records, frame=frame, roles=roles, keep=keep
        )

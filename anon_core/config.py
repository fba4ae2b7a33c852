"""Release configuration: one JSON/YAML file the CLI, the dashboard and the report share.

Relative paths resolve against the configuration file's folder. Every field is
validated with a message that names the field and the fix.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from .builders import build_hierarchy
from .dataset import Dataset, Role
from .engines import (
    ENGINES,
    Engine,
    GroupedTable,
    ReleaseSummary,
    TableSource,
    choose_engine,
    get_engine,
)
from .engines.base import Progress, build_release_plan, file_sha256, no_progress
from .errors import ConfigError, PrivacyWarning
from .evaluate import Evaluator, TransformationResult
from .frequency import FrequencyTable
from .hierarchy import Hierarchy
from .io import LoadedTable, load_table, to_labels
from .metrics import QualityMetric, make_metric
from .models import PrivacyModel, make_model
from .search import SearchResult, search
from .transform import apply_transformation
from .validation import check_choice, check_float, check_int, check_keys, check_mapping

TOP_KEYS = {
    "input",
    "attributes",
    "privacy_models",
    "suppression_limit",
    "quality_metric",
    "transformation",
    "search",
    "output",
    "engine",
    "engine_options",
    # Sections validated and applied by their own modules (PII text de-identification,
    # pseudonymization of identifiers, differential privacy); carried here as given.
    "text",
    "pseudonymize",
    "dp",
}
MODULE_SECTIONS = ("text", "pseudonymize", "dp")
SEARCH_KEYS = {"min_levels", "max_levels", "exact_limit"}
INPUT_KEYS = {"path", "separator", "encoding", "sheet"}
ATTRIBUTE_KEYS = {"role", "hierarchy"}
OUTPUT_KEYS = {"suppressed_records"}
#: Options of the scale engines (DuckDB: memory_limit, threads, batch_rows, temp_directory;
#: Spark: master, conf, app_name).
ENGINE_OPTION_KEYS = {"memory_limit", "threads", "batch_rows", "temp_directory", "master", "conf", "app_name"}


@dataclass(frozen=True)
class ReleaseConfig:
    """A validated release configuration (``raw`` is the parsed file, for round trips)."""

    raw: dict[str, Any]
    base_dir: Path
    input_path: Path | None
    separator: str | None
    encoding: str | None
    sheet: str | int | None
    roles: dict[str, Role]
    hierarchy_specs: dict[str, Mapping[str, Any]]
    models: tuple[Mapping[str, Any], ...]
    suppression_limit: float
    quality_metric: Mapping[str, Any] | None
    transformation: dict[str, int] | None
    suppressed_records: str = "remove"
    search: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)
    engine: str = "auto"
    engine_options: dict[str, Any] = field(default_factory=dict)


def read_config_file(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Configuration file {str(path)!r} does not exist. Check the path.")
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text) if path.suffix.lower() in {".yaml", ".yml"} else json.loads(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"Configuration file {path.name} is not valid {path.suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"Configuration file {path.name} must hold an object at the top level.")
    return data


def parse_config(data: Mapping[str, Any], base_dir: str | Path = ".") -> ReleaseConfig:
    """Validate a configuration mapping."""
    check_mapping("configuration", data)
    check_keys("configuration", data, TOP_KEYS)
    base = Path(base_dir)
    inp = check_mapping("input", data.get("input", {}))
    check_keys("input", inp, INPUT_KEYS)
    input_path = None
    if "path" in inp:
        if not isinstance(inp["path"], str) or not inp["path"]:
            raise ConfigError("'input.path' must be a file path.")
        input_path = Path(inp["path"]) if Path(inp["path"]).is_absolute() else base / inp["path"]
    attrs = check_mapping("attributes", data.get("attributes", {}))
    roles: dict[str, Role] = {}
    hspecs: dict[str, Mapping[str, Any]] = {}
    for name, spec in attrs.items():
        spec = check_mapping(f"attributes.{name}", spec)
        check_keys(f"attributes.{name}", spec, ATTRIBUTE_KEYS)
        role = check_choice(f"attributes.{name}.role", spec.get("role"), [r.value for r in Role])
        roles[name] = Role(role)
        if "hierarchy" in spec:
            h = check_mapping(f"attributes.{name}.hierarchy", spec["hierarchy"])
            if len({"file", "builder", "table"} & set(h)) != 1:
                raise ConfigError(
                    f"'attributes.{name}.hierarchy' needs exactly one of 'file' (ARX CSV), 'builder' "
                    "(with its parameters) or 'table' (inline rows, one per value)."
                )
            hspecs[name] = h
    if not any(r == Role.QUASI_IDENTIFIER for r in roles.values()):
        raise ConfigError("'attributes' marks no quasi-identifier: give at least one attribute role 'quasi-identifier'.")
    models = data.get("privacy_models", [])
    if not isinstance(models, list) or not models:
        raise ConfigError("'privacy_models' must be a non-empty list, e.g. [{\"model\": \"k-anonymity\", \"k\": 5}].")
    for m in models:
        make_model(m)  # validates parameters now, with the field named
    limit = check_float("suppression_limit", data.get("suppression_limit", 0.0), 0.0, 1.0)
    metric = data.get("quality_metric")
    make_metric(metric)
    transformation = data.get("transformation")
    if transformation is not None:
        transformation = dict(check_mapping("transformation", transformation))
        for k, v in transformation.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"'transformation.{k}' must be a whole-number level, got {v!r}.")
    search_cfg = dict(check_mapping("search", data.get("search", {})))
    check_keys("search", search_cfg, SEARCH_KEYS)
    for key in ("min_levels", "max_levels"):
        if key in search_cfg:
            check_mapping(f"search.{key}", search_cfg[key])
    if "exact_limit" in search_cfg:
        check_int("search.exact_limit", search_cfg["exact_limit"], minimum=1)
    out = check_mapping("output", data.get("output", {}))
    check_keys("output", out, OUTPUT_KEYS)
    supp = check_choice("output.suppressed_records", out.get("suppressed_records", "remove"), ("remove", "mask"))
    engine = check_choice("engine", data.get("engine", "auto"), ("auto", *ENGINES))
    engine_options = dict(check_mapping("engine_options", data.get("engine_options", {})))
    check_keys("engine_options", engine_options, ENGINE_OPTION_KEYS)
    return ReleaseConfig(
        raw=dict(data),
        base_dir=base,
        input_path=input_path,
        separator=inp.get("separator"),
        encoding=inp.get("encoding"),
        sheet=inp.get("sheet", 0),
        roles=roles,
        hierarchy_specs=hspecs,
        models=tuple(models),
        suppression_limit=limit,
        quality_metric=metric,
        transformation=transformation,
        suppressed_records=supp,
        search=search_cfg,
        sections={k: data[k] for k in MODULE_SECTIONS if k in data},
        engine=engine,
        engine_options=engine_options,
    )


def load_config(path: str | Path) -> ReleaseConfig:
    path = Path(path)
    return parse_config(read_config_file(path), base_dir=path.resolve().parent)


def _hierarchy_for(name: str, spec: Mapping[str, Any], frame: pd.DataFrame, base: Path) -> Hierarchy:
    if "file" in spec:
        check_keys(f"attributes.{name}.hierarchy", spec, {"file", "separator"})
        p = Path(spec["file"])
        p = p if p.is_absolute() else base / p
        return Hierarchy.from_csv(p, separator=spec.get("separator", ";"), name=name)
    if "table" in spec:
        check_keys(f"attributes.{name}.hierarchy", spec, {"table"})
        rows = spec["table"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise ConfigError(f"'attributes.{name}.hierarchy.table' must be a list of rows (lists of labels).")
        return Hierarchy(pd.DataFrame(rows).astype(str).to_numpy(dtype=object), name=name)
    return build_hierarchy(spec, pd.unique(to_labels(frame[name])), name=name)


class Problem:
    """A dataset with its roles, hierarchies, frequency table and evaluator.

    This is the object the CLI, the dashboard and the tests share: build it once
    per dataset and role assignment, then evaluate transformations cheaply.
    With a scale engine (``engine: duckdb|spark``) the dataset holds the
    engine's grouped table (weighted distinct rows), not the records; the
    release is then written by the engine (:meth:`write_release`).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        roles: Mapping[str, Role | str],
        hierarchies: Mapping[str, Hierarchy] | None = None,
        models: list[PrivacyModel] | None = None,
        suppression_limit: float = 0.0,
        metric: QualityMetric | None = None,
        weights: Any = None,
    ) -> None:
        self.dataset = Dataset(frame, roles, hierarchies, weights=weights)
        self.freq = FrequencyTable(self.dataset)
        self.evaluator = Evaluator(self.freq, models or [], suppression_limit, metric)
        self.engine_name = "pandas"
        self.engine: Engine | None = None
        self.source: TableSource | None = None
        self.grouped: GroupedTable | None = None
        self.input_roles: dict[str, Role] = dict(self.dataset.roles)

    @classmethod
    def from_evaluator(cls, evaluator: Evaluator) -> Problem:
        """Wrap an evaluator whose frequency table is already built (no recomputation)."""
        problem = cls.__new__(cls)
        problem.freq = evaluator.freq
        problem.dataset = evaluator.freq.dataset
        problem.evaluator = evaluator
        problem.engine_name, problem.engine, problem.source, problem.grouped = "pandas", None, None, None
        problem.input_roles = dict(problem.dataset.roles)
        return problem

    @classmethod
    def from_config(
        cls,
        config: ReleaseConfig,
        frame: pd.DataFrame | None = None,
        engine: str | None = None,
        progress: Progress = no_progress,
    ) -> Problem:
        """The problem of a configuration; its input is read by the configured engine
        (``engine`` overrides it) unless ``frame`` is given."""
        if frame is None:
            name = choose_engine(engine or config.engine, config.input_path)
            if name != "pandas":
                return cls.from_source(config, name, progress=progress)
            frame = load_input(config).frame
        cls._check_columns(config, list(frame.columns))
        hierarchies = {
            name: _hierarchy_for(name, spec, frame, config.base_dir) for name, spec in config.hierarchy_specs.items()
        }
        return cls(
            frame,
            config.roles,
            hierarchies,
            [make_model(m) for m in config.models],
            config.suppression_limit,
            make_metric(config.quality_metric),
        )

    @staticmethod
    def _check_columns(config: ReleaseConfig, columns: list[str]) -> None:
        missing = [a for a in config.roles if a not in columns]
        if missing:
            raise ConfigError(
                f"'attributes' names {missing}, which are not columns of the input. Columns are: {columns}."
            )
        unassigned = [c for c in columns if c not in config.roles]
        if unassigned:
            warnings.warn(
                f"Columns {unassigned} have no role and are released unchanged (insensitive).",
                PrivacyWarning,
                stacklevel=3,
            )

    @classmethod
    def from_source(
        cls,
        config: ReleaseConfig,
        engine: str | Engine = "duckdb",
        source: TableSource | None = None,
        progress: Progress = no_progress,
    ) -> Problem:
        """Build the problem with a scale engine: it groups the file, nothing is loaded whole."""
        if source is None:
            if config.input_path is None:
                raise ConfigError("'input.path' is missing: name the data file to anonymize.")
            source = TableSource.open(config.input_path, config.separator, config.encoding)
        eng = get_engine(engine, config.engine_options) if isinstance(engine, str) else engine
        cls._check_columns(config, list(source.columns))
        encoded = [c for c in source.columns if config.roles.get(c) in (Role.QUASI_IDENTIFIER, Role.SENSITIVE)]
        grouped = eng.group(source, encoded, progress)
        hierarchies = {
            name: _hierarchy_for(name, spec, grouped.frame, config.base_dir)
            for name, spec in config.hierarchy_specs.items()
            if name in encoded
        }
        return cls.from_grouped(grouped, eng, config.roles, hierarchies, [make_model(m) for m in config.models],
                                config.suppression_limit, make_metric(config.quality_metric))

    @classmethod
    def from_grouped(
        cls,
        grouped: GroupedTable,
        engine: Engine,
        roles: Mapping[str, Role | str],
        hierarchies: Mapping[str, Hierarchy] | None = None,
        models: list[PrivacyModel] | None = None,
        suppression_limit: float = 0.0,
        metric: QualityMetric | None = None,
    ) -> Problem:
        """The problem of an engine's grouped table (roles name every column of the file)."""
        columns = list(grouped.source.columns)
        encoded = list(grouped.frame.columns)
        problem = cls(grouped.frame, {c: roles[c] for c in encoded}, hierarchies, models, suppression_limit, metric,
                      weights=grouped.counts)
        problem.engine_name, problem.engine, problem.source, problem.grouped = (
            engine.name, engine, grouped.source, grouped)
        problem.input_roles = {c: Role(roles.get(c, Role.INSENSITIVE)) for c in columns}
        return problem

    @classmethod
    def for_release(
        cls, config: ReleaseConfig, return_mapping: bool = False, engine: str | None = None,
        progress: Progress = no_progress,
    ) -> tuple[Problem, ReleaseConfig, pd.DataFrame | None]:
        """Load the input, apply the ``text`` and ``pseudonymize`` sections, build the problem.

        Returns the problem, the configuration it was built from (pseudonymized
        identifiers become insensitive there) and, when asked, the pseudonym
        mapping. Secrets come from the environment variables the sections name.
        """
        name = choose_engine(engine or config.engine, config.input_path)
        if name != "pandas":
            if "text" in config.sections or "pseudonymize" in config.sections:
                raise ConfigError(
                    f"The 'text' and 'pseudonymize' sections run per record in memory and are not available with "
                    f"the {name} engine. Use engine: pandas, or release those columns separately."
                )
            return cls.from_source(config, name, progress=progress), config, None
        frame = load_input(config).frame
        mapping = None
        if "text" in config.sections or "pseudonymize" in config.sections:
            from .pii import apply_release_sections  # Presidio loads only when needed

            out = apply_release_sections(frame, config, return_mapping=return_mapping)
            frame, config = out[0], out[1]
            mapping = out[2] if return_mapping else None
        return cls.from_config(config, frame), config, mapping

    def evaluate(self, transformation: Mapping[str, int]) -> TransformationResult:
        return self.evaluator.evaluate(transformation)

    def search(self, **options: Any) -> SearchResult:
        """The optimal transformation (see :func:`anon_core.search.search`)."""
        return search(self.evaluator, **options)

    def apply(self, result: TransformationResult, suppressed_records: str = "remove") -> pd.DataFrame:
        """The released table in memory (pandas engine only; see :meth:`write_release`)."""
        if self.dataset.grouped:
            raise ConfigError(
                f"The table was grouped by the {self.engine_name} engine and is not in memory: write the release "
                "to a file instead (CLI: --output FILE.parquet)."
            )
        return apply_transformation(self.dataset, result, suppressed_records)

    def write_release(
        self, result: TransformationResult, out: str | Path, suppressed_records: str = "remove",
        progress: Progress = no_progress,
    ) -> ReleaseSummary:
        """Write the release to ``out`` with this problem's engine; returns what was written."""
        import time

        out = Path(out)
        if self.engine is None or self.source is None:
            from .io import write_table

            t0 = time.perf_counter()
            released = self.apply(result, suppressed_records)
            write_table(released, out)
            return ReleaseSummary(out, out.suffix.lstrip(".") or "csv", len(released), time.perf_counter() - t0,
                                  file_sha256(out), "pandas")
        plan = build_release_plan(self.dataset, result, suppressed_records, list(self.source.columns),
                                  self.input_roles)
        return self.engine.release(self.source, plan, out, progress)

    def close(self) -> None:
        """Release the engine's resources (a DuckDB connection, a Spark session)."""
        if self.engine is not None:
            self.engine.close()


def load_input(config: ReleaseConfig) -> LoadedTable:
    if config.input_path is None:
        raise ConfigError("'input.path' is missing: name the data file to anonymize.")
    return load_table(config.input_path, separator=config.separator, encoding=config.encoding, sheet=config.sheet)

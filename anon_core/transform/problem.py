"""The problem of a release configuration: data, roles, hierarchies, frequency table and evaluator.

The engine core the CLI, ``verify``, the report and every page share through the application layer
(:mod:`anon_core.services`): build it once per dataset and role assignment, then evaluate
transformations cheaply. Applying the ``text`` and ``pseudonymize`` sections before it is built is
the application layer's work (:func:`anon_core.services.inputs.problem_for_release`).
"""

from __future__ import annotations

import os
import warnings
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.data import kernels
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.hierarchy_spec import hierarchy_for
from anon_core.data.io import LoadedTable, load_table
from anon_core.errors import ConfigError, DataError, PrivacyWarning
from anon_core.geo.location import location_section, with_location
from anon_core.privacy.models import PrivacyModel, make_model
from anon_core.privacy.presence import research_subset_rows
from anon_core.quality.metrics import QualityMetric, make_metric
from anon_core.release.apply import apply_transformation
from anon_core.release.engines import (
    Engine,
    GroupedTable,
    ReleaseSummary,
    TableSource,
    choose_engine,
    get_engine,
)
from anon_core.release.engines.base import Progress, build_release_plan, file_sha256, no_progress
from anon_core.release.engines.located import located_source, refuse_location
from anon_core.search.evaluate import Evaluator, TransformationResult
from anon_core.search.lattice import SearchResult, search


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
        compiled: bool | None = None,
    ) -> None:
        self.dataset = Dataset(frame, roles, hierarchies, weights=weights)
        self.freq = FrequencyTable(self.dataset, compiled)
        # The class tables cached in the frequency table refer back to it; dropping them with
        # the problem lets its arrays go with its last reference, not at a full collection.
        weakref.finalize(self, self.freq.release_classes).atexit = False
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
        problem.engine_name, problem.engine, problem.source, problem.grouped = (
            "pandas",
            None,
            None,
            None,
        )
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
        frame = with_location(frame, config)  # the geo section's location quasi-identifier
        cls._check_columns(config, list(frame.columns))
        hierarchies = {
            name: hierarchy_for(name, spec, frame, config.base_dir)
            for name, spec in config.hierarchy_specs.items()
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
        section = location_section(config)  # the geo section's location: DuckDB derives it
        refuse_location(section, engine)  # before any file is opened
        if source is None:
            if config.input_path is None:
                raise ConfigError("'input.path' is missing: name the data file to anonymize.")
            source = TableSource.open(config.input_path, config.separator, config.encoding)
        eng = get_engine(engine, config.engine_options) if isinstance(engine, str) else engine
        source = located_source(source, section, eng)
        cls._check_columns(config, list(source.columns))
        encoded = [
            c
            for c in source.columns
            if config.roles.get(c) in (Role.QUASI_IDENTIFIER, Role.SENSITIVE)
        ]
        grouped = eng.group(source, encoded, progress)
        hierarchies = {
            name: hierarchy_for(name, spec, grouped.frame, config.base_dir)
            for name, spec in config.hierarchy_specs.items()
            if name in encoded
        }
        return cls.from_grouped(
            grouped,
            eng,
            config.roles,
            hierarchies,
            [make_model(m) for m in config.models],
            config.suppression_limit,
            make_metric(config.quality_metric),
        )

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
        problem = cls(
            grouped.frame,
            {c: roles[c] for c in encoded},
            hierarchies,
            models,
            suppression_limit,
            metric,
            weights=grouped.counts,
            # A file's one-off release: numpy's path unless the kernels are loaded already
            # (loading them costs more CPU than they save on one search; bench_scale.py).
            compiled=kernels.loaded(),
        )
        problem.engine_name, problem.engine, problem.source, problem.grouped = (
            engine.name,
            engine,
            grouped.source,
            grouped,
        )
        problem.input_roles = {c: Role(roles.get(c, Role.INSENSITIVE)) for c in columns}
        return problem

    def evaluate(self, transformation: Mapping[str, int]) -> TransformationResult:
        return self.evaluator.evaluate(transformation)

    def search(self, **options: Any) -> SearchResult:
        """The optimal transformation (see :func:`anon_core.search.lattice.search`); with an
        ``attack-risk`` model, the risk-bounded search (:mod:`anon_core.transform.attack_bounded`)."""
        if any(m.needs_records for m in self.evaluator.models):
            from anon_core.transform.attack_bounded import (
                attack_bounded_search,  # attacks load on demand
            )

            return attack_bounded_search(self.evaluator, **options)
        return search(self.evaluator, **options)

    def apply(
        self, result: TransformationResult, suppressed_records: str = "remove"
    ) -> pd.DataFrame:
        """The released table in memory (pandas engine only; see :meth:`write_release`)."""
        if self.dataset.grouped:
            raise ConfigError(
                f"The table was grouped by the {self.engine_name} engine and is not in memory: write the release "
                "to a file instead (CLI: --output FILE.parquet)."
            )
        keep = research_subset_rows(self.evaluator.models, self.dataset.frame)
        return apply_transformation(self.dataset, result, suppressed_records, keep=keep)

    def write_release(
        self,
        result: TransformationResult,
        out: str | Path,
        suppressed_records: str = "remove",
        progress: Progress = no_progress,
        formula_escape: bool = True,
    ) -> ReleaseSummary:
        """Write the release to ``out`` with this problem's engine; returns what was written.

        ``formula_escape``: neutralize spreadsheet formulas in CSV/TSV string cells and column
        names (engines.base.write_frame).
        """
        import time

        out = Path(out)
        if self.engine is None or self.source is None:
            from anon_core.release.engines.base import write_frame

            t0 = time.perf_counter()
            released = self.apply(result, suppressed_records)
            write_frame(released, out, formula_escape=formula_escape)
            return ReleaseSummary(
                out,
                out.suffix.lstrip(".") or "csv",
                len(released),
                time.perf_counter() - t0,
                file_sha256(out),
                "pandas",
            )
        if any(m.releases_subset for m in self.evaluator.models):
            raise ConfigError(
                f"delta-presence releases only its research subset of the population table; the "
                f"{self.engine_name} engine writes whole files. Use engine: pandas for this release."
            )
        if out.exists() and os.path.samefile(out, self.source.path):
            raise DataError(
                f"The release would overwrite its input {self.source.path.name}; choose another output."
            )
        plan = build_release_plan(
            self.dataset, result, suppressed_records, list(self.source.columns), self.input_roles
        )
        return self.engine.release(self.source, plan, out, progress, formula_escape)

    def close(self) -> None:
        """Release the engine's resources (a DuckDB connection, a Spark session)."""
        if self.engine is not None:
            self.engine.close()


def load_input(config: ReleaseConfig) -> LoadedTable:
    if config.input_path is None:
        raise ConfigError("'input.path' is missing: name the data file to anonymize.")
    return load_table(
        config.input_path, separator=config.separator, encoding=config.encoding, sheet=config.sheet
    )

"""A population table: the people a sample was drawn from, counted per generalized class.

k-map with an explicit population, journalist profitability and journalist risk
need, for every equivalence class of the sample, how many people of the
population fall into the same generalized class (ARX's ``pcount``, there taken
from a research subset of a population input). Here the sample is the input and
the population is a separate table with the quasi-identifier columns (one row
per person, or one row per combination with a ``count_column``). It must hold
every sample record too (a superset of the sample, as in ARX).

Population values are generalized with the *sample's* hierarchies, so the
hierarchies must cover the population's values. Paths in a configuration are
relative to the configuration file's folder (:func:`resolve_paths`).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError, PrivacyWarning
from anon_core.population.models import USA_POPULATION
from anon_core.validation import check_int, check_keys, check_mapping

log = logging.getLogger(__name__)

#: ARX's population regions (``ARXPopulationModel.Region``) by name.
REGIONS = {
    "africa": 1_100_000_000,
    "australia": 23_130_900,
    "europe": 740_000_000,
    "north-america": 565_265_000,
    "south-america": 385_742_554,
    "european-union": 507_420_000,
    "brasil": 202_656_788,
    "canada": 34_834_841,
    "china": 1_366_040_000,
    "france": 65_820_916,
    "germany": 80_767_000,
    "india": 1_210_569_573,
    "uk": 63_705_000,
    "usa": USA_POPULATION,
}

#: Keys of a population given as a table (model parameter ``population`` or the ``population`` section).
TABLE_KEYS = {"table", "separator", "count_column"}
#: Keys of the configuration's top-level ``population`` section.
SECTION_KEYS = TABLE_KEYS | {"size", "region"}
_MAX_SHOWN = 5


@dataclass(frozen=True)
class PopulationSource:
    """Where a population comes from: a table file, or just its size (ARX's population model)."""

    size: int | None = None  # people in the population (estimators); None: the table's row count
    table: Path | None = None
    separator: str | None = None
    count_column: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.table is not None:
            out["table"] = str(self.table)
            if self.separator is not None:
                out["separator"] = self.separator
            if self.count_column is not None:
                out["count_column"] = self.count_column
        if self.size is not None:
            out["size"] = int(self.size)
        return out


def population_size_of(value: Any, where: str = "population") -> int:
    """A population size from ``"USA"`` (or another ARX region name), ``{"size": N}`` or a number."""
    if isinstance(value, str):
        key = value.strip().lower().replace(" ", "-").replace("_", "-")
        if key not in REGIONS:
            raise ConfigError(
                f"'{where}' names the region {value!r}, which is not one of ARX's regions "
                f"{sorted(REGIONS)}; give a region or {{'size': N}}."
            )
        return REGIONS[key]
    if isinstance(value, Mapping):
        check_keys(where, value, {"size"})
        if "size" not in value:
            raise ConfigError(
                f"'{where}' needs 'size' (people in the population), e.g. {{'size': 1000000}}."
            )
        value = value["size"]
    if isinstance(value, np.integer):
        value = int(value)
    return check_int(f"{where}.size", value, minimum=1)


def parse_population(
    value: Any, where: str = "population", base_dir: str | Path | None = None
) -> PopulationSource:
    """Validate a population given as a region, ``{"size": N}``, or ``{"table": file, ...}``.

    Relative table paths resolve against ``base_dir`` (the configuration folder) when given.
    """
    if value is None:
        return PopulationSource(size=USA_POPULATION)
    if isinstance(value, Mapping) and "table" in value:
        check_keys(where, value, SECTION_KEYS if where == "population" else TABLE_KEYS)
        path = value["table"]
        if not isinstance(path, str) or not path:
            raise ConfigError(
                f"'{where}.table' must name a file with the quasi-identifier columns, got {path!r}."
            )
        p = Path(path)
        if not p.is_absolute() and base_dir is not None:
            p = Path(base_dir) / p
        sep = value.get("separator")
        if sep is not None and (not isinstance(sep, str) or len(sep) != 1):
            raise ConfigError(
                f"'{where}.separator' must be one character such as ';', got {sep!r}."
            )
        count = value.get("count_column")
        if count is not None and (not isinstance(count, str) or not count):
            raise ConfigError(
                f"'{where}.count_column' must name a column of counts, got {count!r}."
            )
        size = None
        if "size" in value or "region" in value:
            size = population_size_of(value.get("region", {"size": value.get("size")}), where)
        return PopulationSource(size=size, table=p, separator=sep, count_column=count)
    if isinstance(value, Mapping) and "region" in value:
        check_keys(where, value, {"region"})
        return PopulationSource(size=population_size_of(value["region"], where))
    return PopulationSource(size=population_size_of(value, where))


def population_section(raw: Mapping[str, Any], base_dir: str | Path) -> PopulationSource | None:
    """The configuration's ``population`` section (None when absent), paths resolved."""
    if "population" not in raw:
        return None
    section = check_mapping("population", raw["population"])
    check_keys("population", section, SECTION_KEYS)
    if not section:
        raise ConfigError("'population' is empty: give 'table' (a file) and/or 'size' or 'region'.")
    if "table" not in section:
        return PopulationSource(
            size=population_size_of(
                section.get("region", {"size": section.get("size")}), "population"
            )
        )
    return parse_population(section, "population", base_dir)


def resolve_paths(spec: Mapping[str, Any], base_dir: str | Path) -> Mapping[str, Any]:
    """A privacy-model spec with its population / research-subset file paths made absolute."""
    if not isinstance(spec, Mapping):
        return spec
    out = dict(spec)
    base = Path(base_dir)
    for key, sub in (("population", "table"), ("research_subset", "file")):
        value = out.get(key)
        if isinstance(value, Mapping) and isinstance(value.get(sub), str) and value[sub]:
            p = Path(value[sub])
            if not p.is_absolute():
                out[key] = {**value, sub: str(base / p)}
    return out


# ----------------------------------------------------------------------- tables
@dataclass(frozen=True, eq=False)
class PopulationTable:
    """Distinct population rows over the quasi-identifiers (canonical labels) with their counts."""

    columns: tuple[str, ...]
    values: tuple[np.ndarray, ...]  # per column: the label of each distinct row
    counts: np.ndarray  # people per distinct row
    name: str = "population"

    @property
    def size(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        qis: Sequence[str],
        count_column: str | None = None,
        name: str = "population",
    ) -> PopulationTable:
        """Group a population frame by the quasi-identifiers (its other columns are ignored)."""
        from anon_core.data.frequency import group_rows
        from anon_core.data.io import to_labels

        if not isinstance(frame, pd.DataFrame):
            raise DataError(
                f"The population table must be a DataFrame, got {type(frame).__name__}."
            )
        cols = [str(c) for c in frame.columns]
        missing = [q for q in qis if q not in cols]
        if missing:
            raise DataError(
                f"The population table {name!r} has no column {missing}: it needs every quasi-identifier "
                f"({list(qis)}). Its columns are {cols[:20]}."
            )
        if len(frame) == 0:
            raise DataError(f"The population table {name!r} has no rows.")
        by_name = {str(c): c for c in frame.columns}
        if count_column is not None:
            if count_column not in by_name:
                raise DataError(
                    f"'count_column' {count_column!r} is not a column of the population table {name!r}; "
                    f"its columns are {cols[:20]}."
                )
            weights = pd.to_numeric(frame[by_name[count_column]], errors="coerce").to_numpy(
                dtype=float
            )
            if not np.all(np.isfinite(weights)) or np.any(weights < 0) or np.any(weights % 1):
                raise DataError(
                    f"Column {count_column!r} of the population table must hold whole non-negative counts."
                )
        else:
            weights = np.ones(len(frame))
        codes, uniques = [], []
        for q in qis:
            c, u = pd.factorize(to_labels(frame[by_name[q]]), sort=False)
            codes.append(c.astype(np.int64))
            uniques.append(np.asarray(u, dtype=object).astype(str))
        row_group, first = group_rows(codes, [len(u) for u in uniques])
        counts = np.bincount(row_group, weights=weights, minlength=len(first)).astype(np.int64)
        keep = counts > 0
        values = tuple(u[c[first]][keep] for u, c in zip(uniques, codes, strict=True))
        return cls(tuple(qis), values, counts[keep], name)

    @classmethod
    def load(cls, source: PopulationSource, qis: Sequence[str]) -> PopulationTable:
        """Read the table a :class:`PopulationSource` names."""
        from anon_core.data.io import load_table

        if source.table is None:
            raise ConfigError("The population has no 'table': give one to count people per class.")
        if not source.table.is_file():
            raise ConfigError(
                f"Population table {str(source.table)!r} does not exist. Paths are relative to the "
                "configuration file's folder."
            )
        frame = load_table(source.table, separator=source.separator).frame
        return cls.from_frame(frame, qis, source.count_column, name=source.table.name)


class PopulationMatcher:
    """A population table bound to a dataset's hierarchies: people per generalized class.

    For each QI and level, every distinct population value is mapped to the
    sample's code at that level (-1 when no sample record has that generalized
    value: such people match no released class).
    """

    def __init__(self, population: PopulationTable, dataset: Any) -> None:
        self.population = population
        self.dataset = dataset  # the sample this matcher is bound to
        self.qis = list(dataset.qis)
        self._codes: list[list[np.ndarray]] = []
        self._radix: list[list[int]] = []
        for q in self.qis:
            col = dataset.columns[q]
            enc = dataset.hierarchy(q)
            table = np.asarray(col.hierarchy.table, dtype=object).astype(str)
            values = population.values[population.columns.index(q)]
            distinct, inverse = np.unique(values, return_inverse=True)
            rows = pd.Index(table[:, 0]).get_indexer(distinct)
            if (rows < 0).any():
                bad = distinct[rows < 0].tolist()
                shown = ", ".join(repr(v) for v in bad[:_MAX_SHOWN])
                raise DataError(
                    f"The population table has value(s) {shown}{' ...' if len(bad) > _MAX_SHOWN else ''} of "
                    f"{q!r} that its hierarchy does not list. Give {q!r} a hierarchy that covers the population "
                    "(e.g. an ARX hierarchy file)."
                )
            per_level, radix = [], []
            for h in range(enc.height):
                labels = pd.Index(np.asarray(enc.labels[h], dtype=object).astype(str))
                code = labels.get_indexer(table[rows, h])
                per_level.append(code[inverse].astype(np.int64))
                radix.append(enc.cardinality(h))
            self._codes.append(per_level)
            self._radix.append(radix)

    def counts(self, codes: np.ndarray, levels: Sequence[int]) -> np.ndarray:
        """People of the population in each class; ``codes`` are the classes' generalized codes (classes x QIs)."""
        codes = np.asarray(codes, dtype=np.int64)
        n_classes = len(codes)
        if n_classes == 0:
            return np.zeros(0, dtype=np.int64)
        pop = [self._codes[j][lv] for j, lv in enumerate(levels)]
        radices = [self._radix[j][lv] for j, lv in enumerate(levels)]
        valid = np.ones(len(self.population.counts), dtype=bool)
        for p in pop:
            valid &= p >= 0
        if float(np.prod(np.asarray(radices, dtype=float))) < 2.0**62:
            strides = np.concatenate(([1], np.cumprod(radices[:-1]))).astype(np.int64)
            class_key = codes @ strides
            pop_key = np.column_stack(pop)[valid] @ strides
            idx = pd.Index(class_key).get_indexer(pop_key)
        else:  # pragma: no cover - very wide domains: match tuples directly
            index = pd.MultiIndex.from_arrays(list(codes.T))
            idx = index.get_indexer(pd.MultiIndex.from_arrays([p[valid] for p in pop]))
        hit = idx >= 0
        return np.bincount(
            idx[hit], weights=self.population.counts[valid][hit], minlength=n_classes
        ).astype(np.int64)

    def check_superset(self, codes: np.ndarray, sample_counts: np.ndarray) -> None:
        """Warn when the population holds fewer people than the sample in some ungeneralized class."""
        pcount = self.counts(codes, [0] * len(self.qis))
        short = int((pcount < sample_counts).sum())
        if short:
            warnings.warn(
                f"The population table holds fewer people than the sample in {short} combination(s) of "
                "quasi-identifier values: it should contain every sample record (a superset of the sample). "
                "Population figures for those classes use the larger sample count.",
                PrivacyWarning,
                stacklevel=3,
            )


def bind_population(source: PopulationSource, dataset: Any) -> PopulationMatcher:
    """Load a population table and bind it to ``dataset``'s quasi-identifiers and hierarchies."""
    matcher = PopulationMatcher(PopulationTable.load(source, dataset.qis), dataset)
    log.info("population table %s: %d people", source.table, matcher.population.size)
    return matcher


def class_population(matcher: PopulationMatcher, table: Any) -> np.ndarray:
    """People of the population in each class of a :class:`~anon_core.data.frequency.ClassTable`,
    at least the class's sample size (the population holds the sample)."""
    return np.maximum(matcher.counts(table.codes, table.levels), table.sizes)

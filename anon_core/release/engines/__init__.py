"""Scale engines: where the two row-touching steps run.

Only two steps of the data path touch every record: grouping the table into
the frequency table and applying the chosen transformation. An engine runs
those two; everything between (search, risk, metrics, reports) works on the
frequency table and stays local and small.

- ``pandas``: the whole table in memory (the default for files that fit).
- ``duckdb``: embedded, out-of-core; reads CSV and Parquet from a path in
  parallel, streams the release out in batches (bounded memory).
- ``spark``: pyspark, in local mode or on a cluster given by its master URL;
  the release is written by the executors.

Every engine gives the same frequency table (same tuple order, codes and
counts), hence the same optimum and figures, and the same released rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anon_core.errors import ConfigError
from anon_core.release.engines.base import (
    ENGINES,
    LARGE_PARQUET_BYTES,
    LARGE_TEXT_BYTES,
    Engine,
    GroupedTable,
    ReleasePlan,
    ReleaseSummary,
    TableSource,
    build_release_plan,
)
from anon_core.validation import check_int

__all__ = [
    "ENGINES",
    "Engine",
    "GroupedTable",
    "ReleasePlan",
    "ReleaseSummary",
    "TableSource",
    "build_release_plan",
    "ENGINE_OPTIONS",
    "choose_engine",
    "get_engine",
    "validate_engine_options",
]

#: The options each engine accepts (configuration ``engine_options``).
ENGINE_OPTIONS: dict[str, frozenset[str]] = {
    "pandas": frozenset(),
    "duckdb": frozenset({"memory_limit", "threads", "batch_rows", "temp_directory"}),
    "spark": frozenset({"master", "conf", "app_name", "memory_limit", "threads"}),
}
#: Upper bounds that keep a typo from asking for the impossible (threads, rows per written batch).
MAX_THREADS = 4096
MAX_BATCH_ROWS = 100_000_000
_MEMORY = re.compile(
    r"^\s*\d+(\.\d+)?\s*(b|k|m|g|t|kb|mb|gb|tb|kib|mib|gib|tib)?\s*$", re.IGNORECASE
)


def choose_engine(requested: str | None, path: str | Path | None) -> str:
    """The engine to use: the one asked for, else DuckDB for large CSV/Parquet files, else pandas."""
    if requested not in (None, "auto"):
        if requested not in ENGINES:
            raise ConfigError(
                f"'engine' must be one of {list(ENGINES)} or 'auto', got {requested!r}."
            )
        return str(requested)
    if path is None:
        return "pandas"
    p = Path(path)
    if p.is_dir():
        return "duckdb"  # a folder of Parquet parts (as Spark writes them)
    if not p.is_file():
        return "pandas"  # the loader reports the missing file
    size = p.stat().st_size
    fmt = TableSource.format_of(p)
    if fmt == "parquet" and size > LARGE_PARQUET_BYTES:
        return "duckdb"
    if fmt == "csv" and size > LARGE_TEXT_BYTES:
        return "duckdb"
    return "pandas"


def _check_text(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"'{field}' must be a non-empty string, got {value!r}.")
    return value


def validate_engine_options(name: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check ``engine_options`` for engine ``name``: known keys, types and ranges, one line per problem.

    With ``auto`` (or pandas) the scale engines' options are checked for type but
    not refused, since the engine is picked by the file's size.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"'engine_options' must be a mapping, got {type(options).__name__}.")
    known = set().union(*ENGINE_OPTIONS.values())
    for key in options:
        if key not in known:
            raise ConfigError(
                f"'engine_options.{key}' is not an engine option; the options are {sorted(known)}."
            )
        if name in ("duckdb", "spark") and key not in ENGINE_OPTIONS[name]:
            raise ConfigError(
                f"'engine_options.{key}' is not an option of the {name} engine (its options: "
                f"{sorted(ENGINE_OPTIONS[name])}). Remove it or choose the engine it belongs to."
            )
    out = dict(options)
    if "memory_limit" in out:
        value = out["memory_limit"]
        if not isinstance(value, str) or not _MEMORY.match(value):
            raise ConfigError(
                f"'engine_options.memory_limit' must be a size such as '2GB' or '512MB', got {value!r}."
            )
    if "threads" in out:
        out["threads"] = check_int("engine_options.threads", out["threads"], 1, MAX_THREADS)
    if "batch_rows" in out:
        out["batch_rows"] = check_int(
            "engine_options.batch_rows", out["batch_rows"], 1, MAX_BATCH_ROWS
        )
    if "temp_directory" in out:
        folder = Path(_check_text("engine_options.temp_directory", out["temp_directory"]))
        if not folder.is_dir():
            raise ConfigError(
                f"'engine_options.temp_directory' {str(folder)!r} is not an existing folder; create it or "
                "remove the option."
            )
    for key in ("master", "app_name"):
        if key in out:
            _check_text(f"engine_options.{key}", out[key])
    if "conf" in out:
        conf = out["conf"]
        if not isinstance(conf, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str | int | float | bool) for k, v in conf.items()
        ):
            raise ConfigError(
                "'engine_options.conf' must map Spark setting names to plain values, e.g. "
                f'{{"spark.sql.shuffle.partitions": 8}}, got {conf!r}.'
            )
    return out


def get_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """An engine instance; ``options`` are the configuration's ``engine_options`` (validated here)."""
    options = validate_engine_options(name, options)
    if name == "pandas":
        options = {}
    if name == "duckdb":
        from anon_core.release.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine(**options)
    if name == "spark":
        from anon_core.release.engines.spark_engine import SparkEngine

        return SparkEngine(**options)
    if name == "pandas":
        from anon_core.release.engines.pandas_engine import PandasEngine

        return PandasEngine(**options)
    raise ConfigError(f"'engine' must be one of {list(ENGINES)}, got {name!r}.")

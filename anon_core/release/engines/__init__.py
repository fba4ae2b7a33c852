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

__all__ = [
    "ENGINES",
    "Engine",
    "GroupedTable",
    "ReleasePlan",
    "ReleaseSummary",
    "TableSource",
    "build_release_plan",
    "choose_engine",
    "get_engine",
]


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


def get_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """An engine instance; ``options`` are the configuration's ``engine_options``."""
    options = dict(options or {})
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

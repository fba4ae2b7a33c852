"""Spark engine: group and release on a Spark cluster (or in local mode).

Grouping is one ``groupBy`` whose result (the distinct QI and sensitive rows,
usually thousands) comes back to the driver; the release is a narrow
projection run by the executors (a map literal per quasi-identifier and an
``isin`` on the suppressed classes), written as a folder of Parquet or CSV
parts in the input's order.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import FORMULA_START, MISSING_TOKENS, PLAIN_NUMBER
from anon_core.data.limits import check_columns_count
from anon_core.data.safe_write import temp_output
from anon_core.errors import ConfigError, DataError
from anon_core.release.engines.base import (
    SUPPRESSED,
    Engine,
    GroupedTable,
    Progress,
    ReleasePlan,
    ReleaseSummary,
    TableSource,
    check_columns,
    escaped_name,
    file_sha256,
    no_progress,
    output_format,
    run_polling,
)

#: Settings for a closed, quiet session: no web UI, no console progress bar, Arrow transfers.
DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.shuffle.partitions": "16",
    "spark.driver.memory": "2g",
}
LOCAL_CONF = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}


_BLOCK = 1 << 22
#: An extra CSV field after the header's: filled only by a row with more fields than the header.
EXTRA_FIELD = "__anon_extra_field__"


def needs_multiline(path: Path, encoding: str = "utf-8") -> bool:
    """Does a quoted field of this CSV hold a line break (so a record spans lines)?

    One pass in blocks: with '"' as quote and escape, a line ends inside a quoted field
    exactly when the quotes counted from the start of the file are odd at its line feed.
    Encodings other than UTF-8 and Latin-1 are answered True (the bytes are not ASCII)."""
    if encoding.lower().replace("_", "-") not in ("utf-8", "latin-1"):
        return True
    odd = 0
    with Path(path).open("rb") as fh:
        while block := fh.read(_BLOCK):
            data = np.frombuffer(block, dtype=np.uint8)
            quotes = np.cumsum(data == 34, dtype=np.int64) + odd
            breaks = np.flatnonzero((data == 10) | (data == 13))
            if len(breaks) and bool((quotes[breaks] % 2).any()):
                return True
            odd = int(quotes[-1] % 2) if len(quotes) else odd
    return False


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class SparkEngine(Engine):
    """``master``: ``local[*]`` (default) or a cluster's URL (``spark://host:7077``, ``yarn``, ``k8s://...``);
    ``conf``: extra Spark settings (e.g. executor memory)."""

    name = "spark"

    def __init__(
        self,
        master: str = "local[*]",
        conf: dict[str, Any] | None = None,
        app_name: str = "anon-core",
        memory_limit: str | None = None,
        threads: int | None = None,
        **_: Any,
    ) -> None:
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise ConfigError(
                "The Spark engine needs a Java runtime (17 or later) and none was found. Install one "
                "(Debian: apt-get install default-jre-headless) or use engine: duckdb."
            )
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise ConfigError(
                "The Spark engine needs pyspark: pip install 'anon-core[spark]'."
            ) from None
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        if threads and master == "local[*]":
            master = f"local[{int(threads)}]"
        settings = dict(DEFAULT_CONF)
        if master.startswith("local"):
            settings.update(LOCAL_CONF)
        if memory_limit:
            settings["spark.driver.memory"] = str(memory_limit)
        settings.update({str(k): str(v) for k, v in (conf or {}).items()})
        builder = SparkSession.builder.master(master).appName(app_name)
        for key, value in settings.items():
            builder = builder.config(key, value)
        self.spark = builder.getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")

    # ------------------------------------------------------------------ reading
    def read(self, source: TableSource, extra: bool = False):
        """The table (missing-value tokens as null); ``extra`` adds :data:`EXTRA_FIELD` (CSV)."""
        check_columns_count(len(source.columns), source.path.name)
        try:
            return self._read(source, extra)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise DataError(f"Spark could not read {source.path.name}: {first}") from None

    def _read(self, source: TableSource, extra: bool = False):
        from pyspark.sql import functions as F
        from pyspark.sql.types import StringType, StructField, StructType

        path = str(source.path)
        if source.format == "parquet":
            return self.spark.read.parquet(path)
        # The header's names as the loader read them, plus one more field: a row with more fields
        # than the header fills it (Spark would drop them silently; pandas refuses the file).
        names = [*source.columns, EXTRA_FIELD]
        schema = StructType([StructField(c, StringType(), True) for c in names])
        # pandas' reading: a quoted field may hold line breaks (multiLine: a record is not a
        # line), a doubled quote inside quotes is one quote, blanks around fields are kept.
        # multiLine reads each file in one task, so it is used only for a file that needs it.
        df = (
            self.spark.read.option("header", True)
            .option("sep", source.separator or ",")
            .option("encoding", source.encoding)
            .option("quote", '"')
            .option("escape", '"')
            .option("multiLine", self._multiline(source))
            .option("ignoreLeadingWhiteSpace", False)
            .option("ignoreTrailingWhiteSpace", False)
            .option("inferSchema", False)
            .option("enforceSchema", True)
            .option("mode", "PERMISSIVE")
            .schema(schema)
            .csv(path)
        )
        # The same missing-value tokens as the in-memory loader.
        cells = [
            F.when(F.col(_ident(c)).isin(MISSING_TOKENS), F.lit(None))
            .otherwise(F.col(_ident(c)))
            .alias(c)
            for c in source.columns
        ]
        return df.select(*cells, F.col(_ident(EXTRA_FIELD))) if extra else df.select(*cells)

    def _multiline(self, source: TableSource) -> bool:
        """needs_multiline, remembered per file version (size and modification time)."""
        stat = source.path.stat()
        key = (str(source.path), stat.st_size, stat.st_mtime_ns, source.encoding)
        cache = self.__dict__.setdefault("_multiline_of", {})
        if key not in cache:
            cache[key] = needs_multiline(source.path, source.encoding)
        return cache[key]

    def _run(self, action, progress: Progress, message: str):
        """Run a Spark action on a worker thread, reporting finished tasks meanwhile."""
        tracker = self.spark.sparkContext.statusTracker()

        def poll() -> float | None:
            done = total = 0
            for sid in tracker.getActiveStageIds():
                info = tracker.getStageInfo(sid)
                if info is not None:
                    done, total = done + info.numCompletedTasks, total + info.numTasks
            return done / total if total else None

        try:
            return run_polling(action, poll, progress, message, interval=0.5)
        except Exception as exc:
            raise DataError(
                f"Spark could not process {message.lower()}: {str(exc).splitlines()[0]}"
            ) from None

    def group(
        self, source: TableSource, columns: list[str], progress: Progress = no_progress
    ) -> GroupedTable:
        from pyspark.sql import functions as F

        t0 = time.perf_counter()
        check_columns(source, columns)
        csv = source.format == "csv"
        df = (
            self.read(source, extra=csv)
            .select(*[F.col(_ident(c)) for c in columns], *([EXTRA_FIELD] if csv else []))
            .withColumn("__row", F.monotonically_increasing_id())
        )
        long = [F.max(F.col(EXTRA_FIELD).isNotNull().cast("int")).alias("__long")] if csv else []
        query = (
            df.groupBy(*[F.col(_ident(c)) for c in columns])
            .agg(F.count(F.lit(1)).alias("__n"), F.min("__row").alias("__first"), *long)
            .orderBy("__first")
        )
        frame = self._run(query.toPandas, progress, f"Grouping {source.path.name} with Spark")
        if csv:
            if len(frame) and int(frame["__long"].max()) == 1:
                raise DataError(
                    f"{source.path.name} has a row with more fields than its header (the in-memory "
                    "engine refuses it too). Check the separator and the quoting of that row."
                )
            frame = frame.drop(columns=["__long"])
        grouped = GroupedTable.from_result(frame, source, self.name, time.perf_counter() - t0)
        progress(1.0, "Grouped")
        return grouped

    def count(self, source: TableSource) -> int:
        return int(self._run(self.read(source).count, no_progress, f"Counting {source.path.name}"))

    def sample(self, source: TableSource, n: int, seed: int = 0) -> pd.DataFrame:
        df = self.read(source)
        total = self.count(source)
        fraction = min(1.0, 1.2 * n / max(total, 1))
        return df.sample(fraction=fraction, seed=seed).limit(int(n)).toPandas()

    # ------------------------------------------------------------------ release
    def release(
        self,
        source: TableSource,
        plan: ReleasePlan,
        out: Path,
        progress: Progress = no_progress,
        formula_escape: bool = True,
    ) -> ReleaseSummary:
        from pyspark.sql import functions as F

        t0 = time.perf_counter()
        out = Path(out)
        fmt = output_format(out)
        check_columns(source, [c.name for c in plan.columns])
        df = self.read(source)
        general = {}
        for c in plan.columns:
            if c.action != "generalize":
                continue
            if c.raw_values is None or c.raw_labels is None:
                raise DataError(
                    f"The release plan has no value map for {c.name!r}; group the table with Spark first."
                )
            col = F.col(_ident(c.name))
            pairs = []
            for raw, label in zip(c.raw_values.tolist(), c.raw_labels.tolist(), strict=True):
                pairs += [
                    F.lit(raw.item() if isinstance(raw, np.generic) else raw),
                    F.lit(str(label)),
                ]
            lookup = F.create_map(*pairs)[col] if pairs else F.lit(None).cast("string")
            missing = col.isNull()
            if pd.api.types.is_float_dtype(c.raw_values):
                missing = missing | F.isnan(col)
            general[c.name] = F.when(missing, F.lit(c.missing_label)).otherwise(lookup)
        keys = plan.suppressed_label_keys
        df = df.select(
            *[F.col(_ident(c)) for c in df.columns],
            *[g.alias(f"__g{i}") for i, g in enumerate(general.values())],
        )
        gcols = {name: F.col(f"__g{i}") for i, name in enumerate(general)}
        supp = (
            F.concat_ws("\x1f", *[gcols[q] for q in plan.qis]).isin(keys) if keys else F.lit(False)
        )
        df = df.withColumn("__supp", supp)
        if plan.mode == "remove":
            df = df.filter(~F.col("__supp"))
        outputs = []
        # CSV cells as io.table_bytes writes them: text that a spreadsheet would run as a
        # formula gets a leading apostrophe (generalized labels and kept text columns).
        escape = fmt != "parquet" and formula_escape
        text_types = {f.name for f in df.schema.fields if f.dataType.typeName() == "string"}
        for c in plan.columns:
            if c.action == "drop":
                continue
            if c.action == "generalize":
                value = gcols[c.name]
                if escape:
                    value = _escape_formula(F, value)
                if plan.mode == "mask":
                    value = F.when(F.col("__supp"), F.lit(SUPPRESSED)).otherwise(value)
                outputs.append(value.alias(escaped_name(c.name, escape)))
            else:
                value = F.col(_ident(c.name))
                if escape and c.name in text_types:
                    value = _escape_formula(F, value)
                outputs.append(value.alias(escaped_name(c.name, escape)))
        result = df.select(*outputs)
        writer = result.write.mode("overwrite")
        sep = "\t" if out.suffix.lower() == ".tsv" else ","

        with temp_output(out) as tmp:  # Spark's folder; removed on any failure, exit or SIGTERM

            def action() -> None:
                if fmt == "parquet":
                    writer.option("compression", "zstd").parquet(str(tmp))
                else:
                    writer.option("header", True).option("sep", sep).option("escape", '"').csv(
                        str(tmp)
                    )

            self._run(action, progress, f"Writing {out.name}")
            _replace(tmp, out)
        return ReleaseSummary(
            out, fmt, plan.expected_rows, time.perf_counter() - t0, file_sha256(out), self.name
        )

    def close(self) -> None:
        """Sessions are shared per process (getOrCreate); stop it with ``stop()`` when done."""

    def stop(self) -> None:
        self.spark.stop()


def _escape_formula(F, col):  # noqa: N803 - pyspark's functions module
    """io.escape_formula_text as a Spark column expression."""
    hit = col.rlike(FORMULA_START) & ~col.rlike(f"^(?:{PLAIN_NUMBER})$")
    return F.when(hit, F.concat(F.lit("'"), col)).otherwise(col)


def _replace(tmp: Path, out: Path) -> None:
    """Move Spark's output folder into place; only a previous Spark output or a file is replaced.

    The previous output is renamed aside first and removed only once the new one is in place,
    so a failure at any point leaves one complete release at ``out`` (or beside it)."""
    if out.is_dir() and not (out / "_SUCCESS").exists():
        shutil.rmtree(tmp, ignore_errors=True)
        raise DataError(
            f"{str(out)!r} is a folder that is not a previous release; choose another output path."
        )
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.previous")
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
        out.rename(old)
    try:
        tmp.rename(out)
    except BaseException:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)

"""DuckDB engine: group and release CSV/Parquet files larger than memory.

DuckDB parses and groups the file in parallel and out of core; the release is
streamed back in Arrow batches, in file order, generalized with the same
label rules as the in-memory path (each batch's distinct values are mapped
once, via dictionary encoding) and written batch by batch, so memory stays
bounded by the batch size whatever the file size.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import weakref
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING, to_labels
from anon_core.errors import DataError
from anon_core.release.engines.base import (
    SUPPRESSED,
    Engine,
    GroupedTable,
    Progress,
    ReleasePlan,
    ReleaseSummary,
    TableSource,
    check_columns,
    file_sha256,
    missing_tokens_sql,
    no_progress,
    output_format,
    quote_ident,
    run_polling,
)


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBEngine(Engine):
    """``memory_limit`` bounds DuckDB's own memory (it spills to ``temp_directory`` past it)."""

    name = "duckdb"

    def __init__(
        self,
        memory_limit: str = "2GB",
        threads: int | None = None,
        batch_rows: int = 500_000,
        temp_directory: str | None = None,
    ) -> None:
        import duckdb

        self.batch_rows = int(batch_rows)
        self.con = duckdb.connect()
        self.con.execute(f"SET memory_limit = {_lit(str(memory_limit))}")
        self.con.execute("SET preserve_insertion_order = true")
        self.con.execute("SET enable_progress_bar = false")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        # Spill files hold personal data: keep them in a private folder removed on close.
        self._tmp = tempfile.mkdtemp(prefix="anon-duckdb-", dir=temp_directory)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._tmp, True)
        self.con.execute(f"SET temp_directory = {_lit(self._tmp)}")

    # ------------------------------------------------------------------ reading
    def relation_sql(self, source: TableSource) -> str:
        path = _lit(str(source.path / "*.parquet" if source.path.is_dir() else source.path))
        if source.format == "parquet":
            return f"read_parquet({path})"
        return (
            f"read_csv({path}, header = true, delim = {_lit(source.separator or ',')}, quote = '\"', "
            f"escape = '\"', all_varchar = true, nullstr = {missing_tokens_sql()}, "
            f"encoding = {_lit(source.encoding)}, strict_mode = false, null_padding = false)"
        )

    def _run(self, sql: str, progress: Progress, message: str):
        """Run a query on a worker thread, reporting DuckDB's own progress meanwhile."""

        def poll() -> float | None:
            try:
                p = self.con.query_progress()
            except Exception:
                return None
            return p / 100.0 if p is not None and p >= 0 else None

        try:
            return run_polling(lambda: self.con.sql(sql).to_arrow_table(), poll, progress, message)
        except Exception as exc:
            raise _friendly(exc) from None

    def group(
        self, source: TableSource, columns: list[str], progress: Progress = no_progress
    ) -> GroupedTable:
        t0 = time.perf_counter()
        check_columns(source, columns)
        cols = ", ".join(quote_ident(c) for c in columns)
        rel = self.relation_sql(source)
        sql = (
            (
                f"SELECT {cols}, count(*) AS __n, min(__row) AS __first FROM "
                f"(SELECT {cols}, row_number() OVER () AS __row FROM {rel}) "
                f"GROUP BY ALL ORDER BY __first"
            )
            if columns
            else f"SELECT count(*) AS __n, 0 AS __first FROM {rel}"
        )
        table = self._run(sql, progress, f"Grouping {source.path.name} with DuckDB")
        frame = table.to_pandas()
        grouped = GroupedTable.from_result(frame, source, self.name, time.perf_counter() - t0)
        progress(1.0, "Grouped")
        return grouped

    def sample(self, source: TableSource, n: int, seed: int = 0) -> pd.DataFrame:
        sql = (
            f"SELECT * FROM {self.relation_sql(source)} "
            f"USING SAMPLE reservoir({int(n)} ROWS) REPEATABLE ({int(seed)})"
        )
        return self._run(sql, no_progress, "").to_pandas()

    def count(self, source: TableSource) -> int:
        return int(
            self._run(f"SELECT count(*) AS n FROM {self.relation_sql(source)}", no_progress, "")
            .column(0)[0]
            .as_py()
        )

    # ------------------------------------------------------------------ release
    def release(
        self, source: TableSource, plan: ReleasePlan, out: Path, progress: Progress = no_progress
    ) -> ReleaseSummary:
        import pyarrow as pa

        t0 = time.perf_counter()
        out = Path(out)
        fmt = output_format(out)
        names = [c.name for c in plan.columns]
        check_columns(source, names)
        keep = [c for c in plan.columns if c.action != "drop"]
        cols = ", ".join(quote_ident(c.name) for c in keep)
        try:
            reader = self.con.sql(
                f"SELECT {cols} FROM {self.relation_sql(source)}"
            ).to_arrow_reader(self.batch_rows)
        except Exception as exc:
            raise _friendly(exc) from None
        supp_keys = plan.suppressed_keys
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.partial")
        writer = None
        rows = 0
        seen = 0
        try:
            for batch in reader:
                seen += batch.num_rows
                arrays, codes = [], []
                for c in keep:
                    arr = batch.column(c.name)
                    if c.action == "generalize":
                        gen = _generalize(arr, c)
                        codes.append(gen)
                        arrays.append(gen)  # replaced by labels below
                    else:
                        arrays.append(arr)
                suppressed = (
                    np.isin(plan.class_keys(codes), supp_keys)
                    if len(supp_keys)
                    else np.zeros(batch.num_rows, dtype=bool)
                )
                out_cols = []
                for c, arr in zip(keep, arrays, strict=True):
                    if c.action == "generalize":
                        labels = np.asarray(c.labels, dtype=object)[arr]
                        if plan.mode == "mask":
                            labels[suppressed] = SUPPRESSED
                        else:
                            labels = labels[~suppressed]
                        out_cols.append(pa.array(labels, type=pa.string()))
                    else:
                        out_cols.append(
                            arr.filter(pa.array(~suppressed)) if plan.mode == "remove" else arr
                        )
                table = pa.Table.from_arrays(out_cols, names=[c.name for c in keep])
                writer = writer or _Writer(tmp, fmt, table.schema)
                writer.write(table)
                rows += table.num_rows
                progress(min(rows / max(plan.expected_rows, 1), 1.0), f"Writing {out.name}")
            if writer is None:
                raise DataError(f"{source.path.name} has no data rows.")
            writer.close()
            tmp.replace(out)
        except BaseException:
            if writer is not None:
                writer.close()
            tmp.unlink(missing_ok=True)
            raise
        return ReleaseSummary(out, fmt, rows, time.perf_counter() - t0, file_sha256(out), self.name)

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            self._cleanup()


def _generalize(arr, plan) -> np.ndarray:
    """Generalized codes of one column of a batch: distinct values mapped once."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    enc = pc.dictionary_encode(arr)
    values = enc.dictionary.to_pandas()
    labels = to_labels(values) if len(values) else np.zeros(0, dtype=object)
    lookup = plan.leaf_code
    try:
        dict_codes = np.fromiter((lookup[v] for v in labels), dtype=np.int64, count=len(labels))
    except KeyError as exc:
        raise DataError(
            f"Value {exc.args[0]!r} of {plan.name!r} is not in the frequency table: the file changed since it "
            "was grouped. Group it again."
        ) from None
    idx = enc.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    if enc.indices.null_count:
        if MISSING not in lookup:
            raise DataError(
                f"{plan.name!r} has missing values the frequency table did not see. Group it again."
            )
        mask = enc.indices.is_null().to_numpy(zero_copy_only=False)
        out = dict_codes[idx] if len(dict_codes) else np.zeros(len(idx), dtype=np.int64)
        out[mask] = lookup[MISSING]
        return out
    return dict_codes[idx]


class _Writer:
    """Parquet through pyarrow; CSV through pandas, so its bytes equal the in-memory engine's."""

    def __init__(self, path: Path, fmt: str, schema) -> None:
        self.fmt = fmt
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self.w = pq.ParquetWriter(path, schema, compression="zstd")
        else:
            self.sep = "\t" if path.name.lower().endswith(".tsv.partial") else ","
            self.w = path.open("w", encoding="utf-8", newline="")
            self.header = True

    def write(self, table) -> None:
        if self.fmt == "parquet":
            self.w.write_table(table)
        else:
            table.to_pandas().to_csv(
                self.w, index=False, sep=self.sep, header=self.header, lineterminator="\n"
            )
            self.header = False

    def close(self) -> None:
        self.w.close()


def _friendly(exc: BaseException) -> BaseException:
    import duckdb

    if isinstance(exc, duckdb.OutOfMemoryException):
        return DataError(
            f"DuckDB ran out of memory ({exc}). Raise engine_options.memory_limit or use fewer columns."
        )
    if isinstance(exc, duckdb.Error):
        text = str(exc).splitlines()[0]
        return DataError(
            f"DuckDB could not read the file: {text}. Check the separator, encoding and quoting."
        )
    return exc

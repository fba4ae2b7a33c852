"""DuckDB engine: group and release CSV/Parquet files larger than memory.

DuckDB parses and groups the file in parallel and out of core. The release is
generalized inside DuckDB and written by its own parallel ``COPY ... TO``, in
file order: each quasi-identifier's raw values (the distinct values the
grouping saw) become an ENUM type, so a row's generalized code is one hash
lookup and a list index; suppressed classes are another ENUM of their
mixed-radix keys. Only projections and filters are used, which DuckDB keeps in
insertion order (no join). CSV lines are formatted in SQL with pandas' quoting
rules, so the bytes equal the in-memory engine's.

Releases the SQL path does not cover (a typed, non-text column kept in a CSV
release; a quasi-identifier without the grouping's value map; a single-column
CSV) are streamed back in Arrow batches and generalized in Python as before.
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
from anon_core.errors import AnonError, DataError
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
        self._types: list[str] = []  # ENUM types of the release being written

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
        t0 = time.perf_counter()
        out = Path(out)
        fmt = output_format(out)
        check_columns(source, [c.name for c in plan.columns])
        query = self._release_query(source, plan, fmt, out)
        if query is None:
            return self.release_batches(source, plan, out, progress)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.partial")
        options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else _CSV_RAW
        try:
            written = self._copy(
                f"COPY ({query}) TO {_lit(str(tmp))} ({options})",
                progress,
                f"Writing {out.name} with DuckDB",
            )
            rows = written - (fmt != "parquet")  # the CSV header is a line of the query
            if rows == 0 and self.count(source) == 0:
                raise DataError(f"{source.path.name} has no data rows.")
            tmp.replace(out)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            for name in self._types:
                self.con.execute(f"DROP TYPE IF EXISTS {name}")
            self._types = []
        progress(1.0, f"Wrote {out.name}")
        return ReleaseSummary(out, fmt, rows, time.perf_counter() - t0, file_sha256(out), self.name)

    def _release_query(
        self, source: TableSource, plan: ReleasePlan, fmt: str, out: Path
    ) -> str | None:
        """The release as one order-preserving SELECT, or None where the batch path is needed."""
        rel = self.relation_sql(source)
        keep = [c for c in plan.columns if c.action != "drop"]
        probe = self.con.sql(
            f"SELECT {', '.join(quote_ident(c.name) for c in plan.columns)} FROM {rel} LIMIT 0"
        )
        types = {c.name: str(t) for c, t in zip(plan.columns, probe.types, strict=True)}
        by_name = {c.name: c for c in plan.columns}
        if fmt != "parquet" and (
            len(keep) < 2
            or any(c.action == "keep" and str(types[c.name]) != "VARCHAR" for c in keep)
        ):
            return None  # pandas' CSV formatting of typed values is not reproduced in SQL
        radices = plan.radices
        span = float(np.prod(radices.astype(float)))
        if span > _MAX_BITS:
            return None
        codes: dict[str, str] = {}
        for q in plan.qis:
            c = by_name[q]
            if c.raw_values is None or c.raw_labels is None or c.labels is None:
                return None
            expr = self._code_expr(c, str(types[q]))
            if expr is None:
                return None
            codes[q] = expr
        inner = [quote_ident(c.name) for c in keep if c.action == "keep"]
        inner += [f"{codes[q]} AS __c{j}" for j, q in enumerate(plan.qis)]
        key = "0"
        for j, r in enumerate(radices):
            key = f"({key}) * {int(r)} + __c{j}" if j else f"__c{j}::BIGINT"
        supp_keys = plan.suppressed_keys
        if len(supp_keys):  # one bit per class key, set for suppressed classes
            bits = np.full(int(span), ord("0"), dtype=np.uint8)
            bits[supp_keys] = ord("1")
            supp = f"get_bit('{bits.tobytes().decode('ascii')}'::BIT, ({key})::INTEGER) = 1"
        else:
            supp = "false"
        sep = "\t" if out.name.lower().endswith(".tsv") else ","
        csv = fmt != "parquet"
        outputs = []
        for c in keep:
            if c.action == "generalize":
                # Labels are known here: CSV cells are formatted once per label, not per row.
                j = plan.qis.index(c.name)
                texts = [_csv_text(str(v), sep) if csv else str(v) for v in c.labels]
                label = f"{_list(texts)}[__c{j} + 1]"
                if plan.mode == "mask":
                    star = _csv_text(SUPPRESSED, sep) if csv else SUPPRESSED
                    label = f"CASE WHEN __supp THEN {_lit(star)} ELSE {label} END"
                outputs.append((c.name, label))
            else:
                cell = quote_ident(c.name)
                outputs.append((c.name, f"__anon_csv_cell({cell}, {_lit(sep)})" if csv else cell))
        where = " WHERE NOT __supp" if plan.mode == "remove" else ""
        body = f"SELECT *, {supp} AS __supp FROM (SELECT {', '.join(inner)} FROM {rel})"
        if not csv:
            cols = ", ".join(f"{e} AS {quote_ident(n)}" for n, e in outputs)
            return f"SELECT {cols} FROM ({body}){where}"
        line = f" || {_lit(sep)} || ".join(e for _, e in outputs)
        header = sep.join(_csv_text(n, sep) for n, _ in outputs)
        return f"SELECT {_lit(header)} AS line UNION ALL SELECT {line} FROM ({body}){where}"

    def _copy(self, sql: str, progress: Progress, message: str) -> int:
        """Run a COPY on a worker thread with progress; the number of rows it wrote."""

        def poll() -> float | None:
            try:
                p = self.con.query_progress()
            except Exception:
                return None
            return p / 100.0 if p is not None and p >= 0 else None

        try:
            self.con.execute(_CSV_CELL_MACRO)
            result = run_polling(lambda: self.con.execute(sql).fetchall(), poll, progress, message)
        except AnonError:
            raise
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            if "ENUM" in text:
                raise DataError(
                    f"A value of the file is not in the frequency table ({text}): the file changed "
                    "since it was grouped. Group it again."
                ) from None
            if "frequency table did not see" in text:
                raise DataError(text.split(": ", 1)[-1]) from None
            raise _friendly(exc) from None
        return int(result[0][0]) if result else 0

    def _code_expr(self, c, sql_type: str) -> str | None:
        """SQL for the generalized code of column ``c`` from its raw value (None: unsupported)."""
        raw = c.raw_values
        if len(raw):
            frame = pd.DataFrame({"raw": raw.reset_index(drop=True)})
            self.con.register("__raw_values", frame)
            try:
                texts = [
                    r[0]
                    for r in self.con.sql(
                        f"SELECT CAST(CAST(raw AS {sql_type}) AS VARCHAR) FROM __raw_values"
                    ).fetchall()
                ]
            except Exception:
                return None
            finally:
                self.con.unregister("__raw_values")
            if len(set(texts)) != len(texts) or any(t is None for t in texts):
                return None
        else:
            texts = []
        index = {str(v): i for i, v in enumerate(c.labels)}
        try:
            code_of = [index[str(v)] for v in c.raw_labels]
        except KeyError:
            return None
        col = quote_ident(c.name)
        missing = f"{col} IS NULL"
        if sql_type in ("DOUBLE", "FLOAT", "REAL"):
            missing += f" OR isnan({col})"
        if c.missing_label is not None and str(c.missing_label) in index:
            on_missing = str(index[str(c.missing_label)])
        else:
            on_missing = f"error({_lit(f'{c.name!r} has missing values the frequency table did not see. Group it again.')})"
        if not texts:
            return f"CASE WHEN {missing} THEN {on_missing} ELSE NULL END"
        name = self._enum(texts)
        value = col if sql_type == "VARCHAR" else f"CAST({col} AS VARCHAR)"
        lookup = f"{_list(code_of)}[enum_code(CAST({value} AS {name}))::BIGINT + 1]"
        return f"CASE WHEN {missing} THEN {on_missing} ELSE {lookup} END"

    def _enum(self, members: list[str]) -> str:
        """A new ENUM type of these members (dropped after the release)."""
        name = f"__anon_enum_{len(self._types)}"
        self.con.execute(f"DROP TYPE IF EXISTS {name}")
        self.con.execute(f"CREATE TYPE {name} AS ENUM ({', '.join(map(_lit, members))})")
        self._types.append(name)
        return name

    def release_batches(
        self, source: TableSource, plan: ReleasePlan, out: Path, progress: Progress = no_progress
    ) -> ReleaseSummary:
        """The release streamed back in Arrow batches and generalized in Python (any column types)."""
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


#: Largest class-key space the SQL release handles (a bit string of this many bits).
_MAX_BITS = 1 << 23

#: COPY options that write each single-column line as it is (quoting is done in SQL).
_CSV_RAW = "FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01'"


def _list(values: list) -> str:
    """A SQL list literal of strings or ints."""
    return "[" + ", ".join(_lit(v) if isinstance(v, str) else str(int(v)) for v in values) + "]"


def _csv_text(text: str, sep: str) -> str:
    """A text cell as pandas writes it (QUOTE_MINIMAL: quoted when it holds the separator,
    a quote or a newline)."""
    if sep in text or '"' in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


#: pandas' QUOTE_MINIMAL for one cell: quoted (quotes doubled) when it holds the
#: separator, a quote or a newline; NULL is empty.
_CSV_CELL_MACRO = (
    "CREATE OR REPLACE TEMP MACRO __anon_csv_cell(v, sep) AS CASE WHEN v IS NULL THEN '' "
    "WHEN contains(v, sep) OR contains(v, '\"') OR contains(v, chr(10)) "
    "THEN '\"' || replace(v, '\"', '\"\"') || '\"' ELSE v END"
)


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

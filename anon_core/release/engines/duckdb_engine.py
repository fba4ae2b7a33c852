"""DuckDB engine: group and release CSV/Parquet files larger than memory.

DuckDB parses and groups the file in parallel and out of core. The release is
generalized inside DuckDB and written by its own parallel ``COPY ... TO``, in
file order: each quasi-identifier's raw values (the distinct values the
grouping saw) become an ENUM type, so a row's generalized code is one hash
lookup and a list index; suppressed classes are another ENUM of their
mixed-radix keys. Only projections and filters are used, which DuckDB keeps in
insertion order (no join). CSV cells are formatted in SQL with pandas' quoting rules and
io.table_bytes' formula escaping, and written by DuckDB's CSV writer with no quoting of its
own, so the bytes equal the in-memory engine's.

A Parquet release of a Parquet file skips SQL: its text columns are read and written as
Arrow dictionary arrays (``arrow_release``), so no string is built per row.

Releases the SQL path does not cover (a typed, non-text column kept in a CSV
release; a quasi-identifier without the grouping's value map; a single-column
CSV) are streamed back in Arrow batches and generalized in Python as before.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
import weakref
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.data.io import (
    FORMULA_START,
    PLAIN_NUMBER,
    escape_formula_text,
)
from anon_core.data.limits import check_columns_count
from anon_core.data.safe_write import replace_into, temp_output
from anon_core.errors import AnonError, DataError
from anon_core.release.engines import arrow_release
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
    missing_tokens_sql,
    no_progress,
    output_format,
    quote_ident,
    run_polling,
)
from anon_core.release.engines.located import (
    LocatedSource,
    check_counts,
    check_sql,
    select_list,
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
        """The file as a relation; with the geo section's location column derived in it."""
        if isinstance(source, LocatedSource):
            return f"(SELECT {select_list(source)} FROM {self._file_sql(source)})"
        return self._file_sql(source)

    def check_locations(self, source: LocatedSource) -> None:
        """DataError, as the pandas engine words it, for rows whose coordinates are not numbers,
        missing or out of range (one counting query)."""
        table = self._run(check_sql(source, self._file_sql(source)), no_progress, "")
        check_counts(source, {k: int(v[0]) for k, v in table.to_pydict().items()})

    def _file_sql(self, source: TableSource) -> str:
        check_columns_count(len(source.columns), source.path.name)
        path = _lit(str(source.path / "*.parquet" if source.path.is_dir() else source.path))
        if source.format == "parquet":
            return f"read_parquet({path})"
        return (
            f"read_csv({path}, header = true, delim = {_lit(source.separator or ',')}, quote = '\"', "
            f"escape = '\"', all_varchar = true, nullstr = {missing_tokens_sql()}, "
            f"encoding = {_lit(source.encoding)}, strict_mode = false, null_padding = false)"
        )

    def _progress(self) -> float | None:
        """DuckDB's progress of the running query (a fraction), or None when it has none."""
        try:
            p = self.con.query_progress()
        except Exception:
            return None
        return p / 100.0 if p is not None and p >= 0 else None

    def _run(self, sql: str, progress: Progress, message: str):
        """Run a query on a worker thread, reporting DuckDB's own progress meanwhile."""
        try:
            return run_polling(
                lambda: self.con.sql(sql).to_arrow_table(), self._progress, progress, message
            )
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
        self,
        source: TableSource,
        plan: ReleasePlan,
        out: Path,
        progress: Progress = no_progress,
        formula_escape: bool = True,
    ) -> ReleaseSummary:
        t0 = time.perf_counter()
        out = Path(out)
        fmt = output_format(out)
        check_columns(source, [c.name for c in plan.columns])
        located = isinstance(source, LocatedSource)  # its location column is made by the query
        if fmt == "parquet" and not located and arrow_release.supported(source, plan):
            return self._release_arrow(source, plan, out, progress)
        built = self._release_query(source, plan, fmt, out, formula_escape)
        if built is None:
            return self.release_batches(source, plan, out, progress, formula_escape)
        query, options = built
        try:
            with temp_output(out) as tmp:  # removed on any failure, exit or SIGTERM
                written = self._copy(
                    f"COPY ({query}) TO {_lit(str(tmp))} ({options})",
                    progress,
                    f"Writing {out.name} with DuckDB",
                )
                rows = written
                if rows == 0 and self.count(source) == 0:
                    raise DataError(f"{source.path.name} has no data rows.")
                replace_into(tmp, out)
        except _CarriageReturn:
            # pandas quotes every field of a table with a bare CR in a cell: the batch path does.
            return self.release_batches(source, plan, out, progress, formula_escape, quote_all=True)
        finally:
            for name in self._types:
                self.con.execute(f"DROP TYPE IF EXISTS {name}")
            self._types = []
        progress(1.0, f"Wrote {out.name}")
        return ReleaseSummary(out, fmt, rows, time.perf_counter() - t0, file_sha256(out), self.name)

    def _release_arrow(
        self, source: TableSource, plan: ReleasePlan, out: Path, progress: Progress
    ) -> ReleaseSummary:
        """Parquet to Parquet through Arrow dictionary arrays (arrow_release): no string per cell."""
        t0 = time.perf_counter()
        with temp_output(out) as tmp:
            rows = arrow_release.write(source, plan, tmp, progress)
            if rows == 0 and self.count(source) == 0:
                raise DataError(f"{source.path.name} has no data rows.")
            replace_into(tmp, out)
        progress(1.0, f"Wrote {out.name}")
        return ReleaseSummary(
            out, "parquet", rows, time.perf_counter() - t0, file_sha256(out), self.name
        )

    def _release_query(
        self, source: TableSource, plan: ReleasePlan, fmt: str, out: Path, formula_escape: bool
    ) -> tuple[str, str] | None:
        """The release as one order-preserving SELECT and its COPY options, or None where the
        batch path is needed."""
        rel = self.relation_sql(source)
        keep = [c for c in plan.columns if c.action != "drop"]
        if len(keep) > _SQL_MAX_COLUMNS:
            return None  # DuckDB plans one expression per column slowly: the batch path is linear
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
        escape = escape_formula_text if csv and formula_escape else str
        header = {c.name: escaped_name(c.name, csv and formula_escape) for c in keep}
        if csv and any(
            "\r" in escape(str(v)) for c in keep if c.action == "generalize" for v in c.labels
        ):
            return None  # every field quoted (pandas' rule for a bare CR): the batch path
        if csv and any("\r" in c.name for c in keep):
            return None
        outputs = []
        for c in keep:
            if c.action == "generalize":
                # Labels are known here: CSV cells are formatted once per label, not per row.
                j = plan.qis.index(c.name)
                texts = [_csv_text(escape(str(v)), sep) if csv else str(v) for v in c.labels]
                label = f"{_list(texts)}[__c{j} + 1]"
                if plan.mode == "mask":
                    star = _csv_text(SUPPRESSED, sep) if csv else SUPPRESSED
                    label = f"CASE WHEN __supp THEN {_lit(star)} ELSE {label} END"
                outputs.append((header[c.name], label))
            else:
                cell = quote_ident(c.name)
                if csv and formula_escape:
                    cell = f"__anon_formula({cell})"
                outputs.append(
                    (header[c.name], f"__anon_csv_cell({cell}, {_lit(sep)})" if csv else cell)
                )
        where = " WHERE NOT __supp" if plan.mode == "remove" else ""
        body = f"SELECT *, {supp} AS __supp FROM (SELECT {', '.join(inner)} FROM {rel})"
        plain = len({n for n, _ in outputs}) == len(outputs)  # escaped names may coincide
        if not csv or (plain and all(_csv_text(n, sep) == n for n, _ in outputs)):
            # Cells are formatted already: DuckDB's writer puts them between separators as
            # they are (no quote character), and the names, which need no quoting, as header.
            cols = ", ".join(f"{e} AS {quote_ident(n)}" for n, e in outputs)
            options = _PARQUET if not csv else f"{_CSV_RAW}, DELIMITER {_lit(sep)}"
            return f"SELECT {cols} FROM ({body}){where}", options
        # A name that needs quoting: one column holding whole lines, the header line being its
        # name (a UNION ALL with a header row would make DuckDB write on one thread).
        line = f" || {_lit(sep)} || ".join(e for _, e in outputs)
        header = sep.join(_csv_text(n, sep) for n, _ in outputs)
        query = f"SELECT {line} AS {quote_ident(header)} FROM ({body}){where}"
        return query, f"{_CSV_RAW}, DELIMITER '\x01'"

    def _copy(self, sql: str, progress: Progress, message: str) -> int:
        """Run a COPY on a worker thread with progress; the number of rows it wrote."""
        try:
            self.con.execute(_FORMULA_MACRO)
            self.con.execute(_CSV_CELL_MACRO)
            result = run_polling(
                lambda: self.con.execute(sql).fetchall(), self._progress, progress, message
            )
        except AnonError:
            raise
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            if "ENUM" in text:
                raise DataError(
                    f"A value of the file is not in the frequency table ({text}): the file changed "
                    "since it was grouped. Group it again."
                ) from None
            if _CR_MARK in text:
                raise _CarriageReturn from None
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
        self,
        source: TableSource,
        plan: ReleasePlan,
        out: Path,
        progress: Progress = no_progress,
        formula_escape: bool = True,
        quote_all: bool | None = None,
    ) -> ReleaseSummary:
        """The release streamed back in Arrow batches and generalized in Python (any column types).

        CSV is written by pandas batch by batch with io.table_bytes' rules (formula escaping;
        every field quoted when a cell or a name holds a bare CR: ``quote_all``, found by a
        first query when None)."""
        import pyarrow as pa

        t0 = time.perf_counter()
        out = Path(out)
        fmt = output_format(out)
        names = [c.name for c in plan.columns]
        check_columns(source, names)
        keep = [c for c in plan.columns if c.action != "drop"]
        cols = ", ".join(quote_ident(c.name) for c in keep)
        if quote_all is None:
            quote_all = fmt != "parquet" and self._has_carriage_return(source, plan)
        try:
            reader = self.con.sql(
                f"SELECT {cols} FROM {self.relation_sql(source)}"
            ).to_arrow_reader(self.batch_rows)
        except Exception as exc:
            raise _friendly(exc) from None
        supp_keys = plan.suppressed_keys
        sep = "\t" if out.name.lower().endswith(".tsv") else ","
        writer = None
        rows = 0
        seen = 0
        with contextlib.ExitStack() as stack:
            tmp = stack.enter_context(temp_output(out))  # removed on any failure, exit or SIGTERM
            stack.callback(lambda: writer is not None and writer.close())
            for batch in reader:
                seen += batch.num_rows
                arrays, codes = [], []
                for c in keep:
                    arr = batch.column(c.name)
                    if c.action == "generalize":
                        gen = arrow_release.codes(arr, c)
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
                if writer is None:
                    writer = arrow_release.BatchWriter(
                        tmp, fmt, table.schema, formula_escape, quote_all, sep
                    )
                writer.write(table)
                rows += table.num_rows
                progress(min(rows / max(plan.expected_rows, 1), 1.0), f"Writing {out.name}")
            if writer is None:
                raise DataError(f"{source.path.name} has no data rows.")
            writer.close()
            writer = None
            replace_into(tmp, out)
        return ReleaseSummary(out, fmt, rows, time.perf_counter() - t0, file_sha256(out), self.name)

    def _has_carriage_return(self, source: TableSource, plan: ReleasePlan) -> bool:
        """Does a kept text cell, a released label or a column name hold a CR?"""
        keep = [c for c in plan.columns if c.action != "drop"]
        if any("\r" in c.name for c in keep) or any(
            "\r" in str(v) for c in keep if c.action == "generalize" for v in c.labels
        ):
            return True
        rel = self.relation_sql(source)
        probe = self.con.sql(
            f"SELECT {', '.join(quote_ident(c.name) for c in keep)} FROM {rel} LIMIT 0"
        )
        text = [
            c.name
            for c, t in zip(keep, probe.types, strict=True)
            if c.action == "keep" and str(t) == "VARCHAR"
        ]
        if not text:
            return False
        hit = " OR ".join(f"contains({quote_ident(n)}, chr(13))" for n in text)
        return bool(self.con.execute(f"SELECT bool_or({hit}) FROM {rel}").fetchall()[0][0])

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            self._cleanup()


#: Most released columns the SQL release handles (its planning time grows faster than linearly:
#: 500 columns took 17 s, 2,000 over 5 minutes); wider releases take the batch path.
_SQL_MAX_COLUMNS = 100
#: Largest class-key space the SQL release handles (a bit string of this many bits).
_MAX_BITS = 1 << 23

#: COPY options that write every cell as it is (quoting is done in SQL); the delimiter is added.
_CSV_RAW = "FORMAT csv, HEADER true, QUOTE '', ESCAPE ''"
_PARQUET = "FORMAT parquet, COMPRESSION zstd"


def _list(values: list) -> str:
    """A SQL list literal of strings or ints."""
    return "[" + ", ".join(_lit(v) if isinstance(v, str) else str(int(v)) for v in values) + "]"


def _csv_text(text: str, sep: str) -> str:
    """A text cell as pandas writes it (QUOTE_MINIMAL: quoted when it holds the separator,
    a quote or a newline)."""
    if sep in text or '"' in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


#: Raised by the SQL release on a cell with a bare CR (io.table_bytes then quotes every field).
_CR_MARK = "__anon_bare_carriage_return__"


class _CarriageReturn(Exception):
    """A kept cell holds a CR: the release is written by the batch path instead."""


#: pandas' QUOTE_MINIMAL for one cell: quoted (quotes doubled) when it holds the
#: separator, a quote or a newline; NULL is empty. A CR stops the query (see _CR_MARK).
_CSV_CELL_MACRO = (
    "CREATE OR REPLACE TEMP MACRO __anon_csv_cell(v, sep) AS CASE WHEN v IS NULL THEN '' "
    f"WHEN contains(v, chr(13)) THEN error('{_CR_MARK}') "
    "WHEN contains(v, sep) OR contains(v, '\"') OR contains(v, chr(10)) "
    "THEN '\"' || replace(v, '\"', '\"\"') || '\"' ELSE v END"
)

#: io.escape_formulas for one text cell: a leading apostrophe on text that starts with
#: = + - @ tab or CR and is not a plain signed number.
_FORMULA_MACRO = (
    "CREATE OR REPLACE TEMP MACRO __anon_formula(v) AS CASE "
    f"WHEN regexp_matches(v, '{FORMULA_START}') "
    f"AND NOT regexp_full_match(v, '{PLAIN_NUMBER}') THEN chr(39) || v ELSE v END"
)


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

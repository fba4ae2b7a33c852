"""Loading tables (CSV/TSV, Excel, Parquet, JSON) and inferring column kinds.

Text files are read with every cell as a string so that values such as ZIP codes
keep their leading zeros and match hierarchy files exactly. Missing cells
(empty, ``NA``, ``N/A``, ``NaN``, ``NULL``, ``None``) become ``NaN`` here and are
encoded later as the distinct category :data:`MISSING` (``"NULL"``, as ARX does).
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
import warnings
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.data import numeric_guard
from anon_core.data.limits import check_columns_count, check_line_length
from anon_core.data.safe_write import atomic_write
from anon_core.data.text_encoding import (  # noqa: F401 - re-exported (hierarchy, engines, tests)
    FALLBACK_ENCODING,
    check_encoding,
    decode_text,
    detect_encoding,
    fallback_note,
    nul_pattern_encoding,
)
from anon_core.data.xlsx import read_xlsx, xlsx_bytes
from anon_core.errors import ConfigError, DataError

log = logging.getLogger(__name__)
# pandas' C number parser crashes on huge exponents ("8e51234567890123"): guarded process-wide.
numeric_guard.install()

#: Label of a missing value once encoded; hierarchies must map it (builders do).
MISSING = "NULL"
#: Cell contents read as missing in text files. Deliberately short: "?" or "-"
#: may be real categories, so they are kept as values.
MISSING_TOKENS = ["", "NA", "N/A", "NaN", "nan", "NULL", "null", "None", "none"]
#: Largest input the in-memory engine accepts by default (bytes).
DEFAULT_MAX_BYTES = 2 * 1024**3
SEPARATORS = [",", ";", "\t", "|"]
TEXT_SUFFIXES = {".csv", ".tsv", ".txt", ".dat"}
EXCEL_SUFFIXES = {".xlsx", ".xlsm", ".xls"}


class ColumnKind(StrEnum):
    """What a column holds; drives default hierarchies and UI suggestions."""

    NUMERIC = "numeric"
    DATE = "date"
    CATEGORICAL = "categorical"
    TEXT = "text"


@dataclass(frozen=True)
class LoadedTable:
    """A loaded table with how it was read (so it can be re-read identically)."""

    frame: pd.DataFrame
    format: str
    separator: str | None = None
    encoding: str | None = None
    #: Set when the encoding was not certain (the single-byte default was used): show it to the user.
    encoding_note: str | None = None
    #: Other things about how the file was read the user should see (e.g. short spreadsheet rows).
    notes: tuple[str, ...] = ()


#: Longest column name and hierarchy label accepted (longer ones are refused up front).
MAX_NAME_CHARS = 1024


class DataWarning(UserWarning):
    """How the input was read needs the user's attention (not a privacy matter)."""


def check_separator(separator: object, field: str = "input.separator") -> str:
    """A one-character separator, or one ConfigError line naming the field."""
    if not isinstance(separator, str) or len(separator) != 1 or separator in '\r\n"':
        raise ConfigError(
            f"'{field}' must be one character such as ',', ';', a tab or '|', got {separator!r}."
        )
    return separator


_SNIFF_CHARS = 1 << 16


def detect_separator(text: str) -> str:
    """Pick the separator that splits the first lines into the most, equal, fields.

    Only the first 64 KiB are looked at (whole lines; at least the first line): the
    sniffer's cost grows with its sample, and the first lines decide anyway.
    """
    head = text[: _SNIFF_CHARS + 1]
    lines = head.splitlines()
    if len(text) > len(head) and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    lines = [ln for ln in lines[:50] if ln.strip()]
    if not lines:
        return ","
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters="".join(SEPARATORS))
        if dialect.delimiter in SEPARATORS:
            return dialect.delimiter
    except csv.Error:
        pass
    best, best_score = ",", -1.0
    for sep in SEPARATORS:
        try:
            counts = [len(next(csv.reader([ln], delimiter=sep), [])) for ln in lines]
        except csv.Error:  # a field beyond the csv module's limit: not this separator's evidence
            continue
        if max(counts) <= 1:
            continue
        consistent = sum(c == counts[0] for c in counts) / len(counts)
        score = consistent * 1000 + counts[0]
        if score > best_score:
            best, best_score = sep, score
    return best


def check_not_binary(raw: bytes, name: str) -> None:
    head = raw[:8192]
    if b"\x00" not in head or head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return
    if nul_pattern_encoding(raw) is None:
        raise DataError(
            f"{name} looks like a binary file, not a text table. "
            "Upload a CSV/TSV, Excel (.xlsx), Parquet or JSON file."
        )


def read_text_table(
    raw: bytes, name: str = "file", separator: str | None = None, encoding: str | None = None
) -> LoadedTable:
    """Parse CSV/TSV bytes; separator and encoding are detected unless given.

    When the bytes are not UTF-8 (nor UTF-16/32) and no encoding is given, they
    are read as cp1252 and a :class:`DataWarning` (and ``encoding_note``) says so.
    """
    if separator is not None:
        separator = check_separator(separator)
    if not raw or raw.isspace():  # (strip() would copy the whole file)
        raise DataError(
            f"{name} is empty. Choose a file with a header row and at least one data row."
        )
    if encoding is None:
        check_not_binary(raw, name)
    text, enc, note = decode_text(raw, name, encoding)
    text = text.lstrip("\ufeff")
    if not text or text.isspace():
        raise DataError(
            f"{name} is empty. Choose a file with a header row and at least one data row."
        )
    if "\x00" in text[:8192]:
        raise DataError(
            f"{name} holds NUL characters after decoding as {enc!r}: it is binary or in another encoding. "
            "Set input.encoding, or upload a CSV/TSV, Excel (.xlsx), Parquet or JSON file."
        )
    check_line_length(raw, name, unit=4 if "32" in enc else 2 if "16" in enc else 1)
    sep = separator or detect_separator(text)
    first_line = io.StringIO(text, newline=None).readline().rstrip("\n")
    header = _csv_row(first_line, sep, name)
    check_columns_count(len(header), name)
    _check_names(header, name)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            dtype=str,
            keep_default_na=False,
            na_values=MISSING_TOKENS,
            skipinitialspace=False,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        raise DataError(
            f"{name} has no columns. Check that it is a delimited text table."
        ) from None
    except (pd.errors.ParserError, ValueError, OverflowError) as exc:
        raise DataError(
            f"{name} could not be parsed with separator {sep!r}: {str(exc).splitlines()[0][:200]}. "
            "Check the separator (',' ';' tab or '|') and quoting."
        ) from None
    _check_frame(frame, name, sep, text=True)
    if note is not None:
        warnings.warn(note, DataWarning, stacklevel=2)
    return LoadedTable(frame=frame, format="csv", separator=sep, encoding=enc, encoding_note=note)


def _csv_row(line: str, sep: str, name: str) -> list[str]:
    """The header row, with a clear message for a field beyond the csv module's size limit."""
    try:
        return next(csv.reader([line], delimiter=sep), [])
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise DataError(
                f"{name} has a column name longer than {csv.field_size_limit():,} characters; column names "
                f"are limited to {MAX_NAME_CHARS:,} characters. Shorten it (or check the quoting)."
            ) from None
        raise DataError(
            f"{name}: the header row cannot be read ({exc}). Check its quoting."
        ) from None


def _check_names(header: list[str], name: str) -> None:
    long = [c for c in header if len(str(c)) > MAX_NAME_CHARS]
    if long:
        raise DataError(
            f"{name} has a column name of {len(str(long[0])):,} characters (starting {str(long[0])[:30]!r}); "
            f"column names are limited to {MAX_NAME_CHARS:,} characters. Shorten it."
        )
    seen: set = set()
    dup = sorted({c for c in header if c in seen or seen.add(c)})
    if dup:
        raise DataError(
            f"{name} has duplicate column names {dup[:10]}. Rename them so each is unique."
        )


def _check_frame(
    frame: pd.DataFrame, name: str, sep: str | None = None, text: bool = False
) -> None:
    """``text``: the frame was parsed from delimited text as strings, so no cell can be nested
    (checking every cell would cost more than the parse itself)."""
    if frame.shape[1] == 0:
        raise DataError(f"{name} has no columns.")
    check_columns_count(frame.shape[1], name)
    if len(frame) == 0:
        raise DataError(f"{name} has a header but no data rows. Add rows and load it again.")
    cols = [str(c) for c in frame.columns]
    _check_names(cols, name)
    for col in [] if text else frame.columns:
        if frame[col].dtype == object:
            nested = frame[col].map(lambda v: isinstance(v, dict | list | tuple | set | np.ndarray))
            if nested.any():
                raise DataError(
                    f"{name}: column {str(col)[:60]!r} holds nested values (lists or objects, e.g. row "
                    f"{int(np.argmax(nested.to_numpy())) + 1}); the engine needs one plain value per cell. "
                    "Flatten the column (one column per field) or drop it."
                )
    if sep is not None and frame.shape[1] == 1:
        header = cols[0]
        other = [s for s in SEPARATORS if s != sep and s in header]
        if other:
            raise DataError(
                f"{name} was read as a single column {header[:60]!r}; it seems to be separated by "
                f"{other[0]!r}, not {sep!r}. Choose {other[0]!r} as the separator."
            )


def load_table(
    source: str | os.PathLike[str] | bytes,
    name: str | None = None,
    separator: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = 0,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> LoadedTable:
    """Load a table from a path or from uploaded bytes (``name`` gives the file name).

    Uploaded bytes are parsed in memory and never written to disk.
    """
    if isinstance(source, bytes | bytearray):
        raw = bytes(source)
        name = name or "upload.csv"
    else:
        path = Path(source)
        name = name or path.name
        if not path.exists():
            raise DataError(f"File {str(path)!r} does not exist. Check the path.")
        if path.is_dir():
            raise DataError(f"{str(path)!r} is a folder, not a file.")
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError(
                f"{name} is {size / 1024**3:.1f} GiB, above the in-memory limit of "
                f"{max_bytes / 1024**3:.1f} GiB. Sample or split the file."
            )
        raw = path.read_bytes()
    if len(raw) > max_bytes:
        raise DataError(
            f"{name} is {len(raw) / 1024**2:.0f} MiB, above the limit of {max_bytes / 1024**2:.0f} MiB."
        )
    suffix = Path(name).suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        return _read_binary(raw, name, "excel", sheet)
    if suffix == ".parquet" or raw[:4] == b"PAR1":
        return _read_binary(raw, name, "parquet", sheet)
    if suffix in {".json", ".jsonl", ".ndjson"}:
        return _read_binary(raw, name, "json", sheet)
    if suffix == ".tsv" and separator is None:
        separator = "\t"
    if suffix and suffix not in TEXT_SUFFIXES:
        if raw[:2] == b"PK":
            return _read_binary(raw, name, "excel", sheet)
        log.info("unknown suffix %s, reading %s as delimited text", suffix, name)
    return read_text_table(raw, name, separator=separator, encoding=encoding)


def _read_binary(raw: bytes, name: str, fmt: str, sheet: str | int | None) -> LoadedTable:
    if not raw:
        raise DataError(f"{name} is empty.")
    notes: tuple[str, ...] = ()
    try:
        if fmt == "excel" and raw[:2] == b"PK":  # .xlsx: text cells stay text (see xlsx.read_xlsx)
            frame, found = read_xlsx(raw, name, sheet, MISSING_TOKENS)
            notes = tuple(found)
            for note in notes:
                warnings.warn(note, DataWarning, stacklevel=3)
        elif fmt == "excel":  # the legacy .xls format
            frame = pd.read_excel(io.BytesIO(raw), sheet_name=sheet if sheet is not None else 0)
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            check_columns_count(pq.ParquetFile(io.BytesIO(raw)).metadata.num_columns, name)
            frame = pd.read_parquet(io.BytesIO(raw))
        else:
            text = decode_text(raw, name)[0].lstrip("\ufeff")
            stripped = text.lstrip()
            if not stripped:
                raise DataError(f"{name} is empty.")
            lines = stripped[0] != "["
            frame = pd.read_json(io.StringIO(text), lines=lines, dtype=False)
    except DataError:
        raise
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise DataError(
            f"{name} could not be read as {fmt}: {first}. Check the file format."
        ) from None
    frame.columns = [str(c) for c in frame.columns]
    _check_frame(frame, name)
    return LoadedTable(frame=frame, format=fmt, notes=notes)


# --------------------------------------------------------------------------- kinds

_DATE_HINT = r"^\s*(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})"


def infer_kind(series: pd.Series, sample: int = 5000) -> ColumnKind:
    """Infer the kind of a column from (a sample of) its non-missing values."""
    values = series.dropna()
    if values.empty:
        return ColumnKind.CATEGORICAL
    if pd.api.types.is_bool_dtype(values):
        return ColumnKind.CATEGORICAL
    if pd.api.types.is_numeric_dtype(values):
        return ColumnKind.NUMERIC
    if pd.api.types.is_datetime64_any_dtype(values):
        return ColumnKind.DATE
    if len(values) > sample:
        values = values.sample(sample, random_state=0)
    text = values.astype(str).str.strip()
    if pd.to_numeric(text, errors="coerce").notna().all():
        # Codes with leading zeros (ZIP codes, IDs) are categorical, not numbers.
        if text.str.match(r"^0\d").any():
            return ColumnKind.CATEGORICAL
        return ColumnKind.NUMERIC
    if text.str.match(_DATE_HINT).all():
        parsed = pd.to_datetime(text, errors="coerce", format="mixed")
        if parsed.notna().all():
            return ColumnKind.DATE
    words = text.str.count(r"\s+") + 1
    if text.str.len().mean() > 30 and words.mean() >= 4:
        return ColumnKind.TEXT
    return ColumnKind.CATEGORICAL


def infer_kinds(frame: pd.DataFrame) -> dict[str, ColumnKind]:
    return {str(c): infer_kind(frame[c]) for c in frame.columns}


def column_profile(frame: pd.DataFrame) -> pd.DataFrame:
    """Per column: kind, missing count, distinct count and share of unique values."""
    n = max(len(frame), 1)
    rows = []
    for col in frame.columns:
        s = frame[col]
        counts = s.value_counts(dropna=False)
        rows.append(
            {
                "column": str(col),
                "kind": str(infer_kind(s)),
                "missing": int(s.isna().sum()),
                "distinct": int(len(counts)),
                "unique_share": float((counts == 1).sum() / n),
            }
        )
    return pd.DataFrame(rows)


def to_labels(series: pd.Series) -> np.ndarray:
    """Canonical string labels of a column: what hierarchies are matched against.

    Strings stay as written; integral floats print without ``.0``; dates print
    ISO; missing values become :data:`MISSING`.
    """
    s = series
    missing = s.isna().to_numpy()
    if pd.api.types.is_float_dtype(s):
        vals = s.to_numpy(dtype=float, na_value=np.nan)
        out = np.empty(len(s), dtype=object)
        finite = ~missing
        integral = finite & (np.mod(np.nan_to_num(vals), 1) == 0)
        out[integral] = vals[integral].astype(np.int64).astype(str)
        other = finite & ~integral
        out[other] = s[other].astype(str).to_numpy(dtype=object)
    elif pd.api.types.is_datetime64_any_dtype(s):
        out = s.dt.strftime("%Y-%m-%d").to_numpy(dtype=object)
    else:
        out = s.astype(str).to_numpy(dtype=object)
    out[missing] = MISSING
    return out


#: First characters that make a spreadsheet read a cell as a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: The same first characters as a regular expression (for writers that escape in SQL or Spark).
#: ("-" last, where a character class reads it as itself).
FORMULA_START = "^[" + "".join(c for c in FORMULA_PREFIXES if c != "-") + "-]"
#: Output formats by suffix.
OUTPUT_FORMATS = {
    "": "csv",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".json": "json",
}


#: A signed decimal number ("-5", "+3.2", "-1e3"): a number to a spreadsheet, never a formula.
PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def escape_formula_text(text: str) -> str:
    """One text cell as :func:`escape_formulas` writes it (for writers that format cells themselves)."""
    if text.startswith(FORMULA_PREFIXES) and re.fullmatch(PLAIN_NUMBER, text) is None:
        return "'" + text
    return text


def escape_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose string cells starting with = + - @ tab or CR get a leading apostrophe.

    Only text changes: the number -5, and the text "-5" read from a CSV, stay as
    they are (a spreadsheet reads them as numbers, not formulas). This is the usual
    neutralization of spreadsheet formula injection: a recipient who opens the
    file sees the text, and no formula runs.
    """
    out = frame.copy()
    for col in out.columns:
        s = out[col]
        if s.dtype != object and not pd.api.types.is_string_dtype(s):
            continue
        try:
            starts = s.str.startswith(FORMULA_PREFIXES, na=False).astype(bool)  # text cells only
        except AttributeError:  # an object column without any text (dates, decimals...)
            continue
        if not starts.any():
            continue
        candidates = s[starts]
        hit = ~candidates.str.fullmatch(PLAIN_NUMBER, na=False).astype(bool)
        if hit.any():
            out[col] = s.astype(object)
            out.loc[hit[hit].index, col] = "'" + candidates[hit]
    return out


def _has_carriage_return(frame: pd.DataFrame) -> bool:
    for col in frame.columns:
        s = frame[col]
        if s.dtype == object or pd.api.types.is_string_dtype(s):
            try:
                if s.str.contains("\r", regex=False, na=False).astype(bool).any():
                    return True
            except AttributeError:  # no text in this column
                continue
    return any("\r" in str(c) for c in frame.columns)


def output_format(path: str | os.PathLike[str]) -> str:
    """The format written for a path's suffix, or one DataError line."""
    suffix = Path(path).suffix.lower()
    if suffix not in OUTPUT_FORMATS:
        raise DataError(
            f"Output format {suffix!r} is not supported; use .csv, .tsv, .parquet, .xlsx or .json."
        )
    return OUTPUT_FORMATS[suffix]


def table_bytes(frame: pd.DataFrame, fmt: str, formula_escape: bool = True) -> bytes:
    """The table as a file's bytes, in memory (no temporary file): csv, tsv, parquet, xlsx or json.

    CSV/TSV string cells that a spreadsheet would run as formulas are
    neutralized unless ``formula_escape`` is False; XLSX cells are always
    written as text (never formulas), and its bytes are reproducible with
    ``SOURCE_DATE_EPOCH``.
    """
    if fmt not in set(OUTPUT_FORMATS.values()):
        raise DataError(f"'fmt' must be one of csv, tsv, parquet, xlsx or json, got {fmt!r}.")
    if fmt in {"csv", "tsv"}:
        table = escape_formulas(frame) if formula_escape else frame
        if formula_escape:  # column names are cells of the first row to a spreadsheet
            names = [escape_formula_text(str(c)) for c in table.columns]
            if names != [str(c) for c in table.columns]:
                table = table.copy(deep=False)
                table.columns = names
        sep = "\t" if fmt == "tsv" else ","
        # The csv writer quotes a value with a line feed but not one with a bare CR (a reader
        # would split the row there): such tables are written with every field quoted.
        quoting = csv.QUOTE_ALL if _has_carriage_return(table) else csv.QUOTE_MINIMAL
        return table.to_csv(index=False, sep=sep, lineterminator="\n", quoting=quoting).encode(
            "utf-8"
        )
    if fmt == "xlsx":
        return xlsx_bytes(frame)
    if fmt == "json":
        text = frame.to_json(orient="records", force_ascii=False, indent=1)
        return (text or "").encode("utf-8")
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def write_table(
    frame: pd.DataFrame, path: str | os.PathLike[str], formula_escape: bool = True
) -> Path:
    """Write a released table atomically; the format follows the suffix (csv, tsv, parquet, xlsx, json).

    The file is built in memory and replaces ``path`` in one rename (the
    previous file survives any failure); the folder is created when missing.
    See :func:`table_bytes` for ``formula_escape``.
    """
    path = Path(path)
    data = table_bytes(frame, output_format(path), formula_escape=formula_escape)
    return atomic_write(path, data)

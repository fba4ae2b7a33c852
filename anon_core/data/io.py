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
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.errors import DataError

log = logging.getLogger(__name__)

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


def detect_encoding(raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    # Statistical detection is unreliable on short inputs (it guesses exotic
    # code pages); only trust it on a decent sample, and prefer Western code pages.
    if len(raw) >= 4096:
        try:
            from charset_normalizer import from_bytes

            best = from_bytes(raw[: 1 << 20]).best()
            if best is not None and best.encoding:
                return best.encoding
        except Exception:  # pragma: no cover - detector failure falls back below
            log.debug("charset detection failed", exc_info=True)
    try:
        raw.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def _detect_separator(text: str) -> str:
    """Pick the separator that splits the first lines into the most, equal, fields."""
    lines = [ln for ln in text.splitlines()[:50] if ln.strip()]
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
        counts = [len(next(csv.reader([ln], delimiter=sep))) for ln in lines]
        if max(counts) <= 1:
            continue
        consistent = sum(c == counts[0] for c in counts) / len(counts)
        score = consistent * 1000 + counts[0]
        if score > best_score:
            best, best_score = sep, score
    return best


def _check_not_binary(raw: bytes, name: str) -> None:
    head = raw[:8192]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(
            f"{name} looks like a binary file, not a text table. "
            "Upload a CSV/TSV, Excel (.xlsx), Parquet or JSON file."
        )


def read_text_table(
    raw: bytes, name: str = "file", separator: str | None = None, encoding: str | None = None
) -> LoadedTable:
    """Parse CSV/TSV bytes; separator and encoding are detected unless given."""
    if not raw.strip():
        raise DataError(
            f"{name} is empty. Choose a file with a header row and at least one data row."
        )
    _check_not_binary(raw, name)
    enc = encoding or detect_encoding(raw)
    try:
        text = raw.decode(enc)
    except (UnicodeDecodeError, LookupError) as exc:
        raise DataError(
            f"{name} cannot be decoded as {enc!r} ({exc}). Give the right encoding, "
            "for example 'latin-1' or 'utf-8'."
        ) from None
    sep = separator or _detect_separator(text)
    header = next(
        csv.reader([text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""], delimiter=sep),
        [],
    )
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise DataError(f"{name} has duplicate column names {dup}. Rename them so each is unique.")
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
    except pd.errors.ParserError as exc:
        raise DataError(
            f"{name} could not be parsed with separator {sep!r}: {exc}. "
            "Check the separator (',' ';' tab or '|') and quoting."
        ) from None
    _check_frame(frame, name, sep)
    return LoadedTable(frame=frame, format="csv", separator=sep, encoding=enc)


def _check_frame(frame: pd.DataFrame, name: str, sep: str | None = None) -> None:
    if frame.shape[1] == 0:
        raise DataError(f"{name} has no columns.")
    if len(frame) == 0:
        raise DataError(f"{name} has a header but no data rows. Add rows and load it again.")
    cols = [str(c) for c in frame.columns]
    if len(set(cols)) != len(cols):
        dup = sorted({c for c in cols if cols.count(c) > 1})
        raise DataError(f"{name} has duplicate column names {dup}. Rename them so each is unique.")
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
    try:
        if fmt == "excel":
            frame = pd.read_excel(io.BytesIO(raw), sheet_name=sheet if sheet is not None else 0)
        elif fmt == "parquet":
            frame = pd.read_parquet(io.BytesIO(raw))
        else:
            text = raw.decode(detect_encoding(raw))
            stripped = text.lstrip()
            if not stripped:
                raise DataError(f"{name} is empty.")
            lines = stripped[0] != "["
            frame = pd.read_json(io.StringIO(text), lines=lines, dtype=False)
    except DataError:
        raise
    except Exception as exc:
        raise DataError(
            f"{name} could not be read as {fmt}: {exc}. Check the file format."
        ) from None
    frame.columns = [str(c) for c in frame.columns]
    _check_frame(frame, name)
    return LoadedTable(frame=frame, format=fmt)


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


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write a released table; the format follows the suffix (csv, tsv, parquet, xlsx, json)."""
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix in {".csv", ""}:
        frame.to_csv(path, index=False, lineterminator="\n")
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t", lineterminator="\n")
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix in {".xlsx", ".xlsm"}:
        frame.to_excel(path, index=False)
    elif suffix == ".json":
        frame.to_json(path, orient="records", force_ascii=False, indent=1)
    else:
        raise DataError(
            f"Output format {suffix!r} is not supported; use .csv, .tsv, .parquet, .xlsx or .json."
        )

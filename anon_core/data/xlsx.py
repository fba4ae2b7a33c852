"""A minimal, deterministic XLSX writer: text cells are text, never formulas.

openpyxl (what pandas uses) writes a string starting with ``=`` as a live
formula, stamps the save time into the workbook properties and the zip entries,
and spools every worksheet through a temporary file on disk. A released table
must do none of that, so it is written here directly, in memory:

* every string cell is an inline string (``t="inlineStr"``): Excel shows
  ``=HYPERLINK(...)`` as text and never evaluates it;
* numbers are numbers, booleans booleans, missing cells empty, dates ISO text;
* the zip entries and ``docProps/core.xml`` carry one fixed time, taken from
  ``SOURCE_DATE_EPOCH`` when set (the reproducible-builds convention), else
  1980-01-01, so the same table gives the same bytes on every run.

The format is the ECMA-376 SpreadsheetML subset every spreadsheet reads.
"""

from __future__ import annotations

import io
import math
import os
import re
import time
import zipfile
from collections.abc import Iterable
from datetime import UTC, datetime
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd

from anon_core.errors import DataError

#: Excel's limits: longer cells are refused by Excel itself.
MAX_ROWS = 1_048_576
MAX_COLUMNS = 16_384
MAX_CELL_CHARS = 32_767
_EPOCH_1980 = 315_532_800  # the earliest time a zip entry can carry

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/docProps/core.xml" '
    'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
    "</Types>"
)
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/>'
    '<Relationship Id="rId2" '
    'Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" '
    'Target="docProps/core.xml"/>'
    "</Relationships>"
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="{name}" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
    'Target="worksheets/sheet1.xml"/>'
    "</Relationships>"
)
_CORE = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
    "<dc:creator>anon-core</dc:creator>"
    '<dcterms:created xsi:type="dcterms:W3CDTF">{stamp}</dcterms:created>'
    '<dcterms:modified xsi:type="dcterms:W3CDTF">{stamp}</dcterms:modified>'
    "</cp:coreProperties>"
)


def build_time() -> float:
    """The time stamped into the file: ``SOURCE_DATE_EPOCH`` when set, else 1980-01-01 (the zip epoch).

    A fixed time (not "now") keeps every XLSX release byte-reproducible, so its
    SHA-256 can be checked by ``verify`` like a CSV's.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    seconds = int(epoch) if epoch.isdigit() else _EPOCH_1980
    return float(max(seconds, _EPOCH_1980))


def _column_name(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(65 + rem) + name
    return name


def _clean_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters: they are written as '?'."""
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        text = "".join("?" if ord(ch) < 32 and ch not in "\t\n\r" else ch for ch in text)
    return escape(text[:MAX_CELL_CHARS])


def _cell(ref: str, value: object) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, bool | np.bool_):
        return f'<c r="{ref}" t="b"><v>{int(bool(value))}</v></c>'
    if isinstance(value, int | np.integer):
        return f'<c r="{ref}"><v>{int(value)}</v></c>'
    if isinstance(value, float | np.floating):
        x = float(value)
        if math.isnan(x):
            return ""
        if math.isinf(x):
            return f'<c r="{ref}" t="inlineStr"><is><t>{"inf" if x > 0 else "-inf"}</t></is></c>'
        return f'<c r="{ref}"><v>{x!r}</v></c>'
    if isinstance(value, datetime | pd.Timestamp):
        value = value.isoformat()
    text = _clean_text(str(value))
    return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{text}</t></is></c>'


def _sheet_rows(columns: list[str], rows: Iterable[tuple]) -> Iterable[str]:
    letters = [_column_name(j) for j in range(len(columns))]
    yield (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    )
    yield '<row r="1">' + "".join(_cell(f"{c}1", n) for c, n in zip(letters, columns, strict=True))
    yield "</row>"
    for i, row in enumerate(rows, start=2):
        cells = "".join(_cell(f"{c}{i}", v) for c, v in zip(letters, row, strict=True))
        yield f'<row r="{i}">{cells}</row>'
    yield "</sheetData></worksheet>"


def xlsx_bytes(frame: pd.DataFrame, sheet_name: str = "release") -> bytes:
    """The table as an .xlsx file's bytes (in memory; identical bytes for the same table and time)."""
    if len(frame) + 1 > MAX_ROWS or frame.shape[1] > MAX_COLUMNS:
        raise DataError(
            f"The table has {len(frame):,} rows x {frame.shape[1]:,} columns, more than an Excel sheet holds "
            f"({MAX_ROWS - 1:,} x {MAX_COLUMNS:,}). Write .csv or .parquet instead."
        )
    stamp_seconds = build_time()
    date_time = time.gmtime(stamp_seconds)[:6]
    stamp = datetime.fromtimestamp(stamp_seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    sheet = "".join(
        _sheet_rows([str(c) for c in frame.columns], frame.itertuples(index=False, name=None))
    )
    parts = {
        "[Content_Types].xml": _CONTENT_TYPES,
        "_rels/.rels": _ROOT_RELS,
        "docProps/core.xml": _CORE.format(stamp=stamp),
        "xl/workbook.xml": _WORKBOOK.format(name=escape(sheet_name[:31], {'"': "&quot;"})),
        "xl/_rels/workbook.xml.rels": _WORKBOOK_RELS,
        "xl/worksheets/sheet1.xml": sheet,
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, text in parts.items():
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"), compresslevel=6)
    return buf.getvalue()


# --------------------------------------------------------------------------- reading

#: Number formats that show a number as text, or zero-padded to a fixed width ("00000" for ZIP codes).
_TEXT_FORMAT = "@"
_ZERO_PAD = re.compile(r"0+")


def _open(raw: bytes, name: str, data_only: bool):
    import openpyxl

    try:
        return openpyxl.load_workbook(
            io.BytesIO(raw), read_only=True, data_only=data_only, keep_links=False
        )
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise DataError(
            f"{name} could not be read as excel: {first}. Check the file format."
        ) from None


def _sheet(book, name: str, sheet: str | int | None):
    names = book.sheetnames
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if 0 <= sheet < len(names):
            return book[names[sheet]]
    elif isinstance(sheet, str) and sheet in names:
        return book[sheet]
    elif sheet is None and names:
        return book[names[0]]
    raise DataError(
        f"{name} has no sheet {sheet!r}; its sheets are {names[:20]}. Choose one of them."
    )


def _merged_ranges(raw: bytes, part: str) -> list[str]:
    """The merged-cell ranges of one worksheet part, read from its XML (streamed, not parsed)."""
    found: list[str] = []
    pattern = re.compile(rb'<(?:\w+:)?mergeCell\s+ref="([A-Z]+[0-9]+(?::[A-Z]+[0-9]+)?)"')
    tail = b""
    with zipfile.ZipFile(io.BytesIO(raw)) as archive, archive.open(part.lstrip("/")) as fh:
        while block := fh.read(1 << 20):
            chunk = tail + block
            found += [m.decode("ascii") for m in pattern.findall(chunk)]
            tail = chunk[-200:] if not found else b""
            if found:
                break
    return found


def _cell_value(cell) -> object:
    """A cell's value as the table holds it: text-formatted and zero-padded numbers stay text."""
    value = cell.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    fmt = getattr(cell, "number_format", "General") or "General"
    if fmt == _TEXT_FORMAT or _ZERO_PAD.fullmatch(fmt):
        text = str(int(value)) if float(value).is_integer() else repr(float(value))
        return text.zfill(len(fmt)) if fmt != _TEXT_FORMAT else text
    return value


def _column(values: list, missing: set[str]) -> pd.Series:
    """One column with pandas' dtypes for numbers, dates and booleans; text stays text."""
    cells = [
        None if v is None or (isinstance(v, str) and v.strip() in missing) else v for v in values
    ]
    present = [v for v in cells if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pd.Series(cells, dtype=bool if len(present) == len(cells) else object)
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce")
    if present and all(isinstance(v, datetime) for v in present):
        return pd.to_datetime(pd.Series(cells, dtype=object))
    return pd.Series([np.nan if v is None else v for v in cells], dtype=object)


def read_xlsx(
    raw: bytes, name: str, sheet: str | int | None = 0, missing: Iterable[str] = ()
) -> tuple[pd.DataFrame, list[str]]:
    """An .xlsx sheet as a table (first row: the column names) and the warnings to show.

    Unlike ``pandas.read_excel``, a cell formatted as text ("@") or with a zero-padded
    format stays text, so ZIP codes keep their leading zeros; text cells are never
    turned into numbers. A formula is read from its cached value, and one without a
    cached value (saved by a program that does not compute formulas) is refused, as
    is a merged cell (only its first cell holds the value); both name the sheet and
    the cell. Rows with empty cells at the end are read with missing values and
    reported in the warnings; a value in a column without a name is refused.
    """
    from openpyxl.utils import get_column_letter

    book = _open(raw, name, data_only=False)
    try:
        ws = _sheet(book, name, sheet)
        title = ws.title
        part = getattr(ws, "_worksheet_path", None)  # openpyxl's read-only sheets keep their part
        merged = _merged_ranges(raw, part) if part else []
        if merged:
            raise DataError(
                f"{name}: sheet {title!r} has merged cells ({merged[0]}); only the first cell of a merged "
                "range holds a value. Unmerge them and fill every cell, then load the file again."
            )
        rows: list[list] = []
        formulas: list[tuple[int, int]] = []
        for r, row in enumerate(ws.iter_rows()):
            values = []
            for c, cell in enumerate(row):
                if getattr(cell, "data_type", None) == "f":
                    formulas.append((r, c))
                values.append(_cell_value(cell))
            if r == 0:
                _check_width(len(values), name)
            rows.append(values)
    finally:
        book.close()
    if formulas:
        _cached_values(raw, name, sheet, rows, formulas, title)
    return _frame(rows, name, title, set(missing), get_column_letter)


def _check_width(width: int, name: str) -> None:
    from anon_core.data.limits import check_columns_count

    check_columns_count(width, name)


def _cached_values(raw, name, sheet, rows, formulas, title) -> None:
    """Replace formula cells by their cached values, refusing a formula that has none."""
    from openpyxl.utils import get_column_letter

    book = _open(raw, name, data_only=True)
    try:
        ws = _sheet(book, name, sheet)
        wanted = {r for r, _ in formulas}
        cached = {r: [c.value for c in row] for r, row in enumerate(ws.iter_rows()) if r in wanted}
    finally:
        book.close()
    for r, c in formulas:
        value = cached.get(r, [])[c] if c < len(cached.get(r, [])) else None
        if value is None:
            raise DataError(
                f"{name}: sheet {title!r} cell {get_column_letter(c + 1)}{r + 1} holds a formula without a "
                "saved value (the file was written by a program that does not calculate formulas). Open it "
                "in a spreadsheet and save it, or replace the formulas by their values."
            )
        rows[r][c] = value


def _frame(rows, name, title, missing, letter) -> tuple[pd.DataFrame, list[str]]:
    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    if not rows:
        raise DataError(f"{name}: sheet {title!r} is empty. Choose a sheet with a header row.")
    header = list(rows[0])
    while header and header[-1] is None:
        header.pop()
    width = len(header)
    names = [f"Unnamed: {j}" if v is None else str(v) for j, v in enumerate(header)]
    body, short = [], []
    for i, row in enumerate(rows[1:], start=2):
        if all(v is None for v in row):
            continue  # a blank row (pandas skips them too)
        extra = [j for j in range(width, len(row)) if row[j] is not None]
        if extra:
            raise DataError(
                f"{name}: sheet {title!r} cell {letter(extra[0] + 1)}{i} holds a value in a column without a "
                "name in the header row. Name the column or delete the value."
            )
        cells = list(row[:width]) + [None] * (width - len(row))
        last = max((j for j, v in enumerate(cells) if v is not None), default=-1)
        if last < width - 1:
            short.append(i)
        body.append(cells)
    warnings_ = []
    if short:
        warnings_.append(
            f"{name}: {len(short):,} row(s) of sheet {title!r} end before the last column (first: row "
            f"{short[0]}); their last cells are read as missing values. Check that no values were shifted."
        )
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise DataError(
            f"{name} has duplicate column names {dup[:10]}. Rename them so each is unique."
        )
    columns = list(zip(*body, strict=True)) if body else [()] * width
    frame = pd.DataFrame(
        {n: _column(list(col), missing) for n, col in zip(names, columns, strict=True)}
    )
    return frame, warnings_

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

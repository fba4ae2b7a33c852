"""Parse an uploaded file in a child process, so a crash of native parsing code fails that upload only.

A long-running server (the dashboard) parses files that anyone may upload. The
parsers are native code (pandas' C tokenizer, Arrow, openpyxl's XML, ...): if one
of them crashes on a crafted file, it would take the server and every user's
session down with it. :func:`load_upload` runs :func:`anon_core.data.io.load_table`
in a child process started by a fork server (``forkserver``; ``spawn`` where there
is none), which has pandas and this package imported once, so a small file costs
a fork, not a Python start.

Nothing is pickled from the user's data: the file's bytes go to the child and the
table comes back as raw bytes on a pipe (the table as Parquet, written by the child
from the frame it parsed, and a JSON header). Only the parser function is sent by
reference. A crash, a timeout or a child killed for memory becomes one DataError
line naming the file.
"""

from __future__ import annotations

import io
import json
import logging
import multiprocessing as mp
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import DataWarning, LoadedTable, load_table
from anon_core.errors import AnonError, DataError

log = logging.getLogger(__name__)

#: Longest time one upload may take to parse (seconds); the child is killed past it.
DEFAULT_TIMEOUT = 300.0
#: The parser run in the child: a module-level function with load_table's signature (sent by
#: reference; tests put a crashing one here).
UPLOAD_PARSER: Callable[..., LoadedTable] = load_table
_context: Any = None
_warmed = False


def _mp_context():
    """The process context: a fork server preloaded with this module (fast), else spawn."""
    global _context
    if _context is None:
        if "forkserver" in mp.get_all_start_methods():
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(["__main__", __name__])
        else:  # pragma: no cover - Windows
            ctx = mp.get_context("spawn")
        _context = ctx
    return _context


def frame_to_parquet(frame: pd.DataFrame) -> bytes:
    """The frame as Parquet bytes; an object column Arrow cannot type (mixed numbers and text, as
    Excel or JSON give) is written as text, cell by cell as ``str`` shows it (what later steps read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for col in frame.columns:
        series = frame[col]
        try:
            arrays[col] = pa.array(series, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
            text = [None if pd.isna(v) else str(v) for v in series.astype(object)]
            arrays[col] = pa.array(text, type=pa.string())
    table = pa.Table.from_pydict(arrays)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def frame_from_parquet(payload: bytes) -> pd.DataFrame:
    """The frame back from :func:`frame_to_parquet`; missing text cells are NaN, as the loader gives."""
    import pyarrow.parquet as pq

    frame = pq.read_table(io.BytesIO(payload)).to_pandas()
    for col in frame.columns:
        if frame[col].dtype == object:
            frame[col] = frame[col].where(frame[col].notna(), np.nan)
    return frame


def _child(conn, parser: Callable[..., LoadedTable]) -> None:
    """In the child: read the request from the pipe, parse, answer with JSON and Parquet bytes."""
    try:
        request = json.loads(conn.recv_bytes())
        raw = conn.recv_bytes()
        name = request["name"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DataWarning)
            try:
                table = parser(
                    raw,
                    name=name,
                    separator=request.get("separator"),
                    encoding=request.get("encoding"),
                    sheet=request.get("sheet", 0),
                )
                payload = frame_to_parquet(table.frame)
            except AnonError as exc:
                conn.send_bytes(json.dumps({"error": str(exc)}).encode("utf-8"))
                return
            except Exception as exc:  # noqa: BLE001 - any parser failure is one line for the user
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
                message = f"{name} could not be read: {first}. Check the file format."
                conn.send_bytes(json.dumps({"error": message}).encode("utf-8"))
                return
        notes = [
            str(w.message)
            for w in caught
            if issubclass(w.category, DataWarning) and str(w.message) != table.encoding_note
        ]
        meta = {
            "format": table.format,
            "separator": table.separator,
            "encoding": table.encoding,
            "encoding_note": table.encoding_note,
            "notes": notes,
        }
        conn.send_bytes(json.dumps(meta).encode("utf-8"))
        conn.send_bytes(payload)
    finally:
        conn.close()


def _crashed(name: str, code: int | None) -> DataError:
    how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return DataError(
        f"{name} could not be read: the file reader stopped unexpectedly ({how}) on its contents. "
        "Nothing was loaded and the dashboard is unaffected; check the file, or save it in another "
        "format (e.g. CSV as UTF-8) and upload it again."
    )


def load_upload(
    raw: bytes,
    name: str,
    separator: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = 0,
    timeout: float = DEFAULT_TIMEOUT,
    parser: Callable[..., LoadedTable] | None = None,
) -> LoadedTable:
    """:func:`~anon_core.data.io.load_table` on uploaded bytes, run in a child process.

    ``parser``: :data:`UPLOAD_PARSER` unless given. The DataWarning notes the child raised
    are raised again here and kept in ``notes``.
    """
    ctx = _mp_context()
    ours, theirs = ctx.Pipe(duplex=True)
    proc = ctx.Process(target=_child, args=(theirs, parser or UPLOAD_PARSER), daemon=True)
    proc.start()
    theirs.close()
    try:
        request = {"name": name, "separator": separator, "encoding": encoding, "sheet": sheet}
        ours.send_bytes(json.dumps(request).encode("utf-8"))
        ours.send_bytes(bytes(raw))
        if not ours.poll(timeout):
            proc.kill()
            raise DataError(
                f"{name} could not be read within {timeout:.0f} s and was abandoned. Check the file "
                "(its separator and quoting), or split it and upload the parts."
            )
        meta = json.loads(ours.recv_bytes())
        if "error" in meta:
            raise DataError(str(meta["error"]))
        payload = ours.recv_bytes()
    except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
        proc.join(5)
        log.warning("the upload parser for a file exited with code %s", proc.exitcode)
        raise _crashed(name, proc.exitcode) from None
    finally:
        ours.close()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join(5)
    frame = frame_from_parquet(payload)
    notes = tuple(meta.get("notes") or ())
    for note in notes:
        warnings.warn(note, DataWarning, stacklevel=2)
    return LoadedTable(
        frame=frame,
        format=meta["format"],
        separator=meta.get("separator"),
        encoding=meta.get("encoding"),
        encoding_note=meta.get("encoding_note"),
        notes=notes,
    )


def warm_up() -> None:
    """Start the fork server now (in the background), so the first upload does not wait for it.
    Once per process: later calls return at once."""
    import threading

    global _warmed
    if _warmed:
        return
    _warmed = True

    def start() -> None:
        try:
            ctx = _mp_context()
            if ctx.get_start_method() == "forkserver":
                from multiprocessing import forkserver

                forkserver.ensure_running()
        except Exception:  # noqa: BLE001 - the first upload starts it instead
            log.debug("fork server warm-up failed", exc_info=True)

    threading.Thread(target=start, name="upload-parser-warm-up", daemon=True).start()

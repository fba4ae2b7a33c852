"""What every scale engine shares: the file source, the grouped table, the release plan."""

from __future__ import annotations

import csv
import hashlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import (
    MISSING_TOKENS,
    check_not_binary,
    detect_encoding,
    detect_separator,
    escape_formula_text,
    write_table,
)
from anon_core.data.io import output_format as table_format
from anon_core.errors import DataError
from anon_core.release.plan import (  # noqa: F401 - re-exported for the engines
    SUPPRESSED,
    ColumnPlan,
    ReleasePlan,
    build_release_plan,
)

ENGINES = ("pandas", "duckdb", "spark")
#: Files above these sizes pick the DuckDB engine when none is named.
LARGE_TEXT_BYTES = 512 * 1024**2
LARGE_PARQUET_BYTES = 128 * 1024**2
PARQUET_SUFFIXES = {".parquet", ".pq"}
CSV_SUFFIXES = {".csv", ".tsv", ".txt", ".dat"}
_HEAD_BYTES = 1 << 18

#: progress(fraction done in [0, 1], what is being done)
Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:  # noqa: ARG001
    return None


def run_polling(
    action: Callable[[], Any],
    poll: Callable[[], float | None],
    progress: Progress,
    message: str,
    interval: float = 0.2,
) -> Any:
    """Run ``action`` on a worker thread; meanwhile report ``poll()`` (a fraction, or None) as progress.

    An exception of the action is re-raised in the caller's thread.
    """
    out: dict[str, Any] = {}

    def work() -> None:
        try:
            out["value"] = action()
        except Exception as exc:
            out["error"] = exc

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(interval)
        fraction = poll()
        if fraction is not None:
            progress(min(max(fraction, 0.0), 0.99), message)
    if "error" in out:
        raise out["error"]
    return out.get("value")


@dataclass(frozen=True)
class TableSource:
    """A CSV or Parquet file (or a folder of Parquet parts) that an engine reads from its path.

    Nothing is loaded here: only the first bytes of a CSV are read, to detect
    the encoding and the separator exactly as the in-memory loader does.
    """

    path: Path
    format: str  # "csv" | "parquet"
    separator: str | None = None
    encoding: str = "utf-8"
    columns: tuple[str, ...] = ()

    @staticmethod
    def format_of(path: Path) -> str | None:
        suffixes = [s.lower() for s in path.suffixes]
        if path.is_dir():
            return "parquet"
        if suffixes and suffixes[-1] in {".gz", ".zst"}:
            suffixes = suffixes[:-1]
        last = suffixes[-1] if suffixes else ""
        if last in PARQUET_SUFFIXES:
            return "parquet"
        if last in CSV_SUFFIXES:
            return "csv"
        try:
            with path.open("rb") as fh:
                if fh.read(4) == b"PAR1":
                    return "parquet"
        except OSError:
            return None
        return None

    @classmethod
    def open(
        cls, path: str | Path, separator: str | None = None, encoding: str | None = None
    ) -> TableSource:
        p = Path(path).expanduser()
        if not p.exists():
            raise DataError(f"File {str(p)!r} does not exist. Check the path.")
        fmt = cls.format_of(p)
        if fmt is None:
            raise DataError(
                f"{p.name}: the DuckDB and Spark engines read CSV/TSV and Parquet files (or a folder of Parquet "
                "parts). Convert the file, or use the pandas engine for Excel and JSON."
            )
        if p.is_dir():
            parts = sorted(p.glob("*.parquet"))
            if not parts:
                raise DataError(f"Folder {str(p)!r} holds no .parquet files.")
        if fmt == "parquet":
            return cls(p, "parquet", columns=_parquet_columns(p))
        if p.suffix.lower() in {".gz", ".zst"}:
            raise DataError(
                f"{p.name}: compressed CSV is not read by path; decompress it or convert it to Parquet."
            )
        with p.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
        if not head.strip():
            raise DataError(
                f"{p.name} is empty. Choose a file with a header row and at least one data row."
            )
        check_not_binary(head, p.name)
        enc = (encoding or detect_encoding(head)).lower().replace("_", "-")
        duck_enc = {
            "utf-8": "utf-8",
            "utf8": "utf-8",
            "ascii": "utf-8",
            "utf-8-sig": "utf-8",
            "utf-16": "utf-16",
            "latin-1": "latin-1",
            "iso-8859-1": "latin-1",
            "latin1": "latin-1",
        }.get(enc)
        if duck_enc is None:
            raise DataError(
                f"{p.name} is encoded as {enc!r}; files read by path must be UTF-8, UTF-16 or Latin-1. "
                "Convert it (e.g. iconv -f cp1252 -t utf-8) or load it in memory with the pandas engine."
            )
        text = head.decode(enc if enc != "ascii" else "utf-8", errors="ignore")
        if len(head) == _HEAD_BYTES:  # drop a possibly cut last line
            text = text[: text.rfind("\n") + 1] or text
        sep = separator or ("\t" if p.suffix.lower() == ".tsv" else detect_separator(text))
        lines = text.lstrip("\ufeff").splitlines()
        header = next(csv.reader([lines[0]], delimiter=sep), []) if lines else []
        if len(lines) < 2:
            raise DataError(f"{p.name} has a header but no data rows. Add rows and load it again.")
        dup = sorted({c for c in header if header.count(c) > 1})
        if dup:
            raise DataError(
                f"{p.name} has duplicate column names {dup}. Rename them so each is unique."
            )
        if len(header) == 1:
            other = [s for s in (",", ";", "\t", "|") if s != sep and s in header[0]]
            if other:
                raise DataError(
                    f"{p.name} was read as a single column; it seems to be separated by {other[0]!r}, "
                    f"not {sep!r}. Choose {other[0]!r} as the separator."
                )
        return cls(p, "csv", sep, duck_enc, tuple(header))

    @property
    def size_bytes(self) -> int:
        if self.path.is_dir():
            return sum(f.stat().st_size for f in self.path.glob("*.parquet"))
        return self.path.stat().st_size

    def sha256(self) -> str:
        """SHA-256 of the file's bytes (of the parts in name order for a folder), read in blocks."""
        return file_sha256(self.path)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    files = (
        sorted(f for f in path.iterdir() if f.is_file() and not f.name.startswith((".", "_")))
        if path.is_dir()
        else [path]
    )
    for f in files:
        with f.open("rb") as fh:
            while block := fh.read(1 << 22):
                digest.update(block)
    return digest.hexdigest()


def _parquet_columns(path: Path) -> tuple[str, ...]:
    import pyarrow.parquet as pq

    first = sorted(path.glob("*.parquet"))[0] if path.is_dir() else path
    try:
        return tuple(pq.read_schema(first).names)
    except Exception as exc:
        raise DataError(
            f"{first.name} could not be read as Parquet: {exc}. Check the file format."
        ) from None


@dataclass(frozen=True, eq=False)
class GroupedTable:
    """The distinct rows of some columns, in order of first appearance, with their record counts.

    ``Dataset(frame, roles, hierarchies, weights=counts)`` on it has exactly the
    codes and frequency table of the full table.
    """

    frame: pd.DataFrame
    counts: np.ndarray
    n_rows: int
    source: TableSource
    engine: str
    seconds: float = 0.0

    @classmethod
    def from_result(
        cls, result: pd.DataFrame, source: TableSource, engine: str, seconds: float
    ) -> GroupedTable:
        """From an engine's grouped rows with their ``__n`` (count) and ``__first`` (first row) columns,
        already ordered by ``__first``."""
        counts = result["__n"].to_numpy(dtype=np.int64)
        frame = result.drop(columns=["__n", "__first"]).reset_index(drop=True)
        n = int(counts.sum())
        if n == 0:
            raise DataError(f"{source.path.name} has a header but no data rows.")
        return cls(frame, counts, n, source, engine, seconds)


@dataclass(frozen=True)
class ReleaseSummary:
    """What an engine wrote."""

    path: Path
    format: str
    rows: int
    seconds: float
    sha256: str
    engine: str

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "format": self.format,
            "rows": self.rows,
            "engine": self.engine,
            "seconds": round(self.seconds, 3),
            "sha256": self.sha256,
        }


def output_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in {".csv", ".tsv"}:
        return "csv"
    raise DataError(
        f"Output {path.name}: engines write .parquet or .csv/.tsv; choose one of those suffixes."
    )


class Engine(ABC):
    """Reads a :class:`TableSource` to group it and to release it."""

    name = "engine"

    @abstractmethod
    def group(
        self, source: TableSource, columns: list[str], progress: Progress = no_progress
    ) -> GroupedTable:
        """Distinct rows of ``columns`` in order of first appearance, with counts."""

    @abstractmethod
    def count(self, source: TableSource) -> int:
        """Number of records."""

    @abstractmethod
    def sample(self, source: TableSource, n: int, seed: int = 0) -> pd.DataFrame:
        """A uniform random sample of about ``n`` rows, reproducible for a seed."""

    @abstractmethod
    def release(
        self,
        source: TableSource,
        plan: ReleasePlan,
        out: Path,
        progress: Progress = no_progress,
        formula_escape: bool = True,
    ) -> ReleaseSummary:
        """Write the released table to ``out`` (.parquet or .csv). CSV cells follow
        io.table_bytes: formulas neutralized unless ``formula_escape`` is False."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (connections, sessions)."""


def escaped_name(name: Any, formula_escape: bool = True) -> Any:
    """A CSV/TSV header cell as io.escape_formulas writes a text cell (a leading apostrophe on
    text a spreadsheet would run as a formula), so a column name never runs either."""
    return escape_formula_text(name) if formula_escape and isinstance(name, str) else name


def escape_names(frame: pd.DataFrame, formula_escape: bool = True) -> pd.DataFrame:
    """``frame`` with its column names escaped like text cells (itself when none changes)."""
    names = [escaped_name(c, formula_escape) for c in frame.columns]
    if names == list(frame.columns):
        return frame
    out = frame.copy(deep=False)
    out.columns = names
    return out


def write_frame(frame: pd.DataFrame, out: str | Path, formula_escape: bool = True) -> Path:
    """A released table written atomically by io.write_table (format by suffix); in CSV/TSV the
    column names are escaped like the cells unless ``formula_escape`` is False."""
    if table_format(out) in {"csv", "tsv"}:
        frame = escape_names(frame, formula_escape)
    return write_table(frame, out, formula_escape=formula_escape)


def missing_tokens_sql() -> str:
    return "[" + ", ".join("'" + t.replace("'", "''") + "'" for t in MISSING_TOKENS) + "]"


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def check_columns(source: TableSource, columns: list[str]) -> None:
    missing = [c for c in columns if c not in source.columns]
    if missing:
        raise DataError(
            f"Column(s) {missing} are not in {source.path.name}. Its columns are: {list(source.columns)}."
        )

"""The differential-privacy ledger: every (epsilon, delta) spent on an input table, per table.

A privacy budget bounds what anyone learns from a table only if it is counted over every
question ever asked of that table, not per browser session or per "release". The ledger keys
spends by the table's hash (SHA-256 of its canonical content) and keeps them for the life of the
process; with a ``path`` it also keeps them in a small JSON file that holds no data, only
``hash -> [{epsilon, delta, what, when}]``.

Composition is basic sequential composition (Dwork, McSherry, Nissim and Smith, TCC 2006;
Dwork and Roth 2014, Thm 3.16): running mechanisms that are (eps_i, delta_i)-DP on the same
table is (sum eps_i, sum delta_i)-DP. That is what :meth:`DPLedger.spent` returns.

Thread-safe: one re-entrant lock guards the table of spends; :meth:`DPLedger.transaction` holds
it around check, query and record, so two sessions on the same table cannot both pass a check
that only one of them fits. The file is written atomically (temporary file, ``fsync``,
``os.replace``) after every spend; a file that cannot be read is an error, never a fresh start
(that would reset the budget to zero without anyone noticing).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anon_core.data.safe_write import atomic_write
from anon_core.errors import ConfigError

log = logging.getLogger(__name__)

FORMAT = "anon-core dp ledger"
VERSION = 1
#: A ledger file larger than this is refused (it holds a few numbers per query).
MAX_FILE_BYTES = 20_000_000
#: Float rounding of a sum of spends: a request above the remainder by at most this share of
#: the total is still refused by :meth:`DPLedger.check` only if it exceeds it by more.
TOLERANCE = 1e-9
_HASH = re.compile(r"^[0-9a-f]{64}$")


class LedgerError(ConfigError):
    """The ledger file cannot be read or written: the budget is unknown, so nothing may be spent."""


@dataclass(frozen=True)
class Spend:
    """One spend on a table: (epsilon, delta), what spent it (query type and columns, never a
    value of the data) and when (UTC, ISO 8601)."""

    epsilon: float
    delta: float
    what: str
    when: str

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "what": self.what, "when": self.when}


def _number(value: Any, name: str, where: str, upper: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LedgerError(f"{where}: '{name}' must be a number, got {value!r}.")
    value = float(value)
    if not math.isfinite(value) or value < 0 or value > upper:
        raise LedgerError(f"{where}: '{name}' must be between 0 and {upper:g}, got {value!r}.")
    return value


def _spend_from(raw: Any, where: str) -> Spend:
    if not isinstance(raw, dict) or set(raw) != {"epsilon", "delta", "what", "when"}:
        raise LedgerError(f"{where}: a spend must be an object with epsilon, delta, what and when.")
    if not isinstance(raw["what"], str) or not isinstance(raw["when"], str):
        raise LedgerError(f"{where}: 'what' and 'when' must be text.")
    return Spend(
        _number(raw["epsilon"], "epsilon", where, 1e6),
        _number(raw["delta"], "delta", where, 1.0),
        raw["what"],
        raw["when"],
    )


def check_table_hash(table_hash: str) -> str:
    """A table's key: 64 lower-case hex digits (SHA-256), else ConfigError."""
    if not isinstance(table_hash, str) or not _HASH.match(table_hash):
        raise ConfigError(
            f"A ledger key must be a SHA-256 hex digest (64 hex digits), got {table_hash!r}."
        )
    return table_hash


class DPLedger:
    """Spends per input table; in memory, and in a JSON file when ``path`` is given.

    ``path`` is read when the ledger is made (a missing file is an empty ledger; an unreadable
    or malformed one raises :class:`LedgerError` naming the file and the fix).
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path).expanduser()
        self._lock = threading.RLock()
        self._spends: dict[str, list[Spend]] = {}
        if self.path is not None:
            self._spends = self._read(self.path)

    # ------------------------------------------------------------------ file
    @staticmethod
    def _read(path: Path) -> dict[str, list[Spend]]:
        fix = (
            "It is never reset silently (that would forget the budget already spent): restore it "
            "from a backup, or move it away to start a new ledger on purpose."
        )
        if not path.exists():
            return {}
        try:
            if path.is_dir():
                raise LedgerError(
                    f"The DP ledger {path} is a folder: give the path of a JSON file."
                )
            if path.stat().st_size > MAX_FILE_BYTES:
                raise LedgerError(
                    f"The DP ledger {path} is larger than {MAX_FILE_BYTES:,} bytes: it is not a "
                    f"ledger. {fix}"
                )
            raw = json.loads(path.read_text(encoding="utf-8"))
        except LedgerError:
            raise
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LedgerError(f"The DP ledger {path} cannot be read ({exc}). {fix}") from None
        try:
            if not isinstance(raw, dict) or raw.get("format") != FORMAT:
                raise LedgerError(f"it has no 'format': {FORMAT!r} header")
            if raw.get("version") != VERSION:
                raise LedgerError(f"version {raw.get('version')!r} is not {VERSION}")
            tables = raw.get("tables")
            if not isinstance(tables, dict):
                raise LedgerError("'tables' must be an object of table hash -> list of spends")
            spends: dict[str, list[Spend]] = {}
            for key, entries in tables.items():
                if not isinstance(key, str) or not _HASH.match(key):
                    raise LedgerError(f"{key!r} is not a SHA-256 table hash")
                if not isinstance(entries, list):
                    raise LedgerError(f"the spends of {key[:12]}… must be a list")
                spends[key] = [
                    _spend_from(e, f"spend {i + 1} of {key[:12]}…") for i, e in enumerate(entries)
                ]
        except LedgerError as exc:
            raise LedgerError(f"The DP ledger {path} is not valid: {exc}. {fix}") from None
        return spends

    def _write(self) -> None:
        if self.path is None:
            return
        body = {
            "format": FORMAT,
            "version": VERSION,
            "tables": {k: [s.to_dict() for s in v] for k, v in sorted(self._spends.items())},
        }
        try:
            atomic_write(self.path, (json.dumps(body, indent=1) + "\n").encode("utf-8"))
        except OSError as exc:
            raise LedgerError(
                f"The DP ledger {self.path} cannot be written ({exc}); the answer was not released. "
                "Check the folder exists and is writable."
            ) from None

    # ------------------------------------------------------------------ reading
    def spends(self, table_hash: str) -> list[Spend]:
        """Every spend on the table, oldest first (a copy)."""
        with self._lock:
            return list(self._spends.get(check_table_hash(table_hash), ()))

    def spent(self, table_hash: str) -> tuple[float, float]:
        """(epsilon, delta) spent on the table: the sums (basic sequential composition)."""
        with self._lock:
            entries = self._spends.get(check_table_hash(table_hash), ())
            return math.fsum(s.epsilon for s in entries), math.fsum(s.delta for s in entries)

    def remaining(self, table_hash: str, total_epsilon: float, total_delta: float = 0.0):
        """(epsilon, delta) left of the totals (never below 0)."""
        eps, delta = self.spent(table_hash)
        return max(total_epsilon - eps, 0.0), max(total_delta - delta, 0.0)

    # ------------------------------------------------------------------ spending
    @contextlib.contextmanager
    def transaction(self) -> Iterator[DPLedger]:
        """Hold the ledger while a query checks, runs and records (other spends wait)."""
        with self._lock:
            yield self

    def check(
        self,
        table_hash: str,
        epsilon: float,
        delta: float,
        total_epsilon: float,
        total_delta: float = 0.0,
    ) -> None:
        """ConfigError when spending (epsilon, delta) on the table would exceed the totals."""
        eps_spent, delta_spent = self.spent(table_hash)
        if eps_spent + epsilon > total_epsilon * (1 + TOLERANCE):
            left = max(total_epsilon - eps_spent, 0.0)
            raise ConfigError(
                f"This asks for ε = {epsilon:g} but ε = {eps_spent:.6g} of the total "
                f"ε = {total_epsilon:g} has been spent on this table ({left:.6g} remains). "
                "Lower the epsilon: nothing was spent."
            )
        if delta > 0 and delta_spent + delta > total_delta * (1 + TOLERANCE):
            raise ConfigError(
                f"This asks for δ = {delta:g} but δ = {delta_spent:.6g} of the total "
                f"δ = {total_delta:g} has been spent on this table. Lower the delta or use a "
                "mechanism with δ = 0: nothing was spent."
            )

    def record(
        self,
        table_hash: str,
        epsilon: float,
        delta: float = 0.0,
        what: str = "",
        when: datetime | None = None,
    ) -> Spend:
        """Add a spend (and write the file, if any). With a file that cannot be written, the
        spend is taken back and :class:`LedgerError` raised: the caller must not release the
        answer it was for."""
        check_table_hash(table_hash)
        epsilon = _number(epsilon, "epsilon", "A spend", 1e6)
        delta = _number(delta, "delta", "A spend", 1.0)
        stamp = (when or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        spend = Spend(epsilon, delta, str(what)[:200], stamp)
        with self._lock:
            entries = self._spends.setdefault(table_hash, [])
            entries.append(spend)
            try:
                self._write()
            except LedgerError:
                entries.pop()
                if not entries:
                    del self._spends[table_hash]
                raise
        log.info(
            "dp ledger: epsilon %.4g, delta %.3g spent on table %s", epsilon, delta, table_hash[:12]
        )
        return spend

    def tables(self) -> list[str]:
        """Hashes of the tables with spends."""
        with self._lock:
            return sorted(self._spends)

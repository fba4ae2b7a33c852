"""Files a configuration names, checked against the folders a server may read before any is opened.

The command line reads whatever files its user's configuration names: that
user runs it with their own rights. A configuration uploaded to the dashboard
is different: the server would read the files it names with the server's
rights (``"hierarchy": {"file": "/etc/passwd"}``). :func:`check_config_files`
refuses, before anything is read, a configuration that names a file outside
the allowed folders (and the files explicitly allowed), with one message that
says how to give the hierarchy instead. The message never names what is in a
file, and is the same whether the file exists or not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from anon_core.data.safe_write import INPUT_FILE_KEYS
from anon_core.errors import ConfigError

PathLike = str | os.PathLike[str]
_MAX_PATH_CHARS = 4096
#: Entries the dashboard never reads (it works on the table already loaded).
DASHBOARD_UNREAD = ("input.path",)


def _is_file_key(key: str) -> bool:
    return key in INPUT_FILE_KEYS or key.endswith(("_path", "_file"))


def file_references(config: Mapping[str, Any]) -> Iterator[tuple[str, str, bool]]:
    """``(where, text, named)`` for every string of the configuration; ``named``: under a key that
    names a file (``file``, ``path``, ``*_path`` ...)."""

    def walk(obj: Any, where: str, named: bool) -> Iterator[tuple[str, str, bool]]:
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                here = f"{where}.{key}" if where else str(key)
                yield from walk(value, here, _is_file_key(str(key)))
        elif isinstance(obj, list | tuple):
            for i, value in enumerate(obj):
                yield from walk(value, f"{where}[{i}]", False)
        elif isinstance(obj, str):
            yield where, obj, named

    yield from walk(config, "", False)


def _resolved(text: str, base: Path) -> Path | None:
    if not text.strip() or len(text) > _MAX_PATH_CHARS or "\x00" in text:
        return None
    try:
        candidate = Path(text).expanduser()
        candidate = candidate if candidate.is_absolute() else base / candidate
        return candidate.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        return None


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def check_config_files(
    config: Mapping[str, Any],
    base_dir: PathLike,
    allowed_roots: Iterable[PathLike],
    allowed_files: Iterable[PathLike] = (),
    skip: Iterable[str] = DASHBOARD_UNREAD,
) -> None:
    """One ConfigError line when the configuration names a file outside ``allowed_roots``.

    Checked: every string under a file key (``file``, ``path``, ``table``, ``*_path``,
    ``*_file`` ...) whether or not the file exists, and any other string that is an
    existing file when resolved against ``base_dir`` (symbolic links and ``..``
    followed). ``allowed_files`` are single files also allowed (e.g. opened by path
    in this session); ``skip`` lists entries not read at all.
    """
    if not isinstance(config, Mapping):
        return
    base = Path(base_dir).expanduser().resolve(strict=False)
    roots = [Path(r).expanduser().resolve(strict=False) for r in allowed_roots]
    files = {Path(f).expanduser().resolve(strict=False) for f in allowed_files}
    skipped = set(skip)
    for where, text, named in file_references(config):
        if where in skipped:
            continue
        path = _resolved(text, base)
        if path is None or path in files or _inside(path, roots):
            continue
        if not named:
            try:
                if not path.is_file():
                    continue
            except OSError:
                continue
        raise ConfigError(
            f"The configuration's '{where}' names a file outside the folders the dashboard may read "
            "(the built-in samples). In the dashboard, upload a hierarchy on the Attributes page "
            "('ARX CSV file') or give it as a builder or a table in the configuration; other files "
            "are uploaded on their page. Files named in a configuration are read by the command line."
        )

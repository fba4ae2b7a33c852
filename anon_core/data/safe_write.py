"""Safe writes: never lose the previous file, never overwrite an input of the same run.

:func:`atomic_write` writes to a temporary file in the target folder, flushes it
to disk (``fsync``) and renames it over the target with :func:`os.replace`, which
is atomic on POSIX and Windows: a reader sees the old file or the new one, never
a truncated one. On any error (disk full, a failing serializer) the temporary
file is removed and the old file is left as it was.

:func:`check_outputs` refuses, before anything runs, an output path that is the
same file as an input, the configuration, a hierarchy file or another output
of the same run, however it is spelled (relative, ``..``, a symlink, another
letter case on a case-insensitive file system).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from anon_core.errors import ConfigError

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]


@contextlib.contextmanager
def atomic_file(path: PathLike, mode: str = "wb", encoding: str | None = None) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    The target's folder is created when missing (documented: outputs may name a
    new folder). On an exception the temporary file is removed, ``path`` is
    untouched and the exception propagates.
    """
    if mode not in ("wb", "w"):
        raise ConfigError(f"'mode' must be 'wb' or 'w', got {mode!r}.")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, mode, encoding=encoding if "b" not in mode else None) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            with contextlib.suppress(OSError):  # keep the previous file's permissions
                os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            with contextlib.suppress(OSError):
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
        _fsync_folder(target.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def atomic_write(path: PathLike, writer: Callable[[IO[bytes]], Any] | bytes) -> Path:
    """Write ``path`` atomically: ``writer(handle)`` fills a binary handle (or give the bytes)."""
    with atomic_file(path, "wb") as handle:
        if isinstance(writer, bytes | bytearray | memoryview):
            handle.write(bytes(writer))
        else:
            writer(handle)
    return Path(path)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        log.debug("fsync of folder %s not supported", folder)
    finally:
        os.close(fd)


def same_file_key(path: PathLike) -> tuple[str, ...]:
    """A key equal for every spelling of the same file: resolved path, case folded, or (device, inode)."""
    p = Path(path).expanduser()
    try:
        st = p.stat()
        return ("inode", str(st.st_dev), str(st.st_ino))
    except OSError:
        pass
    resolved = p.resolve(strict=False)
    text = os.path.normcase(str(resolved))
    if _case_insensitive(resolved.parent):
        text = text.casefold()
    return ("path", text)


def _case_insensitive(folder: Path) -> bool:
    """Whether the folder's file system ignores letter case (checked on the folder itself)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    name = str(folder)
    swapped = name.swapcase()
    if swapped == name:
        return False
    try:
        return os.path.samefile(name, swapped)
    except OSError:
        return False


def _keys(path: PathLike) -> set[tuple[str, ...]]:
    """Every key a path can match under: its inode when it exists and its resolved path."""
    p = Path(path).expanduser()
    keys = {same_file_key(p)}
    resolved = p.resolve(strict=False)
    text = os.path.normcase(str(resolved))
    keys.add(("path", text.casefold() if _case_insensitive(resolved.parent) else text))
    return keys


def check_outputs(
    outputs: Mapping[str, PathLike | None], inputs: Mapping[str, PathLike | None]
) -> None:
    """Refuse (one ConfigError line) an output that is an input or another output of the same run.

    ``outputs`` and ``inputs`` map a role (``"--output"``, ``"input.path"``,
    ``"hierarchy of age"``) to a path; ``None`` entries are skipped. Inputs that
    are folders (Parquet parts) also protect every file inside them.
    """
    seen: dict[tuple[str, ...], str] = {}
    for role, path in inputs.items():
        if path is None:
            continue
        for key in _keys(path):
            seen.setdefault(key, f"{role} ({path})")
    input_dirs = [
        (role, Path(p).resolve(strict=False))
        for role, p in inputs.items()
        if p is not None and Path(p).is_dir()
    ]
    for role, path in outputs.items():
        if path is None:
            continue
        out = Path(path)
        for key in _keys(out):
            if key in seen:
                raise ConfigError(
                    f"{role} {str(out)!r} is the same file as {seen[key]}; writing it would destroy "
                    "that file. Choose another output path."
                )
        resolved = out.resolve(strict=False)
        for dir_role, folder in input_dirs:
            if folder == resolved or folder in resolved.parents:
                raise ConfigError(
                    f"{role} {str(out)!r} lies inside {dir_role} ({folder}); writing it would change "
                    "that input. Choose another output path."
                )
        for key in _keys(out):
            seen[key] = f"{role} ({path})"


#: Configuration keys whose string values name files a run reads (walked in every section).
INPUT_FILE_KEYS = ("path", "file", "external", "population", "table_path", "key_file")


def run_input_files(config: Any, config_path: PathLike | None = None) -> dict[str, Path]:
    """Every file a release configuration reads: the configuration, input, hierarchy and section files.

    ``config`` is a :class:`~anon_core.config.ReleaseConfig` (read by attribute:
    ``base_dir``, ``input_path``, ``raw``). Any string under a key named like a
    file (``path``, ``file``, ``external``, ``*_path``, ``*_file``) that names an
    existing file or folder, relative to the configuration's folder, counts.
    """
    base = Path(config.base_dir)
    found: dict[str, Path] = {}
    if config_path is not None:
        found["the configuration"] = Path(config_path)
    if config.input_path is not None:
        found["input.path"] = Path(config.input_path)

    def walk(obj: Any, where: str) -> None:
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                here = f"{where}.{key}" if where else str(key)
                named = str(key) in INPUT_FILE_KEYS or str(key).endswith(("_path", "_file"))
                if named and isinstance(value, str) and value.strip():
                    candidate = Path(value).expanduser()
                    candidate = candidate if candidate.is_absolute() else base / candidate
                    if candidate.exists():
                        found.setdefault(here, candidate)
                else:
                    walk(value, here)
        elif isinstance(obj, list):
            for i, value in enumerate(obj):
                walk(value, f"{where}[{i}]")

    walk(config.raw, "")
    return found

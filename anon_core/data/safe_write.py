"""Safe writes: never lose the previous file, never overwrite an input of the same run.

:func:`atomic_write` writes to a temporary file in the target folder, flushes it
to disk (``fsync``) and renames it over the target with :func:`os.replace`, which
is atomic on POSIX and Windows: a reader sees the old file or the new one, never
a truncated one. On any error (disk full, a failing serializer) the temporary
file is removed and the old file is left as it was.

Every temporary file (or folder, for Spark) of a write is named
``.<output name>.<pid>-<random>.anon-partial`` beside the output
(:func:`temp_output`): it is removed when the write fails, when the process
exits, on SIGTERM/SIGHUP; and one left by a killed process (``kill -9``: the
pid in its name no longer runs) is removed by the next write to that folder.

:func:`check_outputs` refuses, before anything runs, an output path that is the
same file as an input, the configuration, a hierarchy file or another output
of the same run, however it is spelled (relative, ``..``, a symlink, a hard
link, another letter case on a case-insensitive file system), and an output
that is not a regular file (a FIFO, a device, a socket, a folder, a symbolic
link to a missing file).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from anon_core.errors import ConfigError

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]

#: The ending of every temporary file or folder a write makes beside its output.
TEMP_SUFFIX = ".anon-partial"
#: ``.<output name>.<pid>-<8 hex digits>.anon-partial``: the pid is the writing process.
TEMP_PATTERN = re.compile(
    r"^\..*\.(?P<pid>[0-9]+)-[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + r"$", re.S
)
#: Longest part of the output's name kept in a temporary name (names are at most 255 bytes).
_NAME_CHARS = 120

_live: set[str] = set()  # temporary paths of writes under way in this process
_live_lock = threading.Lock()
_installed = {"atexit": False, "signals": False}


def temp_name(target: PathLike) -> Path:
    """A fresh temporary path beside ``target`` (not created): ``.<name>.<pid>-<hex>.anon-partial``."""
    target = Path(target)
    return target.with_name(
        f".{target.name[:_NAME_CHARS]}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"
    )


def _remove(path: Path) -> None:
    """Remove a temporary file or folder (a symbolic link is removed, never followed)."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def _pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (when unsure: True, so nothing in use is removed)."""
    if pid <= 0:
        return False
    if os.name == "posix":
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # e.g. another user's process
            return True
        return True
    try:  # Windows: os.kill(pid, 0) would send CTRL_C_EVENT
        import psutil
    except ImportError:
        return True
    return bool(psutil.pid_exists(pid))


def sweep_stale_temps(folder: PathLike) -> list[Path]:
    """Remove the temporary files of writes into ``folder`` whose process no longer runs.

    Only names of the :data:`TEMP_PATTERN` form are touched; those of live processes
    (and this process's writes under way) are kept. Returns what was removed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    me = os.getpid()
    for entry in entries:
        found = TEMP_PATTERN.match(entry.name)
        if found is None:
            continue
        pid = int(found["pid"])
        path = Path(entry.path)
        with _live_lock:
            in_use = str(path) in _live
        if in_use or (pid != me and _pid_alive(pid)):
            continue
        try:
            _remove(path)
        except OSError as exc:  # pragma: no cover - a read-only folder
            log.warning("could not remove the stale temporary file %s: %s", path, exc)
            continue
        log.info("removed a temporary file left by an interrupted write: %s", path)
        removed.append(path)
    return removed


def _cleanup_live() -> None:
    with _live_lock:
        paths = [Path(p) for p in _live]
        _live.clear()
    for path in paths:
        with contextlib.suppress(OSError):
            _remove(path)


def _on_signal(signum: int, frame: Any, previous: Any) -> None:
    _cleanup_live()
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)  # die of the signal, as without this handler
    os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    """Remove this process's temporary files on exit and on SIGTERM/SIGHUP (once, main thread only)."""
    with _live_lock:
        if not _installed["atexit"]:
            _installed["atexit"] = True
            atexit.register(_cleanup_live)
        if _installed["signals"] or threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread: tried again from there
        _installed["signals"] = True
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            previous = signal.getsignal(signum)
            if previous in (signal.SIG_IGN, None):
                continue
            signal.signal(signum, lambda s, f, _prev=previous: _on_signal(s, f, _prev))
        except (ValueError, OSError):  # pragma: no cover - not allowed here
            continue


@contextlib.contextmanager
def temp_output(target: PathLike) -> Iterator[Path]:
    """A temporary path beside ``target`` for a writer to fill (a file, or a folder for Spark).

    Before: the folder is created when missing and stale temporary files of killed
    writes in it are removed. After: whatever is still at the temporary path (the
    write failed, or the caller did not move it over ``target``) is removed, also
    when the process exits or gets SIGTERM/SIGHUP meanwhile.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_temps(target.parent)
    _install_handlers()
    tmp = temp_name(target)
    with _live_lock:
        _live.add(str(tmp))
    try:
        yield tmp
    finally:
        try:
            if tmp.exists() or tmp.is_symlink():
                _remove(tmp)
        finally:
            with _live_lock:
                _live.discard(str(tmp))


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
    with temp_output(target) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, mode, encoding=encoding if "b" not in mode else None) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        replace_into(tmp, target)


def replace_into(tmp: PathLike, target: PathLike) -> None:
    """Move a finished temporary file over ``target`` (keeping its permissions) and make it durable."""
    tmp, target = Path(tmp), Path(target)
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
    except (OSError, ValueError):
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


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def output_kind_problem(path: PathLike, folder: bool = False) -> str | None:
    """Why ``path`` cannot be an output (None when it can): it must be a regular file or not exist.

    ``folder``: the output is a folder files are written into (it may exist as a folder).
    A folder holding ``_SUCCESS`` (a previous Spark release) is a valid file output too.
    """
    p = Path(path).expanduser()
    if p.is_symlink() and not p.exists():
        target = os.readlink(p)
        return (
            f"is a symbolic link to a missing file ({target}); writing would replace the link. "
            "Remove the link, or choose another output path."
        )
    try:
        st = p.stat()
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        return f"cannot be checked ({exc.strerror}); choose another output path."
    if st is None:
        parent = p.parent
        while parent != parent.parent and not (parent.exists() or parent.is_symlink()):
            parent = parent.parent
        if parent.exists() and not parent.is_dir():
            return f"cannot be written: {parent} is not a folder. Choose another output path."
        return None
    for test, kind in _KINDS:
        if test(st.st_mode):
            return (
                f"is {kind}, not a regular file; writing would replace it or block. "
                "Name a regular file (or a new one)."
            )
    if stat.S_ISDIR(st.st_mode):
        if folder or (p / "_SUCCESS").exists():
            return None
        return f"is a folder; name a file, e.g. {str(p / ('released' + '.csv'))!r}."
    if folder:
        return "is a file, not a folder; name a folder (it is created when missing)."
    return None


def check_outputs(
    outputs: Mapping[str, PathLike | None],
    inputs: Mapping[str, PathLike | None],
    folders: Iterable[str] = (),
) -> None:
    """Refuse (one ConfigError line) an output that is an input, another output, or not a regular file.

    ``outputs`` and ``inputs`` map a role (``"--output"``, ``"input.path"``,
    ``"hierarchy of age"``) to a path; ``None`` entries are skipped. Inputs that
    are folders (Parquet parts) also protect every file inside them. Roles in
    ``folders`` are folders written into (``compare --output DIR``): give the
    files that will be written in them as outputs too.
    """
    folder_roles = set(folders)
    for role, path in outputs.items():
        if path is None:
            continue
        problem = output_kind_problem(path, folder=role in folder_roles)
        if problem is not None:
            raise ConfigError(f"{role} {str(path)!r} {problem}")
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
        if path is None or role in folder_roles:
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


#: Configuration keys whose string values name files or folders a run reads (walked in every
#: section); any other string that names an existing file counts too.
INPUT_FILE_KEYS = (
    "path",
    "file",
    "external",
    "population",
    "table",
    "table_path",
    "key_file",
    "control",
    "released",
)
#: Longest configuration string tried as a file name.
_MAX_PATH_CHARS = 4096


def _holds(folder: Path, path: Path) -> bool:
    """Whether ``folder`` is ``path`` or one of its parents (a "." would protect every output)."""
    folder, path = folder.resolve(strict=False), path.resolve(strict=False)
    return folder == path or folder in path.parents


def run_input_files(config: Any, config_path: PathLike | None = None) -> dict[str, Path]:
    """Every file a release configuration reads: the configuration, input, hierarchy and section files.

    ``config`` is a :class:`~anon_core.config.ReleaseConfig` (read by attribute:
    ``base_dir``, ``input_path``, ``raw``). Every string in the configuration that
    names an existing file, relative to the configuration's folder (hierarchies,
    the population table, the attack section's control and external files, key
    files ...), counts; a folder counts under a key named like a file (``path``,
    ``file``, ``table``, ``control``, ``*_path``, ``*_file`` ...: Parquet parts).
    """
    base = Path(config.base_dir)
    found: dict[str, Path] = {}
    if config_path is not None:
        found["the configuration"] = Path(config_path)
    if config.input_path is not None:
        found["input.path"] = Path(config.input_path)

    def consider(value: str, here: str, named: bool) -> None:
        if not value.strip() or len(value) > _MAX_PATH_CHARS or "\x00" in value:
            return
        try:
            candidate = Path(value).expanduser()
            candidate = candidate if candidate.is_absolute() else base / candidate
            if candidate.is_file() or (
                named and candidate.is_dir() and not _holds(candidate, base)
            ):
                found.setdefault(here, candidate)
        except (OSError, ValueError):
            return

    def walk(obj: Any, where: str, named: bool = False) -> None:
        if isinstance(obj, Mapping):
            for key, value in obj.items():
                here = f"{where}.{key}" if where else str(key)
                walk(
                    value,
                    here,
                    str(key) in INPUT_FILE_KEYS or str(key).endswith(("_path", "_file")),
                )
        elif isinstance(obj, list):
            for i, value in enumerate(obj):
                walk(value, f"{where}[{i}]")
        elif isinstance(obj, str):
            consider(obj, where, named)

    walk(config.raw, "")
    return found

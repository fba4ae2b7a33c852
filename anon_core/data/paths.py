"""Paths a user types (open or write by path): only inside the folders allowed, never over an input.

The dashboard can read and write files by path on the machine it runs on. A
user who reaches it must not read any file the server can read, nor write
anywhere: :func:`resolve_user_path` accepts a path only when it resolves
(symlinks followed, ``..`` collapsed) inside one of the allowed folders (by
default the working folder), and, for a write, only when it is not a file
read in this session (an input, a configuration, a hierarchy file).
:class:`PathGuard` keeps the allowed folders and the files read.

:func:`check_run_outputs` is the one check every CLI command runs before any work:
each output's format is supported, no output is a file the run reads (the
configuration and every file it names, however spelled: same device and inode,
so hard links and symbolic links too) nor another output, and every output is a
regular file or does not exist yet.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anon_core.data.safe_write import (
    check_outputs,
    output_kind_problem,
    run_input_files,
    same_file_key,
)
from anon_core.errors import AnonError, ConfigError

PathLike = str | os.PathLike[str]

#: Report formats by suffix (anon_core.report.files.write_report).
REPORT_SUFFIXES = (".html", ".htm", ".pdf")
#: What an output holds, for the up-front format check.
OUTPUT_KINDS = ("table", "report", "json", "folder")


def _roots(allowed_roots: Iterable[PathLike] | None) -> list[Path]:
    roots = [Path.cwd()] if allowed_roots is None else [Path(r) for r in allowed_roots]
    if not roots:
        raise ConfigError(
            "'allowed_roots' is empty: name at least one folder files may be opened from."
        )
    return [r.expanduser().resolve(strict=False) for r in roots]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_user_path(
    path: PathLike,
    allowed_roots: Iterable[PathLike] | None = None,
    *,
    write: bool = False,
    read_files: Iterable[PathLike] = (),
) -> Path:
    """The resolved path, or one ConfigError line: outside the allowed folders, or (write) a file read.

    A relative path is taken from the first allowed folder. The check is on the
    resolved path, so ``sub/../../etc/passwd`` and a symlink pointing out of the
    folders are refused alike.
    """
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ConfigError(f"'path' must be a file path, got {path!r}.")
    if "\x00" in str(path):
        raise ConfigError("'path' holds a NUL character; type the file's path.")
    roots = _roots(allowed_roots)
    raw = Path(path).expanduser()
    candidate = raw if raw.is_absolute() else roots[0] / raw
    resolved = candidate.resolve(strict=False)
    if not any(_inside(resolved, root) for root in roots):
        shown = ", ".join(str(r) for r in roots)
        via = " (through a symbolic link)" if resolved != Path(os.path.abspath(candidate)) else ""
        raise ConfigError(
            f"'{path}' resolves to {resolved}{via}, outside the allowed folder(s) {shown}. Move the file "
            "there, or add its folder to the allowed folders."
        )
    if write:
        problem = output_kind_problem(resolved)
        if problem is not None:
            raise ConfigError(f"'{path}' {problem}")
        key = same_file_key(resolved)
        for read in read_files:
            if same_file_key(read) == key:
                raise ConfigError(
                    f"'{path}' is a file read in this session ({read}); writing it would destroy it. "
                    "Choose another name."
                )
    return resolved


@dataclass
class PathGuard:
    """The allowed folders and the files read so far (one per dashboard session)."""

    allowed_roots: tuple[Path, ...] = field(default_factory=lambda: (Path.cwd(),))
    read: set[Path] = field(default_factory=set)

    def for_read(self, path: PathLike) -> Path:
        """Check a path to open, and remember it as read (so it is never written over)."""
        resolved = resolve_user_path(path, self.allowed_roots)
        self.read.add(resolved)
        return resolved

    def for_write(self, path: PathLike) -> Path:
        """Check a path to write: inside the allowed folders and not a file read in this session."""
        return resolve_user_path(path, self.allowed_roots, write=True, read_files=sorted(self.read))


def _check_format(role: str, path: PathLike, kind: str) -> None:
    """One line when ``path``'s suffix is not a format ``kind`` can be written in."""
    if kind not in OUTPUT_KINDS:
        raise ConfigError(f"'kind' must be one of {', '.join(OUTPUT_KINDS)}, got {kind!r}.")
    suffix = Path(path).suffix.lower()
    if kind == "table":
        from anon_core.data.io import output_format

        try:
            output_format(path)
        except AnonError as exc:
            raise ConfigError(f"{role} {str(path)!r}: {exc} Nothing was written.") from None
    elif kind == "report" and suffix not in REPORT_SUFFIXES:
        raise ConfigError(
            f"{role} {str(path)!r}: report format {suffix or '(none)'!r} is not supported; name the "
            "report .html or .pdf. Nothing was written."
        )


def check_run_outputs(
    outputs: Mapping[str, tuple[PathLike | None, str]],
    *,
    config: Any = None,
    config_path: PathLike | None = None,
    inputs: Mapping[str, PathLike | None] | None = None,
    folder_files: Mapping[str, Iterable[str]] | None = None,
) -> None:
    """Refuse (one ConfigError line), before anything is read or written, any output a run must not write.

    ``outputs`` maps a role (``"--output"``) to ``(path, kind)``: kind ``"table"``
    (.csv/.tsv/.parquet/.xlsx/.json), ``"report"`` (.html/.pdf), ``"json"`` (any
    name) or ``"folder"`` (files are written into it; ``folder_files[role]`` names
    them). ``None`` paths are skipped. The files the run reads are the
    configuration, every file it names (:func:`run_input_files`) and ``inputs``
    (files named on the command line). Refused: an unsupported format; an output
    that is one of those files (any spelling, hard links, symbolic links) or lies
    in an input folder; two outputs naming the same file; an output that exists
    and is not a regular file (FIFO, device, socket, folder, dangling symbolic link).
    """
    given = {role: (path, kind) for role, (path, kind) in outputs.items() if path is not None}
    read: dict[str, PathLike | None] = {}
    if config is not None:
        read.update(run_input_files(config, config_path))
    elif config_path is not None:
        read["the configuration"] = config_path
    read.update(inputs or {})
    files: dict[str, PathLike | None] = {role: path for role, (path, _) in given.items()}
    folders = [role for role, (_, kind) in given.items() if kind == "folder"]
    for role in folders:
        folder = Path(given[role][0])
        for name in (folder_files or {}).get(role, ()):
            files[f"{role} {str(folder)!r} would hold {name}, and"] = folder / name
    check_outputs(files, read, folders=folders)
    for role, (path, kind) in given.items():
        _check_format(role, path, kind)

"""Paths a user types (open or write by path): only inside the folders allowed, never over an input.

The dashboard can read and write files by path on the machine it runs on. A
user who reaches it must not read any file the server can read, nor write
anywhere: :func:`resolve_user_path` accepts a path only when it resolves
(symlinks followed, ``..`` collapsed) inside one of the allowed folders (by
default the working folder), and, for a write, only when it is not a file
read in this session (an input, a configuration, a hierarchy file).
:class:`PathGuard` keeps the allowed folders and the files read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from anon_core.data.safe_write import same_file_key
from anon_core.errors import ConfigError

PathLike = str | os.PathLike[str]


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

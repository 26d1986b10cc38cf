"""Finding workflow documents in the workspace folders, never leaving them.

Confinement is decided here and only here: a path belongs to the workspace
when its *resolved* form (symlinks followed) lies under a resolved workspace
folder. A symlink that leads outside, a ``..`` that climbs out, a FIFO or a
device, a directory named like a document, a symlink loop: none of them is
read. Huge files are skipped with one message each. The one
exception is a file the user names to ``wfls check``: it is read wherever it
lies (a regular file still), and joins the workspace it is checked in.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

from wf_core.base.reading import is_workflow_file
from wf_core.base.records import record

MAX_BYTES = 5_000_000
"""Documents larger than this are skipped: no hand-written workflow is, and reading one
would cost every later request."""

_SKIPPED_DIRS = frozenset(("node_modules", "__pycache__"))


@record
class Skipped:
    path: Path
    reason: str


class Roots:
    """The workspace folders, resolved once."""

    def __init__(self, folders: Iterable[Path], extra_globs: Iterable[str] = ()) -> None:
        resolved = (_resolved(f) for f in folders)
        self.folders: tuple[Path, ...] = tuple(dict.fromkeys(f for f in resolved if f is not None))
        self.extra_globs = tuple(extra_globs)

    def contains(self, path: Path) -> bool:
        """True when ``path`` (symlinks followed) lies inside a workspace folder."""
        resolved = _resolved(path)
        return resolved is not None and any(
            resolved == folder or folder in resolved.parents for folder in self.folders
        )

    def wants(self, path: Path) -> bool:
        """A workflow document by its name, or a match of an ``extraGlobs`` pattern."""
        if is_workflow_file(path.name):
            return True
        for folder in self.folders:
            try:
                relative = path.relative_to(folder).as_posix()
            except ValueError:
                continue
            if any(fnmatch.fnmatch(relative, pattern) for pattern in self.extra_globs):
                return True
        return False

    def check(self, path: Path, *, named: bool = False) -> str | None:
        """Why ``path`` is not read (None: it is a document to read). A file the user
        ``named`` (``wfls check FILE``) is read whatever its size and wherever it lies:
        the limit and the folders keep stray files out of a workspace scan, not an
        author's own document out of the check they asked for."""
        if not named and not self.contains(path):  # a symlink loop is contained nowhere
            return (
                SYMLINK_LOOP if is_symlink_loop(path) else "it lies outside the workspace folders"
            )
        return file_problem(path, None if named else MAX_BYTES)

    def scan(self) -> Iterator[Path | Skipped]:
        """Every document under the folders, sorted; skipped files as :class:`Skipped`.

        Hidden folders and dependency folders are not entered; symlinked folders are
        entered only when they stay inside the workspace, and each real folder once.
        """
        seen: set[Path] = set()
        for folder in self.folders:
            yield from self._walk(folder, seen)

    def _walk(self, folder: Path, seen: set[Path]) -> Iterator[Path | Skipped]:
        real = _resolved(folder)
        if real is None or real in seen or not self.contains(folder):
            return
        seen.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:  # a symlink loop: reported below when it is named like a document
                is_dir = False
            if is_dir and not is_workflow_file(entry.name):
                if not entry.name.startswith(".") and entry.name not in _SKIPPED_DIRS:
                    yield from self._walk(path, seen)
                continue
            if not self.wants(path):
                continue
            reason = self.check(path)
            if reason is None:
                yield path
            else:
                yield Skipped(path, reason)


SYMLINK_LOOP = "it is a symlink loop"


def is_symlink_loop(path: Path) -> bool:
    """True when following ``path``'s symlinks comes back to where it started."""
    try:
        path.resolve(strict=False)
    except RuntimeError:  # Python 3.11 and 3.12 report a loop this way
        return True
    except OSError as error:  # 3.13 and later
        return error.errno == errno.ELOOP
    return False


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError):  # a symlink loop
        return None


def file_problem(path: Path, limit: int | None = None) -> str | None:
    """Why the file at ``path`` is not read (None: it is read): a symlink loop, a path
    that cannot be looked at, anything but a regular file (a FIFO blocks whoever opens
    it, ``/dev/zero`` never ends), or more than ``limit`` bytes. Decided from ``stat``,
    before anything is opened."""
    if is_symlink_loop(path):
        return SYMLINK_LOOP
    try:
        info = os.stat(path)
    except OSError as error:
        return error.strerror or str(error)
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if limit is not None and info.st_size > limit:
        return larger_than(limit)
    return None


def larger_than(limit: int) -> str:
    """``it is larger than 5 MB``: the reason a file over ``limit`` bytes is not read."""
    size = f"{limit // 1_000_000} MB" if limit % 1_000_000 == 0 else f"{limit:,} bytes"
    return f"it is larger than {size}"


def read_regular_file(path: Path, limit: int | None = None) -> bytes | str:
    """The bytes of the regular file at ``path``, or why it cannot be read
    (:func:`file_problem`, then the same checks on what was opened).

    The file is opened without blocking and checked again once open: a path that
    became a FIFO since it was looked at would otherwise block the reader for good.
    At most ``limit`` bytes are read, so a file that grows meanwhile cannot make the
    reader hold more.
    """
    problem = file_problem(path, limit)
    if problem is not None:
        return problem
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return error.strerror or str(error)
    with os.fdopen(descriptor, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return "it is not a regular file"
            data = handle.read() if limit is None else handle.read(limit + 1)
        except OSError as error:
            return error.strerror or str(error)
    if limit is not None and len(data) > limit:
        return larger_than(limit)
    return data


def read_document(path: Path) -> bytes | str:
    """The bytes of a document, or why it cannot be read.

    Read by :func:`read_regular_file`, without a size limit: the limit is
    :meth:`Roots.check`'s to apply (a file the user names is read whatever its size).
    Whatever the bytes hold, they are read as an editor's text is: a NUL is a character
    like any other (the syntax error where it stands), and bytes that are not UTF-8 are
    the one finding of the file (``wf_core.base.reading.decode``), so that ``wfls check``
    and the language server report the same of the same text.
    """
    return read_regular_file(path)


def path_of_uri(uri: str) -> Path | None:
    """The local path of a ``file:`` URI; None for other schemes and other hosts."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))

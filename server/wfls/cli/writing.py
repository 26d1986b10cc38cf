"""Writing a file so that a failure never destroys what it replaces.

``wfls fmt`` rewrites documents and ``wfls run --save`` rewrites the checkpoint it
may have resumed from: writing either in place would leave half a file behind when
the disk fills up or the process is stopped, and the old content would be gone.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["replace_atomically"]


def replace_atomically(file: Path, data: bytes) -> None:
    """Replace ``file``'s content by ``data`` (or create it) through a temporary file in
    its folder, written and synced to the disk before it is renamed over ``file``: a
    reader sees the old content or the new one, and a write that fails (a full disk, a
    file-size limit) leaves the old content and no temporary file. An existing file
    keeps its mode; a new one gets the mode the umask gives a new file."""
    target = file.resolve()  # a symlink's target is rewritten, the link stays
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(target.parent)


def _umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable; a file system that cannot sync a folder
    (some network ones) still has the new content in place."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)

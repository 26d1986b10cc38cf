"""Code that attrs generates, compiled ahead of time like a module's bytecode.

attrs writes the ``__init__``, ``__eq__``, ``__repr__`` and the rest of each class it
makes as Python source and compiles that source as the class is made. The protocol
library defines some 570 such classes on import: compiling their scripts is about half
of that import (0.3 of 0.6 s on the benchmark machine), and that import is most of the
time a client waits for the answer to ``initialize``. Python keeps a module's bytecode
in ``__pycache__`` but not code compiled at run time, so this module does the same for
attrs' scripts: ``python -m wfls.attrs_code`` (run by ``make bytecode``) imports what
the server imports, records each script's code object, and writes them to a file beside
the package's bytecode; ``install`` (``wfls serve``) hands them to attrs in later
processes instead of compiling again.

Invariants, enforced in ``_cached_compile`` and ``_load``:

- a recorded code object is used only for a script identical to the one it was
  compiled from (same generated file name, same text), so a class that changed, or a
  new version of a library, compiles as before (so do the few hashable classes, 10 of
  the server's 580: attrs writes a seed taken from the process's string hashes into
  their ``__hash__``);
- a file of another interpreter (its bytecode magic number) or one that cannot be read
  in full is ignored, not an error: starting up is then only slower;
- only ``python -m wfls.attrs_code`` writes the file; ``install`` (the server, the
  command line) only reads it.
"""

from __future__ import annotations

import importlib
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from types import CodeType

CACHE_FILE = (
    Path(__file__).parent / "__pycache__" / f"attrs-code.{sys.implementation.cache_tag}.bin"
)

Compile = Callable[..., CodeType]
Table = dict[str, tuple[str, CodeType]]  # generated file name: (script, its code)


def _load(path: Path) -> Table:
    """The recorded code objects of ``path``; empty when it is missing, unreadable, or
    made by another interpreter."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        table = marshal.loads(data[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        name: entry
        for name, entry in table.items()
        if isinstance(name, str)
        and isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[0], str)
        and isinstance(entry[1], CodeType)
    }


def _cached_compile(table: Table, hits: list[int] | None = None) -> Compile:
    """attrs' ``compile``, served from ``table``. An entry goes once served (a class is
    made once), so the table does not outlive the imports: 2-3 MB of scripts and code."""

    def compile_script(source: object, filename: str, mode: str, *args: object) -> CodeType:
        entry = table.get(filename) if not args else None
        if entry is not None and entry[0] == source and mode == "exec":
            del table[filename]
            if hits is not None:
                hits[0] += 1
            return entry[1]
        return compile(source, filename, mode, *args)  # type: ignore[call-overload, no-any-return]

    return compile_script


def install(path: Path = CACHE_FILE, hits: list[int] | None = None) -> bool:
    """Let attrs take the code it would compile from ``path`` where it was recorded
    (call before importing what defines attrs classes; ``hits``, when given, counts the
    scripts served). False when ``path`` holds nothing usable: attrs compiles as usual."""
    table = _load(path)
    if not table:
        return False
    import attr._make

    # attrs compiles through the name ``compile`` in this module's globals: a global of
    # that name takes precedence over the builtin for attrs, and for nothing else.
    attr._make.compile = _cached_compile(table, hits)  # type: ignore[attr-defined]
    return True


def record(modules: Iterable[str] | None = None) -> Table:
    """Import ``modules`` (by default what the server imports before its first analysis:
    ``wfls.server`` and its ``ANALYSIS_MODULES``) and return the code of every script
    attrs compiled meanwhile. Run in a fresh process: a class already made is not made
    again."""
    import attr._make

    table: Table = {}

    def compile_and_record(source: object, filename: str, mode: str, *args: object) -> CodeType:
        code: CodeType = compile(source, filename, mode, *args)  # type: ignore[call-overload]
        if isinstance(source, str) and mode == "exec" and not args:
            table[filename] = (source, code)
        return code

    attr._make.compile = compile_and_record  # type: ignore[attr-defined]
    try:
        if modules is None:
            from wfls import server

            modules = server.ANALYSIS_MODULES
        for name in modules:
            importlib.import_module(name)
    finally:
        del attr._make.compile  # type: ignore[attr-defined]
    return table


def write(table: Table, path: Path = CACHE_FILE) -> None:
    """Write ``table`` to ``path`` atomically (a reader sees the old file or the new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = importlib.util.MAGIC_NUMBER + marshal.dumps(table)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)  # readable by all, as bytecode is (mkstemp: 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    """``python -m wfls.attrs_code [FILE]``: record and write (to ``FILE``, or beside the
    package's bytecode)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else CACHE_FILE
    table = record()
    write(table, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

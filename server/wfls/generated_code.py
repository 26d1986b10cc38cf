"""Code that attrs and dataclasses generate at import, compiled ahead like a module's
bytecode.

Both write the methods of each class they make (``__init__``, ``__eq__``, ``__repr__``
and the rest) as Python source and compile that source as the class is made. The
protocol library defines some 570 attrs classes on import: compiling their scripts was
about half of that import (0.3 of 0.6 s on the benchmark machine), and that import is
most of the time a client waits for the answer to ``initialize``; the analysis's own
records and the libraries' dataclasses compile some 480 scripts more (50-70 ms of the
imports before a first diagnostic). Python keeps a module's bytecode in ``__pycache__``
but not code compiled at run time, so this module does the same for those scripts:
``python -m wfls.generated_code`` (run by ``make bytecode``) imports what the server
and ``wfls check`` import, records each script's code object, and writes them to a file
beside the package's bytecode; ``install`` hands them to attrs and dataclasses in later
processes instead of compiling again.

Invariants, enforced in ``_Hooks`` and ``_load``:

- a recorded code object is used only for a script identical to the one it was
  compiled from (the same BLAKE2b digest of its text, and for attrs the same generated
  file name), so a class that changed, or a new version of a library, compiles as
  before (so do the few hashable attrs classes, 10 of the server's 580: attrs writes a
  seed taken from the process's string hashes into their ``__hash__``). The file keeps
  digests, not the scripts: loaded, their text would stay behind in the process's
  memory (2-3 MB) after the classes are made;
- a script is compiled with the ``__future__`` flags of the module that generates it,
  as that module's own call would (``_future_flags``), whether here or when recorded;
- a file of another interpreter (its bytecode magic number) or one that cannot be read
  in full is ignored, not an error: starting up is then only slower;
- only ``python -m wfls.generated_code`` writes the file; ``install`` (the server, the
  command line) only reads it.
"""

from __future__ import annotations
import __future__

import builtins
import hashlib
import importlib
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

_TAG = sys.implementation.cache_tag
CACHE_FILE = Path(__file__).parent / "__pycache__" / f"generated-code.{_TAG}.bin"

# What ``wfls check`` imports beyond what the server imports before its first analysis.
CHECK_MODULES = ("wfls.check_cmd",)

# attrs: generated file name -> (digest of the script, code); dataclasses: digest -> code.
AttrsTable = dict[str, tuple[bytes, CodeType]]
DataclassTable = dict[bytes, CodeType]


def digest(script: str) -> bytes:
    """What a script is recognised by (the ``hashlib`` import is the analysis's anyway)."""
    return hashlib.blake2b(script.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _future_flags(module: ModuleType) -> int:
    """The ``__future__`` flags ``module``'s own code is compiled with, which a script it
    compiles or executes inherits."""
    flags = 0
    imported = vars(module)
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if imported.get(name) is feature:
            flags |= feature.compiler_flag
    return flags


class _Hooks:
    """The stand-ins for attrs' ``compile`` and dataclasses' ``exec``: each compiles as
    the generating module would, and either serves a recorded code object for the very
    script it was made from (an entry goes once served: a class is made once, and holds
    its code from then on) or, ``recording``, records what it compiled."""

    def __init__(
        self, attrs: AttrsTable, dataclasses: DataclassTable, *, recording: bool = False
    ) -> None:
        import dataclasses as dataclasses_module

        import attr._make

        self.attrs = attrs
        self.dataclasses = dataclasses
        self.recording = recording
        self.hits = 0
        self._attrs_flags = _future_flags(attr._make)
        self._dataclass_flags = _future_flags(dataclasses_module)

    def compile(self, source: Any, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or mode != "exec" or not isinstance(source, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = digest(source)
        entry = self.attrs.get(filename)
        if not self.recording and entry is not None and entry[0] == key:
            del self.attrs[filename]
            self.hits += 1
            return entry[1]
        code = builtins.compile(source, filename, mode, self._attrs_flags, True)
        if self.recording:
            self.attrs[filename] = (key, code)
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        if isinstance(source, str):
            key = digest(source)
            code = None if self.recording else self.dataclasses.pop(key, None)
            if code is not None:
                self.hits += 1
            else:
                code = builtins.compile(source, "<string>", "exec", self._dataclass_flags, True)
                if self.recording:
                    self.dataclasses[key] = code
            source = code
        builtins.exec(source, globals, locals)

    def hook(self) -> None:
        """Put these in place. Each compiles through a name in its module's globals
        (``compile``, ``exec``): a global of that name takes precedence over the builtin
        there, and nowhere else."""
        import dataclasses as dataclasses_module

        import attr._make

        attr._make.compile = self.compile  # type: ignore[attr-defined]
        dataclasses_module.exec = self.exec  # type: ignore[attr-defined]

    @staticmethod
    def unhook() -> None:
        """attrs and dataclasses compile with the builtins again."""
        import dataclasses as dataclasses_module

        import attr._make

        del attr._make.compile  # type: ignore[attr-defined]
        del dataclasses_module.exec  # type: ignore[attr-defined]


def _load(path: Path) -> tuple[AttrsTable, DataclassTable]:
    """The recorded code objects of ``path``; empty when it is missing, unreadable, or
    made by another interpreter."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}, {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}, {}
    try:
        tables = marshal.loads(memoryview(data)[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}, {}
    if not (isinstance(tables, tuple) and len(tables) == 2):
        return {}, {}
    attrs, dataclasses = tables
    if not (isinstance(attrs, dict) and isinstance(dataclasses, dict)):
        return {}, {}
    return (
        {
            name: entry
            for name, entry in attrs.items()
            if isinstance(name, str)
            and isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], bytes)
            and isinstance(entry[1], CodeType)
        },
        {
            key: code
            for key, code in dataclasses.items()
            if isinstance(key, bytes) and isinstance(code, CodeType)
        },
    )


def install(path: Path = CACHE_FILE) -> _Hooks | None:
    """Let attrs and dataclasses take the code they would compile from ``path`` where it
    was recorded (call before importing what defines their classes). None when ``path``
    holds nothing usable: they compile as usual."""
    attrs, dataclasses = _load(path)
    if not attrs and not dataclasses:
        return None
    served = _Hooks(attrs, dataclasses)
    served.hook()
    return served


def record(modules: Iterable[str] | None = None) -> tuple[AttrsTable, DataclassTable]:
    """Import ``modules`` (by default what the server imports before its first analysis,
    ``wfls.server`` and its ``ANALYSIS_MODULES``, and what ``wfls check`` adds) and return
    the code of every script attrs and dataclasses compiled meanwhile. Run in a fresh
    process: a class already made is not made again."""
    recorder = _Hooks({}, {}, recording=True)
    recorder.hook()
    try:
        if modules is None:
            from wfls import server

            modules = (*server.ANALYSIS_MODULES, *CHECK_MODULES)
        for name in modules:
            importlib.import_module(name)
    finally:
        recorder.unhook()
    return recorder.attrs, recorder.dataclasses


def write(tables: tuple[AttrsTable, DataclassTable], path: Path = CACHE_FILE) -> None:
    """Write ``tables`` to ``path`` atomically (a reader sees the old file or the new)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = importlib.util.MAGIC_NUMBER + marshal.dumps(tables)
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
    """``python -m wfls.generated_code [FILE]``: record and write (to ``FILE``, or beside
    the package's bytecode)."""
    args = sys.argv[1:] if argv is None else argv
    write(record(), Path(args[0]) if args else CACHE_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main())

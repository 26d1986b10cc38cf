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

cattrs does the same at run time: the protocol's converter writes and compiles a
structuring function for each class of a message the first time it meets one. Decoding
a full client's ``initialize`` (VS Code's, Neovim's) compiled 55 to 61 such scripts,
25 to 30 ms of the 45 to 60 ms that decoding took, before the server could answer. So
the recording also answers, in process, the ``initialize`` of a client that declares
every capability the protocol knows (``_every_value``), and the server hands the
scripts cattrs compiled meanwhile over to cattrs when it starts (``install_cattrs``;
``wfls check`` never imports cattrs, and must not start to).

Invariants, enforced in ``_Hooks``, ``_Compiler`` and ``_load``:

- a recorded code object is used only for a script identical to the one it was
  compiled from (the same BLAKE2b digest of its text, and for attrs and cattrs the
  same generated file name), so a class that changed, or a new version of a library, compiles as
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
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

_TAG = sys.implementation.cache_tag
CACHE_FILE = Path(__file__).parent / "__pycache__" / f"generated-code.{_TAG}.bin"

# What ``wfls check`` imports beyond what the server imports before its first analysis.
CHECK_MODULES = ("wfls.check_cmd",)

# attrs and cattrs: generated file name -> (digest of the script, code); dataclasses:
# digest -> code.
AttrsTable = dict[str, tuple[bytes, CodeType]]
DataclassTable = dict[bytes, CodeType]
Tables = tuple[AttrsTable, DataclassTable, AttrsTable]


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


class _Compiler:
    """The stand-in for one generating module's ``compile`` (attrs', cattrs'): it compiles
    as that module would, with its ``__future__`` flags, and either serves the code
    recorded under the script's generated file name for the very script it was made
    from (an entry goes once served: a class's function is made once, and held from then
    on) or, when recording, records what it compiled. A script without a name of its own
    (cattrs names some ``""``) is compiled as usual."""

    def __init__(self, hooks: _Hooks, table: AttrsTable, flags: int) -> None:
        self.hooks = hooks
        self.table = table
        self.flags = flags

    def __call__(self, source: Any, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or mode != "exec" or not isinstance(source, str) or not filename:
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = digest(source)
        entry = self.table.get(filename)
        if not self.hooks.recording and entry is not None and entry[0] == key:
            del self.table[filename]
            self.hooks.hits += 1
            return entry[1]
        code = builtins.compile(source, filename, mode, self.flags, True)
        if self.hooks.recording:
            self.table[filename] = (key, code)
        return code


class _Hooks:
    """The stand-ins for attrs' and cattrs' ``compile`` (``_Compiler``) and dataclasses'
    ``exec``, serving recorded code objects or, ``recording``, recording what they
    compile."""

    def __init__(
        self,
        attrs: AttrsTable,
        dataclasses: DataclassTable,
        cattrs: AttrsTable | None = None,
        *,
        recording: bool = False,
    ) -> None:
        import dataclasses as dataclasses_module

        import attr._make

        self.attrs = attrs
        self.dataclasses = dataclasses
        self.cattrs: AttrsTable = {} if cattrs is None else cattrs
        self.recording = recording
        self.hits = 0
        self.compile = _Compiler(self, attrs, _future_flags(attr._make))
        self._dataclass_flags = _future_flags(dataclasses_module)

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

    def hook_cattrs(self) -> None:
        """cattrs' generated functions too (imports cattrs: only for the server)."""
        import cattrs.gen

        cattrs.gen.compile = _Compiler(self, self.cattrs, _future_flags(cattrs.gen))  # type: ignore[attr-defined]

    @staticmethod
    def unhook() -> None:
        """attrs, cattrs and dataclasses compile with the builtins again."""
        import dataclasses as dataclasses_module

        import attr._make

        del attr._make.compile  # type: ignore[attr-defined]
        del dataclasses_module.exec  # type: ignore[attr-defined]
        cattrs_gen = sys.modules.get("cattrs.gen")
        if cattrs_gen is not None and "compile" in vars(cattrs_gen):
            del cattrs_gen.compile


_EMPTY: Tables = ({}, {}, {})


def _named(table: Any) -> AttrsTable:
    return {
        name: entry
        for name, entry in table.items()
        if isinstance(name, str)
        and isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[0], bytes)
        and isinstance(entry[1], CodeType)
    }


def _load(path: Path) -> Tables:
    """The recorded code objects of ``path``; empty when it is missing, unreadable, or
    made by another interpreter."""
    try:
        data = path.read_bytes()
    except OSError:
        return _EMPTY
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return _EMPTY
    try:
        tables = marshal.loads(memoryview(data)[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return _EMPTY
    if not (isinstance(tables, tuple) and len(tables) == 3):
        return _EMPTY
    attrs, dataclasses, cattrs = tables
    if not all(isinstance(table, dict) for table in tables):
        return _EMPTY
    return (
        _named(attrs),
        {
            key: code
            for key, code in dataclasses.items()
            if isinstance(key, bytes) and isinstance(code, CodeType)
        },
        _named(cattrs),
    )


_installed: _Hooks | None = None


def install(path: Path = CACHE_FILE) -> _Hooks | None:
    """Let attrs and dataclasses take the code they would compile from ``path`` where it
    was recorded (call before importing what defines their classes). None when ``path``
    holds nothing usable: they compile as usual."""
    global _installed
    attrs, dataclasses, cattrs = _load(path)
    if not attrs and not dataclasses and not cattrs:
        return None
    served = _installed = _Hooks(attrs, dataclasses, cattrs)
    served.hook()
    return served


def install_cattrs() -> None:
    """Let cattrs take the code it would compile from the file ``install`` read, if it
    read one (the server, before decoding its first message)."""
    if _installed is not None and _installed.cattrs:
        _installed.hook_cattrs()


def record(modules: Iterable[str] | None = None) -> Tables:
    """Import ``modules`` (by default what the server imports before its first analysis,
    ``wfls.server`` and its ``ANALYSIS_MODULES``, and what ``wfls check`` adds) and return
    the code of every script attrs and dataclasses compiled meanwhile; by default, also
    answer an ``initialize`` that declares every client capability (``_answer_initialize``)
    and add what cattrs compiled for it. Run in a fresh process: a class already made is
    not made again, nor a converter's function."""
    recorder = _Hooks({}, {}, recording=True)
    recorder.hook()
    try:
        answer = modules is None
        if modules is None:
            from wfls import server

            modules = (*server.ANALYSIS_MODULES, *CHECK_MODULES)
        for name in modules:
            importlib.import_module(name)
        if answer:
            _answer_initialize(recorder)
    finally:
        recorder.unhook()
    return recorder.attrs, recorder.dataclasses, recorder.cattrs


def _answer_initialize(recorder: _Hooks) -> None:
    """Have a fresh server decode and answer an ``initialize`` declaring every client
    capability, with cattrs recording what it compiles meanwhile (and only then: the
    capabilities are turned into JSON by a converter of their own beforehand)."""
    import asyncio
    import json

    from lsprotocol import converters, types

    from wfls.server import create_server

    converter = converters.get_converter()  # resolves the annotations ``_every_value`` reads
    capabilities = converter.unstructure(
        _every_value(types.ClientCapabilities), types.ClientCapabilities
    )
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": capabilities},
    }
    recorder.hook_cattrs()
    server = create_server()
    written: list[bytes] = []
    server.protocol.set_writer(_Sink(written))

    async def answer() -> None:
        server.protocol.handle_body(json.dumps(request).encode())
        for _ in range(1000):  # the answer is written by a task of the loop
            if written:
                return
            await asyncio.sleep(0)
        raise RuntimeError("the recording server did not answer initialize")

    asyncio.run(answer())


class _Sink:
    """Where the recording server writes its answer."""

    def __init__(self, written: list[bytes]) -> None:
        self.written = written

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        pass


_NOTHING = object()


def _every_value(kind: Any, depth: int = 0) -> Any:
    """A value of ``kind`` with every optional field of every protocol class in it filled
    (an attrs class's instance, a list of one item, an enumeration's first member, a
    union's first member that takes one); ``_NOTHING`` for a kind that has none (``Any``,
    a class nested too deep, one whose constructor refuses what was made)."""
    import enum
    import types as builtin_types
    import typing

    import attrs

    if depth > 12:
        return _NOTHING
    if isinstance(kind, type) and attrs.has(kind):
        values = {}
        for field in attrs.fields(kind):
            value = _every_value(field.type, depth + 1)
            if value is not _NOTHING:
                values[field.name] = value
        try:
            return kind(**values)
        except (TypeError, ValueError):
            return _NOTHING
    origin, members = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, builtin_types.UnionType):
        # a class first, so that its converter functions are made too
        ordered = sorted(members, key=lambda member: not attrs.has(member))
        for member in ordered:
            value = _every_value(member, depth + 1)
            if value is not _NOTHING:
                return value
        return _NOTHING
    if origin is typing.Literal:
        return members[0]
    if origin in (list, typing.Sequence, Sequence):
        item = _every_value(members[0], depth + 1) if members else _NOTHING
        return [] if item is _NOTHING else [item]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return next(iter(kind))
    simple: dict[Any, Any] = {bool: True, int: 1, float: 1.0, str: "x"}
    return simple.get(kind, _NOTHING)


def write(tables: Tables, path: Path = CACHE_FILE) -> None:
    """Write ``tables`` to ``path`` atomically (a reader sees the old file or the new)."""
    import tempfile  # (here: every start imports this module, and only the writer needs it)

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

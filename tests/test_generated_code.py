"""The code attrs and dataclasses generate, compiled ahead (``wfls.generated_code``):
served only for the very script it was compiled from, compiled as the generating module
would, ignored when unusable, and what the server and ``wfls check`` start with."""

from __future__ import annotations

import importlib.util
import marshal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wfls import generated_code
from wfls.generated_code import _Hooks

# In a fresh interpreter: take the code from FILE, import what the server and `wfls
# check` import, check that classes made from served code behave, and print how many
# scripts were served, how many distinct attrs scripts were asked for (leaving out those
# that differ in every process: a hash seeded by the process's string hashes), how many
# distinct dataclass scripts, and how many seeded attrs scripts.
_SERVED = """
import sys
from pathlib import Path
from wfls import generated_code

served = generated_code.install(Path(sys.argv[1]))
assert served is not None
import attr._make, dataclasses
attrs_asked, dataclass_asked, seeded = set(), set(), set()
def compile_counting(source, filename, *args):
    (seeded if "def __hash__" in source else attrs_asked).add(filename)
    return served.compile(source, filename, *args)
def exec_counting(source, *args):
    dataclass_asked.add(source)
    return served.exec(source, *args)
attr._make.compile = compile_counting
dataclasses.exec = exec_counting
from wfls import server
import importlib
for name in (*server.ANALYSIS_MODULES, *generated_code.CHECK_MODULES):
    importlib.import_module(name)

import attrs
from lsprotocol import types
a = types.Position(line=1, character=2)
assert a == types.Position(line=1, character=2) and a != types.Position(line=1, character=3)
assert attrs.evolve(a, line=5) == types.Position(line=5, character=2)
assert repr(types.MarkupContent(kind="plaintext", value="v")).startswith("MarkupContent(")
assert not hasattr(a, "__dict__")

from wf_core.spans import Span
assert Span(1, 2) == Span(1, 2) and hash(Span(1, 2)) == hash(Span(1, 2))
assert repr(Span(1, 2)) == "Span(start=1, end=2)"
# compiled without the annotations future of this test's module: the field types as
# the record's module wrote them, not the names of the generated code's locals
assert Span.__init__.__annotations__ == {"start": "int", "end": "int", "return": None}
try:
    Span(2, 1)
except ValueError:
    pass
else:
    raise AssertionError("__post_init__ did not run")
print(served.hits, len(attrs_asked), len(dataclass_asked), len(seeded))
"""


def _run(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_recorded_file_serves_every_script_the_server_and_check_compile(
    tmp_path: Path,
) -> None:
    path = tmp_path / "generated-code.bin"
    _run(
        "import sys; from wfls import generated_code; generated_code.main(sys.argv[1:])", str(path)
    )
    attrs, dataclasses, _cattrs = generated_code._load(path)
    assert len(attrs) > 500  # the protocol library alone makes some 570 classes
    assert len(dataclasses) > 300  # the analysis's records among them
    hits, attrs_asked, dataclass_asked, seeded = map(int, _run(_SERVED, str(path)).split())
    assert 0 < seeded < 20
    assert len(attrs) == attrs_asked + seeded
    assert len(dataclasses) == dataclass_asked
    assert hits == attrs_asked + dataclass_asked


# In a fresh interpreter: take the code from FILE; decode the ``initialize`` of the
# client PRESET as the server does, and print how many cattrs scripts were served and
# how many compiled (the capabilities are turned into JSON before the server starts).
_DECODED = """
import json, sys
from pathlib import Path
from wfls import generated_code

served = generated_code.install(Path(sys.argv[1]))
assert served is not None and "cattrs" not in sys.modules  # (`wfls check` never needs it)
import pytest_lsp
from lsprotocol import converters
capabilities = converters.get_converter().unstructure(pytest_lsp.client_capabilities(sys.argv[2]))
from wfls.server import create_server
server = create_server()
import cattrs.gen
compiled = []
serve = cattrs.gen.compile
def counting(source, filename, *args):
    hits = served.hits
    code = serve(source, filename, *args)
    if served.hits == hits:
        compiled.append(filename)
    return code
cattrs.gen.compile = counting
before = served.hits
request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "processId": None, "rootUri": None, "capabilities": capabilities}}
server.protocol.structure_message(request)
print(served.hits - before, len(compiled))
"""


@pytest.mark.parametrize("preset", ["visual-studio-code", "neovim"])
def test_a_recorded_file_serves_every_converter_function_a_full_clients_initialize_needs(
    tmp_path: Path, preset: str
) -> None:
    path = tmp_path / "generated-code.bin"
    _run(
        "import sys; from wfls import generated_code; generated_code.main(sys.argv[1:])", str(path)
    )
    _attrs, _dataclasses, cattrs = generated_code._load(path)
    assert len(cattrs) > 60
    assert all(name.startswith("<cattrs generated ") for name in cattrs)
    served, compiled = map(int, _run(_DECODED, str(path), preset).split())
    assert served > 50 and compiled == 0


def test_every_capability_is_declared_by_the_recording_client() -> None:
    """The client whose ``initialize`` is recorded declares something in every field of
    every capability class (a class the recording never meets would be compiled when a
    client declares it) but those of any JSON value (``experimental``)."""
    import typing

    import attrs
    from lsprotocol import converters, types

    converters.get_converter()  # (resolves the protocol classes' annotations, as there)
    client = generated_code._every_value(types.ClientCapabilities)
    unset: list[str] = []

    def walk(value: Any, where: str) -> None:
        if attrs.has(type(value)):
            for field in attrs.fields(type(value)):
                inner = getattr(value, field.name)
                if inner is None and typing.Any not in typing.get_args(field.type):
                    unset.append(f"{where}.{field.name}")
                walk(inner, f"{where}.{field.name}")
        elif isinstance(value, list):
            for item in value:
                walk(item, where)

    walk(client, "capabilities")
    assert unset == []


def _served(
    attrs: dict[str, Any] | None = None, dataclasses: dict[str, Any] | None = None
) -> _Hooks:
    return _Hooks(attrs or {}, dataclasses or {})


def test_an_attrs_script_that_changed_is_compiled_not_served() -> None:
    stale = compile("def __init__(self):\n    self.x = 1\n", "<attrs generated C>", "exec")
    recorded = generated_code.digest("def __init__(self): pass\n")
    served = _served(attrs={"<attrs generated C>": (recorded, stale)})
    namespace: dict[str, Any] = {}
    exec(
        served.compile("def __init__(self):\n    self.x = 2\n", "<attrs generated C>", "exec"),
        namespace,
    )

    class C:
        x = 0

    instance = C()
    namespace["__init__"](instance)
    assert (instance.x, served.hits) == (2, 0)
    assert served.compile("def __init__(self): pass\n", "<attrs generated C>", "exec") is stale
    assert served.hits == 1 and served.attrs == {}  # served once: a class is made once
    again = served.compile("def __init__(self): pass\n", "<attrs generated C>", "exec")
    assert again is not stale and served.hits == 1


def test_a_dataclass_script_is_served_for_its_very_text_and_compiled_as_dataclasses_would() -> None:
    recorded = compile("def f():\n    return 'recorded'\n", "<string>", "exec")
    served = _served(dataclasses={generated_code.digest("def f():\n    return 1\n"): recorded})
    namespace: dict[str, Any] = {}
    served.exec("def f():\n    return 2\n", {}, namespace)
    assert (namespace["f"](), served.hits) == (2, 0)
    served.exec("def f():\n    return 1\n", {}, namespace)
    assert (namespace["f"](), served.hits) == ("recorded", 1)
    # dataclasses' module has no annotations future: the annotations are evaluated, as
    # they are when dataclasses runs the script itself (this module has the future)
    served.exec("def g(x: int) -> str:\n    pass\n", {}, namespace)
    assert namespace["g"].__annotations__ == {"x": int, "return": str}


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not bytecode",
        importlib.util.MAGIC_NUMBER,  # nothing after the header
        importlib.util.MAGIC_NUMBER + marshal.dumps(({"x": (b"s", 1)}, {}, {}))[:-3],  # cut short
        importlib.util.MAGIC_NUMBER + marshal.dumps(["a list"]),
        importlib.util.MAGIC_NUMBER + marshal.dumps(({"x": (b"s", "not code")}, {b"s": 1}, {})),
        # a file of the two tables before cattrs' was added
        importlib.util.MAGIC_NUMBER + marshal.dumps(({}, {b"s": compile("", "x", "exec")})),
        b"\x00\x00\r\n" + marshal.dumps(({}, {b"s": compile("", "x", "exec")}, {})),  # another
    ],
    ids=[
        "empty",
        "garbage",
        "header only",
        "cut short",
        "a list",
        "no code",
        "two tables",
        "other magic",
    ],
)
def test_an_unusable_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    import dataclasses

    import attr._make

    path = tmp_path / "generated-code.bin"
    path.write_bytes(content)
    assert generated_code._load(path) == ({}, {}, {})
    assert generated_code.install(path) is None
    assert generated_code.install(tmp_path / "missing.bin") is None
    # attrs and dataclasses compile as they always do
    assert "compile" not in vars(attr._make) and "exec" not in vars(dataclasses)


def test_the_written_file_is_readable_by_all_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "generated-code.bin"
    code = compile("x = 1\n", "<attrs generated D>", "exec")
    tables = (
        {"<attrs generated D>": (generated_code.digest("x = 1\n"), code)},
        {generated_code.digest("y = 2\n"): code},
        {"<cattrs generated E>": (generated_code.digest("z = 3\n"), code)},
    )
    generated_code.write(tables, path)
    generated_code.write(tables, path)
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["generated-code.bin"]  # no temporaries
    attrs, dataclasses, cattrs = generated_code._load(path)
    assert attrs["<attrs generated D>"][0] == generated_code.digest("x = 1\n")
    assert set(dataclasses) == {generated_code.digest("y = 2\n")}
    assert cattrs["<cattrs generated E>"][0] == generated_code.digest("z = 3\n")

"""The code attrs generates, compiled ahead (``wfls.attrs_code``): served only for the
very script it was compiled from, ignored when unusable, and what the server starts with."""

from __future__ import annotations

import importlib.util
import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from wfls import attrs_code

# In a fresh interpreter: take the code from FILE, import what the server imports, check
# that classes made from served code behave (construction, equality, evolve, repr, slots), and
# print whether the file was taken, how many scripts it served and how many distinct
# scripts attrs compiled, leaving out those that differ in every process (a hash seeded
# by the process's string hashes)
_SERVED = """
import sys
from pathlib import Path
from wfls import attrs_code

hits = [0]
installed = attrs_code.install(Path(sys.argv[1]), hits)
import attr._make
served = attr._make.compile
asked = set()  # the scripts attrs compiled, but for those seeded by this process's hashes
def counting(source, filename, *args):
    if "def __hash__" not in source:
        asked.add(filename)
    return served(source, filename, *args)
attr._make.compile = counting
from wfls import server
import importlib
for name in server.ANALYSIS_MODULES:
    importlib.import_module(name)
from lsprotocol import types
a = types.Position(line=1, character=2)
assert a == types.Position(line=1, character=2) and a != types.Position(line=1, character=3)
import attrs
assert attrs.evolve(a, line=5) == types.Position(line=5, character=2)
assert repr(types.MarkupContent(kind="plaintext", value="v")).startswith("MarkupContent(")
assert not hasattr(a, "__dict__")
print(installed, hits[0], len(asked))
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


def test_a_recorded_file_serves_every_script_the_server_compiles(tmp_path: Path) -> None:
    path = tmp_path / "attrs-code.bin"
    _run(
        "import sys; from pathlib import Path; from wfls import attrs_code; "
        "attrs_code.main([sys.argv[1]])",
        str(path),
    )
    recorded = attrs_code._load(path)
    assert len(recorded) > 500  # the protocol library alone makes some 570 classes
    installed, hits, asked = _run(_SERVED, str(path)).split()
    assert installed == "True"
    assert int(hits) == int(asked)
    seeded = [script for script, _ in recorded.values() if "def __hash__" in script]
    assert 0 < len(seeded) < 20
    assert len(recorded) == int(asked) + len(seeded)


def test_a_script_that_changed_is_compiled_not_served() -> None:
    stale = compile("def __init__(self):\n    self.x = 1\n", "<attrs generated C>", "exec")
    table: attrs_code.Table = {"<attrs generated C>": ("def __init__(self): pass\n", stale)}
    hits = [0]
    compile_script = attrs_code._cached_compile(table, hits)
    source = "def __init__(self):\n    self.x = 2\n"
    namespace: dict[str, object] = {}
    exec(compile_script(source, "<attrs generated C>", "exec"), namespace)

    class C:
        pass

    instance = C()
    namespace["__init__"](instance)  # type: ignore[operator]
    assert (instance.x, hits) == (2, [0])  # type: ignore[attr-defined]
    assert compile_script("def __init__(self): pass\n", "<attrs generated C>", "exec") is stale
    assert hits == [1]
    assert table == {}  # served once: the class is made once
    again = compile_script("def __init__(self): pass\n", "<attrs generated C>", "exec")
    assert again is not stale and hits == [1]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not bytecode",
        importlib.util.MAGIC_NUMBER,  # nothing after the header
        importlib.util.MAGIC_NUMBER + marshal.dumps({"x": ("s", 1)})[:-3],  # cut short
        importlib.util.MAGIC_NUMBER + marshal.dumps(["a list"]),
        importlib.util.MAGIC_NUMBER + marshal.dumps({"x": ("s", "not code")}),
        b"\x00\x00\r\n" + marshal.dumps({"x": ("s", compile("", "x", "exec"))}),  # another
    ],
    ids=["empty", "garbage", "header only", "cut short", "a list", "no code", "other magic"],
)
def test_an_unusable_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    import attr._make

    path = tmp_path / "attrs-code.bin"
    path.write_bytes(content)
    assert attrs_code._load(path) == {}
    assert attrs_code.install(path) is False
    assert attrs_code.install(tmp_path / "missing.bin") is False
    assert "compile" not in vars(attr._make)  # attrs compiles as it always does


def test_the_written_file_is_readable_by_all_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "attrs-code.bin"
    code = compile("x = 1\n", "<attrs generated D>", "exec")
    attrs_code.write({"<attrs generated D>": ("x = 1\n", code)}, path)
    attrs_code.write({"<attrs generated D>": ("x = 1\n", code)}, path)
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["attrs-code.bin"]  # no temporaries
    assert attrs_code._load(path)["<attrs generated D>"][0] == "x = 1\n"

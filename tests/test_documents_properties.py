"""Property tests: valid documents parse like tomllib/json; random edits never break parsing.

The source-map checks decode the text under each string literal's character
ranges again and compare with the value, so every range is checked against the
text it covers.
"""

from __future__ import annotations

import json
import random
import re
import tomllib
from datetime import date, datetime, time
from typing import Any
from unittest import mock

import tomlkit
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wf_core.base.edits import Edit, region_of
from wf_core.documents import (
    DocumentParser,
    ParsedDocument,
    json_syntax,
    parse_document,
    toml_syntax,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_chars = st.characters(exclude_categories=("Cs",))
_keys = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True),
    st.text(alphabet=st.sampled_from(list("ab .\"'\\é😀$#=[]\t")), min_size=0, max_size=6),
)
_scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(alphabet=_chars, max_size=12),
    st.dates(),
    st.datetimes(),
    st.times(),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_keys, inner, max_size=4),
    ),
    max_leaves=20,
)
_documents = st.dictionaries(_keys, _values, max_size=6)

_BARE = re.compile(r"[A-Za-z0-9_-]+")


# -- a hand-rolled TOML writer: dotted keys, inline tables, [tables], [[arrays]] --


def _toml_key(key: str, rnd: random.Random) -> str:
    if _BARE.fullmatch(key) and rnd.random() < 0.8:
        return key
    if "'" not in key and not re.search(r"[\x00-\x1f\x7f]", key) and rnd.random() < 0.3:
        return f"'{key}'"
    return _basic(key, rnd)


def _escape_char(ch: str, rnd: random.Random, multiline: bool) -> str:
    code = ord(ch)
    if ch in '"\\':
        return "\\" + ch
    if ch == "\n" and multiline:
        return ch
    if code < 0x20 or code == 0x7F:
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, f"\\u{code:04x}")
    if code > 0x7F and rnd.random() < 0.3:
        return (
            f"\\U{code:08X}" if rnd.random() < 0.5 else (f"\\u{code:04X}" if code < 0x10000 else ch)
        )
    return ch


def _basic(text: str, rnd: random.Random) -> str:
    return '"' + "".join(_escape_char(ch, rnd, False) for ch in text) + '"'


def _toml_string(text: str, rnd: random.Random) -> str:
    style = rnd.randrange(4)
    clean = not re.search(r"[\x00-\x08\x0a-\x1f\x7f]", text)
    if style == 1 and clean and "'" not in text:
        return f"'{text}'"
    ml_clean = not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    if style == 2 and ml_clean and "'''" not in text and not text.endswith("'"):
        return "'''\n" + text + "'''"
    if style == 3:
        pieces = [_escape_char(ch, rnd, True) for ch in text]
        cut = rnd.randrange(len(pieces) + 1)
        # A line-ending backslash trims the whitespace after it, so cut only
        # between whole escapes and before a character it would not trim.
        if cut < len(pieces) and pieces[cut] not in (" ", "\t", "\n"):
            pieces.insert(cut, "\\\n   \t")
            return '"""\n' + "".join(pieces) + '"""'
        return '"""\n' + "".join(pieces) + '"""'
    return _basic(text, rnd)


def _toml_scalar(value: Any, rnd: random.Random) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value >= 0 and rnd.random() < 0.3:
            return rnd.choice([hex, oct, bin])(value)
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value, rnd)
    if isinstance(value, datetime):
        return value.isoformat(sep=rnd.choice("T "))
    if isinstance(value, date | time):
        return value.isoformat()
    raise AssertionError(value)


def _inline(value: Any, rnd: random.Random) -> str:
    if isinstance(value, dict):
        pairs = [f"{_toml_key(k, rnd)} = {_inline(v, rnd)}" for k, v in value.items()]
        return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
    if isinstance(value, list):
        sep = ",\n  " if rnd.random() < 0.3 else ", "
        items = sep.join(_inline(v, rnd) for v in value)
        trailing = "," if value and rnd.random() < 0.3 else ""
        return f"[{items}{trailing}]"
    return _toml_scalar(value, rnd)


def _dotted(prefix: list[str], value: dict, rnd: random.Random, out: list[str]) -> None:
    for key, item in value.items():
        path = [*prefix, _toml_key(key, rnd)]
        if isinstance(item, dict) and item and rnd.random() < 0.6:
            _dotted(path, item, rnd, out)
        else:
            out.append(f"{'.'.join(path)} = {_inline(item, rnd)}")


def _write_table(path: list[str], table: dict, rnd: random.Random, out: list[str]) -> None:
    later: list[tuple[str, str, Any]] = []
    for key, value in table.items():
        written = _toml_key(key, rnd)
        if isinstance(value, dict) and value:
            mode = rnd.choice(["inline", "dotted", "section"])
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            mode = rnd.choice(["inline", "aot"])
        else:
            mode = "inline"
        if mode == "inline":
            out.append(f"{written} = {_inline(value, rnd)}")
        elif mode == "dotted":
            _dotted([written], value, rnd, out)
        else:
            later.append((mode, written, value))
    for mode, written, value in later:
        sub = [*path, written]
        if mode == "section":
            out.append(f"\n[{'.'.join(sub)}]  # section")
            _write_table(sub, value, rnd, out)
        else:
            for element in value:
                out.append(f"\n[[ {' . '.join(sub)} ]]")
                _write_table(sub, element, rnd, out)


def _hand_written(doc: dict, rnd: random.Random) -> str:
    out: list[str] = ["# generated é 😀"]
    _write_table([], doc, rnd, out)
    return "\n".join(out) + "\n"


# -- checks --------------------------------------------------------------------


def _check_strings(parsed: ParsedDocument, syntax: str) -> None:
    text = parsed.text
    sm = parsed.source_map
    for loc in sm.locations():
        literal = sm.string(loc)
        if literal is None:
            continue
        value = literal.value
        assert (
            literal.span.start <= literal.content.start <= literal.content.end <= literal.span.end
        )
        for i, ch in enumerate(value):
            fragment = literal.doc_span(i, i + 1).slice(text)
            if fragment == ch or (fragment == "\r\n" and ch == "\n"):
                continue
            if syntax == "json":
                assert json.loads(f'"{fragment}"') == ch
            else:
                assert literal.style in ("basic", "multiline_basic"), (fragment, ch)
                assert tomllib.loads(f'x = "{fragment}"')["x"] == ch


def _check_entries(parsed: ParsedDocument) -> None:
    text = parsed.text
    for loc, entry in parsed.source_map.items():
        assert 0 <= entry.value.start <= entry.value.end <= len(text)
        if entry.key is not None:
            key_text = entry.key.slice(text)
            assert key_text
            if parsed.syntax == "json":
                assert json.loads(key_text) == loc[-1]
            elif _BARE.fullmatch(key_text) is None:
                assert tomllib.loads(f"{key_text} = 1") == {loc[-1]: 1}
            else:
                assert key_text == loc[-1]


@SETTINGS
@given(_documents)
def test_tomlkit_documents_parse_like_tomllib(doc: dict) -> None:
    try:
        text = tomlkit.dumps(doc)
        expected = tomllib.loads(text)
    except Exception:  # the writer cannot express this document; nothing to compare
        assume(False)
        raise
    parsed = parse_document(text, "toml")
    assert parsed.issues == ()
    assert parsed.values == expected
    _check_strings(parsed, "toml")
    _check_entries(parsed)


@SETTINGS
@given(_documents, st.randoms(use_true_random=False))
def test_hand_written_documents_parse_like_tomllib(doc: dict, rnd: random.Random) -> None:
    text = _hand_written(doc, rnd)
    expected = tomllib.loads(text)
    parsed = parse_document(text, "toml")
    assert parsed.issues == (), (text, parsed.issues)
    assert parsed.values == expected
    _check_strings(parsed, "toml")
    _check_entries(parsed)


_json_scalars = st.one_of(
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@SETTINGS
@given(
    st.dictionaries(st.text(max_size=6), _json_values, max_size=6),
    st.sampled_from([None, 0, 2, "\t"]),
    st.booleans(),
)
def test_json_documents_parse_like_json_loads(doc: dict, indent, ensure_ascii: bool) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=ensure_ascii)
    parsed = parse_document(text, "json")
    assert parsed.issues == ()
    assert parsed.values == json.loads(text)
    _check_strings(parsed, "json")
    _check_entries(parsed)


# -- random edits ----------------------------------------------------------------

WORKFLOW_TOML = """\
name = "billing"  # é
start = "customers"
outcomes = ["ok"]
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[[nodes]]
id = "customers"
over = "input.customers"
as = "customer"

[[nodes]]
id = "charge"
input = [
  { target = "order", path = 'context.foreach."orders.v2".item' },
  { target = "customer", path = "context.foreach.customers.item.name" },
]
s = \"\"\"
multi \\
  line 😀\"\"\"
"""
WORKFLOW_JSON = json.dumps(tomllib.loads(WORKFLOW_TOML), indent=2, ensure_ascii=False)

_edit_chars = st.text(
    alphabet=st.sampled_from(list("\"'[]{}=,.:\n #\\é😀abxu0\t\r")), min_size=1, max_size=4
)
_edits = st.lists(
    st.tuples(st.booleans(), st.floats(min_value=0, max_value=1), _edit_chars, st.integers(1, 8)),
    min_size=1,
    max_size=6,
)


def _edit(text: str, edit: tuple[bool, float, str, int]) -> Edit:
    insert, where, chars, width = edit
    pos = int(where * len(text))
    if insert:
        return Edit(pos, pos, chars)
    return Edit(pos, min(pos + width, len(text)), "")


def _same(a: ParsedDocument, b: ParsedDocument) -> None:
    assert repr(a.values) == repr(b.values)
    assert a.issues == b.issues
    assert list(a.source_map.items()) == list(b.source_map.items())
    for offset in range(0, len(a.text) + 1, max(1, len(a.text) // 25)):
        assert a.source_map.locate(offset) == b.source_map.locate(offset)


def _same_in_full(a: ParsedDocument, b: ParsedDocument) -> None:
    """``_same``, and every location's string literal and children too."""
    _same(a, b)
    for loc in b.source_map.locations():
        assert a.source_map.string(loc) == b.source_map.string(loc)
        assert a.source_map.children(loc) == b.source_map.children(loc)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["toml", "json"]), _edits)
def test_random_edits_never_raise_and_incremental_equals_scratch(syntax, edits) -> None:
    text = WORKFLOW_TOML if syntax == "toml" else WORKFLOW_JSON
    parser = DocumentParser(syntax)
    parser.parse(text)
    for edit in edits:
        change = _edit(text, edit)
        text = change.apply(text)
        incremental = parser.parse(text, change.region)
        scratch = parse_document(text, syntax)
        _same(incremental, scratch)
        for issue in scratch.issues:
            assert issue.span is not None and 0 <= issue.span.start <= issue.span.end <= len(text)
        for _loc, entry in scratch.source_map.items():
            assert 0 <= entry.value.start <= entry.value.end <= len(text)
        if not scratch.issues and syntax == "toml":
            assert repr(scratch.values) == repr(tomllib.loads(text))


# -- reuse: the fast reader and chunk placement change nothing --------------------


def _general_path_only():
    """Convert every statement the general way (tree reader + table builder)."""
    return mock.patch.object(toml_syntax, "read_chunk", lambda _text, _section: None)


@SETTINGS
@given(_documents, st.randoms(use_true_random=False))
def test_fast_reader_builds_what_the_general_path_builds(doc: dict, rnd: random.Random) -> None:
    text = _hand_written(doc, rnd)
    fast = parse_document(text, "toml")
    with _general_path_only():
        general = parse_document(text, "toml")
    _same_in_full(fast, general)


SECTIONS_TOML = (
    WORKFLOW_TOML
    + """
[input_schema."$defs".customer]
type = "object"
properties.name = { type = "string" }

[[nodes]]
id = "n3"
output = [{ source = "amount", target = "state.total" }]

[[nodes]]
id = "n4"
input = [
  { target = "x", path = "context.n3.amount" },  # comment
]

[nodes.extra]
flag = true
"""
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edits)
def test_random_edits_across_sections_equal_scratch(edits) -> None:
    """Parsed after every second edit: the region given is that of both."""
    text = SECTIONS_TOML
    parser = DocumentParser("toml")
    previous = parser.parse(text)
    snapshot = repr(previous.values)
    pending: list[Edit] = []
    for number, edit in enumerate(edits, start=1):
        change = _edit(text, edit)
        text = change.apply(text)
        pending.append(change)
        if number % 2 and number < len(edits):
            continue
        incremental = parser.parse(text, region_of(pending))
        pending = []
        _same(incremental, parse_document(text, "toml"))
        # reused objects are shared, never written into
        assert repr(previous.values) == snapshot
        previous, snapshot = incremental, repr(incremental.values)


# JSON: units (top-level member values, elements of ``nodes``/``edges``/...) are
# chunks; placing them must read exactly what reading them in place reads.
NODES_JSON = json.dumps(
    {
        **json.loads(WORKFLOW_JSON),
        "nodes": [
            *json.loads(WORKFLOW_JSON)["nodes"],
            {"id": "n3", "output": [{"source": "amount", "target": "state.total"}]},
            {"id": "n4", "input": [{"target": "x", "path": "context.n3.amount"}], "n": [1, {}]},
            "not an object",
            [],
        ],
        "output": [{"source": "a", "target": "b"}],
    },
    indent=2,
    ensure_ascii=False,
)


def _read_in_place():
    """Read every unit where it stands: no chunk is placed."""
    return mock.patch.object(json_syntax._Chunks, "place", lambda *_args, **_kwargs: None)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edits)
def test_random_json_edits_chunks_equal_reading_in_place(edits) -> None:
    text = NODES_JSON
    parser = DocumentParser("json")
    previous = parser.parse(text)
    snapshot = repr(previous.values)
    for edit in edits:
        change = _edit(text, edit)
        text = change.apply(text)
        incremental = parser.parse(text, change.region)
        scratch = parse_document(text, "json")
        with _read_in_place():
            in_place = parse_document(text, "json")
        _same(incremental, scratch)
        _same_in_full(incremental, in_place)
        # reused objects are shared, never written into
        assert repr(previous.values) == snapshot
        previous, snapshot = incremental, repr(incremental.values)

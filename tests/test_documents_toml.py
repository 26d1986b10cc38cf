"""TOML front-end: values, source ranges, syntax errors with ranges, error tolerance."""

from __future__ import annotations

import math
import tomllib
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest

from wf_core.base.edits import edit_between
from wf_core.base.issues import Severity
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser, Kind, parse_document, syntax_for_path

SPEC = Path("/work/shared/spec/workflow-format.md")
EXAMPLE = """\
# billing.wf.toml — é 😀
name = "billing"
start = "customers"
outcomes = ["ok"]
edges = [
  { from = "customers", outcome = "loop", to = "orders.v2" },
]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { "$ref" = "#/$defs/customer" } }

[input_schema."$defs".customer]
type = "object"

[[nodes]]
id = "customers"
over = "input.customers"

[[nodes]]
id = "charge"
input = [
  { target = "order", path = 'context.foreach."orders.v2".item' },
]
"""


def _messages(text: str) -> list[str]:
    return [issue.message for issue in parse_document(text, "toml").issues]


def test_syntax_for_path() -> None:
    assert syntax_for_path("a/billing.wf.toml") == "toml"
    assert syntax_for_path("billing.WF.JSON") == "json"
    assert syntax_for_path("x.toml") == "toml"
    assert syntax_for_path("x.json") == "json"
    assert syntax_for_path("x.yaml") is None


def test_example_values_match_tomllib_and_ranges_cover_their_text() -> None:
    doc = parse_document(EXAMPLE, "toml")
    assert doc.issues == ()
    assert doc.values == tomllib.loads(EXAMPLE)
    sm = doc.source_map

    def key(loc):
        entry = sm.get(loc)
        assert entry is not None and entry.key is not None
        return entry.key.slice(EXAMPLE)

    def value(loc):
        entry = sm.get(loc)
        assert entry is not None
        return entry.value.slice(EXAMPLE)

    assert key(("name",)) == "name" and value(("name",)) == '"billing"'
    assert value(("outcomes",)) == '["ok"]' and value(("outcomes", 0)) == '"ok"'
    assert sm.get(("outcomes", 0)).key is None  # type: ignore[union-attr]
    assert value(("edges", 0)).startswith("{ from") and value(("edges", 0)).endswith("}")
    assert key(("edges", 0, "from")) == "from"
    assert key(("input_schema", "properties", "customers")) == "customers"
    assert key(("input_schema", "properties")) == "properties"
    assert (
        value(("input_schema", "properties", "customers", "items", "$ref")) == '"#/$defs/customer"'
    )
    assert key(("input_schema", "properties", "customers", "items", "$ref")) == '"$ref"'
    assert key(("input_schema",)) == "input_schema"
    assert value(("input_schema",)).startswith("[input_schema]\n")
    assert value(("input_schema",)).endswith('"#/$defs/customer" } }')
    assert key(("input_schema", "$defs", "customer")) == "customer"
    assert value(("input_schema", "$defs", "customer")) == (
        '[input_schema."$defs".customer]\ntype = "object"'
    )
    assert sm.get(("nodes", 1)).key is None  # type: ignore[union-attr]
    assert value(("nodes", 1)).startswith('[[nodes]]\nid = "charge"')
    assert value(("nodes", 1)).endswith("]")
    assert key(("nodes",)) == "nodes"
    assert sm.get(("nodes", 0)).kind is Kind.OBJECT  # type: ignore[union-attr]
    assert sm.get(("nodes",)).kind is Kind.ARRAY  # type: ignore[union-attr]
    literal = sm.string(("nodes", 1, "input", 0, "path"))
    assert (
        literal is not None
        and literal.span.slice(EXAMPLE) == "'context.foreach.\"orders.v2\".item'"
    )
    start = literal.value.index('"')
    assert literal.doc_span(start, start + 11).slice(EXAMPLE) == '"orders.v2"'
    assert set(sm.locations()) >= {("name",), ("nodes", 1, "input", 0, "path")}


def test_spec_example_parses_like_tomllib() -> None:
    text = SPEC.read_text().split("```toml\n")[1].split("```")[0]
    doc = parse_document(text, "toml")
    assert doc.issues == ()
    assert doc.values == tomllib.loads(text)


def test_scalars() -> None:
    text = """\
hex = 0xDEAD_beef
oct = 0o755
bin = 0b1101
dec = -1_000
flt = 6.626e-34
exp = 1E+06
pinf = +inf
ninf = -inf
nan = nan
t = true
f = false
odt = 1979-05-27T07:32:00.999999999-07:00
odz = 1979-05-27 07:32:00Z
ldt = 1979-05-27T00:32:00.5
ld = 1979-05-27
lt = 07:32:00.25
"""
    doc = parse_document(text, "toml")
    assert doc.issues == ()
    v = doc.values
    assert (v["hex"], v["oct"], v["bin"], v["dec"]) == (0xDEADBEEF, 0o755, 0b1101, -1000)
    assert v["flt"] == 6.626e-34 and v["exp"] == 1e6
    assert v["pinf"] == math.inf and v["ninf"] == -math.inf and math.isnan(v["nan"])
    assert v["t"] is True and v["f"] is False
    tz = timezone(-timedelta(hours=7))
    assert v["odt"] == datetime(1979, 5, 27, 7, 32, 0, 999999, tzinfo=tz)
    assert v["odz"] == datetime(1979, 5, 27, 7, 32, tzinfo=UTC)
    assert v["ldt"] == datetime(1979, 5, 27, 0, 32, 0, 500000)
    assert v["ld"] == date(1979, 5, 27) and v["lt"] == time(7, 32, 0, 250000)
    expected = tomllib.loads(text)
    expected.pop("nan")
    v.pop("nan")
    assert v == expected
    assert doc.source_map.get(("odz",)).value.slice(text) == "1979-05-27 07:32:00Z"  # type: ignore[union-attr]
    assert doc.source_map.get(("ld",)).kind is Kind.DATETIME  # type: ignore[union-attr]


def test_all_string_kinds_like_tomllib() -> None:
    text = (
        'a = "tab\\there \\u00e9 \\U0001F600"\n'
        "b = 'C:\\Users\\x'\n"
        'c = """\nline1\n  line2 \\\n    joined""\\""""\n'
        "d = '''\nraw \\n ''text'''''\n"
        'e = """"quoted" ok"""\n'
    )
    doc = parse_document(text, "toml")
    assert doc.issues == ()
    assert doc.values == tomllib.loads(text)


def test_crlf_document() -> None:
    text = 'a = 1\r\ns = """\r\nx\r\ny"""\r\n[t]\r\nb = "z" # c\r\n'
    doc = parse_document(text, "toml")
    assert doc.issues == ()
    assert doc.values == tomllib.loads(text)


@pytest.mark.parametrize(
    ("text", "message", "covered"),
    [
        ('id = "a"\nid = "b"\n', "duplicate key 'id'", "id"),
        ("a.b = 1\na.b = 2\n", "duplicate key 'a.b'", "b"),
        ("a = 1\na.b = 2\n", "key 'a' already has a value", "a"),
        (
            "[input_schema]\n[input_schema]\n",
            "table 'input_schema' is defined twice",
            "input_schema",
        ),
        ("a.b = 1\n[a]\n", "table 'a' is already defined by dotted keys", "a"),
        ("a = { x = 1 }\n[a]\n", "table 'a' is an inline table and cannot be extended", "a"),
        ("a = { x = 1 }\n[a.b]\n", "inline table 'a' cannot be extended", "a"),
        ("a = { x.y = 1 }\n", None, None),
        ("a = { x.y = 1, x = 2 }\n", "duplicate key 'x'", "x"),
        ("a = [1]\n[[a]]\n", "array 'a' is a static array and cannot be extended with [[a]]", "a"),
        ("[a]\n[[a]]\n", "key 'a' is not an array of tables", "a"),
        ("[[a]]\n[a]\n", "'a' is an array of tables; add elements with [[a]]", "a"),
        (
            "[t.x]\n[t]\nx.y = 1\n",
            "table 'x' is already defined; dotted keys cannot add to it",
            "x",
        ),
        ('s = "bad \\q escape"\n', "invalid escape '\\q'", "\\q"),
        ('s = "\\uD800"\n', "escape '\\uD800' is not a Unicode scalar value", "\\uD800"),
        ("n = 012\n", "invalid number '012'", "012"),
        ("n = 1__2\n", "invalid number '1__2'", "1__2"),
        ("d = 1979-02-30\n", "invalid date or time '1979-02-30'", "1979-02-30"),
        ("v = nope\n", "invalid value 'nope' (strings need quotes)", "nope"),
        ("t = { a = 1, }\n", "a trailing comma is not allowed in an inline table", None),
        ("\ra = 1\n", "a carriage return without a line feed is not allowed here", "\r"),
        ("a = 1 # bell\x07\n", "control character in a comment", "\x07"),
        ('a = "bell\x07"\n', "control character U+0007 is not allowed in a string", "\x07"),
    ],
)
def test_semantic_and_value_errors_have_ranges(text: str, message, covered) -> None:
    doc = parse_document(text, "toml")
    if message is None:
        assert doc.issues == ()
        assert doc.values == tomllib.loads(text)
        return
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    issues = [i for i in doc.issues if i.message == message]
    assert issues, [i.message for i in doc.issues]
    issue = issues[0]
    assert issue.code == "syntax_error" and issue.model_path is None
    assert issue.severity is Severity.ERROR and issue.span is not None
    if covered is not None:
        assert issue.span.slice(text) == covered


@pytest.mark.parametrize(
    ("text", "message", "covered", "values"),
    [
        (
            '[[nodes]\nid = "x"\n',
            "table header is missing its closing ']]'",
            "[[nodes]",
            {"nodes": [{"id": "x"}]},
        ),
        (
            '[[nodes]]\nnode = = "x"\nid = "y"\n',
            "expected a value for key 'node'",
            '= "x"',
            {"nodes": [{"id": "y"}]},
        ),
        ("a = ?\nb = 1\n", "expected a value for key 'a'", "?", {"b": 1}),
        (
            'nodes = [{ node = = "x", id = "y" }]\n',
            "expected a value for key 'node'",
            '= "x"',
            {"nodes": [{"id": "y"}]},
        ),
        ("c =\nb = 1\n", "missing value for key 'c'", "=", {"b": 1}),
    ],
)
def test_one_mistake_is_one_syntax_error(text: str, message: str, covered: str, values) -> None:
    doc = parse_document(text, "toml")
    assert [(i.message, i.span.slice(text) if i.span else None) for i in doc.issues] == [
        (message, covered)
    ]
    assert doc.values == values


def test_duplicate_points_back_to_first_definition() -> None:
    text = '[[nodes]]\nid = "a"\nid = "b"\n'
    doc = parse_document(text, "toml")
    (issue,) = doc.issues
    assert issue.related and issue.related[0].span is not None
    assert issue.related[0].span.start == text.index("id")
    assert doc.values == {"nodes": [{"id": "a"}]}


def test_workflow_with_three_broken_nodes() -> None:
    text = """\
name = "w"  # é 😀

[[nodes]]
id = "first"
type = "foreach"
over = "context.fore
as = "item"

[[nodes]]
id = "second"
type = 42

[[nodes]]
id = "third"
type = "end"
id = "again"

[[nodes]]
id = "fourth"
input = [{ target = "t", path = "state.x" }]
"""
    doc = parse_document(text, "toml")
    index = LineIndex(text)
    found = [(i.message, index.position(i.span.start), i.span.slice(text)) for i in doc.issues]
    assert found == [
        ("unterminated string", (5, 7), '"context.fore'),
        ("duplicate key 'id'", (15, 0), "id"),
    ]
    nodes = doc.values["nodes"]
    assert [n["id"] for n in nodes] == ["first", "second", "third", "fourth"]
    assert nodes[0] == {"id": "first", "type": "foreach", "over": "context.fore", "as": "item"}
    assert nodes[1]["type"] == 42
    assert nodes[3]["input"] == [{"target": "t", "path": "state.x"}]
    literal = doc.source_map.string(("nodes", 0, "over"))
    assert literal is not None and not literal.closed
    assert literal.content.slice(text) == "context.fore"
    assert literal.doc_span(8, 12).slice(text) == "fore"
    found_at = doc.source_map.locate(text.index("context.fore") + 12)
    assert found_at is not None and found_at.location == ("nodes", 0, "over")
    assert doc.source_map.get(("nodes", 3, "input", 0, "path")).value.slice(text) == '"state.x"'  # type: ignore[union-attr]


def test_unterminated_string_inside_inline_table_in_array() -> None:
    text = """\
[[nodes]]
id = "charge"
input = [
  { target = "order", path = "context.fore
  { target = "customer", path = "x" },
]
output = 1
[[nodes]]
id = "z"
"""
    doc = parse_document(text, "toml")
    assert [i.message for i in doc.issues] == ["unterminated string"]
    assert doc.values == {
        "nodes": [
            {
                "id": "charge",
                "input": [
                    {"target": "order", "path": "context.fore"},
                    {"target": "customer", "path": "x"},
                ],
                "output": 1,
            },
            {"id": "z"},
        ]
    }
    literal = doc.source_map.string(("nodes", 0, "input", 0, "path"))
    assert literal is not None and literal.span.slice(text) == '"context.fore'


def test_unterminated_string_before_table_header_keeps_header() -> None:
    text = 'a = 1\nb = "x\n[t]\nc = 3\n'
    doc = parse_document(text, "toml")
    assert doc.values == {"a": 1, "b": "x", "t": {"c": 3}}
    assert [i.message for i in doc.issues] == ["unterminated string"]


@pytest.mark.parametrize("text", ["a = 1\n0.", "a.", "[t]\nx.", 'a = 1\n"k".'])
def test_a_problem_at_the_very_end_stays_inside_the_text(text: str) -> None:
    issues = parse_document(text, "toml").issues
    assert [issue.message for issue in issues][-1] == "expected a key after '.'"
    for issue in issues:
        assert issue.span is not None and 0 <= issue.span.start <= issue.span.end <= len(text)


def test_other_grammar_errors_keep_the_rest() -> None:
    text = 'a = "x" y\nb = 2\nc =\nd = [1, 2\ne = 3\n[bad\nf = { g = 1\nh = 4\n'
    doc = parse_document(text, "toml")
    messages = [i.message for i in doc.issues]
    assert "unexpected text after the value" in messages
    assert "missing value for key 'c'" in messages
    assert "array is not closed" in messages
    assert "table header is missing its closing ']'" in messages
    assert "inline table is not closed" in messages
    assert doc.values == {"a": "x", "b": 2, "d": [1, 2], "e": 3, "bad": {"f": {"g": 1}, "h": 4}}
    for issue in doc.issues:
        assert issue.span is not None and 0 <= issue.span.start <= issue.span.end <= len(text)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000,
        "a = " + "[" * 10_000 + "]" * 10_000 + "\n",
        "a = " + "{b = " * 5_000 + "1" + "}" * 5_000,
        "\x00\xff\x01garbage\x7f\ud800\n= = =\n[[[]]]\n'''",
        "a = " + '"' + "x" * 1_000_000 + '"\n',
        "a = [" + "1," * 200_000 + "]\n",
        '"""' * 7,
    ],
)
def test_pathological_inputs_never_crash(text: str) -> None:
    doc = parse_document(text, "toml")
    assert isinstance(doc.values, dict)
    for issue in doc.issues:
        assert issue.span is not None and issue.span.end <= len(text)
    parser = DocumentParser("toml")
    assert parser.parse(text).values == doc.values
    assert parser.parse(text[: len(text) // 2]).issues is not None


def test_too_deep_nesting_is_reported() -> None:
    text = "a = " + "[" * 500 + "]" * 500 + "\n"
    doc = parse_document(text, "toml")
    assert "nesting is too deep" in [i.message for i in doc.issues]


def test_incremental_parser_follows_edits() -> None:
    parser = DocumentParser("toml")
    first = parser.parse(EXAMPLE)
    assert first.issues == ()
    edited = EXAMPLE.replace('id = "charge"', 'id = "chärge😀"')
    second = parser.parse(edited, edit_between(EXAMPLE, edited).region)
    assert second.values == tomllib.loads(edited)
    assert second.source_map.get(("nodes", 1, "id")).value.slice(edited) == '"chärge😀"'  # type: ignore[union-attr]
    broken = edited.replace('over = "input.customers"', 'over = "input.cust')
    third = parser.parse(broken, edit_between(edited, broken).region)
    assert [i.message for i in third.issues] == ["unterminated string"]
    assert third.values["nodes"][0]["over"] == "input.cust"
    assert parser.parse(broken) is third
    assert parser.parse(EXAMPLE).values == first.values


# -- reuse across versions --------------------------------------------------------


def _workflow(nodes: int) -> str:
    parts = [
        'name = "big"\nstart = "n0"\nedges = [\n  { from = "n0", outcome = "ok", to = "n1" },\n]\n'
    ]
    parts.append('\n[input_schema]\ntype = "object"\nproperties.a = { type = "string" }\n')
    parts.append('\n[input_schema."$defs".x]\ntype = "object"\n')
    for i in range(nodes):
        parts.append(
            f'\n[[nodes]]\nid = "n{i}"\ntype = "node"\ninput = [\n'
            f'  {{ target = "a", path = \'context.foreach."n{i}.v2".item\' }},\n'
            f'  {{ target = "b", path = "context.n{i}.qty" }},\n]\n'
        )
    return "".join(parts)


def _assert_same_as_scratch(parsed) -> None:
    scratch = parse_document(parsed.text, "toml")
    assert repr(parsed.values) == repr(scratch.values)
    assert parsed.issues == scratch.issues
    assert list(parsed.source_map.items()) == list(scratch.source_map.items())
    for loc, _entry in scratch.source_map.items():
        assert parsed.source_map.string(loc) == scratch.source_map.string(loc)
    for offset in range(0, len(parsed.text) + 1, 7):
        assert parsed.source_map.locate(offset) == scratch.source_map.locate(offset)


def _insert(text: str, anchor: str, at: int, chars: str) -> str:
    pos = text.index(anchor) + at
    return text[:pos] + chars + text[pos:]


def test_edit_inside_one_node_keeps_every_other_node_object() -> None:
    text = _workflow(120)
    parser = DocumentParser("toml")
    first = parser.parse(text)
    edited = _insert(text, "context.n5.qty", 10, "x")
    second = parser.parse(edited)
    assert second.values["nodes"][5]["input"][1]["path"] == "context.n5x.qty"
    assert second.values["nodes"][5] is not first.values["nodes"][5]
    assert second.values["nodes"][90] is first.values["nodes"][90]
    assert second.values["nodes"][4] is first.values["nodes"][4]
    assert second.values["edges"] is first.values["edges"]
    # spans after the edit moved by one
    entry = second.source_map.get(("nodes", 90, "input", 1, "path"))
    assert entry is not None and entry.value.slice(edited) == '"context.n90.qty"'
    literal = second.source_map.string(("nodes", 90, "input", 0, "path"))
    assert literal is not None and literal.content.slice(edited) == 'context.foreach."n90.v2".item'
    _assert_same_as_scratch(second)
    # the previous version is untouched
    assert first.values == parse_document(text, "toml").values


def test_edit_inside_a_key_and_a_broken_node_keep_the_other_nodes() -> None:
    text = _workflow(60)
    parser = DocumentParser("toml")
    first = parser.parse(text)
    key_edit = _insert(text, 'id = "n7"', 1, "d")
    second = parser.parse(key_edit)
    assert "idd" in second.values["nodes"][7]
    assert second.values["nodes"][50] is first.values["nodes"][50]
    _assert_same_as_scratch(second)
    quote = key_edit.index('id = "n9"') + 8
    broken = key_edit[:quote] + key_edit[quote + 1 :]  # drop the closing quote
    third = parser.parse(broken)
    assert [i.message for i in third.issues] == ["unterminated string"]
    assert third.values["nodes"][50] is first.values["nodes"][50]
    assert third.values["nodes"][9]["id"] == "n9"
    _assert_same_as_scratch(third)


def test_inserted_node_shifts_indexes_of_reused_nodes() -> None:
    text = _workflow(30)
    parser = DocumentParser("toml")
    first = parser.parse(text)
    pos = text.index('\n[[nodes]]\nid = "n3"')
    edited = text[:pos] + '\n[[nodes]]\nid = "new"\n' + text[pos:]
    second = parser.parse(edited)
    assert second.values["nodes"][3]["id"] == "new"
    assert second.values["nodes"][11] is first.values["nodes"][10]
    entry = second.source_map.get(("nodes", 11, "id"))
    assert entry is not None and entry.value.slice(edited) == '"n10"'
    _assert_same_as_scratch(second)


def test_header_extending_a_reused_table_copies_it() -> None:
    text = "[a]\nx = 1\nd.e = 2\n\n[a.b]\ny = 2\n\n[a.d.f]\nz = 3\n"
    parser = DocumentParser("toml")
    first = parser.parse(text)
    assert first.values == tomllib.loads(text)
    second = parser.parse(text.replace("y = 2", "y = 22"))
    assert second.values == tomllib.loads(text.replace("y = 2", "y = 22"))
    assert first.values == tomllib.loads(text)  # nothing written into shared tables
    _assert_same_as_scratch(second)


def test_repeated_identical_sections_get_their_own_objects() -> None:
    text = '[[nodes]]\nid = "a"\n\n[[nodes]]\nid = "a"\n'
    parser = DocumentParser("toml")
    parsed = parser.parse(text)
    assert parsed.values["nodes"][0] is not parsed.values["nodes"][1]
    again = parser.parse(text + "\n")
    assert again.values["nodes"][0] is not again.values["nodes"][1]
    _assert_same_as_scratch(again)

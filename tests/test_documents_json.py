"""JSON front-end: values like json.loads, source ranges, errors that keep the rest."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wf_core.base.edits import Region, edit_between
from wf_core.base.spans import LineIndex
from wf_core.documents import DocumentParser, Kind, parse_document
from wf_core.version.snapshot import analyze_text

DOC = {
    "name": "billing é😀",
    "start": "customers",
    "outcomes": ["ok"],
    "nodes": [
        {"id": "customers", "type": "foreach", "over": "input.customers", "as": "customer"},
        {
            "id": "charge",
            "type": "node",
            "input": [{"target": "order", "path": 'context.foreach."orders.v2".item'}],
            "n": [1, -2.5, 1e-3, True, False, None, {}],
        },
    ],
}


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_values_and_ranges(indent, ensure_ascii) -> None:
    text = json.dumps(DOC, indent=indent, ensure_ascii=ensure_ascii)
    doc = parse_document(text, "json")
    assert doc.issues == ()
    assert doc.values == json.loads(text)
    sm = doc.source_map
    for loc, entry in sm.items():
        value = entry.value.slice(text)
        # the value text decodes to the value at that location
        expected = doc.values
        for part in loc:
            expected = expected[part]
        assert json.loads(value) == expected
        if entry.key is not None:
            assert json.loads(entry.key.slice(text)) == loc[-1]
        else:
            assert isinstance(loc[-1], int)
    assert sm.get(("nodes", 1, "n", 3)).kind is Kind.BOOL  # type: ignore[union-attr]
    assert sm.get(("nodes", 1, "n", 5)).kind is Kind.NULL  # type: ignore[union-attr]
    literal = sm.string(("nodes", 1, "input", 0, "path"))
    assert literal is not None
    start = literal.value.index('"')
    assert literal.doc_span(start, start + 11).slice(text) == '\\"orders.v2\\"'
    name = sm.string(("name",))
    assert name is not None
    assert name.doc_span(len("billing "), len("billing é😀")).slice(text) == (
        "\\u00e9\\ud83d\\ude00" if ensure_ascii else "é😀"
    )


def test_unterminated_string_then_more_members() -> None:
    text = (
        '{\n  "nodes": [\n    {"id": "a😀", "over": "context.fore\n'
        '    "as": "x"},\n    {"id": "b"}\n  ]\n}\n'
    )
    doc = parse_document(text, "json")
    assert [i.message for i in doc.issues] == ["unterminated string"]
    index = LineIndex(text)
    assert index.position(doc.issues[0].span.start) == (2, 25)
    assert doc.issues[0].span.slice(text) == '"context.fore'
    assert doc.values == {"nodes": [{"id": "a😀", "over": "context.fore", "as": "x"}, {"id": "b"}]}
    literal = doc.source_map.string(("nodes", 0, "over"))
    assert (
        literal is not None and not literal.closed and literal.content.slice(text) == "context.fore"
    )
    located = doc.source_map.locate(text.index("fore") + 4)
    assert located is not None and located.location == ("nodes", 0, "over")


@pytest.mark.parametrize(
    ("text", "message", "covered", "values"),
    [
        ('{"a": 1 "b": 2}', "expected ',' between members", '"', {"a": 1, "b": 2}),
        (
            '{"a": 1, "b": [1, 2,],}',
            "a trailing comma is not allowed in JSON",
            ",",
            {"a": 1, "b": [1, 2]},
        ),
        ('{"a": 1, "a": 2}', "duplicate key 'a'", '"a"', {"a": 1}),
        ('{"a": [1 2]}', "expected ',' between array elements", "2", {"a": [1, 2]}),
        ('{"a": tru, "b": 1}', "invalid value 'tru'", "tru", {"b": 1}),
        ('{"a": 01}', "invalid number '01'", "01", {}),
        ('{"a": "\\x"}', "invalid escape '\\x'", "\\x", {"a": "\\x"}),
        ('{"a": 1} // note', "comments are not allowed in JSON", "// note", {"a": 1}),
        ('{"a": 1', "object is not closed", "{", {"a": 1}),
        ('{"a": }', "missing value for key 'a'", ":", {}),
        ('{"a": NaN}', "'NaN' is not valid JSON", "NaN", None),
        ("[1, 2]", "a workflow document must be a JSON object", "[1, 2]", {}),
        ("", "expected a JSON object", "", {}),
        ('{"a": 1} {"b": 2}', "unexpected text after the document", None, {"a": 1}),
    ],
)
def test_errors_have_ranges_and_keep_values(text, message, covered, values) -> None:
    doc = parse_document(text, "json")
    messages = [i.message for i in doc.issues]
    assert message in messages, messages
    issue = doc.issues[messages.index(message)]
    assert issue.code == "syntax_error" and issue.span is not None
    if covered is not None:
        assert issue.span.slice(text) == covered
    if values is not None:
        assert doc.values == values


@pytest.mark.parametrize(
    ("text", "message", "covered"),
    [
        ('{"node": , "id": "y"}', "missing value for key 'node'", ":"),
        ('{"node": = "x", "id": "y"}', "expected a value for key 'node'", '= "x"'),
        ('{"node": ?, "id": "y"}', "expected a value for key 'node'", "?"),
    ],
)
def test_one_mistake_is_one_syntax_error(text: str, message: str, covered: str) -> None:
    doc = parse_document(text, "json")
    assert [(i.message, i.span.slice(text) if i.span else None) for i in doc.issues] == [
        (message, covered)
    ]
    assert doc.values == {"id": "y"}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000,
        "{" * 10_000,
        '{"a":' * 5_000 + "1" + "}" * 5_000,
        "\x00\xff garbage \ud800 }]{[",
        '{"a": "' + "x" * 1_000_000 + '"}',
        '{"a": [' + "1," * 200_000 + "1]}",
    ],
)
def test_pathological_inputs_never_crash(text: str) -> None:
    doc = parse_document(text, "json")
    assert isinstance(doc.values, dict)
    for issue in doc.issues:
        assert issue.span is not None and issue.span.end <= len(text)
    parser = DocumentParser("json")
    assert parser.parse(text).values == doc.values
    parser.parse(text[: len(text) // 3])


def test_incremental_json() -> None:
    text = json.dumps(DOC, indent=2, ensure_ascii=False)
    parser = DocumentParser("json")
    assert parser.parse(text).values == DOC
    edited = text.replace('"charge"', '"chärge"')
    assert parser.parse(edited, edit_between(text, edited).region).values == json.loads(edited)
    broken = edited.replace('"input.customers"', '"input.cust')
    result = parser.parse(broken, edit_between(edited, broken).region)
    assert [i.message for i in result.issues] == ["unterminated string"]
    assert result.values["nodes"][1]["id"] == "chärge"


class _Spy:
    """tree-sitter's parser, noting whether each parse was given the previous tree."""

    def __init__(self, parser: Any) -> None:
        self.parser, self.reused = parser, []

    def parse(self, data: bytes, old_tree: Any = None) -> Any:
        self.reused.append(old_tree is not None)
        return self.parser.parse(data) if old_tree is None else self.parser.parse(data, old_tree)


@pytest.mark.parametrize(
    ("region", "reused"),
    [
        # the edit's region: the previous tree, edited there, is reused
        (lambda old, new: edit_between(old, new).region, [True]),
        # no region (a fresh document), or one that cannot be of these two texts
        (lambda old, new: None, [False]),
        (lambda old, new: Region(0, len(old) + 5, len(new) + 5), [False]),
        (lambda old, new: Region(0, 1, 1), [False]),
    ],
)
def test_the_previous_tree_is_reused_only_with_a_region_of_the_two_texts(
    region: Callable[[str, str], Region | None], reused: list[bool]
) -> None:
    text = json.dumps(DOC, indent=2, ensure_ascii=False)
    parser = DocumentParser("json")
    parser.parse(text)
    spy = _Spy(parser._parser)
    parser._parser = spy  # type: ignore[assignment]
    edited = text.replace('"charge"', '"chärge😀"')
    result = parser.parse(edited, region(text, edited))
    assert spy.reused == reused
    assert result.values == json.loads(edited)
    assert result.source_map.get(("nodes", 1, "id")).value.slice(edited) == '"chärge😀"'  # type: ignore[union-attr]


# -- reuse: unchanged units are placed again, not converted ------------------------


def _workflow(nodes: int) -> str:
    doc = {
        "name": "reuse",
        "start": "n0",
        "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}},
        "nodes": [
            {
                "id": f"n{i}",
                "type": "node",
                "input": [{"target": "t", "path": f"context.n{i}.é\\😀"}],
                "flags": [True, None, 1.5],
            }
            for i in range(nodes)
        ],
        "edges": [{"from": f"n{i}", "outcome": "ok", "to": f"n{i + 1}"} for i in range(nodes)],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _same_as_scratch(parsed, text: str) -> None:
    scratch = parse_document(text, "json")
    assert repr(parsed.values) == repr(scratch.values)
    assert parsed.issues == scratch.issues
    assert list(parsed.source_map.items()) == list(scratch.source_map.items())
    for loc in scratch.source_map.locations():
        assert parsed.source_map.string(loc) == scratch.source_map.string(loc)
        assert parsed.source_map.children(loc) == scratch.source_map.children(loc)
    for offset in range(0, len(text) + 1, 7):
        assert parsed.source_map.locate(offset) == scratch.source_map.locate(offset)


def _inside_node_5(text: str) -> int:
    return text.index('"context.n5.') + len('"context.n5')


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda text, at: text[:at] + "x" + text[at:], id="path +1 char"),
        pytest.param(lambda text, at: text[:at] + text[at + 1 :], id="path -1 char"),
        pytest.param(
            lambda text, at: text[: text.index('"', at)] + text[text.index('"', at) + 1 :],
            id="unterminated string",
        ),
        pytest.param(
            lambda text, at: text.replace('"type": "node",\n', '"type": "node"\n', 6).replace(
                '"type": "node"\n', '"type": "node",\n', 5
            ),
            id="missing comma",
        ),
        pytest.param(lambda text, at: text[:at] + "\\x" + text[at:], id="invalid escape"),
    ],
)
def test_edit_in_one_node_reuses_the_others(edit) -> None:
    text = _workflow(100)
    parser = DocumentParser("json")
    before = parser.parse(text)
    edited = edit(text, _inside_node_5(text))
    after = parser.parse(edited)
    # the identity invariant: unchanged units are the very same objects
    assert after.values["nodes"][90] is before.values["nodes"][90]
    assert after.values["edges"][3] is before.values["edges"][3]
    assert after.values["input_schema"] is before.values["input_schema"]
    assert after.values["nodes"] is not before.values["nodes"]
    _same_as_scratch(after, edited)
    # and back: the edited node is converted again, everything equals scratch
    again = parser.parse(text)
    assert again.values["nodes"][90] is before.values["nodes"][90]
    _same_as_scratch(again, text)


def test_units_that_are_not_strict_json_are_reused_with_their_problems() -> None:
    text = _workflow(3).replace('"id": "n1",', '"id": "n1", "id": "dup", // note\n', 1)
    parser = DocumentParser("json")
    first = parser.parse(text)
    messages = sorted(i.message for i in first.issues)
    assert messages == ["comments are not allowed in JSON", "duplicate key 'id'"]
    edited = text.replace('"context.n2.', '"context.n2.x')
    second = parser.parse(edited)
    assert second.values["nodes"][1] is first.values["nodes"][1]
    assert second.values["nodes"][1]["id"] == "n1"
    _same_as_scratch(second, edited)
    duplicate = next(i for i in second.issues if i.message.startswith("duplicate"))
    assert duplicate.span is not None and duplicate.span.slice(edited) == '"id"'
    assert duplicate.related[0].span.slice(edited) == '"id"'  # type: ignore[union-attr]
    assert duplicate.related[0].span.start < duplicate.span.start  # type: ignore[union-attr]


def test_a_duplicate_members_value_leaves_no_entries() -> None:
    text = '{"nodes": [{"id": "a"}], "nodes": [{"id": "b", "x": 1}]}'
    doc = parse_document(text, "json")
    assert doc.values == {"nodes": [{"id": "a"}]}
    assert [i.message for i in doc.issues] == ["duplicate key 'nodes'"]
    assert ("nodes", 0, "x") not in doc.source_map
    entry = doc.source_map.get(("nodes", 0, "id"))
    assert entry is not None and entry.value.slice(text) == '"a"'


TOML_MESSAGE = (
    "this is TOML, not JSON: a TOML workflow belongs in a .wf.toml file "
    "(a .wf.json file holds one JSON object)"
)


@pytest.mark.parametrize(
    ("text", "message", "covered"),
    [
        (
            (Path(__file__).parent.parent / "examples/billing.wf.toml").read_text(),
            TOML_MESSAGE,
            "# billing.wf.toml",
        ),
        ('\nname = "greet"\nstart = "hello"\n', TOML_MESSAGE, 'name = "greet"'),
        ('[[nodes]]\nid = "a"\n', TOML_MESSAGE, "[[nodes]]"),
        (
            "hello world\n",
            "this is not JSON: a .wf.json file holds one JSON object, starting with '{'",
            "hello world",
        ),
    ],
)
def test_text_that_is_not_json_is_one_error_that_says_so(text, message, covered) -> None:
    """Not "the document is empty", nor an error for every line read as JSON."""
    issues = analyze_text(text, "json").issues
    assert [(i.code, i.message, i.span.slice(text)) for i in issues] == [
        ("syntax_error", message, covered)
    ]

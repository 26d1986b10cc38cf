"""JSON front-end: values like json.loads, source ranges, errors that keep the rest."""

from __future__ import annotations

import json

import pytest

from wf_core.documents import DocumentParser, Kind, parse_document
from wf_core.spans import LineIndex

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
    assert parser.parse(edited).values == json.loads(edited)
    broken = edited.replace('"input.customers"', '"input.cust')
    result = parser.parse(broken)
    assert [i.message for i in result.issues] == ["unterminated string"]
    assert result.values["nodes"][1]["id"] == "chärge"

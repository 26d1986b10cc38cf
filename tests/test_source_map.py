"""String literal maps and ``locate``: every range is checked against the text it covers."""

from __future__ import annotations

import pytest

from wf_core.documents import parse_document

PREFIX = "# é and 😀 on an earlier line\n"


def _literal(text: str, syntax: str, loc: tuple):
    doc = parse_document(text, syntax)  # type: ignore[arg-type]
    literal = doc.source_map.string(loc)
    assert literal is not None, doc.issues
    return doc, literal


@pytest.mark.parametrize(
    ("line", "quoted"),
    [
        ('path = "context.foreach.\\"orders.v2\\".item"', '\\"orders.v2\\"'),
        ("path = 'context.foreach.\"orders.v2\".item'", '"orders.v2"'),
        ('path = """context.foreach.\\"orders.v2\\".item"""', '\\"orders.v2\\"'),
        ("path = '''context.foreach.\"orders.v2\".item'''", '"orders.v2"'),
        (
            'path = "context.foreach.\\u0022orders.v2\\U00000022.item"',
            "\\u0022orders.v2\\U00000022",
        ),
    ],
)
def test_toml_segment_through_escapes(line: str, quoted: str) -> None:
    text = PREFIX + 'note = "é😀" ' + "\n" + "x = '😀é'; " * 0 + line + "\n"
    doc, literal = _literal(text, "toml", ("path",))
    assert not doc.issues
    assert literal.value == 'context.foreach."orders.v2".item'
    start = literal.value.index('"orders.v2"')
    span = literal.doc_span(start, start + len('"orders.v2"'))
    assert span.slice(text) == quoted
    assert literal.span.slice(text) == line[len("path = ") :]
    assert literal.doc_span(0, 7).slice(text) == "context"
    # every decoded character maps to text that decodes to it
    assert literal.doc_span(len(literal.value) - 4, len(literal.value)).slice(text) == "item"


def test_non_ascii_before_string_on_same_line() -> None:
    text = PREFIX + 'a = { x = "é😀", path = "ü.\\"😀\\".z" }\n'
    doc, literal = _literal(text, "toml", ("a", "path"))
    assert not doc.issues
    assert literal.value == 'ü."😀".z'
    assert literal.doc_span(2, 5).slice(text) == '\\"😀\\"'
    assert literal.doc_span(0, 1).slice(text) == "ü"
    assert literal.content.slice(text) == 'ü.\\"😀\\".z'
    entry = doc.source_map.get(("a", "x"))
    assert entry is not None and entry.value.slice(text) == '"é😀"'
    assert entry.key is not None and entry.key.slice(text) == "x"


def test_multiline_basic_line_ending_backslash_and_first_newline() -> None:
    text = PREFIX + 's = """\nab\\\n     cd\\tef"""\n'
    doc, literal = _literal(text, "toml", ("s",))
    assert not doc.issues
    assert literal.value == "abcd\tef"
    assert literal.doc_span(0, 2).slice(text) == "ab"
    assert literal.doc_span(2, 4).slice(text) == "cd"
    assert literal.doc_span(4, 5).slice(text) == "\\t"
    assert literal.doc_span(1, 3).slice(text) == "b\\\n     c"
    assert literal.doc_offset(len(literal.value)) == literal.content.end


def test_multiline_literal_keeps_backslashes_and_trims_first_newline() -> None:
    text = PREFIX + "s = '''\nC:\\dir\n😀x'''\n"
    doc, literal = _literal(text, "toml", ("s",))
    assert not doc.issues
    assert literal.value == "C:\\dir\n😀x"
    assert literal.doc_span(7, 9).slice(text) == "😀x"


def test_json_surrogate_pair_and_escapes() -> None:
    text = '{\n  "é": "😀",\n  "path": "a\\ud83d\\ude00.\\"b.c\\".\\u00e9"\n}'
    doc, literal = _literal(text, "json", ("path",))
    assert not doc.issues
    assert literal.value == 'a😀."b.c".é'
    assert literal.doc_span(1, 2).slice(text) == "\\ud83d\\ude00"
    assert literal.doc_span(3, 8).slice(text) == '\\"b.c\\"'
    assert literal.doc_span(9, 10).slice(text) == "\\u00e9"
    assert literal.doc_offset(0) == literal.content.start
    assert literal.doc_span(0, len(literal.value)) == literal.content


def test_locate_keys_values_and_nested_tables() -> None:
    text = PREFIX + '[[nodes]]\nid = "a"\ninput = [{ target = "t", path = "context.x" }]\n\n'
    doc = parse_document(text, "toml")
    sm = doc.source_map
    at = text.index("context.x") + 3
    found = sm.locate(at)
    assert found is not None
    assert found.location == ("nodes", 0, "input", 0, "path") and not found.in_key
    assert found.span.slice(text) == '"context.x"'
    found = sm.locate(text.index("target") + 2)
    assert (
        found is not None and found.in_key and found.location == ("nodes", 0, "input", 0, "target")
    )
    found = sm.locate(len(text) - 1)  # fresh line below the last pair: still in the node
    assert found is not None and found.location == ("nodes", 0)
    found = sm.locate(2)
    assert found is not None and found.location == ()


def test_locate_inside_half_written_inline_table() -> None:
    text = 'name = "w"\n[[nodes]]\ninput = [{ target = "t", pa\n'
    doc = parse_document(text, "toml")
    assert doc.issues
    found = doc.source_map.locate(text.index(", pa") + 4)
    assert found is not None
    assert found.location == ("nodes", 0, "input", 0, "pa") and found.in_key
    assert not found.has_value
    assert found.span.slice(text) == "pa"
    assert doc.values["nodes"][0]["input"] == [{"target": "t"}]


def test_locate_in_unterminated_json_string() -> None:
    text = '{\n  "nodes": [{"id": "é😀", "path": "context.fore\n  }]\n}'
    doc = parse_document(text, "json")
    end = text.index("fore") + 4
    found = doc.source_map.locate(end)
    assert found is not None and found.location == ("nodes", 0, "path")
    literal = doc.source_map.string(("nodes", 0, "path"))
    assert literal is not None and not literal.closed
    assert literal.value == "context.fore"
    assert literal.content.slice(text) == "context.fore"
    assert doc.values["nodes"][0]["id"] == "é😀"


def test_a_plain_string_is_answered_as_its_literal_would_be() -> None:
    """``plain_string`` answers for strings a reader kept without escapes, exactly as
    ``string``'s literal would (its value, where its content starts), and leaves every
    other string (escapes, multi-line, a statement read from the tree) to ``string``."""
    toml = (
        PREFIX
        + 'name = "w"\n[[nodes]]\nid = "é😀"\ninput = [{ target = "a", path = \'x."y".z\' }]\n'
        + '[[nodes]]\nnote = "a\\"b"\ndesc = """\nmulti"""\n'  # read from the tree
    )
    json = '{"name": "w", "nodes": [{"id": "é", "note": "a\\"b"}]}'
    answered = []
    for text, syntax in ((toml, "toml"), (json, "json")):
        doc = parse_document(text, syntax)  # type: ignore[arg-type]
        assert not doc.issues
        for loc in doc.source_map.locations():
            literal = doc.source_map.string(loc)
            plain = doc.source_map.plain_string(loc)
            if plain is not None:
                assert literal is not None and plain == (literal.value, literal.content.start)
                assert text[plain[1] : plain[1] + len(plain[0])] == plain[0]
                answered.append((syntax, loc))
            elif literal is not None:
                answered.append((syntax, loc, "string only"))
    assert ("toml", ("nodes", 0, "id")) in answered
    assert ("toml", ("nodes", 0, "input", 0, "path")) in answered
    assert ("toml", ("nodes", 1, "note"), "string only") in answered
    assert ("toml", ("nodes", 1, "desc"), "string only") in answered
    assert ("json", ("nodes", 0, "id")) in answered
    assert ("json", ("nodes", 0, "note"), "string only") in answered

"""A clean TOML text read without tree-sitter equals the same text read from its tree.

``toml_chunks.read_clean`` splits a text by line starts and reads each piece
with the fast reader; whenever a guess is wrong or a piece is not in the fast
reader's shapes it gives up and the tree is used. These tests hold the two ways
to the same result: which way a text takes is a matter of speed only.
"""

from __future__ import annotations

import random
import tomllib
from typing import Any, Literal
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_documents_properties import (
    WORKFLOW_TOML,
    _documents,
    _edit,
    _edits,
    _hand_written,
    _same,
    _same_in_full,
)

from wf_core.documents import DocumentParser, ParsedDocument, parse_document
from wf_core.documents import parser as parser_module
from wf_core.documents.toml_chunks import read_clean

Way = Literal["without tree", "tree"]


def _tree_only() -> Any:
    """Read every text from its tree-sitter tree."""
    return mock.patch.object(parser_module, "read_clean", lambda _text, _chunks: None)


def _from_tree(text: str) -> ParsedDocument:
    with _tree_only():
        return parse_document(text, "toml")


def check_read_without_tree(text: str, way: Way) -> None:
    """``text`` takes ``way``, and parses exactly as from its tree."""
    taken: Way = "tree" if read_clean(text, {}) is None else "without tree"
    assert taken == way
    parsed = parse_document(text, "toml")
    _same_in_full(parsed, _from_tree(text))
    if not parsed.issues and not text.startswith("\ufeff"):  # (tomllib refuses a BOM)
        assert parsed.values == tomllib.loads(text)


def _with(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# The random-edit workflow without its multi-line string (only the tree reads one),
# with what a split at line starts must get right: a multi-line array of strings,
# comment lines between statements, an indented header with a comment after it.
WORKFLOW = "# billing — é 😀\n" + WORKFLOW_TOML[: WORKFLOW_TOML.index('s = """')]
WORKFLOW = _with(WORKFLOW, 'outcomes = ["ok"]', 'outcomes = [\n  "ok",\n  "failed",\n]')
WORKFLOW = _with(
    WORKFLOW, '\n[[nodes]]\nid = "customers"', '\n# the loop\n[[nodes]]\nid = "customers"'
)
WORKFLOW = _with(
    WORKFLOW, '\n[[nodes]]\nid = "charge"', '\n  [[nodes]]   # indented header\nid = "charge"'
)
WORKFLOW = _with(WORKFLOW, "item' },\n", "item' },  # comment\n")


@pytest.mark.parametrize(
    ("text", "way"),
    [
        (WORKFLOW, "without tree"),
        (WORKFLOW.replace("\n", "\r\n"), "without tree"),
        (WORKFLOW.rstrip("\n"), "without tree"),
        ("", "without tree"),
        ("# only a comment\n\n", "without tree"),
        ("[a]\nx = 1\n\n[a.b]\ny = 2\n\n[a.d.f]\nz = 3\n", "without tree"),
        # a line starting with "[" inside a multi-line array is not a section
        ("m = [\n  [1, 2],\n  ['a'],\n]\n[t]\nx = 1\n", "tree"),
        ("[t]\nm = [\n  [1, 2],\n]\n", "tree"),
        # "key =" and "[header]" lines inside multi-line strings
        ('a = """\nb = 1\n"""\nc = 2\n', "tree"),
        ("[t]\ns = '''\n[[nodes]]\n'''\n", "tree"),
        # shapes the fast reader leaves to the tree
        ('a = "tab\\there"\n', "tree"),
        ("a.b = 1\nc = 2\n", "tree"),
        ("x = 1979-05-27 07:32:00Z\n", "tree"),
        ("\ufeffa = 1\n", "tree"),
        # mistakes: the tree way reports them
        ("a = 1\na = 2\n", "tree"),
        ('[[nodes]]\nid = "a\n', "tree"),
        ("[t]\nx = 1\n[t]\ny = 2\n", "without tree"),
        ("a = 1\x01\n", "tree"),
        ("a = 1\rb = 2\n", "tree"),
        ("a = [1, 2\nb = 3\n", "tree"),
        ("a = { b = 1, }\n", "tree"),
        ("[t\nx = 1\n", "tree"),
        ("nodes = 1\n[[nodes]]\nid = 'x'\n", "without tree"),
        # inline tables of strings only, and the shapes that fall back from them
        ("a = {b=\"x\",c='y'}\n", "without tree"),
        ('a = { b = "x",c="y" , d = \'\' }\n', "without tree"),
        ('a = [ {b="x"} , {c="y",d="z"} ]\n', "without tree"),
        ('a = [{ b = "x" }, { c = \'y\', d = "z" },]\n', "without tree"),
        ('a = { b = "x", c = 1 }\n', "without tree"),
        ("a = {  }\n", "without tree"),
        ('a = { b = "x", }\n', "tree"),
        ('a = { b = "x" c = "y" }\n', "tree"),
        ('a = { b = "x", b = "y" }\n', "tree"),
        # one match reads up to three pairs; longer tables are read pair by pair
        ("a = { b = 'x', c = \"y\", d = 'z', e = \"w\" }\n", "without tree"),
        ('a = [{ b = "x", c = "y", d = "z", e = "w", f = "v" }]\n', "without tree"),
        ('a = { b = "x", c = "y", d = "z", e = "w", }\n', "tree"),
        ('a = { b = "x", c = "y", b = "z" }\n', "tree"),
        ('a = { b = "x", c = "y", d = "z", b = "w" }\n', "tree"),
        ("a = { b = 'x''', c = \"y\" }\n", "tree"),
        ('a = { b = "x", c = "y", d = { e = "z" } }\n', "without tree"),
        ("a = {\tb\t=\t'x'\t,\tc='y'\t}\n", "without tree"),
    ],
)
def test_read_without_tree_equals_the_tree(text: str, way: Way) -> None:
    check_read_without_tree(text, way)


def test_a_clean_version_keeps_no_tree_and_a_broken_one_is_parsed_from_scratch() -> None:
    parser = DocumentParser("toml")
    parser.parse(WORKFLOW)
    # (the tree of a 2,000-node workflow takes 17 MB: a clean text keeps none)
    assert parser._tree is None
    broken = WORKFLOW.replace('id = "charge"', 'id = "charge')
    parsed = parser.parse(broken)
    assert [issue.message for issue in parsed.issues] == ["unterminated string"]
    assert parser._tree is not None
    _same(parsed, _from_tree(broken))
    fixed = parser.parse(WORKFLOW.replace('"charge"', '"charged"'))
    assert parser._tree is None
    _same(fixed, _from_tree(fixed.text))


def test_unchanged_statements_are_reused_without_a_tree() -> None:
    parser = DocumentParser("toml")
    first = parser.parse(WORKFLOW)
    second = parser.parse(WORKFLOW.replace('over = "input.customers"', 'over = "input.c"'))
    assert parser._tree is None
    assert second.values["nodes"][1] is first.values["nodes"][1]
    assert second.values["edges"] is first.values["edges"]
    assert second.values["nodes"][0] is not first.values["nodes"][0]


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(_documents, st.randoms(use_true_random=False))
def test_hand_written_documents_read_without_tree_as_from_the_tree(
    doc: dict, rnd: random.Random
) -> None:
    text = _hand_written(doc, rnd)
    _same_in_full(parse_document(text, "toml"), _from_tree(text))


@SETTINGS
@given(_edits)
def test_random_edits_read_without_tree_as_from_the_tree(edits: Any) -> None:
    text = WORKFLOW
    parser = DocumentParser("toml")
    previous = parser.parse(text)
    snapshot = repr(previous.values)
    for edit in edits:
        change = _edit(text, edit)
        text = change.apply(text)
        parsed = parser.parse(text, change.region)
        _same(parsed, _from_tree(text))
        # reused objects are shared, never written into
        assert repr(previous.values) == snapshot
        previous, snapshot = parsed, repr(parsed.values)

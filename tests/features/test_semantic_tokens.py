"""Semantic tokens, data-driven: a document, then one ``text: type+modifiers`` line per token.

With a ``$0`` cursor, only the tokens touching the cursor's line are expected
(what a range request for that line answers).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

from tests.features.fixture import analyze, expected, parse
from wf_core.base.reading import is_workflow_file
from wf_core.base.spans import Span
from wfls.features.legend import TOKEN_MODIFIERS, TOKEN_TYPES
from wfls.features.semantic_tokens import semantic_tokens

EXAMPLES = Path(__file__).parents[2] / "examples"


def render(text: str, tokens) -> str:
    return "".join(
        f"{text[t.span.start : t.span.end]}: {'+'.join((t.type, *t.modifiers))}\n" for t in tokens
    )


def check_semantic_tokens(fixture: str, tokens: str) -> None:
    text, cursor = parse(fixture)
    snapshot = analyze(text)
    span = None
    if cursor is not None:
        line, _ = snapshot.lines.position(cursor)
        span = Span(snapshot.lines.line_start(line), snapshot.lines.line_end(line))
    found = semantic_tokens(snapshot, span)
    assert found, "a token test needs tokens"
    for before, after in itertools.pairwise(found):
        assert before.span.end <= after.span.start, "tokens are ordered and never overlap"
    assert render(text, found) == expected(tokens)


LOOPS = """
name = "t"
start = "customers"
outcomes = ["ok"]
edges = [
  { from = "customers", outcome = "loop", to = "charge" },
  { from = "charge", outcome = "ok", to = "customers" },
  { from = "customers", outcome = "done", to = "__end__" },
]

[input_schema]
type = "object"
properties.customers = { type = "array", items = { type = "object", properties = { name = {} } } }

[[node_defs]]
name = "task"
outcomes = ["ok"]
input_schema = { type = "object", properties = { a = {}, b = {} } }
output_schema = { type = "object" }

[[nodes]]
id = "customers"
type = "foreach"
over = "input.customers"
as = "customer"

[[nodes]]
id = "charge"
type = "node"
node = "task"
input = [
  { target = "a", path = 'context.foreach.customers.item.name' },
  { target = "b", path = "context.customer.nickname" },
]
"""


def test_names_and_paths_of_a_loop() -> None:
    check_semantic_tokens(
        LOOPS,
        """
        customers: namespace
        ok: enumMember+declaration
        customers: namespace
        loop: enumMember+defaultLibrary
        charge: function
        charge: function
        ok: enumMember
        customers: namespace
        customers: namespace
        done: enumMember+defaultLibrary
        task: type+declaration
        ok: enumMember+declaration
        customers: namespace+declaration
        input: variable+defaultLibrary
        customers: property
        customer: parameter+declaration
        charge: function+declaration
        task: type
        a: property
        context: variable+defaultLibrary
        foreach: keyword
        customers: namespace
        item: property+defaultLibrary
        name: property
        b: property
        context: variable+defaultLibrary
        customer: parameter+deprecated
        nickname: unresolvedReference
        """,
    )


def test_a_range_gets_the_tokens_of_its_line_only() -> None:
    fixture = LOOPS.replace('{ target = "b"', '{ target = "b"$0')
    check_semantic_tokens(
        fixture,
        """
        b: property
        context: variable+defaultLibrary
        customer: parameter+deprecated
        nickname: unresolvedReference
        """,
    )


def test_convenience_keys_standard_fields_and_quoted_ids() -> None:
    fixture = LOOPS.replace('id = "customers"', 'id = "orders.v2"').replace(
        '"customers"', '"orders.v2"'
    )
    fixture = fixture.replace(
        "'context.foreach.customers.item.name'", "'context.foreach.\"orders.v2\".index'"
    ).replace('"context.customer.nickname"', '"context.loop_item.name"')
    fixture = fixture.replace(
        '{ target = "a"', '{ target = "a", path = "context.scope_id" },\n  { target = "a"$0'
    )
    check_semantic_tokens(
        fixture,
        """
        a: property
        context: variable+defaultLibrary
        foreach: keyword
        "orders.v2": namespace
        index: property+defaultLibrary
        """,
    )
    text, _ = parse(fixture)
    found = {
        text[t.span.start : t.span.end]: (t.type, t.modifiers)
        for t in semantic_tokens(analyze(text))
    }
    assert found["scope_id"] == ("property", ("defaultLibrary",))
    assert found["loop_item"] == ("property", ("defaultLibrary", "deprecated"))


def test_unknown_names_outside_paths_keep_the_string_colour() -> None:
    check_semantic_tokens(
        """
        name = "t"
        start = "nowhere"
        edges = [{ from = "a", outcome = "maybe", to = "__end__" }]

        [[nodes]]
        id = "a"
        type = "end"
        outcome = "ok"
        """,
        """
        a: function
        a: function+declaration
        ok: enumMember
        """,
    )


def test_a_json_document() -> None:
    check_semantic_tokens(
        """
        {"name": "j", "start": "loop", "input_schema": {"type": "object",
          "properties": {"xs": {"type": "array"}}},
         "nodes": [{"id": "loop", "type": "foreach", "over": "input.xs"}],
         "edges": [{"from": "loop", "outcome": "done", "to": "__end__"}]}
        """,
        """
        loop: namespace
        loop: namespace+declaration
        input: variable+defaultLibrary
        xs: property
        loop: namespace
        done: enumMember+defaultLibrary
        """,
    )


def test_a_document_that_does_not_parse_still_gets_the_tokens_it_has() -> None:
    check_semantic_tokens(
        """
        [[nodes]]
        id = "a"
        type = "foreach"
        over = "input.
        """,
        """
        a: namespace+declaration
        input: variable+defaultLibrary
        """,
    )


def test_every_token_of_the_examples_is_in_the_legend() -> None:
    for path in sorted(filter(is_workflow_file, EXAMPLES.iterdir())):
        for token in semantic_tokens(analyze(path.read_text(encoding="utf-8"))):
            assert token.type in TOKEN_TYPES
            assert set(token.modifiers) <= set(TOKEN_MODIFIERS)


def test_the_legend_file_is_the_one_the_extension_reads() -> None:
    legend = Path(__file__).parents[2] / "server/wfls/features/semantic_legend.json"
    data = json.loads(legend.read_text(encoding="utf-8"))
    assert tuple(data["tokenTypes"]) == TOKEN_TYPES
    assert tuple(data["tokenModifiers"]) == TOKEN_MODIFIERS
    assert set(data["meaning"]) == set(TOKEN_TYPES) | set(TOKEN_MODIFIERS)


VSCODE_FIXTURES = Path(__file__).parents[2] / "editors/vscode/test/fixtures"


def test_the_extension_fixtures_tokens_are_up_to_date() -> None:
    """``billing.tokens.json`` is what the server answers for the extension's fixtures; the
    extension's tests check that the grammar colours those places the same way.
    ``WFLS_UPDATE_TOKENS=1`` rewrites it."""
    from wfls.convert import PositionCodec

    tokens: dict[str, list[list[object]]] = {}
    for name in ("billing.wf.toml", "billing.wf.json"):
        snapshot = analyze((VSCODE_FIXTURES / name).read_text(encoding="utf-8"))
        codec = PositionCodec(snapshot.lines, "utf-16")
        rows = []
        for token in semantic_tokens(snapshot):
            start, end = codec.position(token.span.start), codec.position(token.span.end)
            assert start.line == end.line
            length = end.character - start.character
            rows.append([start.line, start.character, length, token.type, list(token.modifiers)])
        tokens[name] = rows
    written = json.dumps(tokens, indent=None, separators=(",", ":")).replace("],[", "],\n  [")
    target = VSCODE_FIXTURES / "billing.tokens.json"
    if os.environ.get("WFLS_UPDATE_TOKENS") == "1":
        target.write_text(written + "\n", encoding="utf-8")
    assert target.read_text(encoding="utf-8") == written + "\n", (
        "the server's tokens changed: rerun with WFLS_UPDATE_TOKENS=1 and check the diff"
    )


def test_while_typing_in_a_path_the_tokens_follow_the_edit() -> None:
    """The version after a keystroke is made from the last one's analysis
    (``wf_core.base.derived``), and answers as a fresh analysis of its text does."""
    from wf_core.base.derived import Derivations
    from wf_core.documents.parser import DocumentParser
    from wf_core.version.snapshot import DocumentSnapshot

    parser, derived = DocumentParser("toml"), Derivations()

    text, _ = parse(LOOPS)
    base = DocumentSnapshot(parser.parse(text), derived=derived)
    base.issues  # noqa: B018 - the analysed version an editor has
    base.index.complete()
    typed = text.replace("context.customer.nickname", "context.customer.name.first")
    edited = DocumentSnapshot(parser.parse(typed), derived=derived)  # made from the last
    tokens = semantic_tokens(edited)
    assert render(typed, tokens) == render(typed, semantic_tokens(analyze(typed)))
    assert render(typed, tokens).endswith(
        "context: variable+defaultLibrary\n"
        "customer: parameter+deprecated\n"
        "name: property\n"
        "first: unresolvedReference\n"
    )


def test_the_same_path_means_what_its_node_can_read() -> None:
    """Segment meanings are resolved once per path text and owner stack: the same text
    at a node outside the loop reads nothing of it."""
    fixture = LOOPS.replace(
        '{ from = "customers", outcome = "done", to = "__end__" }',
        '{ from = "customers", outcome = "done", to = "after" },\n'
        '  { from = "after", outcome = "ok", to = "__end__" }',
    )
    fixture += (
        '\n[[nodes]]\nid = "after"\ntype = "node"\nnode = "task"\n'
        'input = [{ target = "b", path = "context.customer.nickname" }]$0\n'
    )
    check_semantic_tokens(
        fixture,
        """
        b: property
        context: variable+defaultLibrary
        customer: unresolvedReference
        nickname: unresolvedReference
        """,
    )

"""Workflow test documents in the language server: diagnostics from the one check,
completion, hover, go to definition into the workflow, and a "Run case" code lens.

The workflow is the billing example, written into the workspace folder; the test
document is opened (its text as the editor has it), so every answer is about that
text, in every client's encoding.
"""

from __future__ import annotations

import asyncio

import pytest
from conftest import EXAMPLES, WAIT, Session
from lsprotocol import types

TESTS = """workflow = "billing"

[[case]]
name = "one order"
input = { customers = [{ name = "Ada", orders = [{ sku = "A-17", qty = 2 }] }] }

[[case.pin]]
node = "charge"
when = { "context.foreach.\\"orders.v2\\".item.sku" = "A-17" }
outcome = "ok"

[[case.expect]]
status = "completed"
visited = ["customers", "orders.v2", "charge"]

[[case]]
name = "no customers"
input = { customers = [] }
"""


@pytest.fixture
def billing(session: Session) -> str:
    (session.root / "billing.wf.toml").write_text(
        (EXAMPLES / "billing.wf.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return session.uri("billing.wf.toml")


async def test_a_clean_test_document_has_no_findings_and_a_wrong_one_has_the_checks(
    session: Session, billing: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    assert await session.diagnostics(uri) == []
    session.replace(uri, 'node = "charge"', 'node = "chrage"')
    session.replace(uri, 'outcome = "ok"', 'outcome = "declined"')
    found = await session.diagnostics(uri)
    assert [(d.code, d.message, d.range) for d in found] == [
        (
            "test_unknown_node",
            "node 'chrage' is not in the workflow; did you mean 'charge'?",
            session.range(uri, 'node = "chrage"'),
        ),
    ]


async def lenses(session: Session, uri: str) -> list[types.CodeLens]:
    async with asyncio.timeout(WAIT):
        found = await session.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    return list(found or ())


async def test_run_case_lenses_sit_on_each_case_header(
    session: Session, billing: str, billing_text: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    workflow = session.open("billing.wf.toml", billing_text)
    assert await lenses(session, workflow) == []  # a workflow has none
    assert [
        (lens.range, lens.command.title, lens.command.command, list(lens.command.arguments))
        for lens in await lenses(session, uri)
    ] == [
        (
            session.range(uri, "[[case]]", occurrence=occurrence),
            "Run case",
            "wfls.test",
            [{"uri": uri, "cases": [name]}],
        )
        for occurrence, name in enumerate(["one order", "no customers"])
    ]


async def test_hover_shows_a_nodes_summary_and_a_when_paths_schema(
    session: Session, billing: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    hover = await session.request(types.TEXT_DOCUMENT_HOVER, uri, session.find(uri, "charge") + 1)
    assert hover.contents.value.startswith("**node `charge`**: `node`")
    assert "uses node def `charge_order`" in hover.contents.value
    assert hover.range == session.range(uri, '"charge"')
    path = await session.request(types.TEXT_DOCUMENT_HOVER, uri, session.find(uri, "item.sku"))
    assert path.contents.value.startswith('**context.foreach."orders.v2".item.sku**: `string`')


async def test_definition_of_a_node_id_is_its_node_in_the_workflow(
    session: Session, billing: str, billing_text: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    found = await session.request(
        types.TEXT_DOCUMENT_DEFINITION, uri, session.find(uri, "orders.v2", after="visited")
    )
    line = billing_text[: billing_text.index('id = "orders.v2"')].count("\n")
    assert [(location.uri, location.range.start.line) for location in found] == [(billing, line)]
    workflow = await session.request(
        types.TEXT_DOCUMENT_DEFINITION, uri, session.find(uri, "billing")
    )
    name_line = billing_text[: billing_text.index('name = "billing"')].count("\n")
    assert [(location.uri, location.range.start.line) for location in workflow] == [
        (billing, name_line)
    ]


async def test_completion_offers_pinnable_nodes_outcomes_paths_and_keys(
    session: Session, billing: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)

    async def labels(offset: int) -> list[str]:
        answer = await session.request(types.TEXT_DOCUMENT_COMPLETION, uri, offset)
        return [item.label for item in answer.items]

    assert await labels(session.find(uri, "charge") + 1) == ["charge"]
    assert await labels(session.find(uri, '"ok"') + 1) == ["ok"]
    assert await labels(session.find(uri, "customers", after="visited") + 1) == [
        "customers",
        "orders.v2",
        "charge",
    ]
    paths = await labels(session.find(uri, "context.foreach") + 1)
    assert 'context.foreach."orders.v2".item' in paths
    assert "context.foreach.customers.item" in paths
    keys = await labels(session.find(uri, "status"))
    assert keys == ["status", "outcome", "output", "error", "visited", "saw"]


JSON_TESTS = """{
  "workflow": "billing",
  "case": [
    {"name": "declined", "input": {"customers": []},
     "pin": [{"node": "charge", "outcome": "declined"}]}
  ]
}
"""


async def test_a_json_test_document_gets_its_findings_and_lenses(
    session: Session, billing: str
) -> None:
    uri = session.open("billing.wf.test.json", JSON_TESTS, language_id="json")
    found = await session.diagnostics(uri)
    assert [(d.code, d.message, d.range) for d in found] == [
        (
            "test_unknown_outcome",
            "node 'charge' does not declare outcome 'declined' (declared: ok)",
            session.range(uri, '"outcome": "declined"'),
        )
    ]
    [lens] = await lenses(session, uri)
    assert lens.range.start == session.position(uri, session.find(uri, '{"name": "declined"'))
    assert list(lens.command.arguments) == [{"uri": uri, "cases": ["declined"]}]


async def test_a_test_documents_findings_follow_its_workflow_edited(
    session: Session, billing: str, billing_text: str
) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    assert await session.diagnostics(uri) == []
    workflow = session.open("billing.wf.toml", billing_text)
    await session.diagnostics(workflow)
    # The pinned node renamed in the workflow (its edges too): the test names it no more.
    since = len(session.pushes)
    session.edit(workflow, 0, len(billing_text), billing_text.replace('"charge"', '"bill"'))

    def unknown(found: list[types.Diagnostic]) -> bool:
        return [d.code for d in found] == ["test_unknown_node"] * 2

    if session.pulls:
        found = await session.pulled_where(uri, unknown)
    else:
        pushed = await session.push_where(
            lambda p: p.uri == uri and unknown(list(p.diagnostics)), since
        )
        found = list(pushed.diagnostics)
    assert [d.range for d in found] == [
        session.range(uri, 'node = "charge"'),
        session.range(uri, '"charge"', after="visited"),
    ]


async def test_the_outline_lists_the_cases_with_their_pins(session: Session, billing: str) -> None:
    uri = session.open("billing.wf.test.toml", TESTS)
    async with asyncio.timeout(WAIT):
        symbols = await session.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    flat = [
        (symbol.name, symbol.kind, getattr(symbol, "container_name", None)) for symbol in symbols
    ]
    if isinstance(symbols[0], types.DocumentSymbol):
        assert [(s.name, [c.name for c in s.children or ()]) for s in symbols] == [
            ("one order", ["charge"]),
            ("no customers", []),
        ]
        assert symbols[0].selection_range == session.range(uri, '"one order"')
        assert symbols[0].children[0].selection_range == session.range(uri, '"charge"')
    else:
        assert flat == [
            ("one order", types.SymbolKind.Method, None),
            ("charge", types.SymbolKind.Variable, "one order"),
            ("no customers", types.SymbolKind.Method, None),
        ]

"""Completion, hover and definition through the protocol, on the billing example.

The document is billing.wf.toml plus a ``summary`` node reached after the
outer loop is done, so that a place with no active loop exists. Non-ASCII
text (``é``, ``😀``) sits before the cursor on the same line, so the tests
also prove that positions are converted in the negotiated encoding.
"""

from __future__ import annotations

import pytest
from conftest import Session
from lsprotocol import types

CHARGE_INPUT = '  { target = "customer", path = "context.foreach.customers.item.name" },\n'
SUMMARY = """
[[nodes]]
id = "summary"
type = "node"
node = "charge_order"
input = [{ target = "customer", path = "state.total" }]
"""


@pytest.fixture
def billing(billing_text: str) -> str:
    text = billing_text.replace(
        '{ from = "customers", outcome = "done", to = "__end__" }',
        '{ from = "customers", outcome = "done", to = "summary" },\n'
        '  { from = "summary", outcome = "ok", to = "__end__" }',
    )
    assert CHARGE_INPUT in text
    return text + SUMMARY


def edit_of(item: types.CompletionItem) -> tuple[str, types.Range]:
    edit = item.text_edit
    assert edit is not None
    if isinstance(edit, types.InsertReplaceEdit):
        return edit.new_text, edit.replace
    return edit.new_text, edit.range


async def complete_at(session: Session, uri: str, offset: int) -> list[types.CompletionItem]:
    result = await session.request(types.TEXT_DOCUMENT_COMPLETION, uri, offset)
    assert isinstance(result, types.CompletionList)
    assert result.is_incomplete is False
    return list(result.items)


def open_with_path(session: Session, billing: str, path_value: str) -> tuple[str, int]:
    """Open billing with the charge node's customer binding set to ``path_value``.

    The value is written verbatim (quotes included, possibly unterminated) after
    a target with non-ASCII characters; returns the uri and the offset of ``|``,
    which marks the cursor and is removed.
    """
    value = path_value.replace("|", "")
    line = f'  {{ target = "é😀", path = {value}\n'
    text = billing.replace(CHARGE_INPUT, line, 1)
    uri = session.open("billing.wf.toml", text)
    cursor = text.index(line) + line.index(value) + path_value.index("|")
    return uri, cursor


async def test_completion_offers_exactly_the_active_loops(session: Session, billing: str):
    uri, cursor = open_with_path(session, billing, '"context.foreach.|" },')
    items = await complete_at(session, uri, cursor)
    texts = {edit_of(i)[0] for i in items}
    assert "customers" in texts
    assert '\\"orders.v2\\"' in texts  # a basic string needs the quotes escaped
    assert "summary" not in texts and '"summary"' not in texts
    for item in items:
        _, edit_range = edit_of(item)
        assert edit_range.start == session.position(uri, cursor)


async def test_completion_outside_the_loops_offers_no_loop(session: Session, billing: str):
    text = billing.replace('path = "state.total"', 'path = "context.foreach."')
    uri = session.open("billing.wf.toml", text)
    cursor = text.index('"context.foreach."') + len('"context.foreach.')
    items = await complete_at(session, uri, cursor)
    texts = {edit_of(i)[0] for i in items}
    assert not texts & {"customers", '"orders.v2"', '\\"orders.v2\\"'}


async def test_completion_of_item_members(session: Session, billing: str):
    uri, cursor = open_with_path(session, billing, "'context.foreach.\"orders.v2\".item.|' },")
    items = await complete_at(session, uri, cursor)
    texts = {edit_of(i)[0] for i in items}
    assert {"sku", "qty"} <= texts
    sku = next(i for i in items if edit_of(i)[0] == "sku")
    assert sku.detail is not None


async def test_completion_inside_an_unterminated_string(session: Session, billing: str):
    uri, cursor = open_with_path(session, billing, '"context.foreach.cu|')
    items = await complete_at(session, uri, cursor)
    customers = next(i for i in items if edit_of(i)[0] == "customers")
    _, edit_range = edit_of(customers)
    # Only the segment being typed is replaced.
    assert edit_range.start == session.position(uri, cursor - len("cu"))


async def test_completion_quotes_a_dotted_id_in_a_literal_string(session: Session, billing: str):
    uri, cursor = open_with_path(session, billing, "'context.foreach.|' },")
    items = await complete_at(session, uri, cursor)
    texts = {edit_of(i)[0] for i in items}
    assert '"orders.v2"' in texts
    assert "orders.v2" not in texts


@pytest.mark.parametrize(
    ("typed", "replaced", "after"),
    [
        ("o|", "o", '\\"orders.v2\\"'),
        ("o|rders.v2.item.sku", "orders.v2", '\\"orders.v2\\".item.sku'),
    ],
)
async def test_completion_of_a_dotted_loop_id_typed_unquoted(
    session: Session, billing: str, typed: str, replaced: str, after: str
):
    """The client filters by what is typed in the edit's range (``o``), so the filter text
    starts with it; the edit also replaces ``.v2`` that the unquoted id left behind."""
    uri, cursor = open_with_path(session, billing, f'"context.foreach.{typed}" }},')
    items = await complete_at(session, uri, cursor)
    item = next(i for i in items if i.label == '"orders.v2"')
    assert item.filter_text is not None and item.filter_text.startswith("o")
    new_text, edit_range = edit_of(item)
    start = cursor - len("o")
    end = start + len(replaced)
    assert edit_range == types.Range(
        start=session.position(uri, start), end=session.position(uri, end)
    )
    if isinstance(item.text_edit, types.InsertReplaceEdit):  # "insert" ends at the cursor
        assert item.text_edit.insert.end == session.position(uri, cursor)
    session.edit(uri, start, end, new_text)
    assert f'path = "context.foreach.{after}" }},' in session.texts[uri]
    diagnostics = await session.diagnostics(uri)
    assert not [d for d in diagnostics if d.code == "invalid_context_path"]


async def test_hover_on_an_item_segment_shows_its_schema(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    path = "'context.foreach.\"orders.v2\".item'"
    offset = billing.index(path) + path.index("item") + 1
    hover = await session.request(types.TEXT_DOCUMENT_HOVER, uri, offset)
    assert isinstance(hover, types.Hover)
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "sku" in hover.contents.value and "qty" in hover.contents.value
    assert hover.range == session.range(uri, "item", after='\'context.foreach."orders.v2".')


async def test_definition_of_a_loop_id_in_a_path(session: Session, billing: str):
    uri = session.open("billing.wf.toml", billing)
    path = "'context.foreach.\"orders.v2\".item'"
    offset = billing.index(path) + path.index("orders") + 1
    result = await session.request(types.TEXT_DOCUMENT_DEFINITION, uri, offset)
    [location] = result
    assert location.uri == uri
    id_start = session.find(uri, 'id = "orders.v2"') + len("id = ")
    id_value = types.Range(
        start=session.position(uri, id_start),
        end=session.position(uri, id_start + len('"orders.v2"')),
    )
    assert location.range.start.line == id_value.start.line
    assert id_value.start.character <= location.range.start.character
    assert location.range.end.character <= id_value.end.character


async def test_typing_a_path_keystroke_by_keystroke(session: Session, billing: str):
    """Each keystroke is followed at once by a completion, as an editor does while typing."""
    uri, cursor = open_with_path(session, billing, "'|' },")
    # The first full analysis exists before typing starts, as after opening a file.
    await session.diagnostics(uri)
    typed = ""
    for char in 'context.foreach."orders.v2".item.':
        session.edit(uri, cursor, cursor, char)
        cursor += 1
        typed += char
        items = await complete_at(session, uri, cursor)
        if typed == "context.foreach.":
            texts = {edit_of(i)[0] for i in items}
            assert texts == {"customers", '"orders.v2"'}
    texts = {edit_of(i)[0] for i in items}
    assert {"sku", "qty"} <= texts
    for item in items:
        _, edit_range = edit_of(item)
        assert edit_range.start == session.position(uri, cursor)
    # Once the analysis catches up, the finished path is valid at this node.
    diagnostics = await session.diagnostics(uri)
    assert not [d for d in diagnostics if d.code == "invalid_context_path"]


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01garbage\x7f",
        "[" * 3000,
        'name = "' + "x" * 200_000 + '"\nnodes = [[[[',
        '[[nodes]]\nid = "a"\ntype = "foreach"\nover = "input.',
    ],
    ids=["binary", "deep", "long line", "truncated"],
)
async def test_bad_documents_get_diagnostics_not_errors(session: Session, text: str):
    uri = session.open("bad.wf.toml", text)
    diagnostics = await session.diagnostics(uri)
    assert any(d.code == "syntax_error" or d.code == "invalid_model" for d in diagnostics)
    for method in (types.TEXT_DOCUMENT_COMPLETION, types.TEXT_DOCUMENT_HOVER):
        await session.request(method, uri, len(text) // 2)

"""Validation after an edit re-checks only the nodes the edit touched, places again only
the findings the edit moved, and says exactly what a validation from scratch says."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from builders import APPROVALS_WITH_MISTAKES, BILLING_WITH_MISTAKES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wf_core.base.edits import Edit, apply_edits
from wf_core.version.snapshot import DocumentSnapshot, PlacedIssue, analyze_text
from wfls.store import DocumentStore

EXAMPLES = Path(__file__).parent.parent / "examples"
DOCUMENTS = {
    name: (EXAMPLES / name).read_text(encoding="utf-8")
    for name in ("billing.wf.toml", "store_audit.wf.toml", "approvals.wf.json")
} | {
    # Findings in untouched nodes: their placements are reused (``wf_core.placing``).
    "billing-mistaken.wf.toml": BILLING_WITH_MISTAKES,
    "approvals-mistaken.wf.json": APPROVALS_WITH_MISTAKES,
}
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def findings(snapshot: DocumentSnapshot) -> list[tuple[Any, ...]]:
    return [
        (p.code, p.message, p.severity, p.span, p.location, p.related, p.issue.data)
        for p in snapshot.issues
    ]


def syntax_of(name: str) -> str:
    return "json" if name.endswith(".json") else "toml"


# Edits inside string literals keep the document's structure most of the time, so the
# memo is exercised; the others change the structure, and the memo must step aside.
_INSERTS = st.sampled_from(
    ["x", "", ".", "_", "context.foreach.", "item.", '"', "]", "\n", "nope", "0", " "]
)


@st.composite
def edit_sequences(draw: st.DrawFn) -> tuple[str, list[tuple[float, bool, int, str]]]:
    name = draw(st.sampled_from(sorted(DOCUMENTS)))
    steps = draw(
        st.lists(
            st.tuples(
                st.floats(min_value=0, max_value=1, exclude_max=True),
                st.booleans(),
                st.integers(min_value=0, max_value=4),
                _INSERTS,
            ),
            min_size=1,
            max_size=6,
        )
    )
    return name, steps


def edit_of(text: str, where: float, in_string: bool, delete: int, insert: str) -> Edit:
    """An edit of ``text``, inside a string literal (where typing mostly happens) or anywhere."""
    strings = [m.span() for m in _STRINGS.finditer(text)]
    if in_string and strings:
        start, end = strings[int(where * len(strings))]
        at = start + 1 + int(where * 997) % max(1, end - start - 1)
    else:
        at = int(where * (len(text) + 1))
    return Edit(at, min(at + delete, len(text)), insert)


def edited_versions(
    text: str, syntax: str, steps: Sequence[tuple[float, bool, int, str]]
) -> Iterator[DocumentSnapshot]:
    """The analysis of ``text``, then of each version ``steps`` edit it into (``edit_of``),
    each made as the server makes it: parsed from the last one through the edit's region,
    its values derived again only where the edit changed them."""
    from wf_core.base.derived import Derivations
    from wf_core.base.edits import apply_in_order
    from wf_core.base.spans import LineIndex
    from wf_core.documents.parser import DocumentParser

    parser, derived = DocumentParser(syntax), Derivations()
    lines, region = LineIndex(text), None
    for step in [None, *steps]:
        if step is not None:
            lines, region = apply_in_order(lines, [edit_of(lines.text, *step)])
        yield DocumentSnapshot(parser.parse(lines.text, region), derived=derived)


def apply(text: str, where: float, in_string: bool, delete: int, insert: str) -> str:
    return apply_edits(text, [edit_of(text, where, in_string, delete, insert)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
# A '"' typed in a JSON document makes a node's object an element of ``edges``, which the
# model cache once handed out as the node it was.
@example(
    ("approvals-mistaken.wf.json", [(0.5, False, 0, "x"), (0.9774307292816155, False, 0, '"')])
)
# A node id edited, then its node broken: the edges' findings keep their words but lose
# their "did you mean", which a placement kept for the equal words once carried over.
@example(("approvals-mistaken.wf.json", [(0.73046875, False, 0, "x"), (0.6875, True, 0, "x")]))
# A node def's ``[node_defs.input_schema]`` broken, then edited: read pair by pair, the
# section was no part of the def's content key, and the def was found again unchanged.
@example(("billing.wf.toml", [(0.6875, False, 0, "x"), (0.71875, False, 0, "x")]))
def test_an_edited_document_validates_as_it_would_from_scratch(
    case: tuple[str, list[tuple[float, bool, int, str]]],
) -> None:
    name, steps = case
    text = DOCUMENTS[name]
    uri = f"file:///w/{name}"
    store = DocumentStore()
    store.open(uri, text, 1)
    for version, (where, in_string, delete, insert) in enumerate(steps, start=2):
        text = apply(text, where, in_string, delete, insert)
        store.replace(uri, text, version)
        incremental = store.snapshot(uri)
        assert incremental is not None
        assert findings(incremental) == findings(analyze_text(text, syntax_of(name)))


def test_an_edit_inside_one_node_re_checks_that_node_only() -> None:
    # A mistake in the loop ``orders.v2`` and a convenience key read by ``charge``.
    text = DOCUMENTS["billing.wf.toml"]
    text = text.replace("customers.item.orders", "customers.item.ordrs")
    text = text.replace("context.foreach.customers.item.name", "context.customer.name")
    uri = "file:///w/billing.wf.toml"
    store = DocumentStore()
    store.open(uri, text, 1)
    before = store.snapshot(uri)
    assert before is not None
    assert [p.code for p in before.issues] == ["invalid_context_path", "deprecated_context_key"]
    loop_error = before.issues[0]
    # An edit inside ``charge``'s path.
    at = text.index("context.customer.name") + len("context.customer.name")
    edited = text[:at] + "x" + text[at:]
    store.replace(uri, edited, 2)
    after = store.snapshot(uri)
    assert after is not None
    assert [p.code for p in after.issues] == ["invalid_context_path", "invalid_context_path"]
    # The untouched node's finding is the very object of the previous version; the
    # edited node's is made again.
    assert after.issues[0].issue is loop_error.issue
    assert "unknown segment 'namex'" in after.issues[1].message
    assert findings(after) == findings(analyze_text(edited, "toml"))


def test_the_whole_graph_findings_are_kept_until_what_they_read_changes() -> None:
    # An edge with an outcome ``charge_order`` does not declare, and a second node def
    # that does declare it.
    edges = DOCUMENTS["billing.wf.toml"].replace(
        '  { from = "customers", outcome = "done"',
        '  { from = "charge", outcome = "retry", to = "charge" },\n'
        '  { from = "customers", outcome = "done"',
    )
    charge_order = edges[edges.index("[[node_defs]]") : edges.index("[[nodes]]")]
    text = (
        edges
        + "\n"
        + charge_order.replace('"charge_order"', '"charge_again"').replace(
            'outcomes = ["ok"]', 'outcomes = ["ok", "retry"]'
        )
    )
    uri = "file:///w/billing.wf.toml"
    store = DocumentStore()
    store.open(uri, text, 1)
    before = store.snapshot(uri)
    assert before is not None
    assert [p.code for p in before.issues] == ["undeclared_edge_outcome"]
    # An edit inside a path: the graph's finding is the very object of the last version.
    inside = text.replace("customers.item.name", "customers.item.nam")
    store.replace(uri, inside, 2)
    after = store.snapshot(uri)
    assert after is not None
    assert [p.code for p in after.issues] == ["undeclared_edge_outcome", "invalid_context_path"]
    assert after.issues[0].issue is before.issues[0].issue
    assert findings(after) == findings(analyze_text(inside, "toml"))
    # The node now uses a def that declares the outcome: same structure, other outcomes.
    other_def = inside.replace('node = "charge_order"', 'node = "charge_again"')
    store.replace(uri, other_def, 3)
    changed = store.snapshot(uri)
    assert changed is not None
    assert [p.code for p in changed.issues] == ["invalid_context_path"]
    assert findings(changed) == findings(analyze_text(other_def, "toml"))


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("customers.item.name", "customers.item.nam", True),  # inside a binding's path
        ('node = "charge_order"', 'node = "charge_ordr"', True),  # not read by the model
        ('over = "input.customers"', 'over = "input.clients"', False),  # a loop's collection
        ('as = "order"', 'as = "line"', False),  # a loop's alias
        ('outcome = "loop", to = "charge"', 'outcome = "loop", to = "customers"', False),
        ('start = "customers"', 'start = "charge"', False),
        ('properties.qty = { type = "integer" }', "", False),  # an input schema
    ],
)
def test_the_context_model_is_kept_while_what_it_reads_is_unchanged(
    old: str, new: str, kept: bool
) -> None:
    text = DOCUMENTS["billing.wf.toml"]
    uri = "file:///w/billing.wf.toml"
    store = DocumentStore()
    store.open(uri, text, 1)
    before = store.snapshot(uri)
    assert old in text and before is not None and before.context is not None
    edited = text.replace(old, new, 1)
    store.replace(uri, edited, 2)
    after = store.snapshot(uri)
    assert after is not None and after.context is not None
    assert (after.context is before.context) is kept
    assert findings(after) == findings(analyze_text(edited, "toml"))


def test_a_structural_edit_checks_every_node_again() -> None:
    text = DOCUMENTS["billing.wf.toml"].replace("customers.item.orders", "customers.item.ordrs")
    uri = "file:///w/billing.wf.toml"
    store = DocumentStore()
    store.open(uri, text, 1)
    before = store.snapshot(uri)
    assert before is not None and [p.code for p in before.issues] == ["invalid_context_path"]
    # Renaming the outer loop's alias changes the context model: nothing is reused.
    edited = text.replace('as = "customer"', 'as = "client"')
    store.replace(uri, edited, 2)
    after = store.snapshot(uri)
    assert after is not None and [p.code for p in after.issues] == ["invalid_context_path"]
    assert after.report.issues[0] is not before.report.issues[0]
    assert findings(after) == findings(analyze_text(edited, "toml"))


# -- placing findings again ------------------------------------------------------------

CASES = {
    "toml": (
        "file:///w/billing.wf.toml",
        BILLING_WITH_MISTAKES,
        "# billing.wf.toml",
        "ordrs",
        "nam",
    ),
    "json": (
        "file:///w/approvals.wf.json",
        APPROVALS_WITH_MISTAKES,
        '"approvals"',
        "amont",
        "requestr",
    ),
}


def analysed(kind: str, edit: Any) -> tuple[list[PlacedIssue], list[PlacedIssue], str]:
    """The two mistakes' findings before and after ``edit`` (text → text), in text order."""
    uri, text, _top, first, second = CASES[kind]
    store = DocumentStore()
    store.open(uri, text, 1)
    before = store.snapshot(uri)
    edited = edit(text)
    store.replace(uri, edited, 2)
    after = store.snapshot(uri)
    assert before is not None and after is not None
    assert findings(after) == findings(analyze_text(edited, kind))  # type: ignore[arg-type]

    def mistakes(snapshot: DocumentSnapshot, source: str) -> list[PlacedIssue]:
        found = [p for p in snapshot.issues if source[p.span.start : p.span.end].startswith(first)]
        found += [
            p for p in snapshot.issues if source[p.span.start : p.span.end].startswith(second)
        ]
        assert len(found) == 2 and found[0].span.start < found[1].span.start
        return found

    return mistakes(before, text), mistakes(after, edited), edited


@pytest.mark.parametrize("kind", sorted(CASES))
def test_an_edit_that_moves_no_finding_hands_out_the_same_placed_findings(kind: str) -> None:
    top = CASES[kind][2]  # a comment or the name, above both nodes: same length after
    old, new, _ = analysed(kind, lambda text: text.replace(top, top[:-2] + "x" + top[-1], 1))
    assert all(a is b for a, b in zip(old, new, strict=True))


@pytest.mark.parametrize(
    ("kind", "insert"), [("toml", "xy"), ("toml", "\n\n"), ("json", "xy"), ("json", "\n")]
)
def test_an_edit_above_the_findings_moves_them_by_its_length(kind: str, insert: str) -> None:
    top = CASES[kind][2]
    old, new, _ = analysed(kind, lambda text: text.replace(top, top[:-1] + insert + top[-1], 1))
    for a, b in zip(old, new, strict=True):
        assert b.issue is a.issue  # the node was not validated again
        assert b is not a
        assert (b.span.start - a.span.start, b.span.end - a.span.end) == (len(insert),) * 2


@pytest.mark.parametrize("kind", sorted(CASES))
def test_an_edit_in_the_second_node_keeps_the_first_and_places_the_second_afresh(
    kind: str,
) -> None:
    second = CASES[kind][4]
    old, new, edited = analysed(kind, lambda text: text.replace(f'.{second}"', f'.{second}x"'))
    assert new[0] is old[0]
    assert new[1].issue is not old[1].issue
    assert edited[new[1].span.start : new[1].span.end] == second + "x"


# -- what the memos keep ---------------------------------------------------------------


def test_the_memos_carry_an_untouched_record_over_as_it_is() -> None:
    """A node (or finding) the edit did not touch costs its memo no new object: every one
    would be a survivor of the analysis for the cyclic collector to scan (``collector``),
    16,000 of them per edit at 16,000 nodes."""
    from wf_core.base.derived import Derivations

    model, key, found = object(), (((), "[[nodes]]\nid = 'a'\n"),), (("a",), ())
    derived = Derivations()
    derived.begin("q", (model, (), ("ok",))).at(3, key, lambda: found)
    record = derived._runs["q"].table[3]
    run = derived.begin("q", (model, (), ("ok",)))
    assert run.at(3, (((), "[[nodes]]\nid = 'a'\n"),), lambda: (("?",), ())) is found
    assert derived._runs["q"].table[3] is record  # carried over as it is
    run = derived.begin("q", (model, (), ("ok",)))
    assert run.at(3, (((), "[[nodes]]\nid = 'b'\n"),), lambda: (("b",), ())) is not found


def test_a_finding_in_an_untouched_statement_keeps_its_placement() -> None:
    """Placed once, a finding is moved with its statement (an addition) when text before
    it changed length, and is the very same object when nothing before it did."""
    from wf_core.base.derived import Derivations
    from wf_core.documents.parser import DocumentParser
    from wf_core.version.snapshot import DocumentSnapshot

    text = DOCUMENTS["billing.wf.toml"].replace("item.orders", "item.ordrs")
    parser, derived = DocumentParser("toml"), Derivations()

    def typo(source: str) -> PlacedIssue:
        snapshot = DocumentSnapshot(parser.parse(source), derived=derived)
        [found] = [p for p in snapshot.issues if p.code == "invalid_context_path"]
        fresh = [p for p in analyze_text(source, "toml").issues if p.code == found.code]
        assert [found] == fresh
        return found

    first = typo(text)
    assert text[first.span.start : first.span.end] == "ordrs"
    assert typo(text + "# a comment after\n") is first
    moved = typo("# a comment before\n" + text)
    assert moved.span.start == first.span.start + len("# a comment before\n")


def test_each_version_numbers_its_own_lines() -> None:
    """A version's line index is derived from the last one's (``LineIndex.following``):
    typing inside a line, then a line break, then text removed across lines."""
    from wf_core.base.spans import LineIndex

    text = DOCUMENTS["billing.wf.toml"]
    uri = "file:///w/billing.wf.toml"
    store = DocumentStore()
    store.open(uri, text, 1)
    edits = [
        ("customers.item.name", "customers.item.nam"),
        ("customers.item.nam", "customers.item.name2"),
        ('as = "customer"', 'as = "customer"\n\n# a comment'),
        ("[state_schema]\ntype", "[state_schema]  type"),
    ]
    for version, (old, new) in enumerate(edits, start=2):
        assert old in text
        text = text.replace(old, new, 1)
        store.replace(uri, text, version)
        snapshot = store.snapshot(uri)
        assert snapshot is not None and snapshot.lines.text == text
        fresh = LineIndex(text)
        assert snapshot.lines.line_count == fresh.line_count
        for offset in range(0, len(text) + 1):
            assert snapshot.lines.position(offset) == fresh.position(offset)

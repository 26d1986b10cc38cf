"""The findings touching a range (what code actions fix) are exactly those of every finding
placed, whether they are placed alone (``DocumentSnapshot.issues_touching``, before the
version's findings are) or picked out of all of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_check_workspace import write
from test_incremental_validation import DOCUMENTS, edit_sequences, edited_versions, syntax_of

from wf_core.base.spans import Span
from wf_core.version.snapshot import DocumentSnapshot, PlacedIssue, analyze_text
from wf_core.workspace.catalog import Workspace
from wf_core.workspace.checks import document_issues
from wf_core.workspace.files import Roots


def described(placed: tuple[PlacedIssue, ...] | list[PlacedIssue]) -> list[tuple[Any, ...]]:
    return [
        (p.code, p.message, p.severity, p.span, p.location, p.related, p.issue.data) for p in placed
    ]


def touching(snapshot: DocumentSnapshot, span: Span) -> list[PlacedIssue]:
    return [p for p in snapshot.issues if p.span.start <= span.end and span.start <= p.span.end]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edit_sequences(),
    st.floats(min_value=0, max_value=1, exclude_max=True),
    st.integers(min_value=0, max_value=60),
)
# A cursor inside a node of a document whose mistakes lie in several nodes and edges.
@example(("billing-mistaken.wf.toml", [(0.5, True, 0, "")]), 0.7, 0)
@example(("approvals-mistaken.wf.json", [(0.5, True, 0, "")]), 0.6, 3)
def test_the_findings_placed_alone_are_those_picked_out_of_every_one(
    case: tuple[str, list[tuple[float, bool, int, str]]], where: float, length: int
) -> None:
    name, steps = case
    *_, last = edited_versions(DOCUMENTS[name], syntax_of(name), steps)
    start = int(where * (len(last.text) + 1))
    span = Span(start, min(start + length, len(last.text)))
    alone = last.issues_touching(span)
    assert described(alone) == described(touching(analyze_text(last.text, syntax_of(name)), span))


def test_a_cursor_in_a_node_places_its_findings_and_no_others() -> None:
    text = DOCUMENTS["billing-mistaken.wf.toml"]
    everything = analyze_text(text, "toml").issues
    # A node holding a finding, other findings lying elsewhere.
    mistaken = next(p for p in everything if p.location and p.location[:1] == ("nodes",))
    assert any(p.location[:2] != mistaken.location[:2] for p in everything if p.location)
    cursor = Span(mistaken.span.start + 1, mistaken.span.start + 1)
    snapshot = analyze_text(text, "toml")
    found = snapshot.issues_touching(cursor)
    assert not snapshot.diagnosed  # the version's findings were not all placed
    assert mistaken.code in [p.code for p in found]
    assert described(found) == described(touching(analyze_text(text, "toml"), cursor))


def test_spans_reaching_a_finding_from_next_to_it_find_it() -> None:
    """Each finding reached by a span that ends at its start or begins at its end, from a
    few characters away: where a span leaves the element it starts in, or an element's
    range ends, a finding on the boundary is still found."""
    for name, text in DOCUMENTS.items():
        placed = analyze_text(text, syntax_of(name)).issues
        for p in placed:
            for reach in (0, 1, 2, 7, 40):
                for span in (
                    Span(max(0, p.span.start - reach), p.span.start),
                    Span(p.span.end, min(len(text), p.span.end + reach)),
                ):
                    alone = analyze_text(text, syntax_of(name)).issues_touching(span)
                    assert described(alone) == described(
                        [q for q in placed if q.span.start <= span.end and span.start <= q.span.end]
                    ), (name, span)


def test_the_findings_of_one_code_placed_alone_are_those_of_every_one() -> None:
    for name, text in DOCUMENTS.items():
        placed = analyze_text(text, syntax_of(name)).issues
        for code in {p.code for p in placed}:
            alone = list(analyze_text(text, syntax_of(name)).issues_with_code(code))
            assert sorted(map(repr, described(alone))) == sorted(
                map(repr, described([p for p in placed if p.code == code]))
            ), (name, code)


def test_a_documents_findings_in_its_workspace_touching_a_span_are_those_of_every_one(
    tmp_path: Path,
) -> None:
    """Its own findings placed alone, the cross-file ones (a workflow name used twice)
    picked out of all of them, as code actions read them in a workspace."""
    text = DOCUMENTS["billing-mistaken.wf.toml"]
    write(tmp_path / "billing.wf.toml", text)
    write(tmp_path / "copy" / "billing.wf.toml", text)
    every = Workspace(Roots([tmp_path]))
    every.scan()
    uri = next(d.uri for d in every.documents() if "copy" not in d.uri)
    placed = document_issues(every, uri)
    assert "duplicate_workflow_name" in [p.code for p in placed]
    placed_alone = 0
    for p in placed:
        for span in (Span(p.span.start, p.span.start), Span(p.span.end, p.span.end + 3)):
            alone = Workspace(Roots([tmp_path]))
            alone.scan()
            assert described(document_issues(alone, uri, span)) == described(
                [q for q in placed if q.span.start <= span.end and span.start <= q.span.end]
            )
            document = alone.document(uri)
            placed_alone += document is not None and not document.snapshot.diagnosed
    assert placed_alone  # some spans lay inside one node: the others' findings were not placed

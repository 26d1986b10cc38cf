"""Validation after an edit re-checks only the nodes the edit touched, and says exactly
what a validation from scratch says."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wf_core.snapshot import DocumentSnapshot, analyze_text
from wfls.store import DocumentStore

EXAMPLES = Path(__file__).parent.parent / "examples"
DOCUMENTS = {
    name: (EXAMPLES / name).read_text(encoding="utf-8")
    for name in ("billing.wf.toml", "store_audit.wf.toml", "approvals.wf.json")
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


def apply(text: str, where: float, in_string: bool, delete: int, insert: str) -> str:
    strings = [m.span() for m in _STRINGS.finditer(text)]
    if in_string and strings:
        start, end = strings[int(where * len(strings))]
        at = start + 1 + int(where * 997) % max(1, end - start - 1)
    else:
        at = int(where * (len(text) + 1))
    return text[:at] + insert + text[at + delete :]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
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
        store.update(uri, text, version)
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
    store.update(uri, edited, 2)
    after = store.snapshot(uri)
    assert after is not None
    assert [p.code for p in after.issues] == ["invalid_context_path", "invalid_context_path"]
    # The untouched node's finding is the very object of the previous version; the
    # edited node's is made again.
    assert after.issues[0].issue is loop_error.issue
    assert "unknown segment 'namex'" in after.issues[1].message
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
    store.update(uri, edited, 2)
    after = store.snapshot(uri)
    assert after is not None and [p.code for p in after.issues] == ["invalid_context_path"]
    assert after.issues[0].issue is not before.issues[0].issue
    assert findings(after) == findings(analyze_text(edited, "toml"))

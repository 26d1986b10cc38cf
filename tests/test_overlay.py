"""Completion while typing: answers derived from the previous analysis equal fresh ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from wf_core.overlay import changed_region, derive_edited_snapshot
from wf_core.snapshot import analyze_text
from wfls.features.completion import complete
from wfls.features.hover import hover

BILLING = (Path(__file__).parent.parent / "examples" / "billing.wf.toml").read_text()
TARGET = 'path = "context.foreach.customers.item.name"'


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", "x"),
        ("abc", "abc"),
        ("abcdef", "abXYZdef"),
        ("aaaa", "aaa"),
        ("ab😀cd", "ab😀😀cd"),
    ],
)
def test_changed_region(old: str, new: str) -> None:
    start, old_end, new_end = changed_region(old, new)
    assert old[:start] + new[start:new_end] + old[old_end:] == new
    assert old[:start] == new[:start] and old[old_end:] == new[new_end:]


@pytest.mark.parametrize(
    "typed",
    [
        'path = "context.foreach.customers.item.na"',
        'path = "context.foreach.customers.item."',
        'path = "context.foreach."',
        'path = "context.foreach.customers.it"',
        'path = "context.foreach.\\"ord"',
    ],
)
def test_completion_from_an_edited_snapshot_equals_a_fresh_one(typed: str) -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace(TARGET, typed)
    edited = derive_edited_snapshot(base, text, 2)
    assert edited is not None
    fresh = analyze_text(text, "toml")
    cursor = text.index(typed) + len(typed) - 1
    offered = complete(fresh, cursor)
    assert offered, "each typed path has something to complete"
    assert complete(edited, cursor) == offered
    assert hover(edited, cursor - 2) == hover(fresh, cursor - 2)
    # After the edit, offsets shift: the next path's answers still match a fresh analysis.
    later = text.index('output = [{ source = "amount"') + len('output = [{ source = "am')
    after = complete(fresh, later)
    assert [c.label for c in after] == ["amount"]
    assert complete(edited, later) == after


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (TARGET, TARGET + " }, {"),  # the edit leaves the string
        ('id = "charge"', 'id = "charges"'),  # an id: the graph changes
        ('[[nodes]]\nid = "charge"', '[[nodes]]\nid = "charge"\n'),  # a new line
        (TARGET, TARGET.replace('"context', "'context")),  # the quotes change
    ],
)
def test_edits_outside_one_string_need_a_full_analysis(old: str, new: str) -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace(old, new, 1)
    assert derive_edited_snapshot(base, text, 2) is None


def test_references_may_be_typed_without_reanalysis() -> None:
    base = analyze_text(BILLING, "toml")
    text = BILLING.replace('to = "charge" }', 'to = "char" }')
    edited = derive_edited_snapshot(base, text, 2)
    assert edited is not None
    cursor = text.index('to = "char"') + len('to = "char')
    labels = [c.label for c in complete(edited, cursor)]
    assert labels == ["customers", "orders.v2", "charge", "__end__"]
